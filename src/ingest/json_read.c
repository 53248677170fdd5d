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
#include "ingest/json_lex.h"
#include "model/classify.h"
#include "util/num.h"
#include "util/xalloc.h"

#define KEY_CACHE 64
#define SMALL 64

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
	S_DI_RANK,
};

enum flavor {
	FL_PLAIN = 0,
	FL_ANNOTATION, /* gpu_user_annotation: enclose kernels, not busy time */
	FL_ASYNC,
	FL_ASIDE,      /* host categories or sync records on a device pid: not busy */
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
	int8_t looks_device;  /* cached pid_looks_device(), -1 unknown */
	bool accel_hint;  /* [memory] records name it as a device */
	uint32_t device;  /* TC_NONE until an event needs it */
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

struct corr_rec {
	int64_t corr;
	uint32_t ev;
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
	char *cap;
	size_t cap_len, cap_size;
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
	bool has_rank;
	int64_t rank;
	uint32_t host_name;

	/* per-pid / per-thread state */
	struct pid_info *pids;
	size_t n_pids, cap_pids;
	uint32_t *pid_slots;
	size_t pid_nslots;
	struct thr_info *thrs;
	size_t n_thrs, cap_thrs;
	uint32_t *thr_slots;
	size_t thr_nslots;
	uint32_t last_thr;

	/* async b/e pairing: interned "pid/cat/id" -> open event */
	uint32_t *async_key;
	uint32_t *async_ev;
	size_t async_nslots, async_n;

	struct flow_end *fe;
	size_t n_fe, cap_fe;
	struct corr_rec *host_corr, *dev_corr;
	size_t n_host_corr, cap_host_corr, n_dev_corr, cap_dev_corr;
	/* step markers (event indexes) on host rows and on device rows */
	uint32_t *host_steps, *dev_steps;
	size_t n_host_steps, cap_host_steps, n_dev_steps, cap_dev_steps;

	/* counts for warnings */
	uint64_t n_empty, n_no_ph, n_no_ts, n_no_dur, n_dur_range, n_unmatched_e, n_unclosed_b;
	uint64_t n_unmatched_async, n_non_object, n_far_ts, n_bad_counter;
	uint64_t n_unknown_ph[128];
	uint64_t n_flows_unbound;

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
		uint32_t a_dev_type, a_dev_id, a_total_alloc, a_total_res;
		uint32_t a_collective_name, a_direction, a_size;
		uint32_t process_name, process_labels, process_sort_index;
		uint32_t thread_name, thread_sort_index;
	} s;
};

/* ---- small helpers ---- */

static bool fail(struct reader *r, const char *msg) {
	return tc_error_set(r->err, TC_EXIT_INPUT, "%s", msg);
}

static uint64_t mix64(uint64_t k) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

/*
 * Intern through a direct-mapped cache keyed by length and the first and
 * last 8 bytes: names, categories and pids repeat on every event, and this
 * avoids hashing whole (often long) kernel names again.
 */
static uint32_t intern(struct reader *r, const void *vs, size_t n) {
	const unsigned char *s = vs;
	uint64_t a = 0, b = 0;
	memcpy(&a, s, n < 8 ? n : 8);
	if (n > 8) {
		memcpy(&b, s + n - 8, 8);
	}
	size_t slot = mix64(a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) & (STR_CACHE - 1);
	struct key_cache *k = &r->strs[slot];
	if (k->s && k->len == n && memcmp(k->s, s, n) == 0) {
		return k->id;
	}
	uint32_t id = tc_model_intern_n(r->m, (const char *)s, n);
	k->s = tc_model_str(r->m, id);
	k->len = (uint32_t)n;
	k->id = id;
	return id;
}

/* intern() for the string token being handled (s, n are its bytes): its
 * slot's id when the tokeniser saw it before, without reading the bytes. */
static uint32_t intern_tok(struct reader *r, const void *s, size_t n) {
	if (!(r->dd & TC_JDD_VALID)) {
		return intern(r, s, n);
	}
	uint32_t *id = &r->dd_id[TC_JDD_SLOT(r->dd)];
	if (*id == TC_NONE) {
		*id = intern(r, s, n);
	}
	return *id;
}

static bool starts_with(const char *s, const char *p) {
	return strncmp(s, p, strlen(p)) == 0;
}

/* How many of the 8 bytes at s are ASCII digits before the first that is
 * not, and their value. Eight bytes must be readable. */
static unsigned digits8(const char *s, uint64_t *val) {
	uint64_t a = tc_load_le64(s) ^ 0x3030303030303030ull; /* digits: bytes 0-9 */
	/* A byte's top bit set: above 9. A carry out of one runs only into
	 * later bytes, past the first non-digit. */
	uint64_t m = ((a + 0x7676767676767676ull) | a) & 0x8080808080808080ull;
	unsigned k = m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
	if (k == 0) {
		*val = 0;
		return 0;
	}
	uint64_t v = a << (8 * (8 - k)); /* the k digits, behind leading zeros */
	v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
	v = (v * 6553601 >> 16) & 0x0000FFFF0000FFFFull;
	*val = v * 42949672960001ull >> 32;
	return k;
}

/*
 * Parse a JSON number's text holding a time in µs into whole µs (floor) and a
 * ps remainder in [0, 1e6). Digits past the 6th decimal are rounded half up.
 * Exponents are applied by moving the decimal point; no floating point.
 */
static bool parse_us(const char *s, size_t n, int64_t *us, int64_t *frac) {
	static const int64_t scale[7] = { 1000000, 100000, 10000, 1000, 100, 10, 1 };
	/* What writers emit on every event, 8 bytes at a time (a token has a
	 * batch's slack after it): up to 15 integer digits and 6 decimals. */
	{
		static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
			10000000, 100000000 };
		uint64_t ip, v;
		size_t i = digits8(s, &ip), d;
		if (i == 8 && (d = digits8(s + 8, &v)) < 8) {
			ip = ip * pow10[d] + v;
			i += d;
		}
		if (i > 0 && i < 16 && i <= n) {
			if (i == n) {
				*us = (int64_t)ip;
				*frac = 0;
				return true;
			}
			if (s[i] == '.' && (d = digits8(s + i + 1, &v)) <= 6 && i + 1 + d == n) {
				*us = (int64_t)ip;
				*frac = (int64_t)v * scale[d];
				return true;
			}
		}
	}
	/* Then byte by byte: 1-17 integer digits and at most 6 decimals, exact
	 * without rounding. */
	{
		size_t i = 0;
		int64_t ip = 0, fp = 0;
		while (i < n && i < 17 && (unsigned)(s[i] - '0') < 10) {
			ip = ip * 10 + (s[i++] - '0');
		}
		if (i > 0 && (i == n || s[i] == '.')) {
			size_t j = i + (i < n), d = 0;
			while (j < n && d < 6 && (unsigned)(s[j] - '0') < 10) {
				fp = fp * 10 + (s[j++] - '0');
				d++;
			}
			if (j == n) {
				*us = ip;
				*frac = fp * scale[d];
				return true;
			}
		}
	}
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) {
		neg = s[i] == '-';
		i++;
	}
	char dig[40];
	size_t nd = 0, skipped = 0;
	long point = -1;
	bool any = false;
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			any = true;
			if (nd == 0 && c == '0' && point < 0) {
				continue; /* leading zeros of the integer part */
			}
			if (nd < sizeof(dig)) {
				dig[nd++] = c;
			} else if (point < 0) {
				return false; /* integer part too long */
			} else {
				skipped++;
			}
		} else if (c == '.' && point < 0) {
			point = (long)nd;
		} else {
			break;
		}
	}
	(void)skipped;
	if (!any) {
		return false;
	}
	if (point < 0) {
		point = (long)nd;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < n && (s[i] == '-' || s[i] == '+')) {
			eneg = s[i] == '-';
			i++;
		}
		long e = 0;
		bool edig = false;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			edig = true;
			if (e < 100000) {
				e = e * 10 + (s[i] - '0');
			}
		}
		if (!edig) {
			return false;
		}
		point += eneg ? -e : e;
	}
	/* Surrounding whitespace is allowed for numbers given as strings. */
	while (i < n && (s[i] == ' ' || s[i] == '\t')) {
		i++;
	}
	if (i != n) {
		return false;
	}
	if (point > 17) {
		return false; /* 10^17 µs is over 3,000 years: not a timestamp */
	}
	int64_t ip = 0, fp = 0;
	for (long k = 0; k < point; k++) {
		ip = ip * 10 + (k >= 0 && (size_t)k < nd ? dig[k] - '0' : 0);
	}
	for (long k = point; k < point + 6; k++) {
		fp = fp * 10 + (k >= 0 && (size_t)k < nd ? dig[k] - '0' : 0);
	}
	long rk = point + 6;
	if (rk >= 0 && (size_t)rk < nd && dig[rk] >= '5') {
		if (++fp == 1000000) {
			fp = 0;
			ip++;
		}
	}
	if (neg && (ip || fp)) {
		ip = -ip;
		if (fp) {
			ip -= 1;
			fp = 1000000 - fp;
		}
	}
	*us = ip;
	*frac = fp;
	return true;
}

/* Whether text parse_us() refused is still a number (so out of range,
 * not malformed): a sign, digits, a point, an exponent, outer blanks. */
static bool numeric_text(const char *s, size_t n) {
	bool digit = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			digit = true;
		} else if (!strchr("+-.eE \t", c) || c == '\0') {
			return false;
		}
	}
	return digit;
}

/* Integer text → int64; false if not a plain integer or out of range. */
static bool parse_i64(const char *s, size_t n, int64_t *out) {
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= n || n - i > 19) {
		return false;
	}
	uint64_t v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return false;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1) {
			return false;
		}
		*out = (int64_t)(0 - v);
	} else {
		if (v > (uint64_t)INT64_MAX) {
			return false;
		}
		*out = (int64_t)v;
	}
	return true;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * Decimal text → double. Plain decimals with up to 15 significant digits are
 * exact as mantissa / 10^k (both exactly representable, one rounding); the
 * rest goes to strtod.
 */
static double parse_double(const char *s, size_t n) {
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	uint64_t mant = 0;
	int nd = 0, frac = 0;
	bool point = false, simple = i < n;
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			if (nd || c != '0') {
				nd++;
			}
			mant = mant * 10 + (uint64_t)(c - '0');
			frac += point;
			if (nd > 15) {
				simple = false;
				break;
			}
		} else if (c == '.' && !point) {
			point = true;
		} else {
			simple = false;
			break;
		}
	}
	if (simple && frac <= 22) {
		double d = (double)mant / pow10_tab[frac];
		return neg ? -d : d;
	}
	char buf[128];
	if (n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	return strtod(buf, NULL);
}

/* ---- pid / thread tables ---- */

static uint32_t pid_get(struct reader *r, uint32_t key) {
	size_t mask = r->pid_nslots - 1;
	size_t i = mix64(key) & mask;
	while (r->pid_slots[i]) {
		if (r->pids[r->pid_slots[i] - 1].key == key) {
			return r->pid_slots[i] - 1;
		}
		i = (i + 1) & mask;
	}
	TC_GROW(r->pids, r->cap_pids, r->n_pids + 1);
	struct pid_info *p = &r->pids[r->n_pids];
	memset(p, 0, sizeof(*p));
	p->key = key;
	p->device = TC_NONE;
	p->looks_device = -1;
	const char *t = tc_model_str(r->m, key);
	p->numeric = parse_i64(t, strlen(t), &p->num);
	uint32_t idx = (uint32_t)r->n_pids++;
	r->pid_slots[i] = idx + 1;
	if (r->n_pids * 2 > r->pid_nslots) {
		size_t ns = r->pid_nslots * 2;
		free(r->pid_slots);
		r->pid_slots = tc_xcalloc(ns, sizeof(*r->pid_slots));
		r->pid_nslots = ns;
		for (size_t k = 0; k < r->n_pids; k++) {
			size_t j = mix64(r->pids[k].key) & (ns - 1);
			while (r->pid_slots[j]) {
				j = (j + 1) & (ns - 1);
			}
			r->pid_slots[j] = (uint32_t)k + 1;
		}
	}
	return idx;
}

