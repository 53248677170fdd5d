/*
 * The breakdown pass: each step's time on the breakdown device split into
 * disjoint categories claimed in priority order (idle for the rest), and
 * the copy and host-device transfer statistics per step.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "util/pair.h"
#include "util/xalloc.h"

/*
 * Step-time breakdown into disjoint categories, and copy statistics.
 *
 * Each category is a union of intervals over the breakdown device's lines
 * (device kinds) and its host's lines (host kinds). Categories are then made
 * exclusive in priority order (enum tc_bd_cat): a category keeps only the
 * time no earlier category claimed. What no category claims is idle, so the
 * categories sum exactly to the step time. The order follows XProf's event
 * types, where the larger value wins an overlap (docs/analysis.md).
 */

#define B(k) TC_KIND_BIT(k)

/* Op kinds counted on the device's own work lines. */
static const uint32_t device_kinds[TC_BD_COUNT] = {
	[TC_BD_COMPUTE] = TC_KINDS_DEVICE_COMPUTE,
	[TC_BD_D2H] = B(TC_OP_MEMCPY_D2H),
	[TC_BD_D2D] = B(TC_OP_MEMCPY_D2D) | B(TC_OP_MEMCPY_OTHER),
	[TC_BD_INPUT] = B(TC_OP_DATALOAD),
	[TC_BD_COLLECTIVE] = B(TC_OP_COLLECTIVE),
	[TC_BD_H2D] = B(TC_OP_MEMCPY_H2D),
	[TC_BD_COMPILE] = B(TC_OP_COMPILE),
};

/* Op kinds counted on host lines (threads of the device's host). */
static const uint32_t host_kinds[TC_BD_COUNT] = {
	[TC_BD_INPUT] = B(TC_OP_DATALOAD),
	[TC_BD_PROFILER] = B(TC_OP_OVERHEAD),
	[TC_BD_SYNC] = B(TC_OP_SYNC),
	[TC_BD_LAUNCH] = B(TC_OP_RUNTIME),
	[TC_BD_COMPILE] = B(TC_OP_COMPILE),
	/* A host-side collective call (nccl:all_reduce, c10d::) is the framework
	 * issuing or waiting on communication, where the device runs the
	 * collectives; see category() for where it does not. */
	[TC_BD_HOST] = B(TC_OP_HOST_OP) | B(TC_OP_PYTHON) | B(TC_OP_COLLECTIVE),
};

#undef B

/*
 * The order in which categories claim time. A host-to-device copy running
 * on the device is copy time whatever runtime call or sync the host is
 * blocked in meanwhile (TBP ranks Memcpy above Runtime), so h2d ranks
 * above the host causes; an input wait still claims the copies it
 * overlaps (XProf counts enqueuing data to the device as input).
 */
static const enum tc_bd_cat claim_order[TC_BD_IDLE] = {
	TC_BD_COMPUTE, TC_BD_D2H, TC_BD_D2D, TC_BD_INPUT, TC_BD_COLLECTIVE, TC_BD_H2D,
	TC_BD_PROFILER, TC_BD_SYNC, TC_BD_LAUNCH, TC_BD_COMPILE, TC_BD_HOST,
};

/* Device lines for the breakdown: its work lines (work = true), or its
 * other plain lines (an infeed line, say), which count only for input and
 * compile. Only dev's own tracks (dt) are looked at: a pass over every
 * track per device made many devices cost their square. */
static uint32_t *device_tracks(const struct tc_model *m, const struct tc_device_tracks *dt,
		uint32_t dev, bool work, size_t *n) {
	size_t nt = 0;
	const uint32_t *all = dev != TC_NONE ? tc_device_tracks_of(dt, m, dev, &nt) : NULL;
	uint32_t *v = tc_xmalloc((nt ? nt : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < nt; i++) {
		const struct tc_track *tr = &m->tracks[all[i]];
		bool is_work = tc_track_kind_is_device_work((enum tc_track_kind)tr->kind);
		if (tr->device == dev && (work ? is_work : tr->kind == TC_TRACK_OTHER)) {
			v[k++] = all[i];
		}
	}
	*n = k;
	return v;
}

static uint32_t pick_device(const struct tc_model *m, const struct tc_usage *u,
		uint32_t sd) {
	if (sd == TC_NONE || sd >= m->n_devices) {
		return tc_busiest_device(u->util, u->n_util);
	}
	if (!tc_model_on_host(m, sd)) {
		return sd;
	}
	/* Host markers: the busiest device of the same host (rank), so steps,
	 * device and host threads share one clock and one process. */
	uint32_t best = TC_NONE;
	int64_t bb = -1;
	for (size_t k = 0; k < u->n_util; k++) {
		uint32_t d = u->util[k].device;
		if (m->devices[d].host == m->devices[sd].host && u->util[k].busy_ps > bb) {
			bb = u->util[k].busy_ps;
			best = d;
		}
	}
	return best != TC_NONE ? best : tc_busiest_device(u->util, u->n_util);
}

/* What xfer_add needs of one copy event, read from its args once. */
struct xfer_ev {
	int64_t dur;
	bool done;    /* the -done half of an async copy */
	bool known;   /* carries its bytes */
	bool pageable, pinned;
	double bytes; /* 0 when unknown */
};

static void xfer_read(const struct tc_model *m, size_t i, uint32_t pageable, uint32_t pinned,
		struct xfer_ev *x) {
	*x = (struct xfer_ev){ .dur = m->ev.dur[i] };
	/* An async copy's -done half is time spent on the copy its -start half
	 * issued (and counted), not another copy. */
	if (m->ops[m->ev.op[i]].flags & TC_OPF_ASYNC_DONE) {
		x->done = true;
		return;
	}
	struct tc_arg ka[2];
	unsigned have = m->copy_args ? tc_model_arg_find2(m, tc_model_event_args(m, i),
		m->key.bytes, m->key.memory_kind, ka) : 0;
	double b;
	if ((have & 1) && tc_model_arg_value_num(m, &ka[0], &b) && b >= 0) {
		x->known = true;
		x->bytes = b;
	}
	if ((have & 2) && ka[1].type == TC_ARG_STR) {
		x->pageable = ka[1].v.s == pageable;
		x->pinned = !x->pageable && ka[1].v.s == pinned;
	}
}

static void xfer_add(const struct xfer_ev *e, struct tc_xfer_stats *x) {
	x->dur_ps += e->dur;
	if (e->done) {
		return;
	}
	x->count++;
	if (e->known) {
		x->n_bytes_known++;
		x->bytes += e->bytes;
		x->bytes_dur_ps += e->dur;
	}
	if (e->pageable) {
		x->n_pageable++;
		x->bytes_pageable += e->bytes;
	} else if (e->pinned) {
		x->n_pinned++;
	}
}

/* The copies of track t into total and per_step; false if it has none. */
static bool track_copies(const struct tc_model *m, const struct tc_analysis *a, uint32_t t,
		uint32_t pageable, uint32_t pinned, struct tc_xfer_stats *total,
		struct tc_xfer_stats *per_step) {
	const struct tc_track *tr = &m->tracks[t];
	bool any = false;
	size_t at = 0;
	for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
		int dir;
		switch (m->op_kind[m->ev.op[i]]) {
		case TC_OP_MEMCPY_H2D:
			dir = TC_XFER_H2D;
			break;
		case TC_OP_MEMCPY_D2H:
			dir = TC_XFER_D2H;
			break;
		case TC_OP_MEMCPY_D2D:
		case TC_OP_MEMCPY_OTHER:
			dir = TC_XFER_D2D;
			break;
		default:
			continue;
		}
		struct xfer_ev e;
		any = true;
		xfer_read(m, i, pageable, pinned, &e);
		xfer_add(&e, &total[dir]);
		size_t s = tc_step_at_from(a->steps, a->n_steps, &at, m->ev.start[i]);
		if (s != SIZE_MAX) {
			xfer_add(&e, &per_step[s * TC_XFER_COUNT + dir]);
		}
	}
	return any;
}

