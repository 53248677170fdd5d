/*
 * The bottleneck rules: each compares one measured figure with its
 * thresholds and adds at most one finding with the numbers and a
 * suggestion; also the rules a multi-rank job judges across its ranks.
 * Here: the rule table, the helpers every rule shares (rules_private.h)
 * and the device-side, compilation and job rules; the host-side causes
 * are in rules_host.c, the memory rules in rules_memory.c.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/fill.h"
#include "analysis/ftext.h"
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "analysis/rules_private.h"
#include "analysis/straggler.h"
#include "model/rank.h"
#include "util/numfmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/*
 * Bottleneck rules. Each rule reads the computed analysis, compares one
 * measured figure with its thresholds (analyze.c table, overridable) and
 * adds at most one finding whose text carries the numbers and names the
 * source of the threshold. The table is sorted by rule name.
 */

/* A malloc'd, NUL-terminated string of the printf output. */
static char *vfmt(const char *fmt, va_list ap) {
	struct tc_strbuf sb = { 0 };
	tc_strbuf_vaddf(&sb, fmt, ap);
	tc_strbuf_add(&sb, "", 1);
	return sb.s;
}

struct tc_finding *tc_rule_add(struct rule_ctx *c, const char *kind, enum tc_severity sev,
		double value) {
	TC_GROW(c->a->findings, c->cap, c->a->n_findings + 1);
	struct tc_finding *f = &c->a->findings[c->a->n_findings++];
	*f = (struct tc_finding){ .kind = kind, .severity = (uint8_t)sev, .value = value,
		.device = TC_NONE };
	return f;
}

