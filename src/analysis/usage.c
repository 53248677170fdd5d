/*
 * The usage pass: per device and stream busy, compute and communication
 * time and their overlap, idle time and its causes, launch delays and
 * short kernels.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "util/pair.h"
#include "util/select.h"
#include "util/xalloc.h"

/*
 * The usage pass: device utilisation per device and per stream (busy,
 * compute, communication and their overlap, idle time and why, launch
 * delays, short kernels), with each device's peaks.
 */

/*
 * The launch flows (TC_FLOW_LAUNCH) by the track of the event each
 * launches: per track, flow indexes by rising event (several flows to one
 * event in flow order: the last wins). The walks that read launch starts
 * go up a track in event order with a cursor each, and each device's
 * launch delays come from its tracks' flows. Four bytes a flow: a column
 * per event, written where few events have a launch, cost a page fault
 * (about 2 us here) every 512 events, and per-device delay lists as many
 * again.
 */
struct launch_starts {
	bool any;       /* the trace has launch flows */
	uint32_t *flow; /* NULL when no launch flow's event is on a track */
	size_t *off;    /* per track t: its flows are flow[off[t] .. off[t + 1]) */
};
struct launch_cursor {
	size_t at, end;
};

/* A launch flow between two events of the model. */
static inline bool launch_flow(const struct tc_model *m, const struct tc_flow *fl) {
	return fl->kind == TC_FLOW_LAUNCH && fl->from < m->ev.n && fl->to < m->ev.n;
}

/* The track of launch flow fl's launched event (TC_NONE: on no track).
 * *t, *t_first and *t_end cache the last track: readers write a device
 * line's flows together, so most flows need no search. */
static uint32_t launch_track(const struct tc_model *m, const struct tc_flow *fl, uint32_t *t,
		size_t *t_first, size_t *t_end) {
	if (fl->to < *t_first || fl->to >= *t_end) {
		*t = tc_model_event_track(m, fl->to);
		*t_first = *t != TC_NONE ? m->tracks[*t].first : 1;
		*t_end = *t != TC_NONE ? *t_first + m->tracks[*t].count : 0;
	}
	return *t;
}

/* launch_starts over flows [f0, f1), in two walks: the first counts each
 * track's flows, the second places them. Each half counts on its own. */
struct launch_half {
	const struct tc_model *m;
	size_t f0, f1;
	bool place;
	size_t *count;  /* per track: its flows; then where the next goes */
	uint32_t *last; /* per track: the event of the last flow placed */
	bool *unsorted; /* per track: placed out of event order */
	bool any;
	uint32_t *flow;
};

static void *launch_half_run(void *p) {
	struct launch_half *h = p;
	const struct tc_model *m = h->m;
	uint32_t t = TC_NONE;
	size_t t_first = 1, t_end = 0;
	for (size_t f = h->f0; f < h->f1; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (!launch_flow(m, fl)) {
			continue;
		}
		h->any = true;
		if (launch_track(m, fl, &t, &t_first, &t_end) == TC_NONE) {
			continue;
		}
		if (!h->place) {
			h->count[t]++;
			continue;
		}
		h->flow[h->count[t]++] = (uint32_t)f;
		h->unsorted[t] |= fl->to < h->last[t];
		h->last[t] = fl->to;
	}
	return NULL;
}

struct flow_key {
	uint32_t ev, f;
};

static int flow_key_cmp(const void *pa, const void *pb) {
	const struct flow_key *a = pa, *b = pb;
	if (a->ev != b->ev) {
		return a->ev < b->ev ? -1 : 1;
	}
	return a->f < b->f ? -1 : a->f > b->f;
}