/* Copies on device dev's work lines (TC_NONE: every device's), into total
 * and per step of a (n_steps x TC_XFER_COUNT); false if there are none.
 * With streams, dev's work lines as the usage pass found them, in track
 * order: the lines it found no copy on are not walked. With dt (and a
 * device), only dev's tracks are looked at. */
static bool transfers_into(const struct tc_model *m, const struct tc_analysis *a, uint32_t dev,
		const struct tc_device_tracks *dt, const struct tc_stream_util *streams,
		size_t n_streams, struct tc_xfer_stats *total, struct tc_xfer_stats *per_step) {
	uint32_t pageable = tc_intern_find(&m->strings, "pageable", 8);
	uint32_t pinned = tc_intern_find(&m->strings, "pinned", 6);
	bool any = false;
	if (streams) {
		for (size_t k = 0; k < n_streams; k++) {
			if (!streams[k].kinds || (streams[k].kinds & TC_KINDS_COPY)) {
				any |= track_copies(m, a, streams[k].track, pageable, pinned, total,
					per_step);
			}
		}
		return any;
	}
	size_t nt = m->n_tracks;
	const uint32_t *only = dt && dev != TC_NONE ? tc_device_tracks_of(dt, m, dev, &nt) : NULL;
	for (size_t i = 0; i < nt; i++) {
		uint32_t t = only ? only[i] : (uint32_t)i;
		const struct tc_track *tr = &m->tracks[t];
		if (tc_model_on_host(m, tr->device) || (dev != TC_NONE && tr->device != dev) ||
				!tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
			continue;
		}
		any |= track_copies(m, a, t, pageable, pinned, total, per_step);
	}
	return any;
}

void tc_breakdown_transfers(const struct tc_model *m, const struct tc_analysis *a, uint32_t dev,
		struct tc_xfer_stats *total, struct tc_xfer_stats *per_step) {
	transfers_into(m, a, dev, NULL, NULL, 0, total, per_step);
}

/* Each device's copies as the usage pass attributed it (per usage index;
 * see tc_bd_early), or walked here. */
struct dev_xfer {
	bool any;
	struct tc_xfer_stats total[TC_XFER_COUNT];
	struct tc_xfer_stats *per_step; /* n_steps x TC_XFER_COUNT */
};

static void dev_xfer_measure(const struct tc_model *m, const struct tc_analysis *a,
		uint32_t dev, const struct tc_device_tracks *dt, const struct tc_stream_util *streams,
		size_t n_streams, struct dev_xfer *x) {
	x->per_step = tc_xcalloc((a->n_steps ? a->n_steps : 1) * TC_XFER_COUNT,
		sizeof(*x->per_step));
	x->any = transfers_into(m, a, dev, dt, streams, n_streams, x->total, x->per_step);
}

/* The copies of every device (tracks of hosts hold none): the usage
 * devices' own, measured during the usage pass where early did. */
static void transfers(const struct tc_model *m, const struct tc_usage *u,
		const struct tc_device_tracks *dt, struct tc_bd_early *early, struct tc_analysis *a);

/* Which category owns time covered by the lists in bits (device kinds at
 * bit k, host kinds at bit K + k, other device lines' kinds at 2K + k):
 * the first that any of them belongs to; TC_BD_IDLE for none. host_comm:
 * the device runs no collectives (gloo, a CPU-only job), so a host-side
 * collective call is the transfer itself and counts as collective. */
