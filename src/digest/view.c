/*
 * Digests read back for the commands: a skeleton model for names, and the
 * op table, steps, check metrics and diff side rebuilt from a rank's sums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/budget.h"
#include "analysis/devwork.h"
#include "analysis/optable.h"
#include "analysis/steps.h"
#include "digest/view.h"
#include "model/step_counted.h"
#include "util/num.h"
#include "util/xalloc.h"

/*
 * What commands print from digests: a skeleton model for names, and the
 * analysis results rebuilt from the sums a rank keeps.
 */

static uint32_t find_str(const struct tc_model *m, const char *s) {
	uint32_t id = tc_intern_find(&m->strings, s, strlen(s));
	return id == TC_NONE ? 0 : id;
}

struct tc_model *tc_digest_skeleton(Tracectl__Rank *const *ranks, size_t n) {
	struct tc_model *m = tc_model_create();
	for (size_t i = 0; i < n; i++) {
		const Tracectl__Rank *r = ranks[i];
		/* The op strings first, in the trace's order, as a merged model
		 * interns them: ties in the op table sort by these ids. */
		for (size_t k = 0; k < r->n_strings; k++) {
			tc_model_intern(m, r->strings[k]);
		}
		uint32_t src = tc_model_add_source(m, r->input, r->format,
			r->compression[0] ? r->compression : "none", r->input_size, r->data_size);
		uint32_t host = r->host[0] ? tc_model_add_host(m, tc_model_intern(m, r->host), src) :
			TC_NONE;
		/* The rank the trace's host had, so devices are labelled alike. */
		if (host != TC_NONE && r->number >= 0 && r->number <= INT32_MAX) {
			m->hosts[host].rank = (int32_t)r->number;
			m->hosts[host].rank_from = TC_RANK_READER;
		}
		for (size_t k = 0; k < r->n_devices; k++) {
			const Tracectl__Device *dv = r->devices[k];
			uint32_t d = tc_model_add_device(m, tc_model_intern(m, dv->name),
				(enum tc_device_kind)dv->kind);
			m->devices[d].ordinal = dv->ordinal;
			m->devices[d].pid = dv->pid;
			m->devices[d].peak_flops = dv->peak_flops;
			m->devices[d].peak_bw = dv->peak_bw;
			m->devices[d].host = strcmp(dv->host, r->host) == 0 ? host : TC_NONE;
		}
		for (size_t k = 0; r->steps && k < r->steps->n_steps; k++) {
			tc_model_intern(m, r->steps->steps[k]->name);
		}
	}
	return m;
}

/* ---- ops ---- */

/* The ranks' device work by category summed (devwork.h), NULL when a
 * digest written before categories has none. */
static struct tc_op_row *category_rows(Tracectl__Rank *const *ranks, size_t n, size_t *n_rows) {
	struct tc_devwork w;
	tc_devwork_init(&w);
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ranks[i]->n_category_ops; k++) {
			const Tracectl__DeviceOps *o = ranks[i]->category_ops[k];
			struct tc_devcat_acc b = { .count = o->count, .total_ps = o->total_ps,
				.self_ps = o->self_ps, .min_ps = o->min_ps, .max_ps = o->max_ps,
				.launched_ps = o->launched_ps, .flops = o->flops, .bytes = o->bytes };
			tc_devwork_add(&w, (enum tc_devcat)o->device, &b);
			any = true;
		}
	}
	*n_rows = 0;
	return any ? tc_devwork_rows(&w, n_rows) : NULL;
}

