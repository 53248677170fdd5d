/*
 * Perfetto protobuf trace reader (TrackEvent subset, see
 * proto/perfetto_trace_min.proto and the project's perfetto reference).
 *
 * The file is a flat run of `0x0a len TracePacket` records. Packets are walked
 * in place with util/pbwire (no protobuf-c tree: TracePacket, TrackEvent and
 * interned data are the hot messages; protobuf-c unpacks only the cold
 * ClockSnapshot, defaults and descriptors) and mapped pages are released as
 * the walk goes. Per-sequence state
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
#ifndef TC_INGEST_PERFETTO_PRIVATE_H
#define TC_INGEST_PERFETTO_PRIVATE_H

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingest/ingest.h"
#include "model/classify.h"
#include "util/inflate.h"
#include "util/pbwire.h"
#include "util/strbuf.h"
#include "util/u64map.h"
#include "util/utf8.h"
#include "util/xalloc.h"

struct pre;
struct prec;
struct pseq;
struct seq;
struct st;
struct trk;
struct u64vec;

/* perfetto_read.c */
bool tc_perfetto_pb_fail(struct st *s, const struct tc_pb *r, const char *what);
bool tc_perfetto_pre_fail_at(struct pre *b, int64_t off, const char *msg, const char *detail);
bool tc_perfetto_pre_pb_fail(struct pre *b, const struct tc_pb *r, const char *what);

/* clock.c */
void tc_perfetto_parse_snapshot(struct pre *s, struct pseq *q, const uint8_t *p, size_t len,
		bool *ok);
bool tc_perfetto_clk_convert(struct pre *s, uint32_t c, int64_t v, int64_t *out);
bool tc_perfetto_clk_lookup(struct pre *s, struct pseq *q, uint32_t clock_id, uint64_t ts,
		uint32_t *c, int64_t *out, uint16_t *warn);

/* descriptors.c */
bool tc_perfetto_parse_interned(struct st *s, struct seq *q, const uint8_t *p, size_t len);
void tc_perfetto_parse_u64_list(const struct tc_pb_field *f, struct u64vec *out, bool fixed);
bool tc_perfetto_parse_defaults(struct st *s, struct seq *q, const uint8_t *p, size_t len);
bool tc_perfetto_defaults_clock(struct pre *b, struct pseq *q, const uint8_t *p, size_t len);
bool tc_perfetto_parse_process(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *pname);
bool tc_perfetto_parse_thread(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *tname, int64_t *ref_us);
void tc_perfetto_proc_set(struct st *s, int64_t pid, uint32_t name);
bool tc_perfetto_parse_track_desc(struct st *s, const uint8_t *p, size_t len);

/* track_event.c */
bool tc_perfetto_contains_ci(const char *s, const char *needle);
uint32_t tc_perfetto_class_op(struct tc_model *m, uint32_t name, uint32_t cat, bool device);
void tc_perfetto_pair_deferred(struct st *s);
bool tc_perfetto_apply(struct st *s, const struct prec *r);

/* pipeline.c */
bool tc_perfetto_walk_packets(struct pre *b, const uint8_t *buf, size_t len, bool top);
bool tc_perfetto_walk_pipelined(struct pre *b, struct st *s, const uint8_t *buf, size_t len,
		bool *started);

/* build.c */
void tc_perfetto_build_model(struct st *s);

#define PF_CLOCK_BOOTTIME 6
#define SEQ_CLEARED 1
#define SEQ_NEEDS_STATE 2
#define MAX_BUNDLE_NESTING 4
#define OP_CACHE 1024
#define TRK_CACHE 256
#define PP_MIN_FILE (8u << 20)  /* smaller files are read without the pipeline */

/*
 * Field numbers of the messages read here, as in
 * proto/perfetto_trace_min.proto (and upstream perfetto for the TracePacket
 * fields that only sniffing names).
 */
enum pf_packet_field {           /* TracePacket */
	PKT_FTRACE_EVENTS = 1,
	PKT_PROCESS_TREE = 2,
	PKT_TRUSTED_UID = 3,
	PKT_CLOCK_SNAPSHOT = 6,
	PKT_SYS_STATS = 7,
	PKT_TIMESTAMP = 8,
	PKT_PROCESS_STATS = 9,
	PKT_SEQUENCE_ID = 10,    /* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_TRACE_CONFIG = 33,
	PKT_TRACE_STATS = 35,
	PKT_SYNC_MARKER = 36,
	PKT_STATE_CLEARED = 41,  /* incremental_state_cleared */
	PKT_PREVIOUS_DROPPED = 42,
	PKT_PROCESS_DESCRIPTOR = 43,
	PKT_THREAD_DESCRIPTOR = 44,
	PKT_SYSTEM_INFO = 45,
	PKT_COMPRESSED_PACKETS = 50,
	PKT_GPU_COUNTER_EVENT = 52,
	PKT_GPU_RENDER_STAGE_EVENT = 53,
	PKT_TIMESTAMP_CLOCK_ID = 58,
	PKT_DEFAULTS = 59,       /* trace_packet_defaults */
	PKT_TRACK_DESCRIPTOR = 60,
	PKT_SERVICE_EVENT = 69,
	PKT_TRUSTED_PID = 79,
	PKT_FIRST_ON_SEQUENCE = 87,
	PKT_MACHINE_ID = 98,
	PKT_ZSTD_COMPRESSED_PACKETS = 133,
};

