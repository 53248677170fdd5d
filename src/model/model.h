#ifndef TC_MODEL_MODEL_H
#define TC_MODEL_MODEL_H

/*
 * The one in-memory trace model every reader fills and every analysis and
 * writer reads. Nothing here knows an input format.
 *
 * Time: int64 picoseconds relative to origin_ns (an absolute time in ns when
 * the source gives one, e.g. epoch or profiler clock). Epoch ns × 1000 would
 * overflow int64, hence the split.
 *
 * Ownership: the model owns everything reachable from it. Strings are
 * interned (uint32 ids into m->strings) and live in m->arena; the big columns
 * are malloc'd arrays grown geometrically (no per-event malloc). Destroying
 * the model is one call. Pointers into the arrays are invalidated by any
 * tc_model_add_* call; hold indexes, not pointers, while ingesting.
 *
 * Lifecycle: create → readers add (any order) → tc_model_finalize() → read.
 * After finalize, each track's events are contiguous and sorted by start
 * (longer first on ties, so parents precede children), depth is set, and
 * counter samples are contiguous per counter.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/intern.h"

#define TC_NONE UINT32_MAX

enum tc_device_kind {
	TC_DEV_OTHER = 0,
	TC_DEV_CPU,   /* a host process / host plane */
	TC_DEV_GPU,
	TC_DEV_TPU,
	TC_DEV_ACCEL, /* other accelerators (MTIA, custom planes) */
};

enum tc_track_kind {
	TC_TRACK_OTHER = 0,
	TC_TRACK_OPS,         /* device op line (XLA Ops): counts as device busy */
	TC_TRACK_STREAM,      /* GPU stream / queue: counts as device busy */
	TC_TRACK_STEPS,       /* step markers */
	TC_TRACK_MODULES,     /* XLA modules / programs enclosing ops */
	TC_TRACK_HOST_THREAD, /* an OS thread */
	TC_TRACK_ANNOTATION,  /* user annotations projected onto a device */
	TC_TRACK_DERIVED,     /* duplicates device activity (name scopes, framework ops) */
	TC_TRACK_COUNTER,     /* holds no slices; counters may point at it */
};

/* What an op is: model/classify.c decides from the name, the category and
 * the place the reader reports (docs/analysis.md, "Classification"). */
enum tc_op_kind {
	TC_OP_OTHER = 0,
	TC_OP_KERNEL,       /* device compute */
	TC_OP_MEMCPY_H2D,
	TC_OP_MEMCPY_D2H,
	TC_OP_MEMCPY_D2D,
	TC_OP_MEMCPY_OTHER, /* peer-to-peer or direction unknown */
	TC_OP_MEMSET,
	TC_OP_COLLECTIVE,   /* communication on the device (NCCL/RCCL kernels, all-reduce ops) */
	TC_OP_HOST_OP,      /* framework op on the host (aten::, TF op) */
	TC_OP_RUNTIME,      /* runtime/driver API call (cudaLaunchKernel, hipMemcpy) */
	TC_OP_SYNC,         /* synchronisation waits (host or device) */
	TC_OP_ANNOTATION,   /* user annotations, scopes */
	TC_OP_STEP,         /* a step marker; its arg "step" holds the number */
	TC_OP_COMPILE,      /* compilation / tracing */
	TC_OP_DATALOAD,     /* input pipeline / data loader / infeed */
	TC_OP_MODULE,       /* a device program (XLA module) enclosing ops */
	TC_OP_PYTHON,       /* python function frames */
	TC_OP_MEMORY,       /* allocation / free records */
	TC_OP_OVERHEAD,     /* profiler overhead */
	TC_OP_KIND_COUNT,
};

enum tc_event_flags {
	TC_EV_INSTANT = 1 << 0,   /* an instant (zero duration by definition) */
	TC_EV_UNFINISHED = 1 << 1, /* began but never ended in the trace; dur runs to trace end */
	TC_EV_CLAMPED = 1 << 2,   /* duration was negative/invalid in the input and set to 0 */
};

enum tc_arg_type {
	TC_ARG_INT = 0,
	TC_ARG_UINT,
	TC_ARG_DOUBLE,
	TC_ARG_STR, /* value is a string id */
	TC_ARG_BOOL,
};

/*
 * One arg, decoded. The model stores arg lists packed (see argb below);
 * readers build them with tc_model_args_begin/arg_x/args_end and callers
 * read them with tc_model_arg_next/arg_find into this struct.
 */
