/*
 * Perfetto protobuf trace reader (TrackEvent subset, see
 * proto/perfetto_trace_min.proto and the project's perfetto reference).
 *
 * The file is a flat run of `0x0a len TracePacket` records. Packets are walked
 * in place with util/pbwire (no protobuf-c tree: TracePacket is the hot
 * message) and mapped pages are released as the walk goes. Per-sequence state
 * (interning tables, defaults, incremental clocks and counters) is resolved
 * while walking; track descriptors may arrive after the events that use them,
 * so events are first recorded against internal track records and mapped onto
 * model devices and tracks at the end, when every descriptor is known.
 *
 * Model mapping:
 * - a process (pid) becomes a CPU device "NAME (pid N)"; its threads become
 *   HOST_THREAD tracks; custom tracks under a process stay on its device
 *   with tc_track.parent pointing at the parent track;
 * - custom tracks with no process go to one OTHER device "Perfetto tracks";
 * - a custom (non-thread, non-counter) track whose own name says "gpu" or
 *   "stream" (any case) is device work: it goes to a GPU device ("GPU N"
 *   when the name holds such a number) as a STREAM track and its slices
 *   become kernels (or copies/memsets/collectives by name). GPU render-stage
 *   packets land on "GPU <gpu_id>" the same way;
 * - counter tracks become model counters (unit from the descriptor) on the
 *   device of their process, or global.
 * Time: every timestamp is converted to the trace clock (BOOTTIME unless a
 * snapshot names another primary clock); origin_ns is the earliest event.
 * Slices pair per track in file order, or after a sort by time on tracks
 * that several sequences write (see defer_track). docs/perfetto-reader.md
 * has the full mapping and what is not handled.
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingest/ingest.h"
#include "model/classify.h"
#include "util/pbwire.h"
#include "util/utf8.h"
#include "util/xalloc.h"

#define PF_CLOCK_BOOTTIME 6
#define SEQ_CLEARED 1
#define SEQ_NEEDS_STATE 2
#define MAX_BUNDLE_NESTING 4
#define OP_CACHE 1024
#define TRK_CACHE 256

/* Two's-complement arithmetic on corrupt values, without signed overflow. */
static inline int64_t wrap_add(int64_t a, int64_t b) {
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t wrap_sub(int64_t a, int64_t b) {
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t wrap_mul(int64_t a, int64_t b) {
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

/*
 * tc_pb_next with a fast path for the commonest TrackEvent/TracePacket
 * fields: a one-byte tag with a one-byte varint or a one-byte length.
 */
static inline int next_field(struct tc_pb *r, struct tc_pb_field *f) {
	const uint8_t *p = r->p;
	if (p >= r->end) {
		return 0; /* every message ends here: no call */
	}
	if (r->end - p >= 2 && p[0] < 0x80 && p[0] >= 8 && p[1] < 0x80) {
		if ((p[0] & 7) == TC_PB_VARINT) {
			f->num = p[0] >> 3;
			f->wt = TC_PB_VARINT;
			f->u = p[1];
			r->p = p + 2;
			return 1;
		}
		if ((p[0] & 7) == TC_PB_LEN && p[1] <= r->end - p - 2) {
			f->num = p[0] >> 3;
			f->wt = TC_PB_LEN;
			f->data = p + 2;
			f->len = p[1];
			r->p = p + 2 + p[1];
			return 1;
		}
	}
	return tc_pb_next(r, f);
}

/* ---- a small open-addressing map uint64 -> uint32 ---- */

struct map_ent {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct map {
	struct map_ent *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

static inline size_t map_hash(uint64_t k, size_t cap) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static uint32_t *map_find(const struct map *m, uint64_t key) {
	if (!m->cap) {
		return NULL;
	}
	for (size_t i = map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct map_ent *e = &m->v[i];
		if (!e->used) {
			return NULL;
		}
		if (e->key == key) {
			return &e->val;
		}
	}
}

static uint32_t *map_put(struct map *m, uint64_t key, uint32_t val) {
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct map_ent *old = m->v;
		size_t ocap = m->cap;
		m->v = tc_xcalloc(ncap, sizeof(*m->v));
		m->cap = ncap;
		m->n = 0;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i].used) {
				map_put(m, old[i].key, old[i].val);
			}
		}
		free(old);
	}
	for (size_t i = map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct map_ent *e = &m->v[i];
		if (!e->used) {
			*e = (struct map_ent){ .key = key, .val = val, .used = 1 };
			m->n++;
			return &e->val;
		}
		if (e->key == key) {
			e->val = val;
			return &e->val;
		}
	}
}

static void map_clear(struct map *m) {
	if (m->n) {
		memset(m->v, 0, m->cap * sizeof(*m->v));
		m->n = 0;
	}
}

static void map_finish(struct map *m) {
	free(m->v);
	*m = (struct map){ 0 };
}

/* ---- per-sequence interning ---- */

enum itab_kind {
	IT_NAME,     /* event_names */
	IT_CAT,      /* event_categories */
	IT_DBGNAME,  /* debug_annotation_names */
	IT_DBGSTR,   /* debug_annotation_string_values */
	IT_GPUSPEC,  /* gpu_specifications (render stage / hw queue names) */
	IT_KERNEL,   /* compute_kernels */
	IT_COUNT,
};

/* Writers number iids from 1 per sequence; past this a hash map keeps a
 * corrupt or hostile iid from costing memory per sequence. */
#define ITAB_DENSE (1u << 16)

/* iid -> string id + 1 (0 = unknown); dense below ITAB_DENSE. */
struct itab {
	uint32_t *v;
	size_t cap;
	struct map big;
};

static void itab_set(struct itab *t, uint64_t iid, uint32_t sid) {
	if (iid < ITAB_DENSE) {
		if (iid >= t->cap) {
			size_t old = t->cap;
			TC_GROW(t->v, t->cap, (size_t)iid + 1);
			memset(t->v + old, 0, (t->cap - old) * sizeof(*t->v));
		}
		t->v[iid] = sid + 1;
	} else {
		map_put(&t->big, iid, sid + 1);
	}
}

static inline bool itab_get(const struct itab *t, uint64_t iid, uint32_t *sid) {
	uint32_t v = 0;
	if (iid < t->cap) {
		v = t->v[iid];
	} else if (iid >= ITAB_DENSE) {
		const uint32_t *p = map_find(&t->big, iid);
		v = p ? *p : 0;
	}
	if (!v) {
		return false;
	}
	*sid = v - 1;
	return true;
}

static void itab_clear(struct itab *t) {
	if (t->cap) {
		memset(t->v, 0, t->cap * sizeof(*t->v));
	}
	map_clear(&t->big);
}

/* ---- state ---- */

struct u64vec {
	uint64_t *v;
	size_t n, cap;
};

static void u64_push(struct u64vec *a, uint64_t x) {
	TC_GROW(a->v, a->cap, a->n + 1);
	a->v[a->n++] = x;
}

/* A sequence's state as the model half sees it (struct pseq: the packet
 * half's). */
struct seq {
	uint32_t id;
	uint32_t gen;        /* bumped on every incremental-state reset */
	struct itab it[IT_COUNT];
	bool has_def_track;
	uint64_t def_track;
	struct u64vec def_extra, def_extra_d;
	uint32_t legacy_trk; /* legacy ThreadDescriptor track, TC_NONE */
	int64_t legacy_ts_us;
	struct map gpu_ctr;  /* gpu counter_id -> name sid */
};

enum trk_flags {
	TRK_DESC = 1 << 0,      /* a TrackDescriptor was seen */
	TRK_PROCESS = 1 << 1,
	TRK_THREAD = 1 << 2,
	TRK_COUNTER = 1 << 3,
	TRK_INCR = 1 << 4,      /* incremental counter */
	TRK_GPU = 1 << 5,       /* device work on GPU gpu_id */
	TRK_NEEDED = 1 << 6,    /* gets a model track */
	TRK_UNKNOWN_WARNED = 1 << 7,
	TRK_SYNTH = 1 << 8,     /* made up by the reader (legacy async ids) */
	TRK_DEFER = 1 << 9,     /* slices pair after a sort, not in file order */
};

struct trk {
	uint64_t uuid;
	uint64_t parent_uuid;
	uint32_t name;          /* string id, 0 none */
	uint32_t flags;
	int64_t pid, tid;
	uint32_t ctr_type;      /* CounterDescriptor.type */
	uint32_t unit;          /* string id */
	int64_t mult;           /* unit_multiplier, 1 if unset */
	int32_t gpu_id;
	int64_t src;            /* writer's id for the model (queue id) */
	uint32_t nev;           /* events recorded on it */
	uint32_t seq;           /* first sequence that wrote a slice, TC_NONE */
	uint32_t mtrack;        /* model track, TC_NONE */
	uint32_t mctr;          /* model counter, TC_NONE */
	uint32_t *stack;        /* open slices (event indexes) */
	size_t depth, cap;
};

/* A clock domain: a builtin/global clock id or a (sequence, id) pair. */
struct clk {
	uint64_t key;
	bool incr;
	int64_t mult;
	int64_t last_ns;        /* incremental clocks: running value */
	uint32_t path_ver;      /* graph version the cached path is for */
	bool reachable;
	uint32_t *hops;         /* pair index * 2 + direction */
	size_t n_hops, cap_hops;
	uint32_t *hint;         /* per hop: last snapshot index used */
	/* one-hop conversion cache: v in [c_lo, c_hi) maps to v + c_off */
	uint32_t c_ver;
	int64_t c_lo, c_hi, c_off;
};

/* Snapshots that hold both clocks a and b: (ts on a, ts on b) in ns. */
struct pair {
	uint32_t a, b;
	int64_t (*v)[2];
	size_t n, cap;
};

struct accum {
	uint32_t gen;
	double v;
};

/* A slice begin (ev set) or end (ev TC_NONE) on a deferred track. */
struct dslice {
	int64_t ts;
	uint32_t trk;
	uint32_t ev;
	uint64_t order;
	uint32_t args;  /* an end's own args, merged at pairing; TC_NONE */
};

struct proc_name {
	int64_t pid;
	uint32_t name;
};

struct procs {
	struct map by_pid;
	struct proc_name *v;
	size_t n, cap;
};

/* Sequence id -> index in a half's table, with the last lookup cached. */
struct seqidx {
	struct map by_id;
	uint32_t last_id, last;
	uint32_t n;
};

/*
 * A packet's work comes in two halves. The packet half (struct pre) walks
 * the framing, decodes each TracePacket's own fields and keeps what needs
 * no model: sequence validity, default clocks, clock snapshots and the
 * conversion of timestamps to the trace clock. It hands each packet on as a
 * struct prec. The model half (struct st) does the rest in file order:
 * interning, descriptors, events, samples. One thread runs both halves in
 * turn, or, on a large file with a core spare, each half has its own.
 */
struct st {
	struct tc_model *m;
	const struct tc_limits *lim;
	struct tc_error *err;
	struct tc_input *in;
	size_t ev0, smp0, flow0;
	const uint8_t *base;    /* the mapped file, for error offsets */
	uint64_t pkt_off;       /* offset of the current top-level packet */
	uint64_t released;      /* mapped bytes handed back so far */
	int bundle_depth;

	struct seq *seqs;
	size_t cap_seqs;
	struct seqidx sx;

	struct trk *trks;
	size_t n_trks, cap_trks;
	struct map trk_by_uuid;

	struct map accum_by_key;
	struct accum *accums;
	size_t n_accums, cap_accums;

	struct procs procs;
	struct dslice *defer;
	size_t n_defer, cap_defer;
	struct map flow_last;   /* flow id -> last event, TC_NONE when terminated */
	struct map op_cache;    /* (name << 32 | category) -> op */
	uint64_t opc_key[OP_CACHE]; /* key + 1, 0 = empty */
	uint64_t trc_key[TRK_CACHE];
	uint32_t trc_val[TRK_CACHE]; /* trk + 1, 0 = empty */
	uint32_t opc_val[OP_CACHE];
	struct map dev_op;      /* op -> device-work op */
	struct map step_of_op;  /* step op -> its step number */

	bool have_base;
	int64_t base_ns;        /* trace-clock ns of ps 0 while reading */
	int64_t last_ps;        /* latest timestamp seen, ps from base */
	int64_t first_ps;       /* earliest event start stored (any_ev) */
	bool any_ev;

	/* scratch for one TrackEvent */
	struct u64vec x_uuids, x_vals, xd_uuids, xd_vals, flows, tflows;
	const uint8_t **annos;
	size_t *anno_len;
	size_t n_annos, cap_annos, cap_anno_len;
	char *txt;
	size_t txt_len, txt_cap;

	uint32_t s_thread_time, s_instr, s_ns, s_bytes, s_count, s_global;
};

/* A sequence as the packet half sees it. */
struct pseq {
	uint32_t id;
	bool valid;             /* incremental state usable */
	bool has_def_clock;
	uint32_t def_clock;
	uint64_t last_clock_key; /* the last clock lookup */
	uint32_t last_clk;
};

struct ppipe;

struct pre {
	const struct tc_limits *lim;
	struct tc_error *err;
	const uint8_t *base;
	uint64_t pkt_off;       /* offset of the current top-level packet */
	uint64_t inflated;      /* bytes inflated from compressed bundles */
	int bundle_depth;

	struct pseq *seqs;
	size_t cap_seqs;
	struct seqidx sx;

	struct clk *clks;
	size_t n_clks, cap_clks;
	struct map clk_by_key;
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	struct map pair_by_key;
	uint32_t graph_ver;
	uint32_t snap_ver;      /* bumped on every snapshot pair added */
	uint64_t trace_clock;
	bool trace_clock_fixed;

	struct st *a;           /* in line: the model half, called per packet */
	struct ppipe *pipe;     /* pipelined: where records go */
	struct tc_input *in;    /* the input's view; it may still grow */
	bool all;               /* the view holds the whole input */
};

/*
 * One packet, or a bundle's bounds, from the packet half to the model half.
 * kind is the TracePacket field of the payload p/len (11 TrackEvent, ...),
 * or one of enum prec_kind. With PF_FULL, p/len is the whole packet and the
 * model half decodes its fields again (it has interned data or defaults:
 * rare). warn bits are the packet half's warnings, which the model half
 * emits in file order. 32 bytes, two a cache line: the model half's reads
 * of records are a good part of its stalls (so packets are held to
 * PKT_MAX bytes, see walk_packets).
 */
struct prec {
	const uint8_t *p;
	int64_t ns;             /* PF_TS: the timestamp on the trace clock */
	uint32_t len;
	uint32_t back;          /* top level: p - (base + the packet's offset) */
	uint32_t seq_id;
	uint8_t kind;
	uint8_t flags;
	uint16_t warn;
};

/* A packet's bytes at most, so that len and back (at most the packet's
 * length and 11 bytes of its tag and length) fit in 32 bits. */
#define PKT_MAX (UINT32_MAX - 64)

/* The offset of a top-level record's packet. */
static inline uint64_t prec_off(const uint8_t *base, const struct prec *r) {
	return (uint64_t)(r->p - base) - r->back;
}

enum prec_kind {
	PR_BUNDLE_BEGIN = 200,  /* p - back: the bundle's packet */
	PR_BUNDLE_END,          /* p: the inflated buffer, the model half frees it */
	PR_END,                 /* the last record; with PF_STOP the packet half
	                         * failed (its err says how) */
};

enum prec_flags {
	PF_FULL = 1 << 0,
	PF_RESET = 1 << 1,      /* incremental state cleared */
	PF_TS = 1 << 2,         /* ns holds the packet's timestamp */
	PF_STOP = 1 << 3,       /* the packet half failed past interning, or (PR_END)
	                         * anywhere */
};

enum prec_warn {
	PW_DROPPED = 1 << 0,    /* previous_packet_dropped */
	PW_NEEDS_STATE = 1 << 1, /* skipped: its incremental state was lost */
	PW_NO_SNAPSHOT = 1 << 2, /* builtin clock taken as the trace clock */
	PW_NO_PATH = 1 << 3,    /* dropped: no path to the trace clock */
};

/* ---- errors ---- */

/* Offsets inside an inflated bundle mean nothing in the file: report the
 * bundle's packet instead. */
static bool err_at(struct tc_error *err, bool in_bundle, uint64_t pkt_off, int64_t off,
		const char *msg, const char *detail) {
	tc_error_set(err, TC_EXIT_INPUT, "perfetto: %s%s", msg, detail);
	return tc_error_at(err, in_bundle ? (int64_t)pkt_off : off);
}

static bool pb_err(struct tc_error *err, bool in_bundle, uint64_t pkt_off,
		const struct tc_pb *r, const char *what) {
	char msg[128];
	snprintf(msg, sizeof(msg), "malformed %s: ", what);
	return err_at(err, in_bundle, pkt_off, tc_pb_offset(r), msg,
		r->why ? r->why : "bad field");
}

static bool pb_fail(struct st *s, const struct tc_pb *r, const char *what) {
	return pb_err(s->err, s->bundle_depth, s->pkt_off, r, what);
}

static bool pre_fail_at(struct pre *b, int64_t off, const char *msg, const char *detail) {
	return err_at(b->err, b->bundle_depth, b->pkt_off, off, msg, detail);
}

static bool pre_pb_fail(struct pre *b, const struct tc_pb *r, const char *what) {
	return pb_err(b->err, b->bundle_depth, b->pkt_off, r, what);
}

/* ---- strings ---- */

static uint32_t str_id(struct st *s, const uint8_t *p, size_t n) {
	if (n > s->lim->max_string) {
		tc_model_warn(s->m, 1, "perfetto: strings longer than the string limit were cut");
		n = tc_utf8_cut(p, n, s->lim->max_string);
	}
	return tc_model_intern_n(s->m, (const char *)p, n);
}

/* ---- sequences ---- */

/* Index of sequence id in a half's table; *fresh when just added (the
 * caller fills the slot). */
static inline uint32_t seq_index(struct seqidx *x, uint32_t id, bool *fresh) {
	*fresh = false;
	if (x->n && x->last_id == id) {
		return x->last;
	}
	uint32_t *p = map_find(&x->by_id, id);
	uint32_t k;
	if (p) {
		k = *p;
	} else {
		k = x->n++;
		map_put(&x->by_id, id, k);
		*fresh = true;
	}
	x->last_id = id;
	x->last = k;
	return k;
}

static struct seq *seq_get(struct st *s, uint32_t id) {
	bool fresh;
	uint32_t k = seq_index(&s->sx, id, &fresh);
	if (fresh) {
		TC_GROW(s->seqs, s->cap_seqs, (size_t)k + 1);
		s->seqs[k] = (struct seq){ .id = id, .legacy_trk = TC_NONE };
	}
	return &s->seqs[k];
}

static struct pseq *pseq_get(struct pre *b, uint32_t id) {
	bool fresh;
	uint32_t k = seq_index(&b->sx, id, &fresh);
	if (fresh) {
		TC_GROW(b->seqs, b->cap_seqs, (size_t)k + 1);
		b->seqs[k] = (struct pseq){ .id = id, .last_clk = TC_NONE };
	}
	return &b->seqs[k];
}

static void seq_reset(struct seq *q) {
	q->gen++;
	for (int i = 0; i < IT_COUNT; i++) {
		itab_clear(&q->it[i]);
	}
	q->has_def_track = false;
	q->def_extra.n = 0;
	q->def_extra_d.n = 0;
	map_clear(&q->gpu_ctr);
}

/* ---- track records ---- */

static uint32_t trk_get(struct st *s, uint64_t uuid) {
	uint32_t *p = map_find(&s->trk_by_uuid, uuid);
	if (p) {
		return *p;
	}
	TC_GROW(s->trks, s->cap_trks, s->n_trks + 1);
	uint32_t k = (uint32_t)s->n_trks++;
	s->trks[k] = (struct trk){
		.uuid = uuid, .mult = 1, .gpu_id = -1,
		.mtrack = TC_NONE, .mctr = TC_NONE, .seq = TC_NONE,
	};
	map_put(&s->trk_by_uuid, uuid, k);
	return k;
}

/* trk_get behind a direct-mapped cache: events alternate between a few
 * tracks (a thread's slices, its counters). */
static inline uint32_t trk_cached(struct st *s, uint64_t uuid) {
	size_t slot = (size_t)(uuid * 0x9E3779B97F4A7C15ull >> 56) & (TRK_CACHE - 1);
	if (s->trc_key[slot] == uuid && s->trc_val[slot] != 0) {
		return s->trc_val[slot] - 1;
	}
	uint32_t k = trk_get(s, uuid);
	s->trc_key[slot] = uuid;
	s->trc_val[slot] = k + 1;
	return k;
}

/* Pseudo uuids for tracks that have no descriptor uuid of their own; the top
 * bits keep them apart from writer uuids in practice. */
static uint64_t pseudo_uuid(uint64_t space, uint64_t a, uint64_t b) {
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x7f4a7c15ull) * 0xC2B2AE3D27D4EB4Full;
	return (space << 60) | (h >> 4);
}

