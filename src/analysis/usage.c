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
 * Start of the launching host call of each event on a device-work track
 * (TC_FLOW_LAUNCH), INT64_MIN where none; held only for those tracks'
 * events, which are contiguous per track after finalize.
 */
struct launch_starts {
	/* NULL when the trace has no launch flows; else per event, the
	 * launching call's start less INT64_MIN (as unsigned), so calloc's
	 * zeroes mean none: the walks that read it find the host call's start
	 * in line, not by a miss in the host's events per gap */
	uint64_t *from;
	size_t *off;     /* per track: index of its first event in from, SIZE_MAX if none */
};

/* The launch starts, and each device's launch delays (device start -
 * launch call start) into delays[d] and nd[d]: one walk over the flows,
 * one track search each. */
static void launch_starts(const struct tc_model *m, struct launch_starts *ls,
		int64_t **delays, size_t *nd) {
	ls->from = NULL;
	ls->off = NULL;
	size_t *cap = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*cap));
	/* The last flow's track: readers write a device line's flows
	 * together, so most flows need no search. */
	uint32_t t = TC_NONE;
	size_t t_first = 1, t_end = 0;
	for (size_t f = 0; f < m->n_flows; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->kind != TC_FLOW_LAUNCH || fl->from >= m->ev.n || fl->to >= m->ev.n) {
			continue;
		}
		if (fl->to < t_first || fl->to >= t_end) {
			t = tc_model_event_track(m, fl->to);
			t_first = t != TC_NONE ? m->tracks[t].first : 1;
			t_end = t != TC_NONE ? t_first + m->tracks[t].count : 0;
		}
		if (!ls->from) {
			ls->off = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*ls->off));
			size_t n = 0;
			for (size_t k = 0; k < m->n_tracks; k++) {
				bool work = tc_track_kind_is_device_work(
					(enum tc_track_kind)m->tracks[k].kind);
				ls->off[k] = work ? n : SIZE_MAX;
				n += work ? m->tracks[k].count : 0;
			}
			ls->from = tc_xcalloc(n ? n : 1, sizeof(*ls->from));
		}
		if (t < m->n_tracks && ls->off[t] != SIZE_MAX) {
			ls->from[ls->off[t] + (fl->to - m->tracks[t].first)] =
				(uint64_t)m->ev.start[fl->from] - (uint64_t)INT64_MIN;
		}
		uint32_t d = t != TC_NONE ? m->tracks[t].device : TC_NONE;
		if (d >= m->n_devices) {
			continue;
		}
		TC_GROW(delays[d], cap[d], nd[d] + 1);
		delays[d][nd[d]++] = m->ev.start[fl->to] - m->ev.start[fl->from];
	}
	free(cap);
}

/* The launch start of event i on device-work track t (INT64_MIN: none). */
static inline int64_t launch_start(const struct tc_model *m, const struct launch_starts *ls,
		uint32_t t, size_t i) {
	return (int64_t)(ls->from[ls->off[t] + (i - m->tracks[t].first)] + (uint64_t)INT64_MIN);
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

/* Up to this many tracks, the gaps come from the kind runs scan
 * (device_gaps_of), which checks every track's cursor per gap; more are
 * merged by a heap here (device_gaps), log(tracks) per event. */
#define GAP_SCAN_TRACKS 8

/* Many tracks: their events merged in (start, index) order, events with
 * a duration only; cur is the end of the device's work so far. */
static void device_gaps(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		const struct launch_starts *ls, int64_t kernel_wait_ps, struct tc_device_util *u) {
	struct tc_track_merge g;
	tc_track_merge_init(&g, m, tracks, nt, NULL, NULL);
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
			gap_add(u, cur, s, launch_start(m, ls, t, i), kernel_wait_ps);
		}
		int64_t e = tc_model_end(m, i);
		cur = e > cur ? e : cur;
	}
}

/*
 * Few tracks: the gaps between the device's busy stretches, as the kind
 * runs scan found them, each ended by the first event by (start, index)
 * that starts where it ends (of several, the lowest index: the tracks'
 * ranges are disjoint). Each track's cursor only moves forward, so the
 * lines are read once and never merged event by event.
 */
