#ifndef TC_ANALYSIS_ANNOTATE_H
#define TC_ANALYSIS_ANNOTATE_H

/*
 * Marks for `export --annotate`, from the bottleneck analysis (analyze.h):
 * - a "steps" track: one window per step, its detail the step's time
 *   breakdown (largest categories first);
 * - a "findings" track: one window per finding (its own window, else the
 *   steps it names, else the whole trace), named by rule, with severity and
 *   the finding's text and suggestion;
 * - counters per step: the breakdown categories in % of the step, on the
 *   breakdown device, and each device's busy share (union of its device
 *   work over the step, in %).
 * Steps outside the selection's sample window are left out. With steps
 * ("A:B" as for --steps; NULL for all) the analysis, findings included,
 * covers only those steps; marker is --step-marker (NULL: built-in markers).
 * threads is tc_analysis_opts.threads (--threads).
 * Sets ann->missing when there is nothing to say (no findings).
 */

#include "model/annotation.h"
#include "model/model.h"
#include "model/selection.h"

void tc_annotate(const struct tc_model *m, const struct tc_selection *sel,
	const char *steps, const char *marker, unsigned threads, struct tc_annotation *ann);

#endif
