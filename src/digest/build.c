/*
 * A rank's digest built from its model: the default analysis, and what the
 * commands that read digests print from it, kept as sums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/budget.h"
#include "analysis/coll_gather.h"
#include "analysis/compare.h"
#include "analysis/device.h"
#include "analysis/devwork.h"
#include "analysis/optable.h"
#include "analysis/steps.h"
#include "analysis/summary.h"
#include "digest/colltable.h"
#include "digest/view.h"
#include "model/rank.h"
#include "model/step_counted.h"
#include "util/num.h"
#include "util/spill.h"
#include "util/xalloc.h"

/*
 * A rank's digest from its model: the default analysis, and what the
 * commands that read digests print, kept as sums (docs/digest.md).
 */

static char *dstr(struct tc_digest *d, const char *s) {
	return tc_arena_strdup(&d->arena, s ? s : "");
}

static void *dalloc(struct tc_digest *d, size_t n) {
	return tc_arena_calloc(&d->arena, n ? n : 1);
}

static int64_t *dcopy_i64(struct tc_digest *d, const int64_t *v, size_t n) {
	int64_t *out = dalloc(d, n * sizeof(*out));
	if (n) {
		memcpy(out, v, n * sizeof(*out));
	}
	return out;
}

static Tracectl__Xfer **xfers(struct tc_digest *d, const struct tc_xfer_stats *x) {
	Tracectl__Xfer **v = dalloc(d, TC_XFER_COUNT * sizeof(*v));
	for (int k = 0; k < TC_XFER_COUNT; k++) {
		v[k] = dalloc(d, sizeof(*v[k]));
		tracectl__xfer__init(v[k]);
		v[k]->count = x[k].count;
		v[k]->with_bytes = x[k].n_bytes_known;
		v[k]->bytes = x[k].bytes;
		v[k]->dur_ps = x[k].dur_ps;
		v[k]->bytes_dur_ps = x[k].bytes_dur_ps;
		v[k]->pageable = x[k].n_pageable;
		v[k]->pinned = x[k].n_pinned;
		v[k]->bytes_pageable = x[k].bytes_pageable;
	}
	return v;
}

/* ---- the op table ---- */

struct row_key {
	uint32_t name, cat;
	uint8_t kind;
	uint32_t row;
};

static int cmp_row_key(const void *pa, const void *pb) {
	const struct row_key *a = pa, *b = pb;
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	if (a->cat != b->cat) {
		return a->cat < b->cat ? -1 : 1;
	}
	return (a->kind > b->kind) - (a->kind < b->kind);
}

struct first_op {
	uint32_t first;
	const struct tc_op_summary *s;
};