enum pf_defaults_field {         /* TracePacketDefaults, TrackEventDefaults */
	DEF_TRACK_EVENT_DEFAULTS = 11,
	DEF_TIMESTAMP_CLOCK_ID = 58,
	TED_TRACK_UUID = 11,
	TED_EXTRA_COUNTER_UUIDS = 31,
	TED_EXTRA_DOUBLE_COUNTER_UUIDS = 45,
};

enum pf_clock_field {            /* ClockSnapshot, ClockSnapshot.Clock */
	CS_CLOCKS = 1,
	CS_PRIMARY_TRACE_CLOCK = 2,
	CLK_ID = 1,
	CLK_TIMESTAMP = 2,
	CLK_IS_INCREMENTAL = 3,
	CLK_UNIT_MULTIPLIER_NS = 4,
};

enum pf_interned_field {         /* InternedData, and each entry of it */
	ID_EVENT_CATEGORIES = 1,
	ID_EVENT_NAMES = 2,
	ID_DEBUG_ANNOTATION_NAMES = 3,
	ID_GPU_SPECIFICATIONS = 24,
	ID_DEBUG_ANNOTATION_STRINGS = 29,
	ID_COMPUTE_KERNELS = 1000,
	ENTRY_IID = 1,
	ENTRY_NAME = 2,          /* name, or str in InternedString */
};

enum pf_descriptor_field {       /* Process/Thread/Counter/TrackDescriptor */
	PD_PID = 1,
	PD_CMDLINE = 2,
	PD_PROCESS_NAME = 6,
	TD_PID = 1,
	TD_TID = 2,
	TD_THREAD_NAME = 5,
	TD_REFERENCE_TIMESTAMP_US = 6,
	CD_TYPE = 1,
	CD_UNIT = 3,
	CD_UNIT_MULTIPLIER = 4,
	CD_IS_INCREMENTAL = 5,
	CD_UNIT_NAME = 6,
	TRD_UUID = 1,
	TRD_NAME = 2,
	TRD_PROCESS = 3,
	TRD_THREAD = 4,
	TRD_PARENT_UUID = 5,
	TRD_CHROME_PROCESS = 6,
	TRD_COUNTER = 8,
	TRD_STATIC_NAME = 10,
	TRD_ATRACE_NAME = 13,
};

/* CounterDescriptor's BuiltinCounterType and Unit values. */
enum pf_counter_enum {
	CD_TYPE_THREAD_TIME_NS = 1,
	CD_TYPE_THREAD_INSTRUCTION_COUNT = 2,
	CD_UNIT_TIME_NS = 1,
	CD_UNIT_COUNT = 2,
	CD_UNIT_SIZE_BYTES = 3,
};

enum pf_annotation_field {       /* DebugAnnotation */
	DA_NAME_IID = 1,
	DA_BOOL_VALUE = 2,
	DA_UINT_VALUE = 3,
	DA_INT_VALUE = 4,
	DA_DOUBLE_VALUE = 5,
	DA_STRING_VALUE = 6,
	DA_POINTER_VALUE = 7,
	DA_NESTED_VALUE = 8,
	DA_LEGACY_JSON_VALUE = 9,
	DA_NAME = 10,
	DA_DICT_ENTRIES = 11,
	DA_ARRAY_VALUES = 12,
	DA_PROTO_VALUE = 14,
	DA_STRING_VALUE_IID = 17,
};

enum pf_track_event_field {      /* TrackEvent */
	TE_TIMESTAMP_DELTA_US = 1,
	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_LEGACY_EVENT = 6,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_EXTRA_COUNTER_VALUES = 12,
	TE_TIMESTAMP_ABSOLUTE_US = 16,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_COUNTER_VALUE = 30,
	TE_EXTRA_COUNTER_UUIDS = 31,
	TE_FLOW_IDS_OLD = 36,
	TE_TERMINATING_FLOW_IDS_OLD = 42,
	TE_DOUBLE_COUNTER_VALUE = 44,
	TE_EXTRA_DOUBLE_COUNTER_UUIDS = 45,
	TE_EXTRA_DOUBLE_COUNTER_VALUES = 46,
	TE_FLOW_IDS = 47,
	TE_TERMINATING_FLOW_IDS = 48,
	TE_CORRELATION_ID = 52,
};

