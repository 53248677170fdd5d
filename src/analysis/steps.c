/*
 * The steps pass: steps from explicit markers, else inferred from repeated
 * top-level work, else one step spanning the trace; and step lookup by
 * time.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/markers.h"
#include "analysis/passes.h"
#include "analysis/step_marker.h"
#include "util/select.h"
#include "util/xalloc.h"

/*
 * Steps: explicit markers (op kind TC_OP_STEP) when the trace has them,
 * device step lines winning over host markers; otherwise inferred from
 * repeated top-level work (device modules, then host annotations); otherwise
 * one step spanning the whole trace.
 */

/* A step marker before sorting and nesting: the full struct tc_step (with
 * its breakdown) is made only for the markers that stay steps. */
struct cand {
	int64_t start_ps, dur_ps, num;
	uint32_t ev, device;
};

static int cmp_cand(const void *pa, const void *pb) {
	const struct cand *a = pa, *b = pb;
	if (a->start_ps != b->start_ps) {
		return a->start_ps < b->start_ps ? -1 : 1;
	}
	if (a->dur_ps != b->dur_ps) {
		return a->dur_ps > b->dur_ps ? -1 : 1;
	}
	return a->num < b->num ? -1 : a->num > b->num;
}

struct cands {
	struct cand *v;
	size_t n, cap;
	uint32_t device; /* of the markers tc_markers_outer emits */
};

static void push_step(struct cands *c, const struct tc_model *m, size_t i, uint32_t device) {
	int64_t num;
	if (!tc_model_arg_i64(m, tc_model_event_args(m, i), m->key.step, &num)) {
		num = INT64_MIN;
	}
	TC_GROW(c->v, c->cap, c->n + 1);
	c->v[c->n++] = (struct cand){ .start_ps = m->ev.start[i], .dur_ps = m->ev.dur[i],
		.num = num, .ev = (uint32_t)i, .device = device };
}

static void push_outer(void *ctx, uint32_t ev, int64_t start_ps, int64_t dur_ps,
		int64_t num) {
	struct cands *c = ctx;
	TC_GROW(c->v, c->cap, c->n + 1);
	c->v[c->n++] = (struct cand){ .start_ps = start_ps, .dur_ps = dur_ps, .num = num,
		.ev = ev, .device = c->device };
}

/* The largest total first, then by name id (a stable order). */
static int cmp_total(const void *pa, const void *pb) {
	const struct tc_compile_entry *a = pa, *b = pb;
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

static bool explicit_steps(const struct tc_model *m, const struct tc_markers *mk,
		struct tc_analysis *a, struct cands *c) {
	/* Host markers count at any depth (python frames often enclose them);
	 * several ranks would repeat them, so one host's. */
	bool *take = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*take));
	uint32_t dev;
	size_t host;
	if (!tc_markers_choose(m, mk, take, &dev, &host)) {
		free(take);
		return false;
	}
	a->steps_device = dev != TC_NONE ? dev : host < m->n_devices ? (uint32_t)host : TC_NONE;
	a->steps_source = dev != TC_NONE ? "device markers" : "host markers";
	c->device = dev;
	tc_markers_outer(m, mk, take, push_outer, c);
	free(take);
	return true;
}

/* --step-marker: the user's markers replace the built-in ones. */
static bool marked_steps(const struct tc_model *m, const char *pattern, struct tc_analysis *a,
		struct cands *c) {
	struct tc_marked_step *v;
	uint32_t device;
	bool on_device;
	size_t n = tc_step_marker_find(m, pattern, &v, &device, &on_device);
	for (size_t i = 0; i < n; i++) {
		TC_GROW(c->v, c->cap, c->n + 1);
		c->v[c->n++] = (struct cand){ .start_ps = v[i].start_ps, .dur_ps = v[i].dur_ps,
			.num = v[i].num, .ev = v[i].ev, .device = on_device ? device : TC_NONE };
	}
	free(v);
	if (!n) {
		return false;
	}
	a->steps_device = device;
	a->steps_source = on_device ? "device markers matching --step-marker" :
		"host markers matching --step-marker";
	return true;
}

/*
 * Serving engines mark their iterations their own way (issue 48, class 7):
 * without ProfilerStep#, the first of these that marks two or more events
 * gives the steps, and the source says which. Tried in order, so that an
 * iteration's annotation wins over the forward pass inside it.
 */
