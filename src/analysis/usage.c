#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "util/select.h"
#include "util/xalloc.h"

/*
 * The usage pass: device utilisation per device and per stream (busy,
 * compute, communication and their overlap, idle time and why, launch
 * delays, short kernels), with each device's peaks.
 */

struct ev_ref {
	int64_t start;
	uint32_t ev;
	uint32_t track; /* fills the padding */
};

static int cmp_ev_ref(const void *pa, const void *pb) {
	const struct ev_ref *a = pa, *b = pb;
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/*
 * Start of the launching host call of each event on a device-work track
 * (TC_FLOW_LAUNCH), INT64_MIN where none; held only for those tracks'
 * events, which are contiguous per track after finalize.
 */
struct launch_starts {
	int64_t *v;      /* NULL when the trace has no launch flows */
	size_t *off;     /* per track: index of its first event in v, SIZE_MAX if none */
};

static void launch_starts(const struct tc_model *m, struct launch_starts *ls) {
	ls->v = NULL;
	ls->off = NULL;
	for (size_t f = 0; f < m->n_flows; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->kind != TC_FLOW_LAUNCH || fl->from >= m->ev.n || fl->to >= m->ev.n) {
			continue;
		}
		uint32_t t = tc_model_event_track(m, fl->to);
		if (!ls->v) {
			ls->off = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*ls->off));
			size_t n = 0;
			for (size_t k = 0; k < m->n_tracks; k++) {
				bool work = tc_track_kind_is_device_work(
					(enum tc_track_kind)m->tracks[k].kind);
				ls->off[k] = work ? n : SIZE_MAX;
				n += work ? m->tracks[k].count : 0;
			}
			ls->v = tc_xmalloc((n ? n : 1) * sizeof(*ls->v));
			for (size_t i = 0; i < n; i++) {
				ls->v[i] = INT64_MIN;
			}
		}
		if (t < m->n_tracks && ls->off[t] != SIZE_MAX) {
			ls->v[ls->off[t] + (fl->to - m->tracks[t].first)] = m->ev.start[fl->from];
		}
	}
}

/* The launch start of event i on device-work track t (INT64_MIN: none). */
static inline int64_t launch_start(const struct tc_model *m, const struct launch_starts *ls,
		uint32_t t, size_t i) {
	return ls->v[ls->off[t] + (i - m->tracks[t].first)];
}

static void device_gaps(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		const struct launch_starts *ls, int64_t kernel_wait_ps, struct tc_device_util *u) {
	size_t n = 0;
	for (size_t k = 0; k < nt; k++) {
		n += m->tracks[tracks[k]].count;
	}
	if (!n || !ls->v) {
		return;
	}
	struct ev_ref *v = tc_xmalloc(n * sizeof(*v));
	size_t w = 0;
	for (size_t k = 0; k < nt; k++) {
		const struct tc_track *tr = &m->tracks[tracks[k]];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (m->ev.dur[i] > 0) {
				v[w++] = (struct ev_ref){ m->ev.start[i], (uint32_t)i, tracks[k] };
			}
		}
	}
	/* Each track is sorted already: merge the runs (O(n log tracks)). */
	tc_sort_runs(v, w, sizeof(*v), cmp_ev_ref);
	/* A gap is host-bound when the op that ends it was launched after the
	 * device went idle: the device waited for the host (HTA's host_wait). */
	int64_t cur = w ? v[0].start : 0;
	for (size_t k = 0; k < w; k++) {
		uint32_t i = v[k].ev;
		int64_t l = launch_start(m, ls, v[k].track, i);
		if (v[k].start > cur && l != INT64_MIN && l > cur) {
			u->idle_host_wait_ps += v[k].start - cur;
			u->n_gaps_host_wait++;
		} else if (v[k].start > cur && v[k].start - cur < kernel_wait_ps) {
			/* Queued back to back yet apart: launch/dependency latency
			 * between kernels, which CUDA graphs remove. */
			u->idle_kernel_wait_ps += v[k].start - cur;
		}
		int64_t e = tc_model_end(m, i);
		cur = e > cur ? e : cur;
	}
	free(v);
}