/* ---- clocks ---- */

static uint64_t clock_key(uint32_t seq_id, uint64_t id) {
	if (id >= 64 && id < 128) {
		return ((uint64_t)seq_id << 32) | id;
	}
	return id;
}

static uint32_t clk_get(struct pre *s, uint64_t key) {
	uint32_t *p = map_find(&s->clk_by_key, key);
	if (p) {
		return *p;
	}
	TC_GROW(s->clks, s->cap_clks, s->n_clks + 1);
	uint32_t k = (uint32_t)s->n_clks++;
	s->clks[k] = (struct clk){ .key = key, .mult = 1, .path_ver = UINT32_MAX };
	map_put(&s->clk_by_key, key, k);
	return k;
}

static void pair_add(struct pre *s, uint32_t a, int64_t ta, uint32_t b, int64_t tb) {
	if (a == b) {
		return;
	}
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
		int64_t tt = ta;
		ta = tb;
		tb = tt;
	}
	uint64_t key = (uint64_t)a << 32 | b;
	uint32_t *p = map_find(&s->pair_by_key, key);
	uint32_t k;
	if (p) {
		k = *p;
	} else {
		TC_GROW(s->pairs, s->cap_pairs, s->n_pairs + 1);
		k = (uint32_t)s->n_pairs++;
		s->pairs[k] = (struct pair){ .a = a, .b = b };
		map_put(&s->pair_by_key, key, k);
		s->graph_ver++;
	}
	struct pair *pr = &s->pairs[k];
	s->snap_ver++;
	TC_GROW(pr->v, pr->cap, pr->n + 1);
	/* Keep sorted by the a side (snapshots normally arrive in order). */
	size_t i = pr->n++;
	while (i > 0 && pr->v[i - 1][0] > ta) {
		pr->v[i][0] = pr->v[i - 1][0];
		pr->v[i][1] = pr->v[i - 1][1];
		i--;
	}
	pr->v[i][0] = ta;
	pr->v[i][1] = tb;
}

/* Breadth-first search from clock c to the trace clock over the snapshot
 * graph; the path is cached in c until the graph gains an edge. */
static void clk_path(struct pre *s, uint32_t c) {
	struct clk *k = &s->clks[c];
	k->path_ver = s->graph_ver;
	k->n_hops = 0;
	k->reachable = false;
	uint32_t *tp = map_find(&s->clk_by_key, s->trace_clock);
	if (!tp) {
		return;
	}
	uint32_t target = *tp;
	if (target == c) {
		k->reachable = true;
		return;
	}
	size_t n = s->n_clks;
	uint32_t *prev = tc_xmalloc(n * sizeof(*prev)); /* pair*2+dir used to reach */
	uint32_t *queue = tc_xmalloc(n * sizeof(*queue));
	for (size_t i = 0; i < n; i++) {
		prev[i] = UINT32_MAX;
	}
	size_t qh = 0, qt = 0;
	queue[qt++] = c;
	prev[c] = UINT32_MAX - 1;
	while (qh < qt && prev[target] == UINT32_MAX) {
		uint32_t u = queue[qh++];
		for (size_t p = 0; p < s->n_pairs; p++) {
			const struct pair *pr = &s->pairs[p];
			uint32_t v;
			uint32_t dir;
			if (pr->a == u) {
				v = pr->b;
				dir = 0;
			} else if (pr->b == u) {
				v = pr->a;
				dir = 1;
			} else {
				continue;
			}
			if (prev[v] == UINT32_MAX) {
				prev[v] = (uint32_t)p * 2 + dir;
				queue[qt++] = v;
			}
		}
	}
	if (prev[target] != UINT32_MAX) {
		k->reachable = true;
		/* Walk back from the target, then reverse. */
		for (uint32_t v = target; v != c;) {
			uint32_t h = prev[v];
			TC_GROW(k->hops, k->cap_hops, k->n_hops + 1);
			k->hops[k->n_hops++] = h;
			const struct pair *pr = &s->pairs[h / 2];
			v = (h & 1) ? pr->b : pr->a;
		}
		for (size_t i = 0; i < k->n_hops / 2; i++) {
			uint32_t t = k->hops[i];
			k->hops[i] = k->hops[k->n_hops - 1 - i];
			k->hops[k->n_hops - 1 - i] = t;
		}
		free(k->hint);
		k->hint = tc_xcalloc(k->n_hops ? k->n_hops : 1, sizeof(*k->hint));
	}
	free(prev);
	free(queue);
}

/* Latest snapshot at or before v on the from side (else the first). */
static int64_t hop_convert(const struct pair *pr, uint32_t dir, int64_t v, uint32_t *hint) {
	int from = dir ? 1 : 0, to = dir ? 0 : 1;
	size_t n = pr->n, i = *hint < n ? *hint : 0;
	if (!(pr->v[i][from] <= v && (i + 1 == n || pr->v[i + 1][from] > v))) {
		size_t lo = 0, hi = n; /* first index with value > v */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (pr->v[mid][from] <= v) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		i = lo ? lo - 1 : 0;
	}
	*hint = (uint32_t)i;
	return wrap_add(wrap_sub(v, pr->v[i][from]), pr->v[i][to]);
}

static void parse_snapshot(struct pre *s, struct pseq *q, const uint8_t *p, size_t len,
		bool *ok) {
	struct tc_pb r, rc;
	struct tc_pb_field f = { 0 }, g = { 0 };
	uint32_t ids[64];
	int64_t ts[64];
	size_t n = 0;
	int rv;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == 2 && f.wt == TC_PB_VARINT && !s->trace_clock_fixed) {
			s->trace_clock = f.u;
			s->trace_clock_fixed = true;
		}
		if (f.num != 1 || f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t id = 0, t = 0, mult = 0;
		bool incr = false;
		tc_pb_init(&rc, s->base, f.data, f.len);
		int rv2;
		while ((rv2 = tc_pb_next(&rc, &g)) > 0) {
			if (g.wt != TC_PB_VARINT) {
				continue;
			}
			switch (g.num) {
			case 1: id = g.u; break;
			case 2: t = g.u; break;
			case 3: incr = g.u != 0; break;
			case 4: mult = g.u; break;
			}
		}
		if (rv2 < 0) {
			*ok = pre_pb_fail(s, &rc, "ClockSnapshot");
			return;
		}
		uint32_t c = clk_get(s, clock_key(q->id, id));
		struct clk *k = &s->clks[c];
		if (mult) {
			k->mult = (int64_t)mult;
		}
		k->incr = incr;
		int64_t ns = wrap_mul((int64_t)t, k->mult);
		k->last_ns = ns;
		if (n < 64) {
			ids[n] = c;
			ts[n] = ns;
			n++;
		}
	}
	if (rv < 0) {
		*ok = pre_pb_fail(s, &r, "ClockSnapshot");
		return;
	}
	if (!s->trace_clock_fixed) {
		s->trace_clock_fixed = true;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			pair_add(s, ids[i], ts[i], ids[j], ts[j]);
		}
	}
}

