/*
 * XProf XSpace (*.xplane.pb) reader.
 *
 * The file is one XSpace message with no framing. Everything is walked in
 * place with util/pbwire over one mapped buffer; nothing is unpacked whole.
 *
 * Order of work:
 *   1. a cheap scan of the top-level fields (LEN payloads are skipped, not
 *      read) finds hostnames, errors, warnings and the Task Environment
 *      plane, whose profile_start_time becomes the model origin;
 *   2. planes in file order: a scan of the plane's own fields first reads
 *      stat_metadata, plane stats and event_metadata (which writers put
 *      after the lines), then each line's header is walked, then its
 *      events. With a spare core, a big plane's lines are decoded on a
 *      second thread while this one fills the model in file order (see
 *      "the pipeline"). Mapped pages behind the cursor are released as the
 *      walk goes.
 *
 * Events: start = line.timestamp_ns * 1000 + offset_ps, relative to the
 * profile start (saved files are normalised; a line still on the epoch clock
 * is shifted by the origin). Aggregated events (num_occurrences) become model
 * aggregates. Ops are made per (event metadata, line class) on first use, so
 * the hot loop maps metadata id -> op with one array load.
 *
 * Planes become devices when they have lines or stats; /host:metadata and
 * Task Environment do not (their content is not activity).
 */
#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ingest/ingest.h"
#include "model/classify.h"
#include "util/num.h"
#include "util/pbwire.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* ---- id maps: int64 key -> dense index ---- */

/* Writers number metadata densely from 0 or 1; keys in [0, ndirect) go to an
 * array, anything else to a small open-addressing table. */
struct idmap {
	uint32_t *direct; /* key -> value, TC_NONE = absent */
	size_t ndirect;
	int64_t *keys;
	uint32_t *vals;   /* TC_NONE = empty slot */
	size_t nslots, nhash;
};

static uint64_t mix64(uint64_t k) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void idmap_init(struct idmap *im, int64_t max_key, size_t n) {
	memset(im, 0, sizeof(*im));
	size_t lim = 4 * n + 4096;
	if (max_key >= 0) {
		im->ndirect = (uint64_t)max_key + 1 < lim ? (size_t)max_key + 1 : lim;
	}
	im->direct = tc_xmalloc((im->ndirect ? im->ndirect : 1) * sizeof(*im->direct));
	memset(im->direct, 0xff, im->ndirect * sizeof(*im->direct));
}

static void idmap_finish(struct idmap *im) {
	free(im->direct);
	free(im->keys);
	free(im->vals);
	memset(im, 0, sizeof(*im));
}

static void idmap_hash_put(struct idmap *im, int64_t key, uint32_t val) {
	if ((im->nhash + 1) * 2 > im->nslots) {
		size_t ns = im->nslots ? im->nslots * 2 : 64;
		int64_t *ok = im->keys;
		uint32_t *ov = im->vals;
		size_t on = im->nslots;
		im->keys = tc_xmalloc(ns * sizeof(*im->keys));
		im->vals = tc_xmalloc(ns * sizeof(*im->vals));
		memset(im->vals, 0xff, ns * sizeof(*im->vals));
		im->nslots = ns;
		im->nhash = 0;
		for (size_t i = 0; i < on; i++) {
			if (ov[i] != TC_NONE) {
				idmap_hash_put(im, ok[i], ov[i]);
			}
		}
		free(ok);
		free(ov);
	}
	size_t i = mix64((uint64_t)key) & (im->nslots - 1);
	while (im->vals[i] != TC_NONE && im->keys[i] != key) {
		i = (i + 1) & (im->nslots - 1);
	}
	if (im->vals[i] == TC_NONE) {
		im->nhash++;
	}
	im->keys[i] = key;
	im->vals[i] = val;
}

/* A repeated key replaces the earlier entry, as in protobuf maps. */
static void idmap_put(struct idmap *im, int64_t key, uint32_t val) {
	if (key >= 0 && (uint64_t)key < im->ndirect) {
		im->direct[key] = val;
	} else {
		idmap_hash_put(im, key, val);
	}
}

static uint32_t idmap_get_slow(const struct idmap *im, int64_t key) {
	if (!im->nslots) {
		return TC_NONE;
	}
	size_t i = mix64((uint64_t)key) & (im->nslots - 1);
	while (im->vals[i] != TC_NONE) {
		if (im->keys[i] == key) {
			return im->vals[i];
		}
		i = (i + 1) & (im->nslots - 1);
	}
	return TC_NONE;
}

static inline uint32_t idmap_get(const struct idmap *im, int64_t key) {
	if ((uint64_t)key < im->ndirect) {
		return im->direct[key];
	}
	return idmap_get_slow(im, key);
}

/* ---- stat names with meaning ---- */

enum role {
	R_NONE = 0,
	R_CORRELATION,
	R_MEMCPY_DETAILS,
	R_STEP_NUM,
	R_GROUP_ID,
	R_HLO_CATEGORY,
	R_FLOPS,
	R_BYTES_ACCESSED,
	R_ALLOCATOR,
	R_BYTES_ALLOCATED,
	R_BYTES_RESERVED,
	R_BYTES_AVAILABLE,
	R_PEAK_BYTES,
	R_DROPPED,
	R_PEAK_TFLOPS,
	R_PEAK_HBM_GBPS,
	R_MEM_BW,
	R_MEM_SIZE,
	R_CORE_COUNT,
	R_CLOCK_RATE,
	R_DEVICE_TYPE_STRING,
	R_GPU_DEVICE_NAME,
	R_DEVICE_VENDOR,
	R_PROFILE_START,
};

static const struct {
	const char *name;
	enum role role;
} role_names[] = {
	{ "correlation_id", R_CORRELATION },
	{ "memcpy_details", R_MEMCPY_DETAILS },
	{ "step_num", R_STEP_NUM },
	{ "group_id", R_GROUP_ID },
	{ "hlo_category", R_HLO_CATEGORY },
	{ "flops", R_FLOPS },
	{ "bytes_accessed", R_BYTES_ACCESSED },
	{ "allocator_name", R_ALLOCATOR },
	{ "bytes_allocated", R_BYTES_ALLOCATED },
	{ "bytes_reserved", R_BYTES_RESERVED },
	{ "bytes_available", R_BYTES_AVAILABLE },
	{ "peak_bytes_in_use", R_PEAK_BYTES },
	{ "dropped_traces", R_DROPPED },
	{ "peak_teraflops_per_second", R_PEAK_TFLOPS },
	{ "peak_hbm_bw_gigabytes_per_second", R_PEAK_HBM_GBPS },
	{ "memory_bandwidth", R_MEM_BW },
	{ "memory_size", R_MEM_SIZE },
	{ "core_count", R_CORE_COUNT },
	{ "clock_rate", R_CLOCK_RATE },
	{ "device_type_string", R_DEVICE_TYPE_STRING },
	{ "gpu_device_name", R_GPU_DEVICE_NAME },
	{ "device_vendor", R_DEVICE_VENDOR },
	{ "profile_start_time", R_PROFILE_START },
};

static enum role role_of(const uint8_t *s, size_t n) {
	for (size_t i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++) {
		if (strlen(role_names[i].name) == n && memcmp(role_names[i].name, s, n) == 0) {
			return role_names[i].role;
		}
	}
	return R_NONE;
}

struct smeta {
	uint32_t name; /* interned stat name; also the ref_value target */
	uint8_t role;
	bool drop;     /* a plain stat whose arg the model would not keep */
	uint32_t last; /* this stat's last interned string value, TC_NONE */
};

/* A decoded XStat value. */
/* SV_RAW: a str_value not yet interned (decoded off the main thread). */
enum sv_type { SV_NONE = 0, SV_INT, SV_UINT, SV_DOUBLE, SV_STR, SV_BYTES, SV_RAW };

struct sval {
	uint8_t type;
	union {
		int64_t i;
		uint64_t u;
		double d;
		uint32_t s;
	} v;
	const uint8_t *raw; /* str/bytes payload, borrowed */
	size_t raw_len;
};

/* ---- line classes and op kinds ---- */

enum lclass {
	LC_DEV_OPS = 0, /* XLA Ops, Sparse Core Ops */
	LC_STREAM,      /* GPU compute / kernel streams */
	LC_H2D,
	LC_D2H,
	LC_D2D,
	LC_P2P,
	LC_MEMSET,
	LC_STEPS,
	LC_MODULES,
	LC_DERIVED,
	LC_TRACEME,
	LC_HOST,
	LC_OTHER,
	LC_COUNTERS,
	LC_COUNT,
};

struct emeta {
	uint32_t name;
	uint32_t category;
	uint32_t args;    /* TraceMe pairs + metadata stats, TC_NONE */
	int64_t flops, bytes;
	uint32_t op[LC_COUNT]; /* op per line class, made on first use */
};

struct launch {
	uint64_t corr;
	uint32_t ev;
};

/* What decoding a plane's events needs: read-only while its lines are
 * read, so the pipeline's decoding thread shares it. */
struct dec {
	const uint8_t *base;
	const struct idmap *smap, *emap;
	const struct smeta *sm;
	uint32_t unknown_em;
};

/* The profile start, once known (epoch ns). */
struct origin {
	int64_t ns;  /* subtracted from epoch-clock lines */
	bool have;
};

struct reader {
	struct tc_model *m;
	struct tc_input *in;
	const struct tc_limits *lim;
	struct tc_error *err;
	const uint8_t *base;
	size_t size;
	struct origin org;
	uint32_t host;
	size_t released;
	/* per plane */
	struct idmap smap;   /* stat metadata id -> index into sm */
	struct smeta *sm;
	size_t n_sm, cap_sm;
	struct idmap emap;   /* event metadata id -> index into em */
	struct emeta *em;
	size_t n_em, cap_em;
	uint32_t unknown_em; /* em index for events with a missing metadata id */
	uint32_t device;     /* TC_NONE for planes that are not devices */
	bool host_plane;
	uint64_t dangling_refs;
	uint64_t missing_meta;
	uint64_t bad_strings;
	uint32_t k_unit_bytes, k_mem_alloc, k_mem_reserved, k_mem_peak, k_mem_avail;
	struct launch *launch; /* host runtime calls with a correlation id */
	size_t n_launch, cap_launch;
	const uint8_t **sp; /* stat payloads of one event (slow decoder) */
	size_t *sl;
	struct xstat *xs;   /* and their values */
	size_t cap_sp, cap_sl, cap_xs;
};

