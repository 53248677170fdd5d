#ifndef TC_ANALYSIS_COLL_GATHER_H
#define TC_ANALYSIS_COLL_GATHER_H

/*
 * A rank's collective occurrence table (model/coll_table.h) from a model
 * holding that rank: the per-rank sub-model of a job, or one rank's trace
 * for its digest.
 */

#include "model/coll_table.h"
#include "model/model.h"

/* Fill t (initialised, empty) with the collectives of the rank of host h
 * of m (m->hosts[h].rank): device collectives on the device of that rank
 * with the most, else (Gloo) the host's annotations named "gloo:...";
 * times are m's. */
void tc_coll_table_build(const struct tc_model *m, uint32_t h, struct tc_coll_table *t);

/* The host whose rank a one-rank trace's table is built for: its first
 * host with a rank, else its first. */
uint32_t tc_coll_table_host(const struct tc_model *m);

#endif