static int cmp_first_op(const void *pa, const void *pb) {
	const struct first_op *a = pa, *b = pb;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_u32(const void *pa, const void *pb) {
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

static uint32_t str_index(const uint32_t *ids, size_t n, uint32_t id) {
	const uint32_t *p = bsearch(&id, ids, n, sizeof(*ids), cmp_u32);
	return p ? (uint32_t)(p - ids) : 0;
}

static void fill_stat(Tracectl__OpStat *o, const struct tc_op_summary *s) {
	o->kind = s->kind;
	o->count = s->count;
	o->total_ps = s->total_ps;
	o->self_ps = s->self_ps;
	o->min_ps = s->min_ps;
	o->max_ps = s->max_ps;
	o->flops = s->flops;
	o->bytes = s->bytes;
	o->p50_ps = s->p50_ps;
	o->p99_ps = s->p99_ps;
}

/* Rows in the order tc_analyze_ops makes them (the ops' order), names and
 * categories as a string table in the model's order, so a skeleton
 * interning them rank by rank orders ties as the merged model does. */
static void op_table(struct tc_digest *d, const struct tc_model *m,
		const struct tc_analysis *a, Tracectl__Rank *r) {
	bool any_device = false;
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		any_device |= tr->device < m->n_devices && tr->count > 0 &&
			tc_track_kind_is_device_work((enum tc_track_kind)tr->kind);
	}
	bool (*track_ok)(const struct tc_model *, uint32_t, void *) =
		any_device ? tc_track_device_work : tc_track_host;
	size_t n;
	struct tc_op_summary *s = tc_analyze_ops(m, track_ok, NULL, true, &n);
	struct row_key *keys = tc_xmalloc((n ? n : 1) * sizeof(*keys));
	for (size_t i = 0; i < n; i++) {
		keys[i] = (struct row_key){ s[i].name, s[i].category, s[i].kind, (uint32_t)i };
	}
	tc_sort(keys, n, sizeof(*keys), cmp_row_key);
	/* Each op's row (TC_NONE: no events in scope). */
	uint32_t *row_of = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*row_of));
	struct first_op *order = tc_xmalloc((n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++) {
		order[i] = (struct first_op){ UINT32_MAX, &s[i] };
	}
	for (size_t o = 0; o < m->n_ops; o++) {
		struct row_key k = { m->ops[o].name, m->ops[o].category, m->ops[o].kind, 0 };
		const struct row_key *f = bsearch(&k, keys, n, sizeof(*keys), cmp_row_key);
		row_of[o] = f ? f->row : TC_NONE;
		if (f && order[f->row].first == UINT32_MAX) {
			order[f->row].first = (uint32_t)o;
		}
	}
	/* Durations by row, for the sketches. */
	size_t *pos = tc_xcalloc(n + 1, sizeof(*pos));
	for (size_t i = 0; i < n; i++) {
		pos[i + 1] = pos[i] + s[i].count;
	}
	int64_t *durs = tc_xmalloc((pos[n] ? pos[n] : 1) * sizeof(*durs));
	size_t *fill = tc_xmalloc((n ? n : 1) * sizeof(*fill));
	memcpy(fill, pos, n * sizeof(*fill));
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tr->count || !track_ok(m, (uint32_t)t, NULL)) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint32_t row = row_of[m->ev.op[i]];
			if (row != TC_NONE && fill[row] < pos[row + 1]) {
				durs[fill[row]++] = m->ev.dur[i];
			}
		}
	}
	tc_sort(order, n, sizeof(*order), cmp_first_op);
	r->n_ops = n;
	r->ops = dalloc(d, n * sizeof(*r->ops));
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_summary *x = order[i].s;
		size_t row = (size_t)(x - s);
		Tracectl__OpStat *o = r->ops[i] = dalloc(d, sizeof(*o));
		tracectl__op_stat__init(o);
		fill_stat(o, x);
		o->name = x->name; /* model ids until strings() */
		o->category = x->category;
		o->sketch = tc_sketch_build(&d->arena, durs + pos[row], fill[row] - pos[row]);
	}
	r->device_scope = any_device;
	for (size_t k = 0; k < a->n_util && any_device; k++) {
		r->busy_ps += a->util[k].busy_ps;
		if (!r->peak_source[0] && a->util[k].peak_source) {
			r->peak_flops = a->util[k].peak_flops;
			r->peak_bw = a->util[k].peak_bw;
			r->peak_source = dstr(d, a->util[k].peak_source);
		}
	}
	/* `ops --by device`: a row per device, its ops summed. */
	r->device_ops = dalloc(d, m->n_devices * sizeof(*r->device_ops));
	size_t nn = 0, at = 0;
	struct tc_op_row *rows = any_device ? tc_device_op_rows(m, TC_NONE, &nn) : NULL;
	for (uint32_t dd = 0; dd < m->n_devices && at < nn; dd++) {
		if (rows[at].device == dd) {
			Tracectl__DeviceOps *o = r->device_ops[r->n_device_ops++] = dalloc(d, sizeof(*o));
			tracectl__device_ops__init(o);
			struct tc_op_row sum = rows[at++];
			o->device = dd;
			o->count = sum.count;
			o->total_ps = sum.total_ps;
			o->self_ps = sum.self_ps;
			o->min_ps = sum.min_ps;
			o->max_ps = sum.max_ps;
			o->flops = sum.flops;
			o->bytes = sum.bytes;
		}
	}
	free(rows);
	/* `ops --by category`: device work by what it does (devwork.h). */
	if (any_device) {
		struct tc_devwork w;
		tc_devwork_scan(m, TC_NONE, &w);
		r->category_ops = dalloc(d, TC_DEVCAT_COUNT * sizeof(*r->category_ops));
		for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
			const struct tc_devcat_acc *x = &w.cat[c];
			if (!x->count) {
				continue;
			}
			Tracectl__DeviceOps *o = r->category_ops[r->n_category_ops++] =
				dalloc(d, sizeof(*o));
			tracectl__device_ops__init(o);
			*o = (Tracectl__DeviceOps){ .base = o->base, .device = (uint32_t)c,
				.count = x->count, .total_ps = x->total_ps, .self_ps = x->self_ps,
				.min_ps = x->min_ps, .max_ps = x->max_ps, .flops = x->flops,
				.bytes = x->bytes, .launched_ps = x->launched_ps };
		}
	}
	free(fill);
	free(durs);
	free(pos);
	free(order);
	free(row_of);
	free(keys);
	free(s);
}

/* ---- steps, memory, compilation, findings ---- */

static int32_t dev_index(const struct tc_model *m, uint32_t dv) {
	return dv < m->n_devices ? (int32_t)dv : -1;
}

static void startup_out(struct tc_digest *d, const struct tc_startup *su,
		Tracectl__Steps *st) {
	st->startup_calls = su->n_calls;
	st->startup_ps = su->total_ps;
	size_t k = 0;
	while (k < TC_STARTUP_TOP && su->name[k]) {
		k++;
	}
	st->n_startup_names = st->n_startup_top_ps = k;
	st->startup_names = k ? dalloc(d, k * sizeof(*st->startup_names)) : NULL;
	st->startup_top_ps = k ? dcopy_i64(d, su->dur_ps, k) : NULL;
	for (size_t i = 0; i < k; i++) {
		st->startup_names[i] = dstr(d, su->name[i]);
	}
}

