/*
 * Streaming reader for Chrome Trace Event JSON (Chrome, PyTorch Kineto, JAX).
 *
 * The document is never held whole: json_lex tokenises fixed-size chunks
 * from tc_input_read() and the tokens are replayed into callbacks; only the
 * current event's fields are kept. Args go straight into the model's arg
 * list and are rolled back when the event turns out to be metadata, a
 * counter or a memory record.
 *
 * Time: ts/dur are decimal µs (displayTimeUnit only labels a viewer, see
 * trace-json.md §3), parsed as text into whole µs plus a ps remainder, never
 * through a double. Events are stored relative to the first event's whole µs;
 * the absolute origin is fixed at the end because Kineto's
 * baseTimeNanoseconds may follow traceEvents.
 *
 * Devices and tracks are created when first used and their kinds and names
 * patched at the end: process names, labels and thread names may arrive
 * after the events they describe.
 */
#ifndef TC_INGEST_JSON_PRIVATE_H
#define TC_INGEST_JSON_PRIVATE_H

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ingest/ingest.h"
#include "util/corr.h"
#include "ingest/json/json_lex.h"
#include "model/classify.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/u64map.h"
#include "util/xalloc.h"

struct reader;
struct pid_info;
struct thr_info;

/* events.c */
bool tc_json_fail(struct reader *r, const char *msg);
bool tc_json_starts_with(const char *s, const char *p);
uint32_t tc_json_thr_index(const struct reader *r, uint32_t pid, uint32_t tid, uint8_t flavor,
		uint32_t acat);
void tc_json_init_ev_keys(struct reader *r);
bool tc_json_replay_batch(struct reader *r, const struct tc_jbatch *bt, const struct tc_jsrc *src);

/* tf1.c */
void tc_json_tf1_name(struct reader *r, struct pid_info *p);
uint32_t tc_json_tf1_device(const struct reader *r, const struct pid_info *p);
void tc_json_tf1_thread(const struct reader *r, const struct pid_info *p, struct thr_info *t);
void tc_json_tf1_finish(struct reader *r);

/* link.c */
size_t tc_json_link_correlations(struct reader *r);
void tc_json_link_flows(struct reader *r, bool skip_launch_cats);
void tc_json_check_device_steps(struct reader *r);
void tc_json_settle_devices(struct reader *r, uint32_t host);

#define KEY_CACHE 64
#define SMALL 64
#define NBATCH 8 /* token batches in flight between the threads */

/* What the container at one nesting level is. */
enum ctx {
	C_SKIP = 0,   /* a value nobody reads */
	C_ROOT_MAP,   /* {"traceEvents": …} */
	C_EVENTS,     /* the array of events */
	C_EVENT,
	C_ARGS,
	C_CAPTURE,    /* an array/object arg value, re-serialised as text */
	C_ID2,
	C_DEVPROPS,   /* deviceProperties array */
	C_DEVPROP,
	C_DISTINFO,
};

/* What the next scalar value is, set by the key before it. */
enum slot {
	S_NONE = 0,
	S_IGNORE,
	S_NAME, S_CAT, S_PH, S_TS, S_DUR, S_PID, S_TID, S_ID, S_BP, S_SCOPE,
	S_BIND_ID, S_FLOW_IN, S_FLOW_OUT, S_ARGS, S_ID2, S_ID2_VAL,
	S_ARG,
	S_TRACE_EVENTS, S_DEVPROPS, S_DISTINFO, S_BASE_NS, S_HOST_NAME,
	S_DP_ID, S_DP_NAME, S_DP_MEM, S_DP_SMS, S_DP_MAJOR, S_DP_MINOR,
	S_DI_RANK, S_DI_WORLD,
};

enum flavor {
	FL_PLAIN = 0,
	FL_ANNOTATION, /* gpu_user_annotation: enclose kernels, not busy time */
	FL_ASYNC,
	FL_ASIDE,      /* host categories or sync records on a device pid: not busy */
};

/* A TensorFlow 1.x timeline row (json/tf1.c). */
enum tf1_row {
	TF1_NONE = 0,
	TF1_STREAM, /* /device:GPU:0/stream:N or /memcpy: a device track */
	TF1_ALL,    /* /device:GPU:0/stream:all: the streams' events again */
	TF1_EXEC,   /* /job:…/device:X:N: the executor's ops, on the host */
};