/* Clock-c value v (ns) to the trace clock, the general way. */
static bool clk_convert(struct pre *s, uint32_t c, int64_t v, int64_t *out) {
	struct clk *k = &s->clks[c];
	if (k->key == s->trace_clock) {
		*out = v;
		return true;
	}
	/* A found path stays valid when edges are added (a shorter one could
	 * appear, but re-searching for every new sequence's clock would cost
	 * sequences squared); an unreachable clock searches again. */
	if (k->path_ver == UINT32_MAX || (!k->reachable && k->path_ver != s->graph_ver)) {
		clk_path(s, c);
		k = &s->clks[c];
	}
	if (!k->reachable) {
		return false;
	}
	for (size_t h = 0; h < k->n_hops; h++) {
		uint32_t hop = k->hops[h];
		const struct pair *pr = &s->pairs[hop / 2];
		int64_t in = v;
		v = hop_convert(pr, hop & 1, v, &k->hint[h]);
		if (k->n_hops == 1) {
			/* One hop (the usual SDK case): the offset holds until the
			 * next snapshot of the source clock; to_trace_ns reuses it
			 * while values stay in range. */
			size_t i = k->hint[0];
			int from = hop & 1;
			k->c_ver = s->snap_ver;
			k->c_lo = i == 0 ? INT64_MIN : pr->v[i][from];
			k->c_hi = i + 1 < pr->n ? pr->v[i + 1][from] : INT64_MAX;
			k->c_off = wrap_sub(v, in);
		}
	}
	*out = v;
	return true;
}

static bool clk_lookup(struct pre *s, struct pseq *q, uint32_t clock_id, uint64_t ts,
		uint32_t *c, int64_t *out, uint16_t *warn) {
	uint64_t key = clock_key(q->id, clock_id);
	uint32_t *p = map_find(&s->clk_by_key, key);
	if (p) {
		*c = *p;
		q->last_clk = *p;
		q->last_clock_key = key;
		return true;
	}
	*c = TC_NONE;
	if (key == s->trace_clock) {
		*out = (int64_t)ts;
		return true;
	}
	if (s->n_pairs == 0 && clock_id < 64) {
		/* No snapshot anywhere yet: a builtin clock is the only timeline
		 * there is. */
		*warn |= PW_NO_SNAPSHOT;
		*out = (int64_t)ts;
		return true;
	}
	return false;
}

/* Packet timestamp (in clock_id units) to trace-clock ns. */
static inline bool to_trace_ns(struct pre *s, struct pseq *q, uint32_t clock_id, uint64_t ts,
		int64_t *out, uint16_t *warn) {
	uint32_t c = q->last_clk;
	if (c == TC_NONE || q->last_clock_key != clock_key(q->id, clock_id)) {
		if (!clk_lookup(s, q, clock_id, ts, &c, out, warn)) {
			return false;
		}
		if (c == TC_NONE) {
			return true;
		}
	}
	struct clk *k = &s->clks[c];
	int64_t v;
	if (k->incr) {
		k->last_ns = wrap_add(k->last_ns, wrap_mul((int64_t)ts, k->mult));
		v = k->last_ns;
	} else {
		v = wrap_mul((int64_t)ts, k->mult);
	}
	if (k->n_hops == 1 && k->c_ver == s->snap_ver && v >= k->c_lo && v < k->c_hi) {
		*out = wrap_add(v, k->c_off);
		return true;
	}
	return clk_convert(s, c, v, out);
}

/* Trace-clock ns to ps from the reading base; false if out of range. */
static bool ns_to_ps(struct st *s, int64_t ns, int64_t *ps) {
	if (!s->have_base) {
		s->have_base = true;
		s->base_ns = ns;
	}
	int64_t d;
	if (__builtin_sub_overflow(ns, s->base_ns, &d)) {
		d = INT64_MAX;
	}
	if (d > INT64_MAX / 2000 || d < -(INT64_MAX / 2000)) {
		tc_model_warn(s->m, 1, "perfetto: dropped events more than 50 days "
			"away from the first timestamp");
		return false;
	}
	*ps = d * 1000;
	if (*ps > s->last_ps) {
		s->last_ps = *ps;
	}
	return true;
}

/* ---- interned data ---- */

static bool parse_interned(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		/* Every kept table's entries are {iid 1, name/str 2}. */
		int t;
		switch (f.num) {
		case 1: t = IT_CAT; break;
		case 2: t = IT_NAME; break;
		case 3: t = IT_DBGNAME; break;
		case 29: t = IT_DBGSTR; break;
		case 24: t = IT_GPUSPEC; break;
		case 1000: t = IT_KERNEL; break;
		default:
			continue;
		}
		if (f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t iid = 0;
		const uint8_t *str = NULL;
		size_t slen = 0;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == 1 && g.wt == TC_PB_VARINT) {
				iid = g.u;
			} else if (g.num == 2 && g.wt == TC_PB_LEN) {
				str = g.data;
				slen = g.len;
			}
		}
		if (rv2 < 0) {
			return pb_fail(s, &e, "InternedData entry");
		}
		if (iid == 0) {
			continue;
		}
		itab_set(&q->it[t], iid, str ? str_id(s, str, slen) : 0);
	}
	if (rv < 0) {
		return pb_fail(s, &r, "InternedData");
	}
	return true;
}

static void parse_u64_list(const struct tc_pb_field *f, struct u64vec *out, bool fixed) {
	if (f->wt == TC_PB_LEN) {
		const uint8_t *p = f->data, *end = f->data + f->len;
		while (p < end) {
			uint64_t v;
			if (fixed) {
				if (end - p < 8) {
					return;
				}
				v = 0;
				for (int i = 7; i >= 0; i--) {
					v = (v << 8) | p[i];
				}
				p += 8;
			} else if (!tc_pb_varint(&p, end, &v)) {
				return;
			}
			u64_push(out, v);
		}
		return;
	}
	if (fixed ? f->wt == TC_PB_I64 : f->wt == TC_PB_VARINT) {
		u64_push(out, f->u);
	}
}

static bool parse_defaults(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == 11 && f.wt == TC_PB_LEN) {
			q->def_extra.n = 0;
			q->def_extra_d.n = 0;
			q->has_def_track = false;
			tc_pb_init(&e, s->base, f.data, f.len);
			while ((rv2 = tc_pb_next(&e, &g)) > 0) {
				if (g.num == 11 && g.wt == TC_PB_VARINT) {
					q->has_def_track = true;
					q->def_track = g.u;
				} else if (g.num == 31) {
					parse_u64_list(&g, &q->def_extra, false);
				} else if (g.num == 45) {
					parse_u64_list(&g, &q->def_extra_d, false);
				}
			}
			if (rv2 < 0) {
				return pb_fail(s, &e, "TrackEventDefaults");
			}
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "TracePacketDefaults");
	}
	return true;
}

/* The packet half's share of the defaults: the clock. It walks the same
 * outer fields as parse_defaults, so it fails where that would first fail
 * unless a TrackEventDefaults inside is malformed, which parse_defaults
 * reports on its own. */
static bool defaults_clock(struct pre *b, struct pseq *q, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, b->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == 58 && f.wt == TC_PB_VARINT) {
			q->has_def_clock = true;
			q->def_clock = (uint32_t)f.u;
		}
	}
	if (rv < 0) {
		return pre_pb_fail(b, &r, "TracePacketDefaults");
	}
	return true;
}

/* ---- descriptors ---- */

static bool parse_process(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *pname) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == 1 && f.wt == TC_PB_VARINT) {
			t->pid = (int64_t)f.u;
		} else if (f.num == 6 && f.wt == TC_PB_LEN) {
			*pname = str_id(s, f.data, f.len);
		} else if (f.num == 2 && f.wt == TC_PB_LEN && !*pname) {
			*pname = str_id(s, f.data, f.len); /* first cmdline word */
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "ProcessDescriptor");
	}
	return true;
}

static bool parse_thread(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *tname, int64_t *ref_us) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt == TC_PB_VARINT) {
			if (f.num == 1) {
				t->pid = (int64_t)(int32_t)f.u;
			} else if (f.num == 2) {
				t->tid = (int64_t)f.u;
			} else if (f.num == 6 && ref_us) {
				*ref_us = (int64_t)f.u;
			}
		} else if (f.num == 5 && f.wt == TC_PB_LEN) {
			*tname = str_id(s, f.data, f.len);
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "ThreadDescriptor");
	}
	return true;
}

static bool parse_counter_desc(struct st *s, struct trk *t, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint32_t unit_name = 0, unit_enum = 0;
	tc_pb_init(&r, s->base, p, len);
	t->flags |= TRK_COUNTER;
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt == TC_PB_VARINT) {
			switch (f.num) {
			case 1: t->ctr_type = (uint32_t)f.u; break;
			case 3: unit_enum = (uint32_t)f.u; break;
			case 4: t->mult = (int64_t)f.u ? (int64_t)f.u : 1; break;
			case 5:
				if (f.u) {
					t->flags |= TRK_INCR;
				}
				break;
			}
		} else if (f.num == 6 && f.wt == TC_PB_LEN) {
			unit_name = str_id(s, f.data, f.len);
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "CounterDescriptor");
	}
	if (unit_name) {
		t->unit = unit_name;
	} else if (unit_enum == 1 || t->ctr_type == 1) {
		t->unit = s->s_ns;
	} else if (unit_enum == 3) {
		t->unit = s->s_bytes;
	} else if (unit_enum == 2 || t->ctr_type == 2) {
		t->unit = s->s_count;
	}
	return true;
}

/* Process names by pid, from process descriptors of every kind. */
static void proc_set(struct st *s, int64_t pid, uint32_t name) {
	struct procs *ps = &s->procs;
	uint32_t *p = map_find(&ps->by_pid, (uint64_t)pid);
	if (p) {
		if (name) {
			ps->v[*p].name = name;
		}
		return;
	}
	TC_GROW(ps->v, ps->cap, ps->n + 1);
	ps->v[ps->n] = (struct proc_name){ .pid = pid, .name = name };
	map_put(&ps->by_pid, (uint64_t)pid, (uint32_t)ps->n++);
}

static bool parse_track_desc(struct st *s, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint64_t uuid = 0, parent = 0;
	uint32_t name = 0;
	bool has_name = false;
	const uint8_t *proc = NULL, *thr = NULL, *ctr = NULL;
	size_t proc_len = 0, thr_len = 0, ctr_len = 0;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case 1:
			if (f.wt == TC_PB_VARINT) {
				uuid = f.u;
			}
			break;
		case 5:
			if (f.wt == TC_PB_VARINT) {
				parent = f.u;
			}
			break;
		case 2: case 10: case 13:
			if (f.wt == TC_PB_LEN) {
				name = str_id(s, f.data, f.len);
				has_name = true;
			}
			break;
		case 3: case 6: /* process, chrome_process: chrome's has no pid */
			if (f.wt == TC_PB_LEN && f.num == 3) {
				proc = f.data;
				proc_len = f.len;
			}
			break;
		case 4:
			if (f.wt == TC_PB_LEN) {
				thr = f.data;
				thr_len = f.len;
			}
			break;
		case 8:
			if (f.wt == TC_PB_LEN) {
				ctr = f.data;
				ctr_len = f.len;
			}
			break;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "TrackDescriptor");
	}
	uint32_t k = trk_get(s, uuid);
	struct trk *t = &s->trks[k];
	t->flags |= TRK_DESC;
	t->parent_uuid = parent;
	if (has_name) {
		t->name = name;
	}
	if (thr) {
		uint32_t tname = 0;
		if (!parse_thread(s, t, thr, thr_len, &tname, NULL)) {
			return false;
		}
		t->flags |= TRK_THREAD;
		if (tname && !has_name) {
			t->name = tname;
		}
	} else if (proc) {
		uint32_t pname = 0;
		if (!parse_process(s, t, proc, proc_len, &pname)) {
			return false;
		}
		t->flags |= TRK_PROCESS;
		proc_set(s, t->pid, pname);
	}
	if (ctr && !parse_counter_desc(s, t, ctr, ctr_len)) {
		return false;
	}
	return true;
}

/* ---- ops ---- */

static bool contains_ci(const char *s, const char *needle) {
	size_t n = strlen(needle);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && (s[i] | 0x20) == (needle[i] | 0x20)) {
			i++;
		}
		if (i == n) {
			return true;
		}
	}
	return false;
}

/* An op's class: Perfetto's own fact is the track (GPU tracks and render
 * stages hold device work); a bare host slice is an annotation. */
static void op_class(const struct tc_model *m, uint32_t name, uint32_t cat, bool device,
		struct tc_class *k) {
	tc_classify(tc_model_str(m, name), tc_intern_len(&m->strings, name),
		cat ? tc_model_str(m, cat) : NULL, cat ? tc_intern_len(&m->strings, cat) : 0,
		device ? TC_PLACE_DEVICE : TC_PLACE_HOST, TC_OP_ANNOTATION, k);
}

/* The op for (name, cat) on a host or device track: classified once. */
static uint32_t class_op(struct tc_model *m, uint32_t name, uint32_t cat, bool device) {
	struct tc_class k;
	op_class(m, name, cat, device, &k);
	uint32_t ocat = k.category ? tc_model_intern(m, k.category) : cat;
	return tc_model_op(m, name, ocat, k.kind);
}

