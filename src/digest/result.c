/*
 * A rank's analysis and summary packed into its digest (Rank.result) and
 * unpacked again, so summarize and bottlenecks print the same from both.
 */
#include <stdlib.h>
#include <string.h>
#include "digest/view.h"
#include "util/num.h"
#include "util/xalloc.h"

/*
 * A rank's analysis and summary as the writers read them (Rank.result), and
 * back: what `summarize` and `bottlenecks` print from a digest is printed
 * by the same writers from the same figures as from the trace.
 */

static char *rstr(struct tc_digest *d, const char *s) {
	return tc_arena_strdup(&d->arena, s ? s : "");
}

static void *ralloc(struct tc_digest *d, size_t n) {
	return tc_arena_calloc(&d->arena, n ? n : 1);
}

static const char *mstr(const struct tc_model *m, uint32_t id) {
	return tc_model_str(m, id);
}

static int32_t rdev(const struct tc_model *m, uint32_t dv) {
	return dv < m->n_devices ? (int32_t)dv : -1;
}

/* Tracks the threads and streams name, each once, in first use order. */
struct track_ids {
	uint32_t *model; /* result index -> model track */
	uint32_t *idx;   /* model track -> result index + 1 */
	size_t n;
};

static uint32_t track_ref(struct track_ids *t, uint32_t track) {
	if (!t->idx[track]) {
		t->model[t->n++] = track;
		t->idx[track] = (uint32_t)t->n;
	}
	return t->idx[track] - 1;
}