/* A text that names no device and no spread. */
static void text(struct tc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void text(struct tc_finding *f, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	f->text = vfmt(fmt, ap);
	va_end(ap);
}

static void suggest(struct tc_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void suggest(struct tc_finding *f, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	f->suggestion = vfmt(fmt, ap);
	va_end(ap);
}

void tc_rule_advise(const struct rule_ctx *c, struct tc_finding *f, enum tc_advice_topic topic) {
	suggest(f, "%s", tc_advice(topic, &c->a->runtime));
}

double tc_rule_th(const struct rule_ctx *c, enum tc_threshold_id id) {
	return c->o->th[id];
}

enum tc_severity tc_rule_bands(const struct rule_ctx *c, double pct, enum tc_threshold_id mod,
		enum tc_threshold_id high) {
	if (pct >= tc_rule_th(c, TC_TH_CRITICAL) && pct >= tc_rule_th(c, high)) {
		return TC_SEV_CRITICAL;
	}
	if (pct >= tc_rule_th(c, high)) {
		return TC_SEV_HIGH;
	}
	if (pct >= tc_rule_th(c, mod)) {
		return TC_SEV_MEDIUM;
	}
	return TC_SEV_NONE;
}

void tc_rule_add_dev(const struct rule_ctx *c, struct tc_ftext *t, uint32_t d) {
	const struct tc_model *m = c->m;
	if (d >= m->n_devices) {
		tc_ftext_add(t, "host");
	} else {
		tc_ftext_device(t, c->label ? c->label[d] : tc_model_str(m, m->devices[d].name));
	}
}

const struct tc_device_util *tc_rule_util_of(const struct rule_ctx *c, uint32_t d) {
	for (size_t k = 0; k < c->a->n_util; k++) {
		if (c->a->util[k].device == d) {
			return &c->a->util[k];
		}
	}
	return NULL;
}

/* Device d's attribution, NULL for none (a host-only trace). */
static const struct tc_dev_attr *attr_of(const struct rule_ctx *c, uint32_t d) {
	for (size_t k = 0; k < c->a->n_attr; k++) {
		if (c->a->attr[k].device == d) {
			return &c->a->attr[k];
		}
	}
	return NULL;
}

const int64_t *tc_rule_cats_of(const struct rule_ctx *c, uint32_t d, int64_t *step_ps) {
	const struct tc_dev_attr *at = attr_of(c, d);
	*step_ps = at ? at->step_ps : c->a->step_total_ps;
	return at ? at->cat_ps : c->a->cat_total_ps;
}

static int64_t cats_sum(const int64_t *cat, uint32_t cats) {
	int64_t s = 0;
	for (int k = 0; k < TC_BD_COUNT; k++) {
		s += (cats >> k) & 1u ? cat[k] : 0;
	}
	return s;
}

void tc_rule_measure(const struct rule_ctx *c, uint32_t cats, enum tc_threshold_id mod,
		struct cause *out) {
	const struct tc_analysis *a = c->a;
	*out = (struct cause){ .device = a->bd_device };
	if (a->n_attr == 0) {
		out->explained_ps = cats_sum(a->cat_total_ps, cats);
		out->step_ps = a->step_total_ps;
		out->pct = out->step_ps > 0 ? 100.0 * (double)out->explained_ps /
			(double)out->step_ps : 0;
		out->n_devices = 1;
		out->n_over = out->pct >= tc_rule_th(c, mod);
		return;
	}
	bool less = c->split_wait && (cats & (1u << TC_BD_COLLECTIVE));
	for (size_t k = 0; k < a->n_attr; k++) {
		const struct tc_dev_attr *at = &a->attr[k];
		int64_t e = cats_sum(at->cat_ps, cats) - (less ? at->wait_ps : 0);
		double pct = at->step_ps > 0 ? 100.0 * (double)e / (double)at->step_ps : 0;
		out->n_devices++;
		out->n_over += pct >= tc_rule_th(c, mod);
		/* Ties go to the breakdown device: the one the steps table shows. */
		if (out->n_devices == 1 || e > out->explained_ps ||
				(e == out->explained_ps && at->device == a->bd_device)) {
			out->device = at->device;
			out->explained_ps = e;
			out->step_ps = at->step_ps;
			out->pct = pct;
			out->step_cat = at->step_cat;
			out->step_less = less ? at->step_wait : NULL;
		}
	}
}

void tc_rule_finish_cause(const struct rule_ctx *c, struct tc_ftext *t, const struct cause *k) {
	/* Measured where it is largest: say so when that is not the device
	 * the breakdown shows (issue 48, class 9). */
	if (k->device != c->a->bd_device && c->a->bd_device != TC_NONE) {
		tc_ftext_add(t, "; measured on the worst device, not the breakdown's ");
		tc_rule_add_dev(c, t, c->a->bd_device);
	}
	tc_ftext_spread_begin(t);
	if (k->n_devices > 1) {
		char clause[96];
		tc_finding_spread_clause(clause, sizeof(clause), k->n_over, k->n_devices);
		tc_ftext_add(t, clause);
	}
	tc_ftext_spread_end(t);
	tc_ftext_add(t, ")");
	tc_ftext_finish(t);
}

int64_t tc_rule_per_step_ps(const struct rule_ctx *c, int64_t ps) {
	return c->a->n_steps_counted ? ps / (int64_t)c->a->n_steps_counted : 0;
}

const char *tc_rule_steps_noun(const struct rule_ctx *c, char *buf) {
	return tc_fmt_noun(buf, c->a->n_steps_counted, "step", "steps");
}

struct tc_finding *tc_rule_add_cause(struct rule_ctx *c, const char *kind, enum tc_severity sev,
		const struct cause *k) {
	struct tc_finding *f = tc_rule_add(c, kind, sev, k->pct);
	f->device = k->device;
	f->explained_ps = k->explained_ps;
	f->share = k->step_ps > 0 ? (double)k->explained_ps / (double)k->step_ps : 0;
	f->n_measured = (uint32_t)k->n_devices;
	f->n_over = (uint32_t)k->n_over;
	tc_finding_add_fig(f, "step_time_share", k->pct, "%");
	tc_finding_add_fig(f, "per_step", 1e-12 * (double)tc_rule_per_step_ps(c, k->explained_ps), "s");
	return f;
}

void tc_rule_step_window(const struct rule_ctx *c, struct tc_finding *f, const struct cause *k,
		uint32_t cats) {
	const struct tc_analysis *a = c->a;
	if (!a->n_steps) {
		return;
	}
	f->window_lo_ps = a->steps[0].start_ps;
	f->window_hi_ps = a->steps[a->n_steps - 1].start_ps + a->steps[a->n_steps - 1].dur_ps;
	if (!cats) {
		return;
	}
	/* The steps where the cause is largest: a selection of a few. */
	size_t taken[TC_FINDING_MAX_ITEMS];
	while (f->n_steps < TC_FINDING_MAX_ITEMS) {
		int64_t best = 0;
		size_t bi = SIZE_MAX;
		for (size_t i = 0; i < a->n_steps; i++) {
			bool used = false;
			for (size_t j = 0; j < f->n_steps; j++) {
				used |= taken[j] == i;
			}
			const int64_t *cat = k && k->step_cat ? k->step_cat + i * TC_BD_COUNT :
				a->steps[i].cat_ps;
			int64_t v = cats_sum(cat, cats) -
				(k && k->step_cat && k->step_less ? k->step_less[i] : 0);
			if (!used && v > best) {
				best = v;
				bi = i;
			}
		}
		if (bi == SIZE_MAX) {
			break;
		}
		taken[f->n_steps] = bi;
		f->steps[f->n_steps++] = a->steps[bi].num;
	}
}

void tc_rule_top_ops(const struct rule_ctx *c, struct tc_finding *f, uint32_t kind_mask,
		int bound) {
	const struct tc_op_table *t = &c->a->ops;
	for (size_t i = 0; i < t->n && f->n_ops < TC_FINDING_MAX_ITEMS; i++) {
		if (((kind_mask >> t->rows[i].kind) & 1u) && (bound < 0 || t->rows[i].bound == bound)) {
			f->ops[f->n_ops++] = t->rows[i].name;
		}
	}
}

#define KB(k) (1u << (k))
#define CB(k) (1u << (k))

static void rule_communication(struct rule_ctx *c) {
	struct cause k;
	tc_rule_measure(c, CB(TC_BD_COLLECTIVE), TC_TH_COMM_MODERATE, &k);
	enum tc_severity sev = tc_rule_bands(c, k.pct, TC_TH_COMM_MODERATE, TC_TH_COMM_HIGH);
	if (!sev) {
		return;
	}
	const struct tc_device_util *u = tc_rule_util_of(c, k.device);
	struct tc_finding *f = tc_rule_add_cause(c, "communication", sev, &k);
	struct figs g;
	char dev[128];
	if (u && u->comm_ps) {
		snprintf(dev, sizeof(dev), "collectives run %s in total, %.1f %% of it overlapped "
			"with compute", tc_fmt_dur(g.b[2], u->comm_ps),
			100.0 * (double)u->overlap_ps / (double)u->comm_ps);
	} else {
		/* gloo, or a CPU-only job: the host call is the transfer. */
		snprintf(dev, sizeof(dev), "all of it in host-side collective calls, none on "
			"the device");
	}
	char late[64] = "";
	if (c->split_wait) {
		snprintf(late, sizeof(late), ", nor waiting for rank %d: see straggler",
			c->a->ranks.v[c->a->ranks.straggler].rank);
	}
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "exposed collective time (not hidden behind compute or copies%s) is "
		"%.1f %% of step time on ", late, k.pct);
	tc_rule_add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " over %s, %s per step; %s (bands %.0f/%.0f %%: XProf",
		tc_rule_steps_noun(c, g.b[0]),
		tc_fmt_dur(g.b[1], tc_rule_per_step_ps(c, k.explained_ps)), dev,
		tc_rule_th(c, TC_TH_COMM_MODERATE), tc_rule_th(c, TC_TH_COMM_HIGH));
	tc_rule_finish_cause(c, &t, &k);
	if (u && u->comm_ps) {
		tc_finding_add_fig(f, "collective_time", 1e-12 * (double)u->comm_ps, "s");
		tc_finding_add_fig(f, "overlapped_with_compute",
			100.0 * (double)u->overlap_ps / (double)u->comm_ps, "%");
	}
	tc_rule_advise(c, f, TC_ADV_COMMUNICATION);
	tc_rule_step_window(c, f, &k, CB(TC_BD_COLLECTIVE));
	tc_rule_top_ops(c, f, KB(TC_OP_COLLECTIVE), -1);
}