struct tc_arg {
	uint32_t key;  /* string id */
	uint8_t type;  /* enum tc_arg_type */
	union {
		int64_t i;
		uint64_t u;
		double d;
		uint32_t s;
	} v;
};

struct tc_source {
	uint32_t path;        /* as given */
	uint32_t format;      /* reader name, e.g. "xplane" */
	uint32_t compression; /* "none", "gzip", "zlib" */
	uint64_t file_size;   /* bytes on disk */
	uint64_t data_size;   /* decompressed bytes */
	uint32_t host;        /* host this file became, TC_NONE if none */
	uint64_t dev, ino;    /* the file's identity (output checks); 0/0 if none */
	bool truncated;       /* ends mid-trace (an interrupted writer); read up to there */
	uint32_t writer;      /* the tool that wrote it, with its version, where the file
	                       * says ("Nsight Systems 2025.1.1.110"); 0 unknown */
};

/* Where a host's rank came from, most trusted first (model/rank.h). */
enum tc_rank_from {
	TC_RANK_NONE = 0,
	TC_RANK_READER, /* the trace says (Kineto distributedInfo.rank) */
	TC_RANK_NAME,   /* "rank N" in the host name, or rank-N / workerN in the file name */
	TC_RANK_ORDER,  /* one file per host and nothing named one: the file's place */
};

struct tc_host {
	uint32_t name;
	uint32_t source;
	int32_t rank;       /* -1 unknown; set by readers and tc_model_assign_ranks */
	int32_t world_size; /* ranks in the job as the trace says, 0 unknown */
	uint8_t rank_from;  /* enum tc_rank_from */
};

struct tc_device {
	uint32_t name;       /* "/device:GPU:0", "GPU 0", "python3 (pid 123)" */
	uint8_t kind;        /* enum tc_device_kind */
	int32_t ordinal;     /* device index, -1 unknown */
	uint32_t host;       /* TC_NONE if unknown; its rank is the device's */
	int64_t src_id;      /* writer's id (plane id, pid), for export */
	int64_t pid;         /* OS process running or driving it, -1 unknown */
	uint32_t model;      /* device model name, 0 unknown */
	uint32_t vendor;     /* 0 unknown */
	double peak_flops;   /* FLOP/s, 0 unknown */
	double peak_bw;      /* bytes/s of main memory, 0 unknown */
	int64_t memory_bytes; /* capacity, 0 unknown */
	int32_t core_count;  /* SMs / CUs / cores, 0 unknown */
	int64_t clock_khz;   /* 0 unknown */
	uint32_t args;       /* other device properties, TC_NONE if none */
};

struct tc_track {
	uint32_t name;
	uint32_t device;
	uint8_t kind;        /* enum tc_track_kind */
	int64_t src_id;      /* line id / tid / stream id / track uuid */
	int32_t sort;        /* display order within the device */
	uint32_t parent;     /* enclosing track (Perfetto parent chains), TC_NONE */
	/* Set by finalize: */
	uint32_t first;      /* first event index */
	uint32_t count;      /* events on this track */
	uint16_t max_depth;
	int64_t end;         /* the latest end (start + dur) of its events, ps;
	                      * 0 without events */
};

enum tc_op_flags {
	/* The -done half of an async op (XLA "copy-done", "all-reduce-done"):
	 * it waits for work its -start half issued. Its time counts; it is not
	 * a second copy or collective. */
	TC_OPF_ASYNC_DONE = 1 << 0,
};

struct tc_op {
	uint32_t name;
	uint32_t category; /* writer's category ("kernel", hlo_category), 0 none */
	uint8_t kind;      /* enum tc_op_kind */
	uint8_t flags;     /* enum tc_op_flags, set by the reader */
	int64_t flops;     /* per execution, -1 unknown */
	int64_t bytes;     /* bytes accessed per execution, -1 unknown */
	uint32_t args;     /* op-level metadata (XEventMetadata stats), TC_NONE */
};

/* Events on one track from `first` to the next run's first. */
struct tc_track_run {
	uint32_t track;
	uint32_t first;
};