/* The marked steps come from bulk (d, or a digest set aside). */
static void pack_summary(struct tc_digest *d, struct tc_digest *bulk, const struct tc_model *m,
		const struct tc_summary *s, int64_t first, struct track_ids *tk,
		Tracectl__Result *o) {
	o->first_ps = s->first_ps - first;
	o->last_ps = s->last_ps - first;
	o->n_events = s->n_events;
	o->n_aggregated = s->n_aggregated;
	o->span_from_samples = s->span_from_samples;
	o->n_sum_devices = s->n_devices;
	o->sum_devices = ralloc(d, s->n_devices * sizeof(*o->sum_devices));
	for (size_t i = 0; i < s->n_devices; i++) {
		const struct tc_device_summary *x = &s->devices[i];
		Tracectl__SumDevice *v = o->sum_devices[i] = ralloc(d, sizeof(*v));
		tracectl__sum_device__init(v);
		v->device = x->device;
		v->n_events = x->n_events;
		v->n_tracks = x->n_tracks;
		v->first_ps = x->first_ps - first;
		v->last_ps = x->last_ps - first;
		v->busy_ps = x->busy_ps;
		v->span_ps = x->span_ps;
		v->computation_ps = x->computation_ps;
	}
	o->n_sum_ops = s->n_ops;
	o->sum_ops = ralloc(d, s->n_ops * sizeof(*o->sum_ops));
	for (size_t i = 0; i < s->n_ops; i++) {
		const struct tc_op_summary *x = &s->ops[i];
		Tracectl__OpStat *v = o->sum_ops[i] = ralloc(d, sizeof(*v));
		tracectl__op_stat__init(v);
		v->name_str = rstr(d, mstr(m, x->name));
		v->category_str = rstr(d, x->category ? mstr(m, x->category) : "");
		v->kind = x->kind;
		v->count = x->count;
		v->total_ps = x->total_ps;
		v->self_ps = x->self_ps;
		v->min_ps = x->min_ps;
		v->max_ps = x->max_ps;
		v->p50_ps = x->p50_ps;
		v->p99_ps = x->p99_ps;
		v->flops = x->flops;
		v->bytes = x->bytes;
	}
	o->ops_busy_ps = s->ops_busy_ps;
	o->ops_scope = rstr(d, s->ops_scope);
	/* Counted, not listed: the number and the durations' totals. */
	o->n_sum_steps = s->steps ? s->n_steps : 0;
	if (!s->steps && s->n_steps) {
		o->sum_steps_counted = s->n_steps;
		o->sum_steps_sum_ps = s->steps_sum_ps;
		o->sum_steps_min_ps = s->steps_min_ps;
		o->sum_steps_max_ps = s->steps_max_ps;
	}
	o->sum_steps = ralloc(bulk, o->n_sum_steps * sizeof(*o->sum_steps));
	for (size_t i = 0; i < o->n_sum_steps; i++) {
		const struct tc_step_summary *x = &s->steps[i];
		Tracectl__SumStep *v = o->sum_steps[i] = ralloc(bulk, sizeof(*v));
		tracectl__sum_step__init(v);
		v->num = x->num;
		v->name = rstr(bulk, mstr(m, x->name));
		v->device = rdev(m, x->device);
		v->start_ps = x->start_ps - first;
		v->dur_ps = x->dur_ps;
	}
	o->sum_steps_source = rstr(d, s->steps_source);
	o->n_counters = m->n_counters;
	o->counters = ralloc(d, m->n_counters * sizeof(*o->counters));
	for (size_t i = 0; i < m->n_counters; i++) {
		const struct tc_counter *x = &m->counters[i];
		Tracectl__Counter *v = o->counters[i] = ralloc(d, sizeof(*v));
		tracectl__counter__init(v);
		v->name = rstr(d, mstr(m, x->name));
		v->device = rdev(m, x->device);
		v->unit = rstr(d, mstr(m, x->unit));
		v->group = rstr(d, x->group ? mstr(m, x->group) : "");
	}
	o->n_sum_counters = s->n_counters;
	o->sum_counters = ralloc(d, s->n_counters * sizeof(*o->sum_counters));
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct tc_counter_summary *x = &s->counters[i];
		Tracectl__SumCounter *v = o->sum_counters[i] = ralloc(d, sizeof(*v));
		tracectl__sum_counter__init(v);
		v->counter = x->counter;
		v->samples = x->samples;
		v->min = x->min;
		v->max = x->max;
		v->mean = x->mean;
		v->first_ps = x->first_ps - first;
		v->last_ps = x->last_ps - first;
	}
	o->n_threads = s->n_threads;
	o->threads = ralloc(d, s->n_threads * sizeof(*o->threads));
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct tc_thread_summary *x = &s->threads[i];
		Tracectl__SumThread *v = o->threads[i] = ralloc(d, sizeof(*v));
		tracectl__sum_thread__init(v);
		v->track = track_ref(tk, x->track);
		v->n_events = x->n_events;
		v->first_ps = x->first_ps - first;
		v->last_ps = x->last_ps - first;
		v->busy_ps = x->busy_ps;
	}
	o->n_warnings = m->n_warnings;
	o->warnings = ralloc(d, m->n_warnings * sizeof(*o->warnings));
	for (size_t i = 0; i < m->n_warnings; i++) {
		Tracectl__Warning *v = o->warnings[i] = ralloc(d, sizeof(*v));
		tracectl__warning__init(v);
		v->msg = rstr(d, mstr(m, m->warnings[i].msg));
		v->count = m->warnings[i].count;
	}
}

static void pack_util(struct tc_digest *d, const struct tc_analysis *a, int64_t first,
		struct track_ids *tk, Tracectl__Result *o) {
	o->n_util = a->n_util;
	o->util = ralloc(d, a->n_util * sizeof(*o->util));
	for (size_t i = 0; i < a->n_util; i++) {
		const struct tc_device_util *x = &a->util[i];
		Tracectl__Util *v = o->util[i] = ralloc(d, sizeof(*v));
		tracectl__util__init(v);
		v->device = x->device;
		v->first_ps = x->first_ps - first;
		v->last_ps = x->last_ps - first;
		v->busy_ps = x->busy_ps;
		v->compute_ps = x->compute_ps;
		v->kernel_ps = x->kernel_ps;
		v->comm_ps = x->comm_ps;
		v->overlap_ps = x->overlap_ps;
		v->idle_ps = x->idle_ps;
		v->idle_host_wait_ps = x->idle_host_wait_ps;
		v->n_gaps_host_wait = x->n_gaps_host_wait;
		v->idle_kernel_wait_ps = x->idle_kernel_wait_ps;
		v->n_kernels = x->n_kernels;
		v->n_short_kernels = x->n_short_kernels;
		v->n_launches = x->n_launches;
		v->launch_delay_p50_ps = x->launch_delay_p50_ps;
		v->launch_delay_max_ps = x->launch_delay_max_ps;
		v->peak_flops = x->peak_flops;
		v->peak_bw = x->peak_bw;
		v->peak_source = rstr(d, x->peak_source);
	}
	o->n_streams = a->n_streams;
	o->streams = ralloc(d, a->n_streams * sizeof(*o->streams));
	for (size_t i = 0; i < a->n_streams; i++) {
		const struct tc_stream_util *x = &a->streams[i];
		Tracectl__StreamUtil *v = o->streams[i] = ralloc(d, sizeof(*v));
		tracectl__stream_util__init(v);
		v->track = track_ref(tk, x->track);
		v->busy_ps = x->busy_ps;
		v->span_ps = x->span_ps;
		v->n_events = x->n_events;
		v->idle_host_wait_ps = x->idle_host_wait_ps;
	}
}

