/*
 * One side of `tracectl diff`, summarised from the analysis of its model
 * as sums over its counted steps; it keeps copies, so the model can go.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "analysis/passes.h"
#include "util/u64map.h"
#include "util/xalloc.h"

/*
 * One side of a diff, summarised from the analysis of its model. Every
 * figure the diff shows is a sum over the side's counted steps (or its
 * whole trace when it has none), so a side holds nothing per event.
 */

static char *dup_str(const struct tc_model *m, uint32_t id) {
	return tc_xstrdup(tc_model_str(m, id));
}

static int cmp_i64(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

void tc_step_stats(int64_t *v, size_t n, double *mean, double *median, double *p90) {
	*mean = *median = *p90 = 0;
	if (!n) {
		return;
	}
	tc_sort(v, n, sizeof(*v), cmp_i64);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		sum += (double)v[i];
	}
	*mean = sum / (double)n;
	*median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	size_t r = (size_t)ceil(0.9 * (double)n);
	*p90 = (double)v[r ? r - 1 : 0];
}

/* As the analysis counts them: warm-up and partial steps left out unless
 * nothing else is left. */
static bool *counted_steps(const struct tc_analysis *a) {
	bool *c = tc_xcalloc(a->n_steps ? a->n_steps : 1, sizeof(*c));
	size_t n_full = tc_steps_full(a->steps, a->n_steps);
	for (size_t i = 0; i < a->n_steps; i++) {
		c[i] = tc_step_counted(&a->steps[i], n_full);
	}
	return c;
}

static char *formats(const struct tc_model *m) {
	char buf[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < m->n_sources; i++) {
		const char *f = tc_model_str(m, m->sources[i].format);
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			seen = m->sources[j].format == m->sources[i].format;
		}
		if (!seen && len < sizeof(buf)) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "+" : "", f);
		}
	}
	return tc_xstrdup(buf);
}

struct marker {
	int64_t start, dur, num;
};

static int cmp_marker(const void *pa, const void *pb) {
	const struct marker *a = pa, *b = pb;
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	return a->dur > b->dur ? -1 : a->dur < b->dur;
}

static bool has_num(const int64_t *nums, size_t n, int64_t num) {
	for (size_t i = 0; i < n; i++) {
		if (nums[i] == num) {
			return true;
		}
	}
	return false;
}

/* Step times per source file (rank): its own outermost step markers with
 * the numbers the analysis counted. */
static void rank_steps(const struct tc_model *m, const struct tc_analysis *a,
		const bool *counted, struct tc_diff_side *s) {
	int64_t *nums = tc_xmalloc((a->n_steps ? a->n_steps : 1) * sizeof(*nums));
	size_t n_nums = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		if (counted[i]) {
			nums[n_nums++] = a->steps[i].num;
		}
	}
	s->ranks = tc_xcalloc(m->n_sources, sizeof(*s->ranks));
	for (size_t k = 0; k < m->n_sources && n_nums; k++) {
		uint32_t host = m->sources[k].host;
		struct marker *v = NULL;
		size_t n = 0, cap = 0;
		for (size_t t = 0; t < m->n_tracks && host != TC_NONE; t++) {
			const struct tc_track *tr = &m->tracks[t];
			if (tr->device >= m->n_devices || m->devices[tr->device].host != host) {
				continue;
			}
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				int64_t num;
				if (m->op_kind[m->ev.op[i]] != TC_OP_STEP || m->ev.dur[i] <= 0 ||
						!tc_model_arg_i64(m, tc_model_event_args(m, i),
							m->key.step, &num)) {
					continue;
				}
				TC_GROW(v, cap, n + 1);
				v[n++] = (struct marker){ m->ev.start[i], m->ev.dur[i], num };
			}
		}
		tc_sort(v, n, sizeof(*v), cmp_marker);
		int64_t *d = tc_xmalloc((n ? n : 1) * sizeof(*d));
		size_t nd = 0;
		int64_t end = INT64_MIN;
		for (size_t i = 0; i < n; i++) {
			/* A marker inside another is a phase of that step. */
			if (v[i].start + v[i].dur <= end) {
				continue;
			}
			end = v[i].start + v[i].dur;
			if (has_num(nums, n_nums, v[i].num)) {
				d[nd++] = v[i].dur;
			}
		}
		if (nd) {
			struct tc_diff_rank *r = &s->ranks[s->n_ranks++];
			const char *path = tc_model_str(m, m->sources[k].path);
			const char *base = strrchr(path, '/');
			r->label = tc_xstrdup(base ? base + 1 : path);
			r->n_steps = nd;
			tc_step_stats(d, nd, &r->mean_ps, &r->median_ps, &r->p90_ps);
		}
		free(d);
		free(v);
	}
	free(nums);
}

