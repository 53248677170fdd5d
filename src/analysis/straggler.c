/* The others' wait for the late rank of a job (straggler.h). */
#include "analysis/passes.h"
#include "analysis/straggler.h"
#include "util/num.h"

double tc_straggler_due_pct(const struct tc_ranks *r, const struct tc_analysis_opts *o) {
	if (!r->n_coll || !r->lined_up || r->v[r->straggler].caused_ps <= 0) {
		return -1;
	}
	double others = 0;
	for (size_t i = 0; i < r->n; i++) {
		others += i == r->straggler ? 0 : (double)r->v[i].step_ps * (double)r->v[i].n_steps;
	}
	double pct = others > 0 ? 100.0 * (double)r->v[r->straggler].caused_ps / others : 0;
	return pct >= o->th[TC_TH_STRAGGLER_WAIT] ? pct : -1;
}

int64_t tc_straggler_step_wait(const struct tc_ivals *waits, int64_t lo, int64_t hi,
		int64_t collective_ps) {
	int64_t w = tc_ivals_length_in(waits, lo, hi);
	return w < collective_ps ? w : collective_ps > 0 ? collective_ps : 0;
}

int64_t tc_straggler_wait(const struct tc_ivals *waits, const struct tc_step_times *t,
		const int64_t *coll, int64_t *step_wait) {
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		int64_t w = tc_straggler_step_wait(waits, t->start[i], t->end[i], coll[i]);
		if (step_wait) {
			step_wait[i] = w;
		}
		sum = t->counted[i] ? tc_sat_add(sum, w) : sum;
	}
	return sum;
}
