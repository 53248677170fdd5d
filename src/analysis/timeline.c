/*
 * Drawing data for `tracectl report`: device busy time and memory counters
 * in fixed time bins, for one model or for a job's ranks on one clock.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "analysis/timeline.h"
#include "model/memcurve.h"
#include "util/xalloc.h"

/*
 * Drawing data for `tracectl report`: fixed bins, so the report's size and
 * the cost of drawing do not grow with the trace. Busy time is the same
 * union of device work that the usage pass measures, cut at bin edges.
 */

/* lo + span * b / TC_TL_BINS, rounded down, without the product (which
 * overflows int64 for spans of days). */
static int64_t bin_edge(const struct tc_timeline *t, size_t b) {
	int64_t span = t->hi_ps - t->lo_ps, n = (int64_t)b;
	return t->lo_ps + span / TC_TL_BINS * n + span % TC_TL_BINS * n / TC_TL_BINS;
}

/* The bin holding ts: a guess in floating point, made exact against the
 * edges. */
static size_t bin_of(const struct tc_timeline *t, int64_t ts) {
	if (ts <= t->lo_ps || t->hi_ps <= t->lo_ps) {
		return 0;
	}
	double g = (double)(ts - t->lo_ps) * TC_TL_BINS / (double)(t->hi_ps - t->lo_ps);
	size_t b = g >= TC_TL_BINS - 1 ? TC_TL_BINS - 1 : (size_t)g;
	while (b + 1 < TC_TL_BINS && ts >= bin_edge(t, b + 1)) {
		b++;
	}
	while (b > 0 && ts < bin_edge(t, b)) {
		b--;
	}
	return b;
}

static void device_bins(const struct tc_model *m, const struct tc_device_tracks *dt,
		struct tc_timeline *t, struct tc_tl_device *out) {
	size_t nt;
	uint32_t *tracks = tc_device_work_tracks(m, dt, out->device, &nt);
	struct tc_ivals v = { 0 };
	tc_ivals_union_tracks(m, tracks, nt, NULL, NULL, &v);
	for (size_t b = 0; b < TC_TL_BINS; b++) {
		int64_t lo = bin_edge(t, b), hi = bin_edge(t, b + 1);
		out->bin_busy_ps[b] = tc_ivals_length_in(&v, lo, hi);
		out->busy[b] = hi > lo ? (double)out->bin_busy_ps[b] / (double)(hi - lo) : 0;
	}
	tc_ivals_finish(&v);
	free(tracks);
}

/* A sample into its bin: each bin keeps its highest. */
static void bin_point(const struct tc_timeline *t, struct tc_tl_counter *out, int64_t ts,
		double v) {
	size_t b = bin_of(t, ts);
	if (!out->has[b] || v > out->max[b]) {
		out->max[b] = v;
	}
	out->has[b] = true;
}

/* A counter holds its value until the next sample. */
static void hold_bins(struct tc_tl_counter *out) {
	double held = 0;
	bool any = false;
	for (size_t b = 0; b < TC_TL_BINS; b++) {
		if (out->has[b]) {
			any = true;
			held = out->max[b];
		} else if (any) {
			out->has[b] = true;
			out->max[b] = held;
		}
	}
}

static void counter_bins(const struct tc_model *m, const struct tc_counter *ct,
		const struct tc_timeline *t, struct tc_tl_counter *out) {
	out->device = ct->device;
	out->name = ct->name;
	out->group = ct->group;
	for (size_t s = ct->first; s < ct->first + ct->count; s++) {
		bin_point(t, out, m->samples.ts[s], m->samples.value[s]);
	}
	hold_bins(out);
}

struct curve_ctx {
	const struct tc_timeline *t;
	struct tc_tl_counter *out;
};

static void curve_point(void *ctx, size_t rec, int64_t ts, double v) {
	(void)rec;
	struct curve_ctx *cb = ctx;
	bin_point(cb->t, cb->out, ts, v);
}

/* The entries of a->mem after the counters' (from n): the curves that
 * allocator records draw (model/memcurve.c), in the same order. */
static void curve_bins(const struct tc_model *m, const struct tc_analysis *a, size_t n,
		struct tc_timeline *t) {
	struct tc_mem_curve *cv;
	size_t n_cv = tc_mem_curves(m, &cv);
	for (size_t k = 0; k < n_cv && t->n_mem < n; k++) {
		const struct tc_mem_peak *p = &a->mem[t->n_mem];
		if (p->device != cv[k].device || p->group != cv[k].group ||
				p->samples != cv[k].records) {
			continue;
		}
		struct tc_tl_counter *out = &t->mem[t->n_mem++];
		out->device = p->device;
		out->name = p->name;
		out->group = p->group;
		struct curve_ctx cb = { t, out };
		tc_mem_curve_walk(m, &cv[k], curve_point, &cb);
		hold_bins(out);
	}
	free(cv);
}