static void device_gaps_of(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		const struct launch_starts *ls, int64_t kernel_wait_ps, const struct tc_ivals *gaps,
		struct tc_device_util *u) {
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	size_t at[GAP_SCAN_TRACKS];
	for (size_t k = 0; k < nt; k++) {
		at[k] = m->tracks[tracks[k]].first;
	}
	for (size_t g = 0; g < gaps->n; g++) {
		int64_t g1 = gaps->hi[g];
		size_t best = SIZE_MAX;
		uint32_t bt = 0;
		for (size_t k = 0; k < nt; k++) {
			const struct tc_track *tr = &m->tracks[tracks[k]];
			size_t i = at[k], end = (size_t)tr->first + tr->count;
			while (i < end && start[i] < g1) {
				i++;
			}
			at[k] = i;
			while (i < end && start[i] == g1 && dur[i] <= 0) {
				i++;
			}
			if (i < end && start[i] == g1 && i < best) {
				best = i;
				bt = tracks[k];
			}
		}
		gap_add(u, gaps->lo[g], g1, best == SIZE_MAX ? INT64_MIN :
			launch_start(m, ls, bt, best), kernel_wait_ps);
	}
}

/* One usage pass: read-only once set up, but for next, the devices' own
 * slots (k) and each's state. */
struct usage_run {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct launch_starts ls;
	int64_t short_ps;
	/* Launch delays per device: device start - launch call start. */
	int64_t **delays;
	size_t *nd;
	/* The devices with work, in device order; k indexes these. */
	size_t n;
	uint32_t *dev;
	uint32_t **tracks;
	size_t *nt;
	struct tc_device_util *util;
	struct tc_stream_util **streams; /* per k, malloc'd */
	size_t *n_streams;
	struct tc_ivals *kinds;          /* n run lists, or NULL */
	tc_usage_each_fn each;
	void *ctx;
	atomic_size_t next;
	/* With op sums: each worker's per-op sums (acc[slot]), slots taken
	 * from next_slot; the lines summed are marked in done. */
	struct tc_op_acc *acc[2];
	bool *done;
	atomic_size_t next_slot;
};

/* Device k's utilisation, streams and kind runs (in kinds, else in
 * scratch), or each reads the runs. scratch and gaps are the thread's
 * own. */
