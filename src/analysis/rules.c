/*
 * The bottleneck rules: each compares one measured figure with its
 * thresholds and adds at most one finding with the numbers and a
 * suggestion; also the rules a multi-rank job judges across its ranks.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/fill.h"
#include "analysis/ftext.h"
#include "analysis/host_evidence.h"
#include "analysis/intervals.h"
#include "analysis/memview.h"
#include "analysis/passes.h"
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

struct rule_ctx {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct tc_analysis *a;
	size_t cap;
	char (*label)[96]; /* per device: "rank 3: GPU 0" with several ranks, NULL else */
	bool slots;        /* texts record a job's slots (tc_analysis_opts.rank_slots) */
	/* The straggler finding explains the others' wait for the late rank
	 * (tc_dev_attr.wait_ps): communication keeps the rest of the
	 * collective time. */
	bool split_wait;
};

/* A malloc'd, NUL-terminated string of the printf output. */
static char *vfmt(const char *fmt, va_list ap) {
	struct tc_strbuf sb = { 0 };
	tc_strbuf_vaddf(&sb, fmt, ap);
	tc_strbuf_add(&sb, "", 1);
	return sb.s;
}

static struct tc_finding *add(struct rule_ctx *c, const char *kind, enum tc_severity sev,
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

/* What to try, for the framework and runtime the trace shows (advice.c). */
static void advise(const struct rule_ctx *c, struct tc_finding *f, enum tc_advice_topic topic) {
	suggest(f, "%s", tc_advice(topic, &c->a->runtime));
}

static double th(const struct rule_ctx *c, enum tc_threshold_id id) {
	return c->o->th[id];
}

/* Severity of a percentage against a moderate and a high band; anything
 * over the critical share is critical. */
static enum tc_severity bands(const struct rule_ctx *c, double pct, enum tc_threshold_id mod,
		enum tc_threshold_id high) {
	if (pct >= th(c, TC_TH_CRITICAL) && pct >= th(c, high)) {
		return TC_SEV_CRITICAL;
	}
	if (pct >= th(c, high)) {
		return TC_SEV_HIGH;
	}
	if (pct >= th(c, mod)) {
		return TC_SEV_MEDIUM;
	}
	return TC_SEV_NONE;
}

/* Appends device d's name to a text: its label with several ranks; in a
 * rank's text for a job, with a slot for the job's rank before it. No
 * device ("host") has no slot: a job names the rank first. */
static void add_dev(const struct rule_ctx *c, struct tc_ftext *t, uint32_t d) {
	const struct tc_model *m = c->m;
	if (d >= m->n_devices) {
		tc_ftext_add(t, "host");
	} else {
		tc_ftext_device(t, c->label ? c->label[d] : tc_model_str(m, m->devices[d].name));
	}
}

static const struct tc_device_util *util_of(const struct rule_ctx *c, uint32_t d) {
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

/* The counted totals of device d's attribution, else of the steps'. */
static const int64_t *cats_of(const struct rule_ctx *c, uint32_t d, int64_t *step_ps) {
	const struct tc_dev_attr *at = attr_of(c, d);
	*step_ps = at ? at->step_ps : c->a->step_total_ps;
	return at ? at->cat_ps : c->a->cat_total_ps;
}

/*
 * A cause of step time: its categories' share of the attribution on one
 * device. Measured on every device with device work; the finding is made
 * on the device where the cause explains the most time, and says on how
 * many devices it reaches the moderate band. Without per-device
 * attribution (a host-only trace) the breakdown of the steps is used.
 */
struct cause {
	uint32_t device;
	int64_t explained_ps, step_ps;
	double pct;                /* explained / step time, % */
	const int64_t *step_cat;   /* per step x TC_BD_COUNT, NULL for the steps' own */
	const int64_t *step_less;  /* per step, taken from the collectives; NULL none */
	size_t n_devices, n_over;  /* devices measured; at or above the moderate band */
};

static int64_t cats_sum(const int64_t *cat, uint32_t cats) {
	int64_t s = 0;
	for (int k = 0; k < TC_BD_COUNT; k++) {
		s += (cats >> k) & 1u ? cat[k] : 0;
	}
	return s;
}

static void measure(const struct rule_ctx *c, uint32_t cats, enum tc_threshold_id mod,
		struct cause *out) {
	const struct tc_analysis *a = c->a;
	*out = (struct cause){ .device = a->bd_device };
	if (a->n_attr == 0) {
		out->explained_ps = cats_sum(a->cat_total_ps, cats);
		out->step_ps = a->step_total_ps;
		out->pct = out->step_ps > 0 ? 100.0 * (double)out->explained_ps /
			(double)out->step_ps : 0;
		out->n_devices = 1;
		out->n_over = out->pct >= th(c, mod);
		return;
	}
	bool less = c->split_wait && (cats & (1u << TC_BD_COLLECTIVE));
	for (size_t k = 0; k < a->n_attr; k++) {
		const struct tc_dev_attr *at = &a->attr[k];
		int64_t e = cats_sum(at->cat_ps, cats) - (less ? at->wait_ps : 0);
		double pct = at->step_ps > 0 ? 100.0 * (double)e / (double)at->step_ps : 0;
		out->n_devices++;
		out->n_over += pct >= th(c, mod);
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

/* Ends a cause's text, its sources' parenthesis open: the spread ("; 3 of
 * 8 devices at or above the moderate band" when measured on several; in a
 * rank's text for a job, where the job puts its own count), then ")". */
static void finish_cause(const struct rule_ctx *c, struct tc_ftext *t, const struct cause *k) {
	/* Measured where it is largest: say so when that is not the device
	 * the breakdown shows (issue 48, class 9). */
	if (k->device != c->a->bd_device && c->a->bd_device != TC_NONE) {
		tc_ftext_add(t, "; measured on the worst device, not the breakdown's ");
		add_dev(c, t, c->a->bd_device);
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

/* Figures in the text: each with its own adaptive unit (util/numfmt.h). */
struct figs {
	char b[10][TC_FMT_LEN];
};

static int64_t per_step_ps(const struct rule_ctx *c, int64_t ps) {
	return c->a->n_steps_counted ? ps / (int64_t)c->a->n_steps_counted : 0;
}

/* "over 1 step" / "over 6 steps": the counted steps. */
static const char *steps_noun(const struct rule_ctx *c, char *buf) {
	return tc_fmt_noun(buf, c->a->n_steps_counted, "step", "steps");
}

static struct tc_finding *add_cause(struct rule_ctx *c, const char *kind, enum tc_severity sev,
		const struct cause *k) {
	struct tc_finding *f = add(c, kind, sev, k->pct);
	f->device = k->device;
	f->explained_ps = k->explained_ps;
	f->share = k->step_ps > 0 ? (double)k->explained_ps / (double)k->step_ps : 0;
	f->n_measured = (uint32_t)k->n_devices;
	f->n_over = (uint32_t)k->n_over;
	tc_finding_add_fig(f, "step_time_share", k->pct, "%");
	tc_finding_add_fig(f, "per_step", 1e-12 * (double)per_step_ps(c, k->explained_ps), "s");
	return f;
}

/* Window of the counted steps, and the steps where the categories are
 * largest on the finding's device. */
static void step_window(const struct rule_ctx *c, struct tc_finding *f, const struct cause *k,
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

/* Ops of a kind mask, by total time, into the finding. */
static void top_ops(const struct rule_ctx *c, struct tc_finding *f, uint32_t kind_mask,
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
	measure(c, CB(TC_BD_COLLECTIVE), TC_TH_COMM_MODERATE, &k);
	enum tc_severity sev = bands(c, k.pct, TC_TH_COMM_MODERATE, TC_TH_COMM_HIGH);
	if (!sev) {
		return;
	}
	const struct tc_device_util *u = util_of(c, k.device);
	struct tc_finding *f = add_cause(c, "communication", sev, &k);
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
	add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " over %s, %s per step; %s (bands %.0f/%.0f %%: XProf",
		steps_noun(c, g.b[0]), tc_fmt_dur(g.b[1], per_step_ps(c, k.explained_ps)), dev,
		th(c, TC_TH_COMM_MODERATE), th(c, TC_TH_COMM_HIGH));
	finish_cause(c, &t, &k);
	if (u && u->comm_ps) {
		tc_finding_add_fig(f, "collective_time", 1e-12 * (double)u->comm_ps, "s");
		tc_finding_add_fig(f, "overlapped_with_compute",
			100.0 * (double)u->overlap_ps / (double)u->comm_ps, "%");
	}
	advise(c, f, TC_ADV_COMMUNICATION);
	step_window(c, f, &k, CB(TC_BD_COLLECTIVE));
	top_ops(c, f, KB(TC_OP_COLLECTIVE), -1);
}

static void rule_compilation(struct rule_ctx *c) {
	const struct tc_compile_stats *cs = &c->a->compile;
	double pct = c->a->span_ps > 0 ? 100.0 * (double)cs->union_ps / (double)c->a->span_ps : 0;
	enum tc_severity sev = bands(c, pct, TC_TH_COMPILE_MODERATE, TC_TH_COMPILE_HIGH);
	if (!sev) {
		return;
	}
	/* Found from the whole trace; the severity, like every cause's, from
	 * the step time it explains: the compilation inside the counted steps
	 * (warm-up left out). Outside them it is start-up: low. */
	struct cause k;
	measure(c, CB(TC_BD_COMPILE), TC_TH_COMPILE_MODERATE, &k);
	enum tc_severity in_steps = bands(c, k.pct, TC_TH_COMPILE_MODERATE, TC_TH_COMPILE_HIGH);
	struct tc_finding *f = add_cause(c, "compilation", in_steps ? in_steps : TC_SEV_LOW, &k);
	f->value = pct;
	struct figs g;
	text(f, "compilation takes %s, %.1f %% of the %s trace (%s; "
		"%s of it, %.1f %% of step time, inside the counted steps; bands %.0f/%.0f %% "
		"of step time: tracectl defaults)",
		tc_fmt_dur(g.b[0], cs->union_ps), pct, tc_fmt_dur(g.b[1], c->a->span_ps),
		tc_fmt_noun(g.b[2], cs->n_events, "compile event", "compile events"),
		tc_fmt_dur(g.b[3], k.explained_ps), k.pct, th(c, TC_TH_COMPILE_MODERATE),
		th(c, TC_TH_COMPILE_HIGH));
	tc_finding_add_fig(f, "compile_time", 1e-12 * (double)cs->union_ps, "s");
	tc_finding_add_fig(f, "trace_share", pct, "%");
	tc_finding_add_fig(f, "compile_events", (double)cs->n_events, "");
	advise(c, f, TC_ADV_COMPILE);
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
		bool unopt = r->efficiency >= 0 && 100 * r->share >= th(c, TC_TH_UNOPT_SHARE) &&
			100 * r->efficiency < th(c, TC_TH_UNOPT_EFFICIENCY);
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
	const int64_t *cat = cats_of(c, k->device, &k->step_ps);
	k->explained_ps = (int64_t)((double)cat[TC_BD_COMPUTE] * pct / 100.0);
	k->pct = k->step_ps > 0 ? 100.0 * (double)k->explained_ps / (double)k->step_ps : 0;
}

static void rule_compute_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_COMPUTE, false) + bound_share(c, TC_BOUND_COMPUTE, true);
	if (pct < th(c, TC_TH_COMPUTE_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	struct cause k;
	compute_part(c, bound_share(c, TC_BOUND_COMPUTE, false), &k);
	struct tc_finding *f = add_cause(c, "compute-bound", TC_SEV_LOW, &k);
	f->value = pct;
	text(f, "%.1f %% of device op time is in compute-bound ops (intensity above the ridge "
		"point %.1f FLOP/B; peaks from %s; threshold %.0f %%: XProf)", pct,
		c->a->ops.ridge, c->a->ops.peak_source, th(c, TC_TH_COMPUTE_BOUND));
	tc_finding_add_fig(f, "device_op_time_share", pct, "%");
	tc_finding_add_fig(f, "ridge_point", c->a->ops.ridge, "FLOP/B");
	advise(c, f, TC_ADV_COMPUTE_BOUND);
	top_ops(c, f, ~0u, TC_BOUND_COMPUTE);
}

/*
 * Memory the caching allocator holds but never had in use at once: per
 * device and allocator, (peak reserved - peak allocated) / peak reserved.
 * Measured over the trace rather than at the reserved peak: there the
 * allocations may just have been freed, which is caching, not waste. Host
 * (CPU) counters are left out: XProf memory profiles put XLA's stack
 * reservation there as memory.reserved, not a pool around the allocations.
 * Not a cause of step time: it explains none.
 */
static void rule_fragmented_memory(struct rule_ctx *c) {
	const struct tc_model *m = c->m;
	uint32_t alloc = tc_intern_find(&m->strings, "memory.allocated", 16);
	uint32_t reserved = tc_intern_find(&m->strings, "memory.reserved", 15);
	if (alloc == TC_NONE || reserved == TC_NONE) {
		return;
	}
	const struct tc_mem_peak *worst = NULL;
	double wp = 0, wa = 0;
	for (size_t i = 0; i < c->a->n_mem; i++) {
		const struct tc_mem_peak *p = &c->a->mem[i], *al = NULL;
		if (p->name != reserved || p->device >= m->n_devices ||
				m->devices[p->device].kind == TC_DEV_CPU || p->peak_bytes <= 0) {
			continue;
		}
		for (size_t j = 0; j < c->a->n_mem; j++) {
			const struct tc_mem_peak *q = &c->a->mem[j];
			al = q->name == alloc && q->device == p->device && q->group == p->group ? q : al;
		}
		if (!al || al->peak_bytes > p->peak_bytes) {
			continue;
		}
		bool big = p->peak_bytes >= th(c, TC_TH_FRAG_MIN_SIZE) * 1073741824.0 ||
			(p->capacity_bytes > 0 && 100.0 * p->peak_bytes / (double)p->capacity_bytes >=
			th(c, TC_TH_FRAG_MIN_DEVICE));
		double pct = 100.0 * (p->peak_bytes - al->peak_bytes) / p->peak_bytes;
		if (big && pct >= th(c, TC_TH_FRAG_SHARE) && (!worst || pct > wp)) {
			worst = p;
			wp = pct;
			wa = al->peak_bytes;
		}
	}
	if (!worst) {
		return;
	}
	enum tc_severity sev = wp >= th(c, TC_TH_FRAG_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "fragmented-memory", sev, wp);
	f->device = worst->device;
	char cap[96] = "";
	struct figs g;
	if (worst->capacity_bytes > 0) {
		snprintf(cap, sizeof(cap), ", %.1f %% of the device's %s",
			100.0 * (worst->peak_bytes - wa) / (double)worst->capacity_bytes,
			tc_fmt_bytes(g.b[0], (double)worst->capacity_bytes));
	}
	char grp[96] = "";
	if (worst->group) {
		snprintf(grp, sizeof(grp), " (%s)", tc_model_str(m, worst->group));
	}
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, "%s reserves up to %s but allocates at most %s: %.1f %% of the "
		"reserved pool, %s, is held by the allocator and never in use at once%s "
		"(thresholds %.0f/%.0f %% of at least %.0f GiB or %.0f %% of the device: tracectl, after the "
		"PyTorch caching allocator and TBP memory view)", grp,
		tc_fmt_bytes(g.b[1], worst->peak_bytes), tc_fmt_bytes(g.b[2], wa), wp,
		tc_fmt_bytes(g.b[3], worst->peak_bytes - wa), cap,
		th(c, TC_TH_FRAG_SHARE), th(c, TC_TH_FRAG_HIGH), th(c, TC_TH_FRAG_MIN_SIZE),
		th(c, TC_TH_FRAG_MIN_DEVICE));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "reserved_peak", worst->peak_bytes, "B");
	tc_finding_add_fig(f, "allocated_peak", wa, "B");
	tc_finding_add_fig(f, "never_in_use_share", wp, "%");
	advise(c, f, TC_ADV_FRAGMENTED_MEMORY);
	f->window_lo_ps = worst->peak_ts_ps;
	f->window_hi_ps = worst->peak_ts_ps;
}

/*
 * A host/launch cause whose time is mostly a handful of one-off calls
 * (tc_host_evidence_stalls) is start-up, not the steady state; one call of
 * no start-up kind that alone holds half of it is a single stall; so for
 * a sync cause's sync calls (single stalls only). The
 * clause names them with their times for the finding's text; the advice
 * topic it calls for, or TC_ADV_COUNT for none.
 */
static enum tc_advice_topic stall_clause(const struct rule_ctx *c, const struct cause *k,
		enum tc_op_kind kind, char *buf, size_t n) {
	struct tc_stall st[5];
	size_t ns = tc_host_evidence_stalls(c->m, c->a, k->device, kind, st, 5);
	int64_t idle = 0;
	for (size_t i = 0; i < ns; i++) {
		idle += st[i].idle_ps;
	}
	if (!ns || k->explained_ps <= 0) {
		return TC_ADV_COUNT;
	}
	char d[TC_FMT_LEN], at[TC_FMT_LEN], idl[TC_FMT_LEN];
	if (!st[0].startup && 2 * st[0].idle_ps >= k->explained_ps) {
		int64_t first, last;
		tc_model_span(c->m, &first, &last);
		snprintf(buf, n, "; a single stall holds %.1f %% of this time: one %s call of %s, "
			"%s from trace start, the device idle for %s of it; the rest leaves %.1f %% "
			"of step time", 100.0 * (double)st[0].idle_ps / (double)k->explained_ps,
			tc_model_str(c->m, c->m->ops[st[0].op].name), tc_fmt_dur(d, st[0].dur_ps),
			tc_fmt_dur(at, st[0].start_ps - first), tc_fmt_dur(idl, st[0].idle_ps),
			k->step_ps > 0 ? 100.0 *
			(double)(k->explained_ps - st[0].idle_ps) / (double)k->step_ps : 0);
		return TC_ADV_STALL;
	}
	if (kind != TC_OP_RUNTIME || 2 * idle < k->explained_ps) {
		return TC_ADV_COUNT;
	}
	size_t len = (size_t)snprintf(buf, n, "; %zu one-off %s (start-up, not the steady "
		"state) %s %.1f %% of this time:", ns, ns == 1 ? "call" : "calls",
		ns == 1 ? "holds" : "hold", 100.0 * (double)idle / (double)k->explained_ps);
	for (size_t i = 0; i < ns && len < n; i++) {
		len += (size_t)snprintf(buf + len, n - len, "%s %s %s", i ? "," : "",
			tc_model_str(c->m, c->m->ops[st[i].op].name), tc_fmt_dur(d, st[i].dur_ps));
	}
	return TC_ADV_STARTUP;
}

/*
 * The host keeps the device waiting: host runtime calls (launch) and
 * framework/Python work (host) while the device is idle. One cause, one
 * finding: launch-bound when the device runs mostly short kernels that
 * start within launch.delay of their launch (the host's per-op dispatch
 * cannot keep up), host-bound otherwise (a long launch delay means the
 * host runs ahead; the idle time is host work that is not launching).
 */
static void rule_host_launch(struct rule_ctx *c) {
	struct cause k;
	/* Without a device nothing waits on the host: host work is the work. */
	if (!c->a->n_attr) {
		return;
	}
	measure(c, CB(TC_BD_LAUNCH) | CB(TC_BD_HOST), TC_TH_LAUNCH_MODERATE, &k);
	if (k.explained_ps <= 0) {
		return;
	}
	const struct tc_device_util *u = util_of(c, k.device);
	bool short_kernels = u && u->n_kernels > 0 && 100.0 * (double)u->n_short_kernels /
		(double)u->n_kernels >= th(c, TC_TH_LAUNCH_SHORT_SHARE);
	bool short_delay = !u || u->launch_delay_p50_ps < 0 ||
		(double)u->launch_delay_p50_ps <= th(c, TC_TH_LAUNCH_DELAY_US) * 1e6;
	bool launch = short_kernels && short_delay;
	enum tc_severity sev = launch ?
		bands(c, k.pct, TC_TH_LAUNCH_MODERATE, TC_TH_LAUNCH_HIGH) :
		bands(c, k.pct, TC_TH_HOST_MODERATE, TC_TH_HOST_HIGH);
	if (!sev) {
		return;
	}
	int64_t step_ps;
	const int64_t *cat = cats_of(c, k.device, &step_ps);
	struct figs g;
	char delay[64] = "unknown (no launch links)";
	if (u && u->launch_delay_p50_ps >= 0) {
		tc_fmt_dur(delay, u->launch_delay_p50_ps);
	}
	char kern[160] = "no kernels";
	if (u && u->n_kernels) {
		snprintf(kern, sizeof(kern), "%s of %s shorter than %.0f us",
			tc_fmt_count(g.b[0], u->n_short_kernels),
			tc_fmt_noun(g.b[1], u->n_kernels, "kernel", "kernels"),
			th(c, TC_TH_SHORT_KERNEL_US));
	}
	/* Allocator calls filling much of the finding's time (with the device
	 * idle) are no launches: the advice is to stop allocating, not to
	 * launch less. */
	uint64_t n_alloc;
	int64_t alloc_ps;
	tc_host_evidence_alloc(c->m, c->a, k.device, &n_alloc, &alloc_ps);
	bool alloc = (double)alloc_ps >= th(c, TC_TH_ALLOC_SHARE) / 100.0 * (double)k.explained_ps;
	char al[200] = "";
	if (alloc) {
		double n = c->a->n_steps_counted ? (double)c->a->n_steps_counted : 1;
		snprintf(al, sizeof(al), "; %.1f device memory allocator calls per step "
			"(cudaMalloc, cudaFree and the like) run %s per step with the device idle, "
			"%.1f %% of this time (>= %.0f %%: tracectl)", (double)n_alloc / n,
			tc_fmt_dur(g.b[6], (int64_t)((double)alloc_ps / n)),
			100.0 * (double)alloc_ps / (double)k.explained_ps, th(c, TC_TH_ALLOC_SHARE));
	}
	char su[512] = "";
	enum tc_advice_topic stall = stall_clause(c, &k, TC_OP_RUNTIME, su, sizeof(su));
	/* One-off calls and allocator calls are no launches: the advice is
	 * about them, not about launching less. */
	enum tc_advice_topic topic = stall != TC_ADV_COUNT ? stall : alloc ? TC_ADV_ALLOC :
		launch ? TC_ADV_LAUNCH : TC_ADV_HOST;
	struct tc_finding *f = add_cause(c, launch ? "launch-bound" : "host-bound", sev, &k);
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	if (launch) {
		add_dev(c, &t, k.device);
		tc_ftext_addf(&t, " waits on the host's per-op dispatch for %.1f %% of step time "
			"over %s, %s per step (%s in runtime/launch calls, %s in "
			"framework/Python code between them); %s, median launch delay %s%s%s "
			"(bands %.0f/%.0f %%: XProf kernel launch; delay <= %.0f us and >= %.0f %% "
			"short kernels: tracectl",
			k.pct, steps_noun(c, g.b[2]),
			tc_fmt_dur(g.b[3], per_step_ps(c, k.explained_ps)),
			tc_fmt_dur(g.b[4], per_step_ps(c, cat[TC_BD_LAUNCH])),
			tc_fmt_dur(g.b[5], per_step_ps(c, cat[TC_BD_HOST])), kern, delay, al, su,
			th(c, TC_TH_LAUNCH_MODERATE),
			th(c, TC_TH_LAUNCH_HIGH), th(c, TC_TH_LAUNCH_DELAY_US),
			th(c, TC_TH_LAUNCH_SHORT_SHARE));
	} else {
		tc_ftext_add(&t, "the host runs framework/Python code while ");
		add_dev(c, &t, k.device);
		tc_ftext_addf(&t, " has nothing to do for %.1f %% "
			"of step time over %s, %s per step (%s of it in runtime "
			"calls); %s: %s, median launch delay %s%s%s (bands %.0f/%.0f %%: "
			"XProf all-other time",
			k.pct, steps_noun(c, g.b[2]),
			tc_fmt_dur(g.b[3], per_step_ps(c, k.explained_ps)),
			tc_fmt_dur(g.b[4], per_step_ps(c, cat[TC_BD_LAUNCH])),
			/* The words follow the breakdown's numbers: with the launch
			 * category the larger, the calls are the cause, only not
			 * per-kernel launch overhead. */
			cat[TC_BD_LAUNCH] > cat[TC_BD_HOST] ?
				"runtime calls are most of it, but the kernels are not launch-limited" :
				"not launch-bound", kern, delay, al, su,
			th(c, TC_TH_HOST_MODERATE), th(c, TC_TH_HOST_HIGH));
	}
	finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "runtime_calls_per_step",
		1e-12 * (double)per_step_ps(c, cat[TC_BD_LAUNCH]), "s");
	tc_finding_add_fig(f, "framework_per_step", 1e-12 * (double)per_step_ps(c, cat[TC_BD_HOST]),
		"s");
	if (u && u->n_kernels) {
		tc_finding_add_fig(f, "short_kernels", (double)u->n_short_kernels, "");
		tc_finding_add_fig(f, "kernels", (double)u->n_kernels, "");
	}
	if (u && u->launch_delay_p50_ps >= 0) {
		tc_finding_add_fig(f, "median_launch_delay", 1e-12 * (double)u->launch_delay_p50_ps,
			"s");
	}
	advise(c, f, topic);
	step_window(c, f, &k, CB(TC_BD_LAUNCH) | CB(TC_BD_HOST));
	tc_host_evidence_top_ops(c->m, c->a, f, launch ? KB(TC_OP_RUNTIME) | KB(TC_OP_HOST_OP) :
		KB(TC_OP_HOST_OP) | KB(TC_OP_PYTHON), true, KB(TC_OP_DATALOAD) | KB(TC_OP_SYNC) |
		KB(TC_OP_OVERHEAD) | KB(TC_OP_COMPILE), tc_pass_parallel(c->o, c->m->ev.n));
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
	measure(c, CB(TC_BD_IDLE), TC_TH_IDLE_MODERATE, &k);
	enum tc_severity sev = bands(c, k.pct, TC_TH_IDLE_MODERATE, TC_TH_IDLE_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add_cause(c, "idle-device", sev, &k);
	const struct tc_device_util *u = util_of(c, k.device);
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
	add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " is idle with nothing on the trace to explain it (no device work, "
		"input, host work or runtime calls) for %.1f %% of step time over %s, %s per "
		"step%s (bands %.0f/%.0f %%: tracectl", k.pct,
		steps_noun(c, g.b[2]), tc_fmt_dur(g.b[3], per_step_ps(c, k.explained_ps)), util,
		th(c, TC_TH_IDLE_MODERATE), th(c, TC_TH_IDLE_HIGH));
	finish_cause(c, &t, &k);
	if (u && u->last_ps > u->first_ps) {
		tc_finding_add_fig(f, "busy_share_of_active_span",
			100.0 * (double)u->busy_ps / (double)(u->last_ps - u->first_ps), "%");
		if (u->n_launches && u->idle_ps > 0) {
			tc_finding_add_fig(f, "idle_waiting_on_host",
				100.0 * (double)u->idle_host_wait_ps / (double)u->idle_ps, "%");
		}
	}
	advise(c, f, TC_ADV_IDLE);
	step_window(c, f, &k, CB(TC_BD_IDLE));
}

static void rule_input_bound(struct rule_ctx *c) {
	struct cause k;
	measure(c, CB(TC_BD_INPUT), TC_TH_INPUT_MODERATE, &k);
	enum tc_severity sev = bands(c, k.pct, TC_TH_INPUT_MODERATE, TC_TH_INPUT_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add_cause(c, "input-bound", sev, &k);
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "waiting for input (data loader / input pipeline / infeed, not hidden "
		"behind device work) is %.1f %% of step time on ", k.pct);
	add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " over %s, %s per step (bands %.0f/%.0f %%: XProf, TBP rule 1",
		steps_noun(c, g.b[0]), tc_fmt_dur(g.b[1], per_step_ps(c, k.explained_ps)),
		th(c, TC_TH_INPUT_MODERATE), th(c, TC_TH_INPUT_HIGH));
	finish_cause(c, &t, &k);
	advise(c, f, TC_ADV_INPUT);
	step_window(c, f, &k, CB(TC_BD_INPUT));
	top_ops(c, f, KB(TC_OP_DATALOAD), -1);
	if (!f->n_ops) {
		tc_host_evidence_top_ops(c->m, c->a, f, KB(TC_OP_DATALOAD), false, 0,
			tc_pass_parallel(c->o, c->m->ev.n));
	}
}

static void rule_memory_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_MEMORY, false) + bound_share(c, TC_BOUND_MEMORY, true);
	if (pct < th(c, TC_TH_MEMORY_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	enum tc_severity sev = pct >= th(c, TC_TH_MEMORY_BOUND_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	/* The ops unoptimized-op names explain their own time. */
	struct cause k;
	compute_part(c, bound_share(c, TC_BOUND_MEMORY, false), &k);
	struct tc_finding *f = add_cause(c, "memory-bound", sev, &k);
	f->value = pct;
	struct figs g;
	text(f, "%.1f %% of device op time is in memory-bound ops (FLOP/byte below the ridge "
		"point %.1f = %s / %s, peaks from %s; thresholds %.0f/%.0f %%: "
		"tracectl, XProf)", pct, c->a->ops.ridge,
		tc_fmt_rate(g.b[0], c->a->ops.peak_flops, "FLOP/s"),
		tc_fmt_rate(g.b[1], c->a->ops.peak_bw, "B/s"), c->a->ops.peak_source,
		th(c, TC_TH_MEMORY_BOUND),
		th(c, TC_TH_MEMORY_BOUND_HIGH));
	tc_finding_add_fig(f, "device_op_time_share", pct, "%");
	tc_finding_add_fig(f, "ridge_point", c->a->ops.ridge, "FLOP/B");
	advise(c, f, TC_ADV_MEMORY_BOUND);
	top_ops(c, f, ~0u, TC_BOUND_MEMORY);
}

/*
 * Live memory that grows at every step end, with allocations never freed:
 * a leak-like pattern (a cache, a tensor list or autograd history kept
 * across steps). The allocator whose growth is the largest share of its
 * peak; the ops named are those whose allocations were never freed.
 */
static void rule_memory_leak(struct rule_ctx *c) {
	const struct tc_mem_view *v = &c->a->memview;
	size_t n = c->a->n_steps;
	if (n < 3 || !v->n_devs) {
		return;
	}
	int64_t *live = tc_xmalloc(n * sizeof(*live));
	const struct tc_mem_device *worst = NULL;
	double wp = 0;
	int64_t w_first = 0, w_last = 0;
	for (size_t k = 0; k < v->n_devs; k++) {
		const struct tc_mem_device *md = &v->devs[k];
		if (!md->never_freed || md->peak_bytes <= 0) {
			continue;
		}
		tc_memview_live_at_ends(c->m, md, c->a->steps, c->a->n_steps, live);
		bool grows = true;
		for (size_t i = 1; i < n && grows; i++) {
			grows = live[i] > live[i - 1];
		}
		double pct = 100.0 * (double)(live[n - 1] - live[0]) / (double)md->peak_bytes;
		if (grows && pct > wp) {
			wp = pct;
			worst = md;
			w_first = live[0];
			w_last = live[n - 1];
		}
	}
	free(live);
	if (!worst || wp < th(c, TC_TH_MEM_LEAK)) {
		return;
	}
	const struct tc_step *s0 = &c->a->steps[0], *s1 = &c->a->steps[n - 1];
	struct tc_finding *f = add(c, "memory-leak", wp >= 10 * th(c, TC_TH_MEM_LEAK) ?
		TC_SEV_HIGH : TC_SEV_MEDIUM, wp);
	f->device = worst->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_add(&t, "live memory on ");
	add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, " grows at every one of %zu step ends, from %s after "
		"step %" PRId64 " to %s after step %" PRId64 " (+%s per step, %.1f %% of its peak; "
		"threshold %.0f %%: tracectl), with %s never freed", n,
		tc_fmt_bytes(g.b[0], (double)w_first), s0->num, tc_fmt_bytes(g.b[1], (double)w_last),
		s1->num, tc_fmt_bytes(g.b[2], (double)(w_last - w_first) / (double)(n - 1)), wp,
		th(c, TC_TH_MEM_LEAK), tc_fmt_noun(g.b[3], worst->never_freed, "allocation",
		"allocations"));
	const char *sep = ", most from ";
	for (size_t i = 0; i < worst->n_unfreed && f->n_ops < 3; i++) {
		const struct tc_mem_holder *h = &worst->unfreed[i];
		if (h->name == TC_NONE) {
			continue;
		}
		tc_ftext_addf(&t, "%s'%s' (%s in %s)", sep, tc_model_str(c->m, h->name),
			tc_fmt_bytes(g.b[0], (double)h->bytes),
			tc_fmt_noun(g.b[1], h->buffers, "buffer", "buffers"));
		f->ops[f->n_ops++] = h->name;
		sep = ", ";
	}
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "live_first_step_end", (double)w_first, "B");
	tc_finding_add_fig(f, "live_last_step_end", (double)w_last, "B");
	tc_finding_add_fig(f, "growth_share_of_peak", wp, "%");
	tc_finding_add_fig(f, "never_freed", (double)worst->never_freed, "");
	advise(c, f, TC_ADV_MEMORY_LEAK);
	f->window_lo_ps = s0->start_ps;
	f->window_hi_ps = s1->start_ps + s1->dur_ps;
}

static void rule_memory_pressure(struct rule_ctx *c) {
	const struct tc_mem_peak *worst = NULL;
	double wp = 0;
	for (size_t i = 0; i < c->a->n_mem; i++) {
		const struct tc_mem_peak *p = &c->a->mem[i];
		if (p->capacity_bytes <= 0) {
			continue;
		}
		double pct = 100.0 * p->peak_bytes / (double)p->capacity_bytes;
		if (pct > wp) {
			wp = pct;
			worst = p;
		}
	}
	if (!worst || wp <= th(c, TC_TH_MEM_PRESSURE)) {
		return;
	}
	enum tc_severity sev = wp >= th(c, TC_TH_MEM_PRESSURE_CRITICAL) ? TC_SEV_CRITICAL : TC_SEV_HIGH;
	/* A serving engine fills memory with its KV-cache pool on purpose: what
	 * the advice calls by design is at most low (issue 48, class 9). */
	uint8_t fw = c->a->runtime.framework;
	if (fw == TC_FW_VLLM || fw == TC_FW_SGLANG) {
		sev = TC_SEV_LOW;
	}
	struct tc_finding *f = add(c, "memory-pressure", sev, wp);
	f->device = worst->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "peak %s on ", tc_model_str(c->m, worst->name));
	add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, " is %s, %.1f %% of the device's %s (threshold %.0f %%: TBP rule 7)",
		tc_fmt_bytes(g.b[0], worst->peak_bytes), wp,
		tc_fmt_bytes(g.b[1], (double)worst->capacity_bytes),
		th(c, TC_TH_MEM_PRESSURE));
	tc_memview_holders_clause(c->m, &c->a->memview, worst->device, f, &t.sb);
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "peak", worst->peak_bytes, "B");
	tc_finding_add_fig(f, "capacity", (double)worst->capacity_bytes, "B");
	tc_finding_add_fig(f, "capacity_share", wp, "%");
	advise(c, f, TC_ADV_MEMORY_PRESSURE);
	f->window_lo_ps = worst->peak_ts_ps;
	f->window_hi_ps = worst->peak_ts_ps;
}