static uint64_t thr_hash(uint32_t pid, uint32_t tid, uint8_t flavor, uint32_t acat) {
	return mix64(((uint64_t)pid << 32 | tid) ^ ((uint64_t)flavor << 60) ^
		((uint64_t)acat * 0x9E3779B97F4A7C15ull));
}

/* Index of a thread, or TC_NONE; *slot_out gets the free slot when absent. */
static uint32_t thr_find(const struct reader *r, uint32_t pid, uint32_t tid, uint8_t flavor,
		uint32_t acat, size_t *slot_out) {
	size_t mask = r->thr_nslots - 1;
	size_t i = thr_hash(pid, tid, flavor, acat) & mask;
	while (r->thr_slots[i]) {
		const struct thr_info *t = &r->thrs[r->thr_slots[i] - 1];
		if (t->pid == pid && t->tid == tid && t->flavor == flavor && t->acat == acat) {
			return r->thr_slots[i] - 1;
		}
		i = (i + 1) & mask;
	}
	if (slot_out) {
		*slot_out = i;
	}
	return TC_NONE;
}

static uint32_t thr_get(struct reader *r, uint32_t pid, uint32_t tid, uint8_t flavor,
		uint32_t acat) {
	if (r->last_thr != TC_NONE) {
		const struct thr_info *t = &r->thrs[r->last_thr];
		if (t->pid == pid && t->tid == tid && t->flavor == flavor && t->acat == acat) {
			return r->last_thr;
		}
	}
	size_t i = 0;
	uint32_t found = thr_find(r, pid, tid, flavor, acat, &i);
	if (found != TC_NONE) {
		r->last_thr = found;
		return found;
	}
	TC_GROW(r->thrs, r->cap_thrs, r->n_thrs + 1);
	struct thr_info *t = &r->thrs[r->n_thrs];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->flavor = flavor;
	t->acat = acat;
	t->track = TC_NONE;
	t->kind_hint = -1;
	uint32_t idx = (uint32_t)r->n_thrs++;
	r->thr_slots[i] = idx + 1;
	if (r->n_thrs * 2 > r->thr_nslots) {
		size_t ns = r->thr_nslots * 2;
		free(r->thr_slots);
		r->thr_slots = tc_xcalloc(ns, sizeof(*r->thr_slots));
		r->thr_nslots = ns;
		for (size_t k = 0; k < r->n_thrs; k++) {
			const struct thr_info *q = &r->thrs[k];
			size_t j = thr_hash(q->pid, q->tid, q->flavor, q->acat) & (ns - 1);
			while (r->thr_slots[j]) {
				j = (j + 1) & (ns - 1);
			}
			r->thr_slots[j] = (uint32_t)k + 1;
		}
	}
	r->last_thr = idx;
	return idx;
}

/* The model track of a thread, creating its device and track on first use.
 * Kinds and names are provisional until finish(). */
static uint32_t thr_track(struct reader *r, uint32_t ti) {
	struct thr_info *t = &r->thrs[ti];
	if (t->track != TC_NONE) {
		return t->track;
	}
	struct pid_info *p = &r->pids[t->pid];
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	int64_t src = 0;
	const char *tt = tc_model_str(r->m, t->tid);
	if (!parse_i64(tt, strlen(tt), &src)) {
		src = (int64_t)tc_hash(tt, strlen(tt));
	}
	t->track = tc_model_add_track(r->m, p->device, t->tid, TC_TRACK_OTHER, src);
	return t->track;
}

/* ---- time ---- */

/* ps relative to the origin; false if too far from it. parse_us() keeps
 * |us| below 10^18, so the difference cannot overflow. */
static bool rel_ps(struct reader *r, int64_t us, int64_t frac, int64_t *out) {
	if (!r->have_origin) {
		r->have_origin = true;
		r->origin_us = us;
	}
	int64_t d = us - r->origin_us;
	if (d > INT64_MAX / 1000000 - 1 || d < INT64_MIN / 1000000 + 1) {
		return false;
	}
	*out = d * 1000000 + frac;
	return true;
}

static void note_end(struct reader *r, int64_t end) {
	if (!r->have_max || end > r->max_end_ps) {
		r->max_end_ps = end;
		r->have_max = true;
	}
}

/* ---- classification ---- */

static bool is_device_cat(const struct reader *r, uint32_t c) {
	return c && (c == r->s.kernel || c == r->s.gpu_memcpy || c == r->s.gpu_memset ||
		c == r->s.gpu_user_annotation || c == r->s.Kernel || c == r->s.Memcpy ||
		c == r->s.Memset || c == r->s.mtia_ccp_events);
}

/* Kineto categories recorded on the host. Kineto also puts some of them
 * (python threads, cuda_sync) on a device's pid: kept off the stream rows. */
static bool is_aside_cat(const struct reader *r, uint32_t c) {
	return c && (c == r->s.cpu_op || c == r->s.Operator || c == r->s.user_annotation ||
		c == r->s.python_function || c == r->s.cuda_runtime || c == r->s.cuda_driver ||
		c == r->s.Runtime || c == r->s.cuda_sync || c == r->s.overhead ||
		c == r->s.Overhead || c == r->s.mtia_runtime || c == r->s.cpu_instant_event);
}

static const struct tc_arg *pending_arg(const struct reader *r, uint32_t key);

/* "Memcpy HtoD (Pageable -> Device)" → "pageable"; NULL if not stated. */
static const char *memcpy_memory_kind(const char *n) {
	const char *p = strchr(n, '(');
	if (!p) {
		return NULL;
	}
	bool pageable = strstr(p, "Pageable") != NULL;
	bool pinned = strstr(p, "Pinned") != NULL;
	if (pageable) {
		return "pageable";
	}
	if (pinned) {
		return "pinned";
	}
	if (strstr(p, "Device")) {
		return "device";
	}
	return NULL;
}

/* A DMA event's direction arg ("HOST_TO_DEVICE", "DEVICE_TO_HOST",
 * "DEVICE_TO_DEVICE") → copy kind; MEMCPY_OTHER when absent or unknown. */
static enum tc_op_kind dma_kind(const struct reader *r) {
	const struct tc_arg *a = pending_arg(r, r->s.a_direction);
	if (!a || a->type != TC_ARG_STR) {
		return TC_OP_MEMCPY_OTHER;
	}
	const char *d = tc_model_str(r->m, a->v.s);
	if (strcasecmp(d, "HOST_TO_DEVICE") == 0 || strcasecmp(d, "HtoD") == 0) {
		return TC_OP_MEMCPY_H2D;
	}
	if (strcasecmp(d, "DEVICE_TO_HOST") == 0 || strcasecmp(d, "DtoH") == 0) {
		return TC_OP_MEMCPY_D2H;
	}
	if (strcasecmp(d, "DEVICE_TO_DEVICE") == 0 || strcasecmp(d, "DtoD") == 0) {
		return TC_OP_MEMCPY_D2D;
	}
	return TC_OP_MEMCPY_OTHER;
}

/* Kineto's categories and names decide through the classifier; the reader
 * adds only where the event lies (a device pid or a host one). */
static void classify(struct reader *r, const struct ev_state *e, bool on_device,
		struct tc_class *k) {
	const char *n = tc_model_str(r->m, e->name);
	size_t nl = tc_intern_len(&r->m->strings, e->name);
	const char *c = e->cat ? tc_model_str(r->m, e->cat) : NULL;
	size_t cl = e->cat ? tc_intern_len(&r->m->strings, e->cat) : 0;
	tc_classify(n, nl, c, cl, on_device ? TC_PLACE_DEVICE : TC_PLACE_HOST, TC_OP_OTHER, k);
}

/* Whether a pid names a device before its kind is final (JAX writes
 * process_name first; Kineto device rows carry device categories). */
static bool pid_looks_device(const struct reader *r, struct pid_info *p) {
	if (p->looks_device >= 0) {
		return p->looks_device;
	}
	if (p->device_activity) {
		p->looks_device = 1;
		return true;
	}
	const char *n = p->name ? tc_model_str(r->m, p->name) : "";
	const char *l = p->label ? tc_model_str(r->m, p->label) : "";
	p->looks_device = starts_with(n, "/device:") || starts_with(n, "TPU") ||
		starts_with(l, "GPU") || starts_with(l, "MTIA") || starts_with(l, "TPU");
	return p->looks_device;
}

/* ---- event completion ---- */

static void args_rollback(struct reader *r) {
	r->n_pend = 0;
}

static const struct tc_arg *pending_arg(const struct reader *r, uint32_t key) {
	for (size_t i = 0; i < r->n_pend; i++) {
		if (r->pend[i].key == key) {
			return &r->pend[i];
		}
	}
	return NULL;
}

static struct tc_arg *pend_push(struct reader *r, uint32_t key, enum tc_arg_type type) {
	TC_GROW(r->pend, r->cap_pend, r->n_pend + 1);
	struct tc_arg *a = &r->pend[r->n_pend++];
	a->key = key;
	a->type = (uint8_t)type;
	a->v.u = 0;
	return a;
}

static bool arg_number(const struct reader *r, const struct tc_arg *a, double *out) {
	return tc_model_arg_value_num(r->m, a, out);
}

static uint64_t id_value(const char *s, size_t n) {
	int64_t v;
	if (parse_i64(s, n, &v)) {
		return (uint64_t)v;
	}
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t h = 0;
		size_t i = 2;
		for (; i < n && i < 18; i++) {
			char c = s[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0) {
				break;
			}
			h = h * 16 + (uint64_t)d;
		}
		if (i == n) {
			return h;
		}
	}
	return mix64(tc_hash(s, n)) | (1ull << 63);
}

static void add_flow_end(struct reader *r, uint64_t id, uint32_t cat, uint32_t thr,
		uint32_t ev, int64_t ts, bool out, bool in, bool enclosing) {
	TC_GROW(r->fe, r->cap_fe, r->n_fe + 1);
	r->fe[r->n_fe] = (struct flow_end){
		.id = id, .cat = cat, .thr = thr, .ev = ev, .ts = ts, .seq = (uint32_t)r->n_fe,
		.out = out, .in = in, .enclosing = enclosing,
	};
	r->n_fe++;
}