/*
 * Slots and spread from the marked job_text of a digest written before
 * they were fields (0x01 before a device name, 0x02 and 0x03 around the
 * spread); its text is job_text without them.
 */
static void old_marks(const char *jt, struct tc_finding *f) {
	uint32_t k = 0;
	for (const char *p = jt; *p; p++) {
		if (*p == '\x01') {
			if (f->n_slots < TC_FINDING_MAX_SLOTS) {
				f->slot[f->n_slots++] = k;
			}
		} else if (*p == '\x02') {
			f->has_spread = true;
			f->spread_at = k;
		} else if (*p == '\x03') {
			f->spread_len = k >= f->spread_at ? k - f->spread_at : 0;
		} else {
			k++;
		}
	}
}

static void unpack_wording(const Tracectl__FullFinding *v, struct tc_finding *f) {
	if (v->job_text[0]) {
		old_marks(v->job_text, f);
	}
	for (size_t k = 0; k < v->n_slots && f->n_slots < TC_FINDING_MAX_SLOTS; k++) {
		f->slot[f->n_slots++] = v->slots[k];
	}
	f->has_spread |= v->has_spread;
	if (v->has_spread) {
		f->spread_at = v->spread_at;
		f->spread_len = v->spread_len;
	}
	for (size_t k = 0; k < v->n_figures && f->n_figs < TC_FINDING_MAX_FIGS; k++) {
		tc_finding_add_fig(f, v->figures[k]->name, v->figures[k]->value,
			v->figures[k]->unit);
	}
}

/* Where a job names the rank and its spread, and the figures. */
static void pack_wording(struct tc_digest *d, const struct tc_finding *x,
		Tracectl__FullFinding *v) {
	v->n_slots = x->n_slots;
	v->slots = ralloc(d, x->n_slots * sizeof(*v->slots));
	for (size_t k = 0; k < x->n_slots; k++) {
		v->slots[k] = x->slot[k];
	}
	v->has_spread = x->has_spread;
	v->spread_at = x->spread_at;
	v->spread_len = x->spread_len;
	v->n_figures = x->n_figs;
	v->figures = ralloc(d, x->n_figs * sizeof(*v->figures));
	for (size_t k = 0; k < x->n_figs; k++) {
		Tracectl__FindingFigure *g = v->figures[k] = ralloc(d, sizeof(*g));
		tracectl__finding_figure__init(g);
		g->name = rstr(d, x->figs[k].name);
		g->value = x->figs[k].value;
		g->unit = rstr(d, x->figs[k].unit);
	}
}