/* Events as columns: a scan of start/dur touches nothing else. */
struct tc_events {
	size_t n, cap;
	int64_t *start;  /* ps from origin */
	int64_t *dur;    /* ps, >= 0 */
	uint32_t *op;
	uint32_t *track; /* NULL while in runs and after finalize: use
	                  * tc_model_event_track, or tc_model_track_column */
	uint32_t *args;  /* offset of its arg list in argb, TC_NONE; NULL while
	                  * sparse: use tc_model_event_args */
	uint16_t *depth; /* set by finalize */
	uint8_t *flags;  /* enum tc_event_flags */
	/* While events come in long runs on one track (readers that add line
	 * by line), each run is one entry here instead of an entry per event
	 * in the track column: 4 bytes an event less at the reading peak. */
	struct tc_track_run *runs;
	size_t n_runs, cap_runs;
	uint32_t run_track; /* the last run's track */
	/* Args, sparse (args NULL) while few events have any: bit i of abits
	 * says event i has a list, at avals[arank[i / 64] + the bits below i
	 * in its word]; words from n_ranked on have no bits set. */
	uint64_t *abits;
	uint32_t *arank;
	uint32_t *avals;
	size_t n_avals, cap_avals, n_ranked;
	size_t last_aval; /* the event of the last value */
};

/* An aggregate: the writer kept only a count (XEvent.num_occurrences). */
struct tc_aggregate {
	uint32_t op;
	uint32_t track;
	int64_t count;
	int64_t dur_ps;    /* duration the writer recorded, ps */
};

struct tc_counter {
	uint32_t name;   /* "memory.allocated" */
	uint32_t device; /* owner, TC_NONE = global */
	uint32_t unit;   /* "bytes", "%", "" */
	uint32_t group;  /* e.g. allocator name; 0 none */
	/* Set by finalize: samples [first, first + count) sorted by ts. */
	size_t first, count;
};

struct tc_samples {
	size_t n, cap;
	int64_t *ts;       /* ps from origin */
	double *value;
	uint32_t *counter;
};

/*
 * One allocator record (Kineto "[memory]", xplane MemoryAllocation and
 * MemoryDeallocation): bytes > 0 allocated, < 0 freed, of the buffer at
 * addr in device's memory. Finalize sorts them by time, input order kept
 * on ties (analysis/memview.c pairs and attributes them; model/memcurve.c
 * draws the allocated-memory curve of a device that has no counter).
 */
struct tc_alloc {
	int64_t ts;      /* ps from origin */
	int64_t bytes;
	int64_t total;   /* the allocator's allocated bytes after it, -1 absent */
	uint64_t addr;
	uint32_t device; /* whose memory */
	uint32_t group;  /* allocator name (xplane "GPU_0_bfc"), 0 none */
	uint32_t track;  /* the host thread that asked, TC_NONE */
	uint32_t op;     /* op name the trace gives (xplane tf_op), TC_NONE */
	uint32_t shape;  /* string ids, TC_NONE */
	uint32_t dtype;
};

enum tc_flow_kind {
	TC_FLOW_GENERIC = 0,
	TC_FLOW_LAUNCH,  /* host launch/runtime call -> device activity */
};

struct tc_flow {
	uint32_t from, to; /* event indexes (remapped by finalize) */
	uint8_t kind;
	uint64_t id;       /* writer's flow / correlation id */
};

struct tc_warning {
	uint32_t msg;
	bool inputs; /* about which inputs were read: every command says it */
	uint64_t count;
};

/*
 * Well-known arg keys, interned at creation so readers and analyses compare
 * integers. Readers normalise writer-specific spellings onto these. The
 * first group are the keys that analyses (and readers, once written) read
 * back: with known_args_only the model keeps these and no other. An
 * analysis that starts reading a key must move it into that group.
 */