/* The current plane's, once its metadata is read. */
static struct dec plane_dec(const struct reader *r) {
	return (struct dec){
		.base = r->base, .smap = &r->smap, .emap = &r->emap, .sm = r->sm,
		.unknown_em = r->unknown_em,
	};
}

static bool fail(struct reader *r, const uint8_t *at, const char *fmt, const char *what) {
	tc_error_set(r->err, TC_EXIT_INPUT, fmt, what);
	return tc_error_at(r->err, at ? (int64_t)(at - r->base) : -1);
}

static bool wire_fail(struct reader *r, const struct tc_pb *pb, const char *msg) {
	tc_error_set(r->err, TC_EXIT_INPUT, "xplane: %s in %s", pb->why, msg);
	return tc_error_at(r->err, tc_pb_offset(pb));
}

static void release(struct reader *r, const uint8_t *p) {
	size_t off = (size_t)(p - r->base);
	if (off > r->released + (8u << 20)) {
		tc_input_release(r->in, off);
		r->released = off;
	}
}

static bool has_prefix(const uint8_t *s, size_t n, const char *pre) {
	size_t k = strlen(pre);
	return n >= k && memcmp(s, pre, k) == 0;
}

static bool contains_ci(const uint8_t *s, size_t n, const char *needle) {
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k && tolower(s[i + j]) == needle[j]) {
			j++;
		}
		if (j == k) {
			return true;
		}
	}
	return false;
}

static const uint8_t *memmem_lit(const uint8_t *s, size_t n, const char *lit) {
	size_t k = strlen(lit);
	for (size_t i = 0; i + k <= n; i++) {
		if (s[i] == (uint8_t)lit[0] && memcmp(s + i, lit, k) == 0) {
			return s + i;
		}
	}
	return NULL;
}

static bool eq(const uint8_t *s, size_t n, const char *lit) {
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Strings are interned as they are; over-long ones are cut (and counted). */
static uint32_t intern(struct reader *r, const uint8_t *s, size_t n) {
	if (n > r->lim->max_string) {
		n = tc_utf8_cut(s, n, r->lim->max_string);
		r->bad_strings++;
	}
	return tc_model_intern_n(r->m, (const char *)s, n);
}

static enum lclass line_class(const uint8_t *s, size_t n, bool host_plane) {
	if (eq(s, n, "_counters_")) {
		return LC_COUNTERS;
	}
	if (host_plane) {
		return LC_HOST;
	}
	if (eq(s, n, "Steps") || eq(s, n, "Sparse Core Steps")) {
		return LC_STEPS;
	}
	if (eq(s, n, "XLA Modules") || eq(s, n, "Sparse Core Modules")) {
		return LC_MODULES;
	}
	if (eq(s, n, "XLA Ops") || eq(s, n, "Sparse Core Ops")) {
		return LC_DEV_OPS;
	}
	if (has_prefix(s, n, "Stream #")) {
		if (contains_ci(s, n, "(memcpyh2d)")) {
			return LC_H2D;
		}
		if (contains_ci(s, n, "(memcpyd2h)")) {
			return LC_D2H;
		}
		if (contains_ci(s, n, "(memcpyd2d)")) {
			return LC_D2D;
		}
		if (contains_ci(s, n, "(memcpyp2p)")) {
			return LC_P2P;
		}
		if (contains_ci(s, n, "(memset)")) {
			return LC_MEMSET;
		}
		return LC_STREAM;
	}
	if (eq(s, n, "XLA TraceMe")) {
		return LC_TRACEME;
	}
	if (eq(s, n, "Framework Ops") || eq(s, n, "TensorFlow Ops") ||
			eq(s, n, "Framework Name Scope") || eq(s, n, "TensorFlow Name Scope") ||
			eq(s, n, "Source code") || eq(s, n, "Launch Stats") ||
			eq(s, n, "Async XLA Ops") || eq(s, n, "XLA Async Ops") ||
			eq(s, n, "Host Offload Ops") || eq(s, n, "Tensor Core Sync Flag") ||
			eq(s, n, "Sparse Core Syncs") || eq(s, n, "Overlay")) {
		return LC_DERIVED;
	}
	return LC_OTHER;
}

static enum tc_track_kind track_kind(enum lclass c) {
	switch (c) {
	case LC_DEV_OPS:
		return TC_TRACK_OPS;
	case LC_STREAM:
	case LC_H2D:
	case LC_D2H:
	case LC_D2D:
	case LC_P2P:
	case LC_MEMSET:
		return TC_TRACK_STREAM;
	case LC_STEPS:
		return TC_TRACK_STEPS;
	case LC_MODULES:
		return TC_TRACK_MODULES;
	case LC_DERIVED:
	case LC_TRACEME:
		return TC_TRACK_DERIVED;
	case LC_HOST:
		return TC_TRACK_HOST_THREAD;
	case LC_COUNTERS:
		return TC_TRACK_COUNTER;
	default:
		return TC_TRACK_OTHER;
	}
}

/* The line says what its events are where the format fixes it (copy and
 * memset streams, step and module lines, derived lines); on op, stream and
 * host lines the classifier decides by name and hlo_category. */
static void op_class(const struct tc_model *m, const struct emeta *e, enum lclass c,
		struct tc_class *k) {
	static const enum tc_op_kind fixed[] = {
		[LC_H2D] = TC_OP_MEMCPY_H2D, [LC_D2H] = TC_OP_MEMCPY_D2H,
		[LC_D2D] = TC_OP_MEMCPY_D2D, [LC_P2P] = TC_OP_MEMCPY_OTHER,
		[LC_MEMSET] = TC_OP_MEMSET, [LC_MODULES] = TC_OP_MODULE,
		[LC_DERIVED] = TC_OP_ANNOTATION, [LC_TRACEME] = TC_OP_SYNC,
	};
	const char *s = tc_model_str(m, e->name);
	size_t n = tc_intern_len(&m->strings, e->name);
	const char *cat = e->category ? tc_model_str(m, e->category) : NULL;
	size_t cn = e->category ? tc_intern_len(&m->strings, e->category) : 0;
	switch (c) {
	case LC_DEV_OPS:
	case LC_STREAM:
		tc_classify(s, n, cat, cn, TC_PLACE_DEVICE, TC_OP_KERNEL, k);
		return;
	case LC_STEPS:
		tc_classify(s, n, cat, cn, TC_PLACE_STEPS, TC_OP_STEP, k);
		return;
	case LC_HOST:
		tc_classify(s, n, cat, cn, TC_PLACE_HOST, TC_OP_HOST_OP, k);
		return;
	default:
		*k = (struct tc_class){ .kind = TC_OP_OTHER, .step = -1 };
		if ((size_t)c < sizeof(fixed) / sizeof(fixed[0]) && fixed[c]) {
			k->kind = fixed[c];
		}
		return;
	}
}

static uint32_t make_op(struct reader *r, uint32_t ei, enum lclass c) {
	struct emeta *e = &r->em[ei];
	struct tc_class k;
	op_class(r->m, e, c, &k);
	uint32_t cat = k.category ? tc_model_intern(r->m, k.category) : e->category;
	e = &r->em[ei];
	uint32_t op = tc_model_add_op(r->m, e->name, cat, k.kind);
	struct tc_op *o = &r->m->ops[op];
	o->flops = e->flops;
	o->bytes = e->bytes;
	o->args = e->args;
	if (k.async_done) {
		o->flags |= TC_OPF_ASYNC_DONE;
	}
	e->op[c] = op;
	return op;
}

/* Multi-byte varints (offsets, durations, ids) fill most of an XEvent; with
 * ten bytes of room the loop needs no end checks and unrolls. */
static inline bool rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
	const uint8_t *p = *pp;
	if (end - p >= 10) {
		uint64_t v = 0;
		for (unsigned i = 0; i < 10; i++) {
			uint64_t b = p[i];
			v |= (b & 0x7f) << (7 * i);
			if (b < 0x80) {
				if (i == 9 && b > 1) {
					return false;
				}
				*out = v;
				*pp = p + i + 1;
				return true;
			}
		}
		return false;
	}
	return tc_pb_varint(pp, end, out);
}

/* ---- stats ---- */

static const uint8_t stat_wt[9] = {
	0, TC_PB_VARINT, TC_PB_I64, TC_PB_VARINT, TC_PB_VARINT, TC_PB_LEN, TC_PB_LEN,
	TC_PB_VARINT, TC_PB_LEN,
};

/*
 * A stat decoded without the model: 16 bytes, as the decoding thread hands
 * them over (see "pipeline"). Strings are left raw, as file offsets.
 */
struct xstat {
	uint32_t k;  /* stat metadata index, TC_NONE unknown */
	uint32_t tl; /* sv_type << 28 | raw length (SV_RAW) */
	uint64_t v;  /* value bits; SV_STR: string id; SV_RAW: offset from
	              * base; SV_BYTES: length (all an arg keeps of it) */
};

#define XSTAT_LEN_MAX ((1u << 28) - 1)

/* ref_value: the referenced stat metadata's name, TC_NONE (counted in
 * *dangling) when no metadata has that id. */
static inline uint32_t ref_name(const struct idmap *smap, const struct smeta *sm,
		uint64_t ref, uint64_t *dangling) {
	uint32_t k = idmap_get(smap, (int64_t)ref);
	if (k == TC_NONE) {
		(*dangling)++;
		return TC_NONE;
	}
	return sm[k].name;
}

/*
 * The common XStat shapes (one-byte tags, no compression, no bytes) decoded
 * with read-only plane metadata, so any thread may run it. ref_value's
 * string is the referenced stat metadata's name; a dangling one is counted
 * in *dangling. False for anything else: the caller decodes it again with
 * parse_stat_slow, which also makes the precise error.
 */