static void pack_findings(struct tc_digest *d, const struct tc_model *m,
		const struct tc_analysis *a, int64_t first, Tracectl__Result *o) {
	o->n_findings = a->n_findings;
	o->findings = ralloc(d, a->n_findings * sizeof(*o->findings));
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *x = &a->findings[i];
		Tracectl__FullFinding *v = o->findings[i] = ralloc(d, sizeof(*v));
		tracectl__full_finding__init(v);
		v->kind = rstr(d, x->kind);
		v->severity = x->severity;
		v->value = x->value;
		v->explained_ps = x->explained_ps;
		v->share = x->share;
		v->text = rstr(d, x->text);
		v->suggestion = rstr(d, x->suggestion);
		v->device = rdev(m, x->device);
		v->n_ops = x->n_ops;
		v->ops = ralloc(d, x->n_ops * sizeof(*v->ops));
		for (size_t k = 0; k < x->n_ops; k++) {
			v->ops[k] = rstr(d, mstr(m, x->ops[k]));
		}
		v->n_steps = x->n_steps;
		v->steps = ralloc(d, x->n_steps * sizeof(*v->steps));
		for (size_t k = 0; k < x->n_steps; k++) {
			v->steps[k] = x->steps[k];
		}
		/* No window (hi <= lo, or both 0) stays as it was. */
		bool win = x->window_hi_ps > x->window_lo_ps || x->window_lo_ps;
		v->window_lo_ps = win ? x->window_lo_ps - first : x->window_lo_ps;
		v->window_hi_ps = win ? x->window_hi_ps - first : x->window_hi_ps;
		v->n_measured = x->n_measured;
		v->n_over = x->n_over;
		pack_wording(d, x, v);
	}
	o->framework = a->runtime.framework;
	o->runtime = a->runtime.runtime;
	o->evidence = a->runtime.evidence;
	o->has_framework_why = tc_framework_source(&a->runtime) != NULL;
	o->framework_why = rstr(d, tc_framework_source(&a->runtime));
	o->has_runtime_why = a->runtime.runtime_why != NULL;
	o->runtime_why = rstr(d, a->runtime.runtime_why);
	o->n_mem = a->n_mem;
	o->mem = ralloc(d, a->n_mem * sizeof(*o->mem));
	for (size_t i = 0; i < a->n_mem; i++) {
		Tracectl__FullMem *v = o->mem[i] = ralloc(d, sizeof(*v));
		tracectl__full_mem__init(v);
		v->peak_ts_ps = a->mem[i].peak_ts_ps - first;
		v->capacity_bytes = a->mem[i].capacity_bytes;
	}
	o->compile_first_ps = a->compile.first_ps - first;
	o->compile_last_ps = a->compile.last_ps - first;
	o->n_recompiled = a->compile.n_recompiled;
	o->recompiled = ralloc(d, a->compile.n_recompiled * sizeof(*o->recompiled));
	for (size_t i = 0; i < a->compile.n_recompiled; i++) {
		const struct tc_compile_entry *x = &a->compile.recompiled[i];
		Tracectl__CompileEntry *v = o->recompiled[i] = ralloc(d, sizeof(*v));
		tracectl__compile_entry__init(v);
		v->name = rstr(d, mstr(m, x->name));
		v->count = x->count;
		v->total_ps = x->total_ps;
	}
}

void tc_digest_result_pack(struct tc_digest *d, struct tc_digest *bulk,
		const struct tc_model *m, const struct tc_analysis *a, int64_t first,
		Tracectl__Rank *r) {
	Tracectl__Result *o = r->result = ralloc(d, sizeof(*o));
	tracectl__result__init(o);
	struct track_ids tk = {
		.model = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*tk.model)),
		.idx = tc_xcalloc(m->n_tracks ? m->n_tracks : 1, sizeof(*tk.idx)),
	};
	pack_summary(d, bulk, m, &a->summary, first, &tk, o);
	pack_util(d, a, first, &tk, o);
	pack_findings(d, m, a, first, o);
	o->n_tracks = tk.n;
	o->tracks = ralloc(d, tk.n * sizeof(*o->tracks));
	for (size_t i = 0; i < tk.n; i++) {
		const struct tc_track *x = &m->tracks[tk.model[i]];
		Tracectl__Track *v = o->tracks[i] = ralloc(d, sizeof(*v));
		tracectl__track__init(v);
		v->name = rstr(d, mstr(m, x->name));
		v->device = rdev(m, x->device);
		v->kind = x->kind;
	}
	free(tk.model);
	free(tk.idx);
}

/* ---- back: a skeleton's parts and the analysis ---- */

