#ifndef TC_ANALYSIS_STRAGGLER_H
#define TC_ANALYSIS_STRAGGLER_H

/*
 * The late rank of a job (tc_ranks.straggler) and the others' wait for
 * it at the collectives it reached last: whether the straggler finding
 * is due, and each waiting device's share of its collective time spent
 * waiting, step by step. One computation for a model of several ranks
 * (ranks.c) and a job composed from its ranks' results (job.c).
 */

#include <stdint.h>
#include "analysis/analyze.h"
#include "analysis/intervals.h"
#include "model/ranks.h"

/* The others' summed wait for r->straggler, % of their counted step
 * time, when the straggler finding is due: collectives matched that line
 * up, and a wait of at least o's straggler threshold. Else -1. */
double tc_straggler_due_pct(const struct tc_ranks *r, const struct tc_analysis_opts *o);

/* A waiting device's wait for the late rank in one step [lo, hi): its
 * waits inside the step, at most its collective time there. Had the late
 * rank come with the others, the step's collectives would have ended up
 * to that much sooner. */
int64_t tc_straggler_step_wait(const struct tc_ivals *waits, int64_t lo, int64_t hi,
	int64_t collective_ps);

/* A waiting device's wait over its rank's steps t (tc_step_times),
 * coll[i] its collective time in step i: each step's in step_wait (t->n
 * entries; NULL: not wanted), and the sum over the counted steps
 * returned. */
struct tc_step_times;
int64_t tc_straggler_wait(const struct tc_ivals *waits, const struct tc_step_times *t,
	const int64_t *coll, int64_t *step_wait);

#endif