void tc_digest_op_table(const struct tc_model *skel, Tracectl__Rank *const *ranks, size_t n,
		const char *by, struct tc_op_table *t) {
	bool any_device = false;
	for (size_t i = 0; i < n; i++) {
		any_device |= ranks[i]->device_scope;
	}
	/* With device work anywhere, host-only ranks add no row (the model's
	 * op table reads device lines only). */
	Tracectl__Rank **use = tc_xmalloc((n ? n : 1) * sizeof(*use));
	size_t n_use = 0, dev_base = 0, n_dev = 0, cap = 0;
	int64_t busy = 0;
	const Tracectl__Rank *peaks = NULL;
	struct tc_op_row *dev_rows = NULL;
	for (size_t i = 0; i < n; i++) {
		const Tracectl__Rank *r = ranks[i];
		if (r->device_scope == any_device) {
			use[n_use++] = ranks[i];
			busy = tc_sat_add(busy, r->busy_ps);
			if (!peaks && r->peak_source[0]) {
				peaks = r;
			}
		}
		for (size_t k = 0; k < r->n_device_ops && any_device; k++) {
			const Tracectl__DeviceOps *o = r->device_ops[k];
			TC_GROW(dev_rows, cap, n_dev + 1);
			uint32_t d = (uint32_t)(dev_base + o->device);
			dev_rows[n_dev++] = (struct tc_op_row){
				.name = skel->devices[d].name, .device = d, .count = o->count,
				.total_ps = o->total_ps, .self_ps = o->self_ps, .min_ps = o->min_ps,
				.max_ps = o->max_ps, .p50_ps = -1, .p99_ps = -1, .flops = o->flops,
				.bytes = o->bytes,
			};
		}
		dev_base += r->n_devices;
	}
	struct tc_arena arena;
	tc_arena_init(&arena, 1 << 16);
	size_t n_rows;
	Tracectl__OpStat **st = tc_digest_merge_ops(&arena, use, n_use, &n_rows);
	struct tc_op_summary *s = tc_xmalloc((n_rows ? n_rows : 1) * sizeof(*s));
	for (size_t i = 0; i < n_rows; i++) {
		const Tracectl__OpStat *o = st[i];
		s[i] = (struct tc_op_summary){
			.name = find_str(skel, o->name_str), .category = find_str(skel, o->category_str),
			.kind = (uint8_t)o->kind, .device = TC_NONE, .count = o->count,
			.total_ps = o->total_ps, .self_ps = o->self_ps, .min_ps = o->min_ps,
			.max_ps = o->max_ps, .p50_ps = o->p50_ps, .p99_ps = o->p99_ps,
			.flops = o->flops, .bytes = o->bytes,
		};
	}
	tc_sort(s, n_rows, sizeof(*s), tc_op_summary_cmp);
	if (strcmp(by, "device") != 0) {
		free(dev_rows);
		dev_rows = NULL;
		n_dev = 0;
	}
	if (strcmp(by, "category") == 0 && any_device) {
		dev_rows = category_rows(use, n_use, &n_dev);
	}
	tc_op_table_from_rows(t, by, TC_NONE, any_device, s, n_rows, dev_rows, n_dev, busy,
		peaks ? peaks->peak_flops : 0, peaks ? peaks->peak_bw : 0,
		peaks ? peaks->peak_source : NULL);
	free(s);
	tc_arena_finish(&arena);
	free(use);
}

/* ---- steps ---- */

static void xfer_in(struct tc_xfer_stats *x, Tracectl__Xfer *const *v, size_t n) {
	for (size_t k = 0; k < n && k < TC_XFER_COUNT; k++) {
		x[k] = (struct tc_xfer_stats){
			.count = v[k]->count, .n_bytes_known = v[k]->with_bytes, .bytes = v[k]->bytes,
			.dur_ps = v[k]->dur_ps, .bytes_dur_ps = v[k]->bytes_dur_ps,
			.n_pageable = v[k]->pageable, .n_pinned = v[k]->pinned,
			.bytes_pageable = v[k]->bytes_pageable,
		};
	}
}

static void cats_in(int64_t *out, const int64_t *v, size_t n) {
	for (size_t c = 0; c < n && c < TC_BD_COUNT; c++) {
		out[c] = v[c];
	}
}

static uint32_t dev_of(int32_t d, uint32_t base) {
	return d < 0 ? TC_NONE : base + (uint32_t)d;
}

const char *tc_digest_keep_str(struct tc_model *skel, const char *s) {
	if (!s) {
		return NULL;
	}
	/* Found, not added: adding would renumber the names interned after. */
	uint32_t id = tc_intern_find(&skel->strings, s, strlen(s));
	return id != UINT32_MAX ? tc_model_str(skel, id) : tc_arena_strdup(&skel->arena, s);
}

void tc_digest_steps(struct tc_model *skel, const Tracectl__Rank *r,
		struct tc_analysis *a) {
	tc_digest_steps_at(skel, r, 0, a);
}