void tc_pass_usage(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_device_util **util_out, size_t *n_util_out,
		struct tc_stream_util **streams_out, size_t *n_streams_out) {
	struct launch_starts ls;
	launch_starts(m, &ls);
	int64_t short_ps = (int64_t)(o->th[TC_TH_SHORT_KERNEL_US] * 1e6);
	struct tc_device_util *util = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*util));
	size_t n_util = 0, n_streams = 0;
	struct tc_stream_util *streams = NULL;
	struct tc_cover cov = { 0 };
	struct tc_ivals per_kind[TC_OP_KIND_COUNT] = { 0 };
	size_t scap = 0;
	/* Launch delays per device: device start - launch call start. */
	int64_t **delays = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*delays));
	size_t *nd = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*nd));
	size_t *cd = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*cd));
	for (size_t f = 0; f < m->n_flows; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->kind != TC_FLOW_LAUNCH || fl->from >= m->ev.n || fl->to >= m->ev.n) {
			continue;
		}
		uint32_t t = tc_model_event_track(m, fl->to);
		uint32_t d = t != TC_NONE ? m->tracks[t].device : TC_NONE;
		if (d >= m->n_devices) {
			continue;
		}
		TC_GROW(delays[d], cd[d], nd[d] + 1);
		int64_t dl = m->ev.start[fl->to] - m->ev.start[fl->from];
		delays[d][nd[d]++] = dl;
	}
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
		struct tc_device_util *u = &util[n_util++];
		*u = (struct tc_device_util){ .device = (uint32_t)d, .first_ps = INT64_MAX,
			.last_ps = INT64_MIN, .launch_delay_p50_ps = -1, .launch_delay_max_ps = -1 };
		for (size_t k = 0; k < nt; k++) {
			const struct tc_track *tr = &m->tracks[tracks[k]];
			if (!tr->count) {
				continue;
			}
			struct tc_stream_util su = { .track = tracks[k], .n_events = tr->count };
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				int64_t s = m->ev.start[i], e = tc_model_end(m, i);
				/* Per-stream host wait (HTA's idle categories are per stream). */
				if (ls.v && hi != INT64_MIN && s > hi) {
					int64_t l = launch_start(m, &ls, tracks[k], i);
					if (l != INT64_MIN && l > hi) {
						su.idle_host_wait_ps += s - hi;
					}
				}
				lo = s < lo ? s : lo;
				hi = e > hi ? e : hi;
				if (m->ops[m->ev.op[i]].kind == TC_OP_KERNEL) {
					u->n_kernels++;
					if (m->ev.dur[i] < short_ps) {
						u->n_short_kernels++;
					}
				}
			}
			u->first_ps = lo < u->first_ps ? lo : u->first_ps;
			u->last_ps = hi > u->last_ps ? hi : u->last_ps;
			su.busy_ps = tc_track_busy_ps(m, tracks[k]);
			su.span_ps = hi - lo;
			TC_GROW(streams, scap, n_streams + 1);
			streams[n_streams++] = su;
		}
		tc_ivals_union_per_kind(m, tracks, nt, per_kind);
		cov.n = 0;
		tc_cover_add(&cov, per_kind, TC_OP_KIND_COUNT, INT64_MIN, INT64_MAX);
		/* Comm/compute overlap against kernels, as HTA measures it. */
		u->kernel_ps = tc_cover_len(&cov, TC_KIND_BIT(TC_OP_KERNEL));
		u->overlap_ps = tc_cover_len_both(&cov, TC_KIND_BIT(TC_OP_KERNEL),
			TC_KIND_BIT(TC_OP_COLLECTIVE));
		u->busy_ps = tc_cover_len(&cov, UINT64_MAX);
		u->compute_ps = tc_cover_len(&cov, TC_KINDS_DEVICE_COMPUTE);
		u->comm_ps = tc_cover_len(&cov, TC_KIND_BIT(TC_OP_COLLECTIVE));
		u->idle_ps = u->last_ps - u->first_ps - u->busy_ps;
		device_gaps(m, tracks, nt, &ls, (int64_t)(o->th[TC_TH_KERNEL_WAIT_US] * 1e6), u);
		if (nd[d]) {
			u->n_launches = nd[d];
			int64_t mx = INT64_MIN;
			for (size_t k = 0; k < nd[d]; k++) {
				mx = delays[d][k] > mx ? delays[d][k] : mx;
			}
			u->launch_delay_max_ps = mx;
			u->launch_delay_p50_ps = tc_select_i64(delays[d], nd[d], (nd[d] - 1) / 2);
		}
		u->peak_source = tc_device_peaks(m, (uint32_t)d, o->peak_flops, o->peak_bw,
			&u->peak_flops, &u->peak_bw);
		free(tracks);
	}
	tc_device_tracks_finish(&dt);
	for (size_t d = 0; d < m->n_devices; d++) {
		free(delays[d]);
	}
	free(delays);
	free(nd);
	free(cd);
	tc_cover_finish(&cov);
	tc_ivals_finish_per_kind(per_kind);
	free(ls.v);
	free(ls.off);
	*util_out = util;
	*n_util_out = n_util;
	*streams_out = streams;
	*n_streams_out = n_streams;
}