static void rule_pageable_copies(struct rule_ctx *c) {
	const struct tc_xfer_stats *h = &c->a->xfer[TC_XFER_H2D], *d = &c->a->xfer[TC_XFER_D2H];
	uint64_t n = h->n_pageable + d->n_pageable;
	if (!n) {
		return;
	}
	double bytes = h->bytes + d->bytes;
	double pct = bytes > 0 ? 100.0 * (h->bytes_pageable + d->bytes_pageable) / bytes : 0;
	enum tc_severity sev = pct >= th(c, TC_TH_PAGEABLE_SHARE) ? TC_SEV_MEDIUM : TC_SEV_LOW;
	/* Mostly pageable copies explain their exposed host<->device copy
	 * time, unless transfer-bound reaches its band and explains it (a
	 * time is one finding's). */
	struct cause hd, t;
	measure(c, CB(TC_BD_H2D) | CB(TC_BD_D2H), TC_TH_TRANSFER_MODERATE, &hd);
	measure(c, CB(TC_BD_H2D) | CB(TC_BD_D2H) | CB(TC_BD_D2D), TC_TH_TRANSFER_MODERATE, &t);
	bool carries = sev == TC_SEV_MEDIUM && hd.explained_ps > 0 && c->a->n_attr &&
		!bands(c, t.pct, TC_TH_TRANSFER_MODERATE, TC_TH_TRANSFER_HIGH);
	struct tc_finding *f = carries ? add_cause(c, "pageable-copies", sev, &hd) :
		add(c, "pageable-copies", sev, pct);
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
		add_dev(c, &tx, hd.device);
		tc_ftext_addf(&tx, ", %s per step", tc_fmt_dur(b, per_step_ps(c, hd.explained_ps)));
		step_window(c, f, &hd, CB(TC_BD_H2D) | CB(TC_BD_D2H));
	}
	tc_ftext_finish(&tx);
	tc_finding_add_fig(f, "pageable_copies", (double)n, "");
	tc_finding_add_fig(f, "pageable_bytes_share", pct, "%");
	advise(c, f, TC_ADV_PAGEABLE_COPIES);
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
	if (!cs->n_recompiled || (double)cs->recompiled[0].count < th(c, TC_TH_RECOMPILE_COUNT)) {
		return;
	}
	double pct = c->a->span_ps > 0 ? 100.0 * (double)cs->union_ps / (double)c->a->span_ps : 0;
	enum tc_severity sev = pct >= th(c, TC_TH_COMPILE_MODERATE) ? TC_SEV_MEDIUM : TC_SEV_LOW;
	struct tc_finding *f = add(c, "recompilation", sev, (double)cs->recompiled[0].count);
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
		th(c, TC_TH_RECOMPILE_COUNT));
	tc_finding_add_fig(f, "programs_recompiled", (double)cs->n_recompiled, "");
	tc_finding_add_fig(f, "most_compiles", (double)cs->recompiled[0].count, "");
	tc_finding_add_fig(f, "most_compiled_time", 1e-12 * (double)cs->recompiled[0].total_ps, "s");
	tc_finding_add_fig(f, "trace_share", pct, "%");
	advise(c, f, TC_ADV_RECOMPILE);
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
		if (busy < th(c, TC_TH_SMALL_BATCH_BUSY) || input >= th(c, TC_TH_INPUT_MODERATE) ||
				host >= th(c, TC_TH_LAUNCH_MODERATE) || host >= th(c, TC_TH_HOST_MODERATE) ||
				sync >= th(c, TC_TH_SYNC_MODERATE)) {
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
		(int64_t)(th(c, TC_TH_SHORT_KERNEL_US) * 1e6), th(c, TC_TH_SMALL_BATCH_BLOCKS),
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
		bool over = fig >= th(c, occ ? TC_TH_SMALL_BATCH_SHARE : TC_TH_SMALL_BATCH_SHORT);
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
		bfig >= th(c, TC_TH_SMALL_BATCH_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "small-batch", sev, bfig);
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
	add_dev(c, &t, bat->device);
	tc_ftext_addf(&t, " is busy %.1f %% of step time over %s with no host cause, but its "
		"kernels are too small to fill it: %.1f %% of kernel time is in kernels %s "
		"(%s per step; %.1f %% of kernel time in kernels under %.0f us, %s; "
		"thresholds %.0f %% under %.0g blocks per SM or %.0f %% short kernels, busy >= "
		"%.0f %%: tracectl, after TBP Est. SM Efficiency and TraceLens short kernels; "
		"evidence, the time is counted as compute)",
		100.0 * (double)bat->busy_ps / (double)bat->step_ps, steps_noun(c, g.b[0]), bfig, how,
		tc_fmt_dur(g.b[1], (int64_t)((double)(bocc ? best.low_ps : best.short_ps) / n)),
		best.kern_ps ? 100.0 * (double)best.short_ps / (double)best.kern_ps : 0,
		th(c, TC_TH_SHORT_KERNEL_US), occ, th(c, TC_TH_SMALL_BATCH_SHARE),
		th(c, TC_TH_SMALL_BATCH_BLOCKS), th(c, TC_TH_SMALL_BATCH_SHORT),
		th(c, TC_TH_SMALL_BATCH_BUSY));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "busy_step_time_share",
		100.0 * (double)bat->busy_ps / (double)bat->step_ps, "%");
	tc_finding_add_fig(f, "small_kernel_time_share", bfig, "%");
	advise(c, f, TC_ADV_SMALL_BATCH);
	step_window(c, f, NULL, 0);
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
	enum tc_severity sev = pct >= 2 * th(c, TC_TH_STRAGGLER_WAIT) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "straggler", sev, pct);
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
		add_dev(c, &t, wat->device);
		tc_ftext_addf(&t, " that wait is %.1f %% of step time, %s per step, counted here "
			"and not as communication", 100 * f->share,
			tc_fmt_dur(g.b[4], per_step_ps(c, wat->wait_ps)));
	}
	tc_ftext_addf(&t, " (threshold %.0f %%: tracectl; collectives matched by %s%s%s)",
		th(c, TC_TH_STRAGGLER_WAIT), r->coll_source, r->alignment ? ", clocks aligned on " : "",
		r->alignment ? r->alignment : "");
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "straggler_rank", s->rank, "");
	tc_finding_add_fig(f, "arrived_last", (double)s->n_last, "");
	tc_finding_add_fig(f, "collectives_matched", (double)r->n_coll, "");
	tc_finding_add_fig(f, "max_skew", 1e-12 * (double)top, "s");
	tc_finding_add_fig(f, "others_waited", 1e-12 * (double)s->caused_ps, "s");
	tc_finding_add_fig(f, "others_step_time_share", pct, "%");
	advise(c, f, TC_ADV_STRAGGLER);
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
	if (skew < th(c, TC_TH_STRAGGLER_SKEW)) {
		return;
	}
	enum tc_severity sev = skew >= 2 * th(c, TC_TH_STRAGGLER_SKEW) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "straggler", sev, skew);
	f->device = low->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	add_dev(c, &t, low->device);
	tc_ftext_addf(&t, " spends %s in collectives, %.1f %% less than the median %s of the "
		"%s devices with collectives: the others wait for it (threshold %.0f %%: tracectl, "
		"after HTA's straggler analysis)",
		tc_fmt_dur(g.b[0], low->comm_ps), skew, tc_fmt_dur(g.b[1], (int64_t)med),
		tc_fmt_count(g.b[2], n), th(c, TC_TH_STRAGGLER_SKEW));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "collective_time", 1e-12 * (double)low->comm_ps, "s");
	tc_finding_add_fig(f, "less_than_median", skew, "%");
	tc_finding_add_fig(f, "median_collective_time", 1e-12 * med, "s");
	tc_finding_add_fig(f, "devices_with_collectives", (double)n, "");
	advise(c, f, TC_ADV_STRAGGLER);
	f->window_lo_ps = low->first_ps;
	f->window_hi_ps = low->last_ps;
}