static uint32_t udev(int32_t d, uint32_t base) {
	return d < 0 ? TC_NONE : base + (uint32_t)d;
}

/* Memory by op (Rank.mem_view); in a digest written before it, the
 * memory line's figures (Rank.mem_top): a view of one allocator and its
 * top holder, marked partial. */
static void unpack_memory_top(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
		struct tc_analysis *a) {
	if (r->mem_view) {
		tc_digest_memview_unpack(skel, r, base, a->summary.first_ps, &a->memview);
		return;
	}
	const Tracectl__MemTop *t = r->mem_top;
	if (!t) {
		return;
	}
	struct tc_mem_view *v = &a->memview;
	v->records = 1;
	v->partial = true;
	v->n_devs = 1;
	v->devs = tc_xcalloc(1, sizeof(*v->devs));
	struct tc_mem_device *d = &v->devs[0];
	d->device = udev(t->device, base);
	d->group = t->allocator[0] ? tc_model_intern(skel, t->allocator) : 0;
	d->peak_bytes = t->peak_bytes;
	d->peak_ps = tc_sat_add(t->peak_ps, a->summary.first_ps);
	d->total_at_peak = -1;
	if (t->has_top) {
		d->n_holders = 1;
		d->holders = tc_xcalloc(1, sizeof(*d->holders));
		d->holders[0] = (struct tc_mem_holder){
			.name = t->top_op[0] ? tc_model_intern(skel, t->top_op) : TC_NONE,
			.scope = t->top_scope[0] ? tc_model_intern(skel, t->top_scope) : TC_NONE,
			.bytes = t->top_bytes, .buffers = 1, .oldest_ps = -1, .newest_ps = -1,
		};
	}
}

/* s kept in skel, NULL when empty. */
static const char *opt_str(struct tc_model *skel, const char *s) {
	return s && s[0] ? tc_digest_keep_str(skel, s) : NULL;
}

static void unpack_summary(struct tc_model *skel, const Tracectl__Result *o, uint32_t base,
		uint32_t track_base, uint32_t counter_base, struct tc_summary *s) {
	memset(s, 0, sizeof(*s));
	s->first_ps = o->first_ps;
	s->last_ps = o->last_ps;
	s->n_events = o->n_events;
	s->n_aggregated = o->n_aggregated;
	s->span_from_samples = o->span_from_samples;
	s->n_devices = o->n_sum_devices;
	s->devices = tc_xcalloc(s->n_devices ? s->n_devices : 1, sizeof(*s->devices));
	for (size_t i = 0; i < s->n_devices; i++) {
		const Tracectl__SumDevice *v = o->sum_devices[i];
		s->devices[i] = (struct tc_device_summary){ .device = base + v->device,
			.n_events = v->n_events, .n_tracks = v->n_tracks, .first_ps = v->first_ps,
			.last_ps = v->last_ps, .busy_ps = v->busy_ps, .span_ps = v->span_ps,
			.computation_ps = v->computation_ps };
	}
	s->n_ops = o->n_sum_ops;
	s->ops = tc_xcalloc(s->n_ops ? s->n_ops : 1, sizeof(*s->ops));
	for (size_t i = 0; i < s->n_ops; i++) {
		const Tracectl__OpStat *v = o->sum_ops[i];
		s->ops[i] = (struct tc_op_summary){ .name = tc_model_intern(skel, v->name_str),
			.category = v->category_str[0] ? tc_model_intern(skel, v->category_str) : 0,
			.kind = (uint8_t)v->kind, .device = TC_NONE, .count = v->count,
			.total_ps = v->total_ps, .self_ps = v->self_ps, .min_ps = v->min_ps,
			.max_ps = v->max_ps, .p50_ps = v->p50_ps, .p99_ps = v->p99_ps,
			.flops = v->flops, .bytes = v->bytes };
	}
	s->ops_busy_ps = o->ops_busy_ps;
	s->ops_scope = tc_digest_keep_str(skel, o->ops_scope);
	s->n_steps = o->n_sum_steps;
	s->steps = tc_xcalloc(s->n_steps ? s->n_steps : 1, sizeof(*s->steps));
	for (size_t i = 0; i < s->n_steps; i++) {
		const Tracectl__SumStep *v = o->sum_steps[i];
		s->steps[i] = (struct tc_step_summary){ .num = v->num,
			.name = tc_model_intern(skel, v->name), .device = udev(v->device, base),
			.start_ps = v->start_ps, .dur_ps = v->dur_ps };
	}
	tc_summary_step_totals(s);
	if (!o->n_sum_steps && o->sum_steps_counted) {
		free(s->steps);
		s->steps = NULL;
		s->n_steps = o->sum_steps_counted;
		s->steps_sum_ps = o->sum_steps_sum_ps;
		s->steps_min_ps = o->sum_steps_min_ps;
		s->steps_max_ps = o->sum_steps_max_ps;
	}
	s->steps_source = opt_str(skel, o->sum_steps_source);
	s->n_counters = o->n_sum_counters;
	s->counters = tc_xcalloc(s->n_counters ? s->n_counters : 1, sizeof(*s->counters));
	for (size_t i = 0; i < s->n_counters; i++) {
		const Tracectl__SumCounter *v = o->sum_counters[i];
		s->counters[i] = (struct tc_counter_summary){ .counter = counter_base + v->counter,
			.samples = v->samples, .min = v->min, .max = v->max, .mean = v->mean,
			.first_ps = v->first_ps, .last_ps = v->last_ps };
	}
	s->n_threads = o->n_threads;
	s->threads = tc_xcalloc(s->n_threads ? s->n_threads : 1, sizeof(*s->threads));
	for (size_t i = 0; i < s->n_threads; i++) {
		const Tracectl__SumThread *v = o->threads[i];
		s->threads[i] = (struct tc_thread_summary){ .track = track_base + v->track,
			.n_events = v->n_events, .first_ps = v->first_ps, .last_ps = v->last_ps,
			.busy_ps = v->busy_ps };
	}
}