/* Lean step columns come from bulk (d, or a digest set aside). */
static void steps(struct tc_digest *d, const struct tc_model *m, const struct tc_analysis *a,
		int64_t first, bool lean, struct tc_digest *bulk, Tracectl__Rank *r) {
	Tracectl__Steps *st = r->steps = dalloc(d, sizeof(*st));
	tracectl__steps__init(st);
	st->source = dstr(d, a->steps_source);
	st->inferred = a->steps_inferred;
	st->bd_device = dev_index(m, a->bd_device);
	st->n_all = a->n_steps_all;
	st->n_counted = a->n_steps_counted;
	st->total_ps = a->step_total_ps;
	st->n_cat_ps = TC_BD_COUNT;
	st->cat_ps = dcopy_i64(d, a->cat_total_ps, TC_BD_COUNT);
	st->window_lo_ps = a->window_lo_ps - first;
	st->window_hi_ps = a->window_hi_ps - first;
	st->trimmed_before_ps = a->trimmed_before_ps;
	st->trimmed_after_ps = a->trimmed_after_ps;
	startup_out(d, &a->startup, st);
	if (lean) {
		size_t n = a->n_steps;
		st->n_lean_start_ps = st->n_lean_dur_ps = st->n_lean_num = st->n_lean_flags = n;
		st->lean_start_ps = dalloc(bulk, n * sizeof(*st->lean_start_ps));
		st->lean_dur_ps = dalloc(bulk, n * sizeof(*st->lean_dur_ps));
		st->lean_num = dalloc(bulk, n * sizeof(*st->lean_num));
		st->lean_flags = dalloc(bulk, n * sizeof(*st->lean_flags));
		for (size_t i = 0; i < n; i++) {
			const struct tc_step *s = &a->steps[i];
			st->lean_start_ps[i] = s->start_ps - first;
			st->lean_dur_ps[i] = s->dur_ps;
			st->lean_num[i] = s->num;
			st->lean_flags[i] = (s->warmup ? 1u : 0u) | (s->partial ? 2u : 0u);
		}
	}
	st->n_steps = lean ? 0 : a->n_steps;
	st->steps = dalloc(d, st->n_steps * sizeof(*st->steps));
	for (size_t i = 0; i < st->n_steps; i++) {
		const struct tc_step *s = &a->steps[i];
		Tracectl__Step *o = st->steps[i] = dalloc(d, sizeof(*o));
		tracectl__step__init(o);
		o->num = s->num;
		o->name = dstr(d, tc_model_str(m, s->name));
		o->start_ps = s->start_ps - first;
		o->dur_ps = s->dur_ps;
		o->marker_start_ps = s->marker_start_ps - first;
		o->marker_dur_ps = s->marker_dur_ps;
		o->warmup = s->warmup;
		o->partial = s->partial;
		o->device = dev_index(m, s->device);
		o->busy_ps = s->busy_ps;
		o->n_cat_ps = TC_BD_COUNT;
		o->cat_ps = dcopy_i64(d, s->cat_ps, TC_BD_COUNT);
		o->n_xfer = TC_XFER_COUNT;
		o->xfer = xfers(d, s->xfer);
	}
	st->n_attr = a->n_attr;
	st->attr = dalloc(d, a->n_attr * sizeof(*st->attr));
	for (size_t k = 0; k < a->n_attr; k++) {
		Tracectl__Attribution *o = st->attr[k] = dalloc(d, sizeof(*o));
		tracectl__attribution__init(o);
		o->device = a->attr[k].device;
		o->step_ps = a->attr[k].step_ps;
		o->busy_ps = a->attr[k].busy_ps;
		o->n_cat_ps = TC_BD_COUNT;
		o->cat_ps = dcopy_i64(d, a->attr[k].cat_ps, TC_BD_COUNT);
	}
}

static void memory(struct tc_digest *d, const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_diff_side *side, Tracectl__Rank *r) {
	r->n_mem = a->n_mem;
	r->mem = dalloc(d, a->n_mem * sizeof(*r->mem));
	for (size_t i = 0; i < a->n_mem; i++) {
		const struct tc_mem_peak *p = &a->mem[i];
		Tracectl__MemPeak *o = r->mem[i] = dalloc(d, sizeof(*o));
		tracectl__mem_peak__init(o);
		o->device = dev_index(m, p->device);
		o->name = dstr(d, tc_model_str(m, p->name));
		o->group = dstr(d, p->group ? tc_model_str(m, p->group) : "");
		o->peak_bytes = p->peak_bytes;
		o->samples = p->samples;
		o->label = dstr(d, i < side->n_mem ? side->mem[i].label : "");
		char buf[512];
		if (p->device < m->n_devices) {
			tc_analysis_device_label(m, p->device, buf, sizeof(buf));
		} else {
			snprintf(buf, sizeof(buf), "global");
		}
		o->device_label = dstr(d, buf);
	}
}