/* A device's name, "#k" added for its k-th repeat (one per host). */
/* Each device's place among the devices of its name (1: the first), made
 * once: counting the earlier namesakes per device made many devices cost
 * their square. */
static uint32_t *device_nths(const struct tc_model *m) {
	uint32_t *nth = tc_xmalloc((m->n_devices ? m->n_devices : 1) * sizeof(*nth));
	struct tc_u64map seen = { 0 };
	for (size_t d = 0; d < m->n_devices; d++) {
		uint32_t *c = tc_u64map_find(&seen, m->devices[d].name);
		nth[d] = c ? ++*c : *tc_u64map_put(&seen, m->devices[d].name, 1);
	}
	tc_u64map_finish(&seen);
	return nth;
}

static char *device_name(const struct tc_model *m, const uint32_t *nth, uint32_t d) {
	if (d >= m->n_devices) {
		return NULL;
	}
	size_t k = nth[d];
	const char *name = tc_model_str(m, m->devices[d].name);
	if (k == 1) {
		return tc_xstrdup(name);
	}
	size_t len = strlen(name) + 24;
	char *s = tc_xmalloc(len);
	snprintf(s, len, "%s #%zu", name, k);
	return s;
}

static void devices(const struct tc_model *m, const uint32_t *nth, const struct tc_analysis *a,
		uint32_t only, struct tc_diff_side *s) {
	size_t n = a->n_attr ? a->n_attr : a->n_util;
	s->devices = tc_xcalloc(n ? n : 1, sizeof(*s->devices));
	for (size_t k = 0; k < a->n_util; k++) {
		s->trace_busy_ps += a->util[k].busy_ps;
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t d = a->n_attr ? a->attr[k].device : a->util[k].device;
		if (only != TC_NONE && d != only) {
			continue;
		}
		struct tc_diff_device *dv = &s->devices[s->n_devices++];
		dv->name = device_name(m, nth, d);
		if (a->n_attr) {
			dv->busy_ps = a->attr[k].busy_ps;
			dv->idle_ps = a->attr[k].step_ps - a->attr[k].busy_ps;
		} else {
			dv->busy_ps = a->util[k].busy_ps;
			dv->idle_ps = a->util[k].idle_ps;
		}
		s->device_busy_ps += dv->busy_ps;
	}
}

/* Time windows of the counted steps: device work is counted in the step
 * (aligned to its device work), host events in the marker itself, as HTA
 * and the profiler assign them. */
struct windows {
	int64_t *dev_lo, *dev_hi, *host_lo, *host_hi;
	int64_t *dev_max, *host_max; /* the largest hi up to each window */
	size_t n;
};

static void windows_init(struct windows *w, const struct tc_analysis *a, const bool *counted) {
	size_t n = a->n_steps ? a->n_steps : 1;
	w->dev_lo = tc_xmalloc(n * sizeof(int64_t));
	w->dev_hi = tc_xmalloc(n * sizeof(int64_t));
	w->host_lo = tc_xmalloc(n * sizeof(int64_t));
	w->host_hi = tc_xmalloc(n * sizeof(int64_t));
	w->dev_max = tc_xmalloc(n * sizeof(int64_t));
	w->host_max = tc_xmalloc(n * sizeof(int64_t));
	w->n = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		if (!counted[i]) {
			continue;
		}
		const struct tc_step *st = &a->steps[i];
		w->dev_lo[w->n] = st->start_ps;
		w->dev_hi[w->n] = st->start_ps + st->dur_ps;
		w->host_lo[w->n] = st->marker_start_ps;
		w->host_hi[w->n] = st->marker_start_ps + st->marker_dur_ps;
		w->dev_max[w->n] = w->n && w->dev_max[w->n - 1] > w->dev_hi[w->n] ?
			w->dev_max[w->n - 1] : w->dev_hi[w->n];
		w->host_max[w->n] = w->n && w->host_max[w->n - 1] > w->host_hi[w->n] ?
			w->host_max[w->n - 1] : w->host_hi[w->n];
		w->n++;
	}
}

