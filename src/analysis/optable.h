#ifndef TC_ANALYSIS_OPTABLE_H
#define TC_ANALYSIS_OPTABLE_H

/*
 * Op tables (`ops --by ...`) from op rows already summed: the op pass
 * builds them from a model's events, a digest from the rows it keeps.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"
#include "model/model.h"

/* `ops --by device`: per device with device work (only: that one; TC_NONE
 * every one), ascending, the tc_op_row_sum of tc_analyze_ops over its work
 * lines, named after the device (malloc'd; summary.c). One walk over the
 * events, not one over every line and op per device. */
struct tc_op_row *tc_device_op_rows(const struct tc_model *m, uint32_t only, size_t *n);

/* The op table from rows already summed (tc_pass_op_table's second half,
 * and digests): s[0..n) as tc_analyze_ops returns them, dev_rows (taken,
 * malloc'd) the "device" rows, or by category on devices the category
 * rows (analysis/devwork.h; NULL: the writer's categories), busy the
 * summed device busy time and the peaks those of the first device that
 * has them. */
void tc_op_table_from_rows(struct tc_op_table *t, const char *by, uint32_t only,
	bool any_device, const struct tc_op_summary *s, size_t n, struct tc_op_row *dev_rows,
	size_t n_dev, int64_t busy, double peak_flops, double peak_bw,
	const char *peak_source);

/* Track filters for tc_analyze_ops (roofline.c): device work lines; those
 * of the device *(const uint32_t *)ctx; every line but derived ones. */
bool tc_track_device_work(const struct tc_model *m, uint32_t t, void *ctx);
bool tc_track_device_work_of(const struct tc_model *m, uint32_t t, void *ctx);
bool tc_track_host(const struct tc_model *m, uint32_t t, void *ctx);

/* tc_analyze_ops' row order (summary.c): total, then count, descending,
 * then name id. */
int tc_op_summary_cmp(const void *pa, const void *pb);

#endif
