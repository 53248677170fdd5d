/*
 * The host-side causes of step time: the host keeps the device waiting
 * (host-bound or launch-bound: one cause, one finding), the input
 * pipeline (input-bound) and host synchronisation (sync-bound). Each
 * names the host calls behind its time (host_evidence.c), one-off
 * start-up calls and single stalls among them. Run from the rule table
 * in rules.c.
 */
#include <stdint.h>
#include <stdio.h>
#include "analysis/host_evidence.h"
#include "analysis/rules_private.h"
#include "util/numfmt.h"

#define KB(k) (1u << (k))
#define CB(k) (1u << (k))

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
void tc_rule_host_launch(struct rule_ctx *c) {
	struct cause k;
	/* Without a device nothing waits on the host: host work is the work. */
	if (!c->a->n_attr) {
		return;
	}
	tc_rule_measure(c, CB(TC_BD_LAUNCH) | CB(TC_BD_HOST), TC_TH_LAUNCH_MODERATE, &k);
	if (k.explained_ps <= 0) {
		return;
	}
	const struct tc_device_util *u = tc_rule_util_of(c, k.device);
	bool short_kernels = u && u->n_kernels > 0 && 100.0 * (double)u->n_short_kernels /
		(double)u->n_kernels >= tc_rule_th(c, TC_TH_LAUNCH_SHORT_SHARE);
	bool short_delay = !u || u->launch_delay_p50_ps < 0 ||
		(double)u->launch_delay_p50_ps <= tc_rule_th(c, TC_TH_LAUNCH_DELAY_US) * 1e6;
	bool launch = short_kernels && short_delay;
	enum tc_severity sev = launch ?
		tc_rule_bands(c, k.pct, TC_TH_LAUNCH_MODERATE, TC_TH_LAUNCH_HIGH) :
		tc_rule_bands(c, k.pct, TC_TH_HOST_MODERATE, TC_TH_HOST_HIGH);
	if (!sev) {
		return;
	}
	int64_t step_ps;
	const int64_t *cat = tc_rule_cats_of(c, k.device, &step_ps);
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
			tc_rule_th(c, TC_TH_SHORT_KERNEL_US));
	}
	/* Allocator calls filling much of the finding's time (with the device
	 * idle) are no launches: the advice is to stop allocating, not to
	 * launch less. */
	uint64_t n_alloc;
	int64_t alloc_ps;
	tc_host_evidence_alloc(c->m, c->a, k.device, &n_alloc, &alloc_ps);
	bool alloc = (double)alloc_ps >=
		tc_rule_th(c, TC_TH_ALLOC_SHARE) / 100.0 * (double)k.explained_ps;
	char al[200] = "";
	if (alloc) {
		double n = c->a->n_steps_counted ? (double)c->a->n_steps_counted : 1;
		snprintf(al, sizeof(al), "; %.1f device memory allocator calls per step "
			"(cudaMalloc, cudaFree and the like) run %s per step with the device idle, "
			"%.1f %% of this time (>= %.0f %%: tracectl)", (double)n_alloc / n,
			tc_fmt_dur(g.b[6], (int64_t)((double)alloc_ps / n)),
			100.0 * (double)alloc_ps / (double)k.explained_ps, tc_rule_th(c, TC_TH_ALLOC_SHARE));
	}
	char su[512] = "";
	enum tc_advice_topic stall = stall_clause(c, &k, TC_OP_RUNTIME, su, sizeof(su));
	/* One-off calls and allocator calls are no launches: the advice is
	 * about them, not about launching less. */
	enum tc_advice_topic topic = stall != TC_ADV_COUNT ? stall : alloc ? TC_ADV_ALLOC :
		launch ? TC_ADV_LAUNCH : TC_ADV_HOST;
	struct tc_finding *f = tc_rule_add_cause(c, launch ? "launch-bound" : "host-bound", sev, &k);
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	if (launch) {
		tc_rule_add_dev(c, &t, k.device);
		tc_ftext_addf(&t, " waits on the host's per-op dispatch for %.1f %% of step time "
			"over %s, %s per step (%s in runtime/launch calls, %s in "
			"framework/Python code between them); %s, median launch delay %s%s%s "
			"(bands %.0f/%.0f %%: XProf kernel launch; delay <= %.0f us and >= %.0f %% "
			"short kernels: tracectl",
			k.pct, tc_rule_steps_noun(c, g.b[2]),
			tc_fmt_dur(g.b[3], tc_rule_per_step_ps(c, k.explained_ps)),
			tc_fmt_dur(g.b[4], tc_rule_per_step_ps(c, cat[TC_BD_LAUNCH])),
			tc_fmt_dur(g.b[5], tc_rule_per_step_ps(c, cat[TC_BD_HOST])), kern, delay, al, su,
			tc_rule_th(c, TC_TH_LAUNCH_MODERATE),
			tc_rule_th(c, TC_TH_LAUNCH_HIGH), tc_rule_th(c, TC_TH_LAUNCH_DELAY_US),
			tc_rule_th(c, TC_TH_LAUNCH_SHORT_SHARE));
	} else {
		tc_ftext_add(&t, "the host runs framework/Python code while ");
		tc_rule_add_dev(c, &t, k.device);
		tc_ftext_addf(&t, " has nothing to do for %.1f %% "
			"of step time over %s, %s per step (%s of it in runtime "
			"calls); %s: %s, median launch delay %s%s%s (bands %.0f/%.0f %%: "
			"XProf all-other time",
			k.pct, tc_rule_steps_noun(c, g.b[2]),
			tc_fmt_dur(g.b[3], tc_rule_per_step_ps(c, k.explained_ps)),
			tc_fmt_dur(g.b[4], tc_rule_per_step_ps(c, cat[TC_BD_LAUNCH])),
			/* The words follow the breakdown's numbers: with the launch
			 * category the larger, the calls are the cause, only not
			 * per-kernel launch overhead. */
			cat[TC_BD_LAUNCH] > cat[TC_BD_HOST] ?
				"runtime calls are most of it, but the kernels are not launch-limited" :
				"not launch-bound", kern, delay, al, su,
			tc_rule_th(c, TC_TH_HOST_MODERATE), tc_rule_th(c, TC_TH_HOST_HIGH));
	}
	tc_rule_finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "runtime_calls_per_step",
		1e-12 * (double)tc_rule_per_step_ps(c, cat[TC_BD_LAUNCH]), "s");
	tc_finding_add_fig(f, "framework_per_step",
		1e-12 * (double)tc_rule_per_step_ps(c, cat[TC_BD_HOST]), "s");
	if (u && u->n_kernels) {
		tc_finding_add_fig(f, "short_kernels", (double)u->n_short_kernels, "");
		tc_finding_add_fig(f, "kernels", (double)u->n_kernels, "");
	}
	if (u && u->launch_delay_p50_ps >= 0) {
		tc_finding_add_fig(f, "median_launch_delay", 1e-12 * (double)u->launch_delay_p50_ps,
			"s");
	}
	tc_rule_advise(c, f, topic);
	tc_rule_step_window(c, f, &k, CB(TC_BD_LAUNCH) | CB(TC_BD_HOST));
	tc_host_evidence_top_ops(c->m, c->a, f, launch ? KB(TC_OP_RUNTIME) | KB(TC_OP_HOST_OP) :
		KB(TC_OP_HOST_OP) | KB(TC_OP_PYTHON), true, KB(TC_OP_DATALOAD) | KB(TC_OP_SYNC) |
		KB(TC_OP_OVERHEAD) | KB(TC_OP_COMPILE), tc_pass_parallel(c->o, c->m->ev.n));
}

