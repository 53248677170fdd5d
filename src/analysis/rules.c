#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
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
};

static char *vfmt(const char *fmt, va_list ap) {
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *s = tc_xmalloc((size_t)(n > 0 ? n : 0) + 1);
	vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	return s;
}

static struct tc_finding *add(struct rule_ctx *c, const char *kind, enum tc_severity sev,
		double value) {
	TC_GROW(c->a->findings, c->cap, c->a->n_findings + 1);
	struct tc_finding *f = &c->a->findings[c->a->n_findings++];
	*f = (struct tc_finding){ .kind = kind, .severity = (uint8_t)sev, .value = value,
		.device = TC_NONE };
	return f;
}

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

/* The advice table's text for this trace's framework and runtime. */
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

static double ms(int64_t ps) {
	return (double)ps / 1e9;
}

static double step_pct(const struct rule_ctx *c, int64_t ps) {
	return c->a->step_total_ps > 0 ? 100.0 * (double)ps / (double)c->a->step_total_ps : 0;
}

/* Window of the counted steps, and the steps where the category is largest. */
static void step_window(const struct rule_ctx *c, struct tc_finding *f, int cat1, int cat2) {
	const struct tc_analysis *a = c->a;
	if (!a->n_steps) {
		return;
	}
	f->window_lo_ps = a->steps[0].start_ps;
	f->window_hi_ps = a->steps[a->n_steps - 1].start_ps + a->steps[a->n_steps - 1].dur_ps;
	if (cat1 < 0) {
		return;
	}
	/* The steps where the category is largest: a selection of a few. */
	size_t taken[TC_FINDING_MAX_ITEMS];
	while (f->n_steps < TC_FINDING_MAX_ITEMS) {
		int64_t best = 0;
		size_t bi = SIZE_MAX;
		for (size_t i = 0; i < a->n_steps; i++) {
			bool used = false;
			for (size_t j = 0; j < f->n_steps; j++) {
				used |= taken[j] == i;
			}
			int64_t v = a->steps[i].cat_ps[cat1] + (cat2 >= 0 ? a->steps[i].cat_ps[cat2] : 0);
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

static const char *dev_name(const struct rule_ctx *c, uint32_t d) {
	return d < c->m->n_devices ? tc_model_str(c->m, c->m->devices[d].name) : "host";
}

static const struct tc_device_util *bd_util(const struct rule_ctx *c) {
	for (size_t k = 0; k < c->a->n_util; k++) {
		if (c->a->util[k].device == c->a->bd_device) {
			return &c->a->util[k];
		}
	}
	return NULL;
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

static void rule_communication(struct rule_ctx *c) {
	double pct = step_pct(c, c->a->cat_total_ps[TC_BD_COLLECTIVE]);
	enum tc_severity sev = bands(c, pct, TC_TH_COMM_MODERATE, TC_TH_COMM_HIGH);
	if (!sev) {
		return;
	}
	const struct tc_device_util *u = bd_util(c);
	struct tc_finding *f = add(c, "communication", sev, pct);
	f->device = c->a->bd_device;
	text(f, "exposed collective time (not hidden behind compute or copies) is %.1f %% of "
		"step time over %zu steps; collectives run %.3f ms in total, %.1f %% of it "
		"overlapped with compute on %s (bands %.0f/%.0f %%: XProf)",
		pct, c->a->n_steps_counted, u ? ms(u->comm_ps) : 0,
		u && u->comm_ps ? 100.0 * (double)u->overlap_ps / (double)u->comm_ps : 0,
		dev_name(c, c->a->bd_device), th(c, TC_TH_COMM_MODERATE), th(c, TC_TH_COMM_HIGH));
	advise(c, f, TC_ADV_COMMUNICATION);
	step_window(c, f, TC_BD_COLLECTIVE, -1);
	top_ops(c, f, KB(TC_OP_COLLECTIVE), -1);
}

static void rule_compilation(struct rule_ctx *c) {
	const struct tc_compile_stats *cs = &c->a->compile;
	double pct = c->a->span_ps > 0 ? 100.0 * (double)cs->union_ps / (double)c->a->span_ps : 0;
	enum tc_severity sev = bands(c, pct, TC_TH_COMPILE_MODERATE, TC_TH_COMPILE_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add(c, "compilation", sev, pct);
	text(f, "compilation takes %.3f ms, %.1f %% of the %.3f ms trace (%llu compile events; "
		"bands %.0f/%.0f %%: tracectl defaults)", ms(cs->union_ps), pct, ms(c->a->span_ps),
		(unsigned long long)cs->n_events, th(c, TC_TH_COMPILE_MODERATE),
		th(c, TC_TH_COMPILE_HIGH));
	advise(c, f, TC_ADV_COMPILE);
	f->window_lo_ps = cs->first_ps;
	f->window_hi_ps = cs->last_ps;
	for (size_t i = 0; i < cs->n_recompiled && f->n_ops < TC_FINDING_MAX_ITEMS; i++) {
		f->ops[f->n_ops++] = cs->recompiled[i].name;
	}
}

static double bound_share(const struct rule_ctx *c, int bound) {
	const struct tc_op_table *t = &c->a->ops;
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i].bound == bound) {
			sum += t->rows[i].total_ps;
		}
	}
	return t->busy_ps > 0 ? 100.0 * (double)sum / (double)t->busy_ps : 0;
}

static void rule_compute_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_COMPUTE);
	if (pct < th(c, TC_TH_COMPUTE_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	struct tc_finding *f = add(c, "compute-bound", TC_SEV_LOW, pct);
	text(f, "%.1f %% of device op time is in compute-bound ops (intensity above the ridge "
		"point %.1f FLOP/B; peaks from %s; threshold %.0f %%: XProf)", pct,
		c->a->ops.ridge, c->a->ops.peak_source, th(c, TC_TH_COMPUTE_BOUND));
	advise(c, f, TC_ADV_COMPUTE_BOUND);
	top_ops(c, f, ~0u, TC_BOUND_COMPUTE);
}

static void rule_host_bound(struct rule_ctx *c) {
	double pct = step_pct(c, c->a->cat_total_ps[TC_BD_HOST]);
	enum tc_severity sev = bands(c, pct, TC_TH_HOST_MODERATE, TC_TH_HOST_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add(c, "host-bound", sev, pct);
	f->device = c->a->bd_device;
	text(f, "the host runs framework/Python code while %s has nothing to do for %.1f %% of "
		"step time over %zu steps, %.3f ms per step (bands %.0f/%.0f %%: XProf all-other "
		"time, likely Python overhead)", dev_name(c, c->a->bd_device), pct,
		c->a->n_steps_counted, c->a->n_steps_counted ?
			ms(c->a->cat_total_ps[TC_BD_HOST]) / (double)c->a->n_steps_counted : 0,
		th(c, TC_TH_HOST_MODERATE), th(c, TC_TH_HOST_HIGH));
	advise(c, f, TC_ADV_HOST);
	step_window(c, f, TC_BD_HOST, -1);
	top_ops(c, f, KB(TC_OP_HOST_OP) | KB(TC_OP_PYTHON), -1);
}

static void rule_idle_device(struct rule_ctx *c) {
	const struct tc_device_util *worst = NULL;
	double worst_util = 101;
	size_t n_low = 0, n_considered = 0;
	int64_t max_busy = 0;
	for (size_t k = 0; k < c->a->n_util; k++) {
		max_busy = c->a->util[k].busy_ps > max_busy ? c->a->util[k].busy_ps : max_busy;
	}
	for (size_t k = 0; k < c->a->n_util; k++) {
		const struct tc_device_util *u = &c->a->util[k];
		int64_t span = u->last_ps - u->first_ps;
		/* A device with a sliver of the work (under 1 % of the busiest
		 * one's) is incidental, not the one to tune. */
		if (span <= 0 || (double)u->busy_ps < 0.01 * (double)max_busy) {
			continue;
		}
		n_considered++;
		double util = 100.0 * (double)u->busy_ps / (double)span;
		if (util < th(c, TC_TH_IDLE_UTIL)) {
			n_low++;
			if (util < worst_util) {
				worst_util = util;
				worst = u;
			}
		}
	}
	if (!worst) {
		return;
	}
	double idle = 100 - worst_util;
	enum tc_severity sev = worst_util < th(c, TC_TH_IDLE_UTIL_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "idle-device", sev, idle);
	f->device = worst->device;
	int64_t span = worst->last_ps - worst->first_ps;
	char wait[96] = "the trace has no launch links to tell how much waits on the host";
	if (worst->n_launches) {
		snprintf(wait, sizeof(wait), "%.1f %% of the idle time waits on the host",
			worst->idle_ps > 0 ?
			100.0 * (double)worst->idle_host_wait_ps / (double)worst->idle_ps : 0);
	}
	text(f, "%s is busy %.1f %% of its active span (%.3f of %.3f ms, first to last op; "
		"%zu of %zu devices with a real share of the work under %.0f %%: TBP rule 5 / NSYS "
		"gpu_time_util); %s",
		dev_name(c, worst->device), worst_util, ms(worst->busy_ps), ms(span), n_low,
		n_considered, th(c, TC_TH_IDLE_UTIL), wait);
	advise(c, f, TC_ADV_IDLE);
	f->window_lo_ps = worst->first_ps;
	f->window_hi_ps = worst->last_ps;
}

static void rule_input_bound(struct rule_ctx *c) {
	double pct = step_pct(c, c->a->cat_total_ps[TC_BD_INPUT]);
	enum tc_severity sev = bands(c, pct, TC_TH_INPUT_MODERATE, TC_TH_INPUT_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add(c, "input-bound", sev, pct);
	text(f, "waiting for input (data loader / input pipeline / infeed, not hidden behind "
		"device work) is %.1f %% of step time over %zu steps, %.3f ms per step "
		"(bands %.0f/%.0f %%: XProf, TBP rule 1)", pct, c->a->n_steps_counted,
		c->a->n_steps_counted ? ms(c->a->cat_total_ps[TC_BD_INPUT]) /
			(double)c->a->n_steps_counted : 0,
		th(c, TC_TH_INPUT_MODERATE), th(c, TC_TH_INPUT_HIGH));
	advise(c, f, TC_ADV_INPUT);
	step_window(c, f, TC_BD_INPUT, -1);
	top_ops(c, f, KB(TC_OP_DATALOAD), -1);
}

static void rule_launch_bound(struct rule_ctx *c) {
	double launch = step_pct(c, c->a->cat_total_ps[TC_BD_LAUNCH]);
	const struct tc_device_util *u = bd_util(c);
	int64_t span = u ? u->last_ps - u->first_ps : 0;
	double wait = span > 0 ? 100.0 * (double)u->idle_host_wait_ps / (double)span : 0;
	double pct = launch > wait ? launch : wait;
	enum tc_severity sev = bands(c, pct, TC_TH_LAUNCH_MODERATE, TC_TH_LAUNCH_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add(c, "launch-bound", sev, pct);
	f->device = c->a->bd_device;
	char delay[64] = "unknown";
	if (u && u->launch_delay_p50_ps >= 0) {
		double d = (double)u->launch_delay_p50_ps;
		snprintf(delay, sizeof(delay), d >= 1e9 ? "%.3f ms" : "%.3f us", d >= 1e9 ? d / 1e9 : d / 1e6);
	}
	char gaps[240] = "no launch links in the trace to measure host-wait gaps";
	if (u && u->n_launches) {
		snprintf(gaps, sizeof(gaps), "%.1f %% of its active span is idle gaps ended by ops "
			"launched after the gap began (%llu gaps; %.3f ms more in gaps under %.0f us "
			"between queued ops)", wait, (unsigned long long)u->n_gaps_host_wait,
			ms(u->idle_kernel_wait_ps), th(c, TC_TH_KERNEL_WAIT_US));
	}
	text(f, "the device waits on the host: %s, and host launch/runtime calls with "
		"the device idle are %.1f %% of step time; %llu of %llu kernels are shorter than "
		"%.0f us, median launch delay %s (bands %.0f/%.0f %%: XProf kernel launch; "
		"host wait: HTA)", gaps, launch,
		u ? (unsigned long long)u->n_short_kernels : 0ull,
		u ? (unsigned long long)u->n_kernels : 0ull, th(c, TC_TH_SHORT_KERNEL_US), delay,
		th(c, TC_TH_LAUNCH_MODERATE), th(c, TC_TH_LAUNCH_HIGH));
	advise(c, f, TC_ADV_LAUNCH);
	step_window(c, f, TC_BD_LAUNCH, -1);
	if (u) {
		f->window_lo_ps = u->first_ps;
		f->window_hi_ps = u->last_ps;
	}
}

static void rule_memory_bound(struct rule_ctx *c) {
	double pct = bound_share(c, TC_BOUND_MEMORY);
	if (pct < th(c, TC_TH_MEMORY_BOUND) || !c->a->ops.peak_source) {
		return;
	}
	enum tc_severity sev = pct >= th(c, TC_TH_MEMORY_BOUND_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = add(c, "memory-bound", sev, pct);
	text(f, "%.1f %% of device op time is in memory-bound ops (FLOP/byte below the ridge "
		"point %.1f = %.0f GFLOP/s / %.0f GB/s, peaks from %s; thresholds %.0f/%.0f %%: "
		"tracectl, XProf)", pct, c->a->ops.ridge, c->a->ops.peak_flops / 1e9,
		c->a->ops.peak_bw / 1e9, c->a->ops.peak_source, th(c, TC_TH_MEMORY_BOUND),
		th(c, TC_TH_MEMORY_BOUND_HIGH));
	advise(c, f, TC_ADV_MEMORY_BOUND);
	top_ops(c, f, ~0u, TC_BOUND_MEMORY);
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
	struct tc_finding *f = add(c, "memory-pressure", sev, wp);
	f->device = worst->device;
	text(f, "peak %s on %s is %.2f GiB, %.1f %% of the device's %.2f GiB (threshold "
		"%.0f %%: TBP rule 7)", tc_model_str(c->m, worst->name), dev_name(c, worst->device),
		worst->peak_bytes / 1073741824.0, wp, (double)worst->capacity_bytes / 1073741824.0,
		th(c, TC_TH_MEM_PRESSURE));
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
	struct tc_finding *f = add(c, "pageable-copies", sev, pct);
	text(f, "%llu host<->device copies use pageable host memory (%.1f %% of copied bytes; "
		"NSYS cuda_memcpy_async): they are staged through a bounce buffer and cannot "
		"overlap with compute", (unsigned long long)n, pct);
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
		if (!tc_model_arg_find(m, m->ev.args[i], m->key.memory_kind, &k) ||
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
	text(f, "%zu programs were compiled more than once; '%s' %llu times (%.3f ms); "
		"compilation is %.1f %% of the trace (threshold %.0f compiles: tracectl)",
		cs->n_recompiled, tc_model_str(c->m, cs->recompiled[0].name),
		(unsigned long long)cs->recompiled[0].count, ms(cs->recompiled[0].total_ps), pct,
		th(c, TC_TH_RECOMPILE_COUNT));
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

/* In a collective every rank waits for the slowest one, so the straggler is
 * the device that spends the least time in collectives. */
static void rule_straggler(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
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
	text(f, "%s spends %.3f ms in collectives, %.1f %% less than the median %.3f ms of the "
		"%zu devices with collectives: the others wait for it (threshold %.0f %%: tracectl, "
		"after HTA's straggler analysis)", dev_name(c, low->device), ms(low->comm_ps), skew,
		med / 1e9, n, th(c, TC_TH_STRAGGLER_SKEW));
	advise(c, f, TC_ADV_STRAGGLER);
	f->window_lo_ps = low->first_ps;
	f->window_hi_ps = low->last_ps;
}

static void rule_transfer_bound(struct rule_ctx *c) {
	const struct tc_analysis *a = c->a;
	int64_t t = a->cat_total_ps[TC_BD_H2D] + a->cat_total_ps[TC_BD_D2H] +
		a->cat_total_ps[TC_BD_D2D];
	double pct = step_pct(c, t);
	enum tc_severity sev = bands(c, pct, TC_TH_TRANSFER_MODERATE, TC_TH_TRANSFER_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = add(c, "transfer-bound", sev, pct);
	f->device = a->bd_device;
	/* Per-step figures come from the counted steps only (the selected range,
	 * warm-up and partial steps excluded), like the percentages. */
	double n = a->n_steps_counted ? (double)a->n_steps_counted : 1;
	struct tc_xfer_stats x[TC_XFER_COUNT] = { 0 };
	size_t n_full = 0;
	for (size_t s = 0; s < a->n_steps; s++) {
		n_full += !a->steps[s].warmup && !a->steps[s].partial;
	}
	for (size_t s = 0; s < a->n_steps; s++) {
		const struct tc_step *st = &a->steps[s];
		if ((st->warmup || st->partial) && n_full > 0) {
			continue;
		}
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			x[d].count += st->xfer[d].count;
			x[d].bytes += st->xfer[d].bytes;
			x[d].bytes_dur_ps += st->xfer[d].bytes_dur_ps;
		}
	}
	double bw = 0;
	int64_t bdur = x[0].bytes_dur_ps + x[1].bytes_dur_ps;
	if (bdur > 0) {
		bw = (x[0].bytes + x[1].bytes) / ((double)bdur * 1e-12);
	}
	text(f, "copies not hidden behind compute are %.1f %% of step time (H2D %.1f %%, D2H "
		"%.1f %%, D2D %.1f %%); %.3g H2D + %.3g D2H + %.3g D2D copies per step, "
		"host<->device ones moving %.2f MiB, effective host<->device bandwidth %.2f GB/s "
		"(bands %.0f/%.0f %%: XProf)", pct,
		step_pct(c, a->cat_total_ps[TC_BD_H2D]), step_pct(c, a->cat_total_ps[TC_BD_D2H]),
		step_pct(c, a->cat_total_ps[TC_BD_D2D]), (double)x[0].count / n,
		(double)x[1].count / n, (double)x[2].count / n,
		(x[0].bytes + x[1].bytes) / n / 1048576.0, bw / 1e9,
		th(c, TC_TH_TRANSFER_MODERATE), th(c, TC_TH_TRANSFER_HIGH));
	advise(c, f, TC_ADV_TRANSFER);
	step_window(c, f, TC_BD_H2D, TC_BD_D2H);
	top_ops(c, f, KB(TC_OP_MEMCPY_H2D) | KB(TC_OP_MEMCPY_D2H) | KB(TC_OP_MEMCPY_D2D) |
		KB(TC_OP_MEMCPY_OTHER), -1);
}

static void rule_unoptimized_op(struct rule_ctx *c) {
	const struct tc_op_table *t = &c->a->ops;
	struct tc_finding *f = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		if (r->efficiency < 0 || 100 * r->share < th(c, TC_TH_UNOPT_SHARE) ||
				100 * r->efficiency >= th(c, TC_TH_UNOPT_EFFICIENCY)) {
			continue;
		}
		if (!f) {
			double pct = 100 * r->share;
			enum tc_severity sev = pct >= 3 * th(c, TC_TH_UNOPT_SHARE) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
			f = add(c, "unoptimized-op", sev, pct);
			text(f, "'%s' takes %.1f %% of device op time but reaches only %.1f %% of its "
				"roofline bound (%s, %.2f FLOP/B, %.2f TFLOP/s, %.2f GB/s; thresholds "
				"share >= %.0f %%, efficiency < %.0f %%: tracectl, XProf roofline)",
				tc_model_str(c->m, r->name), pct, 100 * r->efficiency,
				tc_bound_name((enum tc_bound)r->bound), r->intensity,
				r->flop_rate > 0 ? r->flop_rate / 1e12 : 0,
				r->byte_rate > 0 ? r->byte_rate / 1e9 : 0,
				th(c, TC_TH_UNOPT_SHARE), th(c, TC_TH_UNOPT_EFFICIENCY));
			advise(c, f, TC_ADV_UNOPTIMIZED_OP);
		}
		if (f->n_ops < TC_FINDING_MAX_ITEMS) {
			f->ops[f->n_ops++] = r->name;
		}
	}
}

#undef KB

static const struct {
	const char *name;
	void (*run)(struct rule_ctx *c);
} rules[] = {
	{ "communication", rule_communication },
	{ "compilation", rule_compilation },
	{ "compute-bound", rule_compute_bound },
	{ "host-bound", rule_host_bound },
	{ "idle-device", rule_idle_device },
	{ "input-bound", rule_input_bound },
	{ "launch-bound", rule_launch_bound },
	{ "memory-bound", rule_memory_bound },
	{ "memory-pressure", rule_memory_pressure },
	{ "pageable-copies", rule_pageable_copies },
	{ "recompilation", rule_recompilation },
	{ "straggler", rule_straggler },
	{ "transfer-bound", rule_transfer_bound },
	{ "unoptimized-op", rule_unoptimized_op },
};

static int cmp_finding(const void *pa, const void *pb) {
	const struct tc_finding *a = pa, *b = pb;
	if (a->severity != b->severity) {
		return a->severity > b->severity ? -1 : 1;
	}
	if (a->value != b->value) {
		return a->value > b->value ? -1 : 1;
	}
	return strcmp(a->kind, b->kind);
}

void tc_analyze_rules(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_analysis *a) {
	struct rule_ctx c = { .m = m, .o = o, .a = a };
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		rules[i].run(&c);
	}
	tc_sort(a->findings, a->n_findings, sizeof(*a->findings), cmp_finding);
}