static void rule_compilation(struct rule_ctx *c) {
	const struct tc_compile_stats *cs = &c->a->compile;
	double pct = c->a->span_ps > 0 ? 100.0 * (double)cs->union_ps / (double)c->a->span_ps : 0;
	enum tc_severity sev = tc_rule_bands(c, pct, TC_TH_COMPILE_MODERATE, TC_TH_COMPILE_HIGH);
	if (!sev) {
		return;
	}
	/* Found from the whole trace; the severity, like every cause's, from
	 * the step time it explains: the compilation inside the counted steps
	 * (warm-up left out). Outside them it is start-up: low. */
	struct cause k;
	tc_rule_measure(c, CB(TC_BD_COMPILE), TC_TH_COMPILE_MODERATE, &k);
	enum tc_severity in_steps = tc_rule_bands(c, k.pct, TC_TH_COMPILE_MODERATE, TC_TH_COMPILE_HIGH);
	struct tc_finding *f = tc_rule_add_cause(c, "compilation",
		in_steps ? in_steps : TC_SEV_LOW, &k);
	f->value = pct;
	struct figs g;
	text(f, "compilation takes %s, %.1f %% of the %s trace (%s; "
		"%s of it, %.1f %% of step time, inside the counted steps; bands %.0f/%.0f %% "
		"of step time: tracectl defaults)",
		tc_fmt_dur(g.b[0], cs->union_ps), pct, tc_fmt_dur(g.b[1], c->a->span_ps),
		tc_fmt_noun(g.b[2], cs->n_events, "compile event", "compile events"),
		tc_fmt_dur(g.b[3], k.explained_ps), k.pct, tc_rule_th(c, TC_TH_COMPILE_MODERATE),
		tc_rule_th(c, TC_TH_COMPILE_HIGH));
	tc_finding_add_fig(f, "compile_time", 1e-12 * (double)cs->union_ps, "s");
	tc_finding_add_fig(f, "trace_share", pct, "%");
	tc_finding_add_fig(f, "compile_events", (double)cs->n_events, "");
	tc_rule_advise(c, f, TC_ADV_COMPILE);
	f->window_lo_ps = cs->first_ps;
	f->window_hi_ps = cs->last_ps;
	/* The recompiled names, else the programs that took the time. */
	const struct tc_compile_entry *e = cs->n_recompiled ? cs->recompiled : cs->programs;
	size_t n = cs->n_recompiled ? cs->n_recompiled : cs->n_programs;
	for (size_t i = 0; i < n && f->n_ops < TC_FINDING_MAX_ITEMS; i++) {
		f->ops[f->n_ops++] = e[i].name;
	}
}

/* Device op time by roofline class, and the part of it in ops the
 * unoptimized-op rule names (so the two never explain the same time). */
static double bound_share(const struct rule_ctx *c, int bound, bool unoptimized) {
	const struct tc_op_table *t = &c->a->ops;
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		bool unopt = r->efficiency >= 0 && 100 * r->share >= tc_rule_th(c, TC_TH_UNOPT_SHARE) &&
			100 * r->efficiency < tc_rule_th(c, TC_TH_UNOPT_EFFICIENCY);
		if ((bound < 0 || r->bound == bound) && unopt == unoptimized) {
			sum += r->total_ps;
		}
	}
	return t->busy_ps > 0 ? 100.0 * (double)sum / (double)t->busy_ps : 0;
}

/* The compute time of the breakdown device in ops of one class: the op
 * table's share of device op time applied to the attribution's compute. */
static void compute_part(const struct rule_ctx *c, double pct, struct cause *k) {
	*k = (struct cause){ .device = c->a->bd_device, .n_devices = 1 };
	const int64_t *cat = tc_rule_cats_of(c, k->device, &k->step_ps);
	k->explained_ps = (int64_t)((double)cat[TC_BD_COMPUTE] * pct / 100.0);
	k->pct = k->step_ps > 0 ? 100.0 * (double)k->explained_ps / (double)k->step_ps : 0;
}