static inline bool stat_fast(const struct idmap *smap, const struct smeta *sm,
		const uint8_t *base, const uint8_t *p, size_t len, struct xstat *o,
		uint64_t *dangling) {
	const uint8_t *q = p, *end = p + len;
	int64_t mid = 0;
	uint32_t type = SV_NONE, rlen = 0;
	uint64_t val = 0;
	while (q < end) {
		uint8_t tag = *q++;
		uint64_t u;
		if (tag == 0x11) {
			if (end - q < 8) {
				return false;
			}
			u = 0;
			for (int i = 7; i >= 0; i--) {
				u = (u << 8) | q[i];
			}
			q += 8;
			type = SV_DOUBLE;
			val = u;
			continue;
		}
		if (!rd_varint(&q, end, &u)) {
			return false;
		}
		switch (tag) {
		case 0x08:
			mid = (int64_t)u;
			break;
		case 0x18:
			type = SV_UINT;
			val = u;
			break;
		case 0x20:
			type = SV_INT;
			val = u;
			break;
		case 0x38: {
			uint32_t name = ref_name(smap, sm, u, dangling);
			type = name == TC_NONE ? SV_NONE : SV_STR;
			val = name;
			break;
		}
		case 0x2a:
			if (u > (uint64_t)(end - q) || u > XSTAT_LEN_MAX) {
				return false;
			}
			type = SV_RAW;
			val = (uint64_t)(q - base);
			rlen = (uint32_t)u;
			q += u;
			break;
		default:
			return false;
		}
	}
	o->k = idmap_get(smap, mid);
	o->tl = type << 28 | rlen;
	o->v = val;
	return true;
}

/* A string value's id. Nearly half the string stats of real GPU profiles
 * repeat their stat's previous value (allocator names, context ids, region
 * types): that one is compared before hashing. Over-long strings always go
 * through intern, which counts them. */
static inline uint32_t str_value(struct reader *r, uint32_t k, const uint8_t *s, size_t n) {
	if (k == TC_NONE) {
		return intern(r, s, n);
	}
	uint32_t last = r->sm[k].last;
	const struct tc_intern *t = &r->m->strings;
	if (last != TC_NONE && n <= r->lim->max_string && tc_intern_len(t, last) == n &&
			memcmp(tc_intern_str(t, last), s, n) == 0) {
		return last;
	}
	return r->sm[k].last = intern(r, s, n);
}

/* An xstat as a value, its raw string interned. */
static inline void xstat_value(struct reader *r, const struct xstat *x, struct sval *v) {
	v->type = (uint8_t)(x->tl >> 28);
	v->raw = NULL;
	switch (v->type) {
	case SV_INT:
		v->v.i = (int64_t)x->v;
		break;
	case SV_UINT:
		v->v.u = x->v;
		break;
	case SV_DOUBLE:
		v->v.d = tc_pb_double(x->v);
		break;
	case SV_STR:
		v->v.s = (uint32_t)x->v;
		break;
	case SV_BYTES:
		v->raw_len = x->v;
		break;
	case SV_RAW:
		v->type = SV_STR;
		v->raw = r->base + x->v;
		v->raw_len = x->tl & XSTAT_LEN_MAX;
		v->v.s = str_value(r, x->k, v->raw, v->raw_len);
		break;
	default:
		break;
	}
}

/* A decoded value back as an xstat (its string already interned). */
static struct xstat xstat_of(uint32_t k, const struct sval *v) {
	struct xstat x = { .k = k, .tl = (uint32_t)v->type << 28 };
	switch (v->type) {
	case SV_INT:
		x.v = (uint64_t)v->v.i;
		break;
	case SV_UINT:
		x.v = v->v.u;
		break;
	case SV_DOUBLE:
		memcpy(&x.v, &v->v.d, sizeof(x.v));
		break;
	case SV_STR:
		x.v = v->v.s;
		break;
	case SV_BYTES:
		x.v = v->raw_len; /* all an arg keeps of it */
		break;
	default:
		break;
	}
	return x;
}

static bool parse_stat_slow(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v);

/* Decode one XStat. Returns false on malformed wire data; a stat whose
 * metadata is unknown gets *sm_out = TC_NONE. */
static inline bool parse_stat(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v) {
	struct xstat x;
	uint64_t dangling = 0;
	if (!stat_fast(&r->smap, r->sm, r->base, p, len, &x, &dangling)) {
		return parse_stat_slow(r, p, len, sm_out, v);
	}
	r->dangling_refs += dangling;
	*sm_out = x.k;
	xstat_value(r, &x, v);
	return true;
}

static bool parse_stat_slow(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t mid = 0;
	v->type = SV_NONE;
	v->raw = NULL;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= 8 && f.wt != stat_wt[f.num]) {
			return fail(r, p, "xplane: %s has a field of the wrong wire type", "XStat");
		}
		switch (f.num) {
		case 1:
			mid = (int64_t)f.u;
			break;
		case 2:
			v->type = SV_DOUBLE;
			v->v.d = tc_pb_double(f.u);
			break;
		case 3:
			v->type = SV_UINT;
			v->v.u = f.u;
			break;
		case 4:
			v->type = SV_INT;
			v->v.i = (int64_t)f.u;
			break;
		case 5:
			if (f.wt != TC_PB_LEN) {
				return fail(r, p, "xplane: %s has the wrong wire type", "XStat.str_value");
			}
			v->type = SV_STR;
			v->raw = f.data;
			v->raw_len = f.len;
			break;
		case 6:
			if (f.wt != TC_PB_LEN) {
				return fail(r, p, "xplane: %s has the wrong wire type", "XStat.bytes_value");
			}
			v->type = SV_BYTES;
			v->raw = f.data;
			v->raw_len = f.len;
			break;
		case 7:
			v->v.s = ref_name(&r->smap, r->sm, f.u, &r->dangling_refs);
			v->type = v->v.s == TC_NONE ? SV_NONE : SV_STR;
			v->raw = NULL;
			break;
		case 8: {
			if (f.wt != TC_PB_LEN) {
				return fail(r, p, "xplane: %s has the wrong wire type",
					"XStat.compressed_str_value");
			}
			uint8_t *out;
			size_t out_len;
			struct tc_error e;
			tc_error_init(&e);
			if (!tc_inflate(f.data, f.len, 15 + 32, r->lim->max_string, &out, &out_len, &e)) {
				if (e.code == TC_EXIT_LIMIT) {
					tc_error_set(r->err, TC_EXIT_LIMIT, "xplane: compressed "
						"string stat longer than the limit of %" PRIu32
						" bytes (raise it with --max-string)",
						r->lim->max_string);
					return tc_error_at(r->err, (int64_t)(f.data - r->base));
				}
				return fail(r, f.data, "xplane: compressed string stat cannot be "
					"inflated: %s", e.msg);
			}
			v->type = SV_STR;
			v->v.s = intern(r, out, out_len);
			v->raw = NULL;
			free(out);
			break;
		}
		default:
			break;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XStat");
	}
	*sm_out = idmap_get(&r->smap, mid);
	if (v->type == SV_STR && v->raw) {
		v->v.s = str_value(r, *sm_out, v->raw, v->raw_len);
	}
	return true;
}

static bool sval_num(const struct sval *v, double *d) {
	switch (v->type) {
	case SV_INT:
		*d = (double)v->v.i;
		return true;
	case SV_UINT:
		*d = (double)v->v.u;
		return true;
	case SV_DOUBLE:
		*d = v->v.d;
		return true;
	default:
		return false;
	}
}

static bool sval_i64(const struct sval *v, int64_t *out) {
	switch (v->type) {
	case SV_INT:
		*out = v->v.i;
		return true;
	case SV_UINT:
		*out = (int64_t)v->v.u;
		return true;
	case SV_DOUBLE:
		if (tc_double_fits_i64(v->v.d)) {
			*out = (int64_t)v->v.d;
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void add_arg(struct reader *r, uint32_t key, const struct sval *v) {
	switch (v->type) {
	case SV_INT:
		tc_model_arg_int(r->m, key, v->v.i);
		break;
	case SV_UINT:
		tc_model_arg_uint(r->m, key, v->v.u);
		break;
	case SV_DOUBLE:
		tc_model_arg_double(r->m, key, v->v.d);
		break;
	case SV_STR:
		tc_model_arg_str(r->m, key, v->v.s);
		break;
	case SV_BYTES:
		/* Serialized protos: their size is all a summary can use. */
		tc_model_arg_uint(r->m, key, v->raw_len);
		break;
	default:
		break;
	}
}

/* ---- metadata ---- */

static bool parse_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, uint32_t *name_out) {
	struct tc_pb pb, vb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t key = 0;
	const uint8_t *name = NULL;
	size_t name_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == 1 && f.wt == TC_PB_VARINT) {
			key = (int64_t)f.u;
		} else if (f.num == 2 && f.wt == TC_PB_LEN) {
			tc_pb_init(&vb, r->base, f.data, f.len);
			struct tc_pb_field g = { 0 };
			int rc2;
			while ((rc2 = tc_pb_next(&vb, &g)) > 0) {
				/* Look-ups go by the map key; the id inside is ignored. */
				if (g.num == 2 && g.wt == TC_PB_LEN) {
					name = g.data;
					name_len = g.len;
				}
			}
			if (rc2 < 0) {
				return wire_fail(r, &vb, "XStatMetadata");
			}
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "stat_metadata entry");
	}
	*key_out = key;
	*name_out = name ? intern(r, name, name_len) : 0;
	return true;
}

/*
 * TraceMe names may carry "#k=v,k=v#" metadata: the op is the part before
 * the first '#', the pairs become op args (parse_annotation.cc rules, without
 * the quote/bracket nesting, which never occurs in op names we have seen).
 */
static uint32_t traceme_split(struct reader *r, const uint8_t *s, size_t n) {
	if (n < 2 || s[n - 1] != '#') {
		return intern(r, s, n);
	}
	const uint8_t *h = memchr(s, '#', n - 1);
	if (!h) {
		return intern(r, s, n);
	}
	uint32_t name = intern(r, s, (size_t)(h - s));
	const uint8_t *q = h + 1, *end = s + n - 1;
	while (q < end) {
		const uint8_t *c = memchr(q, ',', (size_t)(end - q));
		const uint8_t *pe = c ? c : end;
		const uint8_t *eqs = memchr(q, '=', (size_t)(pe - q));
		if (eqs && eqs > q && eqs + 1 < pe) {
			uint32_t k = intern(r, q, (size_t)(eqs - q));
			tc_model_arg_str(r->m, k, intern(r, eqs + 1, (size_t)(pe - eqs - 1)));
		}
		q = pe + 1;
	}
	return name;
}

static void emeta_init(struct emeta *e) {
	memset(e, 0, sizeof(*e));
	e->flops = -1;
	e->bytes = -1;
	e->args = TC_NONE;
	for (int c = 0; c < LC_COUNT; c++) {
		e->op[c] = TC_NONE;
	}
}