static enum tc_bd_cat category(uint64_t bits, bool host_comm) {
	const uint64_t kmask = ((uint64_t)1 << TC_OP_KIND_COUNT) - 1;
	uint64_t dev = bits & kmask, host = (bits >> TC_OP_KIND_COUNT) & kmask,
		other = (bits >> 2 * TC_OP_KIND_COUNT) & kmask;
	if (host_comm && (host & TC_KIND_BIT(TC_OP_COLLECTIVE))) {
		dev |= TC_KIND_BIT(TC_OP_COLLECTIVE);
	}
	for (int i = 0; i < TC_BD_IDLE; i++) {
		enum tc_bd_cat c = claim_order[i];
		if ((dev & device_kinds[c]) || (host & host_kinds[c]) ||
				((c == TC_BD_INPUT || c == TC_BD_COMPILE) && (other & device_kinds[c]))) {
			return c;
		}
	}
	return TC_BD_IDLE;
}

/* Per-kind unions of one host's threads (tc_host_tracks), made once and
 * shared by the devices of that host. */
struct tc_host_unions {
	uint32_t host; /* tc_host_tracks_keys': TC_NONE for every host thread */
	struct tc_ivals k[TC_OP_KIND_COUNT];
};

static void host_unions_free(struct tc_host_unions *h) {
	if (h) {
		tc_ivals_finish_per_kind(h->k);
		free(h);
	}
}

/* The usage pass attributes devices on two threads: the cache is locked
 * while a host's unions are looked up or made, and each host's unions
 * stay where they were made. */
struct host_cache {
	pthread_mutex_t lock;
	bool two; /* make a host's unions on two threads */
	uint32_t *keys; /* tc_host_tracks_keys, made on the first look-up */
	struct tc_host_unions **v;
	size_t n, cap;
};

static void host_cache_init(struct host_cache *hc, bool two) {
	memset(hc, 0, sizeof(*hc));
	hc->two = two;
	pthread_mutex_init(&hc->lock, NULL);
}

static void host_cache_finish(struct host_cache *hc) {
	for (size_t i = 0; i < hc->n; i++) {
		host_unions_free(hc->v[i]);
	}
	free(hc->v);
	free(hc->keys);
	pthread_mutex_destroy(&hc->lock);
}

/* The compile union of the host's dispatching threads only
 * (tc_track_dispatches), where it has any. */
static void compile_on_dispatchers(const struct tc_model *m, uint32_t *tr, size_t n,
		struct tc_ivals *compile) {
	size_t k = 0;
	uint32_t *keep = tc_xmalloc((n ? n : 1) * sizeof(*keep));
	for (size_t t = 0; t < n; t++) {
		if (tc_track_dispatches(m, tr[t])) {
			keep[k++] = tr[t];
		}
	}
	if (k && k < n) {
		tc_ivals_finish(compile);
		tc_ivals_union_kinds(m, keep, k, TC_KIND_BIT(TC_OP_COMPILE), compile);
	}
	free(keep);
}

/* The unions of the host lines of dev, whose key is host; two: on two
 * threads. */
static struct tc_host_unions *host_unions_build(const struct tc_model *m, uint32_t dev,
		uint32_t host, bool two) {
	struct tc_host_unions *h = tc_xcalloc(1, sizeof(*h));
	h->host = host;
	size_t n;
	uint32_t *tr = tc_host_tracks(m, dev, &n);
	/* Only the kinds some category counts on host lines: markers and
	 * annotations, often most host events, would only be unioned to be
	 * left idle. */
	uint32_t kinds = 0;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		kinds |= host_kinds[c];
	}
	if (two) {
		tc_ivals_union_per_kind_two(m, tr, n, kinds, h->k);
	} else {
		tc_ivals_union_per_kind_of(m, tr, n, kinds, h->k);
	}
	if (h->k[TC_OP_COMPILE].n) {
		compile_on_dispatchers(m, tr, n, &h->k[TC_OP_COMPILE]);
	}
	free(tr);
	return h;
}

/* hc's unions under key host, NULL for none yet. */
static struct tc_host_unions *host_cache_find(const struct host_cache *hc, uint32_t host) {
	for (size_t i = 0; i < hc->n; i++) {
		if (hc->v[i]->host == host) {
			return hc->v[i];
		}
	}
	return NULL;
}

/* Unions made ahead join hc, unless hc has that host's already. */
static void host_cache_adopt(struct host_cache *hc, struct tc_host_unions **ahead) {
	struct tc_host_unions *h = *ahead;
	*ahead = NULL;
	if (h && host_cache_find(hc, h->host)) {
		host_unions_free(h);
	} else if (h) {
		TC_GROW(hc->v, hc->cap, hc->n + 1);
		hc->v[hc->n++] = h;
	}
}

/* host_unions_for's work, with hc locked. */
static const struct tc_ivals *host_unions_make(const struct tc_model *m, struct host_cache *hc,
		uint32_t dev) {
	if (!hc->keys) {
		hc->keys = tc_host_tracks_keys(m);
	}
	uint32_t host = tc_host_tracks_key_of(m, hc->keys, dev);
	const struct tc_host_unions *have = host_cache_find(hc, host);
	if (have) {
		return have->k;
	}
	TC_GROW(hc->v, hc->cap, hc->n + 1);
	/* The other usage thread waits for the same host's unions, most
	 * often: a second thread makes half of them. */
	struct tc_host_unions *h = hc->v[hc->n++] = host_unions_build(m, dev, host, hc->two);
	return h->k;
}

struct tc_host_unions *tc_bd_host_unions_ahead(const struct tc_model *m) {
	/* Where some device's lines are not every host thread, the
	 * breakdown may ask for those. */
	uint32_t *keys = tc_host_tracks_keys(m);
	bool one = true;
	for (size_t d = 0; d < m->n_devices && one; d++) {
		one = keys[d] == TC_NONE;
	}
	free(keys);
	return one ? host_unions_build(m, TC_NONE, TC_NONE, false) : NULL;
}

void tc_bd_host_unions_free(struct tc_host_unions *h) {
	host_unions_free(h);
}

static const struct tc_ivals *host_unions_for(const struct tc_model *m, struct host_cache *hc,
		uint32_t dev) {
	pthread_mutex_lock(&hc->lock);
	const struct tc_ivals *k = host_unions_make(m, hc, dev);
	pthread_mutex_unlock(&hc->lock);
	return k;
}