void tc_timeline_build(const struct tc_model *m, const struct tc_analysis *a,
		int64_t lo_ps, int64_t hi_ps, struct tc_timeline *t) {
	memset(t, 0, sizeof(*t));
	t->lo_ps = lo_ps;
	t->hi_ps = hi_ps > lo_ps ? hi_ps : lo_ps;
	if (a->n_util) {
		struct tc_device_tracks dt;
		tc_device_tracks_init(&dt, m);
		t->dev = tc_xcalloc(a->n_util, sizeof(*t->dev));
		for (size_t i = 0; i < a->n_util; i++) {
			t->dev[i].device = a->util[i].device;
			t->dev[i].busy_ps = a->util[i].busy_ps;
			device_bins(m, &dt, t, &t->dev[i]);
		}
		t->n_dev = a->n_util;
		tc_device_tracks_finish(&dt);
	}
	/* The counters of a->mem, in its order (the memory pass's walk). */
	t->n_mem_all = a->n_mem;
	size_t n = a->n_mem < TC_TL_MAX_COUNTERS ? a->n_mem : TC_TL_MAX_COUNTERS;
	if (!n) {
		return;
	}
	t->mem = tc_xcalloc(n, sizeof(*t->mem));
	for (size_t c = 0; c < m->n_counters && t->n_mem < n; c++) {
		const struct tc_counter *ct = &m->counters[c];
		const struct tc_mem_peak *p = &a->mem[t->n_mem];
		if (ct->name == p->name && ct->device == p->device && ct->group == p->group &&
				ct->count == p->samples) {
			counter_bins(m, ct, t, &t->mem[t->n_mem++]);
		}
	}
	if (t->n_mem < n) {
		curve_bins(m, a, n, t);
	}
}

void tc_timeline_job_init(const struct tc_analysis *a, int64_t lo_ps, int64_t hi_ps,
		struct tc_timeline *t) {
	memset(t, 0, sizeof(*t));
	t->lo_ps = lo_ps;
	t->hi_ps = hi_ps > lo_ps ? hi_ps : lo_ps;
	t->dev = tc_xcalloc(a->n_util ? a->n_util : 1, sizeof(*t->dev));
	for (size_t i = 0; i < a->n_util; i++) {
		t->dev[i].device = a->util[i].device;
		t->dev[i].busy_ps = a->util[i].busy_ps;
	}
	t->n_dev = a->n_util;
	t->n_mem_all = a->n_mem;
	t->n_mem = a->n_mem < TC_TL_MAX_COUNTERS ? a->n_mem : TC_TL_MAX_COUNTERS;
	t->mem = tc_xcalloc(t->n_mem ? t->n_mem : 1, sizeof(*t->mem));
	for (size_t c = 0; c < t->n_mem; c++) {
		t->mem[c].device = a->mem[c].device;
		t->mem[c].name = a->mem[c].name;
		t->mem[c].group = a->mem[c].group;
	}
}

void tc_timeline_add_rank(struct tc_timeline *t, const struct tc_analysis *a,
		const struct tc_model *skel, const struct tc_model *m, uint32_t base,
		size_t util_lo, size_t n_util, size_t mem_lo, size_t n_mem, int64_t dt) {
	struct tc_analysis v = { 0 };
	v.util = tc_xcalloc(n_util ? n_util : 1, sizeof(*v.util));
	for (size_t i = 0; i < n_util && util_lo + i < a->n_util; i++) {
		v.util[v.n_util] = a->util[util_lo + i];
		v.util[v.n_util++].device -= base;
	}
	v.mem = tc_xcalloc(n_mem ? n_mem : 1, sizeof(*v.mem));
	for (size_t c = mem_lo; c < mem_lo + n_mem && c < t->n_mem; c++) {
		struct tc_mem_peak *p = &v.mem[v.n_mem++];
		*p = a->mem[c];
		p->device = p->device == TC_NONE ? TC_NONE : p->device - base;
		const char *name = tc_model_str(skel, p->name);
		p->name = tc_intern_find(&m->strings, name, strlen(name));
		if (p->group) {
			const char *g = tc_model_str(skel, p->group);
			p->group = tc_intern_find(&m->strings, g, strlen(g));
		}
	}
	/* The job's bins on the rank's clock. */
	struct tc_timeline rt;
	tc_timeline_build(m, &v, t->lo_ps - dt, t->hi_ps - dt, &rt);
	for (size_t i = 0; i < rt.n_dev && util_lo + i < t->n_dev; i++) {
		struct tc_tl_device *d = &t->dev[util_lo + i];
		memcpy(d->bin_busy_ps, rt.dev[i].bin_busy_ps, sizeof(d->bin_busy_ps));
		memcpy(d->busy, rt.dev[i].busy, sizeof(d->busy));
	}
	for (size_t j = 0; j < rt.n_mem && mem_lo + j < t->n_mem; j++) {
		struct tc_tl_counter *c = &t->mem[mem_lo + j];
		memcpy(c->max, rt.mem[j].max, sizeof(c->max));
		memcpy(c->has, rt.mem[j].has, sizeof(c->has));
	}
	tc_timeline_finish(&rt);
	free(v.util);
	free(v.mem);
}

void tc_timeline_finish(struct tc_timeline *t) {
	free(t->dev);
	free(t->mem);
	memset(t, 0, sizeof(*t));
}