static void do_metadata(struct reader *r, uint32_t pi) {
	struct ev_state *e = &r->ev;
	struct pid_info *p = &r->pids[pi];
	const struct tc_arg *a;
	double d;
	p->looks_device = -1;
	if (e->name == r->s.process_name) {
		a = pending_arg(r, r->s.a_name);
		if (a && a->type == TC_ARG_STR) {
			p->name = a->v.s;
		}
	} else if (e->name == r->s.process_labels) {
		a = pending_arg(r, r->s.a_labels);
		if (a && a->type == TC_ARG_STR) {
			p->label = a->v.s;
		}
	} else if (e->name == r->s.process_sort_index) {
		if (arg_number(r, pending_arg(r, r->s.a_sort_index), &d)) {
			p->sort = (int32_t)tc_double_to_i64(d, INT32_MIN, INT32_MAX);
			p->has_sort = true;
		}
	} else if (e->name == r->s.thread_name || e->name == r->s.thread_sort_index) {
		uint32_t ti = thr_get(r, pi, e->has_tid ? e->tid : e->pid, FL_PLAIN, 0);
		struct thr_info *t = &r->thrs[ti];
		if (e->name == r->s.thread_name) {
			a = pending_arg(r, r->s.a_name);
			if (a && a->type == TC_ARG_STR) {
				/* Kineto writes "stream 7 ": drop trailing blanks. */
				const char *tn = tc_model_str(r->m, a->v.s);
				size_t n = strlen(tn);
				while (n && tn[n - 1] == ' ') {
					n--;
				}
				t->name = intern(r, tn, n);
			}
			/* A tracectl export names the track kind it had: re-reading
			 * rebuilds the same model (round trip). */
			a = pending_arg(r, r->s.a_tc_kind);
			if (a && a->type == TC_ARG_STR) {
				const char *k = tc_model_str(r->m, a->v.s);
				for (int i = 0; i <= TC_TRACK_COUNTER; i++) {
					if (strcmp(k, tc_track_kind_name((enum tc_track_kind)i)) == 0) {
						t->kind_hint = (int8_t)i;
					}
				}
			}
		} else if (arg_number(r, pending_arg(r, r->s.a_sort_index), &d)) {
			t->sort = (int32_t)tc_double_to_i64(d, INT32_MIN, INT32_MAX);
			t->has_sort = true;
		}
	}
	args_rollback(r);
}

/* Kineto "[memory]" instants become allocator counters, not events. */
static void do_memory(struct reader *r, uint32_t pi, int64_t ts) {
	double type = 0, id = 0, v;
	arg_number(r, pending_arg(r, r->s.a_dev_type), &type);
	arg_number(r, pending_arg(r, r->s.a_dev_id), &id);
	uint32_t owner = pi;
	if (type != 0) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%lld",
			(long long)tc_double_to_i64(id, INT64_MIN, INT64_MAX));
		owner = pid_get(r, intern(r, buf, (size_t)n));
		r->pids[owner].accel_hint = true;
	}
	struct pid_info *p = &r->pids[owner];
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	uint32_t unit = tc_model_intern(r->m, "bytes");
	if (arg_number(r, pending_arg(r, r->s.a_total_alloc), &v)) {
		uint32_t c = tc_model_counter(r->m, p->device,
			tc_model_intern(r->m, "memory.allocated"), unit, 0);
		tc_model_add_sample(r->m, c, ts, v);
	}
	if (arg_number(r, pending_arg(r, r->s.a_total_res), &v)) {
		uint32_t c = tc_model_counter(r->m, p->device,
			tc_model_intern(r->m, "memory.reserved"), unit, 0);
		tc_model_add_sample(r->m, c, ts, v);
	}
	args_rollback(r);
}

static void do_counter(struct reader *r, uint32_t pi, int64_t ts) {
	struct ev_state *e = &r->ev;
	struct pid_info *p = &r->pids[pi];
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	bool any = false;
	for (size_t i = 0; i < r->n_pend; i++) {
		double v;
		struct tc_arg a = r->pend[i];
		if (!arg_number(r, &a, &v)) {
			continue;
		}
		char buf[512];
		if (e->has_id) {
			snprintf(buf, sizeof(buf), "%s[%.*s].%s", tc_model_str(r->m, e->name),
				(int)e->id_len, e->id, tc_model_str(r->m, a.key));
		} else {
			snprintf(buf, sizeof(buf), "%s.%s", tc_model_str(r->m, e->name),
				tc_model_str(r->m, a.key));
		}
		uint32_t c = tc_model_counter(r->m, p->device, tc_model_intern(r->m, buf),
			0, e->cat);
		tc_model_add_sample(r->m, c, ts, v);
		any = true;
	}
	if (!any) {
		r->n_bad_counter++;
	}
	args_rollback(r);
}

static uint32_t async_slot(struct reader *r, uint32_t key, bool insert) {
	if (!r->async_nslots) {
		r->async_nslots = 256;
		r->async_key = tc_xcalloc(r->async_nslots, sizeof(*r->async_key));
		r->async_ev = tc_xcalloc(r->async_nslots, sizeof(*r->async_ev));
	}
	size_t mask = r->async_nslots - 1;
	size_t i = mix64(key) & mask;
	while (r->async_key[i]) {
		if (r->async_key[i] == key + 1) {
			return (uint32_t)i;
		}
		i = (i + 1) & mask;
	}
	if (!insert) {
		return TC_NONE;
	}
	if ((r->async_n + 1) * 2 > r->async_nslots) {
		size_t ns = r->async_nslots * 2;
		uint32_t *k2 = tc_xcalloc(ns, sizeof(*k2)), *e2 = tc_xcalloc(ns, sizeof(*e2));
		for (size_t k = 0; k < r->async_nslots; k++) {
			if (r->async_key[k]) {
				size_t j = mix64(r->async_key[k] - 1) & (ns - 1);
				while (k2[j]) {
					j = (j + 1) & (ns - 1);
				}
				k2[j] = r->async_key[k];
				e2[j] = r->async_ev[k];
			}
		}
		free(r->async_key);
		free(r->async_ev);
		r->async_key = k2;
		r->async_ev = e2;
		r->async_nslots = ns;
		return async_slot(r, key, true);
	}
	r->async_key[i] = key + 1;
	r->async_ev[i] = TC_NONE;
	r->async_n++;
	return (uint32_t)i;
}

static void finish_event_args(struct reader *r, uint32_t idx, enum tc_op_kind kind) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	const char *n = tc_model_str(m, e->name);
	size_t nl = tc_intern_len(&m->strings, e->name);
	int64_t step;
	uint32_t first = tc_model_args_begin(m);
	for (size_t i = 0; i < r->n_pend; i++) {
		tc_model_arg_add(m, &r->pend[i]);
	}
	r->n_pend = 0;
	if (kind == TC_OP_STEP && tc_classify_step(n, nl, &step) && step >= 0) {
		tc_model_arg_int(m, m->key.step, step);
	}
	if (kind >= TC_OP_MEMCPY_H2D && kind <= TC_OP_MEMCPY_OTHER) {
		const char *mk = memcpy_memory_kind(n);
		if (mk) {
			tc_model_arg_str(m, m->key.memory_kind, tc_model_intern(m, mk));
		}
	}
	if (e->collective) {
		tc_model_arg_str(m, m->key.collective, e->collective);
	}
	m->ev.args[idx] = tc_model_args_end(m, first);
}

static bool end_event(struct reader *r) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	if (!e->any) {
		r->n_empty++;
		return true;
	}
	char ph = e->ph;
	if (!ph) {
		r->n_no_ph++;
		args_rollback(r);
		return true;
	}
	if (!e->has_pid) {
		e->pid = 0; /* interned "" */
	}
	uint32_t pi = pid_get(r, e->pid);
	if (ph == 'M') {
		do_metadata(r, pi);
		return true;
	}
	int64_t ts = 0;
	if (!e->has_ts || e->bad_time) {
		r->n_no_ts++;
		args_rollback(r);
		return true;
	}
	if (!rel_ps(r, e->ts_us, e->ts_frac, &ts)) {
		r->n_far_ts++;
		args_rollback(r);
		return true;
	}
	if (ph == 'C') {
		do_counter(r, pi, ts);
		return true;
	}
	if ((ph == 'i' || ph == 'I') && e->name == r->s.memory_name) {
		do_memory(r, pi, ts);
		return true;
	}
	if (!r->pids[pi].device_activity && is_device_cat(r, e->cat)) {
		r->pids[pi].device_activity = true;
		r->pids[pi].looks_device = 1;
	}
	uint32_t tid = e->has_tid ? e->tid : e->pid;
	uint8_t flavor = FL_PLAIN;
	if (e->cat && e->cat == r->s.gpu_user_annotation) {
		flavor = FL_ANNOTATION;
	} else if (is_aside_cat(r, e->cat)) {
		flavor = FL_ASIDE;
	}
	uint32_t acat = 0;
	if (ph == 'b' || ph == 'e' || ph == 'n') {
		flavor = FL_ASYNC;
		acat = e->cat;
		tid = 0;
	}
	if (ph == 's' || ph == 't' || ph == 'f') {
		uint32_t ti = thr_get(r, pi, tid, FL_PLAIN, 0);
		bool enclosing = ph == 's' || e->bp == 'e';
		add_flow_end(r, id_value(e->id, e->id_len), e->cat, ti, TC_NONE, ts,
			ph != 'f', ph != 's', enclosing);
		note_end(r, ts);
		args_rollback(r);
		return true;
	}
	uint32_t ti = thr_get(r, pi, tid, flavor, acat);
	struct thr_info *t = &r->thrs[ti];
	uint32_t track = thr_track(r, ti);
	bool on_device = pid_looks_device(r, &r->pids[pi]);
	struct op_cache *oc = &r->ops[mix64((uint64_t)e->name << 32 | e->cat) & (OP_CACHE - 1)];
	if (!oc->valid || oc->name != e->name || oc->cat != e->cat || oc->on_device != on_device) {
		oc->name = e->name;
		oc->cat = e->cat;
		oc->on_device = on_device;
		struct tc_class k;
		classify(r, e, on_device, &k);
		oc->kind = (uint8_t)k.kind;
		oc->ocat = k.category ? tc_model_intern(m, k.category) : e->cat;
		oc->op = tc_model_op(m, e->name, oc->ocat, k.kind);
		if (k.async_done) {
			m->ops[oc->op].flags |= TC_OPF_ASYNC_DONE;
		}
		oc->dma = k.dma;
		oc->valid = true;
	}
	enum tc_op_kind kind = (enum tc_op_kind)oc->kind;
	uint32_t op = oc->op;
	bool dma = oc->dma;
	if (dma && ph != 'E' && ph != 'e') {
		enum tc_op_kind k = dma_kind(r);
		if (k != kind) {
			kind = k;
			op = tc_model_op(m, e->name, oc->ocat, k);
		}
	}
	uint32_t idx;
	switch (ph) {
	case 'X':
		if (e->dur_range) {
			r->n_dur_range++;
		} else if (!e->has_dur) {
			r->n_no_dur++;
		}
		if (e->dur_ps > 0 && ts > INT64_MAX / 2 - e->dur_ps) {
			r->n_far_ts++;
			args_rollback(r);
			return true;
		}
		idx = tc_model_add_event(m, track, op, ts, e->has_dur ? e->dur_ps : 0, 0);
		note_end(r, ts + (e->dur_ps > 0 ? e->dur_ps : 0));
		break;
	case 'B':
		idx = tc_model_add_event(m, track, op, ts, 0, 0);
		TC_GROW(t->stack, t->cap_stack, t->n_stack + 1);
		t->stack[t->n_stack++] = idx;
		note_end(r, ts);
		break;
	case 'E':
		note_end(r, ts);
		args_rollback(r);
		if (!t->n_stack) {
			r->n_unmatched_e++;
			return true;
		}
		idx = t->stack[--t->n_stack];
		if (ts < m->ev.start[idx]) {
			m->ev.flags[idx] |= TC_EV_CLAMPED;
			m->n_negative_dur++;
		} else {
			m->ev.dur[idx] = ts - m->ev.start[idx];
		}
		return true;
	case 'i':
	case 'I':
	case 'R':
	case 'n':
		idx = tc_model_add_event(m, track, op, ts, 0, TC_EV_INSTANT);
		note_end(r, ts);
		break;
	case 'b':
	case 'e': {
		note_end(r, ts);
		char buf[256];
		int len = snprintf(buf, sizeof(buf), "%u/%u/%.*s", e->pid, e->cat,
			(int)e->id_len, e->id);
		uint32_t key = intern(r, buf, len < (int)sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
		uint32_t slot = async_slot(r, key, ph == 'b');
		if (ph == 'b') {
			idx = tc_model_add_event(m, track, op, ts, 0, 0);
			r->async_ev[slot] = idx;
			break;
		}
		args_rollback(r);
		if (slot == TC_NONE || r->async_ev[slot] == TC_NONE) {
			r->n_unmatched_async++;
			return true;
		}
		idx = r->async_ev[slot];
		r->async_ev[slot] = TC_NONE;
		if (ts >= m->ev.start[idx]) {
			m->ev.dur[idx] = ts - m->ev.start[idx];
		} else {
			m->ev.flags[idx] |= TC_EV_CLAMPED;
			m->n_negative_dur++;
		}
		return true;
	}
	default:
		r->n_unknown_ph[(unsigned char)ph & 127]++;
		args_rollback(r);
		return true;
	}
	bool dev = kind == TC_OP_KERNEL || kind == TC_OP_COLLECTIVE || kind == TC_OP_MEMSET ||
		(kind >= TC_OP_MEMCPY_H2D && kind <= TC_OP_MEMCPY_OTHER);
	if (dev && on_device) {
		t = &r->thrs[ti];
		t->n_dev_ops++;
		if (pending_arg(r, m->key.stream)) {
			t->n_dev_stream++;
		}
	}
	if (dma && !pending_arg(r, m->key.bytes)) {
		/* MTIA names the DMA's byte count "size". */
		double v;
		if (arg_number(r, pending_arg(r, r->s.a_size), &v) && v >= 0) {
			pend_push(r, m->key.bytes, TC_ARG_INT)->v.i = (int64_t)v;
		}
	}
	finish_event_args(r, idx, kind);
	if (kind == TC_OP_STEP && on_device) {
		TC_GROW(r->dev_steps, r->cap_dev_steps, r->n_dev_steps + 1);
		r->dev_steps[r->n_dev_steps++] = idx;
	} else if (kind == TC_OP_STEP) {
		TC_GROW(r->host_steps, r->cap_host_steps, r->n_host_steps + 1);
		r->host_steps[r->n_host_steps++] = idx;
	}
	if (e->has_corr) {
		if (dev && on_device) {
			TC_GROW(r->dev_corr, r->cap_dev_corr, r->n_dev_corr + 1);
			r->dev_corr[r->n_dev_corr++] = (struct corr_rec){ e->corr, idx };
		} else if (!on_device && (kind == TC_OP_RUNTIME || kind == TC_OP_SYNC)) {
			TC_GROW(r->host_corr, r->cap_host_corr, r->n_host_corr + 1);
			r->host_corr[r->n_host_corr++] = (struct corr_rec){ e->corr, idx };
		}
	}
	if (e->has_bind && (e->flow_in || e->flow_out)) {
		add_flow_end(r, id_value(e->bind, e->bind_len), r->s.v2, ti, idx, ts,
			e->flow_out, e->flow_in, true);
	}
	return true;
}

