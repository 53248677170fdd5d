#ifndef TC_ANALYSIS_LAUNCHER_H
#define TC_ANALYSIS_LAUNCHER_H

/*
 * Kernel -> launching op: every kernel, copy and memset on a device line
 * linked through its launch flow (runtime call) to the framework ops above
 * that call, and device time, FLOPs and bytes tabled per op name, input
 * shapes and dtypes (docs/analysis.md, "Launching ops"). Run only when
 * asked for (`ops --by launcher`): it walks every host stack once.
 */

#include "model/launch.h"
#include "model/model.h"

/* Fill t from finalized m: the device work of device only (TC_NONE: of
 * every device); peak overrides in FLOP/s and B/s (0 none). */
void tc_launcher_table(const struct tc_model *m, uint32_t only, double peak_flops,
	double peak_bw, struct tc_launch_table *t);
/* For every event of finalized m: the innermost framework op event above
 * the runtime call that launched it (device events with a launch flow),
 * TC_NONE for the others. out has m->ev.n entries. For views that label
 * device work by its launching op. */
void tc_launcher_of_events(const struct tc_model *m, uint32_t *out);

#endif
