#ifndef TC_ANALYSIS_SUMMARY_H
#define TC_ANALYSIS_SUMMARY_H

#include <stdbool.h>
#include "model/findings.h"
#include "model/model.h"
#include "model/report.h"

/* Fill s (caller-owned, finished with tc_summary_finish) from a finalized
 * model: span, per-device busy time, op statistics sorted by total time,
 * and explicit steps. The summary alone; with other analysis results,
 * tc_analyze's TC_AN_SUMMARY shares their work. */
void tc_analyze_summary(const struct tc_model *m, struct tc_summary *s);

/* Op statistics over tracks for which track_ok(kind) is true, one row per
 * (name, category, kind), sorted by total time descending. With
 * percentiles, p50/p99 are filled (costs a sort of all durations). */
struct tc_op_summary *tc_analyze_ops(const struct tc_model *m,
	bool (*track_ok)(const struct tc_model *m, uint32_t track, void *ctx), void *ctx,
	bool percentiles, size_t *n_out);

#endif