/* The launch flows by track, by two threads with two. */
static void launch_starts(const struct tc_model *m, struct launch_starts *ls, bool two) {
	*ls = (struct launch_starts){ 0 };
	if (!m->n_flows) {
		return;
	}
	size_t nt = m->n_tracks;
	struct launch_half h[2];
	for (int k = 0; k < 2; k++) {
		h[k] = (struct launch_half){ .m = m, .f0 = k ? m->n_flows / 2 : 0,
			.f1 = k ? m->n_flows : m->n_flows / 2,
			.count = tc_xcalloc(nt ? nt : 1, sizeof(size_t)),
			.last = tc_xcalloc(nt ? nt : 1, sizeof(uint32_t)),
			.unsorted = tc_xcalloc(nt ? nt : 1, sizeof(bool)) };
	}
	tc_run_pair(launch_half_run, &h[0], &h[1], two);
	ls->any = h[0].any || h[1].any;
	/* Each track's flows: the first half's, then the second's. */
	size_t *off = tc_xmalloc((nt + 1) * sizeof(*off)), n = 0;
	for (size_t t = 0; t < nt; t++) {
		size_t c0 = h[0].count[t], c1 = h[1].count[t];
		off[t] = n;
		h[0].count[t] = n;
		h[1].count[t] = n + c0;
		n += c0 + c1;
	}
	off[nt] = n;
	if (n) {
		ls->flow = tc_xmalloc(n * sizeof(*ls->flow));
		ls->off = off;
		for (int k = 0; k < 2; k++) {
			h[k].place = true;
			h[k].flow = ls->flow;
		}
		tc_run_pair(launch_half_run, &h[0], &h[1], two);
	} else {
		free(off);
	}
	/* Flows come in event order on most tracks; sort the others. */
	for (size_t t = 0; n && t < nt; t++) {
		size_t mid = h[0].count[t], lo = off[t], hi = off[t + 1];
		if (!h[0].unsorted[t] && !h[1].unsorted[t] && (mid == lo || mid == hi ||
				m->flows[ls->flow[mid - 1]].to <= m->flows[ls->flow[mid]].to)) {
			continue;
		}
		struct flow_key *k = tc_xmalloc((hi - lo) * sizeof(*k));
		for (size_t i = lo; i < hi; i++) {
			k[i - lo] = (struct flow_key){ m->flows[ls->flow[i]].to, ls->flow[i] };
		}
		qsort(k, hi - lo, sizeof(*k), flow_key_cmp);
		for (size_t i = lo; i < hi; i++) {
			ls->flow[i] = k[i - lo].f;
		}
		free(k);
	}
	for (int k = 0; k < 2; k++) {
		free(h[k].count);
		free(h[k].last);
		free(h[k].unsorted);
	}
}

/* A cursor on track t's launch flows, at its first. */
static inline struct launch_cursor launch_cursor(const struct launch_starts *ls, uint32_t t) {
	return ls->flow ? (struct launch_cursor){ ls->off[t], ls->off[t + 1] } :
		(struct launch_cursor){ 0, 0 };
}

/* The launch start of event i (INT64_MIN: none) by c, which moves up to
 * it: i never falls from call to call on one cursor. */
static inline int64_t launch_start(const struct tc_model *m, const struct launch_starts *ls,
		struct launch_cursor *c, size_t i) {
	while (c->at < c->end && m->flows[ls->flow[c->at]].to < i) {
		c->at++;
	}
	/* Of several flows to i, the last. */
	int64_t s = INT64_MIN;
	for (size_t k = c->at; k < c->end && m->flows[ls->flow[k]].to == i; k++) {
		s = m->ev.start[m->flows[ls->flow[k]].from];
	}
	return s;
}

/* Device d's launch delays (device start - launch call start, one per
 * flow to an event on any of its tracks) into *dl (the thread's, grown as
 * needed); returns how many. */
static size_t launch_delays(const struct tc_model *m, const struct launch_starts *ls,
		uint32_t d, int64_t **dl, size_t *cap) {
	size_t n = 0;
	for (size_t t = 0; ls->flow && t < m->n_tracks; t++) {
		if (m->tracks[t].device != d || ls->off[t] == ls->off[t + 1]) {
			continue;
		}
		TC_GROW(*dl, *cap, n + (ls->off[t + 1] - ls->off[t]));
		for (size_t k = ls->off[t]; k < ls->off[t + 1]; k++) {
			const struct tc_flow *fl = &m->flows[ls->flow[k]];
			(*dl)[n++] = m->ev.start[fl->to] - m->ev.start[fl->from];
		}
	}
	return n;
}

/* A gap [g0, g1) in the device's work, ended by an op launched at l
 * (INT64_MIN: not known). It is host-bound when that op was launched after
 * the device went idle: the device waited for the host (HTA's host_wait). */
