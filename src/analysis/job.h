#ifndef TC_ANALYSIS_JOB_H
#define TC_ANALYSIS_JOB_H

/*
 * A job of two or more ranks, analysed from its ranks' own results
 * (docs/analysis.md, "Multi-rank"): each rank is analysed alone into a
 * digest rank (Tracectl__Rank, tc_digest_add_rank_with), from its trace
 * or read from a digest, and the job is composed from those alone. So
 * `summarize`, `bottlenecks` and `steps` print the same from the digests
 * as from the traces, and reading a folder of ranks holds one rank's
 * model at a time.
 */

#include <stddef.h>
#include "analysis/analyze.h"
#include "digest.pb-c.h"
#include "model/findings.h"
#include "model/model.h"

/* Sort ranks[0..n) canonically (as a merged digest holds them) and build
 * their skeleton model (tc_digest_skeleton) with a host for every rank,
 * numbered as a merged model numbers them. Destroy it as usual. */
struct tc_model *tc_job_skeleton(Tracectl__Rank **ranks, size_t n);

/* The breakdown rank of sorted ranks[0..n): the first with device step
 * markers, else the one with the most host-marked steps, else the first.
 * Only its steps' categories and copies are read (TC_DIGEST_JOB); the
 * others' may be lean (TC_DIGEST_JOB_LEAN). */
size_t tc_job_breakdown_rank(Tracectl__Rank *const *ranks, size_t n);

/*
 * Fill a (finish it with tc_analysis_finish) with the job's analysis of
 * ranks[0..n) (n >= 2, sorted, skel from tc_job_skeleton):
 *   - the steps and breakdown of one rank (the breakdown rank: the first
 *     with device step markers, else the one with the most host-marked
 *     steps, else the first), every rank's own attribution;
 *   - the rank table, the collectives matched across ranks and each
 *     rank's wait for the late one;
 *   - the summary and the devices, ops, copies, memory and compilation of
 *     every rank, on the job's clock;
 *   - each rank's findings, the one that explains the most time of each
 *     kind kept and named with its rank, and the communication and
 *     straggler findings judged across the ranks.
 * o gives the thresholds the job's rules use; aside holds the ranks' bulk
 * (tc_digest_add_job_rank), NULL when they keep it.
 */
struct tc_spill;
void tc_job_compose(struct tc_model *skel, Tracectl__Rank *const *ranks, size_t n,
	const struct tc_spill *aside, const struct tc_analysis_opts *o, struct tc_analysis *a);

#endif