static bool parse_event_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, struct emeta *e) {
	struct tc_pb pb, vb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t key = 0;
	const uint8_t *val = NULL;
	size_t val_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == 1 && f.wt == TC_PB_VARINT) {
			key = (int64_t)f.u;
		} else if (f.num == 2 && f.wt == TC_PB_LEN) {
			val = f.data;
			val_len = f.len;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "event_metadata entry");
	}
	emeta_init(e);
	*key_out = key;
	const uint8_t *name = NULL, *disp = NULL;
	size_t name_len = 0, disp_len = 0;
	/* First pass: name (TraceMe args go first in the list), then stats. */
	tc_pb_init(&vb, r->base, val ? val : p, val ? val_len : 0);
	while ((rc = tc_pb_next(&vb, &f)) > 0) {
		if (f.num == 2 && f.wt == TC_PB_LEN) {
			name = f.data;
			name_len = f.len;
		} else if (f.num == 4 && f.wt == TC_PB_LEN) {
			disp = f.data;
			disp_len = f.len;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &vb, "XEventMetadata");
	}
	uint32_t args = tc_model_args_begin(r->m);
	const uint8_t *eqs = name && name_len > 4 && name[0] == '%' ?
		memmem_lit(name, name_len, " = ") : NULL;
	if (eqs) {
		/* HLO text "%fusion.3 = f32[...] fusion(...)": the op is the
		 * instruction name, the full text its long_name. */
		e->name = intern(r, name + 1, (size_t)(eqs - name - 1));
		tc_model_arg_str(r->m, r->m->key.long_name, intern(r, name, name_len));
	} else if (name && name_len) {
		e->name = traceme_split(r, name, name_len);
	} else if (disp) {
		e->name = intern(r, disp, disp_len);
	} else {
		e->name = tc_model_intern(r->m, tc_arena_strfmt(&r->m->arena,
			"metadata %" PRId64, key));
	}
	tc_pb_init(&vb, r->base, val ? val : p, val ? val_len : 0);
	while ((rc = tc_pb_next(&vb, &f)) > 0) {
		if (f.num != 5 || f.wt != TC_PB_LEN) {
			continue;
		}
		uint32_t k;
		struct sval v;
		if (!parse_stat(r, f.data, f.len, &k, &v)) {
			return false;
		}
		if (k == TC_NONE || v.type == SV_NONE) {
			continue;
		}
		const struct smeta *sm = &r->sm[k];
		int64_t iv;
		if (sm->role == R_HLO_CATEGORY && v.type == SV_STR) {
			e->category = v.v.s;
		} else if (sm->role == R_FLOPS && sval_i64(&v, &iv)) {
			e->flops = iv;
		} else if (sm->role == R_BYTES_ACCESSED && sval_i64(&v, &iv)) {
			e->bytes = iv;
		}
		add_arg(r, sm->name, &v);
	}
	e->args = tc_model_args_end(r->m, args);
	return true;
}

/* ---- devices ---- */

static int32_t trailing_ordinal(const uint8_t *s, size_t n, const char *prefix) {
	size_t k = strlen(prefix);
	if (n <= k || memcmp(s, prefix, k) != 0) {
		return -1;
	}
	int64_t v = 0;
	size_t i = k;
	for (; i < n && isdigit(s[i]) && v < 1000000; i++) {
		v = v * 10 + (s[i] - '0');
	}
	return i > k ? (int32_t)v : -1;
}

static void classify_plane(const uint8_t *s, size_t n, enum tc_device_kind *kind,
		int32_t *ordinal) {
	*ordinal = -1;
	if (has_prefix(s, n, "/device:GPU:")) {
		*kind = TC_DEV_GPU;
		*ordinal = trailing_ordinal(s, n, "/device:GPU:");
	} else if (has_prefix(s, n, "/device:TPU:")) {
		*kind = TC_DEV_TPU;
		*ordinal = trailing_ordinal(s, n, "/device:TPU:");
	} else if (has_prefix(s, n, "/host:")) {
		*kind = TC_DEV_CPU;
	} else if (has_prefix(s, n, "/device:CUSTOM:")) {
		*kind = TC_DEV_ACCEL;
	} else {
		*kind = TC_DEV_OTHER;
	}
}

static void plane_stat(struct reader *r, struct tc_device *d, const struct smeta *sm,
		const struct sval *v) {
	double x = 0;
	bool num = sval_num(v, &x);
	switch (sm->role) {
	case R_PEAK_TFLOPS:
		if (num) {
			d->peak_flops = x * 1e12;
		}
		break;
	case R_PEAK_HBM_GBPS:
		if (num) {
			d->peak_bw = x * 1e9;
		}
		break;
	case R_MEM_BW:
		if (num && d->peak_bw <= 0) {
			d->peak_bw = x;
		}
		break;
	case R_MEM_SIZE:
		if (num) {
			d->memory_bytes = tc_double_to_i64(x, 0, INT64_MAX);
		}
		break;
	case R_CORE_COUNT:
		if (num) {
			d->core_count = (int32_t)tc_double_to_i64(x, 0, INT32_MAX);
		}
		break;
	case R_CLOCK_RATE:
		if (num) {
			d->clock_khz = tc_double_to_i64(x, 0, INT64_MAX);
		}
		break;
	case R_DEVICE_TYPE_STRING:
	case R_GPU_DEVICE_NAME:
		if (v->type == SV_STR && !d->model) {
			d->model = v->v.s;
		}
		break;
	case R_DEVICE_VENDOR:
		if (v->type == SV_STR) {
			d->vendor = v->v.s;
		}
		break;
	default:
		break;
	}
}

/* ---- events ---- */

struct line_ctx {
	uint32_t track;
	enum lclass cls;
	int64_t base_ps; /* line start in model time */
};

static bool memcpy_size(const struct tc_model *m, uint32_t s, int64_t *out) {
	const char *p = strstr(tc_model_str(m, s), "size:");
	if (!p) {
		return false;
	}
	char *end;
	long long v = strtoll(p + 5, &end, 10);
	if (end == p + 5 || v < 0) {
		return false;
	}
	*out = v;
	return true;
}

/* Counter lines: one sample per event, value = its first numeric stat. */
static bool parse_counter_event(struct reader *r, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	int64_t mid = 0, off = 0;
	bool have = false;
	double val = 0;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= 5 && f.wt != (f.num == 4 ? TC_PB_LEN : TC_PB_VARINT)) {
			return fail(r, p, "xplane: %s has a field of the wrong wire type", "XEvent");
		}
		if (f.num == 1) {
			mid = (int64_t)f.u;
		} else if (f.num == 2) {
			off = (int64_t)f.u;
		} else if (f.num == 4 && f.wt == TC_PB_LEN && !have) {
			uint32_t k;
			struct sval v;
			if (!parse_stat(r, f.data, f.len, &k, &v)) {
				return false;
			}
			have = sval_num(&v, &val);
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XEvent");
	}
	if (!have || off < 0 || off > INT64_MAX / 2) {
		return true;
	}
	uint32_t ei = idmap_get(&r->emap, mid);
	uint32_t name = ei == TC_NONE ? r->em[r->unknown_em].name : r->em[ei].name;
	tc_model_add_sample(r->m, tc_model_counter(r->m, r->device, name, 0, 0),
		lc->base_ps + off, val);
	return true;
}

struct mem_rec {
	uint32_t allocator;
	double v[4]; /* allocated, reserved, peak, available; < 0 absent */
};

static void mem_samples(struct reader *r, const struct mem_rec *mr, int64_t ts) {
	const uint32_t names[4] = {
		r->k_mem_alloc, r->k_mem_reserved, r->k_mem_peak, r->k_mem_avail,
	};
	for (int i = 0; i < 4; i++) {
		if (mr->v[i] >= 0) {
			tc_model_add_sample(r->m, tc_model_counter(r->m, r->device, names[i],
				r->k_unit_bytes, mr->allocator), ts, mr->v[i]);
		}
	}
}

#define FAST_STATS 16

/* What an event's stats say beyond its args. */
struct ev_extra {
	int64_t group;      /* group_id, -1 none */
	bool have_step;     /* step_num seen */
	bool mem;           /* memory counters seen */
	bool have_corr;
	uint64_t corr;      /* correlation_id */
	struct mem_rec mr;
};

/* One stat of an event: an arg, with well-known stats normalised. */
static void event_stat(struct reader *r, const struct xstat *xs, struct ev_extra *x) {
	struct sval sv;
	xstat_value(r, xs, &sv);
	const struct sval *v = &sv;
	if (xs->k == TC_NONE || v->type == SV_NONE) {
		return;
	}
	const struct smeta *sm = &r->sm[xs->k];
	if (sm->role == R_NONE) {
		add_arg(r, sm->name, v);
		return;
	}
	int64_t iv;
	double dv;
	switch (sm->role) {
	case R_CORRELATION:
		if (sval_i64(v, &iv)) {
			x->corr = (uint64_t)iv;
			x->have_corr = true;
		}
		add_arg(r, r->m->key.correlation, v);
		return;
	case R_STEP_NUM:
		add_arg(r, r->m->key.step, v);
		x->have_step = true;
		return;
	case R_GROUP_ID:
		if (sval_i64(v, &iv)) {
			x->group = iv;
		}
		break;
	case R_MEMCPY_DETAILS:
		if (v->type == SV_STR && memcpy_size(r->m, v->v.s, &iv)) {
			tc_model_arg_int(r->m, r->m->key.bytes, iv);
		}
		break;
	case R_ALLOCATOR:
		if (v->type == SV_STR) {
			x->mr.allocator = v->v.s;
		}
		break;
	case R_BYTES_ALLOCATED:
	case R_BYTES_RESERVED:
	case R_PEAK_BYTES:
	case R_BYTES_AVAILABLE:
		if (sval_num(v, &dv)) {
			x->mr.v[sm->role == R_BYTES_ALLOCATED ? 0 : sm->role == R_BYTES_RESERVED ? 1 :
				sm->role == R_PEAK_BYTES ? 2 : 3] = dv;
			x->mem = true;
		}
		break;
	default:
		break;
	}
	add_arg(r, sm->name, v);
}

/*
 * An XEvent as the decoders hand it on: 24 bytes, with its stats (struct
 * xstat) following in their own array. The decoding thread also hands on
 * line headers and the events it leaves to this thread, by file offset.
 */