struct tc_keys {
	/* read back */
	uint32_t bytes;        /* bytes moved by a copy/memset/collective */
	uint32_t flops;        /* per-event FLOPs when the event carries them */
	uint32_t bytes_accessed;
	uint32_t correlation;  /* runtime <-> device correlation id */
	uint32_t step;         /* step number on step markers */
	uint32_t step_num;     /* step numbers on user-named markers (--step-marker) */
	uint32_t iteration;
	uint32_t hlo_module;
	uint32_t memory_kind;  /* "pageable", "pinned", "device" for copies */
	uint32_t blocks_per_sm; /* Kineto kernel "blocks per SM" (grid / SM count) */
	uint32_t occupancy;    /* Kineto kernel "est. achieved occupancy %" */
	/* Kineto/NCCL collective records (analysis/collectives.c) */
	uint32_t coll_name;    /* "Collective name": allreduce, allgather, ... */
	uint32_t pg_name;      /* "Process Group Name" */
	uint32_t pg_ranks;     /* "Process Group Ranks": "[0, 1]" */
	uint32_t seq;          /* "Seq": the collective's number in its group */
	uint32_t in_nelems;    /* "In msg nelems" */
	uint32_t out_nelems;   /* "Out msg nelems" */
	uint32_t dtype;        /* "dtype": Float, BFloat16, ... */
	uint32_t group_size;   /* "Group size" */
	/* device args: the architecture the peaks table matches by */
	uint32_t compute_major; /* "computeMajor" */
	uint32_t compute_minor; /* "computeMinor" */
	/* written for export only */
	uint32_t external_id;  /* framework op <-> runtime/device */
	uint32_t stream;
	uint32_t group_id;
	uint32_t hlo_op;
	uint32_t tf_op;
	uint32_t long_name;
	uint32_t collective;   /* collective name (allreduce, ...) */
};

struct tc_model {
	struct tc_arena arena;
	struct tc_intern strings;
	struct tc_keys key;

	int64_t origin_ns;  /* absolute time of ps 0 */
	bool origin_epoch;  /* origin_ns is Unix-epoch ns */

	struct tc_source *sources;
	size_t n_sources, cap_sources;
	struct tc_host *hosts;
	size_t n_hosts, cap_hosts;
	struct tc_device *devices;
	size_t n_devices, cap_devices;
	struct tc_track *tracks;
	size_t n_tracks, cap_tracks;
	struct tc_op *ops;
	size_t n_ops, cap_ops;
	/* ops[i].kind for every op, packed: per-event walks look kinds up
	 * here, a byte each, in cache, rather than one 40-byte op each */
	uint8_t *op_kind;
	size_t cap_op_kind;
	/*
	 * Arg lists, packed: a list is addressed by the byte offset of its first
	 * record (TC_NONE: no list) and its records are contiguous. A record is
	 * a varint header (key << 4 | last << 3 | code) then the value: zigzag
	 * varint (int), varint (uint, string id), 8 bytes (double), none (bool,
	 * whose value is in the code). Read them with tc_model_arg_next.
	 */
	uint8_t *argb;
	size_t n_argb, cap_argb;
	struct tc_events ev;
	struct tc_aggregate *aggs;
	size_t n_aggs, cap_aggs;
	struct tc_counter *counters;
	size_t n_counters, cap_counters;
	struct tc_samples samples;
	struct tc_alloc *allocs;
	size_t n_allocs, cap_allocs;
	struct tc_flow *flows;
	size_t n_flows, cap_flows;
	struct tc_warning *warnings;
	size_t n_warnings, cap_warnings;

	/* private: op lookup by (name, category, kind) */
	uint32_t *op_slots;
	size_t op_nslots;
	/* private: counter lookup by (device, name, group), id + 1 (0 empty);
	 * holds counters[0 .. ctr_hashed), the rest are added on lookup. */
	uint32_t *ctr_slots;
	size_t ctr_nslots, ctr_hashed;
	bool finalized;
	uint64_t n_implausible; /* events clamped by the bounds above, not yet warned */
	/* Events whose duration was negative (or whose end came before their
	 * begin) and became 0, not yet warned; readers that set durations
	 * themselves count here too, so every format warns alike. */
	uint64_t n_negative_dur;
	/* Some event's args have key key.flops or key.bytes_accessed (set by
	 * the arg functions and merge; a reader filling an op's own list, whose
	 * costs go to tc_op.flops and bytes, puts the flag back after it):
	 * without one, events' costs are their ops'. */
	bool event_costs;
	/* Some arg has key key.blocks_per_sm or key.occupancy (set alike):
	 * without one, no kernel's args need reading for them. */
	bool fill_args;
	/* Some arg has key key.bytes or key.memory_kind (set alike): without
	 * one, no copy's args need reading for them. */
	bool copy_args;

	/*
	 * Event cap while reading (0 = none), set by ingest from --max-events.
	 * Past it tc_model_add_event stops growing the columns: it overwrites
	 * the last slot (so returned indexes stay valid for the reader) and
	 * sets over_max_events; ingest then fails with exit 5. Memory stays
	 * bounded without every reader counting.
	 */
	uint64_t max_events;
	bool over_max_events;