static const struct {
	const char *re, *source;
} serving_markers[] = {
	{ "^step\\[", "host markers: serving iterations 'step[...]' (no ProfilerStep#)" },
	{ "(^|[ .:])execute_model$",
		"host markers: serving iterations 'execute_model' (no ProfilerStep#)" },
	{ "model_runner(\\.|\\.py\\([0-9]+\\): )forward$",
		"host markers: serving iterations 'model_runner.forward' (no ProfilerStep#)" },
};

static bool serving_steps(const struct tc_model *m, struct tc_analysis *a, struct cands *c) {
	for (size_t p = 0; p < sizeof(serving_markers) / sizeof(serving_markers[0]); p++) {
		if (!marked_steps(m, serving_markers[p].re, a, c)) {
			continue;
		}
		if (c->n >= 2 && c->v[0].device == TC_NONE) {
			a->steps_source = serving_markers[p].source;
			return true;
		}
		/* One iteration, or on a device: not what serving marks. */
		free(c->v);
		*c = (struct cands){ 0 };
		a->steps_device = TC_NONE;
		a->steps_source = NULL;
	}
	return false;
}

/* The names of the repeated (count >= 2) top-level events keep() accepts,
 * the largest total time first; *n of them. */
static uint32_t *repeated_names(const struct tc_model *m,
		bool (*keep)(const struct tc_model *m, const struct tc_track *tr, size_t i, uint32_t d),
		uint32_t d, size_t *n_names) {
	struct tc_key_dur *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (m->ev.dur[i] > 0 && keep(m, tr, i, d)) {
				TC_GROW(v, cap, n + 1);
				v[n++] = (struct tc_key_dur){ m->ops[m->ev.op[i]].name, m->ev.dur[i] };
			}
		}
	}
	size_t ng, k = 0;
	struct tc_compile_entry *g = tc_group_key_dur(v, n, &ng);
	for (size_t i = 0; i < ng; i++) {
		if (g[i].count >= 2) {
			g[k++] = g[i];
		}
	}
	tc_sort(g, k, sizeof(*g), cmp_total);
	uint32_t *names = tc_xmalloc((k ? k : 1) * sizeof(*names));
	for (size_t i = 0; i < k; i++) {
		names[i] = g[i].name;
	}
	free(g);
	free(v);
	*n_names = k;
	return names;
}

static bool keep_module(const struct tc_model *m, const struct tc_track *tr, size_t i,
		uint32_t d) {
	return m->op_kind[m->ev.op[i]] == TC_OP_MODULE && tr->device == d && m->ev.depth[i] == 0;
}

static bool keep_host_annotation(const struct tc_model *m, const struct tc_track *tr, size_t i,
		uint32_t d) {
	(void)d;
	return m->op_kind[m->ev.op[i]] == TC_OP_ANNOTATION &&
		tr->kind != TC_TRACK_DERIVED && tc_model_on_host(m, tr->device);
}

static void steps_named(const struct tc_model *m, struct cands *c,
		uint32_t name,
		bool (*keep)(const struct tc_model *m, const struct tc_track *tr, size_t i, uint32_t d),
		uint32_t d) {
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (m->ev.dur[i] > 0 && m->ops[m->ev.op[i]].name == name && keep(m, tr, i, d)) {
				push_step(c, m, i, TC_NONE);
			}
		}
	}
}

/*
 * Repeated annotations that cover under 5 % of the time from the first's
 * start to the last's end are marks inside the iteration, not the
 * iteration: pipit_saxpy_mpi's 46 us "saxpy" ranges, about 250 ms apart
 * with MPI and pageable copies between them (0.02 %; inferred steps of
 * the other traces cover 20 % and more).
 */
static bool sliver(const struct cands *c) {
	if (c->n < 2) {
		return false;
	}
	int64_t lo = c->v[0].start_ps, hi = lo, sum = 0;
	for (size_t i = 0; i < c->n; i++) {
		int64_t end = c->v[i].start_ps + c->v[i].dur_ps;
		lo = c->v[i].start_ps < lo ? c->v[i].start_ps : lo;
		hi = end > hi ? end : hi;
		sum += c->v[i].dur_ps;
	}
	return sum < (hi - lo) / 20;
}

/*
 * Occurrences on two threads that overlap in time run side by side: a
 * worker pool's tasks (nvFuser compiles each kernel on a thread of its
 * pool, fuser_xent's six CompiledKernel::compile ranges), not the
 * program's iterations. c sorted by start.
 */
static bool concurrent(const struct tc_model *m, const struct cands *c) {
	int64_t end = INT64_MIN;
	uint32_t track = TC_NONE;
	for (size_t i = 0; i < c->n; i++) {
		uint32_t t = tc_model_event_track(m, c->v[i].ev);
		if (c->v[i].start_ps < end && t != track) {
			return true;
		}
		if (c->v[i].start_ps + c->v[i].dur_ps > end) {
			end = c->v[i].start_ps + c->v[i].dur_ps;
			track = t;
		}
	}
	return false;
}