enum xe_kind {
	XE_EVENT = 0,   /* a: start (ps, model time), b: duration (ps) */
	XE_AGG,         /* a: occurrences, b: duration as written */
	XE_SLOW,        /* a, b: offset and length of an XEvent for parse_event_slow */
	XE_COUNTER,     /* a, b: an XEvent of a counter line */
	XE_LINE,        /* a: index of the line header in its chunk, b: line offset */
	XE_LINE_SERIAL, /* a, b: an XLine for parse_line (its header is bad) */
};

struct xev {
	uint32_t ei;    /* event metadata index */
	uint8_t kind;   /* enum xe_kind */
	uint8_t ns;     /* stats (XE_EVENT) */
	int64_t a, b;
};

/* Event start and end within the model's time bounds. */
static bool event_time(int64_t base_ps, int64_t off, int64_t dur, int64_t *start,
		const char **what) {
	if ((off > 0 && base_ps > INT64_MAX / 2 - off) ||
			(off < 0 && base_ps < INT64_MIN / 2 - off)) {
		*what = "event offset";
		return false;
	}
	*start = base_ps + off;
	/* A duration past the model's bound becomes 0 there (with a warning,
	 * as in every format), so only a plausible one can overflow. */
	if (dur > 0 && dur <= TC_MAX_DUR_PS && *start > INT64_MAX / 2 - dur) {
		*what = "event duration";
		return false;
	}
	return true;
}

/* The event's metadata index; a missing one is counted and gets the
 * plane's "(unknown event metadata)" slot. */
static inline uint32_t event_meta(const struct idmap *emap, uint32_t unknown, int64_t mid,
		uint64_t *missing) {
	uint32_t ei = idmap_get(emap, mid);
	if (ei == TC_NONE) {
		(*missing)++;
		ei = unknown;
	}
	return ei;
}

/* The op, then an aggregate or a timeline event whose stats become args. */
static void emit_event(struct reader *r, const struct line_ctx *lc, const struct xev *e,
		const struct xstat *st, size_t ns) {
	uint32_t op = r->em[e->ei].op[lc->cls];
	if (op == TC_NONE) {
		op = make_op(r, e->ei, lc->cls);
	}
	if (e->kind == XE_AGG) {
		tc_model_add_aggregate(r->m, lc->track, op, e->a, e->b);
		return;
	}
	int64_t start = e->a, dur = e->b;
	uint32_t ev = tc_model_add_event(r->m, lc->track, op, start, dur,
		dur == 0 ? TC_EV_INSTANT : 0);
	/* A host step marker without a step_num stat ("ProfilerStep#3"):
	 * its number is in the name. Step events are few. */
	bool named_step = lc->cls == LC_HOST && r->m->ops[op].kind == TC_OP_STEP;
	if (ns == 0 && !named_step) {
		return;
	}
	struct ev_extra x = { .group = -1, .mr = { 0, { -1, -1, -1, -1 } } };
	uint32_t args = tc_model_args_begin(r->m);
	for (size_t i = 0; i < ns; i++) {
		event_stat(r, &st[i], &x);
	}
	if (!x.have_step && x.group >= 0 && lc->cls == LC_STEPS) {
		tc_model_arg_int(r->m, r->m->key.step, x.group);
	}
	int64_t sn;
	uint32_t nm = r->m->ops[op].name;
	if (!x.have_step && named_step && tc_classify_step(tc_model_str(r->m, nm),
			tc_intern_len(&r->m->strings, nm), &sn) && sn >= 0) {
		tc_model_arg_int(r->m, r->m->key.step, sn);
	}
	r->m->ev.args[ev] = tc_model_args_end(r->m, args);
	if (x.mem) {
		mem_samples(r, &x.mr, start);
	}
	if (x.have_corr && lc->cls == LC_HOST && r->m->ops[op].kind == TC_OP_RUNTIME) {
		TC_GROW(r->launch, r->cap_launch, r->n_launch + 1);
		r->launch[r->n_launch++] = (struct launch){ x.corr, ev };
	}
}

/* The general XEvent decoder: any field order, unknown fields, checks. */
static bool parse_event_slow(struct reader *r, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t mid = 0, off = 0, dur = 0, occ = 0;
	bool agg = false;
	size_t ns = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= 5 && f.wt != (f.num == 4 ? TC_PB_LEN : TC_PB_VARINT)) {
			return fail(r, p, "xplane: %s has a field of the wrong wire type", "XEvent");
		}
		switch (f.num) {
		case 1:
			mid = (int64_t)f.u;
			break;
		case 2:
			off = (int64_t)f.u;
			agg = false;
			break;
		case 3:
			dur = (int64_t)f.u;
			break;
		case 4:
			TC_GROW(r->sp, r->cap_sp, ns + 1);
			TC_GROW(r->sl, r->cap_sl, ns + 1);
			r->sp[ns] = f.data;
			r->sl[ns++] = f.len;
			break;
		case 5:
			occ = (int64_t)f.u;
			agg = true;
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XEvent");
	}
	struct xev e = { .ei = event_meta(&r->emap, r->unknown_em, mid, &r->missing_meta) };
	if (agg) {
		e.kind = XE_AGG;
		e.a = occ;
		e.b = dur;
		emit_event(r, lc, &e, NULL, 0);
		return true;
	}
	const char *what;
	e.kind = XE_EVENT;
	e.b = dur;
	if (!event_time(lc->base_ps, off, dur, &e.a, &what)) {
		return fail(r, p, "xplane: %s overflows the time range", what);
	}
	/* Every stat is decoded (its strings interned) before any is emitted,
	 * as the fast path does: a damaged one fails the event first. Stats
	 * the model would drop are left out here, as decode_event does. */
	TC_GROW(r->xs, r->cap_xs, ns + 1);
	size_t kept = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t k;
		struct sval v;
		if (!parse_stat(r, r->sp[i], r->sl[i], &k, &v)) {
			return false;
		}
		if (k == TC_NONE || !r->sm[k].drop) {
			r->xs[kept++] = xstat_of(k, &v);
		}
	}
	emit_event(r, lc, &e, r->xs, kept);
	return true;
}

/*
 * The hot path, shared by both threads: an XEvent with one-byte tags for
 * fields 1..5 and up to FAST_STATS stats of the common shapes, its time
 * within bounds. Anything else (unknown fields, odd wire types, damage,
 * many stats) returns false and goes to parse_event_slow, which also
 * produces the precise error. Counts go to *missing / *dangling only for an
 * event decoded here, so the slow path never counts one twice.
 */
static inline bool decode_event(const struct dec *d, int64_t base_ps, const uint8_t *p,
		size_t len, struct xev *e, struct xstat *st, uint64_t *missing,
		uint64_t *dangling) {
	const uint8_t *q = p, *end = p + len;
	int64_t mid = 0, off = 0, dur = 0, occ = 0;
	bool agg = false;
	const uint8_t *sp[FAST_STATS];
	size_t sl[FAST_STATS];
	size_t ns = 0;
	while (q < end) {
		uint8_t tag = *q++;
		uint64_t u;
		if (!rd_varint(&q, end, &u)) {
			return false;
		}
		switch (tag) {
		case 0x08:
			mid = (int64_t)u;
			break;
		case 0x10:
			off = (int64_t)u;
			agg = false;
			break;
		case 0x18:
			dur = (int64_t)u;
			break;
		case 0x22:
			if (u > (uint64_t)(end - q) || ns == FAST_STATS) {
				return false;
			}
			sp[ns] = q;
			sl[ns++] = (size_t)u;
			q += u;
			break;
		case 0x28:
			occ = (int64_t)u;
			agg = true;
			break;
		default:
			return false;
		}
	}
	uint64_t dang = 0;
	if (agg) {
		e->kind = XE_AGG;
		e->ns = 0;
		e->a = occ;
		e->b = dur;
	} else {
		const char *what;
		e->kind = XE_EVENT;
		e->b = dur;
		if (!event_time(base_ps, off, dur, &e->a, &what)) {
			return false;
		}
		size_t kept = 0;
		for (size_t i = 0; i < ns; i++) {
			if (!stat_fast(d->smap, d->sm, d->base, sp[i], sl[i], &st[kept], &dang)) {
				return false;
			}
			/* Checked whole, but no record for a stat the model drops. */
			kept += st[kept].k == TC_NONE || !d->sm[st[kept].k].drop;
		}
		e->ns = (uint8_t)kept;
	}
	*dangling += dang;
	e->ei = event_meta(d->emap, d->unknown_em, mid, missing);
	return true;
}

static bool parse_event(struct reader *r, const struct dec *d, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct xev e;
	struct xstat st[FAST_STATS];
	if (!decode_event(d, lc->base_ps, p, len, &e, st, &r->missing_meta,
			&r->dangling_refs)) {
		return parse_event_slow(r, lc, p, len);
	}
	emit_event(r, lc, &e, st, e.ns);
	return true;
}

/* Find or add the track for a line; lines sharing an id are one timeline. */
static uint32_t line_track(struct reader *r, size_t first_track, uint32_t name,
		enum tc_track_kind kind, int64_t id) {
	for (size_t t = first_track; t < r->m->n_tracks; t++) {
		const struct tc_track *tr = &r->m->tracks[t];
		if (tr->src_id == id && tr->name == name) {
			return (uint32_t)t;
		}
	}
	return tc_model_add_track(r->m, r->device, name, kind, id);
}

struct line_hdr {
	int64_t id, ts;
	const uint8_t *name, *disp;
	size_t name_len, disp_len;
	bool any_events;
};

/*
 * One walk over an XLine's fields with the unrolled varint reader: it
 * validates every field and fills h (display_name comes after the events
 * on the wire, so the header needs the whole walk). On damage, *at and *why
 * say where and what. Touches nothing else, so either thread may run it.
 */