/* ---- token handlers (replay calls them in document order) ---- */

static enum ctx cur_ctx(const struct reader *r) {
	return r->depth ? (enum ctx)r->ctx[r->depth - 1] : C_SKIP;
}

static bool cap_put(struct reader *r, const char *s, size_t n) {
	if (r->cap_truncated) {
		return true;
	}
	if (r->cap_len + n > r->lim->max_string) {
		r->cap_truncated = true;
		return true;
	}
	if (r->cap_len + n > r->cap_size) {
		size_t ns = r->cap_size ? r->cap_size : 256;
		while (ns < r->cap_len + n) {
			ns *= 2;
		}
		r->cap = tc_xrealloc(r->cap, ns);
		r->cap_size = ns;
	}
	memcpy(r->cap + r->cap_len, s, n);
	r->cap_len += n;
	return true;
}

static void cap_sep(struct reader *r) {
	if (r->cap_len) {
		char last = r->cap[r->cap_len - 1];
		if (last != '[' && last != '{' && last != ':') {
			cap_put(r, ",", 1);
		}
	}
}

static void cap_string(struct reader *r, const unsigned char *s, size_t n) {
	cap_put(r, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\' || c < 0x20) {
			cap_put(r, (const char *)s + run, i - run);
			char esc[8];
			int k = c == '"' ? snprintf(esc, sizeof(esc), "\\\"") :
				c == '\\' ? snprintf(esc, sizeof(esc), "\\\\") :
				snprintf(esc, sizeof(esc), "\\u%04x", c);
			cap_put(r, esc, (size_t)k);
			run = i + 1;
		}
	}
	cap_put(r, (const char *)s + run, n - run);
	cap_put(r, "\"", 1);
}

static uint32_t arg_key(struct reader *r, const unsigned char *s, size_t n) {
	if (r->dd & TC_JDD_VALID) {
		return intern_tok(r, s, n);
	}
	uint32_t pos = r->ev.n_args < KEY_CACHE ? r->ev.n_args : KEY_CACHE - 1;
	struct key_cache *k = &r->keys[pos];
	if (k->s && k->len == n && memcmp(k->s, s, n) == 0) {
		return k->id;
	}
	uint32_t id = intern(r, s, n);
	k->s = tc_model_str(r->m, id);
	k->len = (uint32_t)n;
	k->id = id;
	return id;
}

/* Intern a short field value that usually equals the previous event's.
 * s is a token's text, with 8 readable bytes past its start (a batch's
 * slack). */
static uint32_t intern_recent(struct reader *r, int field, const unsigned char *s, size_t n) {
	if (r->dd & TC_JDD_VALID) {
		return intern_tok(r, s, n); /* one load, no compare */
	}
	struct recent *c = &r->recent[field];
	if (c->n == n && n && (n <= 8 ? tc_load_le64_prefix(c->s, n) == tc_load_le64_prefix(s, n) :
			memcmp(c->s, s, n) == 0)) {
		return c->id;
	}
	uint32_t id = intern_tok(r, s, n);
	if (n <= sizeof(c->s)) {
		memcpy(c->s, s, n);
		c->n = n;
		c->id = id;
	}
	return id;
}

/* Copy an id's text (numbers and strings alike) into a small buffer. */
static void set_small(char *dst, size_t *len, const unsigned char *s, size_t n) {
	if (n > SMALL) {
		/* Over-long ids keep a hash: distinct enough for pairing. */
		*len = (size_t)snprintf(dst, SMALL, "#%08x", tc_hash(s, n));
		return;
	}
	memcpy(dst, s, n);
	*len = n;
}

enum { V_NULL, V_BOOL, V_NUM, V_STR };

static void add_arg(struct reader *r, int type, const unsigned char *s, size_t n, bool b) {
	struct tc_model *m = r->m;
	uint32_t key = r->arg_key;
	switch (type) {
	case V_NULL:
		pend_push(r, key, TC_ARG_STR)->v.s = tc_model_intern(m, "null");
		break;
	case V_BOOL:
		pend_push(r, key, TC_ARG_BOOL)->v.i = b;
		break;
	case V_NUM: {
		int64_t v;
		if (parse_i64((const char *)s, n, &v)) {
			pend_push(r, key, TC_ARG_INT)->v.i = v;
			if (key == m->key.correlation) {
				r->ev.has_corr = true;
				r->ev.corr = v;
			}
		} else {
			char *end;
			char buf[32];
			if (n < sizeof(buf) && s[0] != '-' && memchr(s, '.', n) == NULL &&
					memchr(s, 'e', n) == NULL && memchr(s, 'E', n) == NULL) {
				memcpy(buf, s, n);
				buf[n] = 0;
				errno = 0;
				unsigned long long u = strtoull(buf, &end, 10);
				if (!errno && *end == 0) {
					pend_push(r, key, TC_ARG_UINT)->v.u = u;
					break;
				}
			}
			pend_push(r, key, TC_ARG_DOUBLE)->v.d = parse_double((const char *)s, n);
		}
		break;
	}
	case V_STR: {
		uint32_t v = intern_tok(r, s, n);
		pend_push(r, key, TC_ARG_STR)->v.s = v;
		if (key == r->s.a_collective_name) {
			r->ev.collective = v;
		}
		break;
	}
	}
}

/* A scalar value of an event's field (slot, from the key before it). */
static void event_scalar(struct reader *r, enum slot slot, int type, const unsigned char *s,
		size_t n, bool b) {
	struct ev_state *e = &r->ev;
	switch (slot) {
	case S_NAME:
		if (type == V_STR || type == V_NUM) {
			e->name = intern_tok(r, s, n);
			e->has_name = true;
		}
		break;
	case S_CAT:
		if (type == V_STR) {
			e->cat = intern_recent(r, 2, s, n);
		}
		break;
	case S_PH:
		if (type == V_STR && n >= 1) {
			e->ph = (char)s[0];
		}
		break;
	case S_TS:
	case S_DUR: {
		int64_t us, frac;
		if ((type != V_NUM && type != V_STR) || !parse_us((const char *)s, n, &us, &frac)) {
			/* A bad ts drops the event; a bad dur reads as none, one
			 * too big for the timeline as 0 with its own warning. */
			if (slot == S_TS) {
				e->bad_time = true;
			} else if ((type == V_NUM || type == V_STR) &&
					numeric_text((const char *)s, n)) {
				e->dur_range = true;
			}
			break;
		}
		if (slot == S_TS) {
			e->has_ts = true;
			e->ts_us = us;
			e->ts_frac = frac;
		} else if (us > INT64_MAX / 1000000 - 1 || us < INT64_MIN / 1000000 + 1) {
			e->dur_range = true;
		} else {
			e->has_dur = true;
			e->dur_ps = us * 1000000 + frac;
		}
		break;
	}
	case S_PID:
	case S_TID:
		if (type == V_STR || type == V_NUM) {
			uint32_t id = intern_recent(r, slot == S_PID ? 0 : 1, s, n);
			if (slot == S_PID) {
				e->pid = id;
				e->has_pid = true;
			} else {
				e->tid = id;
				e->has_tid = true;
			}
		}
		break;
	case S_ID:
		if (type == V_STR || type == V_NUM) {
			set_small(e->id, &e->id_len, s, n);
			e->has_id = true;
		}
		break;
	case S_BIND_ID:
		if (type == V_STR || type == V_NUM) {
			set_small(e->bind, &e->bind_len, s, n);
			e->has_bind = true;
		}
		break;
	case S_FLOW_IN:
		e->flow_in = type == V_BOOL && b;
		break;
	case S_FLOW_OUT:
		e->flow_out = type == V_BOOL && b;
		break;
	case S_BP:
		if (type == V_STR && n) {
			e->bp = (char)s[0];
		}
		break;
	case S_SCOPE:
		if (type == V_STR && n) {
			e->scope = (char)s[0];
		}
		break;
	default:
		break;
	}
}

/* A scalar in an event (its field slot) or in its args: the hot cases. */
static inline void field_value(struct reader *r, enum ctx c, enum slot slot, int type,
		const unsigned char *s, size_t n, bool b) {
	if (c == C_EVENT) {
		event_scalar(r, slot, type, s, n, b);
	} else if (slot == S_ARG) {
		add_arg(r, type, s, n, b);
	}
}