static void unpack_analysis(struct tc_model *skel, const Tracectl__Result *o, uint32_t base,
		uint32_t track_base, struct tc_analysis *a) {
	a->n_util = o->n_util;
	a->util = tc_xcalloc(a->n_util ? a->n_util : 1, sizeof(*a->util));
	for (size_t i = 0; i < a->n_util; i++) {
		const Tracectl__Util *v = o->util[i];
		a->util[i] = (struct tc_device_util){ .device = base + v->device,
			.first_ps = v->first_ps, .last_ps = v->last_ps, .busy_ps = v->busy_ps,
			.compute_ps = v->compute_ps, .kernel_ps = v->kernel_ps,
			.comm_ps = v->comm_ps,
			.overlap_ps = v->overlap_ps, .idle_ps = v->idle_ps,
			.idle_host_wait_ps = v->idle_host_wait_ps,
			.n_gaps_host_wait = v->n_gaps_host_wait,
			.idle_kernel_wait_ps = v->idle_kernel_wait_ps, .n_kernels = v->n_kernels,
			.n_short_kernels = v->n_short_kernels, .n_launches = v->n_launches,
			.launch_delay_p50_ps = v->launch_delay_p50_ps,
			.launch_delay_max_ps = v->launch_delay_max_ps, .peak_flops = v->peak_flops,
			.peak_bw = v->peak_bw, .peak_source = opt_str(skel, v->peak_source) };
	}
	a->n_streams = o->n_streams;
	a->streams = tc_xcalloc(a->n_streams ? a->n_streams : 1, sizeof(*a->streams));
	for (size_t i = 0; i < a->n_streams; i++) {
		const Tracectl__StreamUtil *v = o->streams[i];
		a->streams[i] = (struct tc_stream_util){ .track = track_base + v->track,
			.busy_ps = v->busy_ps, .span_ps = v->span_ps, .n_events = v->n_events,
			.idle_host_wait_ps = v->idle_host_wait_ps };
	}
	a->n_findings = o->n_findings;
	a->findings = tc_xcalloc(a->n_findings ? a->n_findings : 1, sizeof(*a->findings));
	for (size_t i = 0; i < a->n_findings; i++) {
		const Tracectl__FullFinding *v = o->findings[i];
		struct tc_finding *f = &a->findings[i];
		f->kind = tc_digest_keep_str(skel, v->kind);
		f->severity = (uint8_t)v->severity;
		f->value = v->value;
		f->explained_ps = v->explained_ps;
		f->share = v->share;
		f->text = tc_xstrdup(v->text);
		f->suggestion = tc_xstrdup(v->suggestion);
		f->device = udev(v->device, base);
		for (size_t k = 0; k < v->n_ops && k < TC_FINDING_MAX_ITEMS; k++) {
			f->ops[f->n_ops++] = tc_model_intern(skel, v->ops[k]);
		}
		for (size_t k = 0; k < v->n_steps && k < TC_FINDING_MAX_ITEMS; k++) {
			f->steps[f->n_steps++] = v->steps[k];
		}
		f->window_lo_ps = v->window_lo_ps;
		f->window_hi_ps = v->window_hi_ps;
		f->n_measured = v->n_measured;
		f->n_over = v->n_over;
		unpack_wording(v, f);
	}
	a->runtime.framework = (uint8_t)o->framework;
	a->runtime.runtime = (uint8_t)o->runtime;
	a->runtime.evidence = o->evidence;
	a->runtime.framework_why = o->has_framework_why ?
		tc_digest_keep_str(skel, o->framework_why) : NULL;
	a->runtime.runtime_why = o->has_runtime_why ? tc_digest_keep_str(skel, o->runtime_why) :
		NULL;
	a->compile.first_ps = o->compile_first_ps;
	a->compile.last_ps = o->compile_last_ps;
	a->compile.n_recompiled = o->n_recompiled;
	a->compile.recompiled = tc_xcalloc(o->n_recompiled ? o->n_recompiled : 1,
		sizeof(*a->compile.recompiled));
	for (size_t i = 0; i < o->n_recompiled; i++) {
		a->compile.recompiled[i] = (struct tc_compile_entry){
			.name = tc_model_intern(skel, o->recompiled[i]->name),
			.count = o->recompiled[i]->count, .total_ps = o->recompiled[i]->total_ps };
	}
}