static void windows_finish(struct windows *w) {
	free(w->dev_lo);
	free(w->dev_hi);
	free(w->host_lo);
	free(w->host_hi);
	free(w->dev_max);
	free(w->host_max);
}

/* Whether t falls in one of the windows [lo, hi), sorted by lo, moving
 * *pos forward to the first window that ends after t: a track's events
 * come in start order, so every window before *pos ends by t, and the
 * first to end after t is the first whose max (the largest hi up to it)
 * does. Found by bisection: a step at a time, many lines over many steps
 * cost their product. */
static bool in_windows(const int64_t *lo, const int64_t *hi, const int64_t *max, size_t n,
		size_t *pos, int64_t t) {
	if (*pos < n && hi[*pos] <= t) {
		size_t a = *pos + 1, b = n;
		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (max[mid] <= t) {
				a = mid + 1;
			} else {
				b = mid;
			}
		}
		*pos = a;
	}
	/* Host markers may overlap the next one's start: look one further. */
	for (size_t i = *pos; i < n && i <= *pos + 1 && lo[i] <= t; i++) {
		if (t < hi[i]) {
			return true;
		}
	}
	return false;
}

/* An op's parent when its calls have several. */
#define MIXED_PARENT (TC_NONE - 1)

struct op_acc {
	uint64_t count, flops_calls;
	double flops;
	int64_t total_ps;
	uint64_t nested;
	uint32_t parent;        /* enclosing op of every call, TC_NONE, MIXED_PARENT */
};

struct key_acc {
	uint32_t key;           /* name or category id */
	uint8_t scope, kind;
	uint64_t count;
	double flops;           /* < 0 some call carries none */
	int64_t total_ps;
	uint64_t nested;
	uint32_t parent;        /* op id, TC_NONE none, MIXED_PARENT */
};

static int cmp_key_acc(const void *pa, const void *pb) {
	const struct key_acc *a = pa, *b = pb;
	if (a->scope != b->scope) {
		return a->scope < b->scope ? -1 : 1;
	}
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Group (scope, op) sums by (scope, key) into owned rows. */
static struct tc_diff_op *group_ops(const struct tc_model *m, const struct op_acc *acc,
		bool by_category, size_t *n_out) {
	struct key_acc *v = tc_xmalloc((m->n_ops ? m->n_ops : 1) * 2 * sizeof(*v));
	size_t n = 0;
	for (size_t o = 0; o < m->n_ops; o++) {
		for (uint8_t sc = 0; sc < 2; sc++) {
			const struct op_acc *x = &acc[o * 2 + sc];
			if (x->count) {
				v[n++] = (struct key_acc){ .key = by_category ? m->ops[o].category :
					m->ops[o].name, .scope = sc, .kind = m->ops[o].kind,
					.count = x->count, .total_ps = x->total_ps,
					.nested = x->nested, .parent = x->parent,
					.flops = x->flops_calls == x->count ? x->flops : -1 };
			}
		}
	}
	tc_sort(v, n, sizeof(*v), cmp_key_acc);
	struct tc_diff_op *out = tc_xcalloc(n ? n : 1, sizeof(*out));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && out[k - 1].scope == v[i].scope && v[i - 1].key == v[i].key) {
			out[k - 1].count += v[i].count;
			out[k - 1].total_ps += v[i].total_ps;
			out[k - 1].nested += v[i].nested;
			out[k - 1].flops = out[k - 1].flops >= 0 && v[i].flops >= 0 ?
				out[k - 1].flops + v[i].flops : -1;
			if (!by_category && v[i].parent != v[i - 1].parent) {
				free(out[k - 1].parent);
				out[k - 1].parent = NULL;
			}
			continue;
		}
		uint32_t p = v[i].parent;
		out[k++] = (struct tc_diff_op){
			.name = by_category && v[i].key == 0 ? tc_xstrdup("(none)") : dup_str(m, v[i].key),
			.scope = v[i].scope, .kind = v[i].kind, .count = v[i].count,
			.total_ps = v[i].total_ps, .nested = by_category ? 0 : v[i].nested,
			.flops = v[i].flops,
			.parent = by_category || p >= MIXED_PARENT ? NULL :
				dup_str(m, m->ops[p].name),
		};
	}
	free(v);
	*n_out = k;
	return out;
}