static bool line_header(const uint8_t *p, size_t len, struct line_hdr *h,
		const uint8_t **at_out, const char **why) {
	const uint8_t *q = p, *end = p + len, *at = p;
	const char *bad;
	while (q < end) {
		at = q;
		uint64_t key, u = 0;
		if (!rd_varint(&q, end, &key)) {
			bad = "truncated field tag in XLine";
			goto fail;
		}
		uint64_t num = key >> 3;
		unsigned wt = key & 7;
		if (num == 0 || num > 0x1fffffff) {
			bad = "invalid field number in XLine";
			goto fail;
		}
		if (wt != (num == 2 || num == 4 || num == 11 ? TC_PB_LEN : TC_PB_VARINT) &&
				num <= 11) {
			bad = "XLine has a field of the wrong wire type";
			goto fail;
		}
		switch (wt) {
		case TC_PB_VARINT:
			if (!rd_varint(&q, end, &u)) {
				bad = "truncated varint in XLine";
				goto fail;
			}
			if (num == 1) {
				h->id = (int64_t)u;
			} else if (num == 3) {
				h->ts = (int64_t)u;
			}
			break;
		case TC_PB_I64:
		case TC_PB_I32:
			if ((size_t)(end - q) < (wt == TC_PB_I64 ? 8u : 4u)) {
				bad = "truncated fixed-size field in XLine";
				goto fail;
			}
			q += wt == TC_PB_I64 ? 8 : 4;
			break;
		case TC_PB_LEN:
			if (!rd_varint(&q, end, &u) || u > (uint64_t)(end - q)) {
				bad = "length runs past the end of its XLine";
				goto fail;
			}
			if (num == 2) {
				h->name = q;
				h->name_len = (size_t)u;
			} else if (num == 11) {
				h->disp = q;
				h->disp_len = (size_t)u;
			} else if (num == 4) {
				h->any_events = true;
			}
			q += u;
			break;
		default:
			bad = "unsupported wire type in XLine";
			goto fail;
		}
	}
	return true;
fail:
	*at_out = at;
	*why = bad;
	return false;
}

/*
 * The next XEvent of a line whose header walk succeeded (so every field is
 * whole): *ev and *ev_len, or false at the line's end. *q moves on.
 */
static inline bool next_event(const uint8_t **q, const uint8_t *end, const uint8_t **ev,
		size_t *ev_len) {
	while (*q < end) {
		uint64_t key, u = 0;
		if (!rd_varint(q, end, &key)) {
			return false;
		}
		switch (key & 7) {
		case TC_PB_VARINT:
			if (!rd_varint(q, end, &u)) {
				return false;
			}
			break;
		case TC_PB_I64:
			*q += 8;
			break;
		case TC_PB_I32:
			*q += 4;
			break;
		case TC_PB_LEN:
			if (!rd_varint(q, end, &u) || u > (uint64_t)(end - *q)) {
				return false;
			}
			*q += u;
			if (key == 0x22) {
				*ev = *q - u;
				*ev_len = (size_t)u;
				return true;
			}
			break;
		default:
			return false;
		}
	}
	return false;
}

static enum lclass hdr_class(const struct line_hdr *h, bool host_plane) {
	if (h->name) {
		return line_class(h->name, h->name_len, host_plane);
	}
	return line_class(h->disp ? h->disp : (const uint8_t *)"", h->disp_len, host_plane);
}

/*
 * A line's start in model time, which is relative to the profile start: a
 * line still on the epoch clock is shifted by the origin, and without a
 * Task Environment the first such line sets it (*set). False when the line
 * is too far from the profile start. Pure, so the pipeline's decoding
 * thread keeps its own copy of the origin in step with this thread's.
 */
static bool line_base(struct origin *o, int64_t ts, int64_t *base_ps, bool *set) {
	int64_t rel = ts;
	*set = false;
	if (o->have && ts >= o->ns) {
		rel = ts - o->ns;
	} else if (!o->have && ts > INT64_MAX / 2000) {
		o->ns = ts;
		o->have = true;
		*set = true;
		rel = 0;
	}
	if (rel > INT64_MAX / 4000 || rel < INT64_MIN / 4000) {
		return false;
	}
	*base_ps = rel * 1000;
	return true;
}

/* A line's track and time base, from its header: this thread's part. */
static bool line_start(struct reader *r, const uint8_t *p, const struct line_hdr *h,
		size_t first_track, struct line_ctx *lc) {
	lc->cls = hdr_class(h, r->host_plane);
	uint32_t tname = h->disp && h->disp_len ? intern(r, h->disp, h->disp_len) :
		h->name ? intern(r, h->name, h->name_len) : 0;
	lc->track = line_track(r, first_track, tname, track_kind(lc->cls), h->id);
	bool set;
	if (!line_base(&r->org, h->ts, &lc->base_ps, &set)) {
		return fail(r, p, "xplane: %s is too far from the profile start",
			"line timestamp");
	}
	if (set) {
		r->m->origin_ns = r->org.ns;
	}
	return true;
}

static bool parse_line(struct reader *r, const uint8_t *p, size_t len, size_t first_track) {
	struct line_hdr h = { 0 };
	const uint8_t *at;
	const char *why;
	if (!line_header(p, len, &h, &at, &why)) {
		return fail(r, at, "xplane: %s", why);
	}
	struct line_ctx lc;
	if (!line_start(r, p, &h, first_track, &lc)) {
		return false;
	}
	if (!h.any_events) {
		return true;
	}
	const struct dec d = plane_dec(r);
	const uint8_t *q = p, *end = p + len, *ev;
	size_t ev_len;
	while (next_event(&q, end, &ev, &ev_len)) {
		if (!(lc.cls == LC_COUNTERS ? parse_counter_event(r, &lc, ev, ev_len) :
				parse_event(r, &d, &lc, ev, ev_len))) {
			return false;
		}
		release(r, q);
	}
	return true;
}

/*
 * ---- the pipeline ----
 *
 * With a spare core, a plane's lines are decoded on two threads while this
 * one emits them into the model in file order, so strings, ops, args and
 * events get the ids a serial read gives. Both threads walk the same
 * framing (the plane's lines, their headers, their events' boundaries) and
 * cut it into the same chunks of XP_EVS records. Each chunk is decoded
 * (decode_event, stat_fast) by whichever thread claims it first: the
 * decoding thread runs ahead while this one emits, and when this one
 * catches up it decodes the next chunk itself (emitting costs less than
 * decoding) while the other steps over it. Decoding reads only the mapped
 * file and the plane's metadata maps;
 * whatever needs the model or may fail (line tracks, counter lines,
 * unusual events, damaged lines) goes by offset to the serial code, which
 * also makes the errors.
 */
#define XP_MIN_PLANE (1u << 20) /* smaller planes are read serially */
#define XP_CHUNKS 4
#define XP_EVS 4096
#define XP_STATS (XP_EVS * FAST_STATS) /* never the reason for a cut */

struct xchunk {
	struct xev *ev;
	struct xstat *st;
	struct line_hdr *ln;
	size_t n_ev, n_st, n_ln, cap_ln;
	uint64_t index;    /* which chunk of the plane */
};