/* Host synchronisation inside the step: the host blocked in a sync call
 * (cudaStreamSynchronize, blocking memcpy, .item(), block_until_ready)
 * while the device had nothing to do. */
static void rule_sync_bound(struct rule_ctx *c) {
	struct cause k;
	measure(c, CB(TC_BD_SYNC), TC_TH_SYNC_MODERATE, &k);
	enum tc_severity sev = bands(c, k.pct, TC_TH_SYNC_MODERATE, TC_TH_SYNC_HIGH);
	if (!sev) {
		return;
	}
	uint64_t calls;
	int64_t blocked, after;
	tc_host_evidence_sync(c->m, c->a, k.device, &calls, &blocked, &after);
	double n = c->a->n_steps_counted ? (double)c->a->n_steps_counted : 1;
	char su[512] = "";
	enum tc_advice_topic stall = stall_clause(c, &k, TC_OP_SYNC, su, sizeof(su));
	struct tc_finding *f = add_cause(c, "sync-bound", sev, &k);
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_add(&t, "host synchronisation keeps ");
	add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " idle for %.1f %% of step time over %s, "
		"%s per step (the host blocked in the call, then the idle until the device's "
		"next op, up to the device time the call waited on); %.1f sync calls per step block "
		"the host %s per step, and the device then idles %s per step until its next op"
		"%s (bands %.0f/%.0f %%: tracectl, after NSYS cuda_api_sync",
		k.pct, steps_noun(c, g.b[0]),
		tc_fmt_dur(g.b[1], per_step_ps(c, k.explained_ps)), (double)calls / n,
		tc_fmt_dur(g.b[2], (int64_t)((double)blocked / n)),
		tc_fmt_dur(g.b[3], (int64_t)((double)after / n)), su, th(c, TC_TH_SYNC_MODERATE),
		th(c, TC_TH_SYNC_HIGH));
	finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "sync_calls_per_step", (double)calls / n, "");
	tc_finding_add_fig(f, "host_blocked_per_step", 1e-12 * (double)blocked / n, "s");
	tc_finding_add_fig(f, "idle_after_per_step", 1e-12 * (double)after / n, "s");
	advise(c, f, stall != TC_ADV_COUNT ? stall : TC_ADV_SYNC);
	step_window(c, f, &k, CB(TC_BD_SYNC));
	tc_host_evidence_top_ops(c->m, c->a, f, KB(TC_OP_SYNC), false, 0,
		tc_pass_parallel(c->o, c->m->ev.n));
}