/* The memory line summarize prints (tc_mem_view_top), as far as it goes. */
static void memory_top(struct tc_digest *d, const struct tc_model *m, const struct tc_analysis *a,
		Tracectl__Rank *r) {
	const struct tc_mem_holder *h;
	const struct tc_mem_device *md = tc_mem_view_top(&a->memview, &h);
	if (!md) {
		return;
	}
	Tracectl__MemTop *o = r->mem_top = dalloc(d, sizeof(*o));
	tracectl__mem_top__init(o);
	o->device = dev_index(m, md->device);
	o->allocator = dstr(d, md->group ? tc_model_str(m, md->group) : "");
	o->peak_bytes = md->peak_bytes;
	o->peak_ps = md->peak_ps - a->summary.first_ps;
	o->has_top = h != NULL;
	o->top_op = dstr(d, h && h->name != TC_NONE ? tc_model_str(m, h->name) : "");
	o->top_scope = dstr(d, h && h->scope != TC_NONE ? tc_model_str(m, h->scope) : "");
	o->top_bytes = h ? h->bytes : 0;
}

static Tracectl__Finding *finding(struct tc_digest *d, const char *kind, const char *device,
		uint8_t severity, double share, const char *text) {
	Tracectl__Finding *o = dalloc(d, sizeof(*o));
	tracectl__finding__init(o);
	o->kind = dstr(d, kind);
	o->device = dstr(d, device);
	o->severity = severity;
	o->share = share;
	o->text = dstr(d, text);
	return o;
}

/* Calls and time of each op name started inside a counted step, on every
 * line but derived ones (check's op: metrics). */
static void step_ops(struct tc_digest *d, const struct tc_model *m,
		const struct tc_analysis *a, Tracectl__Rank *r) {
	uint64_t *calls = tc_xcalloc(m->strings.n + 1, sizeof(*calls));
	int64_t *ps = tc_xcalloc(m->strings.n + 1, sizeof(*ps));
	double *sec = tc_xcalloc(m->strings.n + 1, sizeof(*sec));
	size_t n = 0;
	for (size_t t = 0; t < m->n_tracks && a->n_steps; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->kind == TC_TRACK_DERIVED) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			size_t s = tc_step_at(a->steps, a->n_steps, m->ev.start[i]);
			if (s != SIZE_MAX && tc_step_counted_in(a, &a->steps[s])) {
				uint32_t name = m->ops[m->ev.op[i]].name;
				n += !calls[name];
				calls[name]++;
				ps[name] += m->ev.dur[i];
				/* In check's order, so the double sum is the same. */
				sec[name] += (double)m->ev.dur[i] / 1e12;
			}
		}
	}
	r->step_ops = dalloc(d, n * sizeof(*r->step_ops));
	for (size_t id = 0; id < m->strings.n; id++) {
		if (calls[id]) {
			Tracectl__StepOp *o = r->step_ops[r->n_step_ops++] = dalloc(d, sizeof(*o));
			tracectl__step_op__init(o);
			o->name_ref = (uint32_t)id + 1; /* model id + 1 until strings() */
			o->calls = calls[id];
			o->ps = ps[id];
			o->seconds = sec[id];
		}
	}
	free(calls);
	free(ps);
	free(sec);
}

static Tracectl__DiffOp **diff_ops(struct tc_digest *d, const struct tc_model *m,
		const struct tc_diff_op *v, size_t n) {
	Tracectl__DiffOp **out = dalloc(d, n * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		Tracectl__DiffOp *o = out[i] = dalloc(d, sizeof(*o));
		tracectl__diff_op__init(o);
		/* A model string is kept once, in the rank's table (strings()). */
		uint32_t id = tc_intern_find(&m->strings, v[i].name, strlen(v[i].name));
		if (id != TC_NONE) {
			o->name_ref = id + 1;
		} else {
			o->name = dstr(d, v[i].name);
		}
		o->scope = v[i].scope;
		o->kind = v[i].kind;
		o->count = v[i].count;
		o->total_ps = v[i].total_ps;
		o->nested = v[i].nested;
		id = v[i].parent ? tc_intern_find(&m->strings, v[i].parent, strlen(v[i].parent)) :
			TC_NONE;
		if (id != TC_NONE) {
			o->parent_ref = id + 1;
		} else if (v[i].parent) {
			o->parent = dstr(d, v[i].parent);
		}
	}
	return out;
}