struct xpipe {
	struct dec d;
	const uint8_t *plane;
	size_t plane_len;
	bool host_plane;
	struct origin org;       /* at the plane's start */
	uint64_t missing, dangling; /* the decoding thread's counts */
	struct xchunk c[XP_CHUNKS];  /* the decoding thread's chunks */
	struct xchunk own;           /* this thread's */
	atomic_uint_fast64_t next_claim; /* the first chunk nobody decodes yet */
	/* The decoding thread's chunks, counted: filled, emitted. */
	uint64_t produced, consumed;
	bool stop;               /* this thread gave up */
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

/* Take chunk j to decode, unless the other thread took it. */
static inline bool xp_claim(struct xpipe *p, uint64_t j) {
	uint_fast64_t want = j;
	return atomic_compare_exchange_strong(&p->next_claim, &want, j + 1);
}

/* One thread's walk over the plane's framing. */
struct xwalk {
	struct tc_pb pb;         /* the plane's fields */
	const uint8_t *q, *lend; /* the current line's fields left */
	bool counters;
	int64_t base_ps;
	struct origin org;       /* this walk's copy */
	bool done;
};

static void xw_init(struct xwalk *w, const struct xpipe *p) {
	memset(w, 0, sizeof(*w));
	tc_pb_init(&w->pb, p->d.base, p->plane, p->plane_len);
	w->org = p->org;
}

static inline void xp_rec(struct xchunk *c, enum xe_kind kind, int64_t a, int64_t b) {
	c->ev[c->n_ev++] = (struct xev){ .kind = (uint8_t)kind, .a = a, .b = b };
}

/*
 * The next chunk: its records decoded into c, or with c NULL only stepped
 * over. A line header and an event are one record each, so both threads
 * cut at the same places. Returns the file offset where the next chunk
 * starts; w->done after the plane's last chunk.
 */
static size_t xw_chunk(struct xwalk *w, const struct xpipe *p, struct xchunk *c,
		uint64_t *missing, uint64_t *dangling) {
	const uint8_t *base = p->d.base;
	size_t n = 0;
	if (c) {
		c->n_ev = c->n_st = c->n_ln = 0;
	}
	for (;;) {
		while (w->q < w->lend) {
			if (n + 1 > XP_EVS) {
				return (size_t)(w->q - base);
			}
			const uint8_t *ev;
			size_t ev_len;
			if (!next_event(&w->q, w->lend, &ev, &ev_len)) {
				w->q = w->lend; /* only other fields were left */
				break;
			}
			n++;
			if (!c) {
				continue;
			}
			if (w->counters) {
				xp_rec(c, XE_COUNTER, ev - base, (int64_t)ev_len);
				continue;
			}
			struct xev *e = &c->ev[c->n_ev];
			if (decode_event(&p->d, w->base_ps, ev, ev_len, e, c->st + c->n_st,
					missing, dangling)) {
				c->n_ev++;
				c->n_st += e->ns;
			} else {
				xp_rec(c, XE_SLOW, ev - base, (int64_t)ev_len);
			}
		}
		/* A line header needs one slot, an event one more. */
		if (n + 2 > XP_EVS) {
			return (size_t)(w->pb.p - base);
		}
		/* The plane's fields were walked whole before: no error here. */
		struct tc_pb_field f = { 0 };
		int rc;
		while ((rc = tc_pb_next(&w->pb, &f)) > 0 && f.num != 3) {
		}
		if (rc <= 0) {
			w->done = true;
			return (size_t)(p->plane + p->plane_len - base);
		}
		n++;
		w->q = w->lend = NULL;
		struct line_hdr h = { 0 };
		const uint8_t *at;
		const char *why;
		bool set;
		if (!line_header(f.data, f.len, &h, &at, &why) ||
				!line_base(&w->org, h.ts, &w->base_ps, &set)) {
			/* This thread's parse_line reports it (and stops). */
			if (c) {
				xp_rec(c, XE_LINE_SERIAL, f.data - base, (int64_t)f.len);
			}
			continue;
		}
		if (c) {
			TC_GROW(c->ln, c->cap_ln, c->n_ln + 1);
			c->ln[c->n_ln] = h;
			xp_rec(c, XE_LINE, (int64_t)c->n_ln++, f.data - base);
		}
		if (h.any_events) {
			w->counters = hdr_class(&h, p->host_plane) == LC_COUNTERS;
			w->q = f.data;
			w->lend = f.data + f.len;
		}
	}
}

static void *xp_decode(void *arg) {
	struct xpipe *p = arg;
	struct xwalk w;
	xw_init(&w, p);
	uint64_t k = 0;
	for (uint64_t j = 0; !w.done; j++) {
		/* A free slot first, then the claim. */
		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->produced - p->consumed >= XP_CHUNKS) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		bool stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop) {
			break;
		}
		if (!xp_claim(p, j)) {
			xw_chunk(&w, p, NULL, NULL, NULL);
			continue;
		}
		struct xchunk *c = &p->c[k++ % XP_CHUNKS];
		xw_chunk(&w, p, c, &p->missing, &p->dangling);
		c->index = j;
		pthread_mutex_lock(&p->lock);
		p->produced++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* Emit one chunk's records. */
static bool xp_emit(struct reader *r, const struct xchunk *c, size_t first_track,
		struct line_ctx *lc) {
	const struct xstat *st = c->st;
	for (size_t i = 0; i < c->n_ev; i++) {
		const struct xev *e = &c->ev[i];
		switch (e->kind) {
		case XE_EVENT:
		case XE_AGG:
			emit_event(r, lc, e, st, e->ns);
			st += e->ns;
			break;
		case XE_SLOW:
			if (!parse_event_slow(r, lc, r->base + e->a, (size_t)e->b)) {
				return false;
			}
			break;
		case XE_COUNTER:
			if (!parse_counter_event(r, lc, r->base + e->a, (size_t)e->b)) {
				return false;
			}
			break;
		case XE_LINE: {
			const struct line_hdr *h = &c->ln[e->a];
			if (!line_start(r, r->base + e->b, h, first_track, lc)) {
				return false;
			}
			break;
		}
		default:
			if (!parse_line(r, r->base + e->a, (size_t)e->b, first_track)) {
				return false;
			}
			break;
		}
	}
	return true;
}

static void xchunk_alloc(struct xchunk *c) {
	c->ev = tc_xmalloc(XP_EVS * sizeof(*c->ev));
	c->st = tc_xmalloc(XP_STATS * sizeof(*c->st));
}

static void xchunk_free(struct xchunk *c) {
	free(c->ev);
	free(c->st);
	free(c->ln);
}

/* A plane's lines through the pipeline; *started false when no thread
 * could be made (nothing was read then). */
static bool xp_run(struct reader *r, const uint8_t *plane, size_t len, size_t first_track,
		bool *started) {
	struct xpipe *p = tc_xcalloc(1, sizeof(*p));
	p->d = plane_dec(r);
	p->plane = plane;
	p->plane_len = len;
	p->host_plane = r->host_plane;
	p->org = r->org;
	for (int i = 0; i < XP_CHUNKS; i++) {
		xchunk_alloc(&p->c[i]);
	}
	xchunk_alloc(&p->own);
	atomic_init(&p->next_claim, 0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_t th;
	bool ok = true;
	*started = pthread_create(&th, NULL, xp_decode, p) == 0;
	if (*started) {
		struct line_ctx lc = { 0 };
		struct xwalk w;
		xw_init(&w, p);
		uint64_t j = 0, k = 0;
		while (ok && !w.done) {
			if (xp_claim(p, j++)) {
				size_t end = xw_chunk(&w, p, &p->own, &r->missing_meta,
					&r->dangling_refs);
				ok = xp_emit(r, &p->own, first_track, &lc);
				if (ok) {
					release(r, r->base + end);
				}
				continue;
			}
			/* The other thread has this chunk: step over it, and rather
			 * than wait for it, decode the next one if nobody has. */
			size_t end = xw_chunk(&w, p, NULL, NULL, NULL), end_ahead = 0;
			pthread_mutex_lock(&p->lock);
			bool ready = p->produced > k;
			pthread_mutex_unlock(&p->lock);
			bool ahead = !ready && !w.done && xp_claim(p, j);
			if (ahead) {
				end_ahead = xw_chunk(&w, p, &p->own, &r->missing_meta, &r->dangling_refs);
				j++;
			}
			pthread_mutex_lock(&p->lock);
			while (p->produced == k) {
				pthread_cond_wait(&p->cv, &p->lock);
			}
			pthread_mutex_unlock(&p->lock);
			const struct xchunk *c = &p->c[k++ % XP_CHUNKS];
			assert(c->index == j - 1 - ahead);
			ok = xp_emit(r, c, first_track, &lc);
			pthread_mutex_lock(&p->lock);
			p->consumed++;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->lock);
			if (ok) {
				release(r, r->base + end);
			}
			if (ok && ahead) {
				ok = xp_emit(r, &p->own, first_track, &lc);
				if (ok) {
					release(r, r->base + end_ahead);
				}
			}
		}
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		pthread_join(th, NULL);
		r->missing_meta += p->missing;
		r->dangling_refs += p->dangling;
	}
	for (int i = 0; i < XP_CHUNKS; i++) {
		xchunk_free(&p->c[i]);
	}
	xchunk_free(&p->own);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
	return ok;
}

static void plane_reset(struct reader *r) {
	idmap_finish(&r->smap);
	idmap_finish(&r->emap);
	r->n_sm = 0;
	r->n_em = 0;
}

/* Read a plane's stat_metadata map into r->sm / r->smap. */
static bool load_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		size_t n_smeta) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	int64_t *keys = tc_xmalloc((n_smeta ? n_smeta : 1) * sizeof(*keys));
	TC_GROW(r->sm, r->cap_sm, n_smeta + 1);
	size_t nt = 0;
	int64_t max_key = -1;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0 && nt < n_smeta) {
		if (f.num != 5) {
			continue;
		}
		uint32_t name = 0;
		if (!parse_stat_metadata(r, f.data, f.len, &keys[nt], &name)) {
			free(keys);
			return false;
		}
		enum role role = role_of((const uint8_t *)tc_model_str(r->m, name),
			tc_intern_len(&r->m->strings, name));
		r->sm[nt] = (struct smeta){
			.name = name,
			.role = (uint8_t)role,
			.drop = role == R_NONE && !tc_model_keeps_arg(r->m, name),
			.last = TC_NONE,
		};
		max_key = keys[nt] > max_key ? keys[nt] : max_key;
		nt++;
	}
	idmap_init(&r->smap, max_key, nt);
	for (size_t i = 0; i < nt; i++) {
		idmap_put(&r->smap, keys[i], (uint32_t)i);
	}
	r->n_sm = nt;
	free(keys);
	return true;
}

static bool parse_plane(struct reader *r, const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t plane_id = 0;
	const uint8_t *name = (const uint8_t *)"";
	size_t name_len = 0;
	size_t n_lines = 0, n_stats = 0, n_emeta = 0, n_smeta = 0;
	/* Pass 1: the plane's own fields; LEN payloads are not touched. */
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= 6 && f.wt != (f.num == 1 ? TC_PB_VARINT : TC_PB_LEN)) {
			return fail(r, p, "xplane: %s has a field of the wrong wire type", "XPlane");
		}
		switch (f.num) {
		case 1:
			plane_id = (int64_t)f.u;
			break;
		case 2:
			name = f.data;
			name_len = f.len;
			break;
		case 3:
			n_lines++;
			break;
		case 4:
			n_emeta++;
			break;
		case 5:
			n_smeta++;
			break;
		case 6:
			n_stats++;
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XPlane");
	}
	plane_reset(r);

	if (!load_stat_metadata(r, p, len, n_smeta)) {
		return false;
	}

	enum tc_device_kind kind;
	int32_t ordinal;
	classify_plane(name, name_len, &kind, &ordinal);
	bool is_env = eq(name, name_len, "Task Environment");
	bool is_meta = eq(name, name_len, "/host:metadata");
	r->host_plane = kind == TC_DEV_CPU;
	r->device = TC_NONE;
	if (!is_env && !is_meta && (n_lines || n_stats)) {
		r->device = tc_model_add_device(r->m, intern(r, name, name_len), kind);
		struct tc_device *d = &r->m->devices[r->device];
		d->ordinal = ordinal;
		d->src_id = plane_id;
		d->host = r->host;
	}

	/* Plane stats: device capabilities; the rest become device args. */
	if (n_stats) {
		uint32_t args = tc_model_args_begin(r->m);
		tc_pb_init(&pb, r->base, p, len);
		while ((rc = tc_pb_next(&pb, &f)) > 0) {
			if (f.num != 6) {
				continue;
			}
			uint32_t k;
			struct sval v;
			if (!parse_stat(r, f.data, f.len, &k, &v)) {
				return false;
			}
			if (k == TC_NONE || v.type == SV_NONE) {
				continue;
			}
			const struct smeta *sm = &r->sm[k];
			int64_t iv;
			if (sm->role == R_DROPPED && sval_i64(&v, &iv) && iv > 0) {
				tc_model_warn(r->m, 1, "xplane: the profiler dropped %" PRId64
					" trace events (dropped_traces on '%.*s')", iv,
					(int)(name_len > 100 ? 100 : name_len), (const char *)name);
			}
			if (r->device != TC_NONE) {
				plane_stat(r, &r->m->devices[r->device], sm, &v);
				if (sm->role < R_PEAK_TFLOPS) {
					add_arg(r, sm->name, &v);
				}
			}
		}
		uint32_t first = tc_model_args_end(r->m, args);
		if (r->device != TC_NONE) {
			r->m->devices[r->device].args = first;
		}
	}
	if (is_meta || is_env) {
		return true;
	}

	/* Event metadata. */
	int64_t *ek = tc_xmalloc((n_emeta + 1) * sizeof(*ek));
	TC_GROW(r->em, r->cap_em, n_emeta + 1);
	size_t ne = 0;
	int64_t max_key = -1;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num != 4) {
			continue;
		}
		if (!parse_event_metadata(r, f.data, f.len, &ek[ne], &r->em[ne])) {
			free(ek);
			return false;
		}
		if (ek[ne] > max_key) {
			max_key = ek[ne];
		}
		ne++;
	}
	idmap_init(&r->emap, max_key, ne);
	for (size_t i = 0; i < ne; i++) {
		idmap_put(&r->emap, ek[i], (uint32_t)i);
	}
	free(ek);
	/* The slot for events whose metadata id is missing. */
	emeta_init(&r->em[ne]);
	r->em[ne].name = tc_model_intern(r->m, "(unknown event metadata)");
	r->unknown_em = (uint32_t)ne;
	r->n_em = ne + 1;

	if (!n_lines) {
		return true;
	}
	if (r->device == TC_NONE) {
		return true;
	}
	size_t first_track = r->m->n_tracks;
	if (r->lim->reader_thread == TC_READER_THREAD_ALWAYS ||
			(r->lim->reader_thread && len >= XP_MIN_PLANE)) {
		bool started;
		bool ok = xp_run(r, p, len, first_track, &started);
		if (started) {
			return ok;
		}
	}
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == 3 && !parse_line(r, f.data, f.len, first_track)) {
			return false;
		}
	}
	return true;
}