static void rule_compute_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_COMPUTE, false) + bound_share(c, TC_BOUND_COMPUTE, true);
	if (pct < tc_rule_th(c, TC_TH_COMPUTE_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	struct cause k;
	compute_part(c, bound_share(c, TC_BOUND_COMPUTE, false), &k);
	struct tc_finding *f = tc_rule_add_cause(c, "compute-bound", TC_SEV_LOW, &k);
	f->value = pct;
	text(f, "%.1f %% of device op time is in compute-bound ops (intensity above the ridge "
		"point %.1f FLOP/B; peaks from %s; threshold %.0f %%: XProf)", pct,
		c->a->ops.ridge, c->a->ops.peak_source, tc_rule_th(c, TC_TH_COMPUTE_BOUND));
	tc_finding_add_fig(f, "device_op_time_share", pct, "%");
	tc_finding_add_fig(f, "ridge_point", c->a->ops.ridge, "FLOP/B");
	tc_rule_advise(c, f, TC_ADV_COMPUTE_BOUND);
	tc_rule_top_ops(c, f, ~0u, TC_BOUND_COMPUTE);
}

/*
 * Idle time nothing on the trace explains: no device work, no input, no
 * host activity. The device-utilisation figures are its evidence.
 */
static void rule_idle_device(struct rule_ctx *c) {
	struct cause k;
	if (!c->a->n_attr) {
		return;
	}
	tc_rule_measure(c, CB(TC_BD_IDLE), TC_TH_IDLE_MODERATE, &k);
	enum tc_severity sev = tc_rule_bands(c, k.pct, TC_TH_IDLE_MODERATE, TC_TH_IDLE_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = tc_rule_add_cause(c, "idle-device", sev, &k);
	const struct tc_device_util *u = tc_rule_util_of(c, k.device);
	char util[240] = "";
	struct figs g;
	if (u && u->last_ps > u->first_ps) {
		int64_t span = u->last_ps - u->first_ps;
		snprintf(util, sizeof(util), "; busy %.1f %% of its active span (%s of %s, "
			"first to last op: TBP rule 5 / NSYS gpu_time_util)",
			100.0 * (double)u->busy_ps / (double)span, tc_fmt_dur(g.b[0], u->busy_ps),
			tc_fmt_dur(g.b[1], span));
		if (u->n_launches && u->idle_ps > 0) {
			size_t n = strlen(util);
			snprintf(util + n, sizeof(util) - n, ", %.1f %% of its idle time waits on the host",
				100.0 * (double)u->idle_host_wait_ps / (double)u->idle_ps);
		}
	}
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_rule_add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " is idle with nothing on the trace to explain it (no device work, "
		"input, host work or runtime calls) for %.1f %% of step time over %s, %s per "
		"step%s (bands %.0f/%.0f %%: tracectl", k.pct,
		tc_rule_steps_noun(c, g.b[2]),
		tc_fmt_dur(g.b[3], tc_rule_per_step_ps(c, k.explained_ps)), util,
		tc_rule_th(c, TC_TH_IDLE_MODERATE), tc_rule_th(c, TC_TH_IDLE_HIGH));
	tc_rule_finish_cause(c, &t, &k);
	if (u && u->last_ps > u->first_ps) {
		tc_finding_add_fig(f, "busy_share_of_active_span",
			100.0 * (double)u->busy_ps / (double)(u->last_ps - u->first_ps), "%");
		if (u->n_launches && u->idle_ps > 0) {
			tc_finding_add_fig(f, "idle_waiting_on_host",
				100.0 * (double)u->idle_host_wait_ps / (double)u->idle_ps, "%");
		}
	}
	tc_rule_advise(c, f, TC_ADV_IDLE);
	tc_rule_step_window(c, f, &k, CB(TC_BD_IDLE));
}

static void rule_memory_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_MEMORY, false) + bound_share(c, TC_BOUND_MEMORY, true);
	if (pct < tc_rule_th(c, TC_TH_MEMORY_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	enum tc_severity sev = pct >= tc_rule_th(c, TC_TH_MEMORY_BOUND_HIGH) ? TC_SEV_HIGH :
		TC_SEV_MEDIUM;
	/* The ops unoptimized-op names explain their own time. */
	struct cause k;
	compute_part(c, bound_share(c, TC_BOUND_MEMORY, false), &k);
	struct tc_finding *f = tc_rule_add_cause(c, "memory-bound", sev, &k);
	f->value = pct;
	struct figs g;
	text(f, "%.1f %% of device op time is in memory-bound ops (FLOP/byte below the ridge "
		"point %.1f = %s / %s, peaks from %s; thresholds %.0f/%.0f %%: "
		"tracectl, XProf)", pct, c->a->ops.ridge,
		tc_fmt_rate(g.b[0], c->a->ops.peak_flops, "FLOP/s"),
		tc_fmt_rate(g.b[1], c->a->ops.peak_bw, "B/s"), c->a->ops.peak_source,
		tc_rule_th(c, TC_TH_MEMORY_BOUND),
		tc_rule_th(c, TC_TH_MEMORY_BOUND_HIGH));
	tc_finding_add_fig(f, "device_op_time_share", pct, "%");
	tc_finding_add_fig(f, "ridge_point", c->a->ops.ridge, "FLOP/B");
	tc_rule_advise(c, f, TC_ADV_MEMORY_BOUND);
	tc_rule_top_ops(c, f, ~0u, TC_BOUND_MEMORY);
}

static void rule_pageable_copies(struct rule_ctx *c) {
	const struct tc_xfer_stats *h = &c->a->xfer[TC_XFER_H2D], *d = &c->a->xfer[TC_XFER_D2H];
	uint64_t n = h->n_pageable + d->n_pageable;
	if (!n) {
		return;
	}
	double bytes = h->bytes + d->bytes;
	double pct = bytes > 0 ? 100.0 * (h->bytes_pageable + d->bytes_pageable) / bytes : 0;
	enum tc_severity sev = pct >= tc_rule_th(c, TC_TH_PAGEABLE_SHARE) ? TC_SEV_MEDIUM : TC_SEV_LOW;
	/* Mostly pageable copies explain their exposed host<->device copy
	 * time, unless transfer-bound reaches its band and explains it (a
	 * time is one finding's). */
	struct cause hd, t;
	tc_rule_measure(c, CB(TC_BD_H2D) | CB(TC_BD_D2H), TC_TH_TRANSFER_MODERATE, &hd);
	tc_rule_measure(c, CB(TC_BD_H2D) | CB(TC_BD_D2H) | CB(TC_BD_D2D), TC_TH_TRANSFER_MODERATE, &t);
	bool carries = sev == TC_SEV_MEDIUM && hd.explained_ps > 0 && c->a->n_attr &&
		!tc_rule_bands(c, t.pct, TC_TH_TRANSFER_MODERATE, TC_TH_TRANSFER_HIGH);
	struct tc_finding *f = carries ? tc_rule_add_cause(c, "pageable-copies", sev, &hd) :
		tc_rule_add(c, "pageable-copies", sev, pct);
	f->value = pct;
	char b[TC_FMT_LEN];
	struct tc_ftext tx;
	tc_ftext_init(&tx, f, c->slots);
	tc_ftext_addf(&tx, "%s %s pageable host memory (%.1f %% of copied bytes; "
		"NSYS cuda_memcpy_async): they are staged through a bounce buffer and cannot "
		"overlap with compute",
		tc_fmt_noun(b, n, "host<->device copy", "host<->device copies"),
		n == 1 ? "uses" : "use", pct);
	if (carries) {
		tc_ftext_addf(&tx, "; the device copies with nothing else to do for %.1f %% of "
			"step time on ", hd.pct);
		tc_rule_add_dev(c, &tx, hd.device);
		tc_ftext_addf(&tx, ", %s per step", tc_fmt_dur(b, tc_rule_per_step_ps(c, hd.explained_ps)));
		tc_rule_step_window(c, f, &hd, CB(TC_BD_H2D) | CB(TC_BD_D2H));
	}
	tc_ftext_finish(&tx);
	tc_finding_add_fig(f, "pageable_copies", (double)n, "");
	tc_finding_add_fig(f, "pageable_bytes_share", pct, "%");
	tc_rule_advise(c, f, TC_ADV_PAGEABLE_COPIES);
	/* The copy ops that were pageable (first few, in time order). */
	const struct tc_model *m = c->m;
	uint32_t pageable = tc_intern_find(&m->strings, "pageable", 8);
	for (size_t i = 0; i < m->ev.n && f->n_ops < TC_FINDING_MAX_ITEMS; i++) {
		const struct tc_op *op = &m->ops[m->ev.op[i]];
		if (op->kind != TC_OP_MEMCPY_H2D && op->kind != TC_OP_MEMCPY_D2H) {
			continue;
		}
		struct tc_arg k;
		if (!tc_model_arg_find(m, tc_model_event_args(m, i), m->key.memory_kind, &k) ||
				k.type != TC_ARG_STR || k.v.s != pageable) {
			continue;
		}
		bool dup = false;
		for (size_t j = 0; j < f->n_ops; j++) {
			dup |= f->ops[j] == op->name;
		}
		if (!dup) {
			f->ops[f->n_ops++] = op->name;
		}
	}
}

static void rule_recompilation(struct rule_ctx *c) {
	const struct tc_compile_stats *cs = &c->a->compile;
	if (!cs->n_recompiled ||
			(double)cs->recompiled[0].count < tc_rule_th(c, TC_TH_RECOMPILE_COUNT)) {
		return;
	}
	double pct = c->a->span_ps > 0 ? 100.0 * (double)cs->union_ps / (double)c->a->span_ps : 0;
	enum tc_severity sev = pct >= tc_rule_th(c, TC_TH_COMPILE_MODERATE) ? TC_SEV_MEDIUM :
		TC_SEV_LOW;
	struct tc_finding *f = tc_rule_add(c, "recompilation", sev, (double)cs->recompiled[0].count);
	struct figs g;
	/* Compiles on parallel threads (XLA autotuning) overlap: their summed
	 * time can exceed the trace, so say it is a sum. */
	bool summed = cs->recompiled[0].total_ps > cs->union_ps;
	text(f, "%s compiled more than once; '%s' %s (%s%s); "
		"compilation is %.1f %% of the trace (threshold %.0f compiles: tracectl)",
		tc_fmt_noun(g.b[0], cs->n_recompiled, "program was", "programs were"),
		tc_model_str(c->m, cs->recompiled[0].name),
		tc_fmt_noun(g.b[1], cs->recompiled[0].count, "time", "times"),
		tc_fmt_dur(g.b[2], cs->recompiled[0].total_ps),
		summed ? " summed over threads that compile in parallel" : "", pct,
		tc_rule_th(c, TC_TH_RECOMPILE_COUNT));
	tc_finding_add_fig(f, "programs_recompiled", (double)cs->n_recompiled, "");
	tc_finding_add_fig(f, "most_compiles", (double)cs->recompiled[0].count, "");
	tc_finding_add_fig(f, "most_compiled_time", 1e-12 * (double)cs->recompiled[0].total_ps, "s");
	tc_finding_add_fig(f, "trace_share", pct, "%");
	tc_rule_advise(c, f, TC_ADV_RECOMPILE);
	for (size_t i = 0; i < cs->n_recompiled && f->n_ops < TC_FINDING_MAX_ITEMS; i++) {
		f->ops[f->n_ops++] = cs->recompiled[i].name;
	}
	f->window_lo_ps = cs->first_ps;
	f->window_hi_ps = cs->last_ps;
}

static int cmp_double(const void *pa, const void *pb) {
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b;
}

/*
 * The device is kept busy, but its kernels are too small to fill it: most
 * kernel time is in kernels with fewer than small-batch.blocks blocks per
 * SM (Kineto's estimate, which TBP's Est. SM Efficiency counts as that
 * fraction of the device), or, where kernels carry no such arg, in kernels
 * shorter than kernel.short. Judged only where the device is busy most of
 * the step and no host cause (input, launch/host, sync) reaches its
 * moderate band. Evidence only, explained_ps 0: the time is compute, which
 * memory-bound, compute-bound and unoptimized-op already divide.
 */
static void rule_small_batch(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
	const struct tc_model *m = c->m;
	/* The devices busy enough with no host cause, measured together:
	 * each measure walks all of its device's kernels, so two threads
	 * take them when the trace is big. */
	const struct tc_dev_attr **cand = tc_xcalloc(a->n_attr ? a->n_attr : 1, sizeof(*cand));
	uint32_t *dev = tc_xcalloc(a->n_attr ? a->n_attr : 1, sizeof(*dev));
	size_t nc = 0;
	for (size_t k = 0; k < a->n_attr; k++) {
		const struct tc_dev_attr *at = &a->attr[k];
		if (at->step_ps <= 0 || at->device >= m->n_devices) {
			continue;
		}
		double step = (double)at->step_ps;
		double busy = 100.0 * (double)at->busy_ps / step;
		double input = 100.0 * (double)at->cat_ps[TC_BD_INPUT] / step;
		double host = 100.0 * (double)(at->cat_ps[TC_BD_LAUNCH] + at->cat_ps[TC_BD_HOST]) / step;
		double sync = 100.0 * (double)at->cat_ps[TC_BD_SYNC] / step;
		if (busy < tc_rule_th(c, TC_TH_SMALL_BATCH_BUSY) ||
				input >= tc_rule_th(c, TC_TH_INPUT_MODERATE) ||
				host >= tc_rule_th(c, TC_TH_LAUNCH_MODERATE) ||
				host >= tc_rule_th(c, TC_TH_HOST_MODERATE) ||
				sync >= tc_rule_th(c, TC_TH_SYNC_MODERATE)) {
			continue;
		}
		cand[nc] = at;
		dev[nc++] = at->device;
	}
	uint32_t *track_kinds = tc_xcalloc(m->n_tracks ? m->n_tracks : 1, sizeof(*track_kinds));
	for (size_t i = 0; i < a->n_streams; i++) {
		if (a->streams[i].track < m->n_tracks) {
			track_kinds[a->streams[i].track] = a->streams[i].kinds;
		}
	}
	struct tc_fill *fills = tc_fill_measure(m, a, dev, nc, track_kinds,
		(int64_t)(tc_rule_th(c, TC_TH_SHORT_KERNEL_US) * 1e6),
		tc_rule_th(c, TC_TH_SMALL_BATCH_BLOCKS), c->sums,
		nc >= 2 && tc_pass_parallel(c->o, m->ev.n));
	free(track_kinds);
	struct tc_fill best = { 0 };
	const struct tc_dev_attr *bat = NULL;
	double bfig = 0;
	bool bocc = false;
	for (size_t k = 0; k < nc; k++) {
		const struct tc_dev_attr *at = cand[k];
		struct tc_fill fl = fills[k];
		/* Blocks per SM when most kernel time carries it. */
		bool occ = fl.kern_ps > 0 && 2 * fl.with_ps >= fl.kern_ps;
		double fig = !fl.kern_ps ? 0 : occ ? 100.0 * (double)fl.low_ps / (double)fl.with_ps :
			100.0 * (double)fl.short_ps / (double)fl.kern_ps;
		bool over = fig >= tc_rule_th(c, occ ? TC_TH_SMALL_BATCH_SHARE : TC_TH_SMALL_BATCH_SHORT);
		if (over && (!bat || fig > bfig)) {
			free(best.op_ps);
			best = fl;
			bat = at;
			bfig = fig;
			bocc = occ;
		} else {
			free(fl.op_ps);
		}
	}
	free(fills);
	free(cand);
	free(dev);
	if (!bat) {
		return;
	}
	/* Short kernels alone are weaker evidence: a small model does that too. */
	enum tc_severity sev = !bocc ? TC_SEV_LOW :
		bfig >= tc_rule_th(c, TC_TH_SMALL_BATCH_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = tc_rule_add(c, "small-batch", sev, bfig);
	f->device = bat->device;
	double n = a->n_steps_counted ? (double)a->n_steps_counted : 1;
	char occ[64] = "no occupancy data";
	if (best.occ_dur_ps > 0) {
		snprintf(occ, sizeof(occ), "est. achieved occupancy %.1f %%",
			best.occ_ps / (double)best.occ_dur_ps);
	}
	const char *how = bocc ? "with fewer blocks than SMs" : "shorter than kernel.short";
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_rule_add_dev(c, &t, bat->device);
	tc_ftext_addf(&t, " is busy %.1f %% of step time over %s with no host cause, but its "
		"kernels are too small to fill it: %.1f %% of kernel time is in kernels %s "
		"(%s per step; %.1f %% of kernel time in kernels under %.0f us, %s; "
		"thresholds %.0f %% under %.0g blocks per SM or %.0f %% short kernels, busy >= "
		"%.0f %%: tracectl, after TBP Est. SM Efficiency and TraceLens short kernels; "
		"evidence, the time is counted as compute)",
		100.0 * (double)bat->busy_ps / (double)bat->step_ps, tc_rule_steps_noun(c, g.b[0]),
		bfig, how,
		tc_fmt_dur(g.b[1], (int64_t)((double)(bocc ? best.low_ps : best.short_ps) / n)),
		best.kern_ps ? 100.0 * (double)best.short_ps / (double)best.kern_ps : 0,
		tc_rule_th(c, TC_TH_SHORT_KERNEL_US), occ, tc_rule_th(c, TC_TH_SMALL_BATCH_SHARE),
		tc_rule_th(c, TC_TH_SMALL_BATCH_BLOCKS), tc_rule_th(c, TC_TH_SMALL_BATCH_SHORT),
		tc_rule_th(c, TC_TH_SMALL_BATCH_BUSY));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "busy_step_time_share",
		100.0 * (double)bat->busy_ps / (double)bat->step_ps, "%");
	tc_finding_add_fig(f, "small_kernel_time_share", bfig, "%");
	tc_rule_advise(c, f, TC_ADV_SMALL_BATCH);
	tc_rule_step_window(c, f, NULL, 0);
	tc_finding_add_ops_by_time(f, m, best.op_ps);
	free(best.op_ps);
}

/* The share of the other ranks' step time they spent waiting for the
 * straggler rank, %; -1 when the rank form of the straggler rule does not
 * fire (no matched collectives that line up, or under its threshold). */
static double straggler_wait_pct(const struct rule_ctx *c) {
	return tc_straggler_due_pct(&c->a->ranks, c->o);
}

/* With collectives matched across ranks: the rank the others waited for
 * the longest, at the collectives it reached last. It explains the
 * others' collective time spent waiting for it, on the waiting device
 * where that is the most. */
static void rank_straggler(struct rule_ctx *c) {
	const struct tc_ranks *r = &c->a->ranks;
	size_t k = r->straggler;
	const struct tc_rank_result *s = &r->v[k];
	double pct = straggler_wait_pct(c);
	if (pct < 0) {
		return;
	}
	/* Its steps: where it came last by at least half its largest lead. */
	int64_t top = 0;
	size_t worst = 0;
	for (size_t i = 0; i < r->n_coll; i++) {
		if (r->coll[i].last == k && r->coll[i].skew_ps > top) {
			top = r->coll[i].skew_ps;
			worst = i;
		}
	}
	char steps[160] = "";
	size_t len = 0, n_steps = 0;
	int64_t *seen = tc_xmalloc((r->n_coll ? r->n_coll : 1) * sizeof(*seen));
	/* The worst instance's step first. */
	for (size_t q = 0; q <= r->n_coll; q++) {
		size_t i = q == 0 ? worst : q - 1;
		const struct tc_coll_instance *ci = &r->coll[i];
		if (ci->last != k || 2 * ci->skew_ps < top || ci->last_step < 0) {
			continue;
		}
		bool dup = false;
		for (size_t j = 0; j < n_steps && !dup; j++) {
			dup = seen[j] == ci->last_step;
		}
		if (dup) {
			continue;
		}
		seen[n_steps++] = ci->last_step;
		if (len < sizeof(steps) - 24) {
			len += (size_t)snprintf(steps + len, sizeof(steps) - len, "%s%lld",
				n_steps > 1 ? ", " : "", (long long)ci->last_step);
		}
	}
	free(seen);
	enum tc_severity sev = pct >= 2 * tc_rule_th(c, TC_TH_STRAGGLER_WAIT) ? TC_SEV_HIGH :
		TC_SEV_MEDIUM;
	struct tc_finding *f = tc_rule_add(c, "straggler", sev, pct);
	f->device = s->device;
	/* The waiting device where the wait explains the most step time. */
	const struct tc_dev_attr *wat = NULL;
	for (size_t i = 0; i < c->a->n_attr; i++) {
		const struct tc_dev_attr *at = &c->a->attr[i];
		if (at->wait_ps > 0 && (!wat || at->wait_ps > wat->wait_ps)) {
			wat = at;
		}
	}
	char where[200] = "";
	if (n_steps) {
		snprintf(where, sizeof(where), " in step%s %s", n_steps > 1 ? "s" : "", steps);
	}
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "rank %d arrives last at %s of %s matched across %zu ranks, by up "
		"to %s%s; the other ranks waited %s for it in total, %.1f %% of their step "
		"time", s->rank, tc_fmt_count(g.b[0], s->n_last),
		tc_fmt_noun(g.b[1], r->n_coll, "collective", "collectives"), r->n,
		tc_fmt_dur(g.b[2], top), where, tc_fmt_dur(g.b[3], s->caused_ps), pct);
	if (wat) {
		f->device = wat->device;
		f->explained_ps = wat->wait_ps;
		f->share = wat->step_ps > 0 ? (double)wat->wait_ps / (double)wat->step_ps : 0;
		tc_ftext_add(&t, "; on ");
		tc_rule_add_dev(c, &t, wat->device);
		tc_ftext_addf(&t, " that wait is %.1f %% of step time, %s per step, counted here "
			"and not as communication", 100 * f->share,
			tc_fmt_dur(g.b[4], tc_rule_per_step_ps(c, wat->wait_ps)));
	}
	tc_ftext_addf(&t, " (threshold %.0f %%: tracectl; collectives matched by %s%s%s)",
		tc_rule_th(c, TC_TH_STRAGGLER_WAIT), r->coll_source,
		r->alignment ? ", clocks aligned on " : "",
		r->alignment ? r->alignment : "");
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "straggler_rank", s->rank, "");
	tc_finding_add_fig(f, "arrived_last", (double)s->n_last, "");
	tc_finding_add_fig(f, "collectives_matched", (double)r->n_coll, "");
	tc_finding_add_fig(f, "max_skew", 1e-12 * (double)top, "s");
	tc_finding_add_fig(f, "others_waited", 1e-12 * (double)s->caused_ps, "s");
	tc_finding_add_fig(f, "others_step_time_share", pct, "%");
	tc_rule_advise(c, f, TC_ADV_STRAGGLER);
	const struct tc_coll_instance *w = &r->coll[worst];
	f->window_lo_ps = w->first_start_ps + s->clock_offset_ps;
	f->window_hi_ps = w->last_start_ps + s->clock_offset_ps + w->transfer_ps;
}