static Tracectl__DiffSide *diff_side(struct tc_digest *d, const struct tc_model *m,
		const struct tc_diff_side *s, const struct tc_analysis *a) {
	Tracectl__DiffSide *o = dalloc(d, sizeof(*o));
	tracectl__diff_side__init(o);
	o->format = dstr(d, s->format);
	o->has_steps = s->has_steps;
	o->steps_source = dstr(d, s->steps_source);
	o->n_steps = s->n_steps;
	o->n_steps_all = s->n_steps_all;
	o->step_total_ps = s->step_total_ps;
	o->step_mean_ps = s->step_mean_ps;
	o->step_median_ps = s->step_median_ps;
	o->step_p90_ps = s->step_p90_ps;
	o->bd_device = dstr(d, s->bd_device);
	o->n_cat_ps = TC_BD_COUNT;
	o->cat_ps = dcopy_i64(d, s->cat_ps, TC_BD_COUNT);
	o->device_busy_ps = s->device_busy_ps;
	o->trace_busy_ps = s->trace_busy_ps;
	o->n_devices = s->n_devices;
	o->devices = dalloc(d, s->n_devices * sizeof(*o->devices));
	for (size_t i = 0; i < s->n_devices; i++) {
		Tracectl__DiffDevice *x = o->devices[i] = dalloc(d, sizeof(*x));
		tracectl__diff_device__init(x);
		x->name = dstr(d, s->devices[i].name);
		x->busy_ps = s->devices[i].busy_ps;
		x->idle_ps = s->devices[i].idle_ps;
	}
	o->n_ops = s->n_ops;
	o->ops = diff_ops(d, m, s->ops, s->n_ops);
	o->n_cats = s->n_cats;
	o->cats = diff_ops(d, m, s->cats, s->n_cats);
	o->n_findings = s->n_findings;
	o->findings = dalloc(d, s->n_findings * sizeof(*o->findings));
	for (size_t i = 0; i < s->n_findings; i++) {
		const struct tc_diff_finding *f = &s->findings[i];
		o->findings[i] = finding(d, f->kind, f->device, f->severity, f->share, f->text);
	}
	struct tc_xfer_stats x[TC_XFER_COUNT];
	memset(x, 0, sizeof(x));
	for (int k = 0; k < TC_XFER_COUNT; k++) {
		x[k].count = s->xfer[k].count;
		x[k].bytes = s->xfer[k].bytes;
	}
	o->n_xfer = TC_XFER_COUNT;
	o->xfer = xfers(d, x);
	o->n_mem = s->n_mem;
	o->mem = dalloc(d, s->n_mem * sizeof(*o->mem));
	for (size_t i = 0; i < s->n_mem; i++) {
		Tracectl__MemPeak *p = o->mem[i] = dalloc(d, sizeof(*p));
		tracectl__mem_peak__init(p);
		p->label = dstr(d, s->mem[i].label);
		p->peak_bytes = s->mem[i].peak_bytes;
	}
	o->compile_count = s->compile_count;
	o->compile_ps = s->compile_ps;
	/* The counted steps' durations: several ranks' sides pool them. */
	o->step_ps = dalloc(d, a->n_steps * sizeof(*o->step_ps));
	size_t n_full = tc_steps_full(a->steps, a->n_steps);
	for (size_t i = 0; i < a->n_steps && s->has_steps; i++) {
		if (tc_step_counted(&a->steps[i], n_full)) {
			o->step_ps[o->n_step_ps++] = a->steps[i].dur_ps;
		}
	}
	return o;
}

/* The rank's string table: every model string its ops, step ops and diff
 * side name, in the model's order (a skeleton interning them rank by rank
 * orders op-table ties as the merged model does), and the references
 * turned from model ids into indexes. */
static void strings(struct tc_digest *d, const struct tc_model *m, Tracectl__Rank *r) {
	/* A job's rank has no diff side. */
	static const Tracectl__DiffSide none = TRACECTL__DIFF_SIDE__INIT;
	const Tracectl__DiffSide *sd = r->side ? r->side : &none;
	size_t cap = 2 * r->n_ops + r->n_step_ops + 2 * (sd->n_ops + sd->n_cats) + 1, n = 0;
	uint32_t *ids = tc_xmalloc(cap * sizeof(*ids));
	for (size_t i = 0; i < r->n_ops; i++) {
		ids[n++] = r->ops[i]->name;
		ids[n++] = r->ops[i]->category;
	}
	for (size_t i = 0; i < r->n_step_ops; i++) {
		ids[n++] = r->step_ops[i]->name_ref - 1;
	}
	Tracectl__DiffOp **lists[2] = { sd->ops, sd->cats };
	size_t lens[2] = { sd->n_ops, sd->n_cats };
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < lens[l]; i++) {
			if (lists[l][i]->name_ref) {
				ids[n++] = lists[l][i]->name_ref - 1;
			}
			if (lists[l][i]->parent_ref) {
				ids[n++] = lists[l][i]->parent_ref - 1;
			}
		}
	}
	tc_sort(ids, n, sizeof(*ids), cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (!u || ids[u - 1] != ids[i]) {
			ids[u++] = ids[i];
		}
	}
	r->n_strings = u;
	r->strings = dalloc(d, u * sizeof(*r->strings));
	for (size_t i = 0; i < u; i++) {
		r->strings[i] = dstr(d, tc_model_str(m, ids[i]));
	}
	for (size_t i = 0; i < r->n_ops; i++) {
		r->ops[i]->name = str_index(ids, u, r->ops[i]->name);
		r->ops[i]->category = str_index(ids, u, r->ops[i]->category);
	}
	for (size_t i = 0; i < r->n_step_ops; i++) {
		r->step_ops[i]->name_ref = str_index(ids, u, r->step_ops[i]->name_ref - 1) + 1;
	}
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < lens[l]; i++) {
			if (lists[l][i]->name_ref) {
				lists[l][i]->name_ref = str_index(ids, u, lists[l][i]->name_ref - 1) + 1;
			}
			if (lists[l][i]->parent_ref) {
				lists[l][i]->parent_ref = str_index(ids, u,
					lists[l][i]->parent_ref - 1) + 1;
			}
		}
	}
	free(ids);
}