static void rule_transfer_bound(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
	const uint32_t cats = CB(TC_BD_H2D) | CB(TC_BD_D2H) | CB(TC_BD_D2D);
	struct cause k;
	measure(c, cats, TC_TH_TRANSFER_MODERATE, &k);
	double pct = k.pct;
	enum tc_severity sev = bands(c, pct, TC_TH_TRANSFER_MODERATE, TC_TH_TRANSFER_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add_cause(c, "transfer-bound", sev, &k);
	int64_t step_ps;
	const int64_t *cat = cats_of(c, k.device, &step_ps);
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
	add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " (H2D %.1f %%, D2H %.1f %%, D2D %.1f %%); %.3g H2D + %.3g D2H + "
		"%.3g D2D copies per step%s%s (bands %.0f/%.0f %%: XProf",
		PCT(cat[TC_BD_H2D]), PCT(cat[TC_BD_D2H]), PCT(cat[TC_BD_D2D]), (double)x[0].count / n,
		(double)x[1].count / n, (double)x[2].count / n, moved, bw,
		th(c, TC_TH_TRANSFER_MODERATE), th(c, TC_TH_TRANSFER_HIGH));
	finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "h2d_step_time_share", PCT(cat[TC_BD_H2D]), "%");
	tc_finding_add_fig(f, "d2h_step_time_share", PCT(cat[TC_BD_D2H]), "%");
	tc_finding_add_fig(f, "d2d_step_time_share", PCT(cat[TC_BD_D2D]), "%");
	tc_finding_add_fig(f, "copies_per_step", (double)(x[0].count + x[1].count + x[2].count) / n,
		"");
	advise(c, f, TC_ADV_TRANSFER);