/*
 * The sync category's host time: each sync call, and the device's idle
 * that starts as it returns, until the device's next op and no longer than
 * the device was busy during the call. The host could have issued what it does after the call while the
 * device worked; the wait kept it from running ahead, so the idle that
 * follows is the sync's (NSYS cuda_api_sync's reasoning). A call that
 * waited on an idle device hid nothing: what follows it is the host's own.
 */
static void sync_with_shadow(const struct tc_ivals *sync, const struct tc_ivals *busy,
		struct tc_ivals *out) {
	/* busy: the device's runs; touching runs leave no gap between them. */
	out->n = 0;
	for (size_t i = 0; i < sync->n; i++) {
		int64_t e = sync->hi[i];
		int64_t hid = tc_ivals_length_in(busy, sync->lo[i], e);
		/* gap is INT64_MAX with no run after e; e + hid cannot wrap: both
		 * are within clamped trace times */
		int64_t gap = tc_ivals_gap_end(busy, e), lim = e + hid;
		tc_ivals_push(out, sync->lo[i], gap < lim ? gap : lim);
	}
}

/*
 * One device's attribution: a sweep per step over the kind runs of its
 * work lines and the per-kind unions of its host's threads and its other
 * lines. The lists are in category() bit order: device work (its runs at
 * [0][0] stand for all of its kinds), host, other device lines.
 */
struct attr_lists {
	struct tc_ivals kinds[3][TC_OP_KIND_COUNT];
	struct tc_ivals sync; /* the host's sync calls with their shadow */
	struct tc_cover cov;
	bool host_comm;       /* the device runs no collectives (category()) */
	/* attr_step's second try: kinds with the host's and other lines'
	 * intervals under decisive runs dropped or cut (their lists in
	 * drop), and a cover of its own; the scratch is each thread's own. */
	struct tc_ivals view[3][TC_OP_KIND_COUNT];
	struct tc_ivals drop[2][TC_OP_KIND_COUNT];
	struct tc_cover vcov;
};

/* A new thread's attr_step scratch over shared lists. */
static void attr_scratch_init(struct attr_lists *x) {
	memset(&x->cov, 0, sizeof(x->cov));
	memset(&x->vcov, 0, sizeof(x->vcov));
	memset(x->drop, 0, sizeof(x->drop));
}

static void attr_scratch_finish(struct attr_lists *x) {
	tc_cover_finish(&x->cov);
	tc_cover_finish(&x->vcov);
	for (int l = 0; l < 2; l++) {
		tc_ivals_finish_per_kind(x->drop[l]);
	}
}

/*
 * Device kinds whose category no host or other line can take: the
 * categories claimed before the first that counts host lines (compute, D2H,
 * D2D). Where a run holds one of them, the other lists leave its
 * category be.
 */
static uint32_t decisive_kinds(void) {
	uint32_t k = 0;
	for (int i = 0; i < TC_BD_IDLE; i++) {
		enum tc_bd_cat c = claim_order[i];
		if (host_kinds[c] || c == TC_BD_INPUT || c == TC_BD_COMPILE ||
				c == TC_BD_COLLECTIVE) {
			break;
		}
		k |= device_kinds[c];
	}
	return k;
}

/* dev_runs: the device's runs, or NULL when they come step by step
 * (then has_coll says whether any is a collective). */
static void attr_begin(struct attr_lists *x, const struct tc_model *m,
		const struct tc_device_tracks *dt, uint32_t dev, const struct tc_ivals *dev_runs,
		bool has_coll, const struct tc_ivals *host_k) {
	_Static_assert(3 * TC_OP_KIND_COUNT <= 64, "kind bits of three track sets");
	memset(x, 0, sizeof(*x));
	memcpy(x->kinds[1], host_k, sizeof(x->kinds[1]));
	/* Runs step by step only come without sync calls: the shadow
	 * reaches past the step. */
	if (host_k[TC_OP_SYNC].n && dev_runs) {
		sync_with_shadow(&host_k[TC_OP_SYNC], dev_runs, &x->sync);
		x->kinds[1][TC_OP_SYNC] = x->sync;
	}
	size_t n;
	uint32_t *tr = device_tracks(m, dt, dev, false, &n);
	tc_ivals_union_per_kind(m, tr, n, x->kinds[2]);
	free(tr);
	for (size_t i = 0; dev_runs && i < dev_runs->n && !has_coll; i++) {
		has_coll = dev_runs->kinds[i] & TC_KIND_BIT(TC_OP_COLLECTIVE);
	}
	x->host_comm = !has_coll;
}

/* Category of runs' kinds with the step's constant bits added: a few
 * kind sets recur run after run, so each is worked out once per step. */
struct cat_memo {
	uint32_t kinds[16]; /* 0: empty (a run always has a kind) */
	uint8_t cat[16];
};

static inline enum tc_bd_cat memo_category(struct cat_memo *cm, uint32_t kinds, uint64_t others,
		bool host_comm) {
	size_t h = (kinds * 0x9E3779B1u) >> 28;
	if (cm->kinds[h] != kinds) {
		cm->kinds[h] = kinds;
		cm->cat[h] = (uint8_t)category(others | kinds, host_comm);
	}
	return (enum tc_bd_cat)cm->cat[h];
}

/* attr_step where every list but the runs is constant over the step
 * (others: those covering it), given per: each run's time by category.
 * The rest goes to others' category; the sums a cover would make. With
 * u, the runs' sums us (all inside the step) are added to u too. */
