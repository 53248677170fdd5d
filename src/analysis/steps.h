#ifndef TC_ANALYSIS_STEPS_H
#define TC_ANALYSIS_STEPS_H

/* Steps as the analysis finds them (steps.c), and their statistics. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"

/* Index of the step containing t (steps sorted by start), or SIZE_MAX. */
size_t tc_step_at(const struct tc_step *steps, size_t n_steps, int64_t t);
/* The same for times in any order that mostly rise: *near, 0 at first,
 * keeps where the last one fell, tried (and the step after it) before a
 * search. */
size_t tc_step_at_near(const struct tc_step *steps, size_t n_steps, size_t *near, int64_t t);

/* Mean, median and p90 (nearest rank) of v[0..n), which is sorted here
 * (diff_side.c). */
void tc_step_stats(int64_t *v, size_t n, double *mean, double *median, double *p90);

/* A rank's steps as the collectives and the job read them, by start:
 * each one's start, end and number. */
struct tc_step_times {
	int64_t *start, *end, *num;
	bool *counted;          /* as the breakdown counts it */
	size_t n;
};
/* t (finish with tc_step_times_finish) from a's steps. */
void tc_step_times_from(const struct tc_analysis *a, struct tc_step_times *t);
void tc_step_times_finish(struct tc_step_times *t);
/* The step holding time ps, SIZE_MAX for none (as tc_step_at). */
size_t tc_step_times_at(const struct tc_step_times *t, int64_t ps);

#endif
