#ifndef TC_ANALYSIS_TIMELINE_H
#define TC_ANALYSIS_TIMELINE_H

#include "model/findings.h"
#include "model/model.h"
#include "model/timeline.h"

/* Fill t (finished with tc_timeline_finish) over the span [lo_ps, hi_ps)
 * for the devices of a->util and the memory counters of a->mem. */
void tc_timeline_build(const struct tc_model *m, const struct tc_analysis *a,
	int64_t lo_ps, int64_t hi_ps, struct tc_timeline *t);
void tc_timeline_finish(struct tc_timeline *t);

#endif
