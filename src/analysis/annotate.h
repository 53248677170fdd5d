#ifndef TC_ANALYSIS_ANNOTATE_H
#define TC_ANALYSIS_ANNOTATE_H

/*
 * Marks for `export --annotate`: a "steps" track with one window per step,
 * and per step and device counters of the share of the step each kind of
 * device work covered (compute, collectives, copies) and of idle time. All
 * shares are lengths of interval unions over the step, in %, so they never
 * double-count concurrent work. Only steps inside the selection's sample
 * window are annotated. Sets ann->missing to say what is not annotated.
 */

#include "model/annotation.h"
#include "model/model.h"
#include "model/selection.h"

void tc_annotate(const struct tc_model *m, const struct tc_selection *sel,
	struct tc_annotation *ann);

#endif