/* In a collective every rank waits for the slowest one, so the straggler is
 * the device that spends the least time in collectives. Without matched
 * collectives across ranks that line up, the device form below. */
static void rule_straggler(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
	if (a->ranks.n_coll && a->ranks.lined_up) {
		rank_straggler(c);
		return;
	}
	size_t n = 0;
	double *v = malloc((a->n_util ? a->n_util : 1) * sizeof(*v));
	const struct tc_device_util *low = NULL;
	for (size_t k = 0; k < a->n_util; k++) {
		const struct tc_device_util *u = &a->util[k];
		if (u->comm_ps > 0) {
			v[n++] = (double)u->comm_ps;
			if (!low || u->comm_ps < low->comm_ps) {
				low = u;
			}
		}
	}
	if (n < 2) {
		free(v);
		return;
	}
	tc_sort(v, n, sizeof(*v), cmp_double);
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	double skew = med > 0 ? 100.0 * (med - (double)low->comm_ps) / med : 0;
	if (skew < tc_rule_th(c, TC_TH_STRAGGLER_SKEW)) {
		return;
	}
	enum tc_severity sev = skew >= 2 * tc_rule_th(c, TC_TH_STRAGGLER_SKEW) ? TC_SEV_HIGH :
		TC_SEV_MEDIUM;
	struct tc_finding *f = tc_rule_add(c, "straggler", sev, skew);
	f->device = low->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_rule_add_dev(c, &t, low->device);
	tc_ftext_addf(&t, " spends %s in collectives, %.1f %% less than the median %s of the "
		"%s devices with collectives: the others wait for it (threshold %.0f %%: tracectl, "
		"after HTA's straggler analysis)",
		tc_fmt_dur(g.b[0], low->comm_ps), skew, tc_fmt_dur(g.b[1], (int64_t)med),
		tc_fmt_count(g.b[2], n), tc_rule_th(c, TC_TH_STRAGGLER_SKEW));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "collective_time", 1e-12 * (double)low->comm_ps, "s");
	tc_finding_add_fig(f, "less_than_median", skew, "%");
	tc_finding_add_fig(f, "median_collective_time", 1e-12 * med, "s");
	tc_finding_add_fig(f, "devices_with_collectives", (double)n, "");
	tc_rule_advise(c, f, TC_ADV_STRAGGLER);
	f->window_lo_ps = low->first_ps;
	f->window_hi_ps = low->last_ps;
}