struct pid_info {
	uint32_t key;     /* interned pid text */
	bool numeric;
	int64_t num;
	uint32_t name;    /* process_name, 0 none */
	uint32_t label;   /* process_labels */
	int32_t sort;
	bool has_sort;
	bool device_activity; /* saw kernels/copies/memsets */
	bool host_activity;   /* saw host ops, Python frames or runtime calls */
	int8_t looks_device;  /* cached pid_looks_device(), -1 unknown */
	bool accel_hint;  /* [memory] records name it as a device */
	uint32_t device;  /* TC_NONE until an event needs it */
	uint8_t tf1;      /* enum tf1_row */
	uint32_t tf1_dev, tf1_track; /* "/device:GPU:0", "stream:13"; 0 none */
};

struct thr_info {
	uint32_t pid;     /* pid_info index */
	uint32_t tid;     /* interned tid text */
	uint8_t flavor;
	uint32_t acat;    /* async: category */
	uint32_t name;    /* thread_name */
	int32_t sort;
	bool has_sort;
	int8_t kind_hint; /* thread_name args.tracectl_kind (tracectl exports), -1 none */
	uint32_t track;   /* TC_NONE until used */
	uint32_t next;    /* the thread whose thr_by_key digest is the same, or TC_NONE */
	/* Device ops on this line, and how many named their stream (Kineto
	 * stream rows always do). */
	uint32_t n_dev_ops, n_dev_stream;
	uint32_t *stack;  /* open B events */
	size_t n_stack, cap_stack;
};

struct devprop {
	int64_t id;
	uint32_t name;
	int64_t mem;
	int64_t sms;
	int64_t major, minor;
	bool has_major, has_minor;
};

/* A flow endpoint, bound to an event at the end. */
struct flow_end {
	uint64_t id;
	uint32_t cat;     /* group: flow category; v2 uses a marker */
	uint32_t thr;     /* thread it was on (v1) */
	uint32_t ev;      /* bound event, TC_NONE until bound */
	int64_t ts;
	uint32_t seq;     /* file order */
	bool out, in;     /* may start / end a link */
	bool enclosing;   /* v1: bind to the enclosing slice (s, bp:e) */
};

struct ev_state {
	bool any;
	char ph;
	uint32_t name, cat;
	bool has_name;
	uint32_t pid, tid;
	bool has_pid, has_tid;
	bool has_ts, has_dur, bad_time, dur_range;
	int64_t ts_us, ts_frac, dur_ps;
	char scope, bp;
	size_t id_len;
	bool has_id;
	size_t bind_len;
	bool has_bind, flow_in, flow_out;
	bool has_corr;
	int64_t corr;
	uint32_t collective;
	uint32_t n_args;
	/* Not cleared between events: id_len and bind_len say what they hold. */
	char id[SMALL];
	char bind[SMALL];
};

struct key_cache {
	const char *s;
	uint32_t len;
	uint32_t id;
};

#define STR_CACHE 4096
#define OP_CACHE 1024

/* (name, category, on device) → op, so the name rules run once per op. */
struct op_cache {
	uint32_t name, cat;
	uint32_t ocat; /* the op's category: canonical spelling of cat */
	uint32_t op;
	uint8_t kind;
	bool on_device;
	bool dma;   /* a DMA op: copy direction from each event's args */
	bool valid;
};

struct reader {
	struct tc_model *m;
	size_t first_alloc;   /* this file's allocator records start here */
	const struct tc_limits *lim;
	struct tc_error *err;
	uint32_t source;
	uint64_t offset_base; /* input bytes, once read */

	/* nesting */
	uint8_t *ctx;
	uint32_t depth;
	uint32_t max_depth;
	enum slot slot;
	bool root_array;
	bool saw_events; /* an event array was opened */

	/* from the tokeniser, once the input is done */
	bool eof_in_token;
	uint64_t trailing_commas;