static bool inferred_steps(const struct tc_model *m, const struct tc_usage *u,
		struct tc_analysis *a, struct cands *c) {
	/* Busiest device first: its repeated top-level program is the step. */
	uint32_t busiest = tc_busiest_device(u->util, u->n_util);
	size_t n;
	uint32_t *names;
	if (busiest != TC_NONE) {
		names = repeated_names(m, keep_module, busiest, &n);
		if (n) {
			steps_named(m, c, names[0], keep_module, busiest);
			a->steps_source = "inferred from repeated device modules";
		}
		free(names);
		if (n) {
			return true;
		}
	}
	/* The largest total whose occurrences follow one another. */
	names = repeated_names(m, keep_host_annotation, TC_NONE, &n);
	bool found = false;
	for (size_t k = 0; k < n && !found; k++) {
		steps_named(m, c, names[k], keep_host_annotation, TC_NONE);
		tc_sort(c->v, c->n, sizeof(*c->v), cmp_cand);
		found = !concurrent(m, c);
		if (!found || sliver(c)) {
			free(c->v);
			*c = (struct cands){ 0 };
		}
	}
	free(names);
	if (!c->n) {
		return false;
	}
	a->steps_source = "inferred from repeated host annotations";
	return true;
}

/*
 * Host markers bound what the host did; the device work a step launched may
 * run past its marker's end. As TensorBoard's PyTorch plugin does, a step
 * ends no earlier than the last device op launched from inside it, and
 * starts no earlier than the previous step's end.
 */
static void align_host_steps(const struct tc_model *m, struct tc_analysis *a) {
	if (!a->n_steps) {
		return;
	}
	int64_t *end = tc_xmalloc(a->n_steps * sizeof(*end));
	for (size_t i = 0; i < a->n_steps; i++) {
		end[i] = a->steps[i].start_ps + a->steps[i].dur_ps;
	}
	/* Launches come mostly in time order: the step of the one before is
	 * tried first. */
	size_t near = 0;
	for (size_t k = 0; k < m->n_flows; k++) {
		const struct tc_flow *fl = &m->flows[k];
		if (fl->kind != TC_FLOW_LAUNCH || fl->from >= m->ev.n || fl->to >= m->ev.n) {
			continue;
		}
		/* Only the marking process's own launches (one rank's steps). */
		uint32_t tr = tc_model_event_track(m, fl->from);
		if (a->steps_device != TC_NONE && (tr >= m->n_tracks ||
				m->tracks[tr].device != a->steps_device)) {
			continue;
		}
		size_t i = tc_step_at_near(a->steps, a->n_steps, &near, m->ev.start[fl->from]);
		if (i == SIZE_MAX) {
			continue;
		}
		int64_t e = m->ev.start[fl->to] + m->ev.dur[fl->to];
		end[i] = e > end[i] ? e : end[i];
	}
	int64_t prev = INT64_MIN;
	for (size_t i = 0; i < a->n_steps; i++) {
		struct tc_step *s = &a->steps[i];
		int64_t start = s->start_ps > prev ? s->start_ps : prev;
		int64_t e = end[i] > start ? end[i] : start;
		s->start_ps = start;
		s->dur_ps = e - start;
		prev = e;
	}
	free(end);
}

