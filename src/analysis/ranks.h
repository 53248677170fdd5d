#ifndef TC_ANALYSIS_RANKS_H
#define TC_ANALYSIS_RANKS_H

/*
 * Multi-rank analysis, one path for a model of several ranks and a job
 * of digests (docs/analysis.md, "Multi-rank"): each rank's results alone
 * (its analysis on its own devices and clock, its collectives'
 * occurrences), then the job composed from them: the rank table, the
 * spread across ranks, the collectives matched across ranks (who arrived
 * last, who waited, bandwidth) and each device's wait for the late rank.
 */

#include "analysis/analyze.h"
#include "analysis/intervals.h"
#include "model/model.h"
#include "model/ranks.h"

/* Each rank of a model of two or more, analysed alone on a sub-model of
 * its hosts: its row of the rank table, its analysis (names as the
 * model's ids) and its collectives' occurrences. Empty (n == 0) for
 * fewer than two ranks. */
struct tc_coll_rows;
struct tc_rank_parts {
	struct tc_rank_result *v;   /* by rank */
	struct tc_analysis *per;    /* rank k's own analysis */
	size_t n;
	int32_t world_size;         /* largest the traces say, 0 unknown */
	struct tc_coll_rows *rows;  /* every rank's occurrence table */
};
void tc_rank_parts_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_rank_parts *p);
void tc_rank_parts_finish(struct tc_rank_parts *p);

/* Where the composer reads rank k's steps (as a tc_step_source get), and
 * how it gives job's devices of rank k (numbered rank) their wait for the
 * late rank (waits: k's, on the clock of its steps). */
struct tc_step_times;
struct tc_rank_source {
	void (*steps)(void *ctx, size_t k, struct tc_step_times *t);
	void (*wait)(void *ctx, size_t k, int32_t rank, const struct tc_ivals *waits,
		struct tc_analysis *job);
	void *ctx;
};

/*
 * Compose r (its rows filled, one per rank) into the job's: the spread,
 * the collectives matched from rows (consumed; names: the string table
 * their ids are of). With job (NULL: none wanted), each rank's wait for
 * the late rank goes to job's devices through src->wait when the
 * straggler finding is due (tc_straggler_due_pct), and the waits (r->n
 * lists, malloc'd, each to finish) are returned; else NULL.
 */
struct tc_intern;
struct tc_ivals *tc_ranks_compose(struct tc_ranks *r, struct tc_coll_rows *rows,
	const struct tc_intern *names, const struct tc_rank_source *src,
	const struct tc_analysis_opts *o, struct tc_analysis *job);

#endif