	/* current event; its args wait here, decoded, until it is committed
	 * (metadata, counter and dropped events only read them) */
	struct ev_state ev;
	struct tc_arg *pend;
	size_t n_pend, cap_pend;
	struct key_cache keys[KEY_CACHE];
	struct key_cache *strs; /* direct-mapped cache in front of the intern table */
	/* The tokeniser's string slots mirrored (TC_JDD_SLOTS): each one's id,
	 * TC_NONE until interned. dd: the slot of the string token being
	 * handled, set only during its on_scalar or on_key. */
	uint32_t *dd_id;
	uint16_t dd;
	struct ev_key {
		uint64_t w;   /* the key's text as a zero-padded little-endian word */
		uint8_t n, slot;
	} ev_keys[16];    /* an event's keys by (w * EV_KEY_MAGIC) >> 60 */
	struct op_cache *ops;
	struct recent {
		char s[24];   /* up to 8 bytes compare as one word */
		size_t n;
		uint32_t id;
	} recent[4]; /* last pid, tid, cat: they repeat from event to event */
	uint32_t arg_key;
	/* capture of nested arg values */
	struct tc_strbuf cap;
	uint32_t cap_depth;
	bool cap_truncated;

	/* time */
	bool have_origin;
	int64_t origin_us;
	int64_t max_end_ps;
	bool have_max;
	bool have_base;
	int64_t base_ns;

	/* document-level facts */
	struct devprop *dps;
	size_t n_dps, cap_dps;
	struct devprop dp;
	bool has_rank, has_world;
	int64_t rank, world_size;
	uint32_t host_name;

	/* per-pid / per-thread state */
	struct pid_info *pids;
	size_t n_pids, cap_pids;
	struct tc_u64map pid_by_key; /* pid string id -> index in pids */
	struct thr_info *thrs;
	size_t n_thrs, cap_thrs;
	struct tc_u64map thr_by_key; /* (pid, tid, flavor, acat) digest -> index in thrs */
	uint32_t last_thr;

	/* async b/e pairing: interned "pid/cat/id" -> open event */
	struct tc_u64map async;

	struct flow_end *fe;
	size_t n_fe, cap_fe;
	struct tc_corr *host_corr, *dev_corr;
	size_t n_host_corr, cap_host_corr, n_dev_corr, cap_dev_corr;
	/* step markers (event indexes) on host rows and on device rows */
	uint32_t *host_steps, *dev_steps;
	size_t n_host_steps, cap_host_steps, n_dev_steps, cap_dev_steps;

	/* counts for warnings */
	uint64_t n_empty, n_no_ph, n_no_ts, n_no_dur, n_dur_range, n_unmatched_e, n_unclosed_b;
	uint64_t n_unmatched_async, n_non_object, n_far_ts, n_bad_counter;
	uint64_t n_unknown_ph[128];
	uint64_t n_flows_unbound;
	/* TensorFlow 1.x timeline rows seen (json/tf1.c) */
	uint32_t n_tf1, tf1_streams;
	bool tf1_exec_gpu;

	/* interned categories and names */
	struct {
		uint32_t kernel, gpu_memcpy, gpu_memset, gpu_user_annotation;
		uint32_t Kernel, Memcpy, Memset;
		uint32_t cuda_runtime, cuda_driver, Runtime, cuda_sync;
		uint32_t cpu_op, Operator, user_annotation, python_function;
		uint32_t overhead, Overhead, cpu_instant_event;
		uint32_t ac2g, async_cpu_to_gpu, async;
		uint32_t mtia_ccp_events, mtia_runtime;
		uint32_t memory_name, v2;
		uint32_t a_name, a_labels, a_sort_index, a_tc_kind;
		uint32_t a_dev_type, a_dev_id, a_total_alloc, a_total_res, a_addr, a_bytes;
		uint32_t a_allocator, a_tf_op, a_shape, a_dtype;
		uint32_t a_collective_name, a_direction, a_size;
		uint32_t process_name, process_labels, process_sort_index;
		uint32_t thread_name, thread_sort_index;
		uint32_t Op; /* TensorFlow 1.x timeline ops */
	} s;
};

/* What the innermost open container is. Inline: every token asks. */
static inline enum ctx cur_ctx(const struct reader *r) {
	return r->depth ? (enum ctx)r->ctx[r->depth - 1] : C_SKIP;
}

#endif