static void attr_alone_end(const struct attr_lists *x, int64_t *per, struct tc_usage_sums us,
		uint64_t others, int64_t lo, int64_t hi, int64_t *c, int64_t *busy,
		struct tc_device_util *u) {
	if (u) {
		tc_usage_add_sums(u, us);
	}
	/* Every run holds a device kind: its time is busy (within the step,
	 * so it fits an int64). */
	int64_t in = (int64_t)us.busy;
	*busy = in;
	if (others && in < hi - lo) {
		per[category(others, x->host_comm)] += hi - lo - in;
	}
	int64_t sum = 0;
	for (int k = 0; k < TC_BD_COUNT; k++) {
		if (k != TC_BD_IDLE) {
			c[k] = per[k];
			sum += per[k];
		}
	}
	c[TC_BD_IDLE] = hi - lo - sum;
}

/* attr_alone_end from the runs from i on, each run's time to its
 * category straight. */
static void attr_runs_alone(const struct attr_lists *x, const struct tc_ivals *runs, size_t i,
		uint64_t others, int64_t lo, int64_t hi, int64_t *c, int64_t *busy,
		struct tc_device_util *u) {
	struct cat_memo cm = { { 0 }, { 0 } };
	int64_t per[TC_BD_COUNT] = { 0 };
	struct tc_usage_sums us = { 0 };
	for (; i < runs->n && runs->lo[i] < hi; i++) {
		int64_t a = runs->lo[i] > lo ? runs->lo[i] : lo;
		int64_t b = runs->hi[i] < hi ? runs->hi[i] : hi;
		int64_t l = tc_ivals_gap(a, b);
		per[memo_category(&cm, runs->kinds[i], others, x->host_comm)] += l;
		tc_usage_sums_run(&us, (uint64_t)l, runs->kinds[i]);
	}
	attr_alone_end(x, per, us, others, lo, hi, c, busy, u);
}

/* attr_alone_end from the step's runs summed by kinds (all inside it). */
static void attr_sums_alone(const struct attr_lists *x, const struct tc_kind_sums *ks,
		uint64_t others, int64_t lo, int64_t hi, int64_t *c, int64_t *busy,
		struct tc_device_util *u) {
	int64_t per[TC_BD_COUNT] = { 0 };
	struct tc_usage_sums us = { 0 };
	for (size_t i = 0; ks->n && i < ks->cap; i++) {
		if (ks->kinds[i]) {
			per[category(others | ks->kinds[i], x->host_comm)] += (int64_t)ks->len[i];
			tc_usage_sums_run(&us, ks->len[i], ks->kinds[i]);
		}
	}
	attr_alone_end(x, per, us, others, lo, hi, c, busy, u);
}

/* x's lists over [lo, hi) into x->view, the host's and other lines'
 * without what lies under runs of decisive kinds (intervals wholly under
 * them, heads and tails): exact, as there only the run decides the
 * category. Returns how many intervals it left out or cut (0: the view is
 * the lists). */
static size_t attr_view(struct attr_lists *x, const struct tc_ivals *runs, int64_t lo,
		int64_t hi) {
	const uint32_t mask = decisive_kinds();
	size_t dropped = 0;
	memcpy(x->view, x->kinds, sizeof(x->view));
	for (int l = 1; l < 3; l++) {
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			const struct tc_ivals *v = &x->kinds[l][k];
			if (v->n && !v->kinds) {
				dropped += tc_ivals_trim_under(v, runs, mask, lo, hi,
					&x->drop[l - 1][k]);
				x->view[l][k] = x->drop[l - 1][k];
			}
		}
	}
	return dropped;
}

/* Whether every list but the runs is constant over step s, whatever its
 * runs (as long as all lie inside it, as tc_bd_early_runs's do); then
 * attr_sums_alone or attr_runs_alone attributes it, with *others those
 * covering it. */
static bool attr_step_const(struct attr_lists *x, const struct tc_step *s, uint64_t *others) {
	size_t first;
	x->kinds[0][0] = (struct tc_ivals){ 0 };
	return s->dur_ps >= 0 && tc_cover_const_but(&x->cov, &x->kinds[0][0],
		3 * TC_OP_KIND_COUNT, 0, s->start_ps, s->start_ps + s->dur_ps, others, &first);
}

/* attr_step where the lists vary over the step: a cover, after the host's
 * lists are thinned under the device's runs. */
static void attr_step_varied(struct attr_lists *x, const struct tc_ivals *runs,
		const struct tc_step *s, int64_t *c, int64_t *busy, struct tc_device_util *u) {
	const uint64_t dev_bits = ((uint64_t)1 << TC_OP_KIND_COUNT) - 1;
	int64_t lo = s->start_ps, hi = s->start_ps + s->dur_ps, len = s->dur_ps;
	x->kinds[0][0] = *runs;
	uint64_t others;
	size_t first;
	struct tc_cover *cov = &x->cov;
	const struct tc_ivals *lists = &x->kinds[0][0];
	/* Host calls mostly run while the device computes (launches ahead
	 * of it), where they take no time: without them the lists are often
	 * constant over the step, or far sparser; host work around a launch
	 * shrinks to the device's gap. Where none is dropped or cut (no
	 * device work, or host work only where the device idles) the lists
	 * stay as they are. */
	if (s->dur_ps > 0 && runs->n && attr_view(x, runs, lo, hi)) {
		cov = &x->vcov;
		lists = &x->view[0][0];
		if (tc_cover_const_but(cov, lists, 3 * TC_OP_KIND_COUNT, 0, lo, hi, &others,
				&first) && (!u || first == 0)) {
			attr_runs_alone(x, runs, first, others, lo, hi, c, busy, u);
			return;
		}
	}
	if (u) {
		tc_usage_add_runs(u, runs);
	}
	cov->n = 0;
	tc_cover_add(cov, lists, 3 * TC_OP_KIND_COUNT, lo, hi);
	int64_t sum = 0, b = 0;
	memset(c, 0, TC_BD_COUNT * sizeof(*c));
	for (size_t p = 0; p < cov->n; p++) {
		enum tc_bd_cat k = category(cov->v[p].bits, x->host_comm);
		if (k != TC_BD_IDLE) {
			c[k] += cov->v[p].len;
			sum += cov->v[p].len;
		}
		if (cov->v[p].bits & dev_bits) {
			b += cov->v[p].len;
		}
	}
	*busy = b;
	c[TC_BD_IDLE] = len - sum;
}