static uint32_t op_for(struct st *s, uint32_t name, uint32_t cat) {
	uint64_t key = (uint64_t)name << 32 | cat;
	/* A direct-mapped cache in front of the map: few distinct ops, hot. */
	size_t slot = (size_t)((name * 0x9E3779B1u) ^ cat) & (OP_CACHE - 1);
	if (s->opc_key[slot] == key + 1) {
		return s->opc_val[slot];
	}
	uint32_t *p = map_find(&s->op_cache, key);
	if (p) {
		s->opc_key[slot] = key + 1;
		s->opc_val[slot] = *p;
		return *p;
	}
	uint32_t op = class_op(s->m, name, cat, false);
	map_put(&s->op_cache, key, op);
	s->opc_key[slot] = key + 1;
	s->opc_val[slot] = op;
	return op;
}

/* ---- debug annotations ---- */

static void txt_put(struct st *s, const char *p, size_t n) {
	if (s->txt_len + n > s->lim->max_string) {
		n = tc_utf8_cut((const uint8_t *)p, n,
			s->lim->max_string > s->txt_len ? s->lim->max_string - s->txt_len : 0);
	}
	TC_GROW(s->txt, s->txt_cap, s->txt_len + n + 1);
	memcpy(s->txt + s->txt_len, p, n);
	s->txt_len += n;
}

static void txt_fmt(struct st *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void txt_fmt(struct st *s, const char *fmt, ...) {
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) {
		txt_put(s, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	}
}

enum anno_val {
	AV_NONE,
	AV_BOOL,
	AV_UINT,
	AV_INT,
	AV_DOUBLE,
	AV_STR,
	AV_NESTED,
};

struct anno {
	bool has_name;
	uint32_t name;
	int type;
	uint64_t u;
	uint32_t str;
	bool nested_dict;
	bool nested_array;
	const uint8_t *p;
	size_t len;
};

static bool anno_text(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		uint32_t depth, bool with_name);

/* Decode one DebugAnnotation's scalar parts; nested parts stay as bytes. */
static bool anno_parse(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		struct anno *a) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	*a = (struct anno){ .p = p, .len = len };
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case 1:
			if (f.wt == TC_PB_VARINT) {
				a->has_name = itab_get(&q->it[IT_DBGNAME], f.u, &a->name);
				if (!a->has_name) {
					tc_model_warn(s->m, 1, "perfetto: debug annotation names "
						"with an unknown iid were dropped");
				}
			}
			break;
		case 10:
			if (f.wt == TC_PB_LEN) {
				a->has_name = true;
				a->name = str_id(s, f.data, f.len);
			}
			break;
		case 2: a->type = AV_BOOL; a->u = f.u; break;
		case 3: a->type = AV_UINT; a->u = f.u; break;
		case 4: a->type = AV_INT; a->u = f.u; break;
		case 5: a->type = AV_DOUBLE; a->u = f.u; break;
		case 6: case 9:
			if (f.wt == TC_PB_LEN) {
				a->type = AV_STR;
				a->str = str_id(s, f.data, f.len);
			}
			break;
		case 17:
			if (f.wt == TC_PB_VARINT) {
				uint32_t sid;
				if (itab_get(&q->it[IT_DBGSTR], f.u, &sid)) {
					a->type = AV_STR;
					a->str = sid;
				}
			}
			break;
		case 7: {
			char buf[32];
			snprintf(buf, sizeof(buf), "0x%" PRIx64, f.u);
			a->type = AV_STR;
			a->str = tc_model_intern(s->m, buf);
			break;
		}
		case 11:
			a->type = AV_NESTED;
			a->nested_dict = true;
			break;
		case 12:
			a->type = AV_NESTED;
			a->nested_array = true;
			break;
		case 8: case 14:
			if (a->type == AV_NONE) {
				a->type = AV_NESTED;
			}
			break;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "DebugAnnotation");
	}
	return true;
}

static void anno_scalar_text(struct st *s, const struct anno *a) {
	switch (a->type) {
	case AV_BOOL: txt_put(s, a->u ? "true" : "false", a->u ? 4 : 5); break;
	case AV_UINT: txt_fmt(s, "%" PRIu64, a->u); break;
	case AV_INT: txt_fmt(s, "%" PRId64, (int64_t)a->u); break;
	case AV_DOUBLE: txt_fmt(s, "%.17g", tc_pb_double(a->u)); break;
	case AV_STR:
		txt_put(s, "\"", 1);
		txt_put(s, tc_model_str(s->m, a->str), tc_intern_len(&s->m->strings, a->str));
		txt_put(s, "\"", 1);
		break;
	default: txt_put(s, "null", 4); break;
	}
}

/* Compact text of a nested annotation: {k:v,...} or [v,...]. */
static bool anno_text(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		uint32_t depth, bool with_name) {
	if (depth > s->lim->max_depth) {
		tc_error_set(s->err, TC_EXIT_LIMIT, "perfetto: debug annotation nested "
			"deeper than %u levels (raise it with --max-depth)", s->lim->max_depth);
		return tc_error_at(s->err, (int64_t)s->pkt_off);
	}
	struct anno a;
	if (!anno_parse(s, q, p, len, &a)) {
		return false;
	}
	if (with_name) {
		const char *n = a.has_name ? tc_model_str(s->m, a.name) : "";
		txt_put(s, n, strlen(n));
		txt_put(s, ":", 1);
	}
	if (a.type != AV_NESTED) {
		anno_scalar_text(s, &a);
		return true;
	}
	bool dict = a.nested_dict;
	txt_put(s, dict ? "{" : "[", 1);
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	bool first = true;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if ((f.num == 11 || f.num == 12) && f.wt == TC_PB_LEN) {
			if (!first) {
				txt_put(s, ",", 1);
			}
			first = false;
			if (!anno_text(s, q, f.data, f.len, depth + 1, f.num == 11)) {
				return false;
			}
		}
	}
	txt_put(s, dict ? "}" : "]", 1);
	return true;
}

/* Add the event's annotations to the current arg list. */
static bool add_annos(struct st *s, struct seq *q) {
	for (size_t i = 0; i < s->n_annos; i++) {
		struct anno a;
		if (!anno_parse(s, q, s->annos[i], s->anno_len[i], &a)) {
			return false;
		}
		if (!a.has_name) {
			continue;
		}
		switch (a.type) {
		case AV_BOOL: tc_model_arg_bool(s->m, a.name, a.u != 0); break;
		case AV_UINT: tc_model_arg_uint(s->m, a.name, a.u); break;
		case AV_INT: tc_model_arg_int(s->m, a.name, (int64_t)a.u); break;
		case AV_DOUBLE: tc_model_arg_double(s->m, a.name, tc_pb_double(a.u)); break;
		case AV_STR: tc_model_arg_str(s->m, a.name, a.str); break;
		case AV_NESTED:
			s->txt_len = 0;
			if (!anno_text(s, q, a.p, a.len, 1, false)) {
				return false;
			}
			tc_model_arg_str(s->m, a.name, tc_model_intern_n(s->m, s->txt, s->txt_len));
			break;
		default:
			break;
		}
	}
	return true;
}

/*
 * An END's annotations belong to its slice (trace_processor merges them).
 * Arg lists cannot grow in place, so the BEGIN's list is copied into a new
 * one followed by the END's; rare enough that the copy does not matter.
 */
static void copy_args(struct tc_model *m, uint32_t first) {
	for (uint32_t p = first; p != TC_NONE;) {
		struct tc_arg a; /* decoded by value: adding may move the bytes */
		p = tc_model_arg_next(m, p, &a);
		tc_model_arg_add(m, &a);
	}
}

static bool merge_end_args(struct st *s, struct seq *q, uint32_t ev) {
	struct tc_model *m = s->m;
	uint32_t a0 = tc_model_args_begin(m);
	copy_args(m, m->ev.args[ev]);
	if (!add_annos(s, q)) {
		return false;
	}
	m->ev.args[ev] = tc_model_args_end(m, a0);
	return true;
}

/* ---- counters and flows ---- */

static void add_sample(struct st *s, struct seq *q, uint32_t k, int64_t ps, double v) {
	struct trk *t = &s->trks[k];
	if (t->flags & TRK_INCR) {
		uint64_t key = (uint64_t)(q - s->seqs) << 32 | k;
		uint32_t *p = map_find(&s->accum_by_key, key);
		struct accum *a;
		if (!p) {
			TC_GROW(s->accums, s->cap_accums, s->n_accums + 1);
			s->accums[s->n_accums] = (struct accum){ .gen = q->gen };
			map_put(&s->accum_by_key, key, (uint32_t)s->n_accums);
			a = &s->accums[s->n_accums++];
		} else {
			a = &s->accums[*p];
		}
		if (a->gen != q->gen) {
			a->gen = q->gen;
			a->v = 0;
		}
		a->v += v;
		v = a->v;
	}
	tc_model_add_sample(s->m, k, ps, v * (double)t->mult);
}

/* Extra counter values (int64 or double bits) paired with track uuids by
 * position; the event's uuids replace the sequence defaults. */
static void extra_samples(struct st *s, struct seq *q, int64_t ps, const struct u64vec *uuids,
		const struct u64vec *vals, bool dbl) {
	for (size_t i = 0; i < vals->n; i++) {
		if (i >= uuids->n) {
			tc_model_warn(s->m, 1, "perfetto: extra counter values without a track "
				"were dropped");
			return;
		}
		double v = dbl ? tc_pb_double(vals->v[i]) : (double)(int64_t)vals->v[i];
		add_sample(s, q, trk_cached(s, uuids->v[i]), ps, v);
	}
}

static void bind_flows(struct st *s, uint32_t ev) {
	for (int pass = 0; pass < 2; pass++) {
		const struct u64vec *ids = pass ? &s->tflows : &s->flows;
		for (size_t i = 0; i < ids->n; i++) {
			uint64_t id = ids->v[i];
			uint32_t *p = map_find(&s->flow_last, id);
			if (p && *p != TC_NONE && *p != ev) {
				tc_model_add_flow(s->m, *p, ev, TC_FLOW_GENERIC, id);
			}
			if (pass) {
				if (p) {
					*p = TC_NONE;
				}
			} else {
				map_put(&s->flow_last, id, ev);
			}
		}
	}
}

/* ---- slices on tracks that several sequences write ---- */

/*
 * Slices pair with a per-track stack in file order, which is time order for
 * a track one sequence writes. A track that a second sequence writes, or
 * that sees an END with nothing open, may arrive out of order (the service
 * writes chunks of different writers in any order): from then on its begins
 * and ends are kept and paired after sorting by time, like trace_processor's
 * sort. Its open slices move over.
 */
static void defer_push(struct st *s, uint32_t k, int64_t ts, uint32_t ev) {
	TC_GROW(s->defer, s->cap_defer, s->n_defer + 1);
	s->defer[s->n_defer] = (struct dslice){
		.ts = ts, .trk = k, .ev = ev, .order = s->n_defer, .args = TC_NONE,
	};
	s->n_defer++;
}

static void defer_track(struct st *s, uint32_t k) {
	struct trk *t = &s->trks[k];
	t->flags |= TRK_DEFER;
	for (size_t i = 0; i < t->depth; i++) {
		defer_push(s, k, s->m->ev.start[t->stack[i]], t->stack[i]);
	}
	t->depth = 0;
}

/* Called for every slice begin/end: is k to be deferred? Thread tracks
 * (the bulk) never are. */
static inline bool deferred(struct st *s, struct seq *q, uint32_t k, bool is_end) {
	struct trk *t = &s->trks[k];
	if (t->flags & TRK_DEFER) {
		return true;
	}
	if (t->flags & TRK_THREAD) {
		return false;
	}
	uint32_t qi = (uint32_t)(q - s->seqs);
	if (t->seq == TC_NONE) {
		t->seq = qi;
	}
	if (t->seq != qi || (is_end && t->depth == 0)) {
		defer_track(s, k);
		return true;
	}
	return false;
}

static int cmp_dslice(const void *a, const void *b) {
	const struct dslice *x = a, *y = b;
	if (x->trk != y->trk) {
		return x->trk < y->trk ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Pair deferred begins and ends; leftovers go back on the track stacks so
 * they end as unfinished slices. */
static void pair_deferred(struct st *s) {
	struct tc_model *m = s->m;
	if (!s->n_defer) {
		return;
	}
	tc_sort(s->defer, s->n_defer, sizeof(*s->defer), cmp_dslice);
	uint64_t unmatched = 0;
	for (size_t i = 0; i < s->n_defer; i++) {
		const struct dslice *d = &s->defer[i];
		struct trk *t = &s->trks[d->trk];
		if (d->ev != TC_NONE) {
			TC_GROW(t->stack, t->cap, t->depth + 1);
			t->stack[t->depth++] = d->ev;
		} else if (t->depth == 0) {
			unmatched++;
		} else {
			uint32_t ev = t->stack[--t->depth];
			m->ev.dur[ev] = d->ts - m->ev.start[ev];
			if (d->args != TC_NONE) {
				uint32_t a0 = tc_model_args_begin(m);
				copy_args(m, m->ev.args[ev]);
				copy_args(m, d->args);
				m->ev.args[ev] = tc_model_args_end(m, a0);
			}
		}
	}
	if (unmatched) {
		tc_model_warn(m, unmatched, "perfetto: slice ends without a matching begin "
			"were dropped");
	}
}

/* ---- TrackEvent ---- */

/* Add an event and keep the earliest start as stored (the model clamps),
 * so build_model needs no pass of its own to find the origin. */
static uint32_t add_event(struct st *s, uint32_t k, uint32_t op, int64_t ps, int64_t dur,
		uint8_t flags) {
	uint32_t ev = tc_model_add_event(s->m, k, op, ps, dur, flags);
	int64_t v = s->m->ev.start[ev];
	if (!s->any_ev || v < s->first_ps) {
		s->first_ps = v;
		s->any_ev = true;
	}
	return ev;
}

/* A TrackEvent's fields. Only the head, up to name, is cleared for each
 * event (a few stores, where clearing it all took a dozen a packet); the
 * rest is read only under its flag. */
struct tev {
	uint32_t type;
	bool has_name, name_inline, has_cat_iid, cat_inline, has_track, has_cv, cv_double,
		has_corr, has_abs_us, has_delta_us, has_legacy;
	uint64_t name_iid;      /* 0 when absent: legacy async tracks use it */
	uint32_t name, cat;
	uint64_t cat_iid, track, cv, corr;
	int64_t abs_us, delta_us;
	const uint8_t *legacy;
	size_t legacy_len;
};

static bool legacy_event(struct st *s, struct tev *e, uint64_t *dur_us, int *phase,
		uint64_t *id, bool *has_id) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, e->legacy, e->legacy_len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt != TC_PB_VARINT) {
			continue;
		}
		switch (f.num) {
		case 1:
			e->has_name = true;
			e->name_iid = f.u;
			e->name_inline = false;
			break;
		case 2: *phase = (int)f.u; break;
		case 3: *dur_us = f.u; break;
		case 6: case 10: case 11: *id = f.u; *has_id = true; break;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "LegacyEvent");
	}
	return true;
}

