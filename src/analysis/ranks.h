#ifndef TC_ANALYSIS_RANKS_H
#define TC_ANALYSIS_RANKS_H

/*
 * Multi-rank analysis: each rank's step attribution on its own devices
 * and clock, the spread across ranks, and the collectives matched across
 * ranks (who arrived last, who waited, bandwidth). tc_analyze runs it for
 * steps and findings when the model holds two or more ranks; others (a
 * per-rank digest) may call it directly. Definitions: docs/analysis.md,
 * "Multi-rank".
 */

#include "analysis/analyze.h"
#include "model/model.h"
#include "model/ranks.h"

/* Fill r (finish it with tc_ranks_finish) from a finalized model; r stays
 * empty when the model holds fewer than two ranks. */
void tc_ranks_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_ranks *r);

#endif