	/*
	 * Keep only args whose key analyses read (the first group of struct
	 * tc_keys), set by ingest for commands whose output shows no arg: the
	 * other args of a big trace cost about a fifth of reading it. The arg
	 * functions drop them; readers ask tc_model_keeps_arg before decoding
	 * a value nobody will read.
	 */
	bool known_args_only;
	uint32_t key_end;   /* the keys read back are the string ids below it */
	uint64_t flag_keys; /* bit k: key k sets event_costs, fill_args or copy_args */

	/* private: arg list being built (header offset of its last record,
	 * TC_NONE if none), and the cap on argb (offsets are u32): past it the
	 * arg functions add nothing and set over_arg_bytes; ingest then fails
	 * with exit 5 like over_max_events. */
	uint32_t arg_last_hdr;
	size_t max_arg_bytes;
	bool over_arg_bytes;

	/* private: the cost column, made on first use (tc_model_costs) */
	struct tc_costs_cache *costs_cache;
	/* private: the costs events' args set, noted per op as the events take
	 * their lists (tc_model_set_event_args): where each op's events all
	 * set the same, the column needs no search of every event's args. */
	struct tc_cost_notes {
		uint32_t list;         /* the list being built: its begin offset */
		uint8_t seen, set;     /* bits flops, bytes: its first records of them,
		                        * and those that are plain numbers */
		int64_t flops, bytes;  /* their values, where set */
		struct tc_cost_seen {  /* per op: what its noted events set */
			int64_t flops, bytes;
			uint32_t n;    /* events noted */
			uint8_t set;
		} *op;
		size_t cap;
		bool off;              /* some event's costs went unnoted, or an op's
		                        * vary: the column searches every event */
	} cn;
};

struct tc_model *tc_model_create(void);
void tc_model_destroy(struct tc_model *m);

static inline bool tc_model_keeps_arg(const struct tc_model *m, uint32_t key) {
	return !m->known_args_only || key < m->key_end;
}

static inline uint32_t tc_model_intern(struct tc_model *m, const char *s) {
	return tc_intern(&m->strings, s);
}
static inline uint32_t tc_model_intern_n(struct tc_model *m, const char *s, size_t n) {
	return tc_intern_n(&m->strings, s, n);
}
static inline const char *tc_model_str(const struct tc_model *m, uint32_t id) {
	return tc_intern_str(&m->strings, id);
}

uint32_t tc_model_add_source(struct tc_model *m, const char *path, const char *format,
	const char *compression, uint64_t file_size, uint64_t data_size);
uint32_t tc_model_add_host(struct tc_model *m, uint32_t name, uint32_t source);
/* Returns the new device's index; fields other than name/kind start unknown. */
uint32_t tc_model_add_device(struct tc_model *m, uint32_t name, enum tc_device_kind kind);
uint32_t tc_model_add_track(struct tc_model *m, uint32_t device, uint32_t name,
	enum tc_track_kind kind, int64_t src_id);

/* Find or add the op (name, category, kind); flops/bytes start unknown. */
uint32_t tc_model_op(struct tc_model *m, uint32_t name, uint32_t category,
	enum tc_op_kind kind);
/* Always add a new op (readers whose ops carry per-metadata costs). */
uint32_t tc_model_add_op(struct tc_model *m, uint32_t name, uint32_t category,
	enum tc_op_kind kind);

/* Plausibility bounds applied by tc_model_add_event: a duration over 7 days
 * (HTA's "corrupt event" rule) becomes 0, a start beyond ±2^62 ps (~53 days)
 * is clamped; both are flagged TC_EV_CLAMPED and reported as one counted
 * warning at finalize. They keep time arithmetic far from int64 overflow. */
#define TC_MAX_DUR_PS ((int64_t)7 * 24 * 3600 * 1000000000000)
#define TC_MAX_ABS_PS ((int64_t)1 << 62)

/* Append an event; returns its index (valid until finalize reorders). */
uint32_t tc_model_add_event(struct tc_model *m, uint32_t track, uint32_t op,
	int64_t start_ps, int64_t dur_ps, uint8_t flags);

/*
 * Args are built as a list: begin, add, end. end returns the first offset (to
 * give tc_model_set_event_args, or store in op->args or device->args) or
 * TC_NONE if none were added. Lists cannot interleave.
 */