static bool track_event(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		bool has_ts, int64_t ps) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	struct tev e;
	memset(&e, 0, offsetof(struct tev, name));
	s->x_uuids.n = s->x_vals.n = s->xd_uuids.n = s->xd_vals.n = 0;
	s->flows.n = s->tflows.n = 0;
	s->n_annos = 0;
	bool bad_flow = false;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = next_field(&r, &f)) > 0) {
		switch (f.num) {
		case 9: e.type = (uint32_t)f.u; break;
		case 10:
			e.has_name = true;
			e.name_iid = f.u;
			break;
		case 23:
			if (f.wt == TC_PB_LEN) {
				e.has_name = e.name_inline = true;
				e.name = str_id(s, f.data, f.len);
			}
			break;
		case 3:
			/* The model keeps one category: the first. */
			if (!e.has_cat_iid && !e.cat_inline) {
				if (f.wt == TC_PB_VARINT) {
					e.has_cat_iid = true;
					e.cat_iid = f.u;
				} else if (f.wt == TC_PB_LEN) {
					const uint8_t *cp = f.data;
					e.has_cat_iid = tc_pb_varint(&cp, f.data + f.len,
						&e.cat_iid);
				}
			}
			break;
		case 22:
			if (f.wt == TC_PB_LEN && !e.cat_inline) {
				e.cat_inline = true;
				e.has_cat_iid = false;
				e.cat = str_id(s, f.data, f.len);
			}
			break;
		case 11:
			e.has_track = true;
			e.track = f.u;
			break;
		case 30:
			e.has_cv = true;
			e.cv = f.u;
			e.cv_double = false;
			break;
		case 44:
			e.has_cv = true;
			e.cv = f.u;
			e.cv_double = true;
			break;
		case 31: parse_u64_list(&f, &s->x_uuids, false); break;
		case 12: parse_u64_list(&f, &s->x_vals, false); break;
		case 45: parse_u64_list(&f, &s->xd_uuids, false); break;
		case 46: parse_u64_list(&f, &s->xd_vals, true); break;
		case 47:
		case 48:
			if (f.wt == TC_PB_VARINT) {
				bad_flow = true;
			} else {
				parse_u64_list(&f, f.num == 47 ? &s->flows : &s->tflows, true);
			}
			break;
		case 36: parse_u64_list(&f, &s->flows, false); break;
		case 42: parse_u64_list(&f, &s->tflows, false); break;
		case 4:
			if (f.wt == TC_PB_LEN) {
				if (s->n_annos == s->cap_annos) {
					size_t c = s->cap_annos;
					TC_GROW(s->annos, c, s->n_annos + 1);
					TC_GROW(s->anno_len, s->cap_anno_len, s->n_annos + 1);
					s->cap_annos = c;
				}
				s->annos[s->n_annos] = f.data;
				s->anno_len[s->n_annos++] = f.len;
			}
			break;
		case 52:
			e.has_corr = true;
			e.corr = f.u;
			break;
		case 16:
			e.has_abs_us = true;
			e.abs_us = (int64_t)f.u;
			break;
		case 1:
			e.has_delta_us = true;
			e.delta_us = (int64_t)f.u;
			break;
		case 6:
			if (f.wt == TC_PB_LEN) {
				e.has_legacy = true;
				e.legacy = f.data;
				e.legacy_len = f.len;
			}
			break;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "TrackEvent");
	}
	if (bad_flow) {
		tc_model_warn(s->m, 1, "perfetto: flow ids with a varint wire type were ignored");
	}

	/* Legacy timestamps (old Chrome): microseconds on the trace clock. */
	if (!has_ts && (e.has_abs_us || e.has_delta_us)) {
		if (e.has_abs_us) {
			q->legacy_ts_us = e.abs_us;
		} else {
			q->legacy_ts_us = wrap_add(q->legacy_ts_us, e.delta_us);
		}
		if (!ns_to_ps(s, wrap_mul(q->legacy_ts_us, 1000), &ps)) {
			return true;
		}
		has_ts = true;
	}
	if (!has_ts) {
		tc_model_warn(s->m, 1, "perfetto: track events without a timestamp were dropped");
		return true;
	}

	/* Which track. */
	uint32_t k;
	uint64_t uuid = e.has_track ? e.track : (q->has_def_track ? q->def_track : 0);
	if (uuid) {
		k = trk_cached(s, uuid);
	} else if (q->legacy_trk != TC_NONE) {
		k = q->legacy_trk;
	} else {
		k = trk_get(s, 0);
	}

	/* Legacy events map onto the phases tracectl knows. */
	uint64_t dur_us = 0, async_id = 0;
	int phase = 0;
	bool has_id = false;
	if (e.has_legacy && !legacy_event(s, &e, &dur_us, &phase, &async_id, &has_id)) {
		return false;
	}

	/* Extra counter values ride on any event type. */
	if (s->x_vals.n) {
		extra_samples(s, q, ps, s->x_uuids.n ? &s->x_uuids : &q->def_extra,
			&s->x_vals, false);
	}
	if (s->xd_vals.n) {
		extra_samples(s, q, ps, s->xd_uuids.n ? &s->xd_uuids : &q->def_extra_d,
			&s->xd_vals, true);
	}

	uint32_t type = e.type;
	if (type == 0 && e.has_legacy) {
		switch (phase) {
		case 'B': type = 1; break;
		case 'E': type = 2; break;
		case 'X': type = 1; break;
		case 'i': case 'I': case 'R': case 'n': type = 3; break;
		case 'b': case 'e': case 'S': case 'F':
			if (has_id) {
				k = trk_get(s, pseudo_uuid(2, async_id, e.name_iid));
				struct trk *at = &s->trks[k];
				at->flags |= TRK_SYNTH;
				at->src = (int64_t)async_id;
				if (!at->name && itab_get(&q->it[IT_NAME], e.name_iid, &at->name)) {
					/* async tracks are named after their first event */
				}
				type = phase == 'b' || phase == 'S' ? 1 : 2;
			}
			break;
		}
	}
	if (type == 4) {
		if (!e.has_cv) {
			tc_model_warn(s->m, 1, "perfetto: counter events without a value "
				"were dropped");
			return true;
		}
		double v = e.cv_double ? tc_pb_double(e.cv) : (double)(int64_t)e.cv;
		add_sample(s, q, k, ps, v);
		return true;
	}
	if (type < 1 || type > 3) {
		tc_model_warn(s->m, 1, "perfetto: track events of an unsupported type "
			"were skipped");
		return true;
	}
	struct trk *t = &s->trks[k];
	if (type == 2) {
		if (deferred(s, q, k, true)) {
			defer_push(s, k, ps, TC_NONE);
			if (s->n_annos) {
				uint32_t a0 = tc_model_args_begin(s->m);
				if (!add_annos(s, q)) {
					return false;
				}
				s->defer[s->n_defer - 1].args = tc_model_args_end(s->m, a0);
			}
			if (s->flows.n || s->tflows.n) {
				tc_model_warn(s->m, 1, "perfetto: flows on slice ends of tracks "
					"written out of order were dropped");
			}
			return true;
		}
		if (t->depth == 0) {
			tc_model_warn(s->m, 1, "perfetto: slice ends without a matching begin "
				"were dropped");
			return true;
		}
		uint32_t ev = t->stack[--t->depth];
		if (s->n_annos && !merge_end_args(s, q, ev)) {
			return false;
		}
		s->m->ev.dur[ev] = ps - s->m->ev.start[ev];
		if (s->m->ev.dur[ev] < 0) {
			s->m->ev.dur[ev] = 0;
			s->m->ev.flags[ev] |= TC_EV_CLAMPED;
			s->m->n_negative_dur++;
		}
		if (s->flows.n || s->tflows.n) {
			bind_flows(s, ev);
		}
		return true;
	}

	/* Name and category. */
	uint32_t name = 0, cat = 0;
	if (e.has_name && !e.name_inline) {
		if (!itab_get(&q->it[IT_NAME], e.name_iid, &name)) {
			tc_model_warn(s->m, 1, "perfetto: event names with an unknown iid were "
				"shown as \"<unknown>\"");
			name = tc_model_intern(s->m, "<unknown>");
		}
	} else if (e.name_inline) {
		name = e.name;
	}
	if (e.cat_inline) {
		cat = e.cat;
	} else if (e.has_cat_iid) {
		itab_get(&q->it[IT_CAT], e.cat_iid, &cat);
	}
	/* Unnamed tracks with no thread/process (legacy async ids, bare
	 * descriptors) take their first event's name, as trace_processor does. */
	if (!t->name && t->uuid != 0 &&
			!(t->flags & (TRK_THREAD | TRK_PROCESS | TRK_COUNTER))) {
		t->name = name;
	}
	uint32_t op = op_for(s, name, cat);
	uint8_t flags = type == 3 ? TC_EV_INSTANT : 0;
	int64_t dur = 0;
	if (phase == 'X') {
		/* Past the model's bound the model sets 0 and warns, as it does
		 * for every format; this keeps the product from overflowing. */
		dur = dur_us <= (uint64_t)TC_MAX_DUR_PS / 1000000 ?
			(int64_t)dur_us * 1000000 : TC_MAX_DUR_PS + 1;
	}
	uint32_t ev = add_event(s, k, op, ps, dur, flags);
	t = &s->trks[k];
	t->nev++;
	bool step = s->m->ops[op].kind == TC_OP_STEP;
	if (s->n_annos || step || e.has_corr) {
		uint32_t a0 = tc_model_args_begin(s->m);
		if (!add_annos(s, q)) {
			return false;
		}
		if (e.has_corr) {
			tc_model_arg_uint(s->m, s->m->key.correlation, e.corr);
		}
		if (step) {
			/* The number is in the name: parse it once per op. */
			uint32_t *sp = map_find(&s->step_of_op, op);
			if (!sp) {
				struct tc_class c;
				op_class(s->m, name, cat, false, &c);
				sp = map_put(&s->step_of_op, op, (uint32_t)(c.step < 0 ? 0 : c.step));
			}
			tc_model_arg_int(s->m, s->m->key.step, *sp);
		}
		s->m->ev.args[ev] = tc_model_args_end(s->m, a0);
	}
	if (type == 1 && phase != 'X') {
		if (deferred(s, q, k, false)) {
			defer_push(s, k, ps, ev);
		} else {
			t = &s->trks[k];
			TC_GROW(t->stack, t->cap, t->depth + 1);
			t->stack[t->depth++] = ev;
		}
	}
	if (phase == 'X') {
		/* As stored: both within the model's bounds, so no overflow. */
		int64_t end = s->m->ev.start[ev] + s->m->ev.dur[ev];
		if (end > s->last_ps) {
			s->last_ps = end;
		}
	}
	if (s->flows.n || s->tflows.n) {
		bind_flows(s, ev);
	}
	return true;
}

/* ---- GPU packets ---- */

static bool gpu_render_stage(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		int64_t ps) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint64_t dur = 0, hw_iid = 0, stage_iid = 0, kernel_iid = 0;
	int64_t hw_id = -1, gpu_id = 0;
	uint32_t name = 0;
	bool has_name = false;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case 2: dur = f.u; break;
		case 13: hw_iid = f.u; break;
		case 14: stage_iid = f.u; break;
		case 19: kernel_iid = f.u; break;
		case 11: gpu_id = (int32_t)f.u; break;
		case 3: hw_id = (int32_t)f.u; break;
		case 17:
			if (f.wt == TC_PB_LEN) {
				name = str_id(s, f.data, f.len);
				has_name = true;
			}
			break;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "GpuRenderStageEvent");
	}
	uint32_t sid;
	if (!has_name && kernel_iid && itab_get(&q->it[IT_KERNEL], kernel_iid, &sid)) {
		name = sid;
		has_name = true;
	}
	if (!has_name && stage_iid && itab_get(&q->it[IT_GPUSPEC], stage_iid, &sid)) {
		name = sid;
		has_name = true;
	}
	if (!has_name) {
		name = tc_model_intern(s->m, "render stage");
	}
	uint32_t qname = 0;
	if (hw_iid && itab_get(&q->it[IT_GPUSPEC], hw_iid, &sid)) {
		qname = sid;
	} else {
		char buf[48];
		snprintf(buf, sizeof(buf), "queue %" PRId64, hw_iid ? (int64_t)hw_iid : hw_id);
		qname = tc_model_intern(s->m, buf);
	}
	uint32_t k = trk_get(s, pseudo_uuid(3, (uint64_t)gpu_id, qname));
	struct trk *t = &s->trks[k];
	t->flags |= TRK_GPU;
	t->gpu_id = (int32_t)gpu_id;
	t->name = qname;
	t->src = hw_iid ? (int64_t)hw_iid : hw_id;
	t->nev++;
	uint32_t op = class_op(s->m, name, 0, true);
	uint64_t maxd = (uint64_t)INT64_MAX / 2000;
	add_event(s, k, op, ps, (int64_t)(dur < maxd ? dur : maxd) * 1000,
		dur ? 0 : TC_EV_INSTANT);
	if (dur < maxd && ps + (int64_t)dur * 1000 > s->last_ps) {
		s->last_ps = ps + (int64_t)dur * 1000;
	}
	return true;
}