void tc_digest_result(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
		struct tc_analysis *a) {
	const Tracectl__Result *o = r->result;
	tc_digest_steps_at(skel, r, base, a);
	uint32_t track_base = (uint32_t)skel->n_tracks, counter_base = (uint32_t)skel->n_counters;
	for (size_t i = 0; i < o->n_tracks; i++) {
		const Tracectl__Track *v = o->tracks[i];
		tc_model_add_track(skel, udev(v->device, base), tc_model_intern(skel, v->name),
			(enum tc_track_kind)v->kind, 0);
	}
	for (size_t i = 0; i < o->n_counters; i++) {
		const Tracectl__Counter *v = o->counters[i];
		uint32_t group = v->group[0] ? tc_model_intern(skel, v->group) : 0;
		tc_model_counter(skel, udev(v->device, base), tc_model_intern(skel, v->name),
			tc_model_intern(skel, v->unit), group);
	}
	for (size_t i = 0; i < o->n_warnings; i++) {
		tc_model_warn(skel, o->warnings[i]->count, "%s", o->warnings[i]->msg);
	}
	unpack_summary(skel, o, base, track_base, counter_base, &a->summary);
	unpack_analysis(skel, o, base, track_base, a);
	unpack_memory_top(skel, r, base, a);
	a->n_mem = r->n_mem;
	a->mem = tc_xcalloc(r->n_mem ? r->n_mem : 1, sizeof(*a->mem));
	for (size_t i = 0; i < r->n_mem; i++) {
		const Tracectl__MemPeak *p = r->mem[i];
		a->mem[i] = (struct tc_mem_peak){ .device = udev(p->device, base),
			.name = tc_model_intern(skel, p->name),
			.group = p->group[0] ? tc_model_intern(skel, p->group) : 0,
			.peak_bytes = p->peak_bytes, .samples = p->samples };
		if (i < o->n_mem) {
			a->mem[i].peak_ts_ps = o->mem[i]->peak_ts_ps;
			a->mem[i].capacity_bytes = o->mem[i]->capacity_bytes;
		}
	}
}