/* How many steps start at or before t. */
static size_t steps_upto(const struct tc_step *steps, size_t n_steps, int64_t t) {
	size_t lo = 0, hi = n_steps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (steps[mid].start_ps <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* The last of the lo steps starting at or before t, if it holds t. */
static inline size_t step_holding(const struct tc_step *steps, size_t lo, int64_t t) {
	if (lo == 0) {
		return SIZE_MAX;
	}
	const struct tc_step *s = &steps[lo - 1];
	return t < s->start_ps + s->dur_ps ? lo - 1 : SIZE_MAX;
}

size_t tc_step_at(const struct tc_step *steps, size_t n_steps, int64_t t) {
	return step_holding(steps, steps_upto(steps, n_steps, t), t);
}

/* Whether lo steps start at or before t. */
static inline bool upto_is(const struct tc_step *steps, size_t n_steps, size_t lo, int64_t t) {
	return (lo == 0 || steps[lo - 1].start_ps <= t) && (lo == n_steps || steps[lo].start_ps > t);
}

size_t tc_step_at_near(const struct tc_step *steps, size_t n_steps, size_t *near, int64_t t) {
	size_t lo = *near;
	if (lo > n_steps || !upto_is(steps, n_steps, lo, t)) {
		lo = lo < n_steps && upto_is(steps, n_steps, lo + 1, t) ? lo + 1 :
			steps_upto(steps, n_steps, t);
	}
	*near = lo;
	return step_holding(steps, lo, t);
}

void tc_step_times_from(const struct tc_analysis *a, struct tc_step_times *t) {
	size_t n = a->n_steps ? a->n_steps : 1, n_full = tc_steps_full(a->steps, a->n_steps);
	t->start = tc_xmalloc(n * sizeof(*t->start));
	t->end = tc_xmalloc(n * sizeof(*t->end));
	t->num = tc_xmalloc(n * sizeof(*t->num));
	t->counted = tc_xmalloc(n * sizeof(*t->counted));
	t->n = a->n_steps;
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct tc_step *s = &a->steps[i];
		t->start[i] = s->start_ps;
		/* Wrapped, not undefined: a digest's steps are input. */
		t->end[i] = (int64_t)((uint64_t)s->start_ps + (uint64_t)s->dur_ps);
		t->num[i] = s->num;
		t->counted[i] = tc_step_counted(s, n_full);
	}
}

void tc_step_times_finish(struct tc_step_times *t) {
	free(t->start);
	free(t->end);
	free(t->num);
	free(t->counted);
	memset(t, 0, sizeof(*t));
}

void tc_step_times_analysis_get(void *ctx, size_t k, struct tc_step_times *t) {
	tc_step_times_from((const struct tc_analysis *)ctx + k, t);
}

size_t tc_step_times_at(const struct tc_step_times *t, int64_t ps) {
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->start[mid] <= ps) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo > 0 && ps < t->end[lo - 1] ? lo - 1 : SIZE_MAX;
}

/* No markers and no repeated work: one step over the device work, not the
 * profiler around it (start-up such as JAX's start_trace or session
 * set-up, and tear-down before the first and after the last device op
 * are left out), else over the whole trace. */
static void whole_trace_step(const struct tc_model *m, const struct tc_analysis_opts *o,
		const struct tc_usage *u, struct tc_analysis *a) {
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	int64_t dlo = INT64_MAX, dhi = INT64_MIN;
	for (size_t k = 0; k < u->n_util; k++) {
		if (u->util[k].last_ps > u->util[k].first_ps) {
			dlo = u->util[k].first_ps < dlo ? u->util[k].first_ps : dlo;
			dhi = u->util[k].last_ps > dhi ? u->util[k].last_ps : dhi;
		}
	}
	bool device = dlo < dhi;
	a->steps = tc_xcalloc(1, sizeof(*a->steps));
	a->steps[0] = (struct tc_step){ .num = 0, .device = TC_NONE,
		.start_ps = device ? dlo : lo, .dur_ps = device ? dhi - dlo : hi - lo };
	a->steps[0].marker_start_ps = a->steps[0].start_ps;
	a->steps[0].marker_dur_ps = a->steps[0].dur_ps;
	a->n_steps = 1;
	a->steps_source = o->step_marker ? (device ?
		"whole trace: its device work, no event matching --step-marker" :
		"whole trace, no event matching --step-marker") : device ?
		"whole trace: its device work (no step markers or repeated work)" :
		"whole trace (no step markers or repeated work)";
}

/* The candidates c (sorted here unless merged says they are) as a's steps.
 * A marker inside another (same start sorts longer first) is a phase of
 * that step, not a step of its own; one that overlaps the step before
 * starts where it ends. Steps never overlap: the breakdown sums them,
 * and two steps over one stretch counted it twice (fuser_xent's
 * compilation, 954 ms in steps of an 834 ms compile union). */