static int on_scalar(struct reader *r, int type, const unsigned char *s, size_t n, bool b) {
	enum ctx c = cur_ctx(r);
	enum slot slot = r->slot;
	r->slot = S_NONE;
	switch (c) {
	case C_CAPTURE:
		cap_sep(r);
		if (type == V_STR) {
			cap_string(r, s, n);
		} else if (type == V_NUM) {
			cap_put(r, (const char *)s, n);
		} else if (type == V_BOOL) {
			cap_put(r, b ? "true" : "false", b ? 4 : 5);
		} else {
			cap_put(r, "null", 4);
		}
		return 1;
	case C_ARGS:
	case C_EVENT:
		field_value(r, c, slot, type, s, n, b);
		return 1;
	case C_EVENTS:
		r->n_non_object++;
		return 1;
	case C_ID2:
		if (slot == S_ID2_VAL && (type == V_STR || type == V_NUM)) {
			set_small(r->ev.id, &r->ev.id_len, s, n);
			r->ev.has_id = true;
		}
		return 1;
	case C_ROOT_MAP:
		if (slot == S_BASE_NS && type == V_NUM) {
			int64_t v;
			if (parse_i64((const char *)s, n, &v)) {
				r->base_ns = v;
				r->have_base = true;
			}
		} else if (slot == S_HOST_NAME && type == V_STR) {
			r->host_name = intern(r, s, n);
		}
		return 1;
	case C_DEVPROP: {
		int64_t v = 0;
		bool num = type == V_NUM && parse_i64((const char *)s, n, &v);
		switch (slot) {
		case S_DP_ID:
			if (num) {
				r->dp.id = v;
			}
			break;
		case S_DP_NAME:
			if (type == V_STR) {
				r->dp.name = intern(r, s, n);
			}
			break;
		case S_DP_MEM:
			r->dp.mem = num ? v : 0;
			break;
		case S_DP_SMS:
			r->dp.sms = num ? v : 0;
			break;
		case S_DP_MAJOR:
			r->dp.major = v;
			r->dp.has_major = num;
			break;
		case S_DP_MINOR:
			r->dp.minor = v;
			r->dp.has_minor = num;
			break;
		default:
			break;
		}
		return 1;
	}
	case C_DISTINFO:
		if (slot == S_DI_RANK && type == V_NUM) {
			r->has_rank = parse_i64((const char *)s, n, &r->rank);
		}
		return 1;
	default:
		return 1;
	}
}

/*
 * Whether an arg's value can go unread: the model keeps only the keys
 * analyses read back and this event's reading needs none of the others.
 * Metadata, counters and [memory] records read their own args, so until
 * "ph" is seen (writers put it first) every arg is read.
 */
static bool arg_dropped(const struct reader *r, uint32_t key) {
	const struct tc_model *m = r->m;
	char ph = r->ev.ph;
	if (tc_model_keeps_arg(m, key) || !ph || ph == 'M' || ph == 'C' || ph == 'i' ||
			ph == 'I') {
		return false;
	}
	/* The ones this reader reads itself: a stream marks a device row, a
	 * DMA's direction and size make its kind and bytes. ("Collective
	 * name" is kept only as an export arg, which this model drops.) */
	return key != m->key.stream && key != r->s.a_size && key != r->s.a_direction;
}

/*
 * An event's own keys, found with one multiply and one compare: the
 * multiplier sends each of the 15 to its own of 16 entries (a key's order
 * in an event varies by writer, so a chain of compares or a jump on its
 * length mispredicts). s has 8 readable bytes past its start.
 */
#define EV_KEY_MAGIC 0x454fc8a979d87b3dull

static void init_ev_keys(struct reader *r) {
	static const struct { const char *text; enum slot slot; } keys[] = {
		{ "ph", S_PH }, { "ts", S_TS }, { "id", S_ID }, { "bp", S_BP }, { "s", S_SCOPE },
		{ "pid", S_PID }, { "tid", S_TID }, { "dur", S_DUR }, { "cat", S_CAT },
		{ "id2", S_ID2 }, { "name", S_NAME }, { "args", S_ARGS }, { "bind_id", S_BIND_ID },
		{ "flow_in", S_FLOW_IN }, { "flow_out", S_FLOW_OUT },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned char buf[8] = { 0 };
		size_t n = strlen(keys[i].text);
		memcpy(buf, keys[i].text, n);
		uint64_t w = tc_load_le64_prefix(buf, n);
		struct ev_key *k = &r->ev_keys[w * EV_KEY_MAGIC >> 60];
		assert(k->n == 0); /* each its own entry */
		*k = (struct ev_key){ w, (uint8_t)n, (uint8_t)keys[i].slot };
	}
}

static inline __attribute__((always_inline)) enum slot event_key_slot(const struct reader *r,
		const unsigned char *s, size_t n) {
	if (n == 0 || n > 8) {
		return S_IGNORE;
	}
	uint64_t w = tc_load_le64_prefix(s, n);
	const struct ev_key *k = &r->ev_keys[w * EV_KEY_MAGIC >> 60];
	return k->w == w && k->n == n ? (enum slot)k->slot : S_IGNORE;
}

/* An event's own key: the slot its value goes to. */
static inline void event_key(struct reader *r, const unsigned char *s, size_t n) {
	r->ev.any = true;
	r->slot = event_key_slot(r, s, n);
}

/* An arg's key: which one, and whether its value is read. */
static void args_key(struct reader *r, const unsigned char *s, size_t n) {
	r->arg_key = arg_key(r, s, n);
	r->ev.n_args++;
	r->slot = arg_dropped(r, r->arg_key) ? S_IGNORE : S_ARG;
}

static bool key_is(const unsigned char *s, size_t n, const char *lit) {
	size_t k = strlen(lit);
	return n == k && memcmp(s, lit, k) == 0;
}

static int on_key(struct reader *r, const unsigned char *s, size_t n) {
	switch (cur_ctx(r)) {
	case C_EVENT:
		event_key(r, s, n);
		return 1;
	case C_ARGS:
		args_key(r, s, n);
		return 1;
	case C_CAPTURE:
		cap_sep(r);
		cap_string(r, s, n);
		cap_put(r, ":", 1);
		return 1;
	case C_ID2:
		r->slot = key_is(s, n, "local") || key_is(s, n, "global") ? S_ID2_VAL : S_IGNORE;
		return 1;
	case C_ROOT_MAP:
		r->slot = key_is(s, n, "traceEvents") ? S_TRACE_EVENTS :
			key_is(s, n, "deviceProperties") ? S_DEVPROPS :
			key_is(s, n, "distributedInfo") ? S_DISTINFO :
			key_is(s, n, "baseTimeNanoseconds") ? S_BASE_NS :
			key_is(s, n, "host_name") ? S_HOST_NAME : S_IGNORE;
		return 1;
	case C_DEVPROP:
		r->slot = key_is(s, n, "id") ? S_DP_ID : key_is(s, n, "name") ? S_DP_NAME :
			key_is(s, n, "totalGlobalMem") ? S_DP_MEM : key_is(s, n, "numSms") ? S_DP_SMS :
			key_is(s, n, "computeMajor") ? S_DP_MAJOR :
			key_is(s, n, "computeMinor") ? S_DP_MINOR : S_IGNORE;
		return 1;
	case C_DISTINFO:
		r->slot = key_is(s, n, "rank") ? S_DI_RANK : S_IGNORE;
		return 1;
	default:
		return 1;
	}
}

static int push(struct reader *r, enum ctx c) {
	if (r->depth >= r->max_depth) {
		tc_error_set(r->err, TC_EXIT_LIMIT, "json: nesting deeper than %u levels "
			"(raise it with --max-depth)", r->max_depth);
		return 0;
	}
	r->ctx[r->depth++] = (uint8_t)c;
	return 1;
}

static void begin_event(struct reader *r) {
	memset(&r->ev, 0, offsetof(struct ev_state, id));
	r->n_pend = 0;
}

static int open_container(struct reader *r, bool is_map) {
	enum slot slot = r->slot;
	r->slot = S_NONE;
	if (r->depth == 0) {
		r->root_array = !is_map;
		r->saw_events = !is_map;
		return push(r, is_map ? C_ROOT_MAP : C_EVENTS);
	}
	enum ctx parent = cur_ctx(r);
	switch (parent) {
	case C_EVENTS:
		if (!is_map) {
			r->n_non_object++;
			return push(r, C_SKIP);
		}
		begin_event(r);
		return push(r, C_EVENT);
	case C_EVENT:
		if (slot == S_ARGS && is_map) {
			return push(r, C_ARGS);
		}
		if (slot == S_ID2 && is_map) {
			return push(r, C_ID2);
		}
		if (slot == S_TS) {
			r->ev.bad_time = true;
		}
		return push(r, C_SKIP);
	case C_ARGS:
		if (slot != S_ARG) {
			return push(r, C_SKIP);
		}
		r->cap_len = 0;
		r->cap_truncated = false;
		r->cap_depth = r->depth + 1;
		cap_put(r, is_map ? "{" : "[", 1);
		return push(r, C_CAPTURE);
	case C_CAPTURE:
		cap_sep(r);
		cap_put(r, is_map ? "{" : "[", 1);
		return push(r, C_CAPTURE);
	case C_ROOT_MAP:
		if (slot == S_TRACE_EVENTS && !is_map) {
			r->saw_events = true;
			return push(r, C_EVENTS);
		}
		if (slot == S_DEVPROPS && !is_map) {
			return push(r, C_DEVPROPS);
		}
		if (slot == S_DISTINFO && is_map) {
			return push(r, C_DISTINFO);
		}
		return push(r, C_SKIP);
	case C_DEVPROPS:
		if (is_map) {
			memset(&r->dp, 0, sizeof(r->dp));
			r->dp.id = -1;
			return push(r, C_DEVPROP);
		}
		return push(r, C_SKIP);
	default:
		return push(r, C_SKIP);
	}
}

static int close_container(struct reader *r, bool is_map) {
	enum ctx c = cur_ctx(r);
	r->depth--;
	r->slot = S_NONE;
	switch (c) {
	case C_EVENT:
		return end_event(r) ? 1 : 0;
	case C_CAPTURE:
		cap_put(r, is_map ? "}" : "]", 1);
		if (r->depth + 1 == r->cap_depth) {
			if (r->cap_truncated) {
				tc_model_warn(r->m, 1, "json: arg values longer than %u bytes truncated",
					r->lim->max_string);
			}
			add_arg(r, V_STR, (const unsigned char *)r->cap, r->cap_len, false);
		}
		return 1;
	case C_DEVPROP:
		TC_GROW(r->dps, r->cap_dps, r->n_dps + 1);
		r->dps[r->n_dps++] = r->dp;
		return 1;
	default:
		return 1;
	}
}


static int cmp_corr(const void *pa, const void *pb) {
	const struct corr_rec *a = pa, *b = pb;
	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* Runtime call → device activity by correlation id. */
static size_t link_correlations(struct reader *r) {
	if (!r->n_host_corr || !r->n_dev_corr) {
		return 0;
	}
	/* Writers number launches in order: the records come nearly sorted,
	 * and each device record's match is usually the one after the last. */
	tc_sort_runs(r->host_corr, r->n_host_corr, sizeof(*r->host_corr), cmp_corr);
	size_t links = 0, next = 0;
	for (size_t i = 0; i < r->n_dev_corr; i++) {
		int64_t c = r->dev_corr[i].corr;
		size_t lo = 0, hi = r->n_host_corr;
		if (next < hi && r->host_corr[next].corr == c &&
				(next == 0 || r->host_corr[next - 1].corr < c)) {
			lo = hi = next; /* the first record of c */
		}
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->host_corr[mid].corr < c) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (lo < r->n_host_corr && r->host_corr[lo].corr == c) {
			tc_model_add_flow(r->m, r->host_corr[lo].ev, r->dev_corr[i].ev,
				TC_FLOW_LAUNCH, (uint64_t)c);
			links++;
		}
		next = lo + 1;
	}
	return links;
}