static int cmp_launch(const void *pa, const void *pb) {
	const struct launch *a = pa, *b = pb;
	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/*
 * Host runtime calls (cudaLaunchKernel, hipMemcpy, ...) and the device
 * activity they caused share a correlation_id: link them as launch flows.
 * Device events are found through their correlation arg, so nothing extra
 * is kept per device event while reading.
 */
static void link_launches(struct reader *r, size_t first_event) {
	if (!r->n_launch) {
		return;
	}
	struct tc_model *m = r->m;
	tc_sort(r->launch, r->n_launch, sizeof(*r->launch), cmp_launch);
	/* CUPTI / roctracer number correlations densely: then an array indexed
	 * by id replaces the binary search. */
	uint64_t lo_id = r->launch[0].corr, hi_id = r->launch[r->n_launch - 1].corr;
	uint32_t *direct = NULL;
	size_t span = 0;
	if (hi_id - lo_id < 4 * (uint64_t)r->n_launch + 4096) {
		span = (size_t)(hi_id - lo_id) + 1;
		direct = tc_xmalloc(span * sizeof(*direct));
		memset(direct, 0xff, span * sizeof(*direct));
		for (size_t k = r->n_launch; k-- > 0;) {
			direct[r->launch[k].corr - lo_id] = r->launch[k].ev; /* first wins */
		}
	}
	for (size_t i = first_event; i < m->ev.n; i++) {
		if (m->ev.args[i] == TC_NONE ||
				!tc_track_kind_is_device_work((enum tc_track_kind)m->tracks[m->ev.track[i]].kind)) {
			continue;
		}
		struct tc_arg a;
		if (!tc_model_arg_find(m, m->ev.args[i], m->key.correlation, &a)) {
			continue;
		}
		uint64_t c = a.v.u; /* int and uint share the bits */
		if (direct) {
			if (c >= lo_id && c - lo_id < span && direct[c - lo_id] != TC_NONE) {
				tc_model_add_flow(m, direct[c - lo_id], (uint32_t)i, TC_FLOW_LAUNCH, c);
			}
			continue;
		}
		size_t lo = 0, hi = r->n_launch;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->launch[mid].corr < c) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (lo < r->n_launch && r->launch[lo].corr == c) {
			tc_model_add_flow(m, r->launch[lo].ev, (uint32_t)i, TC_FLOW_LAUNCH, c);
		}
	}
	free(direct);
}

/* Host name: XSpace.hostnames[0], else the file name up to ".xplane.pb". */
static uint32_t host_name(struct reader *r, const uint8_t *hn, size_t hn_len) {
	if (hn && hn_len) {
		return intern(r, hn, hn_len);
	}
	return tc_ingest_host_from_path(r->m, r->in->path);
}

/* Peek at a plane's name without walking its content. */
static bool plane_name(struct reader *r, const uint8_t *p, size_t len,
		const uint8_t **name, size_t *name_len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	*name = NULL;
	*name_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == 2 && f.wt == TC_PB_LEN) {
			*name = f.data;
			*name_len = f.len;
			return true;
		}
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XPlane");
	}
	return true;
}

/* The profile start (epoch ns) from the Task Environment plane. */
static bool read_task_env(struct reader *r, const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	plane_reset(r);
	size_t n = 0;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		n += f.num == 5;
	}
	if (rc < 0) {
		return wire_fail(r, &pb, "XPlane");
	}
	if (!load_stat_metadata(r, p, len, n)) {
		return false;
	}
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num != 6) {
			continue;
		}
		uint32_t k;
		struct sval v;
		int64_t iv;
		if (!parse_stat(r, f.data, f.len, &k, &v)) {
			return false;
		}
		if (k != TC_NONE && r->sm[k].role == R_PROFILE_START && sval_i64(&v, &iv) &&
				iv > 0) {
			r->org.ns = iv;
			r->org.have = true;
			r->m->origin_ns = iv;
			r->m->origin_epoch = true;
		}
	}
	return true;
}

static bool read_xplane(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	struct reader r = { 0 };
	r.m = m;
	r.in = in;
	r.lim = lim;
	r.err = err;
	if (!tc_input_map(in, &r.base, &r.size, err)) {
		return false;
	}
	r.k_unit_bytes = tc_model_intern(m, "bytes");
	r.k_mem_alloc = tc_model_intern(m, "memory.allocated");
	r.k_mem_reserved = tc_model_intern(m, "memory.reserved");
	r.k_mem_peak = tc_model_intern(m, "memory.peak");
	r.k_mem_avail = tc_model_intern(m, "memory.available");

	/* Pass 1 over the top level: hostnames, errors, warnings, Task
	 * Environment. Plane payloads are skipped, apart from their names. */
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r.base, r.base, r.size);
	const uint8_t *hn = NULL;
	size_t hn_len = 0;
	bool ok = false;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= 4 && f.wt != TC_PB_LEN) {
			fail(&r, r.base, "xplane: %s has a field of the wrong wire type", "XSpace");
			goto out;
		}
		if (f.num == 1) {
			const uint8_t *nm;
			size_t nl;
			if (!plane_name(&r, f.data, f.len, &nm, &nl)) {
				goto out;
			}
			if (nm && eq(nm, nl, "Task Environment") &&
					!read_task_env(&r, f.data, f.len)) {
				goto out;
			}
		} else if (f.num == 2 || f.num == 3) {
			tc_model_warn(m, 1, "xplane: profiler %s: %.*s",
				f.num == 2 ? "error" : "warning",
				(int)(f.len > 400 ? 400 : f.len), (const char *)f.data);
		} else if (f.num == 4 && !hn) {
			hn = f.data;
			hn_len = f.len;
		}
	}
	if (rc < 0) {
		if (pb.why && strstr(pb.why, "length runs past")) {
			tc_error_set(err, TC_EXIT_INPUT,
				"xplane: a top-level field's length runs past the end of the file "
				"(truncated or corrupt)");
			tc_error_at(err, tc_pb_offset(&pb));
		} else {
			wire_fail(&r, &pb, "XSpace");
		}
		goto out;
	}
	r.host = tc_model_add_host(m, host_name(&r, hn, hn_len), source);

	/* Pass 2: planes in file order. */
	size_t first_event = m->ev.n;
	tc_pb_init(&pb, r.base, r.base, r.size);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == 1 && !parse_plane(&r, f.data, f.len)) {
			goto out;
		}
	}
	link_launches(&r, first_event);
	if (r.dangling_refs) {
		tc_model_warn(m, r.dangling_refs,
			"xplane: stat ref_value points at no stat metadata (value dropped)");
	}
	if (r.missing_meta) {
		tc_model_warn(m, r.missing_meta,
			"xplane: event refers to missing event metadata");
	}
	if (r.bad_strings) {
		tc_model_warn(m, r.bad_strings, "xplane: over-long string cut to the string limit");
	}
	ok = true;
out:
	plane_reset(&r);
	free(r.sm);
	free(r.em);
	free(r.sp);
	free(r.sl);
	free(r.xs);
	free(r.launch);
	return ok;
}

/* ---- sniffing ---- */

static bool printable(const uint8_t *s, size_t n) {
	if (n == 0) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			return false;
		}
	}
	return true;
}

/*
 * XSpace has no magic. The head must start with a plane (field 1, LEN) whose
 * own fields are all within 1..6 with XPlane's wire types, and a printable
 * plane name makes it certain. A Perfetto TracePacket also starts 0x0a but
 * its fields are mostly >= 8, so it fails the field check.
 */
static int sniff(const uint8_t *head, size_t len) {
	if (len < 2 || head[0] != 0x0a) {
		return 0;
	}
	const uint8_t *p = head + 1, *end = head + len;
	uint64_t plen;
	if (!tc_pb_varint(&p, end, &plen) || plen == 0) {
		return 0;
	}
	const uint8_t *pend = (uint64_t)(end - p) < plen ? end : p + plen;
	int score = 0;
	bool seen_any = false;
	while (p < pend) {
		uint64_t key, v;
		if (!tc_pb_varint(&p, pend, &key)) {
			break; /* head ended mid-field */
		}
		uint32_t num = (uint32_t)(key >> 3), wt = key & 7;
		if (num < 1 || num > 6) {
			/* Junk after a plane-like start: still XSpace-shaped enough for
			 * the reader to say what is wrong (a mangled file). */
			return score >= 60 ? 40 : 0;
		}
		if (num == 1) {
			if (wt != TC_PB_VARINT) {
				return 0;
			}
			if (!tc_pb_varint(&p, pend, &v)) {
				break;
			}
		} else {
			if (wt != TC_PB_LEN) {
				return 0;
			}
			if (!tc_pb_varint(&p, pend, &v)) {
				break;
			}
			if (num == 2) {
				size_t avail = (size_t)(pend - p);
				size_t n = v < avail ? (size_t)v : avail;
				if (!printable(p, n)) {
					return 0;
				}
				if (n && (p[0] == '/' || p[0] == '#' ||
						has_prefix(p, n, "Task Environment") ||
						has_prefix(p, n, "Host CPUs") || has_prefix(p, n, "Syscalls"))) {
					score = 95;
				} else {
					score = 60;
				}
			}
			if (v > (uint64_t)(pend - p)) {
				break;
			}
			p += v;
		}
		seen_any = true;
	}
	if (!seen_any) {
		return 0;
	}
	return score ? score : 30;
}

const struct tc_reader tc_reader_xplane = {
	.name = "xplane",
	.description = "XPlane",
	.sniff = sniff,
	.read = read_xplane,
};