void tc_rule_input_bound(struct rule_ctx *c) {
	struct cause k;
	tc_rule_measure(c, CB(TC_BD_INPUT), TC_TH_INPUT_MODERATE, &k);
	enum tc_severity sev = tc_rule_bands(c, k.pct, TC_TH_INPUT_MODERATE, TC_TH_INPUT_HIGH);
	if (!sev) {
		return;
	}
	struct tc_finding *f = tc_rule_add_cause(c, "input-bound", sev, &k);
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_addf(&t, "waiting for input (data loader / input pipeline / infeed, not hidden "
		"behind device work) is %.1f %% of step time on ", k.pct);
	tc_rule_add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " over %s, %s per step (bands %.0f/%.0f %%: XProf, TBP rule 1",
		tc_rule_steps_noun(c, g.b[0]), tc_fmt_dur(g.b[1], tc_rule_per_step_ps(c, k.explained_ps)),
		tc_rule_th(c, TC_TH_INPUT_MODERATE), tc_rule_th(c, TC_TH_INPUT_HIGH));
	tc_rule_finish_cause(c, &t, &k);
	tc_rule_advise(c, f, TC_ADV_INPUT);
	tc_rule_step_window(c, f, &k, CB(TC_BD_INPUT));
	tc_rule_top_ops(c, f, KB(TC_OP_DATALOAD), -1);
	if (!f->n_ops) {
		tc_host_evidence_top_ops(c->m, c->a, f, KB(TC_OP_DATALOAD), false, 0,
			tc_pass_parallel(c->o, c->m->ev.n));
	}
}