struct tev {
	uint32_t track;
	int64_t start, end;
	uint32_t ev;
};

static int cmp_tev(const void *pa, const void *pb) {
	const struct tev *a = pa, *b = pb;
	if (a->track != b->track) {
		return a->track < b->track ? -1 : 1;
	}
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->end != b->end) {
		return a->end > b->end ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* The plain and the host-category track of an endpoint's (pid, tid). */
static void flow_tracks(const struct reader *r, const struct flow_end *f, uint32_t cand[2]) {
	const struct thr_info *t = &r->thrs[f->thr];
	cand[0] = t->track;
	uint32_t a = thr_find(r, t->pid, t->tid, FL_ASIDE, 0, NULL);
	cand[1] = a != TC_NONE ? r->thrs[a].track : TC_NONE;
}

/* The slice on track t an endpoint at ts binds to: the latest-starting one
 * enclosing ts, or (not enclosing) the first starting at or after ts. */
static uint32_t bind_end(const struct tev *tv, size_t ntv, uint32_t t, int64_t ts,
		bool enclosing) {
	size_t lo = 0, hi = ntv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tv[mid].track < t || (tv[mid].track == t && tv[mid].start <= ts)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (!enclosing) {
		size_t j = lo;
		while (j > 0 && tv[j - 1].track == t && tv[j - 1].start == ts) {
			j--;
		}
		if (j < ntv && tv[j].track == t) {
			return tv[j].ev;
		}
	}
	size_t steps = 0;
	for (size_t j = lo; j-- > 0 && tv[j].track == t && steps < 4096; steps++) {
		if (tv[j].end >= ts) {
			return tv[j].ev;
		}
	}
	return TC_NONE;
}

static int cmp_fe(const void *pa, const void *pb) {
	const struct flow_end *a = pa, *b = pb;
	if (a->cat != b->cat) {
		return a->cat < b->cat ? -1 : 1;
	}
	if (a->id != b->id) {
		return a->id < b->id ? -1 : 1;
	}
	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Bind v1 flow endpoints to slices, then link consecutive endpoints of each
 * id: an endpoint that may start a link to the next that may end one. */
static void link_flows(struct reader *r, bool skip_launch_cats) {
	struct tc_model *m = r->m;
	size_t k = 0;
	for (size_t i = 0; i < r->n_fe; i++) {
		uint32_t c = r->fe[i].cat;
		if (skip_launch_cats && c && (c == r->s.ac2g || c == r->s.async_cpu_to_gpu ||
				c == r->s.async)) {
			continue;
		}
		r->fe[k++] = r->fe[i];
	}
	r->n_fe = k;
	if (!k) {
		return;
	}
	/* Events of the tracks that endpoints refer to, sorted per track. */
	uint8_t *want = tc_xcalloc(m->n_tracks + 1, 1);
	for (size_t i = 0; i < r->n_fe; i++) {
		if (r->fe[i].ev == TC_NONE) {
			uint32_t cand[2];
			flow_tracks(r, &r->fe[i], cand);
			for (int c = 0; c < 2; c++) {
				if (cand[c] != TC_NONE) {
					want[cand[c]] = 1;
				}
			}
		}
	}
	struct tev *tv = NULL;
	size_t ntv = 0, cap = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		uint32_t t = m->ev.track[i];
		if (t < m->n_tracks && want[t]) {
			TC_GROW(tv, cap, ntv + 1);
			tv[ntv++] = (struct tev){ t, m->ev.start[i], m->ev.start[i] + m->ev.dur[i],
				(uint32_t)i };
		}
	}
	free(want);
	if (ntv) {
		tc_sort(tv, ntv, sizeof(*tv), cmp_tev);
	}
	for (size_t i = 0; i < r->n_fe; i++) {
		struct flow_end *f = &r->fe[i];
		if (f->ev != TC_NONE) {
			continue;
		}
		uint32_t cand[2];
		flow_tracks(r, f, cand);
		for (int c = 0; c < 2 && f->ev == TC_NONE; c++) {
			if (cand[c] != TC_NONE) {
				f->ev = bind_end(tv, ntv, cand[c], f->ts, f->enclosing);
			}
		}
	}
	free(tv);
	tc_sort(r->fe, r->n_fe, sizeof(*r->fe), cmp_fe); /* n_fe > 0 here */
	/* Each endpoint that may end a link is linked from the latest earlier
	 * endpoint of the same id that may start one. */
	size_t last_out = SIZE_MAX;
	for (size_t i = 0; i < r->n_fe; i++) {
		const struct flow_end *b = &r->fe[i];
		if (i > 0 && (b->cat != r->fe[i - 1].cat || b->id != r->fe[i - 1].id)) {
			last_out = SIZE_MAX;
		}
		if (b->in && last_out != SIZE_MAX) {
			const struct flow_end *a = &r->fe[last_out];
			if (a->ev == TC_NONE || b->ev == TC_NONE) {
				r->n_flows_unbound++;
			} else if (a->ev != b->ev) {
				tc_model_add_flow(m, a->ev, b->ev, TC_FLOW_GENERIC, a->id);
			}
		}
		if (b->out) {
			last_out = i;
		}
	}
}

/* Device kinds and names, track kinds and names, now that all metadata is in. */
struct step_span {
	int64_t start, end, num;
	uint32_t ev;
};

static int cmp_span_start(const void *pa, const void *pb) {
	const struct step_span *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_span_num(const void *pa, const void *pb) {
	const struct step_span *a = pa, *b = pb;
	return a->num < b->num ? -1 : a->num > b->num;
}

static size_t step_spans(const struct tc_model *m, const uint32_t *evs, size_t n,
		struct step_span *out) {
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t num;
		if (tc_model_arg_i64(m, m->ev.args[evs[i]], m->key.step, &num)) {
			out[k++] = (struct step_span){ m->ev.start[evs[i]],
				m->ev.start[evs[i]] + m->ev.dur[evs[i]], num, evs[i] };
		}
	}
	return k;
}

/*
 * Kineto projects ProfilerStep#N onto the GPU as the span of the GPU work the
 * step launched, and such a device marker wins over the host's. ROCm traces
 * cut the projection short (mi250 minitoy: 8 of the step's 16 kernels fall
 * after it), so a device whose projections miss GPU work launched inside the
 * matching host step keeps them as annotations: the host markers count.
 */
static void check_device_steps(struct reader *r) {
	struct tc_model *m = r->m;
	if (!r->n_dev_steps || !r->n_host_steps) {
		return;
	}
	struct step_span *hs = tc_xmalloc(r->n_host_steps * sizeof(*hs));
	struct step_span *ds = tc_xmalloc(r->n_dev_steps * sizeof(*ds));
	size_t nh = step_spans(m, r->host_steps, r->n_host_steps, hs);
	size_t nd = step_spans(m, r->dev_steps, r->n_dev_steps, ds);
	qsort(hs, nh, sizeof(*hs), cmp_span_start);
	qsort(ds, nd, sizeof(*ds), cmp_span_num);
	uint8_t *short_dev = tc_xcalloc(m->n_devices + 1, 1);
	const int64_t slack = 1000000; /* 1 us: the writer's µs rounding */
	for (size_t f = 0; f < m->n_flows && nh && nd; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->kind != TC_FLOW_LAUNCH) {
			continue;
		}
		/* The host step whose span holds the launch: the last starting
		 * at or before it. */
		int64_t t = m->ev.start[fl->from];
		size_t lo = 0, hi = nh;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (hs[mid].start <= t) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (!lo || t > hs[lo - 1].end) {
			continue;
		}
		int64_t num = hs[lo - 1].num;
		uint32_t dev = m->tracks[m->ev.track[fl->to]].device;
		int64_t a = m->ev.start[fl->to], b = a + m->ev.dur[fl->to];
		lo = 0;
		hi = nd;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ds[mid].num < num) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		for (size_t k = lo; k < nd && ds[k].num == num; k++) {
			if (m->tracks[m->ev.track[ds[k].ev]].device == dev &&
					(a < ds[k].start - slack || b > ds[k].end + slack)) {
				short_dev[dev < m->n_devices ? dev : m->n_devices] = 1;
			}
		}
	}
	uint64_t demoted = 0;
	for (size_t k = 0; k < r->n_dev_steps; k++) {
		uint32_t i = r->dev_steps[k];
		uint32_t dev = m->tracks[m->ev.track[i]].device;
		if (short_dev[dev < m->n_devices ? dev : m->n_devices]) {
			const struct tc_op *o = &m->ops[m->ev.op[i]];
			m->ev.op[i] = tc_model_op(m, o->name, o->category, TC_OP_ANNOTATION);
			demoted++;
		}
	}
	if (demoted) {
		tc_model_warn(m, demoted, "json: device-side ProfilerStep markers miss GPU work "
			"their host step launched; kept as annotations, host step markers used");
	}
	free(short_dev);
	free(hs);
	free(ds);
}