enum pf_legacy_field {           /* TrackEvent.LegacyEvent */
	LE_NAME_IID = 1,
	LE_PHASE = 2,
	LE_DURATION_US = 3,
	LE_UNSCOPED_ID = 6,
	LE_LOCAL_ID = 10,
	LE_GLOBAL_ID = 11,
};

enum pf_gpu_field {              /* GpuRenderStageEvent, GpuCounterEvent */
	RS_DURATION = 2,
	RS_HW_QUEUE_ID = 3,
	RS_GPU_ID = 11,
	RS_HW_QUEUE_IID = 13,
	RS_STAGE_IID = 14,
	RS_NAME = 17,
	RS_KERNEL_IID = 19,
	GC_COUNTER_DESCRIPTOR = 1,
	GC_COUNTERS = 2,
	GC_GPU_ID = 3,
	GCD_SPECS = 1,           /* GpuCounterDescriptor */
	GCS_COUNTER_ID = 1,      /* GpuCounterDescriptor.GpuCounterSpec */
	GCS_NAME = 2,
	GCV_COUNTER_ID = 1,      /* GpuCounterEvent.GpuCounter */
	GCV_INT_VALUE = 2,
	GCV_DOUBLE_VALUE = 3,
};

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
	struct tc_u64map big;
};

static inline void itab_set(struct itab *t, uint64_t iid, uint32_t sid) {
	if (iid < ITAB_DENSE) {
		if (iid >= t->cap) {
			size_t old = t->cap;
			TC_GROW(t->v, t->cap, (size_t)iid + 1);
			memset(t->v + old, 0, (t->cap - old) * sizeof(*t->v));
		}
		t->v[iid] = sid + 1;
	} else {
		tc_u64map_put(&t->big, iid, sid + 1);
	}
}

static inline bool itab_get(const struct itab *t, uint64_t iid, uint32_t *sid) {
	uint32_t v = 0;
	if (iid < t->cap) {
		v = t->v[iid];
	} else if (iid >= ITAB_DENSE) {
		const uint32_t *p = tc_u64map_find(&t->big, iid);
		v = p ? *p : 0;
	}
	if (!v) {
		return false;
	}
	*sid = v - 1;
	return true;
}

static inline void itab_clear(struct itab *t) {
	if (t->cap) {
		memset(t->v, 0, t->cap * sizeof(*t->v));
	}
	tc_u64map_reset(&t->big);
}

/* ---- state ---- */

struct u64vec {
	uint64_t *v;
	size_t n, cap;
};

static inline void u64_push(struct u64vec *a, uint64_t x) {
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
	struct tc_u64map gpu_ctr;  /* gpu counter_id -> name sid */
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
	struct tc_u64map by_pid;
	struct proc_name *v;
	size_t n, cap;
};

/* Sequence id -> index in a half's table, with the last lookup cached. */
struct seqidx {
	struct tc_u64map by_id;
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
	struct tc_u64map trk_by_uuid;

	struct tc_u64map accum_by_key;
	struct accum *accums;
	size_t n_accums, cap_accums;

