#ifndef TC_ANALYSIS_FILL_H
#define TC_ANALYSIS_FILL_H

/*
 * Kernel fill of devices (analysis/fill.c), measured over the counted
 * steps for the small-batch rule.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"
#include "model/model.h"

struct tc_fill {
	int64_t kern_ps;      /* kernels in the counted steps (summed durations) */
	int64_t with_ps;      /* of which carry blocks per SM */
	int64_t low_ps;       /* of which under the blocks threshold */
	int64_t short_ps;     /* shorter than short_ps */
	double occ_ps;        /* occupancy % x duration, over occ_dur_ps */
	int64_t occ_dur_ps;
	int64_t *op_ps;       /* underfilled (or short) time per op, malloc'd */
};

/*
 * One tc_fill per device dev[0..n) (malloc'd, each op_ps too; the caller
 * frees them): kernels under short_ps are short, under blocks_th blocks
 * per SM underfilled. track_kinds: per model track, the op kinds the usage
 * pass found on it (0 unknown), so lines without kernels are not walked.
 * sums: the usage pass's op sums (NULL: none), taken for the lines they
 * cover where they give the same (a device's only summed lines, no args
 * read). threaded: two threads take the devices from a shared counter.
 */
struct tc_op_sums;
struct tc_fill *tc_fill_measure(const struct tc_model *m, const struct tc_analysis *a,
	const uint32_t *dev, size_t n, const uint32_t *track_kinds, int64_t short_ps,
	double blocks_th, const struct tc_op_sums *sums, bool threaded);

#endif