uint32_t tc_model_args_begin(struct tc_model *m);
void tc_model_arg_int(struct tc_model *m, uint32_t key, int64_t v);
void tc_model_arg_uint(struct tc_model *m, uint32_t key, uint64_t v);
void tc_model_arg_double(struct tc_model *m, uint32_t key, double v);
void tc_model_arg_str(struct tc_model *m, uint32_t key, uint32_t str);
void tc_model_arg_bool(struct tc_model *m, uint32_t key, bool v);
/* Add a decoded arg (e.g. one read with tc_model_arg_next) by its type. */
void tc_model_arg_add(struct tc_model *m, const struct tc_arg *a);
uint32_t tc_model_args_end(struct tc_model *m, uint32_t begin);
/* A whole list of one number: begin, arg_int or arg_uint, end. */
uint32_t tc_model_args_one_int(struct tc_model *m, uint32_t key, int64_t v);
uint32_t tc_model_args_one_uint(struct tc_model *m, uint32_t key, uint64_t v);

/*
 * Decode the record at pos (a list's first offset, or a value this returned)
 * into *out; returns the next record's offset, TC_NONE after the list's last:
 *   for (uint32_t p = first; p != TC_NONE;) {
 *           struct tc_arg a;
 *           p = tc_model_arg_next(m, p, &a);
 *           ...
 *   }
 */
uint32_t tc_model_arg_next(const struct tc_model *m, uint32_t pos, struct tc_arg *out);
/* Look up key in the list starting at first (TC_NONE: empty); false if absent. */
bool tc_model_arg_find(const struct tc_model *m, uint32_t first, uint32_t key,
	struct tc_arg *out);
/* The first arg of each of two keys in one walk of the list (a hot path
 * reading two keys of every event): bit 0 set when k0 was found into
 * out[0], bit 1 when k1 was into out[1]. */
unsigned tc_model_arg_find2(const struct tc_model *m, uint32_t first, uint32_t k0, uint32_t k1,
	struct tc_arg out[2]);
/* Of the list at first (TC_NONE: empty), the first arg of key.flops (bit
 * 0 of the result, into *flops) and of key.bytes_accessed (bit 1, into
 * *bytes), where it is a number that fits (tc_model_arg_value_i64). */
unsigned tc_model_arg_costs(const struct tc_model *m, uint32_t first, int64_t *flops,
	int64_t *bytes);
/* Numeric value of an arg (int, uint, double, bool; a string that parses as a
 * number). Returns false if absent or not numeric. */
bool tc_model_arg_num(const struct tc_model *m, uint32_t first, uint32_t key, double *out);
/* The same for one arg (NULL: false), e.g. one of a list still being built. */
bool tc_model_arg_value_num(const struct tc_model *m, const struct tc_arg *a, double *out);
bool tc_model_arg_i64(const struct tc_model *m, uint32_t first, uint32_t key, int64_t *out);
/* The same for one arg: false where it is no number or none that fits. */
bool tc_model_arg_value_i64(const struct tc_model *m, const struct tc_arg *a, int64_t *out);

void tc_model_add_aggregate(struct tc_model *m, uint32_t track, uint32_t op,
	int64_t count, int64_t dur_ps);

uint32_t tc_model_counter(struct tc_model *m, uint32_t device, uint32_t name,
	uint32_t unit, uint32_t group);
void tc_model_add_sample(struct tc_model *m, uint32_t counter, int64_t ts_ps, double value);
/* Give counter another owner device (a reader that learns it late); no
 * counter of that device may have the same name and group. */
void tc_model_counter_move(struct tc_model *m, uint32_t counter, uint32_t device);

/* Append an allocator record: its fields as struct tc_alloc says. */
void tc_model_add_alloc(struct tc_model *m, const struct tc_alloc *a);

void tc_model_add_flow(struct tc_model *m, uint32_t from, uint32_t to,
	enum tc_flow_kind kind, uint64_t id);