	struct procs procs;
	struct dslice *defer;
	size_t n_defer, cap_defer;
	struct tc_u64map flow_last;   /* flow id -> last event, TC_NONE when terminated */
	struct tc_u64map op_cache;    /* (name << 32 | category) -> op */
	uint64_t opc_key[OP_CACHE]; /* key + 1, 0 = empty */
	uint64_t trc_key[TRK_CACHE];
	uint32_t trc_val[TRK_CACHE]; /* trk + 1, 0 = empty */
	uint32_t opc_val[OP_CACHE];
	struct tc_u64map dev_op;      /* op -> device-work op */
	struct tc_u64map step_of_op;  /* step op -> its step number */

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
	struct tc_strbuf txt;

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
	struct tc_u64map clk_by_key;
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	struct tc_u64map pair_by_key;
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

/* ---- strings ---- */

static inline uint32_t str_id(struct st *s, const uint8_t *p, size_t n) {
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
	uint32_t *p = tc_u64map_find(&x->by_id, id);
	uint32_t k;
	if (p) {
		k = *p;
	} else {
		k = x->n++;
		tc_u64map_put(&x->by_id, id, k);
		*fresh = true;
	}
	x->last_id = id;
	x->last = k;
	return k;
}

static inline struct seq *seq_get(struct st *s, uint32_t id) {
	bool fresh;
	uint32_t k = seq_index(&s->sx, id, &fresh);
	if (fresh) {
		TC_GROW(s->seqs, s->cap_seqs, (size_t)k + 1);
		s->seqs[k] = (struct seq){ .id = id, .legacy_trk = TC_NONE };
	}
	return &s->seqs[k];
}

static inline struct pseq *pseq_get(struct pre *b, uint32_t id) {
	bool fresh;
	uint32_t k = seq_index(&b->sx, id, &fresh);
	if (fresh) {
		TC_GROW(b->seqs, b->cap_seqs, (size_t)k + 1);
		b->seqs[k] = (struct pseq){ .id = id, .last_clk = TC_NONE };
	}
	return &b->seqs[k];
}

static inline void seq_reset(struct seq *q) {
	q->gen++;
	for (int i = 0; i < IT_COUNT; i++) {
		itab_clear(&q->it[i]);
	}
	q->has_def_track = false;
	q->def_extra.n = 0;
	q->def_extra_d.n = 0;
	tc_u64map_reset(&q->gpu_ctr);
}

/* ---- track records ---- */

static inline uint32_t trk_get(struct st *s, uint64_t uuid) {
	uint32_t *p = tc_u64map_find(&s->trk_by_uuid, uuid);
	if (p) {
		return *p;
	}
	TC_GROW(s->trks, s->cap_trks, s->n_trks + 1);
	uint32_t k = (uint32_t)s->n_trks++;
	s->trks[k] = (struct trk){
		.uuid = uuid, .mult = 1, .gpu_id = -1,
		.mtrack = TC_NONE, .mctr = TC_NONE, .seq = TC_NONE,
	};
	tc_u64map_put(&s->trk_by_uuid, uuid, k);
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
static inline uint64_t pseudo_uuid(uint64_t space, uint64_t a, uint64_t b) {
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x7f4a7c15ull) * 0xC2B2AE3D27D4EB4Full;
	return (space << 60) | (h >> 4);
}

/* Clock ids 64..127 are the sequence's own: keyed with it. */
static inline uint64_t clock_key(uint32_t seq_id, uint64_t id) {
	if (id >= 64 && id < 128) {
		return ((uint64_t)seq_id << 32) | id;
	}
	return id;
}

/* Trace-clock ns to ps from the reading base; false if out of range. */
static inline bool ns_to_ps(struct st *s, int64_t ns, int64_t *ps) {
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

/* Packet timestamp (in clock_id units) to trace-clock ns. */
static inline bool to_trace_ns(struct pre *s, struct pseq *q, uint32_t clock_id, uint64_t ts,
		int64_t *out, uint16_t *warn) {
	uint32_t c = q->last_clk;
	if (c == TC_NONE || q->last_clock_key != clock_key(q->id, clock_id)) {
		if (!tc_perfetto_clk_lookup(s, q, clock_id, ts, &c, out, warn)) {
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
	return tc_perfetto_clk_convert(s, c, v, out);
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

static inline int packet_fields(struct tc_pb *r, const uint8_t *base, const uint8_t *p, size_t len,
		struct pkt *k) {
	struct tc_pb_field f = { 0 };
	int rv;
	*k = (struct pkt){ 0 };
	tc_pb_init(r, base, p, len);
	while ((rv = next_field(r, &f)) > 0) {
		switch (f.num) {
		case PKT_TIMESTAMP:
			if (f.wt == TC_PB_VARINT) {
				k->has_ts = true;
				k->ts = f.u;
			}
			break;
		case PKT_TIMESTAMP_CLOCK_ID:
			k->has_clock = true;
			k->clock = (uint32_t)f.u;
			break;
		case PKT_SEQUENCE_ID: k->seq_id = (uint32_t)f.u; break;
		case PKT_SEQUENCE_FLAGS: k->flags = (uint32_t)f.u; break;
		case PKT_STATE_CLEARED: k->cleared = f.u != 0; break;
		case PKT_PREVIOUS_DROPPED: k->dropped = (uint32_t)f.u; break;
		case PKT_INTERNED_DATA:
			if (f.wt == TC_PB_LEN) {
				k->interned = f.data;
				k->interned_len = f.len;
			}
			break;
		case PKT_DEFAULTS:
			if (f.wt == TC_PB_LEN) {
				k->defaults = f.data;
				k->defaults_len = f.len;
			}
			break;
		case PKT_CLOCK_SNAPSHOT: case PKT_TRACK_EVENT: case PKT_PROCESS_DESCRIPTOR:
		case PKT_THREAD_DESCRIPTOR: case PKT_COMPRESSED_PACKETS: case PKT_GPU_COUNTER_EVENT:
		case PKT_GPU_RENDER_STAGE_EVENT: case PKT_TRACK_DESCRIPTOR:
		case PKT_ZSTD_COMPRESSED_PACKETS:
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
static inline void release(struct st *s, uint64_t off) {
	if (s->in && off - s->released >= (16u << 20)) {
		tc_input_release(s->in, (size_t)off);
		s->released = off;
	}
}
#endif