static int64_t rank_number(const char *name) {
	if (strncmp(name, "rank ", 5) != 0 || !name[5] ||
			strspn(name + 5, "0123456789") != strlen(name + 5) || strlen(name + 5) > 18) {
		return -1;
	}
	return strtoll(name + 5, NULL, 10);
}

/*
 * Each attributed device's collective time in each step, from which a job
 * splits off the waits for a late rank (tc_straggler_step_wait): its
 * attribution's `collective` category.
 */
static void exposed(struct tc_digest *d, const struct tc_model *m, const struct tc_analysis *a,
		Tracectl__Rank *r) {
	r->exposed = dalloc(d, a->n_attr * sizeof(*r->exposed));
	for (size_t k = 0; k < a->n_attr; k++) {
		const struct tc_dev_attr *at = &a->attr[k];
		int64_t coll = 0;
		for (size_t i = 0; at->step_cat && i < a->n_steps && coll <= 0; i++) {
			coll = at->step_cat[i * TC_BD_COUNT + TC_BD_COLLECTIVE];
		}
		if (coll <= 0) {
			continue;
		}
		Tracectl__Exposed *o = r->exposed[r->n_exposed++] = dalloc(d, sizeof(*o));
		tracectl__exposed__init(o);
		o->device = dev_index(m, at->device);
		o->n_step_ps = a->n_steps;
		o->step_ps = dalloc(d, (a->n_steps ? a->n_steps : 1) * sizeof(*o->step_ps));
		for (size_t i = 0; i < a->n_steps; i++) {
			o->step_ps[i] = at->step_cat[i * TC_BD_COUNT + TC_BD_COLLECTIVE];
		}
	}
}

void tc_digest_add_rank(struct tc_digest *d, const struct tc_model *m, const char *input) {
	tc_digest_add_rank_with(d, m, input, NULL, TC_DIGEST_ALL);
}

/* The bulk fields (lean step columns, marked steps, exposed times, packed
 * collectives) of from, pointers and counts, into to where to has the
 * parts that hold them. */
static void bulk_copy(Tracectl__Rank *to, const Tracectl__Rank *from) {
	Tracectl__Steps *t = to->steps;
	const Tracectl__Steps *f = from->steps;
	if (t && f) {
		t->n_lean_start_ps = f->n_lean_start_ps;
		t->lean_start_ps = f->lean_start_ps;
		t->n_lean_dur_ps = f->n_lean_dur_ps;
		t->lean_dur_ps = f->lean_dur_ps;
		t->n_lean_num = f->n_lean_num;
		t->lean_num = f->lean_num;
		t->n_lean_flags = f->n_lean_flags;
		t->lean_flags = f->lean_flags;
	}
	if (to->result && from->result) {
		to->result->n_sum_steps = from->result->n_sum_steps;
		to->result->sum_steps = from->result->sum_steps;
	}
	to->n_exposed = from->n_exposed;
	to->exposed = from->exposed;
	to->collectives_packed = from->collectives_packed;
}

/* An empty Rank with the parts that hold bulk fields. */
struct bulk_holder {
	Tracectl__Rank r;
	Tracectl__Steps steps;
	Tracectl__Result result;
};

static Tracectl__Rank *bulk_holder_init(struct bulk_holder *h) {
	tracectl__rank__init(&h->r);
	tracectl__steps__init(&h->steps);
	tracectl__result__init(&h->result);
	h->r.steps = &h->steps;
	h->r.result = &h->result;
	return &h->r;
}

/* r's bulk fields emptied. */
static void bulk_clear(Tracectl__Rank *r) {
	struct bulk_holder none;
	bulk_copy(r, bulk_holder_init(&none));
}