static void rule_transfer_bound(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
	const uint32_t cats = CB(TC_BD_H2D) | CB(TC_BD_D2H) | CB(TC_BD_D2D);
	struct cause k;
	tc_rule_measure(c, cats, TC_TH_TRANSFER_MODERATE, &k);
	double pct = k.pct;
	enum tc_severity sev = tc_rule_bands(c, pct, TC_TH_TRANSFER_MODERATE, TC_TH_TRANSFER_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = tc_rule_add_cause(c, "transfer-bound", sev, &k);
	int64_t step_ps;
	const int64_t *cat = tc_rule_cats_of(c, k.device, &step_ps);
#define PCT(x) (step_ps > 0 ? 100.0 * (double)(x) / (double)step_ps : 0)
	/* Per-step figures come from the counted steps only (the selected range,
	 * warm-up and partial steps excluded), like the percentages. */
	double n = a->n_steps_counted ? (double)a->n_steps_counted : 1;
	struct tc_xfer_stats x[TC_XFER_COUNT] = { 0 };
	size_t n_full = tc_steps_full(a->steps, a->n_steps);
	for (size_t s = 0; s < a->n_steps; s++) {
		const struct tc_step *st = &a->steps[s];
		if (!tc_step_counted(st, n_full)) {
			continue;
		}
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			x[d].count += st->xfer[d].count;
			x[d].bytes += st->xfer[d].bytes;
			x[d].bytes_dur_ps += st->xfer[d].bytes_dur_ps;
		}
	}
	/* Bandwidth only where copies carry bytes and time: "0.00 GB/s" for
	 * copies without a size would read as a measurement. */
	struct figs g;
	char bw[96] = "";
	int64_t bdur = x[0].bytes_dur_ps + x[1].bytes_dur_ps;
	double hd_bytes = x[0].bytes + x[1].bytes;
	if (bdur > 0 && hd_bytes > 0) {
		snprintf(bw, sizeof(bw), ", effective host<->device bandwidth %s",
			tc_fmt_rate(g.b[0], hd_bytes / ((double)bdur * 1e-12), "B/s"));
	}
	char moved[96] = "";
	if (hd_bytes > 0) {
		snprintf(moved, sizeof(moved), ", host<->device ones moving %s",
			tc_fmt_bytes(g.b[1], hd_bytes / n));
	} else if (x[0].count + x[1].count) {
		snprintf(moved, sizeof(moved), ", host<->device ones without a byte count");
	}
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "copies not hidden behind compute are %.1f %% of step time on ", pct);
	tc_rule_add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " (H2D %.1f %%, D2H %.1f %%, D2D %.1f %%); %.3g H2D + %.3g D2H + "
		"%.3g D2D copies per step%s%s (bands %.0f/%.0f %%: XProf",
		PCT(cat[TC_BD_H2D]), PCT(cat[TC_BD_D2H]), PCT(cat[TC_BD_D2D]), (double)x[0].count / n,
		(double)x[1].count / n, (double)x[2].count / n, moved, bw,
		tc_rule_th(c, TC_TH_TRANSFER_MODERATE), tc_rule_th(c, TC_TH_TRANSFER_HIGH));
	tc_rule_finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "h2d_step_time_share", PCT(cat[TC_BD_H2D]), "%");
	tc_finding_add_fig(f, "d2h_step_time_share", PCT(cat[TC_BD_D2H]), "%");
	tc_finding_add_fig(f, "d2d_step_time_share", PCT(cat[TC_BD_D2D]), "%");
	tc_finding_add_fig(f, "copies_per_step", (double)(x[0].count + x[1].count + x[2].count) / n,
		"");
	tc_rule_advise(c, f, TC_ADV_TRANSFER);