static inline void gap_add(struct tc_device_util *u, int64_t g0, int64_t g1, int64_t l,
		int64_t kernel_wait_ps) {
	if (l != INT64_MIN && l > g0) {
		u->idle_host_wait_ps += g1 - g0;
		u->n_gaps_host_wait++;
	} else if (g1 - g0 < kernel_wait_ps) {
		/* Queued back to back yet apart: launch/dependency latency
		 * between kernels, which CUDA graphs remove. */
		u->idle_kernel_wait_ps += g1 - g0;
	}
}

/* Up to this many tracks, the gaps and the events ending them come from
 * the kind runs scan (device_gaps_of); more are merged by a heap here
 * (device_gaps), log(tracks) per event. */
#define GAP_SCAN_TRACKS TC_RUNS_SCAN_TRACKS

/* Many tracks: their events merged in (start, index) order, events with
 * a duration only; cur is the end of the device's work so far. */
static void device_gaps(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		const struct launch_starts *ls, int64_t kernel_wait_ps, struct tc_device_util *u) {
	struct tc_track_merge g;
	tc_track_merge_init(&g, m, tracks, nt, NULL, NULL);
	struct launch_cursor *lc = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*lc));
	for (size_t k = 0; k < nt; k++) {
		lc[tracks[k]] = launch_cursor(ls, tracks[k]);
	}
	uint32_t t;
	bool first = true;
	int64_t cur = 0;
	for (size_t i; (i = tc_track_merge_next(&g, m, &t)) != SIZE_MAX;) {
		int64_t s = m->ev.start[i];
		if (first) {
			cur = s;
			first = false;
		}
		if (s > cur) {
			gap_add(u, cur, s, launch_start(m, ls, &lc[t], i), kernel_wait_ps);
		}
		int64_t e = tc_model_end(m, i);
		cur = e > cur ? e : cur;
	}
	free(lc);
}

/* Few tracks: the gaps between the device's busy stretches and the event
 * ending each, as the kind runs scan found them. */
static void device_gaps_of(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		const struct launch_starts *ls, int64_t kernel_wait_ps, const struct tc_gaps *gaps,
		struct tc_device_util *u) {
	struct launch_cursor lc[GAP_SCAN_TRACKS];
	for (size_t k = 0; k < nt; k++) {
		lc[k] = launch_cursor(ls, tracks[k]);
	}
	for (size_t g = 0; g < gaps->iv.n; g++) {
		size_t i = gaps->ev[g], k = 0;
		while (k + 1 < nt && (i < m->tracks[tracks[k]].first ||
				i >= (size_t)m->tracks[tracks[k]].first + m->tracks[tracks[k]].count)) {
			k++;
		}
		gap_add(u, gaps->iv.lo[g], gaps->iv.hi[g], launch_start(m, ls, &lc[k], i),
			kernel_wait_ps);
	}
}

/* Events of the one device from which its streams are walked aside
 * unless threads are asked for: a thread costs about 50 us to start. */
#define USAGE_ASIDE_MIN ((uint64_t)1 << 18)

/* One usage pass: read-only once set up, but for next, the devices' own
 * slots (k) and each's state. */
struct usage_run {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct launch_starts ls;
	int64_t short_ps;
	/* The devices with work, in device order; k indexes these. */
	size_t n;
	uint32_t *dev;
	uint32_t **tracks;
	size_t *nt;
	struct tc_device_util *util;
	struct tc_stream_util **streams; /* per k, malloc'd */
	size_t *n_streams;
	struct tc_ivals *kinds;          /* n run lists, or NULL */
	const struct tc_usage_each *each;
	/* One device, big, no collective op: its streams are walked on a
	 * thread of their own while this one reads the runs. */
	bool aside;
	atomic_size_t next;
	/* With op sums: each worker's per-op sums (acc[slot]), slots taken
	 * from next_slot; the lines summed are marked in done. */
	struct tc_op_acc *acc[2];
	bool *done;
	atomic_size_t next_slot;
};