static bool gpu_counter_specs(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num != 1 || f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t id = 0;
		uint32_t name = 0;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == 1 && g.wt == TC_PB_VARINT) {
				id = g.u;
			} else if (g.num == 2 && g.wt == TC_PB_LEN) {
				name = str_id(s, g.data, g.len);
			}
		}
		if (rv2 < 0) {
			return pb_fail(s, &e, "GpuCounterSpec");
		}
		map_put(&q->gpu_ctr, id, name);
	}
	if (rv < 0) {
		return pb_fail(s, &r, "GpuCounterDescriptor");
	}
	return true;
}

static bool gpu_counter(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		int64_t ps) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	int64_t gpu_id = 0;
	/* gpu_id may follow the counters: find it first. */
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == 3 && f.wt == TC_PB_VARINT) {
			gpu_id = (int32_t)f.u;
		} else if (f.num == 1 && f.wt == TC_PB_LEN &&
				!gpu_counter_specs(s, q, f.data, f.len)) {
			return false;
		}
	}
	if (rv < 0) {
		return pb_fail(s, &r, "GpuCounterEvent");
	}
	tc_pb_init(&r, s->base, p, len);
	while (tc_pb_next(&r, &f) > 0) {
		if (f.num != 2 || f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t id = 0, v = 0;
		bool dbl = false, has_v = false;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == 1) {
				id = g.u;
			} else if (g.num == 2) {
				v = g.u;
				has_v = true;
			} else if (g.num == 3) {
				v = g.u;
				dbl = has_v = true;
			}
		}
		if (rv2 < 0) {
			return pb_fail(s, &e, "GpuCounter");
		}
		if (!has_v) {
			continue;
		}
		uint32_t *np = map_find(&q->gpu_ctr, id);
		uint32_t name;
		if (np) {
			name = *np;
		} else {
			char buf[48];
			snprintf(buf, sizeof(buf), "gpu counter %" PRIu64, id);
			name = tc_model_intern(s->m, buf);
		}
		uint32_t k = trk_get(s, pseudo_uuid(4, (uint64_t)gpu_id, id));
		struct trk *t = &s->trks[k];
		t->flags |= TRK_GPU | TRK_COUNTER;
		t->gpu_id = (int32_t)gpu_id;
		t->name = name;
		add_sample(s, q, k, ps, dbl ? tc_pb_double(v) : (double)(int64_t)v);
	}
	return true;
}

/* ---- packets: the model half ---- */

/* A TracePacket's own fields. */
struct pkt {
	bool has_ts, has_clock, cleared;
	uint64_t ts;
	uint32_t clock, seq_id, flags, dropped, kind;
	const uint8_t *interned, *defaults, *data;
	size_t interned_len, defaults_len, data_len;
};

static int packet_fields(struct tc_pb *r, const uint8_t *base, const uint8_t *p, size_t len,
		struct pkt *k) {
	struct tc_pb_field f = { 0 };
	int rv;
	*k = (struct pkt){ 0 };
	tc_pb_init(r, base, p, len);
	while ((rv = next_field(r, &f)) > 0) {
		switch (f.num) {
		case 8:
			if (f.wt == TC_PB_VARINT) {
				k->has_ts = true;
				k->ts = f.u;
			}
			break;
		case 58:
			k->has_clock = true;
			k->clock = (uint32_t)f.u;
			break;
		case 10: k->seq_id = (uint32_t)f.u; break;
		case 13: k->flags = (uint32_t)f.u; break;
		case 41: k->cleared = f.u != 0; break;
		case 42: k->dropped = (uint32_t)f.u; break;
		case 12:
			if (f.wt == TC_PB_LEN) {
				k->interned = f.data;
				k->interned_len = f.len;
			}
			break;
		case 59:
			if (f.wt == TC_PB_LEN) {
				k->defaults = f.data;
				k->defaults_len = f.len;
			}
			break;
		case 6: case 11: case 43: case 44: case 50: case 52: case 53: case 60: case 133:
			if (f.wt == TC_PB_LEN) {
				k->kind = f.num;
				k->data = f.data;
				k->data_len = f.len;
			}
			break;
		}
	}
	return rv;
}

/* Hand consumed pages back every 16 MiB. */
static void release(struct st *s, uint64_t off) {
	if (s->in && off - s->released >= (16u << 20)) {
		tc_input_release(s->in, (size_t)off);
		s->released = off;
	}
}

/* The model half of one packet (or a bundle's bound), in file order. */
static bool apply(struct st *s, const struct prec *r) {
	switch (r->kind) {
	case PR_BUNDLE_BEGIN:
		if (s->bundle_depth++ == 0) {
			s->pkt_off = prec_off(s->base, r);
		}
		return true;
	case PR_BUNDLE_END:
		s->bundle_depth--;
		free((void *)r->p);
		return true;
	}
	if (s->bundle_depth == 0) {
		s->pkt_off = prec_off(s->base, r);
		release(s, s->pkt_off);
	}
	const uint8_t *data = r->p;
	size_t data_len = r->len;
	uint32_t kind = r->kind;
	struct pkt k;
	bool full = r->flags & PF_FULL;
	if (full) {
		/* The packet half decoded it whole: this cannot fail. */
		struct tc_pb pb;
		packet_fields(&pb, s->base, data, data_len, &k);
		data = k.data;
		data_len = k.data_len;
		kind = k.kind;
	}
	struct seq *q = seq_get(s, r->seq_id);
	if (r->flags & PF_RESET) {
		seq_reset(q);
	}
	if (r->warn & PW_DROPPED) {
		tc_model_warn(s->m, 1, "perfetto: the writer reported lost packets "
			"(previous_packet_dropped); the timeline has gaps");
	}
	if (r->warn & PW_NEEDS_STATE) {
		tc_model_warn(s->m, 1, "perfetto: packets that need incremental state "
			"the trace lost were skipped");
		return true;
	}
	if (full && k.defaults && !parse_defaults(s, q, k.defaults, k.defaults_len)) {
		return false;
	}
	if (full && k.interned && !parse_interned(s, q, k.interned, k.interned_len)) {
		return false;
	}
	if ((r->flags & PF_STOP) || kind == 6) {
		return true;
	}
	if (r->warn & PW_NO_SNAPSHOT) {
		tc_model_warn(s->m, 1, "perfetto: no clock snapshot; "
			"builtin clocks were taken as the trace clock");
	}
	if (r->warn & PW_NO_PATH) {
		tc_model_warn(s->m, 1, "perfetto: packets whose clock has no path to the "
			"trace clock were dropped");
		return true;
	}
	int64_t ps = 0;
	bool ts_ok = false;
	if (r->flags & PF_TS) {
		if (!ns_to_ps(s, r->ns, &ps)) {
			return true;
		}
		ts_ok = true;
	}
	switch (kind) {
	case 11:
		return track_event(s, q, data, data_len, ts_ok, ps);
	case 60:
		return parse_track_desc(s, data, data_len);
	case 43: {
		struct trk tmp = { 0 };
		uint32_t pname = 0;
		if (!parse_process(s, &tmp, data, data_len, &pname)) {
			return false;
		}
		proc_set(s, tmp.pid, pname);
		return true;
	}
	case 44: {
		struct trk tmp = { 0 };
		uint32_t tname = 0;
		int64_t ref = 0;
		if (!parse_thread(s, &tmp, data, data_len, &tname, &ref)) {
			return false;
		}
		uint32_t tk = trk_get(s, pseudo_uuid(1, (uint64_t)tmp.pid, (uint64_t)tmp.tid));
		struct trk *t = &s->trks[tk];
		t->flags |= TRK_THREAD | TRK_DESC;
		t->pid = tmp.pid;
		t->tid = tmp.tid;
		if (tname) {
			t->name = tname;
		}
		q->legacy_trk = tk;
		q->legacy_ts_us = ref;
		proc_set(s, tmp.pid, 0);
		return true;
	}
	case 52:
		if (ts_ok) {
			return gpu_counter(s, q, data, data_len, ps);
		}
		return true;
	case 53:
		if (ts_ok) {
			return gpu_render_stage(s, q, data, data_len, ps);
		}
		return true;
	}
	return true;
}

/* ---- packets: the pipeline between the halves ---- */

#define PP_RECS 32768           /* records a block, at most */
#define PP_BLOCKS 8             /* blocks in flight */
#define PP_MIN_FILE (8u << 20)  /* smaller files read in line */

struct ppipe {
	struct prec *blk;       /* PP_BLOCKS * recs */
	size_t recs;            /* records a block */
	size_t n;               /* records in the block being filled */
	uint64_t produced, consumed; /* blocks; under lock */
	atomic_bool stop;       /* the model half failed: stop walking */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct pre *b;
	const uint8_t *buf;
	size_t len;
	struct tc_error err;    /* the packet half's */
};

/* Publish the block being filled; unless it is the last, wait for a free
 * one. The model half stops at PR_END, so a block's count is not passed. */
static void pp_publish(struct ppipe *pp, bool last) {
	pthread_mutex_lock(&pp->lock);
	pp->produced++;
	pthread_cond_broadcast(&pp->cv);
	while (!last && pp->produced - pp->consumed >= PP_BLOCKS) {
		pthread_cond_wait(&pp->cv, &pp->lock);
	}
	pthread_mutex_unlock(&pp->lock);
	pp->n = 0;
}

/* Plain stores: a block is written one ring (8 MiB) after the model half
 * read it, long out of that core's L2, so taking its lines back is cheap.
 * Records streamed past the cache (non-temporal stores) made the model
 * half fetch each from memory: reads 2-8 % slower. A ring that fits in L2
 * is the case for streaming: a 1 MiB ring measured 1.57 s against 1.37 s
 * (bench/README, tried and dropped). */
static void pp_push(struct ppipe *pp, const struct prec *r) {
	pp->blk[(pp->produced % PP_BLOCKS) * pp->recs + pp->n++] = *r;
	if (pp->n == pp->recs) {
		pp_publish(pp, false);
	}
}

/*
 * Hand a record to the model half: run it in line, or queue it. False once
 * the model half has failed; the records still go through (a bundle's end
 * frees its buffer).
 */
static bool emit(struct pre *b, const struct prec *r) {
	if (!b->pipe) {
		return apply(b->a, r);
	}
	pp_push(b->pipe, r);
	return !atomic_load_explicit(&b->pipe->stop, memory_order_relaxed);
}

/* ---- packets: the packet half ---- */

static bool walk_packets(struct pre *b, const uint8_t *buf, size_t len, bool top);

/* compressed_packets (deflate) or zstd_compressed_packets: inner packets. */
static bool bundle(struct pre *b, const uint8_t *p, size_t len, bool zstd) {
	if (b->bundle_depth >= MAX_BUNDLE_NESTING) {
		return pre_fail_at(b, 0, "compressed packets nested too deep", "");
	}
	uint8_t *out = NULL;
	size_t out_len = 0;
	uint64_t cap = b->lim->max_input;
	if (cap > (uint64_t)len * b->lim->max_ratio + (64u << 20)) {
		cap = (uint64_t)len * b->lim->max_ratio + (64u << 20);
	}
	struct tc_error e;
	tc_error_init(&e);
	if (!(zstd ? tc_unzstd(p, len, (size_t)cap, &out, &out_len, &e) :
			tc_inflate(p, len, 15 + 32, (size_t)cap, &out, &out_len, &e))) {
		/* The cap is one of two limits: name the option that raises it. */
		if (e.code == TC_EXIT_LIMIT) {
			tc_error_set(b->err, TC_EXIT_LIMIT, "perfetto: compressed packets "
				"inflate past %llu bytes (raise it with %s)",
				(unsigned long long)cap,
				cap == b->lim->max_input ? "--max-input-size" : "--max-ratio");
		} else {
			tc_error_set(b->err, e.code, "%s", e.msg);
		}
		return tc_error_at(b->err, (int64_t)b->pkt_off);
	}
	b->inflated += out_len;
	if (b->inflated > b->lim->max_input) {
		free(out);
		tc_error_set(b->err, TC_EXIT_LIMIT, "perfetto: compressed packets inflate "
			"past %llu bytes (raise it with --max-input-size)",
			(unsigned long long)b->lim->max_input);
		return tc_error_at(b->err, (int64_t)b->pkt_off);
	}
	/* The model half reads the inner packets after this returns (when
	 * pipelined) and frees the buffer at the bundle's end record. */
	struct prec r = { .kind = PR_BUNDLE_BEGIN, .p = b->base + b->pkt_off };
	bool ok = emit(b, &r);
	b->bundle_depth++;
	ok = ok && walk_packets(b, out, out_len, false);
	b->bundle_depth--;
	r = (struct prec){ .kind = PR_BUNDLE_END, .p = out };
	emit(b, &r);
	return ok;
}

/*
 * The packet half failed past interning (e says how). The model half still
 * gets the packet, to do (and perhaps fail at) what comes first in file
 * order; e stands only if that passes.
 */
