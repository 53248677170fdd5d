/*
 * The memory rules: memory the caching allocator holds but never uses at
 * once (fragmented-memory), live memory that grows at every step end
 * (memory-leak) and a peak near the device's capacity (memory-pressure).
 * None explains step time. Run from the rule table in rules.c.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "analysis/memview.h"
#include "analysis/rules_private.h"
#include "util/numfmt.h"
#include "util/xalloc.h"

/*
 * Memory the caching allocator holds but never had in use at once: per
 * device and allocator, (peak reserved - peak allocated) / peak reserved.
 * Measured over the trace rather than at the reserved peak: there the
 * allocations may just have been freed, which is caching, not waste. Host
 * (CPU) counters are left out: XProf memory profiles put XLA's stack
 * reservation there as memory.reserved, not a pool around the allocations.
 * Not a cause of step time: it explains none.
 */
void tc_rule_fragmented_memory(struct rule_ctx *c) {
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
		bool big = p->peak_bytes >= tc_rule_th(c, TC_TH_FRAG_MIN_SIZE) * 1073741824.0 ||
			(p->capacity_bytes > 0 && 100.0 * p->peak_bytes / (double)p->capacity_bytes >=
			tc_rule_th(c, TC_TH_FRAG_MIN_DEVICE));
		double pct = 100.0 * (p->peak_bytes - al->peak_bytes) / p->peak_bytes;
		if (big && pct >= tc_rule_th(c, TC_TH_FRAG_SHARE) && (!worst || pct > wp)) {
			worst = p;
			wp = pct;
			wa = al->peak_bytes;
		}
	}
	if (!worst) {
		return;
	}
	enum tc_severity sev = wp >= tc_rule_th(c, TC_TH_FRAG_HIGH) ? TC_SEV_HIGH : TC_SEV_MEDIUM;
	struct tc_finding *f = tc_rule_add(c, "fragmented-memory", sev, wp);
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
	tc_rule_add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, "%s reserves up to %s but allocates at most %s: %.1f %% of the "
		"reserved pool, %s, is held by the allocator and never in use at once%s "
		"(thresholds %.0f/%.0f %% of at least %.0f GiB or %.0f %% of the device: tracectl, after the "
		"PyTorch caching allocator and TBP memory view)", grp,
		tc_fmt_bytes(g.b[1], worst->peak_bytes), tc_fmt_bytes(g.b[2], wa), wp,
		tc_fmt_bytes(g.b[3], worst->peak_bytes - wa), cap,
		tc_rule_th(c, TC_TH_FRAG_SHARE), tc_rule_th(c, TC_TH_FRAG_HIGH),
		tc_rule_th(c, TC_TH_FRAG_MIN_SIZE), tc_rule_th(c, TC_TH_FRAG_MIN_DEVICE));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "reserved_peak", worst->peak_bytes, "B");
	tc_finding_add_fig(f, "allocated_peak", wa, "B");
	tc_finding_add_fig(f, "never_in_use_share", wp, "%");
	tc_rule_advise(c, f, TC_ADV_FRAGMENTED_MEMORY);
	f->window_lo_ps = worst->peak_ts_ps;
	f->window_hi_ps = worst->peak_ts_ps;
}

/*
 * Live memory that grows at every step end, with allocations never freed:
 * a leak-like pattern (a cache, a tensor list or autograd history kept
 * across steps). The allocator whose growth is the largest share of its
 * peak; the ops named are those whose allocations were never freed.
 */
void tc_rule_memory_leak(struct rule_ctx *c) {
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
	if (!worst || wp < tc_rule_th(c, TC_TH_MEM_LEAK)) {
		return;
	}
	const struct tc_step *s0 = &c->a->steps[0], *s1 = &c->a->steps[n - 1];
	struct tc_finding *f = tc_rule_add(c, "memory-leak", wp >= 10 * tc_rule_th(c, TC_TH_MEM_LEAK) ?
		TC_SEV_HIGH : TC_SEV_MEDIUM, wp);
	f->device = worst->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_add(&t, "live memory on ");
	tc_rule_add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, " grows at every one of %zu step ends, from %s after "
		"step %" PRId64 " to %s after step %" PRId64 " (+%s per step, %.1f %% of its peak; "
		"threshold %.0f %%: tracectl), with %s never freed", n,
		tc_fmt_bytes(g.b[0], (double)w_first), s0->num, tc_fmt_bytes(g.b[1], (double)w_last),
		s1->num, tc_fmt_bytes(g.b[2], (double)(w_last - w_first) / (double)(n - 1)), wp,
		tc_rule_th(c, TC_TH_MEM_LEAK), tc_fmt_noun(g.b[3], worst->never_freed, "allocation",
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
	tc_rule_advise(c, f, TC_ADV_MEMORY_LEAK);
	f->window_lo_ps = s0->start_ps;
	f->window_hi_ps = s1->start_ps + s1->dur_ps;
}

void tc_rule_memory_pressure(struct rule_ctx *c) {
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
	if (!worst || wp <= tc_rule_th(c, TC_TH_MEM_PRESSURE)) {
		return;
	}
	enum tc_severity sev = wp >= tc_rule_th(c, TC_TH_MEM_PRESSURE_CRITICAL) ? TC_SEV_CRITICAL :
		TC_SEV_HIGH;
	/* A serving engine fills memory with its KV-cache pool on purpose: what
	 * the advice calls by design is at most low (issue 48, class 9). */
	uint8_t fw = c->a->runtime.framework;
	if (fw == TC_FW_VLLM || fw == TC_FW_SGLANG) {
		sev = TC_SEV_LOW;
	}
	struct tc_finding *f = tc_rule_add(c, "memory-pressure", sev, wp);
	f->device = worst->device;
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "peak %s on ", tc_model_str(c->m, worst->name));
	tc_rule_add_dev(c, &t, worst->device);
	tc_ftext_addf(&t, " is %s, %.1f %% of the device's %s (threshold %.0f %%: TBP rule 7)",
		tc_fmt_bytes(g.b[0], worst->peak_bytes), wp,
		tc_fmt_bytes(g.b[1], (double)worst->capacity_bytes),
		tc_rule_th(c, TC_TH_MEM_PRESSURE));
	tc_memview_holders_clause(c->m, &c->a->memview, worst->device, f, &t.sb);
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "peak", worst->peak_bytes, "B");
	tc_finding_add_fig(f, "capacity", (double)worst->capacity_bytes, "B");
	tc_finding_add_fig(f, "capacity_share", wp, "%");
	tc_rule_advise(c, f, TC_ADV_MEMORY_PRESSURE);
	f->window_lo_ps = worst->peak_ts_ps;
	f->window_hi_ps = worst->peak_ts_ps;
}