/* A usage thread's own lists, kept from device to device. */
struct usage_scratch {
	struct tc_ivals runs;
	struct tc_gaps gaps;
	int64_t *dl; /* launch delays */
	size_t dl_cap;
};

/* One walk of device k's lines: their streams, and the device's span and
 * counts. */
struct dev_walk {
	const struct usage_run *r;
	size_t k;
	struct tc_op_acc *acc; /* the summary's op sums, or NULL */
	struct tc_stream_util *streams;
	size_t n_streams;
	size_t n_timed;        /* events with a duration */
	bool has_coll;
	uint64_t n_kern, n_short;
	int64_t first_ps, last_ps;
};

/* One line's counts as device_streams sums them. */
struct line_sums {
	uint64_t n_kern, n_short, n_timed, flat_busy;
	uint32_t kinds;
	bool has_coll;
	int64_t hi;
};

/*
 * Events [i, end) of one line into o and su (and ta, the op sums, unless
 * NULL). On a flat line (no event nests) the busy time is the durations'
 * sum, under 2^63 as the events lie in clamped times; with lean (flat,
 * and no launches to look up) the start column is never read, and the
 * line's last end is the one finalize kept. The walk reads the
 * columns from memory, so a column not read is time saved.
 */
static inline __attribute__((always_inline)) void line_events(const struct tc_model *m,
		const struct launch_starts *ls, size_t i, size_t end, int64_t short_ps,
		struct tc_op_acc *ta, const bool lean, bool flat, struct tc_busy_acc *busy,
		struct launch_cursor *lc, struct tc_stream_util *su, struct line_sums *o) {
	/* Columns and counts in locals, out of the stores' way. */
	const int64_t *start = m->ev.start, *durs = m->ev.dur;
	const uint32_t *ops = m->ev.op;
	const uint8_t *op_kind = m->op_kind;
	uint64_t n_kern = 0, n_short = 0, n_timed = 0, flat_busy = 0;
	uint32_t kinds = 0;
	bool has_coll = false;
	int64_t hi = INT64_MIN;
	for (; i < end; i++) {
		int64_t dur = durs[i];
		if (lean || flat) {
			flat_busy += (uint64_t)dur;
		}
		if (!lean) {
			int64_t s = start[i], e = s + dur;
			if (!flat) {
				tc_busy_acc_add(busy, s, dur);
			}
			/* Per-stream host wait (HTA's idle categories are per
			 * stream). */
			if (ls->flow && hi != INT64_MIN && s > hi) {
				int64_t l = launch_start(m, ls, lc, i);
				if (l != INT64_MIN && l > hi) {
					su->idle_host_wait_ps += s - hi;
				}
			}
			hi = e > hi ? e : hi;
		}
		if (ta) {
			tc_op_acc_event(&ta[ops[i]], dur);
			tc_op_acc_short(&ta[ops[i]], dur, short_ps);
		}
		enum tc_op_kind kind = (enum tc_op_kind)op_kind[ops[i]];
		kinds |= TC_KIND_BIT(kind);
		n_timed += dur > 0;
		has_coll |= kind == TC_OP_COLLECTIVE && dur > 0;
		n_kern += kind == TC_OP_KERNEL;
		n_short += kind == TC_OP_KERNEL && dur < short_ps;
	}
	*o = (struct line_sums){ n_kern, n_short, n_timed, flat_busy, kinds, has_coll, hi };
}