static bool stop(struct pre *b, struct prec *r, const struct tc_error *e) {
	r->flags |= PF_STOP;
	emit(b, r);
	if (!b->err->code) {
		*b->err = *e;
	}
	return false;
}

/* The packet half of one packet. */
static bool packet(struct pre *b, const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct pkt k;
	if (packet_fields(&pb, b->base, p, len, &k) < 0) {
		return pre_pb_fail(b, &pb, "TracePacket");
	}
	if (k.kind == 50 || k.kind == 133) {
		return bundle(b, k.data, k.data_len, k.kind == 133);
	}
	struct prec r = {
		.p = k.data, .len = (uint32_t)k.data_len, .seq_id = k.seq_id,
		.kind = (uint8_t)k.kind,
	};
	if (k.interned || k.defaults) {
		r.p = p;
		r.len = (uint32_t)len;
		r.flags |= PF_FULL;
	}
	/* Inside a bundle the model half keeps the bundle's offset. */
	r.back = b->bundle_depth ? 0 : (uint32_t)(r.p - (b->base + b->pkt_off));
	struct pseq *q = pseq_get(b, k.seq_id);
	if ((k.flags & SEQ_CLEARED) || k.cleared) {
		q->valid = true;
		q->has_def_clock = false;
		r.flags |= PF_RESET;
	} else if (k.dropped) {
		q->valid = false;
	}
	if (k.dropped) {
		r.warn |= PW_DROPPED;
	}
	if ((k.flags & SEQ_NEEDS_STATE) && !q->valid) {
		r.warn |= PW_NEEDS_STATE;
		return emit(b, &r);
	}
	if (k.defaults || k.kind == 6) {
		struct tc_error e, *keep = b->err;
		tc_error_init(&e);
		b->err = &e;
		bool ok = !k.defaults || defaults_clock(b, q, k.defaults, k.defaults_len);
		if (ok && k.kind == 6) {
			parse_snapshot(b, q, k.data, k.data_len, &ok);
		}
		b->err = keep;
		if (!ok) {
			return stop(b, &r, &e);
		}
		if (k.kind == 6) {
			return emit(b, &r);
		}
	}
	if (k.has_ts) {
		uint32_t c = k.has_clock ? k.clock : q->has_def_clock ? q->def_clock :
			PF_CLOCK_BOOTTIME;
		if (to_trace_ns(b, q, c, k.ts, &r.ns, &r.warn)) {
			r.flags |= PF_TS;
		} else {
			r.warn |= PW_NO_PATH;
		}
	}
	return emit(b, &r);
}

/*
 * Make the top-level view (which ends at *end) hold the n bytes at p, or
 * reach the input's end; *end moves with it. False when reading the input
 * failed.
 */
static bool reach_more(struct pre *b, const uint8_t *buf, const uint8_t **end,
		const uint8_t *p, uint64_t n) {
	uint64_t at = (uint64_t)(p - buf);
	/* A length past what any input may hold waits for the end (the view
	 * stops at the size cap). */
	uint64_t want = n < SIZE_MAX - at ? at + n : SIZE_MAX;
	size_t avail;
	if (!tc_input_need(b->in, (size_t)want, &avail, &b->all, b->err)) {
		return false;
	}
	*end = buf + avail;
	return true;
}

static inline bool reach(struct pre *b, const uint8_t *buf, const uint8_t **end,
		const uint8_t *p, uint64_t n) {
	return b->all || n <= (uint64_t)(*end - p) || reach_more(b, buf, end, p, n);
}

/*
 * Walk `0x0a len packet` records. At top level other fields are skipped (as
 * trace_processor does); inside a bundle anything else is an error. The top
 * level may be a view that grows: each packet is waited for whole.
 */
static bool walk_packets(struct pre *b, const uint8_t *buf, size_t len, bool top) {
	const uint8_t *p = buf, *end = buf + len;
	for (;;) {
		/* A tag and a length, or a tag and a fixed-width value, fit in 20
		 * bytes. */
		if (top && !reach(b, buf, &end, p, 20)) {
			return false;
		}
		if (p >= end) {
			break;
		}
		const uint8_t *start = p;
		if (top) {
			b->pkt_off = (uint64_t)(start - buf);
		}
		uint64_t key, n;
		if (!tc_pb_varint(&p, end, &key)) {
			return pre_fail_at(b, start - buf,
				"truncated field tag between packets", "");
		}
		uint32_t wt = key & 7;
		if (key == 0x0a) {
			if (!tc_pb_varint(&p, end, &n)) {
				return pre_fail_at(b, start - buf,
					"truncated packet length", "");
			}
			if (top && !reach(b, buf, &end, p, n)) {
				return false;
			}
			if (n > (uint64_t)(end - p)) {
				return pre_fail_at(b, start - buf,
					"packet length runs past the end of the file",
					top ? "" : " (inside compressed packets)");
			}
			if (n > PKT_MAX) {
				return pre_fail_at(b, start - buf,
					"packets over 4 GiB are not supported",
					top ? "" : " (inside compressed packets)");
			}
			if (n && !packet(b, p, (size_t)n)) {
				return false;
			}
			p += n;
			continue;
		}
		if (!top || (key >> 3) == 0) {
			return pre_fail_at(b, start - buf,
				"expected a TracePacket (tag 0x0a)",
				top ? "" : " inside compressed packets");
		}
		/* Skip a foreign top-level field. */
		if (wt == TC_PB_VARINT) {
			if (!tc_pb_varint(&p, end, &n)) {
				return pre_fail_at(b, start - buf, "truncated varint", "");
			}
		} else if (wt == TC_PB_LEN) {
			bool got = tc_pb_varint(&p, end, &n);
			if (got && top && !reach(b, buf, &end, p, n)) {
				return false;
			}
			if (!got || n > (uint64_t)(end - p)) {
				return pre_fail_at(b, start - buf,
					"field length runs past the end of the file", "");
			}
			p += n;
		} else if (wt == TC_PB_I64 || wt == TC_PB_I32) {
			size_t w = wt == TC_PB_I64 ? 8 : 4;
			if ((size_t)(end - p) < w) {
				return pre_fail_at(b, start - buf,
					"truncated fixed-width field", "");
			}
			p += w;
		} else {
			return pre_fail_at(b, start - buf,
				"unsupported wire type between packets", "");
		}
	}
	return true;
}

static void *pp_main(void *arg) {
	struct ppipe *pp = arg;
	bool ok = walk_packets(pp->b, pp->buf, pp->len, true);
	struct prec r = { .kind = PR_END, .flags = ok ? 0 : PF_STOP };
	pp_push(pp, &r);
	if (pp->n) {
		pp_publish(pp, true);
	}
	return NULL;
}

/*
 * Both halves on their own threads; *started false when no thread could
 * be made (nothing was read then). The model half runs here, on the
 * caller's thread, and drains the queue to its end even after a failure
 * (bundle buffers are freed by their end records).
 */
static bool walk_pipelined(struct pre *b, struct st *s, const uint8_t *buf, size_t len,
		bool *started) {
	struct ppipe *pp = tc_xcalloc(1, sizeof(*pp));
	/* A packet takes 2 bytes or more: small inputs (tests) get small blocks.
	 * A view still growing may be any size. */
	size_t most = b->all ? len / 2 / PP_BLOCKS + 4 : PP_RECS;
	pp->recs = most < PP_RECS ? most : PP_RECS;
	pp->blk = tc_xmalloc(PP_BLOCKS * pp->recs * sizeof(*pp->blk));
	pp->b = b;
	pp->buf = buf;
	pp->len = len;
	atomic_init(&pp->stop, false);
	pthread_mutex_init(&pp->lock, NULL);
	pthread_cond_init(&pp->cv, NULL);
	tc_error_init(&pp->err);
	b->pipe = pp;
	b->err = &pp->err;
	pthread_t th;
	*started = pthread_create(&th, NULL, pp_main, pp) == 0;
	bool ok = true, end = false;
	for (uint64_t k = 0; *started && !end; k++) {
		pthread_mutex_lock(&pp->lock);
		while (pp->produced == k) {
			pthread_cond_wait(&pp->cv, &pp->lock);
		}
		pthread_mutex_unlock(&pp->lock);
		/* A local: pp->recs shares its line with pp->n, which the packet
		 * half writes every record. */
		size_t recs = pp->recs;
		const struct prec *blk = pp->blk + (k % PP_BLOCKS) * recs;
		for (size_t i = 0; i < recs && !end; i++) {
			const struct prec *r = &blk[i];
			__builtin_prefetch(r + 12);
			if (r->kind == PR_END) {
				end = true;
				if (ok && (r->flags & PF_STOP)) {
					*s->err = pp->err;
					ok = false;
				}
			} else if (ok) {
				if (!apply(s, r)) {
					ok = false;
					atomic_store(&pp->stop, true);
				}
			} else if (r->kind == PR_BUNDLE_END) {
				free((void *)r->p);
			}
		}
		pthread_mutex_lock(&pp->lock);
		pp->consumed = k + 1;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->lock);
	}
	if (*started) {
		pthread_join(th, NULL);
	}
	pthread_mutex_destroy(&pp->lock);
	pthread_cond_destroy(&pp->cv);
	free(pp->blk);
	free(pp);
	b->pipe = NULL;
	b->err = s->err;
	return ok;
}

/* ---- building the model ---- */

struct assoc {
	int kind;      /* 0 none, 1 process, 2 thread */
	int64_t pid, tid;
	uint32_t thread_trk;
};

/* The process/thread a track belongs to: its own descriptor or the nearest
 * ancestor's (a child of a thread track is that thread's sibling). */
static struct assoc trk_assoc(struct st *s, uint32_t k) {
	struct assoc a = { .thread_trk = TC_NONE };
	for (size_t steps = 0; steps <= s->n_trks; steps++) {
		const struct trk *t = &s->trks[k];
		if (t->flags & TRK_THREAD) {
			a.kind = 2;
			a.pid = t->pid;
			a.tid = t->tid;
			a.thread_trk = k;
			return a;
		}
		if (t->flags & TRK_PROCESS) {
			a.kind = 1;
			a.pid = t->pid;
			return a;
		}
		if (!t->parent_uuid) {
			return a;
		}
		uint32_t *p = map_find(&s->trk_by_uuid, t->parent_uuid);
		if (!p) {
			return a;
		}
		k = *p;
	}
	return a; /* a parent cycle: treat as unassociated */
}

struct builder {
	struct map proc_dev;   /* pid -> device */
	struct map gpu_dev;    /* gpu ordinal + 1 -> device */
	struct map thread_trk; /* pseudo(pid, tid) -> model track */
	uint32_t other_dev;
};

static uint32_t proc_device(struct st *s, struct builder *b, int64_t pid) {
	uint32_t *p = map_find(&b->proc_dev, (uint64_t)pid);
	if (p) {
		return *p;
	}
	uint32_t *np = map_find(&s->procs.by_pid, (uint64_t)pid);
	uint32_t pname = np ? s->procs.v[*np].name : 0;
	char buf[64];
	const char *nm = pname ? tc_model_str(s->m, pname) : NULL;
	uint32_t name;
	if (nm && *nm) {
		name = tc_model_intern(s->m, tc_arena_strfmt(&s->m->arena, "%s (pid %" PRId64 ")",
			nm, pid));
	} else {
		snprintf(buf, sizeof(buf), "pid %" PRId64, pid);
		name = tc_model_intern(s->m, buf);
	}
	uint32_t d = tc_model_add_device(s->m, name, TC_DEV_CPU);
	s->m->devices[d].src_id = pid;
	map_put(&b->proc_dev, (uint64_t)pid, d);
	return d;
}

static uint32_t gpu_device(struct st *s, struct builder *b, int64_t ordinal) {
	uint32_t *p = map_find(&b->gpu_dev, (uint64_t)(ordinal + 1));
	if (p) {
		return *p;
	}
	char buf[48];
	if (ordinal >= 0) {
		snprintf(buf, sizeof(buf), "GPU %" PRId64, ordinal);
	} else {
		snprintf(buf, sizeof(buf), "GPU");
	}
	uint32_t d = tc_model_add_device(s->m, tc_model_intern(s->m, buf), TC_DEV_GPU);
	s->m->devices[d].ordinal = (int32_t)ordinal;
	s->m->devices[d].src_id = ordinal;
	map_put(&b->gpu_dev, (uint64_t)(ordinal + 1), d);
	return d;
}

static uint32_t other_device(struct st *s, struct builder *b) {
	if (b->other_dev == TC_NONE) {
		b->other_dev = tc_model_add_device(s->m,
			tc_model_intern(s->m, "Perfetto tracks"), TC_DEV_OTHER);
	}
	return b->other_dev;
}

/* A custom track that is GPU device work, by its own name; -2 if not, else
 * the ordinal after "GPU" (-1 none). */
static int64_t gpu_ordinal(const char *name) {
	if (!contains_ci(name, "gpu") && !contains_ci(name, "stream") &&
			!contains_ci(name, "render stage")) {
		return -2;
	}
	for (const char *p = name; *p; p++) {
		if ((p[0] | 0x20) == 'g' && (p[1] | 0x20) == 'p' && (p[2] | 0x20) == 'u') {
			const char *d = p + 3;
			while (*d == ' ' || *d == ':' || *d == '#') {
				d++;
			}
			if (*d >= '0' && *d <= '9') {
				return strtoll(d, NULL, 10);
			}
		}
	}
	return -1;
}

