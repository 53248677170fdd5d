#ifndef TC_ANALYSIS_TIMELINE_H
#define TC_ANALYSIS_TIMELINE_H

#include "model/findings.h"
#include "model/model.h"
#include "model/timeline.h"

/* Fill t (finished with tc_timeline_finish) over the span [lo_ps, hi_ps)
 * for the devices of a->util and the memory counters of a->mem. */
void tc_timeline_build(const struct tc_model *m, const struct tc_analysis *a,
	int64_t lo_ps, int64_t hi_ps, struct tc_timeline *t);
/* A job's timeline (analysis/job.h) over [lo_ps, hi_ps) of its clock: t's
 * devices and counters are a's, their bins empty until each rank adds
 * its own with tc_timeline_add_rank. */
void tc_timeline_job_init(const struct tc_analysis *a, int64_t lo_ps, int64_t hi_ps,
	struct tc_timeline *t);
/* Bin one rank's model m into t: its devices are skel's from base, its
 * entries a->util[util_lo..+n_util) and a->mem[mem_lo..+n_mem), and its
 * time 0 is at dt on the job's clock. */
void tc_timeline_add_rank(struct tc_timeline *t, const struct tc_analysis *a,
	const struct tc_model *skel, const struct tc_model *m, uint32_t base,
	size_t util_lo, size_t n_util, size_t mem_lo, size_t n_mem, int64_t dt);
void tc_timeline_finish(struct tc_timeline *t);

#endif