static void device_streams(struct dev_walk *w) {
	const struct usage_run *r = w->r;
	const struct tc_model *m = r->m;
	const struct launch_starts *ls = &r->ls;
	const uint32_t *tracks = r->tracks[w->k];
	size_t nt = r->nt[w->k], scap = 0;
	w->first_ps = INT64_MAX;
	w->last_ps = INT64_MIN;
	for (size_t j = 0; j < nt; j++) {
		const struct tc_track *tr = &m->tracks[tracks[j]];
		if (!tr->count) {
			continue;
		}
		struct tc_stream_util su = { .track = tracks[j], .n_events = tr->count };
		struct tc_busy_acc busy = TC_BUSY_ACC_INIT;
		/* The summary's op sums, on lines where no event nests. */
		struct tc_op_acc *ta = w->acc && tr->max_depth == 0 &&
			tc_track_kind_is_device_work((enum tc_track_kind)tr->kind) ? w->acc : NULL;
		if (ta) {
			r->done[tracks[j]] = true;
		}
		struct launch_cursor lc = launch_cursor(ls, tracks[j]);
		const bool flat = tr->max_depth == 0;
		size_t i = tr->first, end = i + tr->count;
		struct line_sums o;
		if (flat && !ls->flow) {
			line_events(m, ls, i, end, r->short_ps, ta, true, true, &busy, &lc, &su, &o);
			o.hi = tr->end;
		} else {
			line_events(m, ls, i, end, r->short_ps, ta, false, flat, &busy, &lc, &su, &o);
		}
		/* Finalized, a line's first event starts first. */
		int64_t lo = m->ev.start[i];
		w->n_kern += o.n_kern;
		w->n_short += o.n_short;
		w->n_timed += o.n_timed;
		w->has_coll |= o.has_coll;
		w->first_ps = lo < w->first_ps ? lo : w->first_ps;
		w->last_ps = o.hi > w->last_ps ? o.hi : w->last_ps;
		su.busy_ps = !flat ? tc_busy_acc_len(&busy) :
			o.flat_busy > INT64_MAX ? INT64_MAX : (int64_t)o.flat_busy;
		su.span_ps = o.hi - lo;
		su.kinds = o.kinds;
		TC_GROW(w->streams, scap, w->n_streams + 1);
		w->streams[w->n_streams++] = su;
	}
}

static void *device_streams_run(void *p) {
	device_streams(p);
	return NULL;
}

/* Device k's utilisation, streams and kind runs (in kinds, else in
 * sc->runs), or each reads the runs. */
static void device_usage(struct usage_run *r, size_t k, struct usage_scratch *sc,
		struct tc_op_acc *acc) {
	const struct tc_model *m = r->m;
	const struct tc_analysis_opts *o = r->o;
	const struct launch_starts *ls = &r->ls;
	size_t d = r->dev[k], nt = r->nt[k];
	const uint32_t *tracks = r->tracks[k];
	struct tc_device_util *u = &r->util[k];
	*u = (struct tc_device_util){ .device = (uint32_t)d, .first_ps = INT64_MAX,
		.last_ps = INT64_MIN, .launch_delay_p50_ps = -1, .launch_delay_max_ps = -1 };
	struct dev_walk w = { .r = r, .k = k, .acc = acc };
	pthread_t th;
	bool aside = r->aside && pthread_create(&th, NULL, device_streams_run, &w) == 0;
	if (aside) {
		/* The span from the lines; no collective op, so none on them. */
		tc_model_tracks_span(m, tracks, nt, &u->first_ps, &u->last_ps);
	} else {
		device_streams(&w);
		u->first_ps = w.first_ps;
		u->last_ps = w.last_ps;
	}
	int64_t kernel_wait_ps = (int64_t)(o->th[TC_TH_KERNEL_WAIT_US] * 1e6);
	/* The idle gaps' causes need launches; with few tracks, the runs
	 * scan finds the gaps. */
	bool gaps_of_scan = ls->any && nt <= GAP_SCAN_TRACKS;
	if (ls->any && !gaps_of_scan) {
		device_gaps(m, tracks, nt, ls, kernel_wait_ps, u);
	}
	size_t nd = launch_delays(m, ls, (uint32_t)d, &sc->dl, &sc->dl_cap);
	if (nd) {
		int64_t *dl = sc->dl;
		u->n_launches = nd;
		int64_t mx = INT64_MIN;
		for (size_t i = 0; i < nd; i++) {
			mx = dl[i] > mx ? dl[i] : mx;
		}
		u->launch_delay_max_ps = mx;
		u->launch_delay_p50_ps = tc_select_i64(dl, nd, (nd - 1) / 2);
	}
	u->peak_source = tc_device_peaks(m, (uint32_t)d, o->peak_flops, o->peak_bw,
		&u->peak_flops, &u->peak_bw);
	/* The runs last: each, where set, reads them as it needs. */
	struct tc_gaps *gaps = &sc->gaps;
	gaps->iv.n = 0;
	if (r->each) {
		r->each->runs(r->each->ctx, k, u, tracks, nt, !aside && w.has_coll,
			gaps_of_scan ? gaps : NULL);
	} else {
		struct tc_ivals *runs = r->kinds ? r->kinds + k : &sc->runs;
		tc_runs_reserve(runs, w.n_timed);
		tc_kind_runs_gaps(m, tracks, nt, UINT32_MAX, runs, gaps_of_scan ? gaps : NULL);
		tc_usage_add_runs(u, runs);
	}
	if (aside) {
		pthread_join(th, NULL);
		assert(w.first_ps == u->first_ps && w.last_ps == u->last_ps && !w.has_coll);
	}
	u->n_kernels += w.n_kern;
	u->n_short_kernels += w.n_short;
	r->streams[k] = w.streams;
	r->n_streams[k] = w.n_streams;
	if (r->each) {
		r->each->streams(r->each->ctx, k, u, w.streams, w.n_streams);
	}
	if (gaps_of_scan) {
		device_gaps_of(m, tracks, nt, ls, kernel_wait_ps, gaps, u);
	}
	u->idle_ps = u->last_ps - u->first_ps - u->busy_ps;
}