/* Step s's categories into c (TC_BD_COUNT) and the device's busy time in
 * it, from runs that hold at least the step's. With u, runs (the step's
 * alone) are added to u's utilisation too. */
static void attr_step(struct attr_lists *x, const struct tc_ivals *runs,
		const struct tc_step *s, int64_t *c, int64_t *busy, struct tc_device_util *u) {
	int64_t lo = s->start_ps, hi = s->start_ps + s->dur_ps;
	x->kinds[0][0] = *runs;
	uint64_t others;
	size_t first;
	if (s->dur_ps >= 0 && tc_cover_const_but(&x->cov, &x->kinds[0][0], 3 * TC_OP_KIND_COUNT,
			0, lo, hi, &others, &first) && (!u || first == 0)) {
		attr_runs_alone(x, runs, first, others, lo, hi, c, busy, u);
		return;
	}
	attr_step_varied(x, runs, s, c, busy, u);
}

static void attr_end(struct attr_lists *x) {
	attr_scratch_finish(x);
	tc_ivals_finish(&x->sync);
	tc_ivals_finish_per_kind(x->kinds[2]);
}

/* Half of the steps, [from, to), with a cover of its own over the shared
 * lists. */
struct attr_half {
	const struct tc_analysis *a;
	const struct tc_ivals *dev_runs;
	int64_t *cat, *busy;
	struct tc_step *into;
	size_t from, to;
	struct attr_lists x;
};

/* Fewer steps are not worth a thread. */
#define ATTR_TWO_MIN 64
/* Device events up to which the usage pass lists a device's runs whole,
 * for two threads to attribute its steps, where it would list one step's
 * at a time: at most 20 bytes a run, 40 MiB. */
#define ATTR_WHOLE_MAX ((uint64_t)1 << 21)

static void *attr_half_run(void *p) {
	struct attr_half *h = p;
	for (size_t i = h->from; i < h->to; i++) {
		int64_t b;
		attr_step(&h->x, h->dev_runs, &h->a->steps[i],
			h->into ? h->into[i].cat_ps : h->cat + i * TC_BD_COUNT, &b, NULL);
		if (h->into) {
			h->into[i].busy_ps = b;
		} else if (h->busy) {
			h->busy[i] = b;
		}
	}
	return NULL;
}

/*
 * Each step's time by category on device dev (TC_NONE: host lines only),
 * into cat[step * TC_BD_COUNT + c], and the device's busy time inside each
 * step (busy: NULL not wanted), from the device's runs (dev_runs, from the
 * usage pass; NULL: built here). With into (a's steps), the categories and
 * busy time go to each step's cat_ps and busy_ps instead: no array the
 * size of the steps' is written and copied. With two, a second thread
 * takes the second half of the steps (each step's sums are its own).
 */
static void attribute(const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_device_tracks *dt, uint32_t dev, const struct tc_ivals *dev_runs,
		const struct tc_ivals *host_k, int64_t *cat, int64_t *busy, struct tc_step *into,
		bool two) {
	struct tc_ivals own = { 0 };
	if (!dev_runs) {
		size_t n;
		uint32_t *tr = device_tracks(m, dt, dev, true, &n);
		tc_kind_runs(m, tr, n, UINT32_MAX, &own);
		free(tr);
		dev_runs = &own;
	}
	size_t mid = two && a->n_steps >= ATTR_TWO_MIN ? a->n_steps / 2 : a->n_steps;
	struct attr_half h[2] = {
		{ a, dev_runs, cat, busy, into, 0, mid, { 0 } },
		{ a, dev_runs, cat, busy, into, mid, a->n_steps, { 0 } },
	};
	attr_begin(&h[0].x, m, dt, dev, dev_runs, false, host_k);
	/* The second half shares the lists; its cover is its own. */
	h[1].x = h[0].x;
	attr_scratch_init(&h[1].x);
	tc_run_pair(attr_half_run, &h[0], &h[1], mid < a->n_steps);
	attr_scratch_finish(&h[1].x);
	attr_end(&h[0].x);
	tc_ivals_finish(&own);
}

/* The usage pass's runs for u->util[k]'s device, or NULL. */
static const struct tc_ivals *usage_runs(const struct tc_usage *u, size_t k) {
	return u->kinds ? u->kinds + k : NULL;
}

struct tc_bd_early {
	const struct tc_model *m;
	const struct tc_analysis *a;
	struct host_cache hc;
	struct tc_device_tracks dt;
	/* per usage index k: the device's categories and busy time per step
	 * (NULL: not attributed yet), and its copies (per_step NULL: not
	 * measured) */
	int64_t **cat, **busy;
	struct dev_xfer *xfer;
	bool in_order; /* steps_in_order */
	bool two;      /* one device's runs at a time: its steps may take two threads */
};

/* Whether a's steps follow each other without overlap: then a device's
 * runs can be read once, step by step. */
static bool steps_in_order(const struct tc_analysis *a) {
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct tc_step *s = &a->steps[i];
		if (s->dur_ps < 0 || (i + 1 < a->n_steps &&
				s->start_ps + s->dur_ps > a->steps[i + 1].start_ps)) {
			return false;
		}
	}
	return true;
}

struct tc_bd_early *tc_bd_early_create(const struct tc_model *m,
		const struct tc_analysis_opts *o, const struct tc_analysis *a, bool one_device) {
	struct tc_bd_early *e = tc_xcalloc(1, sizeof(*e));
	e->m = m;
	e->a = a;
	host_cache_init(&e->hc, tc_pass_parallel(o, m->ev.n));
	tc_device_tracks_init(&e->dt, m);
	size_t n = m->n_devices ? m->n_devices : 1;
	e->cat = tc_xcalloc(n, sizeof(*e->cat));
	e->busy = tc_xcalloc(n, sizeof(*e->busy));
	e->xfer = tc_xcalloc(n, sizeof(*e->xfer));
	e->in_order = steps_in_order(a);
	e->two = one_device && tc_pass_parallel(o, m->ev.n);
	return e;
}