static bool skip_track(enum tc_track_kind k) {
	/* Derived and annotation lines repeat other lines' work; step lines
	 * are the step time itself; counters hold no slices. */
	return k == TC_TRACK_DERIVED || k == TC_TRACK_ANNOTATION || k == TC_TRACK_STEPS ||
		k == TC_TRACK_COUNTER;
}

/* A host op that calls inside it are part of: not a step, annotation,
 * python frame or module, which enclose a step's top-level work. */
static bool nests(const struct tc_model *m, uint32_t op) {
	switch (m->op_kind[op]) {
	case TC_OP_STEP:
	case TC_OP_ANNOTATION:
	case TC_OP_PYTHON:
	case TC_OP_MODULE:
		return false;
	default:
		return true;
	}
}

/* Count a host call's parent (the enclosing event on its track, NULL at
 * depth 0) into x. Every step's marker is the same parent: the step. */
static void add_parent(const struct tc_model *m, struct op_acc *x, const uint32_t *parent) {
	uint32_t p = parent ? m->ev.op[*parent] : TC_NONE;
	x->nested += parent && nests(m, p);
	bool same = x->parent == p || (p != TC_NONE && x->parent < MIXED_PARENT &&
		m->op_kind[p] == TC_OP_STEP && m->op_kind[x->parent] == TC_OP_STEP);
	x->parent = x->count == 1 ? p : same ? x->parent : MIXED_PARENT;
}

/* Nesting deeper than this is left without a parent. */
#define MAX_DEPTH 256

static void ops(const struct tc_model *m, const struct tc_analysis *a, const bool *counted,
		uint32_t only, struct tc_diff_side *s) {
	struct windows w;
	windows_init(&w, a, counted);
	struct op_acc *acc = tc_xcalloc((m->n_ops ? m->n_ops : 1) * 2, sizeof(*acc));
	uint32_t open[MAX_DEPTH];
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		enum tc_track_kind k = (enum tc_track_kind)tr->kind;
		if (skip_track(k)) {
			continue;
		}
		bool dev = tc_track_kind_is_device_work(k) || k == TC_TRACK_MODULES;
		if (dev && only != TC_NONE && tr->device != only) {
			continue;
		}
		const int64_t *lo = dev ? w.dev_lo : w.host_lo, *hi = dev ? w.dev_hi : w.host_hi;
		const int64_t *max = dev ? w.dev_max : w.host_max;
		size_t pos = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			/* Events come parents first: the open one a level up
			 * encloses this one. */
			uint16_t dp = m->ev.depth[i];
			if (dp < MAX_DEPTH) {
				open[dp] = (uint32_t)i;
			}
			if (s->has_steps && !in_windows(lo, hi, max, w.n, &pos, m->ev.start[i])) {
				continue;
			}
			struct op_acc *x = &acc[(size_t)m->ev.op[i] * 2 + dev];
			x->count++;
			x->total_ps += m->ev.dur[i];
			int64_t fl = dev && m->op_kind[m->ev.op[i]] == TC_OP_KERNEL ?
				tc_model_event_flops(m, (uint32_t)i) : -1;
			x->flops += fl >= 0 ? (double)fl : 0;
			x->flops_calls += fl >= 0;
			if (!dev) {
				add_parent(m, x, dp && dp <= MAX_DEPTH ? &open[dp - 1] : NULL);
			}
		}
	}
	s->ops = group_ops(m, acc, false, &s->n_ops);
	s->cats = group_ops(m, acc, true, &s->n_cats);
	free(acc);
	windows_finish(&w);
}

/* Findings (only: on that device alone, TC_NONE all). */
static void findings(const struct tc_model *m, const uint32_t *nth,
		const struct tc_analysis *a, uint32_t only, struct tc_diff_side *s) {
	s->findings = tc_xcalloc(a->n_findings ? a->n_findings : 1, sizeof(*s->findings));
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *f = &a->findings[i];
		if (only != TC_NONE && f->device != only) {
			continue;
		}
		s->findings[s->n_findings++] = (struct tc_diff_finding){
			.kind = tc_xstrdup(f->kind), .device = device_name(m, nth, f->device),
			.severity = f->severity, .share = f->share,
			.text = tc_xstrdup(f->text ? f->text : ""),
		};
	}
}

