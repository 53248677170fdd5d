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

#endif