void tc_bd_early_runs(void *early, size_t k, struct tc_device_util *util,
		const uint32_t *tracks, size_t nt, bool has_coll, struct tc_gaps *gaps) {
	struct tc_bd_early *e = early;
	const struct tc_model *m = e->m;
	const struct tc_analysis *a = e->a;
	/* step_categories skips devices with no span */
	bool attr = util->last_ps > util->first_ps && a->n_steps;
	const struct tc_ivals *host_k = attr ? host_unions_for(m, &e->hc, util->device) : NULL;
	if (attr) {
		e->cat[k] = tc_xcalloc(a->n_steps * TC_BD_COUNT, sizeof(**e->cat));
		e->busy[k] = tc_xcalloc(a->n_steps, sizeof(**e->busy));
	}
	struct tc_ivals runs = { 0 };
	uint64_t nev = 0;
	for (size_t j = 0; j < nt; j++) {
		nev += m->tracks[tracks[j]].count;
	}
	/* The runs whole where sync shadows reach past their step, and where
	 * many steps lie over few runs: two threads share the steps then. */
	bool split = e->two && a->n_steps >= ATTR_TWO_MIN && nev <= ATTR_WHOLE_MAX;
	if (!attr || !e->in_order || host_k[TC_OP_SYNC].n || split) {
		tc_kind_runs_gaps(m, tracks, nt, UINT32_MAX, &runs, gaps);
		tc_usage_add_runs(util, &runs);
		if (attr) {
			attribute(m, a, &e->dt, util->device, &runs, host_k, e->cat[k], e->busy[k],
				NULL, split);
		}
	} else {
		/* Step by step: only one step's runs are held at a time, and
		 * they are read while still in cache. */
		struct tc_runs_scan sc;
		tc_runs_scan_init(&sc, m, tracks, nt, UINT32_MAX);
		sc.gaps = gaps;
		struct attr_lists x;
		attr_begin(&x, m, &e->dt, util->device, NULL, has_coll, host_k);
		/* Where only the runs' sums by kinds are read (between steps,
		 * and in steps over which the host's lists are constant), the
		 * runs are summed as the scan makes them, never listed. */
		struct tc_kind_sums ks = { 0 };
		for (size_t i = 0; i <= a->n_steps; i++) {
			const struct tc_step *s = i < a->n_steps ? &a->steps[i] : NULL;
			tc_kind_sums_reset(&ks);
			tc_runs_scan_sum_to(&sc, s ? s->start_ps : INT64_MAX, &ks);
			tc_usage_add_kind_sums(util, &ks);
			if (!s) {
				break;
			}
			/* The step's runs alone: attr_step adds them to util too. */
			int64_t *cat = e->cat[k] + i * TC_BD_COUNT;
			uint64_t others;
			if (attr_step_const(&x, s, &others)) {
				tc_kind_sums_reset(&ks);
				tc_runs_scan_sum_to(&sc, s->start_ps + s->dur_ps, &ks);
				attr_sums_alone(&x, &ks, others, s->start_ps, s->start_ps + s->dur_ps,
					cat, &e->busy[k][i], util);
				continue;
			}
			runs.n = 0;
			tc_runs_scan_to(&sc, s->start_ps + s->dur_ps, &runs);
			attr_step_varied(&x, &runs, s, cat, &e->busy[k][i], util);
		}
		tc_kind_sums_finish(&ks);
		attr_end(&x);
		tc_runs_scan_finish(&sc);
	}
	tc_ivals_finish(&runs);
}

/* The copies walk the device's lines too: on this thread, beside the
 * other devices', rather than in one walk after the pass. */
void tc_bd_early_streams(void *early, size_t k, const struct tc_device_util *util,
		const struct tc_stream_util *streams, size_t n_streams) {
	struct tc_bd_early *e = early;
	dev_xfer_measure(e->m, e->a, util->device, &e->dt, streams, n_streams, &e->xfer[k]);
}

static void bd_early_destroy(struct tc_bd_early *e, size_t n_util) {
	if (!e) {
		return;
	}
	for (size_t k = 0; k < n_util; k++) {
		free(e->cat[k]);
		free(e->busy[k]);
		free(e->xfer[k].per_step);
	}
	host_cache_finish(&e->hc);
	tc_device_tracks_finish(&e->dt);
	free(e->cat);
	free(e->busy);
	free(e->xfer);
	free(e);
}

static void transfers(const struct tc_model *m, const struct tc_usage *u,
		const struct tc_device_tracks *dt, struct tc_bd_early *early, struct tc_analysis *a) {
	bool any = false;
	struct tc_xfer_stats *per = NULL;
	for (size_t k = 0; k < u->n_util; k++) {
		struct dev_xfer own = { 0 }, *x = early && early->xfer[k].per_step ?
			&early->xfer[k] : &own;
		if (x == &own) {
			dev_xfer_measure(m, a, u->util[k].device, dt, NULL, 0, &own);
		}
		if (x->any) {
			/* Without copies the steps' stats stay zero: their pages
			 * are left be. */
			per = per ? per : tc_xcalloc((a->n_steps ? a->n_steps : 1) * TC_XFER_COUNT,
				sizeof(*per));
			any = true;
			for (int d = 0; d < TC_XFER_COUNT; d++) {
				tc_xfer_stats_add(&a->xfer[d], &x->total[d]);
			}
			for (size_t i = 0; i < a->n_steps * TC_XFER_COUNT; i++) {
				tc_xfer_stats_add(&per[i], &x->per_step[i]);
			}
		}
		free(own.per_step);
	}
	for (size_t s = 0; any && s < a->n_steps; s++) {
		memcpy(a->steps[s].xfer, per + s * TC_XFER_COUNT, sizeof(a->steps[s].xfer));
	}
	free(per);
}