/* Memory peaks (only: of that device alone, TC_NONE all). */
static void memory(const struct tc_model *m, const uint32_t *nth, const struct tc_analysis *a,
		uint32_t only, struct tc_diff_side *s) {
	s->mem = tc_xcalloc(a->n_mem ? a->n_mem : 1, sizeof(*s->mem));
	for (size_t i = 0; i < a->n_mem; i++) {
		const struct tc_mem_peak *p = &a->mem[i];
		if (only != TC_NONE && p->device != only) {
			continue;
		}
		char *dev = device_name(m, nth, p->device);
		char buf[1024];
		snprintf(buf, sizeof(buf), "%s %s%s%s%s", dev ? dev : "global",
			tc_model_str(m, p->name), p->group ? " (" : "",
			p->group ? tc_model_str(m, p->group) : "", p->group ? ")" : "");
		free(dev);
		s->mem[s->n_mem++] = (struct tc_diff_mem){ .label = tc_xstrdup(buf),
			.peak_bytes = p->peak_bytes };
	}
}

void tc_diff_side_build(const struct tc_model *m, const struct tc_analysis_opts *o,
		const char *label, struct tc_diff_side *s) {
	memset(s, 0, sizeof(*s));
	struct tc_analysis a;
	tc_analyze(m, o, TC_AN_FINDINGS, &a);
	s->label = tc_xstrdup(label);
	s->format = formats(m);
	s->n_sources = m->n_sources;
	s->steps_source = tc_xstrdup(a.steps_source ? a.steps_source : "none");
	/* Without markers or repeated work the one step is the whole trace
	 * (steps.c names that source "whole trace..."). */
	s->has_steps = a.n_steps && strncmp(s->steps_source, "whole trace", 11) != 0;
	bool *counted = counted_steps(&a);
	uint32_t only = tc_analysis_find_device(m, o->device);
	/* With --device, the copies of that device alone. */
	struct tc_xfer_stats *xs = NULL, *whole = a.xfer, dev_whole[TC_XFER_COUNT] = { 0 };
	if (only != TC_NONE) {
		xs = tc_xcalloc((a.n_steps ? a.n_steps : 1) * TC_XFER_COUNT, sizeof(*xs));
		tc_breakdown_transfers(m, &a, only, dev_whole, xs);
		whole = dev_whole;
	}
	int64_t *d = tc_xmalloc((a.n_steps ? a.n_steps : 1) * sizeof(*d));
	for (size_t i = 0; i < a.n_steps; i++) {
		if (!counted[i]) {
			continue;
		}
		d[s->n_steps++] = a.steps[i].dur_ps;
		const struct tc_xfer_stats *sx = xs ? xs + i * TC_XFER_COUNT : a.steps[i].xfer;
		for (int x = 0; x < TC_XFER_COUNT; x++) {
			s->xfer[x].count += sx[x].count;
			s->xfer[x].bytes += sx[x].bytes;
		}
	}
	free(xs);
	s->n_steps_all = a.n_steps_all;
	s->step_total_ps = a.step_total_ps;
	tc_step_stats(d, s->n_steps, &s->step_mean_ps, &s->step_median_ps, &s->step_p90_ps);
	free(d);
	if (!s->has_steps) {
		/* The whole trace is the one "step": its transfers are all of them. */
		for (int x = 0; x < TC_XFER_COUNT; x++) {
			s->xfer[x].count = whole[x].count;
			s->xfer[x].bytes = whole[x].bytes;
		}
	}
	uint32_t *nth = device_nths(m);
	s->bd_device = device_name(m, nth, a.bd_device);
	memcpy(s->cat_ps, a.cat_total_ps, sizeof(s->cat_ps));
	if (m->n_sources > 1) {
		rank_steps(m, &a, counted, s);
	}
	devices(m, nth, &a, only, s);
	ops(m, &a, counted, only, s);
	findings(m, nth, &a, only, s);
	memory(m, nth, &a, only, s);
	tc_diff_mem_side(m, &a.memview, only, s);
	free(nth);
	s->compile_count = a.compile.n_events;
	s->compile_ps = a.compile.union_ps;
	free(counted);
	tc_analysis_finish(&a);
}