/* Saturated to int64 once summed: 128 bits hold the total and a piece's
 * sum. */
static int64_t sat_add128(int64_t a, __int128 b) {
	__int128 s = (__int128)a + b;
	return s > INT64_MAX ? INT64_MAX : s < INT64_MIN ? INT64_MIN : (int64_t)s;
}

void tc_usage_add_sums(struct tc_device_util *u, struct tc_usage_sums s) {
	u->busy_ps = sat_add128(u->busy_ps, s.busy);
	u->compute_ps = sat_add128(u->compute_ps, s.compute);
	u->kernel_ps = sat_add128(u->kernel_ps, s.kernel);
	u->comm_ps = sat_add128(u->comm_ps, s.comm);
	u->overlap_ps = sat_add128(u->overlap_ps, s.both);
}

void tc_usage_add_runs(struct tc_device_util *u, const struct tc_ivals *runs) {
	struct tc_usage_sums s = { 0 };
	for (size_t i = 0; i < runs->n; i++) {
		tc_usage_sums_run(&s, (uint64_t)tc_ivals_gap(runs->lo[i], runs->hi[i]), runs->kinds[i]);
	}
	tc_usage_add_sums(u, s);
}

void tc_usage_add_kind_sums(struct tc_device_util *u, const struct tc_kind_sums *ks) {
	struct tc_usage_sums s = { 0 };
	for (size_t i = 0; ks->n && i < ks->cap; i++) {
		if (ks->kinds[i]) {
			tc_usage_sums_run(&s, ks->len[i], ks->kinds[i]);
		}
	}
	tc_usage_add_sums(u, s);
}

/* Devices from the shared counter until none is left. */
static void *usage_worker(void *arg) {
	struct usage_run *r = arg;
	struct usage_scratch sc = { 0 };
	struct tc_op_acc *acc = NULL;
	if (r->done) {
		size_t slot = atomic_fetch_add(&r->next_slot, 1);
		acc = r->acc[slot];
	}
	size_t k;
	while ((k = atomic_fetch_add(&r->next, 1)) < r->n) {
		device_usage(r, k, &sc, acc);
	}
	tc_ivals_finish(&sc.runs);
	tc_gaps_finish(&sc.gaps);
	free(sc.dl);
	return NULL;
}