/* The attribution of every device with device work, and the breakdown
 * device's into the steps themselves. Returns each attributed device's
 * busy time per step (n_attr x n_steps, malloc'd) for attr_totals. */
static int64_t *step_categories(const struct tc_model *m, const struct tc_analysis_opts *o,
		const struct tc_usage *u, const struct tc_device_tracks *dt, struct tc_bd_early *early,
		struct tc_host_unions **hosts, struct tc_analysis *a) {
	struct host_cache local, *hc = early ? &early->hc : &local;
	bool two = tc_pass_parallel(o, m->ev.n);
	host_cache_init(&local, two);
	host_cache_adopt(hc, hosts);
	int64_t *busy = tc_xcalloc(a->n_steps, sizeof(*busy));
	int64_t *dev_busy = tc_xcalloc((u->n_util ? u->n_util : 1) * a->n_steps, sizeof(*dev_busy));
	a->attr = tc_xcalloc(u->n_util ? u->n_util : 1, sizeof(*a->attr));
	bool bd_done = false;
	for (size_t k = 0; k < u->n_util; k++) {
		uint32_t d = u->util[k].device;
		if (u->util[k].last_ps <= u->util[k].first_ps) {
			continue;
		}
		struct tc_dev_attr *at = &a->attr[a->n_attr++];
		at->device = d;
		if (early && early->cat[k]) {
			at->step_cat = early->cat[k];
			early->cat[k] = NULL;
			memcpy(busy, early->busy[k], a->n_steps * sizeof(*busy));
		} else {
			at->step_cat = tc_xcalloc(a->n_steps * TC_BD_COUNT, sizeof(*at->step_cat));
			attribute(m, a, dt, d, usage_runs(u, k), host_unions_for(m, hc, d),
				at->step_cat, busy, NULL, two);
		}
		int64_t in_steps = 0;
		for (size_t i = 0; i < a->n_steps; i++) {
			in_steps += busy[i];
		}
		/* A device with no work inside the steps runs on another
		 * timeline (another rank's clock, another phase): its whole
		 * step would read as idle. It is not attributed. */
		if (in_steps == 0 && d != a->bd_device) {
			free(at->step_cat);
			a->n_attr--;
			continue;
		}
		memcpy(dev_busy + (a->n_attr - 1) * a->n_steps, busy, a->n_steps * sizeof(*busy));
		if (d == a->bd_device) {
			for (size_t i = 0; i < a->n_steps; i++) {
				memcpy(a->steps[i].cat_ps, at->step_cat + i * TC_BD_COUNT,
					sizeof(a->steps[i].cat_ps));
				a->steps[i].busy_ps = busy[i];
			}
			bd_done = true;
		}
	}
	if (!bd_done) {
		const struct tc_ivals *dev_runs = NULL;
		for (size_t k = 0; k < u->n_util && !dev_runs; k++) {
			dev_runs = u->util[k].device == a->bd_device ? usage_runs(u, k) : NULL;
		}
		attribute(m, a, dt, a->bd_device, dev_runs, host_unions_for(m, hc, a->bd_device),
			NULL, NULL, a->steps, two);
	}
	host_cache_finish(&local);
	free(busy);
	return dev_busy;
}

/* Per-device totals over the counted steps. */
static void attr_totals(struct tc_analysis *a, size_t n_full, const int64_t *dev_busy) {
	for (size_t k = 0; k < a->n_attr; k++) {
		struct tc_dev_attr *at = &a->attr[k];
		for (size_t i = 0; i < a->n_steps; i++) {
			if (!tc_step_counted(&a->steps[i], n_full)) {
				continue;
			}
			at->step_ps += a->steps[i].dur_ps;
			at->busy_ps += dev_busy[k * a->n_steps + i];
			for (int c = 0; c < TC_BD_COUNT; c++) {
				at->cat_ps[c] += at->step_cat[i * TC_BD_COUNT + c];
			}
		}
	}
}

void tc_pass_breakdown(const struct tc_model *m, const struct tc_analysis_opts *o,
		const struct tc_usage *u, struct tc_bd_early *early, struct tc_host_unions **hosts,
		struct tc_analysis *a) {
	uint32_t want = tc_analysis_find_device(m, o->device);
	a->bd_device = want != TC_NONE ? want : pick_device(m, u, a->steps_device);
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	int64_t *dev_busy = a->n_steps ? step_categories(m, o, u, &dt, early, hosts, a) : NULL;
	transfers(m, u, &dt, early, a);
	tc_device_tracks_finish(&dt);
	bd_early_destroy(early, u->n_util);
	/* The profiler often stops inside the last step: with much less device
	 * work than the step before, it is partial (TBP drops it). */
	if (a->n_steps >= 2 && a->n_steps == a->n_steps_all) {
		struct tc_step *l = &a->steps[a->n_steps - 1];
		if ((double)l->busy_ps < o->th[TC_TH_PARTIAL_STEP] / 100.0 *
				(double)a->steps[a->n_steps - 2].busy_ps) {
			l->partial = true;
		}
	}
	/* Warm-up and partial steps are reported but left out of the totals
	 * the rules judge, unless nothing else is left. */
	size_t n_full = tc_steps_full(a->steps, a->n_steps);
	for (size_t i = 0; i < a->n_steps; i++) {
		struct tc_step *s = &a->steps[i];
		if (!tc_step_counted(&a->steps[i], n_full)) {
			continue;
		}
		a->n_steps_counted++;
		a->step_total_ps += s->dur_ps;
		for (int c = 0; c < TC_BD_COUNT; c++) {
			a->cat_total_ps[c] += s->cat_ps[c];
		}
	}
	attr_totals(a, n_full, dev_busy);
	free(dev_busy);
}