#undef PCT
	tc_rule_step_window(c, f, &k, cats);
	tc_rule_top_ops(c, f, TC_KINDS_COPY, -1);
}

static void rule_unoptimized_op(struct rule_ctx *c) {
	const struct tc_op_table *t = &c->a->ops;
	struct tc_finding *f = NULL;
	struct cause k;
	compute_part(c, bound_share(c, -1, true), &k);
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		if (r->efficiency < 0 || 100 * r->share < tc_rule_th(c, TC_TH_UNOPT_SHARE) ||
				100 * r->efficiency >= tc_rule_th(c, TC_TH_UNOPT_EFFICIENCY)) {
			continue;
		}
		if (!f) {
			struct figs g;
			double pct = 100 * r->share;
			enum tc_severity sev = pct >= 3 * tc_rule_th(c, TC_TH_UNOPT_SHARE) ?
				TC_SEV_HIGH : TC_SEV_MEDIUM;
			f = tc_rule_add_cause(c, "unoptimized-op", sev, &k);
			f->value = pct;
			text(f, "'%s' takes %.1f %% of device op time but reaches only %.1f %% of its "
				"roofline bound (%s, %.2f FLOP/B, %s, %s; thresholds "
				"share >= %.0f %%, efficiency < %.0f %%: tracectl, XProf roofline)",
				tc_model_str(c->m, r->name), pct, 100 * r->efficiency,
				tc_bound_name((enum tc_bound)r->bound), r->intensity,
				tc_fmt_rate(g.b[0], r->flop_rate > 0 ? r->flop_rate : 0, "FLOP/s"),
				tc_fmt_rate(g.b[1], r->byte_rate > 0 ? r->byte_rate : 0, "B/s"),
				tc_rule_th(c, TC_TH_UNOPT_SHARE), tc_rule_th(c, TC_TH_UNOPT_EFFICIENCY));
			tc_finding_add_fig(f, "device_op_time_share", pct, "%");
			tc_finding_add_fig(f, "roofline_efficiency", 100 * r->efficiency, "%");
			tc_finding_add_fig(f, "intensity", r->intensity, "FLOP/B");
			tc_rule_advise(c, f, TC_ADV_UNOPTIMIZED_OP);
		}
		if (f->n_ops < TC_FINDING_MAX_ITEMS) {
			f->ops[f->n_ops++] = r->name;
		}
	}
}