static uint32_t trk_name(struct st *s, const struct trk *t) {
	if (t->name) {
		return t->name;
	}
	char buf[64];
	if (t->flags & TRK_THREAD) {
		snprintf(buf, sizeof(buf), "thread %" PRId64, t->tid);
	} else if (t->flags & TRK_PROCESS) {
		uint32_t *np = map_find(&s->procs.by_pid, (uint64_t)t->pid);
		if (np && s->procs.v[*np].name) {
			return s->procs.v[*np].name;
		}
		snprintf(buf, sizeof(buf), "process %" PRId64, t->pid);
	} else if (t->uuid == 0) {
		return s->s_global;
	} else if (t->ctr_type == 1) {
		return s->s_thread_time;
	} else if (t->ctr_type == 2) {
		return s->s_instr;
	} else {
		snprintf(buf, sizeof(buf), "track %" PRIu64, t->uuid);
	}
	return tc_model_intern(s->m, buf);
}

static uint32_t build_track(struct st *s, struct builder *b, uint32_t k) {
	struct trk *t = &s->trks[k];
	if (t->mtrack != TC_NONE) {
		return t->mtrack;
	}
	if (!(t->flags & (TRK_DESC | TRK_GPU | TRK_SYNTH | TRK_UNKNOWN_WARNED)) &&
			t->uuid != 0) {
		t->flags |= TRK_UNKNOWN_WARNED;
		tc_model_warn(s->m, 1, "perfetto: events on track uuids with no descriptor "
			"were put on tracks of their own");
	}
	uint32_t name = trk_name(s, t);
	t = &s->trks[k];
	uint32_t mt;
	if (t->flags & TRK_GPU) {
		mt = tc_model_add_track(s->m, gpu_device(s, b, t->gpu_id), name,
			TC_TRACK_STREAM, t->src);
		t = &s->trks[k];
		t->mtrack = mt;
		return mt;
	}
	struct assoc a = trk_assoc(s, k);
	if (a.kind == 2 && a.thread_trk == k) {
		uint64_t key = pseudo_uuid(1, (uint64_t)a.pid, (uint64_t)a.tid);
		uint32_t *p = map_find(&b->thread_trk, key);
		if (p) {
			mt = *p;
			/* A later descriptor may carry the thread name. */
			if (t->name && s->m->tracks[mt].name != t->name) {
				s->m->tracks[mt].name = t->name;
			}
		} else {
			mt = tc_model_add_track(s->m, proc_device(s, b, a.pid), name,
				TC_TRACK_HOST_THREAD, a.tid);
			map_put(&b->thread_trk, key, mt);
		}
		s->trks[k].mtrack = mt;
		return mt;
	}
	int64_t ord = (t->flags & (TRK_THREAD | TRK_PROCESS)) ? -2 :
		gpu_ordinal(tc_model_str(s->m, name));
	uint32_t dev;
	enum tc_track_kind kind = TC_TRACK_OTHER;
	if (ord != -2) {
		dev = gpu_device(s, b, ord);
		kind = TC_TRACK_STREAM;
		s->trks[k].flags |= TRK_GPU;
	} else if (a.kind) {
		dev = proc_device(s, b, a.pid);
	} else {
		dev = other_device(s, b);
	}
	mt = tc_model_add_track(s->m, dev, name, kind, (s->trks[k].flags & TRK_SYNTH) ?
		s->trks[k].src : (int64_t)s->trks[k].uuid);
	s->trks[k].mtrack = mt;
	/* Keep the parent chain (parents get tracks of their own). */
	uint64_t pu = s->trks[k].parent_uuid;
	if (pu && kind != TC_TRACK_STREAM &&
			!(s->trks[k].flags & (TRK_THREAD | TRK_PROCESS))) {
		uint32_t *pp = map_find(&s->trk_by_uuid, pu);
		/* A process parent is the device itself. */
		if (pp && *pp != k &&
				!(s->trks[*pp].flags & (TRK_COUNTER | TRK_PROCESS))) {
			/* Mark before recursing so a cycle stops here. */
			uint32_t parent = build_track(s, b, *pp);
			s->m->tracks[mt].parent = parent;
		}
	}
	return mt;
}

static uint32_t build_counter(struct st *s, struct builder *b, uint32_t k) {
	struct trk *t = &s->trks[k];
	if (t->mctr != TC_NONE) {
		return t->mctr;
	}
	uint32_t name = trk_name(s, t);
	uint32_t dev = TC_NONE, group = 0;
	t = &s->trks[k];
	if (t->flags & TRK_GPU) {
		dev = gpu_device(s, b, t->gpu_id);
	} else {
		struct assoc a = trk_assoc(s, k);
		if (a.kind) {
			dev = proc_device(s, b, a.pid);
		}
		if (a.kind == 2) {
			group = trk_name(s, &s->trks[a.thread_trk]);
		}
	}
	t = &s->trks[k];
	t->mctr = tc_model_counter(s->m, dev, name, t->unit, group);
	return t->mctr;
}

static void build_model(struct st *s) {
	struct tc_model *m = s->m;
	struct builder b = { .other_dev = TC_NONE };

	pair_deferred(s);
	/* Unfinished slices end at the last timestamp of the trace. */
	size_t unfinished = 0;
	for (size_t k = 0; k < s->n_trks; k++) {
		struct trk *t = &s->trks[k];
		while (t->depth) {
			uint32_t ev = t->stack[--t->depth];
			m->ev.dur[ev] = s->last_ps - m->ev.start[ev];
			m->ev.flags[ev] |= TC_EV_UNFINISHED;
			unfinished++;
		}
	}
	if (unfinished) {
		tc_model_warn(m, unfinished, "perfetto: slices that never ended were closed "
			"at the end of the trace");
	}

	/* Tracks with events, in the order their descriptors came. */
	for (size_t k = 0; k < s->n_trks; k++) {
		struct trk *t = &s->trks[k];
		if (!t->nev) {
			continue;
		}
		build_track(s, &b, (uint32_t)k);
	}

	/* ps 0 = the earliest event or sample. */
	bool any = s->any_ev;
	int64_t lo = s->first_ps;
	for (size_t i = s->smp0; i < m->samples.n; i++) {
		if (!any || m->samples.ts[i] < lo) {
			lo = m->samples.ts[i];
			any = true;
		}
	}
	if (!any) {
		lo = 0;
	}

	/* Events, in one pass: internal track record -> model track,
	 * device-work ops, times from the origin. */
	for (size_t i = s->ev0; i < m->ev.n; i++) {
		uint32_t k = m->ev.track[i];
		const struct trk *t = &s->trks[k];
		uint32_t mt = t->mtrack != TC_NONE ? t->mtrack : build_track(s, &b, k);
		m->ev.track[i] = mt;
		m->ev.start[i] -= lo;
		if (s->trks[k].flags & TRK_GPU) {
			uint32_t op = m->ev.op[i];
			uint32_t *p = map_find(&s->dev_op, op);
			if (!p) {
				const struct tc_op *o = &m->ops[op];
				uint32_t nop = class_op(m, o->name, o->category, true);
				p = map_put(&s->dev_op, op, nop);
			}
			m->ev.op[i] = *p;
		}
	}
	for (size_t i = s->smp0; i < m->samples.n; i++) {
		m->samples.counter[i] = build_counter(s, &b, m->samples.counter[i]);
		m->samples.ts[i] -= lo;
	}
	if (any) {
		m->origin_ns = s->base_ns + lo / 1000;
		m->origin_epoch = false;
	}

	/* Flows point from the earlier event to the later one. */
	for (size_t i = s->flow0; i < m->n_flows; i++) {
		struct tc_flow *fl = &m->flows[i];
		if (m->ev.start[fl->from] > m->ev.start[fl->to]) {
			uint32_t t = fl->from;
			fl->from = fl->to;
			fl->to = t;
		}
		if (m->ops[m->ev.op[fl->from]].kind == TC_OP_RUNTIME &&
				tc_track_kind_is_device_work(m->tracks[m->ev.track[fl->to]].kind)) {
			fl->kind = TC_FLOW_LAUNCH;
		}
	}
	map_finish(&b.proc_dev);
	map_finish(&b.gpu_dev);
	map_finish(&b.thread_trk);
}

static void pre_finish(struct pre *b) {
	free(b->seqs);
	for (size_t i = 0; i < b->n_clks; i++) {
		free(b->clks[i].hops);
		free(b->clks[i].hint);
	}
	free(b->clks);
	for (size_t i = 0; i < b->n_pairs; i++) {
		free(b->pairs[i].v);
	}
	free(b->pairs);
	map_finish(&b->sx.by_id);
	map_finish(&b->clk_by_key);
	map_finish(&b->pair_by_key);
}

static void st_finish(struct st *s) {
	for (size_t i = 0; i < s->sx.n; i++) {
		struct seq *q = &s->seqs[i];
		for (int t = 0; t < IT_COUNT; t++) {
			free(q->it[t].v);
			map_finish(&q->it[t].big);
		}
		free(q->def_extra.v);
		free(q->def_extra_d.v);
		map_finish(&q->gpu_ctr);
	}
	free(s->seqs);
	for (size_t i = 0; i < s->n_trks; i++) {
		free(s->trks[i].stack);
	}
	free(s->trks);
	free(s->accums);
	free(s->procs.v);
	free(s->defer);
	struct map *maps[] = {
		&s->sx.by_id, &s->trk_by_uuid, &s->accum_by_key, &s->procs.by_pid,
		&s->flow_last, &s->op_cache, &s->dev_op, &s->step_of_op,
	};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		map_finish(maps[i]);
	}
	struct u64vec *vecs[] = {
		&s->x_uuids, &s->x_vals, &s->xd_uuids, &s->xd_vals, &s->flows, &s->tflows,
	};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		free(vecs[i]->v);
	}
	free(s->annos);
	free(s->anno_len);
	free(s->txt);
}

/*
 * Expected wire type of the TracePacket fields the sniffer knows; 0xff for
 * fields it does not. A first packet whose known fields all have the right
 * type and include one numbered 7 or more is Perfetto. XSpace's XPlane uses
 * only fields 1..6 (1 id varint, 2 name, 3 lines, ...), and TracePacket's 1
 * and 2 are LEN, so an XPlane never passes.
 */
static int packet_field_type(uint32_t num) {
	switch (num) {
	case 3: case 8: case 10: case 13: case 41: case 42: case 58: case 79: case 87:
	case 98:
		return TC_PB_VARINT;
	case 1: case 2: case 6: case 7: case 9: case 11: case 12: case 33: case 35:
	case 36: case 43: case 44: case 45: case 50: case 52: case 53: case 59: case 60:
	case 69: case 133:
		return TC_PB_LEN;
	default:
		return 0xff;
	}
}

static int sniff(const uint8_t *head, size_t len) {
	const uint8_t *p = head, *end = head + len;
	uint64_t n;
	if (len < 2 || head[0] != 0x0a) {
		return 0;
	}
	p++;
	if (!tc_pb_varint(&p, end, &n) || n == 0) {
		return 0;
	}
	size_t avail = (size_t)(end - p) < n ? (size_t)(end - p) : (size_t)n;
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	tc_pb_init(&r, head, p, avail);
	int known = 0, high = 0, rv;
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		int want = packet_field_type(f.num);
		if (want == 0xff) {
			continue;
		}
		if (want != f.wt) {
			return 0;
		}
		known++;
		if (f.num >= 7) {
			high++;
		}
	}
	/* A packet cut by the end of the head may fail on its last field: judge
	 * that field by its tag. */
	if (rv < 0) {
		const uint8_t *t = r.at;
		uint64_t key;
		if ((size_t)n <= avail || !tc_pb_varint(&t, r.end, &key)) {
			return 0;
		}
		int want = packet_field_type((uint32_t)(key >> 3));
		if (want != 0xff && want != (int)(key & 7)) {
			return 0;
		}
		if (want != 0xff) {
			known++;
			high += (key >> 3) >= 7;
		}
	}
	if (!high) {
		return 0; /* only fields 1..6: XSpace-shaped, leave it to the xplane reader */
	}
	return known >= 2 ? 90 : 70;
}

static bool read_perfetto(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	/* Compressed input and pipes are read (on a helper thread where a core
	 * is spare) while the packets are walked. */
	const uint8_t *data;
	size_t size;
	bool all;
	if (!tc_input_view(in, lim->reader_thread != 0, &data, &size, &all, err)) {
		return false;
	}
	/* Pipelining pays from PP_MIN_FILE bytes: see whether there are that
	 * many. A read that fails before is reported by the walk when it gets
	 * there: a broken packet earlier in the bytes is the error. */
	if (!all && lim->reader_thread && lim->reader_thread != TC_READER_THREAD_ALWAYS) {
		struct tc_error later;
		tc_error_init(&later);
		(void)tc_input_need(in, PP_MIN_FILE, &size, &all, &later);
	}
	struct st s = {
		.m = m, .lim = lim, .err = err, .in = in, .base = data,
		.ev0 = m->ev.n, .smp0 = m->samples.n, .flow0 = m->n_flows,
	};
	struct pre b = {
		.lim = lim, .err = err, .base = data, .trace_clock = PF_CLOCK_BOOTTIME, .a = &s,
		.in = in, .all = all,
	};
	s.s_thread_time = tc_model_intern(m, "thread time");
	s.s_instr = tc_model_intern(m, "thread instruction count");
	s.s_ns = tc_model_intern(m, "ns");
	s.s_bytes = tc_model_intern(m, "bytes");
	s.s_count = tc_model_intern(m, "count");
	s.s_global = tc_model_intern(m, "global");
	bool ok, started = false;
	if (lim->reader_thread == TC_READER_THREAD_ALWAYS ||
			(lim->reader_thread && size >= PP_MIN_FILE)) {
		ok = walk_pipelined(&b, &s, data, size, &started);
	}
	if (!started) {
		ok = walk_packets(&b, data, size, true);
	}
	tc_input_stop(in);
	if (ok) {
		build_model(&s);
	}
	pre_finish(&b);
	st_finish(&s);
	return ok;
}

const struct tc_reader tc_reader_perfetto = {
	.name = "perfetto",
	.description = "Perfetto",
	.sniff = sniff,
	.read = read_perfetto,
};