static void settle_devices(struct reader *r, uint32_t host) {
	struct tc_model *m = r->m;
	char buf[512];
	for (size_t i = 0; i < r->n_pids; i++) {
		struct pid_info *p = &r->pids[i];
		if (p->device == TC_NONE) {
			continue;
		}
		struct tc_device *d = &m->devices[p->device];
		const char *name = p->name ? tc_model_str(m, p->name) : NULL;
		const char *label = p->label ? tc_model_str(m, p->label) : NULL;
		const char *key = tc_model_str(m, p->key);
		enum tc_device_kind kind;
		int32_t ordinal = -1;
		if (label && (starts_with(label, "GPU") || starts_with(label, "MTIA") ||
				starts_with(label, "TPU"))) {
			kind = label[0] == 'G' ? TC_DEV_GPU : label[0] == 'T' ? TC_DEV_TPU : TC_DEV_ACCEL;
			d->name = p->label;
			const char *sp = strchr(label, ' ');
			int64_t o;
			if (sp && parse_i64(sp + 1, strlen(sp + 1), &o)) {
				ordinal = (int32_t)o;
			}
		} else if (name && (starts_with(name, "/device:") || starts_with(name, "TPU:") ||
				starts_with(name, "/host:"))) {
			d->name = p->name;
			if (starts_with(name, "/host:")) {
				kind = TC_DEV_CPU;
			} else if (strstr(name, "GPU")) {
				kind = TC_DEV_GPU;
			} else if (strstr(name, "TPU")) {
				kind = TC_DEV_TPU;
			} else {
				kind = TC_DEV_ACCEL;
			}
			const char *colon = strrchr(name, ':');
			int64_t o;
			if (colon && parse_i64(colon + 1, strlen(colon + 1), &o)) {
				ordinal = (int32_t)o;
			}
		} else if (name && starts_with(name, "GPU ")) {
			kind = TC_DEV_GPU;
			d->name = p->name;
			ordinal = p->numeric ? (int32_t)p->num : -1;
		} else if (p->device_activity || p->accel_hint) {
			kind = TC_DEV_GPU;
			snprintf(buf, sizeof(buf), "GPU %s", key);
			d->name = tc_model_intern(m, buf);
			ordinal = p->numeric ? (int32_t)p->num : -1;
		} else if (p->numeric) {
			kind = TC_DEV_CPU;
			if (name && *name) {
				snprintf(buf, sizeof(buf), "%s (pid %s)", name, key);
			} else {
				snprintf(buf, sizeof(buf), "pid %s", key);
			}
			d->name = tc_model_intern(m, buf);
		} else {
			kind = TC_DEV_OTHER;
			d->name = name ? p->name : p->key;
			if (!*tc_model_str(m, d->name)) {
				d->name = tc_model_intern(m, "(no pid)");
			}
		}
		d->kind = (uint8_t)kind;
		d->ordinal = ordinal;
		d->host = host;
		d->src_id = p->numeric ? p->num : (int64_t)tc_hash(key, strlen(key));
		if (kind == TC_DEV_GPU && ordinal >= 0) {
			for (size_t k = 0; k < r->n_dps; k++) {
				const struct devprop *dp = &r->dps[k];
				if (dp->id != ordinal) {
					continue;
				}
				d->model = dp->name;
				d->memory_bytes = dp->mem;
				d->core_count = (int32_t)dp->sms;
				const char *mn = tc_model_str(m, dp->name);
				if (strstr(mn, "NVIDIA") || strstr(mn, "Tesla")) {
					d->vendor = tc_model_intern(m, "NVIDIA");
				} else if (strstr(mn, "AMD")) {
					d->vendor = tc_model_intern(m, "AMD");
				}
				if (dp->has_major) {
					uint32_t b = tc_model_args_begin(m);
					tc_model_arg_int(m, tc_model_intern(m, "computeMajor"), dp->major);
					if (dp->has_minor) {
						tc_model_arg_int(m, tc_model_intern(m, "computeMinor"), dp->minor);
					}
					d->args = tc_model_args_end(m, b);
				}
				break;
			}
		}
	}
	/* Does a device have stream lines? Then XLA Ops on it are derived.
	 * Do its ops name their stream (Kineto)? Then a line whose ops name
	 * none is device activity outside any queue. */
	uint8_t *has_stream = tc_xcalloc(m->n_devices + 1, 1);
	uint8_t *stream_args = tc_xcalloc(m->n_devices + 1, 1);
	for (size_t i = 0; i < r->n_thrs; i++) {
		const struct thr_info *t = &r->thrs[i];
		if (t->track != TC_NONE && t->name &&
				starts_with(tc_model_str(m, t->name), "Stream")) {
			has_stream[m->tracks[t->track].device] = 1;
		}
		if (t->track != TC_NONE && t->n_dev_stream) {
			stream_args[m->tracks[t->track].device] = 1;
		}
	}
	for (size_t i = 0; i < r->n_thrs; i++) {
		const struct thr_info *t = &r->thrs[i];
		if (t->track == TC_NONE) {
			continue;
		}
		struct tc_track *tr = &m->tracks[t->track];
		const struct tc_device *d = &m->devices[tr->device];
		uint32_t tname = t->name;
		if (!tname && t->flavor != FL_PLAIN) {
			uint32_t pl = thr_find(r, t->pid, t->tid, FL_PLAIN, 0, NULL);
			tname = pl != TC_NONE ? r->thrs[pl].name : 0;
		}
		const char *tn = tname ? tc_model_str(m, tname) : NULL;
		const char *tid = tc_model_str(m, t->tid);
		enum tc_track_kind kind;
		bool device = d->kind == TC_DEV_GPU || d->kind == TC_DEV_TPU ||
			d->kind == TC_DEV_ACCEL;
		if (t->flavor == FL_ANNOTATION) {
			kind = TC_TRACK_ANNOTATION;
			snprintf(buf, sizeof(buf), "%s%s annotations", tn ? "" : "stream ", tn ? tn : tid);
			tr->name = tc_model_intern(m, buf);
		} else if (t->flavor == FL_ASYNC) {
			kind = TC_TRACK_OTHER;
			snprintf(buf, sizeof(buf), "async %s", t->acat ? tc_model_str(m, t->acat) : "");
			tr->name = tc_model_intern(m, buf);
		} else if (t->flavor == FL_ASIDE && device) {
			kind = TC_TRACK_OTHER;
			snprintf(buf, sizeof(buf), "%s%s (host)", tn ? "" : "thread ", tn ? tn : tid);
			tr->name = tc_model_intern(m, buf);
		} else {
			if (d->kind == TC_DEV_CPU) {
				kind = TC_TRACK_HOST_THREAD;
			} else if (!device) {
				kind = TC_TRACK_OTHER;
			} else if (!tn || starts_with(tn, "Stream") || starts_with(tn, "stream")) {
				kind = TC_TRACK_STREAM;
			} else if (strcmp(tn, "XLA Ops") == 0) {
				kind = has_stream[tr->device] ? TC_TRACK_DERIVED : TC_TRACK_OPS;
			} else if (strcmp(tn, "XLA Modules") == 0) {
				kind = TC_TRACK_MODULES;
			} else if (strcmp(tn, "Steps") == 0) {
				kind = TC_TRACK_STEPS;
			} else if (strstr(tn, "TensorFlow") || strstr(tn, "Framework") ||
					strstr(tn, "Name Scope") || strstr(tn, "Source")) {
				kind = TC_TRACK_DERIVED;
			} else if (stream_args[tr->device] && t->n_dev_ops && !t->n_dev_stream) {
				/* MTIA's "DMA_REQUEST" line: DMAs on no stream (HTA
				 * leaves stream-less events out of its GPU events):
				 * kept, but not device work (docs/analysis.md). */
				kind = TC_TRACK_OTHER;
			} else {
				kind = TC_TRACK_STREAM;
			}
			if (tn) {
				tr->name = tname;
			} else {
				snprintf(buf, sizeof(buf), "%s %s", kind == TC_TRACK_STREAM ? "stream" :
					"thread", *tid ? tid : "(none)");
				tr->name = tc_model_intern(m, buf);
			}
		}
		if (t->kind_hint >= 0 && t->flavor == FL_PLAIN) {
			kind = (enum tc_track_kind)t->kind_hint;
		}
		tr->kind = (uint8_t)kind;
		if (t->has_sort) {
			tr->sort = t->sort;
		}
	}
	free(has_stream);
	free(stream_args);
}

static bool finish(struct reader *r) {
	struct tc_model *m = r->m;
	/* Unclosed B: run to the last timestamp seen. */
	for (size_t i = 0; i < r->n_thrs; i++) {
		struct thr_info *t = &r->thrs[i];
		for (size_t k = 0; k < t->n_stack; k++) {
			uint32_t idx = t->stack[k];
			m->ev.dur[idx] = r->max_end_ps > m->ev.start[idx] ?
				r->max_end_ps - m->ev.start[idx] : 0;
			m->ev.flags[idx] |= TC_EV_UNFINISHED;
			r->n_unclosed_b++;
		}
	}
	for (size_t i = 0; i < r->async_nslots; i++) {
		if (r->async_key[i] && r->async_ev[i] != TC_NONE) {
			uint32_t idx = r->async_ev[i];
			m->ev.dur[idx] = r->max_end_ps > m->ev.start[idx] ?
				r->max_end_ps - m->ev.start[idx] : 0;
			m->ev.flags[idx] |= TC_EV_UNFINISHED;
			r->n_unclosed_b++;
		}
	}

	char buf[256];
	uint32_t host_name;
	if (r->has_rank) {
		snprintf(buf, sizeof(buf), "rank %" PRId64, r->rank);
		host_name = tc_model_intern(m, buf);
	} else if (r->host_name) {
		host_name = r->host_name;
	} else {
		host_name = tc_ingest_host_from_path(m, tc_model_str(m, m->sources[r->source].path));
	}
	uint32_t host = tc_model_add_host(m, host_name, r->source);
	settle_devices(r, host);

	size_t links = link_correlations(r);
	link_flows(r, links > 0);
	check_device_steps(r);

	/* Origin: Kineto's ts is relative to baseTimeNanoseconds. */
	int64_t origin_us = r->have_origin ? r->origin_us : 0;
	if (origin_us > INT64_MAX / 1000 || origin_us < INT64_MIN / 1000) {
		return fail(r, "json: timestamps out of range");
	}
	int64_t o = origin_us * 1000;
	if (r->have_base) {
		if ((r->base_ns > 0 && o > INT64_MAX - r->base_ns) ||
				(r->base_ns < 0 && o < INT64_MIN - r->base_ns)) {
			return fail(r, "json: baseTimeNanoseconds out of range");
		}
		o += r->base_ns;
	}
	m->origin_ns = o;
	/* µs since 2001 and later read as Unix time. */
	m->origin_epoch = r->have_base || origin_us >= 978307200000000ll;

	if (r->n_empty) {
		tc_model_warn(m, r->n_empty, "json: skipped empty {} events");
	}
	if (r->n_no_ph) {
		tc_model_warn(m, r->n_no_ph, "json: skipped events without \"ph\"");
	}
	if (r->n_no_ts) {
		tc_model_warn(m, r->n_no_ts, "json: skipped events without a valid \"ts\"");
	}
	if (r->n_far_ts) {
		tc_model_warn(m, r->n_far_ts,
			"json: skipped events more than 100 days from the first timestamp");
	}
	if (r->n_no_dur) {
		tc_model_warn(m, r->n_no_dur, "json: complete (X) events without \"dur\" taken as 0");
	}
	if (r->n_dur_range) {
		tc_model_warn(m, r->n_dur_range, "json: complete (X) events with a \"dur\" "
			"out of the timeline's range taken as 0");
	}
	if (r->n_unmatched_e) {
		tc_model_warn(m, r->n_unmatched_e, "json: end (E) events without a begin dropped");
	}
	if (r->n_unclosed_b) {
		tc_model_warn(m, r->n_unclosed_b,
			"json: begin (B/b) events never ended; they run to the last timestamp");
	}
	if (r->n_unmatched_async) {
		tc_model_warn(m, r->n_unmatched_async, "json: async end (e) events without a begin dropped");
	}
	if (r->n_non_object) {
		tc_model_warn(m, r->n_non_object, "json: skipped non-object entries in the event array");
	}
	if (r->n_bad_counter) {
		tc_model_warn(m, r->n_bad_counter, "json: counter (C) events without numeric args skipped");
	}
	if (r->n_flows_unbound) {
		tc_model_warn(m, r->n_flows_unbound, "json: flow events that bind to no slice dropped");
	}
	if (r->trailing_commas) {
		tc_model_warn(m, r->trailing_commas, "json: trailing commas ignored");
	}
	for (int c = 0; c < 128; c++) {
		if (r->n_unknown_ph[c]) {
			tc_model_warn(m, r->n_unknown_ph[c], "json: skipped events of unsupported phase '%c'",
				c >= 0x20 && c < 0x7f ? c : '?');
		}
	}
	return true;
}

static void reader_free(struct reader *r) {
	free(r->ctx);
	free(r->strs);
	free(r->dd_id);
	free(r->ops);
	free(r->cap);
	free(r->dps);
	free(r->pids);
	free(r->pid_slots);
	for (size_t i = 0; i < r->n_thrs; i++) {
		free(r->thrs[i].stack);
	}
	free(r->thrs);
	free(r->thr_slots);
	free(r->async_key);
	free(r->async_ev);
	free(r->fe);
	free(r->pend);
	free(r->host_corr);
	free(r->dev_corr);
	free(r->host_steps);
	free(r->dev_steps);
}