void tc_digest_steps_at(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
		struct tc_analysis *a) {
	memset(a, 0, sizeof(*a));
	a->bd_device = a->steps_device = TC_NONE;
	const Tracectl__Steps *st = r->steps;
	if (!st) {
		return;
	}
	a->steps_source = st->source[0] ? tc_digest_keep_str(skel, st->source) : NULL;
	a->steps_inferred = st->inferred;
	a->bd_device = dev_of(st->bd_device, base);
	a->n_steps_all = st->n_all;
	a->n_steps_counted = st->n_counted;
	a->step_total_ps = st->total_ps;
	cats_in(a->cat_total_ps, st->cat_ps, st->n_cat_ps);
	a->window_lo_ps = st->window_lo_ps;
	a->window_hi_ps = st->window_hi_ps;
	a->trimmed_before_ps = st->trimmed_before_ps;
	a->trimmed_after_ps = st->trimmed_after_ps;
	a->startup.n_calls = st->startup_calls;
	a->startup.total_ps = st->startup_ps;
	for (size_t i = 0; i < st->n_startup_names && i < st->n_startup_top_ps &&
			i < TC_STARTUP_TOP; i++) {
		a->startup.name[i] = tc_digest_keep_str(skel, st->startup_names[i]);
		a->startup.dur_ps[i] = st->startup_top_ps[i];
	}
	a->span_ps = r->span_ps;
	size_t lean = st->n_lean_start_ps;
	lean = st->n_lean_dur_ps < lean ? st->n_lean_dur_ps : lean;
	lean = st->n_lean_num < lean ? st->n_lean_num : lean;
	lean = st->n_lean_flags < lean ? st->n_lean_flags : lean;
	if (!st->n_steps && lean) {
		a->n_steps = lean;
		a->steps = tc_xcalloc(lean, sizeof(*a->steps));
		for (size_t i = 0; i < lean; i++) {
			a->steps[i] = (struct tc_step){ .num = st->lean_num[i],
				.device = TC_NONE, .start_ps = st->lean_start_ps[i],
				.dur_ps = st->lean_dur_ps[i], .warmup = st->lean_flags[i] & 1u,
				.partial = (st->lean_flags[i] & 2u) != 0 };
		}
	} else {
		a->n_steps = st->n_steps;
		a->steps = tc_xcalloc(st->n_steps ? st->n_steps : 1, sizeof(*a->steps));
	}
	for (size_t i = 0; i < st->n_steps; i++) {
		const Tracectl__Step *s = st->steps[i];
		struct tc_step *o = &a->steps[i];
		o->num = s->num;
		o->name = find_str(skel, s->name);
		o->device = dev_of(s->device, base);
		o->start_ps = s->start_ps;
		o->dur_ps = s->dur_ps;
		o->marker_start_ps = s->marker_start_ps;
		o->marker_dur_ps = s->marker_dur_ps;
		o->warmup = s->warmup;
		o->partial = s->partial;
		o->busy_ps = s->busy_ps;
		cats_in(o->cat_ps, s->cat_ps, s->n_cat_ps);
		xfer_in(o->xfer, s->xfer, s->n_xfer);
	}
	a->n_attr = st->n_attr;
	a->attr = tc_xcalloc(st->n_attr ? st->n_attr : 1, sizeof(*a->attr));
	for (size_t k = 0; k < st->n_attr; k++) {
		const Tracectl__Attribution *x = st->attr[k];
		a->attr[k].device = base + x->device;
		a->attr[k].step_ps = x->step_ps;
		a->attr[k].busy_ps = x->busy_ps;
		cats_in(a->attr[k].cat_ps, x->cat_ps, x->n_cat_ps);
	}
	xfer_in(a->xfer, r->xfer, r->n_xfer);
	if (r->compile) {
		a->compile.n_events = r->compile->count;
		a->compile.union_ps = r->compile->union_ps;
	}
}

/* ---- check ---- */

/* A name kept in the rank's string table (ref > 0), else name. */
static const char *ref_str(const Tracectl__Rank *r, uint32_t ref, const char *name) {
	return ref && ref <= r->n_strings ? r->strings[ref - 1] : name;
}

