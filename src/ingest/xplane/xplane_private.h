/*
 * XProf XSpace (*.xplane.pb) reader.
 *
 * The file is one XSpace message with no framing. It is walked in place
 * with util/pbwire over one mapped buffer; only the cold metadata map
 * entries and the plane and line header fields are unpacked, one message
 * at a time, by protobuf-c (metadata.c).
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
#ifndef TC_INGEST_XPLANE_PRIVATE_H
#define TC_INGEST_XPLANE_PRIVATE_H

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ingest/ingest.h"
#include "model/classify.h"
#include "util/inflate.h"
#include "util/corr.h"
#include "util/num.h"
#include "util/pbwire.h"
#include "util/u64map.h"
#include "util/utf8.h"
#include "util/xalloc.h"
#include "xplane.pb-c.h"

struct emeta;
struct reader;
struct smeta;
struct sval;
struct xchunk;

/* xplane_read.c */
bool tc_xplane_fail(struct reader *r, const uint8_t *at, const char *fmt, const char *what);
bool tc_xplane_wire_fail(struct reader *r, const struct tc_pb *pb, const char *msg);
bool tc_xplane_has_prefix(const uint8_t *s, size_t n, const char *pre);
const uint8_t *tc_xplane_memmem_lit(const uint8_t *s, size_t n, const char *lit);
uint32_t tc_xplane_intern(struct reader *r, const uint8_t *s, size_t n);
enum lclass tc_xplane_line_class(const uint8_t *s, size_t n, bool host_plane);
enum tc_track_kind tc_xplane_track_kind(enum lclass c);
uint32_t tc_xplane_make_op(struct reader *r, uint32_t ei, enum lclass c);

/* metadata.c */
bool tc_xplane_parse_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, uint32_t *name_out);
void tc_xplane_emeta_init(struct emeta *e);
bool tc_xplane_parse_event_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, struct emeta *e);
void tc_xplane_classify_plane(const uint8_t *s, size_t n, enum tc_device_kind *kind,
		int32_t *ordinal);
void tc_xplane_plane_stat(struct reader *r, struct tc_device *d, const struct smeta *sm,
		const struct sval *v);

/* A header field's last occurrence in its message: its bytes, tag to end
 * (len 0: none). */
struct tc_xplane_span {
	const uint8_t *p;
	size_t len;
};

void *tc_xplane_unpack_spans(const ProtobufCMessageDescriptor *desc,
		const struct tc_xplane_span *s, size_t n);

/* Where the value of a bytes field unpacked from span s lies in the file:
 * the span's last b.len bytes. The reader keeps names in the mapped file
 * until it interns them. */
static inline const uint8_t *tc_xplane_span_bytes(const struct tc_xplane_span *s,
		ProtobufCBinaryData b) {
	return s->p + s->len - b.len;
}

/* events.c */
bool tc_xplane_parse_stat_slow(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v);
void tc_xplane_add_arg(struct reader *r, uint32_t key, const struct sval *v);
bool tc_xplane_parse_line(struct reader *r, const uint8_t *p, size_t len, size_t first_track);
bool tc_xplane_run(struct reader *r, const uint8_t *plane, size_t len, size_t first_track,
		bool *started);

/* Field numbers of proto/xplane.proto, and the one-byte tags the hand
 * decoders switch on. */
enum xp_space_field { XSPACE_PLANES = 1, XSPACE_ERRORS = 2, XSPACE_WARNINGS = 3, XSPACE_HOSTNAMES = 4 };
enum xp_plane_field {
	XPLANE_ID = 1, XPLANE_NAME = 2, XPLANE_LINES = 3, XPLANE_EVENT_METADATA = 4,
	XPLANE_STAT_METADATA = 5, XPLANE_STATS = 6,
};

enum xp_line_field {
	XLINE_ID = 1, XLINE_NAME = 2, XLINE_TIMESTAMP_NS = 3, XLINE_EVENTS = 4,
	XLINE_DURATION_PS = 9, XLINE_DISPLAY_ID = 10, XLINE_DISPLAY_NAME = 11,
};