/* Host synchronisation inside the step: the host blocked in a sync call
 * (cudaStreamSynchronize, blocking memcpy, .item(), block_until_ready)
 * while the device had nothing to do. */
void tc_rule_sync_bound(struct rule_ctx *c) {
	struct cause k;
	tc_rule_measure(c, CB(TC_BD_SYNC), TC_TH_SYNC_MODERATE, &k);
	enum tc_severity sev = tc_rule_bands(c, k.pct, TC_TH_SYNC_MODERATE, TC_TH_SYNC_HIGH);
	if (!sev) {
		return;
	}
	uint64_t calls;
	int64_t blocked, after;
	tc_host_evidence_sync(c->m, c->a, k.device, &calls, &blocked, &after);
	double n = c->a->n_steps_counted ? (double)c->a->n_steps_counted : 1;
	char su[512] = "";
	enum tc_advice_topic stall = stall_clause(c, &k, TC_OP_SYNC, su, sizeof(su));
	struct tc_finding *f = tc_rule_add_cause(c, "sync-bound", sev, &k);
	struct figs g;
	struct tc_ftext t;
	tc_ftext_init(&t, f, c->slots);
	tc_ftext_add(&t, "host synchronisation keeps ");
	tc_rule_add_dev(c, &t, k.device);
	tc_ftext_addf(&t, " idle for %.1f %% of step time over %s, "
		"%s per step (the host blocked in the call, then the idle until the device's "
		"next op, up to the device time the call waited on); %.1f sync calls per step block "
		"the host %s per step, and the device then idles %s per step until its next op"
		"%s (bands %.0f/%.0f %%: tracectl, after NSYS cuda_api_sync",
		k.pct, tc_rule_steps_noun(c, g.b[0]),
		tc_fmt_dur(g.b[1], tc_rule_per_step_ps(c, k.explained_ps)), (double)calls / n,
		tc_fmt_dur(g.b[2], (int64_t)((double)blocked / n)),
		tc_fmt_dur(g.b[3], (int64_t)((double)after / n)), su, tc_rule_th(c, TC_TH_SYNC_MODERATE),
		tc_rule_th(c, TC_TH_SYNC_HIGH));
	tc_rule_finish_cause(c, &t, &k);
	tc_finding_add_fig(f, "sync_calls_per_step", (double)calls / n, "");
	tc_finding_add_fig(f, "host_blocked_per_step", 1e-12 * (double)blocked / n, "s");
	tc_finding_add_fig(f, "idle_after_per_step", 1e-12 * (double)after / n, "s");
	tc_rule_advise(c, f, stall != TC_ADV_COUNT ? stall : TC_ADV_SYNC);
	tc_rule_step_window(c, f, &k, CB(TC_BD_SYNC));
	tc_host_evidence_top_ops(c->m, c->a, f, KB(TC_OP_SYNC), false, 0,
		tc_pass_parallel(c->o, c->m->ev.n));
}

#undef KB
#undef CB