static bool measure(const struct tc_model *skel, const Tracectl__Rank *r,
		const struct tc_analysis *a, const struct tc_metric *mt, double *out, char *detail,
		size_t size) {
	detail[0] = '\0';
	size_t n = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		n += tc_step_counted_in(a, &a->steps[i]);
	}
	switch ((enum tc_metric_id)mt->id) {
	case TC_M_RECOMPILE_COUNT:
		*out = r->compile ? (double)r->compile->recompiles : 0;
		return true;
	case TC_M_MEMORY_PEAK: {
		const Tracectl__MemPeak *best = NULL;
		for (size_t i = 0; i < r->n_mem; i++) {
			if (r->mem[i]->samples && (!best || r->mem[i]->peak_bytes > best->peak_bytes)) {
				best = r->mem[i];
			}
		}
		if (!best) {
			return false;
		}
		*out = best->peak_bytes;
		snprintf(detail, size, "%s %s", best->device_label, best->name);
		return true;
	}
	case TC_M_MEMORY_CV:
		*out = r->memory_cv;
		return r->memory_cv_known;
	case TC_M_MEMORY_BY_OP:
		return tc_digest_memview_by_op(r, mt->op, out, detail, size);
	case TC_M_OP_TIME:
	case TC_M_OP_CALLS: {
		if (!n) {
			return false;
		}
		double total = 0;
		for (size_t i = 0; i < r->n_step_ops; i++) {
			const Tracectl__StepOp *so = r->step_ops[i];
			if (strcmp(ref_str(r, so->name_ref, so->name), mt->op) == 0) {
				total += mt->id == TC_M_OP_TIME ? so->seconds : (double)so->calls;
			}
		}
		*out = total / (double)n;
		return true;
	}
	default:
		return tc_metric_measure(skel, a, mt, out, detail, size);
	}
}

/* The rank's op names, from its op table and its per-step ops. */
static void note_ops(struct tc_check *c, const Tracectl__Rank *r) {
	const char **names = tc_xmalloc((r->n_ops + r->n_step_ops + 1) * sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < r->n_ops; i++) {
		if (r->ops[i]->name < r->n_strings) {
			names[n++] = r->strings[r->ops[i]->name];
		}
	}
	for (size_t i = 0; i < r->n_step_ops; i++) {
		names[n++] = ref_str(r, r->step_ops[i]->name_ref, r->step_ops[i]->name);
	}
	tc_check_note_ops(c, names, n);
	free(names);
}

void tc_digest_check_measure(struct tc_check *c, size_t idx, const char *name,
		struct tc_model *skel, const Tracectl__Rank *r) {
	struct tc_analysis a;
	tc_digest_steps(skel, r, &a);
	/* Findings only for their severity. */
	a.n_findings = r->n_findings;
	a.findings = tc_xcalloc(r->n_findings ? r->n_findings : 1, sizeof(*a.findings));
	for (size_t i = 0; i < r->n_findings; i++) {
		a.findings[i].severity = (uint8_t)r->findings[i]->severity;
	}
	free(c->ranks[idx]);
	c->ranks[idx] = tc_xstrdup(name);
	free(c->steps_source[idx]);
	c->steps_source[idx] = a.steps_source ? tc_xstrdup(a.steps_source) : NULL;
	size_t n = 0;
	for (size_t i = 0; i < a.n_steps; i++) {
		n += tc_step_counted_in(&a, &a.steps[i]);
	}
	c->n_steps[idx] = n;
	c->step_marker = NULL;
	note_ops(c, r);
	for (size_t i = 0; i < c->n_rows; i++) {
		struct tc_check_row *row = &c->rows[i];
		char detail[512];
		row->known[idx] = measure(skel, r, &a, &row->metric, &row->values[idx], detail,
			sizeof(detail));
		free(row->details[idx]);
		row->details[idx] = tc_xstrdup(detail);
	}
	tc_analysis_finish(&a);
}

/* ---- diff ---- */