enum xp_event_field {
	XEVENT_METADATA_ID = 1, XEVENT_OFFSET_PS = 2, XEVENT_DURATION_PS = 3, XEVENT_STATS = 4,
	XEVENT_NUM_OCCURRENCES = 5,
};

enum xp_stat_field {
	XSTAT_METADATA_ID = 1, XSTAT_DOUBLE = 2, XSTAT_UINT64 = 3, XSTAT_INT64 = 4, XSTAT_STR = 5,
	XSTAT_BYTES = 6, XSTAT_REF = 7, XSTAT_COMPRESSED_STR = 8,
};

enum xp_metadata_field {
	MAP_KEY = 1, MAP_VALUE = 2,       /* a map<int64, …> entry */
	XEM_NAME = 2, XEM_DISPLAY_NAME = 4, XEM_STATS = 5, /* XEventMetadata */
	XSM_NAME = 2,                      /* XStatMetadata */
};
#define XP_TAG(num, wt) ((num) << 3 | (wt))
#define XP_STRC 512 /* slots of the reader's string cache (struct reader) */

/* ---- id maps: int64 key -> dense index ---- */

/* Writers number metadata densely from 0 or 1; keys in [0, ndirect) go to an
 * array, anything else to a hash map. */
struct idmap {
	uint32_t *direct; /* key -> value, TC_NONE = absent */
	size_t ndirect;
	struct tc_u64map hash;
};

static inline void idmap_init(struct idmap *im, int64_t max_key, size_t n) {
	memset(im, 0, sizeof(*im));
	size_t lim = 4 * n + 4096;
	if (max_key >= 0) {
		im->ndirect = (uint64_t)max_key + 1 < lim ? (size_t)max_key + 1 : lim;
	}
	im->direct = tc_xmalloc((im->ndirect ? im->ndirect : 1) * sizeof(*im->direct));
	memset(im->direct, 0xff, im->ndirect * sizeof(*im->direct));
}

static inline void idmap_finish(struct idmap *im) {
	free(im->direct);
	tc_u64map_finish(&im->hash);
	memset(im, 0, sizeof(*im));
}

/* A repeated key replaces the earlier entry, as in protobuf maps. */
static inline void idmap_put(struct idmap *im, int64_t key, uint32_t val) {
	if (key >= 0 && (uint64_t)key < im->ndirect) {
		im->direct[key] = val;
	} else {
		tc_u64map_put(&im->hash, (uint64_t)key, val);
	}
}

/* Out of line: the hot loops take the direct path. */
static __attribute__((noinline, unused)) uint32_t idmap_get_slow(const struct idmap *im,
		int64_t key) {
	const uint32_t *v = tc_u64map_find(&im->hash, (uint64_t)key);
	return v ? *v : TC_NONE;
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
	R_ADDR,        /* allocator records (MemoryAllocation events) */
	R_ALLOC_BYTES,
	R_TF_OP,
	R_SHAPE,
	R_DATA_TYPE,
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
	{ "addr", R_ADDR },
	{ "allocation_bytes", R_ALLOC_BYTES },
	{ "tf_op", R_TF_OP },
	{ "shape", R_SHAPE },
	{ "data_type", R_DATA_TYPE },
};