/* r's bulk, all from another arena, packed into aside as one Rank and
 * gone from r. */
static void set_aside(Tracectl__Rank *r, struct tc_spill *aside) {
	struct bulk_holder h;
	Tracectl__Rank *x = bulk_holder_init(&h);
	bulk_copy(x, r);
	/* As `digest` writes them: marked steps as columns, a tenth of the bytes. */
	struct tc_arena scratch;
	tc_arena_init(&scratch, 1 << 16);
	tc_digest_rank_compact(x, &scratch);
	size_t n = tracectl__rank__get_packed_size(x);
	uint8_t *buf = tc_xmalloc(n);
	tracectl__rank__pack(x, buf);
	tc_arena_finish(&scratch);
	r->aside_at = tc_spill_write(aside, buf, n);
	r->aside_len = n;
	free(buf);
	bulk_clear(r);
}

void tc_digest_rank_load(const struct tc_spill *aside, Tracectl__Rank *r,
		struct tc_digest_bulk *b) {
	tc_arena_init(&b->arena, 1 << 16);
	b->r = r;
	if (!r->aside_len) {
		return;
	}
	uint8_t *buf = tc_arena_alloc(&b->arena, r->aside_len);
	tc_spill_read(aside, r->aside_at, buf, r->aside_len);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&b->arena, &alloc);
	Tracectl__Rank *x = tracectl__rank__unpack(&alloc, r->aside_len, buf);
	struct tc_error err;
	tc_error_init(&err);
	if (x && tc_digest_rank_expand(x, &b->arena, &err)) { /* packed here: cannot fail */
		bulk_copy(r, x);
	}
}

void tc_digest_rank_unload(struct tc_digest_bulk *b) {
	if (b->r->aside_len) {
		bulk_clear(b->r);
	}
	tc_arena_finish(&b->arena);
}

void tc_digest_add_rank_with(struct tc_digest *d, const struct tc_model *m, const char *input,
		const struct tc_analysis_opts *opts, enum tc_digest_keep keep) {
	tc_digest_add_job_rank(d, m, input, opts, keep, NULL);
}

/* The rank's name, source and devices (each with its busy time). */
static void rank_head(struct tc_digest *d, const struct tc_model *m, const struct tc_analysis *a,
		const char *input, int64_t first, Tracectl__Rank *r) {
	char buf[512];
	tc_model_source_rank(m, 0, buf, sizeof(buf));
	r->name = dstr(d, buf);
	r->number = rank_number(buf);
	const struct tc_source *src = &m->sources[0];
	r->host = dstr(d, src->host < m->n_hosts ? tc_model_str(m, m->hosts[src->host].name) : "");
	r->world_size = src->host < m->n_hosts ? m->hosts[src->host].world_size : 0;
	r->framework = dstr(d, tc_framework_id((enum tc_framework)a->runtime.framework));
	r->runtime = dstr(d, tc_runtime_id((enum tc_runtime)a->runtime.runtime));
	r->span_ps = a->span_ps;
	r->origin_ns = m->origin_ns;
	r->origin_epoch = m->origin_epoch;
	r->first_ps = first;
	r->input = dstr(d, input);
	r->input_size = src->file_size;
	r->data_size = src->data_size;
	r->event_count = m->ev.n;
	r->format = dstr(d, tc_model_str(m, src->format));
	r->compression = dstr(d, tc_model_str(m, src->compression));
	r->n_devices = m->n_devices;
	r->devices = dalloc(d, m->n_devices * sizeof(*r->devices));
	/* a->util ascends by device: read alongside. */
	size_t k = 0;
	for (size_t i = 0; i < m->n_devices; i++) {
		const struct tc_device *dv = &m->devices[i];
		Tracectl__Device *o = r->devices[i] = dalloc(d, sizeof(*o));
		tracectl__device__init(o);
		o->name = dstr(d, tc_model_str(m, dv->name));
		o->kind = dv->kind;
		o->ordinal = dv->ordinal;
		o->pid = dv->pid;
		o->peak_flops = dv->peak_flops;
		o->peak_bw = dv->peak_bw;
		o->host = dstr(d, dv->host < m->n_hosts ? tc_model_str(m, m->hosts[dv->host].name) : "");
		for (; k < a->n_util && a->util[k].device <= i; k++) {
			if (a->util[k].device == i) {
				o->busy_ps = (uint64_t)a->util[k].busy_ps;
			}
		}
	}
}