static void init_names(struct reader *r) {
	struct tc_model *m = r->m;
#define I(field, text) r->s.field = tc_model_intern(m, text)
	I(kernel, "kernel");
	I(gpu_memcpy, "gpu_memcpy");
	I(gpu_memset, "gpu_memset");
	I(gpu_user_annotation, "gpu_user_annotation");
	I(Kernel, "Kernel");
	I(Memcpy, "Memcpy");
	I(Memset, "Memset");
	I(cuda_runtime, "cuda_runtime");
	I(cuda_driver, "cuda_driver");
	I(Runtime, "Runtime");
	I(cuda_sync, "cuda_sync");
	I(cpu_op, "cpu_op");
	I(Operator, "Operator");
	I(user_annotation, "user_annotation");
	I(python_function, "python_function");
	I(overhead, "overhead");
	I(Overhead, "Overhead");
	I(cpu_instant_event, "cpu_instant_event");
	I(ac2g, "ac2g");
	I(async_cpu_to_gpu, "async_cpu_to_gpu");
	I(async, "async");
	I(mtia_ccp_events, "mtia_ccp_events");
	I(mtia_runtime, "mtia_runtime");
	I(memory_name, "[memory]");
	I(v2, "\x01flow-v2");
	I(a_name, "name");
	I(a_labels, "labels");
	I(a_sort_index, "sort_index");
	I(a_tc_kind, "tracectl_kind");
	I(a_dev_type, "Device Type");
	I(a_dev_id, "Device Id");
	I(a_total_alloc, "Total Allocated");
	I(a_total_res, "Total Reserved");
	I(a_collective_name, "Collective name");
	I(a_direction, "direction");
	I(a_size, "size");
	I(process_name, "process_name");
	I(process_labels, "process_labels");
	I(process_sort_index, "process_sort_index");
	I(thread_name, "thread_name");
	I(thread_sort_index, "thread_sort_index");
#undef I
}

/* Where the document ended, for a truncated file. */
static bool check_end(struct reader *r) {
	if (r->depth == 0) {
		return true;
	}
	enum ctx c = cur_ctx(r);
	bool between_events = c == C_EVENTS && !r->eof_in_token;
	bool top_level = c == C_ROOT_MAP && r->slot == S_NONE && !r->eof_in_token;
	/* A file cut right after a complete event (or between top-level keys)
	 * is what an interrupted writer leaves; accept it like catapult. */
	if (between_events || top_level) {
		tc_model_warn(r->m, 1, "json: input ends without closing brackets; read up to the last complete event");
		return true;
	}
	const char *where = "a value";
	for (uint32_t d = r->depth; d-- > 0;) {
		if (r->ctx[d] == C_EVENT) {
			where = "an event";
			break;
		}
	}
	return tc_error_set(r->err, TC_EXIT_INPUT, "json: unexpected end of input inside %s",
		where);
}

/*
 * The token loop. json_lex cuts the input into batches of tokens; this side
 * replays them into the callbacks above. When ingest allows a second
 * thread, a producer reads and tokenises batches ahead while this thread
 * replays them (tokenising is the smaller half, so reading stays with it).
 * Errors keep the serial order: a callback's error (earlier bytes) wins over
 * the producer's, which is reported once every token before it is replayed.
 */
#define NBATCH 8

/* A string token's slot: a miss means the slot holds new text. */
static inline void dd_take(struct reader *r, const struct tc_jtok *t) {
	if ((t->dd & (TC_JDD_VALID | TC_JDD_HIT)) == TC_JDD_VALID) {
		r->dd_id[TC_JDD_SLOT(t->dd)] = TC_NONE;
	}
	r->dd = t->dd;
}

static inline __attribute__((always_inline)) int replay(struct reader *r,
		const struct tc_jbatch *bt, const struct tc_jtok *t) {
	const unsigned char *s = bt->buf + t->off;
	int rv;
	switch (t->type) {
	case TC_JT_NULL:
		return on_scalar(r, V_NULL, NULL, 0, false);
	case TC_JT_BOOL:
		return on_scalar(r, V_BOOL, NULL, 0, t->b);
	case TC_JT_NUM:
		return on_scalar(r, V_NUM, s, t->len, false);
	case TC_JT_STR:
		dd_take(r, t);
		rv = on_scalar(r, V_STR, s, t->len, false);
		r->dd = 0;
		return rv;
	case TC_JT_KEY:
		dd_take(r, t);
		rv = on_key(r, s, t->len);
		r->dd = 0;
		return rv;
	case TC_JT_MAP:
	case TC_JT_ARRAY:
		return open_container(r, t->type == TC_JT_MAP);
	default:
		return close_container(r, t->type == TC_JT_END_MAP);
	}
}

/* Replay a batch's tokens, then its producer's error if it failed. A key
 * and its value go together: the value's dispatch is a branch of its own,
 * which the key before it predicts. */
static bool replay_batch(struct reader *r, const struct tc_jbatch *bt, const struct tc_jsrc *src) {
	/* An empty batch may carry no token array: NULL + 0 is undefined. */
	const struct tc_jtok *t = bt->tok, *end = bt->n ? t + bt->n : t;
	for (; t < end; t++) {
		__builtin_prefetch(t + 32);
		int rv;
		if (t->type == TC_JT_KEY) {
			/* The two hot contexts by plain tests, not on_key's jump. */
			enum ctx c = cur_ctx(r);
			const unsigned char *k = bt->buf + t->off;
			dd_take(r, t);
			rv = 1;
			if (c == C_EVENT) {
				event_key(r, k, t->len);
			} else if (c == C_ARGS) {
				args_key(r, k, t->len);
			} else {
				rv = on_key(r, k, t->len);
			}
			r->dd = 0;
			if (rv && t + 1 < end) {
				t++;
				/* A number or string in an event or its args, without
				 * on_scalar's dispatch on the context. */
				enum slot slot = r->slot;
				bool str = t->type == TC_JT_STR;
				if ((c == C_EVENT || c == C_ARGS) && (str || t->type == TC_JT_NUM)) {
					r->slot = S_NONE;
					if (str) {
						dd_take(r, t);
					}
					field_value(r, c, slot, str ? V_STR : V_NUM, bt->buf + t->off, t->len,
						false);
					r->dd = 0;
				} else {
					rv = replay(r, bt, t);
				}
			}
		} else {
			rv = replay(r, bt, t);
		}
		if (!rv) {
			/* The callback set the error; the offset is the token's end. */
			tc_error_set(r->err, TC_EXIT_INPUT, "json: parse stopped");
			return tc_error_at(r->err, (int64_t)(bt->offset_base + t->end));
		}
	}
	if (bt->failed) {
		*r->err = src->err;
		return false;
	}
	return true;
}

/* What the reader needs from the tokeniser once the input is done. */
static void src_done(struct reader *r, const struct tc_jsrc *src) {
	r->eof_in_token = src->lx.eof_in_token;
	r->trailing_commas = src->lx.trailing_commas;
	r->offset_base = src->offset;
}

static bool parse_serial(struct reader *r, struct tc_input *in) {
	struct tc_jsrc src;
	struct tc_jbatch b[2] = { 0 };
	tc_jsrc_init(&src, in, r->lim);
	src.lx.dedup = true;
	bool more = true, ok = true;
	for (size_t k = 0; more && ok; k++) {
		struct tc_jbatch *bt = &b[k & 1];
		more = tc_jsrc_fill(&src, bt);
		ok = replay_batch(r, bt, &src);
	}
	src_done(r, &src);
	tc_jbatch_finish(&b[0]);
	tc_jbatch_finish(&b[1]);
	tc_jsrc_finish(&src);
	return ok;
}

struct pipe {
	struct tc_jsrc src;
	struct tc_jbatch b[NBATCH];
	/* Batches, counted: filled by the producer, released by the consumer
	 * after replay. */
	uint64_t filled, released;
	bool stop;               /* the consumer gave up */
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

static void *produce(void *arg) {
	struct pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->filled - p->released == NBATCH && !p->stop) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		bool stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop) {
			return NULL;
		}
		bool more = tc_jsrc_fill(&p->src, &p->b[p->filled % NBATCH]);
		pthread_mutex_lock(&p->lock);
		p->filled++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		if (!more) {
			return NULL;
		}
	}
}

static bool parse_pipelined(struct reader *r, struct tc_input *in, bool *started) {
	struct pipe *p = tc_xcalloc(1, sizeof(*p));
	tc_jsrc_init(&p->src, in, r->lim);
	p->src.lx.dedup = true;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_t th;
	bool ok = true;
	*started = pthread_create(&th, NULL, produce, p) == 0;
	if (!*started) {
		goto out;
	}
	for (uint64_t k = 0;; k++) {
		pthread_mutex_lock(&p->lock);
		while (p->filled == k) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		pthread_mutex_unlock(&p->lock);
		const struct tc_jbatch *bt = &p->b[k % NBATCH];
		ok = replay_batch(r, bt, &p->src);
		bool last = bt->last;
		pthread_mutex_lock(&p->lock);
		p->released++;
		p->stop = !ok;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		if (!ok || last) {
			break;
		}
	}
	pthread_join(th, NULL);
	src_done(r, &p->src);
out:
	for (int i = 0; i < NBATCH; i++) {
		tc_jbatch_finish(&p->b[i]);
	}
	tc_jsrc_finish(&p->src);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
	return ok;
}

static bool read_json(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	struct reader r = { 0 };
	r.m = m;
	r.lim = lim;
	r.err = err;
	r.source = source;
	r.max_depth = lim->max_depth ? lim->max_depth : 64;
	r.ctx = tc_xcalloc(r.max_depth + 1, 1);
	r.pid_nslots = 64;
	r.pid_slots = tc_xcalloc(r.pid_nslots, sizeof(*r.pid_slots));
	r.thr_nslots = 256;
	r.thr_slots = tc_xcalloc(r.thr_nslots, sizeof(*r.thr_slots));
	r.last_thr = TC_NONE;
	r.strs = tc_xcalloc(STR_CACHE, sizeof(*r.strs));
	r.dd_id = tc_xmalloc(TC_JDD_SLOTS * sizeof(*r.dd_id));
	memset(r.dd_id, 0xff, TC_JDD_SLOTS * sizeof(*r.dd_id)); /* TC_NONE */
	r.ops = tc_xcalloc(OP_CACHE, sizeof(*r.ops));
	init_names(&r);
	init_ev_keys(&r);

	bool ok = false, started = false;
	if (lim->reader_thread) {
		ok = parse_pipelined(&r, in, &started);
	}
	if (!started) {
		ok = parse_serial(&r, in);
	}
	if (!ok) {
		goto out;
	}
	ok = false;
	if (!check_end(&r)) {
		tc_error_at(err, (int64_t)r.offset_base);
		goto out;
	}
	if (!r.saw_events) {
		tc_error_set(err, TC_EXIT_INPUT,
			"json: no \"traceEvents\" array (not a Chrome trace event file)");
		goto out;
	}
	ok = finish(&r);
out:
	reader_free(&r);
	return ok;
}

/* '{' or '[' first (after a UTF-8 BOM and whitespace), then the start of a
 * string or object: JSON text, not binary that happens to start with '{'. */
static int sniff(const uint8_t *head, size_t len) {
	size_t i = tc_json_bom(head, len) ? 3 : 0;
	while (i < len && tc_json_ws(head[i])) {
		i++;
	}
	if (i >= len || (head[i] != '{' && head[i] != '[')) {
		return 0;
	}
	bool array = head[i] == '[';
	i++;
	while (i < len && tc_json_ws(head[i])) {
		i++;
	}
	if (i >= len) {
		return 40;
	}
	if (head[i] == '"' && !array) {
		return 90;
	}
	if (array && (head[i] == '{' || head[i] == ']')) {
		return 90;
	}
	if (head[i] == '}') {
		return 60;
	}
	return 0;
}

const struct tc_reader tc_reader_json = {
	.name = "json",
	.description = "Chrome/Kineto/JAX JSON",
	.sniff = sniff,
	.read = read_json,
};