static void device_usage(struct usage_run *r, size_t k, struct tc_ivals *scratch,
		struct tc_ivals *gaps, struct tc_op_acc *acc) {
	const struct tc_model *m = r->m;
	const struct tc_analysis_opts *o = r->o;
	const struct launch_starts *ls = &r->ls;
	size_t d = r->dev[k], nt = r->nt[k];
	const uint32_t *tracks = r->tracks[k];
	struct tc_device_util *u = &r->util[k];
	/* Events with a duration: room for the runs up front. */
	size_t n_timed = 0;
	bool has_coll = false;
	*u = (struct tc_device_util){ .device = (uint32_t)d, .first_ps = INT64_MAX,
		.last_ps = INT64_MIN, .launch_delay_p50_ps = -1, .launch_delay_max_ps = -1 };
	size_t n_streams = 0, scap = 0;
	struct tc_stream_util *streams = NULL;
	for (size_t j = 0; j < nt; j++) {
		const struct tc_track *tr = &m->tracks[tracks[j]];
		if (!tr->count) {
			continue;
		}
		struct tc_stream_util su = { .track = tracks[j], .n_events = tr->count };
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		struct tc_busy_acc busy = TC_BUSY_ACC_INIT;
		/* Columns and counts in locals, out of the stores' way. */
		const int64_t *start = m->ev.start, *durs = m->ev.dur, short_ps = r->short_ps;
		const uint32_t *ops = m->ev.op;
		uint64_t n_kern = 0, n_short = 0;
		uint32_t kinds = 0;
		/* The summary's op sums, on lines where no event nests. */
		struct tc_op_acc *ta = acc && tr->max_depth == 0 &&
			tc_track_kind_is_device_work((enum tc_track_kind)tr->kind) ? acc : NULL;
		if (ta) {
			r->done[tracks[j]] = true;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			int64_t s = start[i], dur = durs[i], e = s + dur;
			tc_busy_acc_add(&busy, s, dur);
			if (ta) {
				tc_op_acc_event(&ta[ops[i]], dur);
			}
			/* Per-stream host wait (HTA's idle categories are per stream). */
			if (ls->from && hi != INT64_MIN && s > hi) {
				int64_t l = launch_start(m, ls, tracks[j], i);
				if (l != INT64_MIN && l > hi) {
					su.idle_host_wait_ps += s - hi;
				}
			}
			lo = s < lo ? s : lo;
			hi = e > hi ? e : hi;
			enum tc_op_kind kind = (enum tc_op_kind)m->ops[ops[i]].kind;
			kinds |= TC_KIND_BIT(kind);
			n_timed += dur > 0;
			has_coll |= kind == TC_OP_COLLECTIVE && dur > 0;
			n_kern += kind == TC_OP_KERNEL;
			n_short += kind == TC_OP_KERNEL && dur < short_ps;
		}
		u->n_kernels += n_kern;
		u->n_short_kernels += n_short;
		u->first_ps = lo < u->first_ps ? lo : u->first_ps;
		u->last_ps = hi > u->last_ps ? hi : u->last_ps;
		su.busy_ps = tc_busy_acc_len(&busy);
		su.span_ps = hi - lo;
		su.kinds = kinds;
		TC_GROW(streams, scap, n_streams + 1);
		streams[n_streams++] = su;
	}
	r->streams[k] = streams;
	r->n_streams[k] = n_streams;
	int64_t kernel_wait_ps = (int64_t)(o->th[TC_TH_KERNEL_WAIT_US] * 1e6);
	/* The idle gaps' causes need launches; with few tracks, the runs
	 * scan finds the gaps. */
	bool gaps_of_scan = ls->from && nt <= GAP_SCAN_TRACKS;
	if (ls->from && !gaps_of_scan) {
		device_gaps(m, tracks, nt, ls, kernel_wait_ps, u);
	}
	size_t nd = r->nd[d];
	if (nd) {
		int64_t *dl = r->delays[d];
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
	gaps->n = 0;
	if (r->each) {
		r->each(r->ctx, k, u, tracks, nt, has_coll, streams, n_streams,
			gaps_of_scan ? gaps : NULL);
	} else {
		struct tc_ivals *runs = r->kinds ? r->kinds + k : scratch;
		tc_runs_reserve(runs, n_timed);
		tc_kind_runs_gaps(m, tracks, nt, UINT32_MAX, runs, gaps_of_scan ? gaps : NULL);
		tc_usage_add_runs(u, runs);
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

/* Devices from the shared counter until none is left. */
static void *usage_worker(void *arg) {
	struct usage_run *r = arg;
	struct tc_ivals scratch = { 0 }, gaps = { 0 };
	struct tc_op_acc *acc = NULL;
	if (r->done) {
		size_t slot = atomic_fetch_add(&r->next_slot, 1);
		acc = r->acc[slot];
	}
	size_t k;
	while ((k = atomic_fetch_add(&r->next, 1)) < r->n) {
		device_usage(r, k, &scratch, &gaps, acc);
	}
	tc_ivals_finish(&scratch);
	tc_ivals_finish(&gaps);
	return NULL;
}

void tc_pass_usage(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_device_util **util_out, size_t *n_util_out,
		struct tc_stream_util **streams_out, size_t *n_streams_out,
		struct tc_ivals **kinds_out, tc_usage_each_fn each, void *ctx,
		struct tc_op_sums *op_sums) {
	size_t nd_all = m->n_devices ? m->n_devices : 1;
	struct usage_run r = { .m = m, .o = o, .each = each, .ctx = ctx,
		.short_ps = (int64_t)(o->th[TC_TH_SHORT_KERNEL_US] * 1e6) };
	r.delays = tc_xcalloc(nd_all, sizeof(*r.delays));
	r.nd = tc_xcalloc(nd_all, sizeof(*r.nd));
	launch_starts(m, &r.ls, r.delays, r.nd);
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
	for (size_t d = 0; d < m->n_devices; d++) {
		free(r.delays[d]);
	}
	free(r.delays);
	free(r.nd);
	free(r.dev);
	free(r.tracks);
	free(r.nt);
	free(r.streams);
	free(r.n_streams);
	free(r.ls.from);
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

void tc_usage_kinds_free(struct tc_ivals *kinds, size_t n_util) {
	for (size_t k = 0; kinds && k < n_util; k++) {
		tc_ivals_finish(kinds + k);
	}
	free(kinds);
}