static inline enum role role_of(const uint8_t *s, size_t n) {
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

static inline bool sval_num(const struct sval *v, double *d) {
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

static inline bool sval_i64(const struct sval *v, int64_t *out) {
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
};

/* What decoding a plane's events needs: read-only while its lines are
 * read, so the pipeline's decoding thread shares it. */
struct dec {
	const uint8_t *base, *room; /* the input, and its end */
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
	/* The op of event metadata ei on lines of class c, made on first use
	 * (TC_NONE before): em_op[c * n_em + ei]. Packed apart from em, as
	 * every event reads it: a class's ops are 4 bytes a metadata entry. */
	uint32_t *em_op;
	size_t cap_em_op;
	uint32_t unknown_em; /* em index for events with a missing metadata id */
	uint32_t device;     /* TC_NONE for planes that are not devices */
	bool host_plane;
	uint64_t dangling_refs;
	uint64_t missing_meta;
	uint64_t bad_strings;
	uint32_t k_unit_bytes, k_mem_alloc, k_mem_reserved, k_mem_peak, k_mem_avail;
	struct tc_arena scratch; /* unpacked metadata entries (metadata.c) */
	struct tc_corr *launch; /* host runtime calls with a correlation id */
	size_t n_launch, cap_launch;
	const uint8_t **sp; /* stat payloads of one event (slow decoder) */
	size_t *sl;
	struct xstat *xs;   /* and their values */
	size_t cap_sp, cap_sl, cap_xs;
	/* (line id, name) -> track + 1, for the plane whose tracks start at
	 * line_first (events.c, line_track); line_n of them */
	uint32_t *line_slots;
	size_t line_cap, line_n, line_first;
	/* String stat values by (event metadata, stat): a per-event string
	 * is mostly its op's (tf_op, kernel details), where the stat's last
	 * value alternates between ops. A hit is still compared byte for
	 * byte; entries hold ei + 1 (0: empty) and are the current plane's. */
	uint32_t cur_ei; /* the event metadata of the event being emitted */
	struct { uint32_t ei1, k, id; } strc[XP_STRC];
};

/* The current plane's, once its metadata is read. */
static inline struct dec plane_dec(const struct reader *r) {
	return (struct dec){
		.base = r->base, .room = r->base + r->size, .smap = &r->smap, .emap = &r->emap,
		.sm = r->sm, .unknown_em = r->unknown_em,
	};
}

static inline void release(struct reader *r, const uint8_t *p) {
	size_t off = (size_t)(p - r->base);
	if (off > r->released + (1u << 20)) {
		tc_input_release(r->in, off);
		r->released = off;
	}
}

/* Multi-byte varints (offsets, durations, ids) fill most of an XEvent.
 * Their lengths vary from event to event, so a byte loop mispredicts its
 * exit; with eight bytes of room a varint of up to eight bytes (56 bits)
 * is found and packed as one word instead. Longer ones take the loop,
 * which with ten bytes of room needs no end checks and unrolls. room (at
 * least end) bounds what may be read: a message's last varint (a stat's
 * value) is mostly short of eight bytes before its end, not before the
 * input's, and is still taken whole when it ends by end. */
static inline bool rd_varint_room(const uint8_t **pp, const uint8_t *end, const uint8_t *room,
		uint64_t *out) {
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		*out = *p;
		*pp = p + 1;
		return true;
	}
	if (p < end && room - p >= 8) {
		uint64_t x = tc_load_le64(p);
		/* The first byte without its continuation bit ends the varint. */
		uint64_t stop = ~x & 0x8080808080808080ull;
		if (stop) {
			const uint8_t *q = p + __builtin_ctzll(stop) / 8 + 1;
			if (q > end) {
				return false;
			}
			x &= (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
			x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
			x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
			x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
			*out = x;
			*pp = q;
			return true;
		}
	}
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

static inline bool rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
	return rd_varint_room(pp, end, end, out);
}

/* ---- stats ---- */

/* Each XStat field's wire type. */
static const uint8_t stat_wt[XSTAT_COMPRESSED_STR + 1] = {
	[XSTAT_METADATA_ID] = TC_PB_VARINT, [XSTAT_DOUBLE] = TC_PB_I64,
	[XSTAT_UINT64] = TC_PB_VARINT, [XSTAT_INT64] = TC_PB_VARINT, [XSTAT_STR] = TC_PB_LEN,
	[XSTAT_BYTES] = TC_PB_LEN, [XSTAT_REF] = TC_PB_VARINT, [XSTAT_COMPRESSED_STR] = TC_PB_LEN,
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
#define XP_MIN_PLANE (1u << 20) /* smaller planes are read serially */
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
		const uint8_t *base, const uint8_t *room, const uint8_t *p, size_t len,
		struct xstat *o, uint64_t *dangling) {
	const uint8_t *q = p, *end = p + len;
	/* The usual stat: a one-byte metadata id, then an integer, and
	 * nothing else; any other goes through the loop from the start. */
	if (len >= 3 && p[0] == XP_TAG(XSTAT_METADATA_ID, TC_PB_VARINT) && p[1] < 0x80 &&
			(p[2] == XP_TAG(XSTAT_INT64, TC_PB_VARINT) ||
			p[2] == XP_TAG(XSTAT_UINT64, TC_PB_VARINT))) {
		uint64_t u;
		q = p + 3;
		if (rd_varint_room(&q, end, room, &u) && q == end) {
			o->k = idmap_get(smap, p[1]);
			o->tl = (uint32_t)(p[2] == XP_TAG(XSTAT_INT64, TC_PB_VARINT) ?
				SV_INT : SV_UINT) << 28;
			o->v = u;
			return true;
		}
		q = p;
	}
	int64_t mid = 0;
	uint32_t type = SV_NONE, rlen = 0;
	uint64_t val = 0;
	while (q < end) {
		uint8_t tag = *q++;
		uint64_t u;
		if (tag == XP_TAG(XSTAT_DOUBLE, TC_PB_I64)) {
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
		if (!rd_varint_room(&q, end, room, &u)) {
			return false;
		}
		switch (tag) {
		case XP_TAG(XSTAT_METADATA_ID, TC_PB_VARINT):
			mid = (int64_t)u;
			break;
		case XP_TAG(XSTAT_UINT64, TC_PB_VARINT):
			type = SV_UINT;
			val = u;
			break;
		case XP_TAG(XSTAT_INT64, TC_PB_VARINT):
			type = SV_INT;
			val = u;
			break;
		case XP_TAG(XSTAT_REF, TC_PB_VARINT): {
			uint32_t name = ref_name(smap, sm, u, dangling);
			type = name == TC_NONE ? SV_NONE : SV_STR;
			val = name;
			break;
		}
		case XP_TAG(XSTAT_STR, TC_PB_LEN):
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
		return tc_xplane_intern(r, s, n);
	}
	uint32_t last = r->sm[k].last;
	const struct tc_intern *t = &r->m->strings;
	bool fits = n <= r->lim->max_string;
	if (last != TC_NONE && fits && tc_intern_len(t, last) == n &&
			memcmp(tc_intern_str(t, last), s, n) == 0) {
		return last;
	}
	uint32_t slot = ((r->cur_ei * 0x9E3779B1u) ^ (k * 0x85EBCA6Bu)) >> 7 & (XP_STRC - 1);
	uint32_t id = r->strc[slot].id;
	if (r->strc[slot].ei1 == r->cur_ei + 1 && r->strc[slot].k == k && fits &&
			tc_intern_len(t, id) == n && memcmp(tc_intern_str(t, id), s, n) == 0) {
		return r->sm[k].last = id;
	}
	id = tc_xplane_intern(r, s, n);
	r->strc[slot].ei1 = r->cur_ei + 1;
	r->strc[slot].k = k;
	r->strc[slot].id = id;
	return r->sm[k].last = id;
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

/* Decode one XStat. Returns false on malformed wire data; a stat whose
 * metadata is unknown gets *sm_out = TC_NONE. */
static inline bool parse_stat(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v) {
	struct xstat x;
	uint64_t dangling = 0;
	if (!stat_fast(&r->smap, r->sm, r->base, r->base + r->size, p, len, &x, &dangling)) {
		return tc_xplane_parse_stat_slow(r, p, len, sm_out, v);
	}
	r->dangling_refs += dangling;
	*sm_out = x.k;
	xstat_value(r, &x, v);
	return true;
}
#endif