/* Compilation sums and the findings as they are worded. */
static void compile_findings(struct tc_digest *d, const struct tc_model *m,
		const struct tc_analysis *a, Tracectl__Rank *r) {
	Tracectl__Compile *c = r->compile = dalloc(d, sizeof(*c));
	tracectl__compile__init(c);
	c->count = a->compile.n_events;
	c->union_ps = a->compile.union_ps;
	for (size_t i = 0; i < a->compile.n_recompiled; i++) {
		c->recompiles += a->compile.recompiled[i].count - 1;
	}
	r->n_findings = a->n_findings;
	r->findings = dalloc(d, a->n_findings * sizeof(*r->findings));
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *f = &a->findings[i];
		r->findings[i] = finding(d, f->kind, f->device < m->n_devices ?
			tc_model_str(m, m->devices[f->device].name) : "", f->severity, f->share,
			f->text);
	}
}

/* The collectives a job-level matching reads, and the exposed time:
 * whole in a file's digest, packed bytes in bulk for a job's rank. */
static void collectives(struct tc_digest *d, struct tc_digest *bulk, const struct tc_model *m,
		const struct tc_analysis *a, enum tc_digest_keep keep, int64_t first,
		Tracectl__Rank *r) {
	/* From the trace's first rank: a digest holds one rank. */
	struct tc_coll_table ct;
	tc_coll_table_init(&ct);
	tc_coll_table_build(m, tc_coll_table_host(m), &ct);
	exposed(bulk, m, a, r);
	if (keep == TC_DIGEST_ALL) {
		r->collectives = tc_coll_table_pack(&d->arena, &ct, first);
	} else {
		/* Its bytes, the columns gone with a scratch arena. */
		struct tc_arena scratch;
		tc_arena_init(&scratch, 1 << 16);
		Tracectl__CollTable *cm = tc_coll_table_pack(&scratch, &ct, first);
		size_t n = tracectl__coll_table__get_packed_size(cm);
		r->collectives_packed.data = dalloc(bulk, n);
		r->collectives_packed.len = tracectl__coll_table__pack(cm, r->collectives_packed.data);
		tc_arena_finish(&scratch);
	}
	tc_coll_table_finish(&ct);
}

void tc_digest_add_job_rank(struct tc_digest *d, const struct tc_model *m, const char *input,
		const struct tc_analysis_opts *opts, enum tc_digest_keep keep, struct tc_spill *aside) {
	bool job_only = keep != TC_DIGEST_ALL;
	/* The bulk set aside is built in an arena of its own, gone after. */
	struct tc_digest bulk_aside, *bulk = d;
	if (aside && job_only) {
		tc_digest_init(&bulk_aside);
		bulk = &bulk_aside;
	}
	Tracectl__Digest *msg = d->msg ? d->msg : tc_digest_new_msg(d);
	Tracectl__Rank **ranks = dalloc(d, (msg->n_ranks + 1) * sizeof(*ranks));
	if (msg->n_ranks) {
		memcpy(ranks, msg->ranks, msg->n_ranks * sizeof(*ranks));
	}
	msg->ranks = ranks;
	Tracectl__Rank *r = ranks[msg->n_ranks++] = dalloc(d, sizeof(*r));
	tracectl__rank__init(r);

	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	if (opts) {
		ao = *opts;
	}
	ao.threads = 1;
	/* A file's digest lists the marked steps; a job's rank lists them when
	 * the command prints them. */
	ao.summary_steps_counted = keep != TC_DIGEST_ALL && opts && opts->summary_steps_counted;
	ao.rank_slots = true;
	struct tc_analysis a;
	tc_analyze(m, &ao, TC_AN_FINDINGS | TC_AN_SUMMARY, &a);
	int64_t first, last;
	tc_model_span(m, &first, &last);

	rank_head(d, m, &a, input, first, r);
	op_table(d, m, &a, r);
	steps(d, m, &a, first, keep == TC_DIGEST_JOB_LEAN, bulk, r);
	r->n_xfer = TC_XFER_COUNT;
	r->xfer = xfers(d, a.xfer);

	struct tc_diff_side side = { 0 };
	if (!job_only) {
		tc_diff_side_build(m, &ao, input, &side);
	}
	memory(d, m, &a, &side, r);
	memory_top(d, m, &a, r);
	if (!job_only) {
		tc_digest_memview_pack(d, m, &a.memview, a.summary.first_ps, r);
	}
	compile_findings(d, m, &a, r);
	if (!job_only) {
		step_ops(d, m, &a, r);
		struct tc_metric mt = { .id = TC_M_MEMORY_CV, .name = (char *)"memory.cv" };
		double cv = 0;
		r->memory_cv_known = tc_metric_measure(m, &a, &mt, &cv, NULL, 0);
		r->memory_cv = r->memory_cv_known ? cv : 0;
		r->side = diff_side(d, m, &side, &a);
	}
	strings(d, m, r);
	collectives(d, bulk, m, &a, keep, first, r);
	tc_digest_result_pack(d, bulk, m, &a, first, r);
	if (!job_only) {
		tc_diff_side_finish(&side);
	}
	tc_analysis_finish(&a);
	if (bulk != d) {
		set_aside(r, aside);
		tc_digest_finish(&bulk_aside);
	}
}