#undef PCT
	step_window(c, f, &k, cats);
	top_ops(c, f, TC_KINDS_COPY, -1);
}

static void rule_unoptimized_op(struct rule_ctx *c) {
	const struct tc_op_table *t = &c->a->ops;
	struct tc_finding *f = NULL;
	struct cause k;
	compute_part(c, bound_share(c, -1, true), &k);
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		if (r->efficiency < 0 || 100 * r->share < th(c, TC_TH_UNOPT_SHARE) ||
				100 * r->efficiency >= th(c, TC_TH_UNOPT_EFFICIENCY)) {
			continue;
		}
		if (!f) {
			struct figs g;
			double pct = 100 * r->share;
			enum tc_severity sev = pct >= 3 * th(c, TC_TH_UNOPT_SHARE) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
			f = add_cause(c, "unoptimized-op", sev, &k);
			f->value = pct;
			text(f, "'%s' takes %.1f %% of device op time but reaches only %.1f %% of its "
				"roofline bound (%s, %.2f FLOP/B, %s, %s; thresholds "
				"share >= %.0f %%, efficiency < %.0f %%: tracectl, XProf roofline)",
				tc_model_str(c->m, r->name), pct, 100 * r->efficiency,
				tc_bound_name((enum tc_bound)r->bound), r->intensity,
				tc_fmt_rate(g.b[0], r->flop_rate > 0 ? r->flop_rate : 0, "FLOP/s"),
				tc_fmt_rate(g.b[1], r->byte_rate > 0 ? r->byte_rate : 0, "B/s"),
				th(c, TC_TH_UNOPT_SHARE), th(c, TC_TH_UNOPT_EFFICIENCY));
			tc_finding_add_fig(f, "device_op_time_share", pct, "%");
			tc_finding_add_fig(f, "roofline_efficiency", 100 * r->efficiency, "%");
			tc_finding_add_fig(f, "intensity", r->intensity, "FLOP/B");
			advise(c, f, TC_ADV_UNOPTIMIZED_OP);
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
	{ "fragmented-memory", rule_fragmented_memory },
	{ "host-bound, launch-bound", rule_host_launch },
	{ "idle-device", rule_idle_device },
	{ "input-bound", rule_input_bound },
	{ "memory-bound", rule_memory_bound },
	{ "memory-leak", rule_memory_leak },
	{ "memory-pressure", rule_memory_pressure },
	{ "pageable-copies", rule_pageable_copies },
	{ "recompilation", rule_recompilation },
	{ "small-batch", rule_small_batch },
	{ "straggler", rule_straggler },
	{ "sync-bound", rule_sync_bound },
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
		struct tc_analysis *a) {
	struct rule_ctx c = { .m = m, .o = o, .a = a };
	c.split_wait = straggler_wait_pct(&c) >= 0;
	/* A job's rank alone records slots for its label (tc_ftext). */
	c.slots = o->rank_slots && tc_model_n_ranks(m) < 2;
	c.label = labels(m);
	run_rules(&c, NULL);
	tc_rules_compute(m, o, a);
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