void tc_pass_usage(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_device_util **util_out, size_t *n_util_out,
		struct tc_stream_util **streams_out, size_t *n_streams_out,
		struct tc_ivals **kinds_out, const struct tc_usage_each *each,
		struct tc_op_sums *op_sums) {
	size_t nd_all = m->n_devices ? m->n_devices : 1;
	struct usage_run r = { .m = m, .o = o, .each = each,
		.short_ps = (int64_t)(o->th[TC_TH_SHORT_KERNEL_US] * 1e6) };
	launch_starts(m, &r.ls, tc_pass_parallel(o, m->n_flows));
	/* The devices with work, each with its work tracks. */
	r.dev = tc_xmalloc(nd_all * sizeof(*r.dev));
	r.tracks = tc_xmalloc(nd_all * sizeof(*r.tracks));
	r.nt = tc_xmalloc(nd_all * sizeof(*r.nt));
	uint64_t total = 0;
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	for (size_t d = 0; d < m->n_devices; d++) {
		if (m->devices[d].kind == TC_DEV_CPU) {
			continue;
		}
		size_t nt;
		uint32_t *tracks = tc_device_work_tracks(m, &dt, (uint32_t)d, &nt);
		uint64_t nev = 0;
		for (size_t k = 0; k < nt; k++) {
			nev += m->tracks[tracks[k]].count;
		}
		if (!nev) {
			free(tracks);
			continue;
		}
		r.dev[r.n] = (uint32_t)d;
		r.tracks[r.n] = tracks;
		r.nt[r.n++] = nt;
		total += nev;
	}
	tc_device_tracks_finish(&dt);
	r.util = tc_xcalloc(nd_all, sizeof(*r.util));
	r.streams = tc_xcalloc(r.n ? r.n : 1, sizeof(*r.streams));
	r.n_streams = tc_xcalloc(r.n ? r.n : 1, sizeof(*r.n_streams));
	r.kinds = kinds_out ? tc_xcalloc(nd_all, sizeof(*r.kinds)) : NULL;
	atomic_init(&r.next, 0);
	atomic_init(&r.next_slot, 0);
	if (op_sums) {
		r.done = tc_xcalloc(m->n_tracks ? m->n_tracks : 1, sizeof(*r.done));
		for (int w = 0; w < 2; w++) {
			r.acc[w] = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*r.acc[w]));
			for (size_t q = 0; q < m->n_ops; q++) {
				r.acc[w][q] = (struct tc_op_acc){ .min = INT64_MAX };
			}
		}
	}
	/* Without a collective op no line has one: the runs need not wait
	 * for the streams' walk to know. */
	bool any_coll = false;
	for (size_t q = 0; q < m->n_ops; q++) {
		any_coll |= m->op_kind[q] == TC_OP_COLLECTIVE;
	}
	r.aside = each && r.n == 1 && !any_coll &&
		tc_pass_parallel(o, total >= USAGE_ASIDE_MIN ? total : 0);
	/* Devices are independent: two threads take them from one counter,
	 * each result in its own slot, so the output is the same either way. */
	tc_run_pair(usage_worker, &r, &r, r.n >= 2 && tc_pass_parallel(o, total));
	if (op_sums) {
		/* The two workers' sums, in either order the same. */
		for (size_t q = 0; q < m->n_ops; q++) {
			tc_op_acc_merge(&r.acc[0][q], &r.acc[1][q]);
		}
		free(r.acc[1]);
		op_sums->op = r.acc[0];
		op_sums->done = r.done;
		op_sums->under = r.short_ps;
	}
	/* The streams in device order, as one list. */
	size_t n_streams = 0;
	for (size_t k = 0; k < r.n; k++) {
		n_streams += r.n_streams[k];
	}
	struct tc_stream_util *streams = n_streams ? tc_xmalloc(n_streams * sizeof(*streams)) : NULL;
	size_t at = 0;
	for (size_t k = 0; k < r.n; k++) {
		if (r.n_streams[k]) {
			memcpy(streams + at, r.streams[k], r.n_streams[k] * sizeof(*streams));
		}
		at += r.n_streams[k];
		free(r.streams[k]);
		free(r.tracks[k]);
	}
	free(r.dev);
	free(r.tracks);
	free(r.nt);
	free(r.streams);
	free(r.n_streams);
	free(r.ls.flow);
	free(r.ls.off);
	*util_out = r.util;
	*n_util_out = r.n;
	*streams_out = streams;
	*n_streams_out = n_streams;
	if (kinds_out) {
		*kinds_out = r.kinds;
	}
}

void tc_op_sums_finish(struct tc_op_sums *s) {
	free(s->op);
	free(s->done);
	memset(s, 0, sizeof(*s));
}

void tc_usage_kinds_destroy(struct tc_ivals *kinds, size_t n_util) {
	for (size_t k = 0; kinds && k < n_util; k++) {
		tc_ivals_finish(kinds + k);
	}
	free(kinds);
}
