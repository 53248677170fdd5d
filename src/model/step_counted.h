#ifndef TC_MODEL_STEP_COUNTED_H
#define TC_MODEL_STEP_COUNTED_H

/*
 * The one rule for which steps every per-step total counts (the
 * breakdown's totals, the rank table, the straggler's wait, digests,
 * check, diff): warm-up and partial steps are reported but left out,
 * unless no other step is left. Every caller asks here, so the figures
 * of one trace, its digest and its job agree.
 */

#include <stdbool.h>
#include <stddef.h>
#include "model/findings.h"

/* Steps of v[0..n) that are neither warm-up nor partial. */
static inline size_t tc_steps_full(const struct tc_step *v, size_t n) {
	size_t full = 0;
	for (size_t i = 0; i < n; i++) {
		full += !v[i].warmup && !v[i].partial;
	}
	return full;
}

/* Whether s counts, among steps of which n_full are full (tc_steps_full). */
static inline bool tc_step_counted(const struct tc_step *s, size_t n_full) {
	return n_full == 0 || !(s->warmup || s->partial);
}

/* The same for a step of a once its breakdown counted them: its
 * n_steps_counted is its full steps, or every step when all or none is
 * full (and every step then counts). */
static inline bool tc_step_counted_in(const struct tc_analysis *a, const struct tc_step *s) {
	return tc_step_counted(s, a->n_steps_counted < a->n_steps ? a->n_steps_counted : 0);
}

#endif