static void steps_of_cands(const struct tc_model *m, struct cands *c, bool merged,
		struct tc_analysis *a) {
	if (!merged) {
		tc_sort_runs(c->v, c->n, sizeof(*c->v), cmp_cand);
	}
	size_t w = 0;
	for (size_t i = 0; i < c->n; i++) {
		int64_t prev_end = w ? c->v[w - 1].start_ps + c->v[w - 1].dur_ps : INT64_MIN;
		int64_t end = c->v[i].start_ps + c->v[i].dur_ps;
		if (w && end <= prev_end) {
			continue;
		}
		c->v[w] = c->v[i];
		if (c->v[w].start_ps < prev_end) {
			c->v[w].start_ps = prev_end;
			c->v[w].dur_ps = end - prev_end;
		}
		w++;
	}
	if (w) {
		/* Every field is set below: tc_xmalloc has the pages faulted in
		 * ahead, where calloc leaves each to a fault of its own. */
		a->steps = tc_xmalloc(w * sizeof(*a->steps));
		a->n_steps = w;
	}
	/* The names first, in a loop of their own: each misses the cache
	 * (markers are far apart in the op column), and there the misses
	 * overlap, where the steps' fill below would wait on each. */
	uint32_t *name = tc_xmalloc((w ? w : 1) * sizeof(*name));
	for (size_t i = 0; i < w; i++) {
		name[i] = m->ops[m->ev.op[c->v[i].ev]].name;
	}
	for (size_t i = 0; i < w; i++) {
		const struct cand *k = &c->v[i];
		a->steps[i] = (struct tc_step){
			.num = k->num == INT64_MIN ? (int64_t)i : k->num,
			.name = name[i], .device = k->device,
			.start_ps = k->start_ps, .dur_ps = k->dur_ps,
			.marker_start_ps = k->start_ps, .marker_dur_ps = k->dur_ps,
		};
	}
	free(name);
}

/* Warm-up: the first step when it is an outlier against the median of
 * the others (typically compilation or cache warm-up). */
static void mark_warmup(const struct tc_analysis_opts *o, struct tc_analysis *a) {
	if (a->n_steps < 2) {
		return;
	}
	size_t n = a->n_steps - 1;
	int64_t *d = tc_xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i] = a->steps[i + 1].dur_ps;
	}
	/* The median by selection, not a sort: the (n/2)-th smallest, and
	 * for even n the largest of those before it. */
	int64_t upper = tc_select_i64(d, n, n / 2), lower = upper;
	if (n % 2 == 0) {
		lower = d[0];
		for (size_t i = 1; i < n / 2; i++) {
			lower = d[i] > lower ? d[i] : lower;
		}
	}
	double med = n % 2 ? (double)upper : ((double)lower + (double)upper) / 2;
	if ((double)a->steps[0].dur_ps > o->th[TC_TH_WARMUP_FACTOR] * med) {
		a->steps[0].warmup = true;
	}
	free(d);
}

/* The window the steps cover, what is left out of it before and after,
 * and then only the steps of --steps FIRST:LAST. */
static void window_and_range(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_analysis *a) {
	a->n_steps_all = a->n_steps;
	if (a->n_steps && m->ev.n) {
		int64_t lo, hi;
		tc_model_span(m, &lo, &hi);
		const struct tc_step *l = &a->steps[a->n_steps - 1];
		a->window_lo_ps = a->steps[0].start_ps;
		a->window_hi_ps = l->start_ps + l->dur_ps;
		a->trimmed_before_ps = a->window_lo_ps > lo ? a->window_lo_ps - lo : 0;
		a->trimmed_after_ps = hi > a->window_hi_ps ? hi - a->window_hi_ps : 0;
	}
	if (o->step_range) {
		size_t k = 0;
		for (size_t i = 0; i < a->n_steps; i++) {
			if (a->steps[i].num >= o->step_first && a->steps[i].num <= o->step_last) {
				a->steps[k++] = a->steps[i];
			}
		}
		a->n_steps = k;
	}
}

bool tc_pass_steps_from(const struct tc_model *m, const struct tc_analysis_opts *o,
		const struct tc_markers *mk, const struct tc_usage *u, bool search,
		struct tc_analysis *a) {
	struct cands c = { 0 };
	a->steps_device = TC_NONE;
	a->step_marker = o->step_marker;
	struct tc_markers own = { 0 };
	if (search && !o->step_marker && !mk) {
		tc_markers_init(&own, m, false);
		mk = &own;
	}
	bool serving = false;
	bool found = search && (o->step_marker ? marked_steps(m, o->step_marker, a, &c) :
		explicit_steps(m, mk, a, &c) || (serving = serving_steps(m, a, &c)));
	tc_markers_finish(&own);
	if (!found && !u) {
		return false; /* no markers: the fallbacks read the usage */
	}
	if (!found) {
		a->steps_inferred = true;
		/* A --step-marker that matches nothing is not guessed around. */
		if ((o->step_marker || !inferred_steps(m, u, a, &c)) && m->ev.n) {
			whole_trace_step(m, o, u, a);
		}
	}
	/* Markers come track by track, each track in time order; the built-in
	 * ones are merged and left unnested already. */
	steps_of_cands(m, &c, found && !o->step_marker && !serving, a);
	free(c.v);
	if (a->steps_source && strncmp(a->steps_source, "host markers", 12) == 0) {
		align_host_steps(m, a);
	}
	mark_warmup(o, a);
	window_and_range(m, o, a);
	return true;
}