static void add_op(struct tc_diff_op **v, size_t *n, size_t *cap, const Tracectl__Rank *r,
		const Tracectl__DiffOp *o) {
	const char *name = ref_str(r, o->name_ref, o->name);
	const char *parent = o->parent_ref || o->parent[0] ?
		ref_str(r, o->parent_ref, o->parent) : NULL;
	for (size_t i = 0; i < *n; i++) {
		struct tc_diff_op *x = &(*v)[i];
		if (x->scope == o->scope && strcmp(x->name, name) == 0) {
			x->count += o->count;
			x->total_ps = tc_sat_add(x->total_ps, o->total_ps);
			x->nested += o->nested;
			if (x->parent && (!parent || strcmp(x->parent, parent) != 0)) {
				free(x->parent);
				x->parent = NULL;
			}
			return;
		}
	}
	TC_GROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = (struct tc_diff_op){ .flops = -1, .name = tc_xstrdup(name),
		.scope = (uint8_t)o->scope,
		.kind = (uint8_t)o->kind, .count = o->count, .total_ps = o->total_ps,
		.nested = o->nested, .parent = parent ? tc_xstrdup(parent) : NULL };
}

/* Sums saturate: a digest's figures are input. */
static void side_one(const Tracectl__DiffSide *o, struct tc_diff_side *s) {
	if (!s->format) {
		s->format = tc_xstrdup(o->format);
		s->steps_source = tc_xstrdup(o->steps_source);
		s->bd_device = o->bd_device[0] ? tc_xstrdup(o->bd_device) : NULL;
	}
	s->has_steps |= o->has_steps;
	s->n_steps_all += o->n_steps_all;
	s->step_total_ps = tc_sat_add(s->step_total_ps, o->step_total_ps);
	for (size_t c = 0; c < o->n_cat_ps && c < TC_BD_COUNT; c++) {
		s->cat_ps[c] = tc_sat_add(s->cat_ps[c], o->cat_ps[c]);
	}
	s->device_busy_ps = tc_sat_add(s->device_busy_ps, o->device_busy_ps);
	s->trace_busy_ps = tc_sat_add(s->trace_busy_ps, o->trace_busy_ps);
	for (size_t k = 0; k < o->n_xfer && k < TC_XFER_COUNT; k++) {
		s->xfer[k].count += o->xfer[k]->count;
		s->xfer[k].bytes += o->xfer[k]->bytes;
	}
	s->compile_count += o->compile_count;
	s->compile_ps = tc_sat_add(s->compile_ps, o->compile_ps);
}

