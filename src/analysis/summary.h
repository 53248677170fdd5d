#ifndef TC_ANALYSIS_SUMMARY_H
#define TC_ANALYSIS_SUMMARY_H

#include <stdbool.h>
#include "model/findings.h"
#include "model/model.h"
#include "model/report.h"

/* Fill s (caller-owned, finished with tc_summary_finish) from a finalized
 * model: span, per-device busy time, op statistics sorted by total time,
 * and explicit steps. */
void tc_analyze_summary(const struct tc_model *m, struct tc_summary *s);
/* The same in two halves, for a caller that runs tc_analyze too: the first
 * leaves the devices' busy and computation time (and the op shares' base)
 * at zero; the second fills them, from a's device utilisation where it has
 * the device (the same unions), else from the model. */
void tc_analyze_summary_begin(const struct tc_model *m, struct tc_summary *s);
void tc_analyze_summary_busy(const struct tc_model *m, const struct tc_analysis *a,
	struct tc_summary *s);
/* With --step-marker (a->step_marker set): the summary's steps become the
 * analysis's, which the user's markers made. */
void tc_analyze_summary_marked(const struct tc_model *m, const struct tc_analysis *a,
	struct tc_summary *s);

/* Op statistics over tracks for which track_ok(kind) is true, one row per
 * (name, category, kind), sorted by total time descending. With
 * percentiles, p50/p99 are filled (costs a sort of all durations). */
struct tc_op_summary *tc_analyze_ops(const struct tc_model *m,
	bool (*track_ok)(const struct tc_model *m, uint32_t track, void *ctx), void *ctx,
	bool percentiles, size_t *n_out);

#endif
