#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/intervals.h"
#include "util/select.h"
#include "util/xalloc.h"

/*
 * Device utilisation, memory peaks and compilation time.
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

void tc_analyze_util(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_analysis *a) {
	struct launch_starts ls;
	launch_starts(m, &ls);
	int64_t short_ps = (int64_t)(o->th[TC_TH_SHORT_KERNEL_US] * 1e6);
	a->util = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*a->util));
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
		struct tc_device_util *u = &a->util[a->n_util++];
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
			TC_GROW(a->streams, scap, a->n_streams + 1);
			a->streams[a->n_streams++] = su;
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
		u->peak_source = tc_device_peaks(m, (uint32_t)d, o, &u->peak_flops, &u->peak_bw);
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
}

void tc_analyze_memory(const struct tc_model *m, struct tc_analysis *a) {
	uint32_t alloc = tc_intern_find(&m->strings, "memory.allocated", 16);
	uint32_t reserved = tc_intern_find(&m->strings, "memory.reserved", 15);
	size_t cap = 0;
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if ((ct->name != alloc && ct->name != reserved) || ct->name == TC_NONE || !ct->count) {
			continue;
		}
		struct tc_mem_peak p = {
			.device = ct->device, .name = ct->name, .group = ct->group,
			.peak_bytes = -1, .samples = ct->count,
		};
		for (size_t s = ct->first; s < ct->first + ct->count; s++) {
			if (m->samples.value[s] > p.peak_bytes) {
				p.peak_bytes = m->samples.value[s];
				p.peak_ts_ps = m->samples.ts[s];
			}
		}
		if (ct->device < m->n_devices) {
			p.capacity_bytes = m->devices[ct->device].memory_bytes;
		}
		TC_GROW(a->mem, cap, a->n_mem + 1);
		a->mem[a->n_mem++] = p;
	}
}

uint32_t tc_analysis_busiest_device(const struct tc_analysis *a) {
	uint32_t best = TC_NONE;
	int64_t bb = -1;
	for (size_t k = 0; k < a->n_util; k++) {
		if (a->util[k].busy_ps > bb) {
			bb = a->util[k].busy_ps;
			best = a->util[k].device;
		}
	}
	return best;
}

static int cmp_key_dur(const void *pa, const void *pb) {
	const struct tc_key_dur *a = pa, *b = pb;
	return a->key < b->key ? -1 : a->key > b->key;
}

struct tc_compile_entry *tc_group_key_dur(struct tc_key_dur *v, size_t n, size_t *n_groups) {
	tc_sort(v, n, sizeof(*v), cmp_key_dur);
	struct tc_compile_entry *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t tot = 0;
		while (j < n && v[j].key == v[i].key) {
			tot += v[j].dur;
			j++;
		}
		TC_GROW(g, cap, ng + 1);
		g[ng++] = (struct tc_compile_entry){ .name = v[i].key, .count = j - i, .total_ps = tot };
		i = j;
	}
	*n_groups = ng;
	return g;
}

static int cmp_centry(const void *pa, const void *pb) {
	const struct tc_compile_entry *a = pa, *b = pb;
	if (a->count != b->count) {
		return a->count > b->count ? -1 : 1;
	}
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

void tc_analyze_compile(const struct tc_model *m, struct tc_analysis *a) {
	struct tc_compile_stats *c = &a->compile;
	uint32_t *tracks = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*tracks));
	size_t nt = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (m->tracks[t].kind != TC_TRACK_DERIVED) {
			tracks[nt++] = (uint32_t)t;
		}
	}
	struct tc_ivals u = { 0 };
	tc_ivals_union_kinds(m, tracks, nt, TC_KIND_BIT(TC_OP_COMPILE), &u);
	c->union_ps = tc_ivals_length(&u);
	if (u.n) {
		c->first_ps = u.lo[0];
		c->last_ps = u.hi[u.n - 1];
	}
	tc_ivals_finish(&u);
	/* Count top-level compile events only (a compile nested in a compile is
	 * a phase of it), keyed by their module name when they carry one. */
	struct tc_key_dur *keys = NULL;
	size_t nk = 0, kcap = 0;
	for (size_t k = 0; k < nt; k++) {
		const struct tc_track *tr = &m->tracks[tracks[k]];
		int64_t cur_end = INT64_MIN;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (m->ops[m->ev.op[i]].kind != TC_OP_COMPILE || m->ev.start[i] < cur_end) {
				continue;
			}
			cur_end = tc_model_end(m, i);
			struct tc_arg mod;
			bool named = tc_model_arg_find(m, m->ev.args[i], m->key.hlo_module, &mod) &&
				mod.type == TC_ARG_STR;
			uint32_t key = named ? mod.v.s : m->ops[m->ev.op[i]].name;
			TC_GROW(keys, kcap, nk + 1);
			keys[nk++] = (struct tc_key_dur){ key, m->ev.dur[i] };
		}
	}
	free(tracks);
	c->n_events = nk;
	size_t ng;
	struct tc_compile_entry *g = tc_group_key_dur(keys, nk, &ng);
	for (size_t i = 0; i < ng; i++) {
		if (g[i].count > 1) {
			g[c->n_recompiled++] = g[i];
		}
	}
	c->recompiled = g;
	free(keys);
	tc_sort(c->recompiled, c->n_recompiled, sizeof(*c->recompiled), cmp_centry);
}