void tc_digest_diff_side(Tracectl__Rank *const *ranks, size_t n, const char *label,
		struct tc_diff_side *s) {
	memset(s, 0, sizeof(*s));
	s->label = tc_xstrdup(label);
	s->n_sources = n;
	size_t cap_dev = 0, cap_ops = 0, cap_cats = 0, cap_f = 0, cap_mem = 0, n_d = 0;
	int64_t *d = NULL;
	size_t cap_d = 0;
	if (n > 1) {
		s->ranks = tc_xcalloc(n, sizeof(*s->ranks));
	}
	for (size_t i = 0; i < n; i++) {
		const Tracectl__DiffSide *o = ranks[i]->side;
		if (!o) {
			continue;
		}
		side_one(o, s);
		TC_GROW(d, cap_d, n_d + o->n_step_ps + 1);
		if (o->n_step_ps) {
			memcpy(d + n_d, o->step_ps, o->n_step_ps * sizeof(*d));
		}
		if (n > 1 && o->n_step_ps) {
			struct tc_diff_rank *rk = &s->ranks[s->n_ranks++];
			const char *base = strrchr(ranks[i]->input, '/');
			rk->label = tc_xstrdup(base ? base + 1 : ranks[i]->input);
			rk->n_steps = o->n_step_ps;
			tc_step_stats(d + n_d, o->n_step_ps, &rk->mean_ps, &rk->median_ps, &rk->p90_ps);
		}
		n_d += o->n_step_ps;
		for (size_t k = 0; k < o->n_devices; k++) {
			/* A repeated name gets "#k", as one model's devices do. */
			size_t rep = 1;
			for (size_t j = 0; j < s->n_devices; j++) {
				rep += strncmp(s->devices[j].name, o->devices[k]->name,
					strlen(o->devices[k]->name)) == 0 &&
					(s->devices[j].name[strlen(o->devices[k]->name)] == '\0' ||
					s->devices[j].name[strlen(o->devices[k]->name)] == ' ');
			}
			TC_GROW(s->devices, cap_dev, s->n_devices + 1);
			char buf[512];
			if (rep > 1) {
				snprintf(buf, sizeof(buf), "%s #%zu", o->devices[k]->name, rep);
			} else {
				snprintf(buf, sizeof(buf), "%s", o->devices[k]->name);
			}
			s->devices[s->n_devices++] = (struct tc_diff_device){ .name = tc_xstrdup(buf),
				.busy_ps = o->devices[k]->busy_ps, .idle_ps = o->devices[k]->idle_ps };
		}
		for (size_t k = 0; k < o->n_ops; k++) {
			add_op(&s->ops, &s->n_ops, &cap_ops, ranks[i], o->ops[k]);
		}
		for (size_t k = 0; k < o->n_cats; k++) {
			add_op(&s->cats, &s->n_cats, &cap_cats, ranks[i], o->cats[k]);
		}
		for (size_t k = 0; k < o->n_findings; k++) {
			const Tracectl__Finding *f = o->findings[k];
			TC_GROW(s->findings, cap_f, s->n_findings + 1);
			s->findings[s->n_findings++] = (struct tc_diff_finding){
				.kind = tc_xstrdup(f->kind), .device = f->device[0] ? tc_xstrdup(f->device) :
				NULL, .severity = (uint8_t)f->severity, .share = f->share,
				.text = tc_xstrdup(f->text) };
		}
		for (size_t k = 0; k < o->n_mem; k++) {
			size_t j = 0;
			while (j < s->n_mem && strcmp(s->mem[j].label, o->mem[k]->label) != 0) {
				j++;
			}
			if (j == s->n_mem) {
				TC_GROW(s->mem, cap_mem, s->n_mem + 1);
				s->mem[s->n_mem++] = (struct tc_diff_mem){
					.label = tc_xstrdup(o->mem[k]->label), .peak_bytes = 0 };
			}
			if (o->mem[k]->peak_bytes > s->mem[j].peak_bytes) {
				s->mem[j].peak_bytes = o->mem[k]->peak_bytes;
			}
		}
	}
	if (n == 1 && ranks[0]->side) {
		/* One rank: its own statistics, as from its trace. */
		const Tracectl__DiffSide *o = ranks[0]->side;
		s->n_steps = o->n_steps;
		s->step_mean_ps = o->step_mean_ps;
		s->step_median_ps = o->step_median_ps;
		s->step_p90_ps = o->step_p90_ps;
	} else {
		s->n_steps = n_d;
		tc_step_stats(d, n_d, &s->step_mean_ps, &s->step_median_ps, &s->step_p90_ps);
	}
	if (!s->has_steps) {
		s->n_steps = 1;
	}
	if (!s->format) {
		s->format = tc_xstrdup("digest");
		s->steps_source = tc_xstrdup("none");
	}
	free(d);
	tc_diff_mem_side_digest(ranks, n, s);
}

/* ---- the job's clock ---- */

void tc_digest_job_clock(Tracectl__Rank *const *ranks, size_t n, int64_t *clock) {
	int64_t first = INT64_MAX;
	for (size_t k = 0; k < n; k++) {
		const Tracectl__Rank *r = ranks[k];
		int64_t d;
		/* As tc_model_merge: one clock and near enough (within
		 * TC_DIGEST_TIME_MAX, as a rank's times, so that shifted times
		 * stay far from overflow), else each rank's own origin. */
		bool shift = r->origin_epoch == ranks[0]->origin_epoch &&
			!__builtin_sub_overflow(r->origin_ns, ranks[0]->origin_ns, &d) &&
			d <= TC_DIGEST_TIME_MAX / 1000 && d >= -TC_DIGEST_TIME_MAX / 1000;
		clock[k] = shift ? d * 1000 : 0;
		int64_t f;
		if (r->event_count && !__builtin_add_overflow(clock[k], r->first_ps, &f) &&
				f < first) {
			first = f;
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (first != INT64_MAX && __builtin_sub_overflow(clock[k], first, &clock[k])) {
			clock[k] = 0;
		}
	}
}