/* Record a warning; identical messages are counted, not repeated. */
void tc_model_warn(struct tc_model *m, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A warning about the inputs themselves (a file or a rank given twice):
 * every command repeats it on stderr, not only those that list warnings. */
void tc_model_warn_inputs(struct tc_model *m, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add src's warnings, with their counts, to dst's (merges and per-rank
 * reads that keep one model's warnings for the job). */
void tc_model_warn_from(struct tc_model *dst, const struct tc_model *src);

/*
 * Move everything from src into dst (src is left empty but valid), shifting
 * src's times onto dst's origin. Both must be unfinalized.
 */
void tc_model_merge(struct tc_model *dst, struct tc_model *src);

/* Sort, index tracks and counters, set depths, remap flows. Idempotent. */
void tc_model_finalize(struct tc_model *m);
/* The same, gathering reordered columns on a second thread when
 * second_thread (--threads 1 never asks for it). Same result. */
void tc_model_finalize_mt(struct tc_model *m, bool second_thread);

/* Whether device d is a host (a CPU device, or none: TC_NONE and host
 * lines without a device). */
static inline bool tc_model_on_host(const struct tc_model *m, uint32_t d) {
	return d >= m->n_devices || m->devices[d].kind == TC_DEV_CPU;
}

/* Helpers over a finalized model. */
static inline int64_t tc_model_end(const struct tc_model *m, size_t i) {
	return m->ev.start[i] + m->ev.dur[i];
}
/* Event i's track, TC_NONE if none. Finalize drops the track column, as the
 * tracks' ranges hold the same; then this is a binary search: loops over
 * every event should walk the tracks' ranges instead. */
uint32_t tc_model_event_track(const struct tc_model *m, size_t i);
/* Event i's track as tc_model_event_track, and in *end the first event
 * past i that may be on another track: walks in event order ask again
 * only there. */
uint32_t tc_model_track_run(const struct tc_model *m, size_t i, size_t *end);
/* The track column, made from the runs (or the tracks' ranges after
 * finalize) if need be: for readers that read or rewrite it at random. */
uint32_t *tc_model_track_column(struct tc_model *m);

/* Event i's arg list (an offset into argb), TC_NONE if none. */
static inline uint32_t tc_model_event_args(const struct tc_model *m, size_t i) {
	const struct tc_events *e = &m->ev;
	if (e->args) {
		return e->args[i];
	}
	uint64_t w = e->abits[i >> 6], below = ((uint64_t)1 << (i & 63)) - 1;
	if (!((w >> (i & 63)) & 1)) {
		return TC_NONE;
	}
	return e->avals[e->arank[i >> 6] + (uint32_t)__builtin_popcountll(w & below)];
}

void tc_model_set_event_args_sparse(struct tc_model *m, size_t i, uint32_t args);

void tc_model_note_costs(struct tc_model *m, size_t i, uint32_t args);

/* Sets event i's arg list (tc_model_args_end's offset, or TC_NONE).
 * Readers set each event's once, in event order, as they add them; any
 * other order costs the dense column. Where events have costs of their
 * own, the list's are noted for its op: a list not built last, or code
 * that changes an event's op or list any other way, must call
 * tc_model_costs_unnoted. */
static inline void tc_model_set_event_args(struct tc_model *m, size_t i, uint32_t args) {
	if (__builtin_expect(m->event_costs, 0)) {
		tc_model_note_costs(m, i, args);
	}
	if (m->ev.args) {
		m->ev.args[i] = args;
	} else {
		tc_model_set_event_args_sparse(m, i, args);
	}
}

/* The first of events [i, end) of one track (finalized: starts sorted)
 * starting at or after time; end if none does. */
static inline size_t tc_model_first_start_from(const struct tc_model *m, size_t i, size_t end,
		int64_t time) {
	while (i < end) {
		size_t mid = i + (end - i) / 2;
		if (m->ev.start[mid] < time) {
			i = mid + 1;
		} else {
			end = mid;
		}
	}
	return i;
}

static inline const struct tc_op *tc_model_event_op(const struct tc_model *m, size_t i) {
	return &m->ops[m->ev.op[i]];
}
/*
 * Costs. An op's FLOPs and bytes accessed per execution are resolved once,
 * by the reader, into tc_op.flops and .bytes (-1 unknown). Only where
 * m->event_costs is set may an event's own args (key.flops,
 * key.bytes_accessed) override its op's. Per-event walks never search
 * args for them: they read the cost column (tc_model_costs).
 */
/* One cost, packed (16 bytes against tc_op's 40). */
struct tc_op_cost {
	int64_t flops, bytes;
};

/*
 * Every event's costs, resolved once: event i's are cost[key[i]]. A key
 * is an op's (key o < n_ops: op o's own costs, or those every one of its
 * events' args set) or, for events whose args override them, one of the
 * distinct (op, flops, bytes) past those; op[k] is key k's op, always the
 * event's. Where no op's events differ, key is ev.op.
 * Walks that sum per op can sum per key and add each key's sums once.
 */
struct tc_costs {
	const uint32_t *key;           /* per event */
	const struct tc_op_cost *cost; /* per key */
	const uint32_t *op;            /* per key */
	size_t n;                      /* keys: n_ops and more */
};
/* Whether a line of n events sums per cost key rather than per event:
 * where keys repeat (4 events a key or more), else the per-key tables
 * cost more than they save (many ops over many lines). */
static inline bool tc_costs_per_key(const struct tc_costs *c, size_t n) {
	return n >= 4 * c->n;
}
/* m's cost column (m finalized), made on the first call, which searches
 * each event's args once where m->event_costs and the notes cannot tell
 * (struct tc_cost_notes); safe to call from several threads. Borrowed:
 * valid while m lives and is not changed. */
const struct tc_costs *tc_model_costs(const struct tc_model *m);
/* Some event's op or list changed other than by tc_model_set_event_args
 * (or its op's events set costs that vary): m's cost column is made by a
 * search of every event's args. */
void tc_model_costs_unnoted(struct tc_model *m);
/* Frees m's cost column, made again on next use: for benchmarks that time
 * the first use again (finalize does it for changed models). */
void tc_model_costs_drop(struct tc_model *m);
/* FLOPs / bytes of event i: its own arg when present, else its op's. -1
 * unknown. From the column on a finalized model, by a search before. */
int64_t tc_model_event_flops(const struct tc_model *m, size_t i);
int64_t tc_model_event_bytes_accessed(const struct tc_model *m, size_t i);
/* Both of event i's, as the two above give them. */
void tc_model_event_costs(const struct tc_model *m, size_t i, int64_t *flops, int64_t *bytes);

/* Earliest start and latest end over all events (0,0 if none). */
void tc_model_span(const struct tc_model *m, int64_t *first, int64_t *last);
/* Earliest start and latest end of the events on tracks[0..nt) (tracks
 * NULL: every track) of a finalized model, from each track's first event
 * and kept end; INT64_MAX and INT64_MIN where they have none. */
void tc_model_tracks_span(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	int64_t *first, int64_t *last);

/*
 * Tracks grouped by device, in track order within a device: device d's are
 * order[first[d] .. first[d + 1]), those of no known device follow up to
 * first[n_devices + 1]. For loops over devices that visit each device's
 * tracks: a scan of every track per device is O(devices x tracks).
 */
struct tc_device_tracks {
	uint32_t *order;
	uint32_t *first; /* n_devices + 2 entries */
};
void tc_device_tracks_init(struct tc_device_tracks *dt, const struct tc_model *m);
void tc_device_tracks_finish(struct tc_device_tracks *dt);
/* Device d's tracks (d >= n_devices: those of no known device). */
static inline const uint32_t *tc_device_tracks_of(const struct tc_device_tracks *dt,
		const struct tc_model *m, size_t d, size_t *n) {
	size_t b = d < m->n_devices ? d : m->n_devices;
	*n = dt->first[b + 1] - dt->first[b];
	return dt->order + dt->first[b];
}

/* The host lines serving device dev (malloc'd, *n of them), as the
 * breakdown's attribution reads them: threads on CPU devices of dev's
 * host, or of every host (lines without a device too) when that host has
 * none. Derived lines repeat other lines; step and counter lines hold no
 * host work. */
uint32_t *tc_host_tracks(const struct tc_model *m, uint32_t dev, size_t *n);
/* A key for the lines tc_host_tracks gives each device, in one walk of
 * the tracks (malloc'd, n_devices + 1: the last for devices past the
 * model's): its host where they are that host's alone, TC_NONE where
 * they are every host thread. Devices with the same key get the same
 * lines. */
uint32_t *tc_host_tracks_keys(const struct tc_model *m);
static inline uint32_t tc_host_tracks_key_of(const struct tc_model *m, const uint32_t *keys,
		uint32_t dev) {
	return keys[dev < m->n_devices ? dev : m->n_devices];
}

const char *tc_device_kind_name(enum tc_device_kind k);
const char *tc_track_kind_name(enum tc_track_kind k);
const char *tc_op_kind_name(enum tc_op_kind k);
/* True for tracks whose slices are device work (busy-time sources). */
bool tc_track_kind_is_device_work(enum tc_track_kind k);

#endif