#undef KB
#undef CB

static const struct {
	const char *name;
	void (*run)(struct rule_ctx *c);
} rules[] = {
	{ "communication", rule_communication },
	{ "compilation", rule_compilation },
	{ "compute-bound", rule_compute_bound },
	{ "fragmented-memory", tc_rule_fragmented_memory },
	{ "host-bound, launch-bound", tc_rule_host_launch },
	{ "idle-device", rule_idle_device },
	{ "input-bound", tc_rule_input_bound },
	{ "memory-bound", rule_memory_bound },
	{ "memory-leak", tc_rule_memory_leak },
	{ "memory-pressure", tc_rule_memory_pressure },
	{ "pageable-copies", rule_pageable_copies },
	{ "recompilation", rule_recompilation },
	{ "small-batch", rule_small_batch },
	{ "straggler", rule_straggler },
	{ "sync-bound", tc_rule_sync_bound },
	{ "transfer-bound", rule_transfer_bound },
	{ "unoptimized-op", rule_unoptimized_op },
};

/* By the step time explained first: the first line is the biggest cause.
 * Findings that explain no step time (memory pressure, pageable copies)
 * follow, by severity. */
int tc_finding_cmp(const void *pa, const void *pb) {
	const struct tc_finding *a = pa, *b = pb;
	if (a->explained_ps != b->explained_ps) {
		return a->explained_ps > b->explained_ps ? -1 : 1;
	}
	if (a->severity != b->severity) {
		return a->severity > b->severity ? -1 : 1;
	}
	if (a->value != b->value) {
		return a->value > b->value ? -1 : 1;
	}
	return strcmp(a->kind, b->kind);
}

/* The rules named in only (NULL: all), in table order. */
static void run_rules(struct rule_ctx *c, const char *const *only) {
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		bool run = !only;
		for (size_t k = 0; only && only[k] && !run; k++) {
			run = strcmp(only[k], rules[i].name) == 0;
		}
		if (run) {
			rules[i].run(c);
		}
	}
}

/* Devices named "rank 3: GPU 0" with several ranks; NULL: their plain
 * names. */
static char (*labels(const struct tc_model *m))[96] {
	if (tc_model_n_ranks(m) < 2) {
		return NULL;
	}
	char (*label)[96] = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*label));
	for (size_t d = 0; d < m->n_devices; d++) {
		tc_model_device_label(m, (uint32_t)d, label[d], sizeof(label[d]));
	}
	return label;
}

void tc_pass_rules(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_analysis *a, const struct tc_devwork_ahead *ahead,
		const struct tc_op_sums *sums) {
	struct rule_ctx c = { .m = m, .o = o, .a = a, .sums = sums };
	c.split_wait = straggler_wait_pct(&c) >= 0;
	/* A job's rank alone records slots for its label (tc_ftext). */
	c.slots = o->rank_slots && tc_model_n_ranks(m) < 2;
	c.label = labels(m);
	run_rules(&c, NULL);
	tc_rules_compute(m, o, a, ahead);
	free(c.label);
	tc_sort(a->findings, a->n_findings, sizeof(*a->findings), tc_finding_cmp);
}

void tc_pass_rules_job(const struct tc_model *skel, const struct tc_analysis_opts *o,
		struct tc_analysis *a) {
	struct rule_ctx c = { .m = skel, .o = o, .a = a, .cap = a->n_findings };
	c.split_wait = straggler_wait_pct(&c) >= 0;
	c.label = labels(skel);
	static const char *const job_rules[] = { "communication", "straggler", NULL };
	run_rules(&c, job_rules);
	free(c.label);
	tc_sort(a->findings, a->n_findings, sizeof(*a->findings), tc_finding_cmp);
}
