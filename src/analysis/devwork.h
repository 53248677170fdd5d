#ifndef TC_ANALYSIS_DEVWORK_H
#define TC_ANALYSIS_DEVWORK_H

/*
 * Device work by category (model/devcat.h): every kernel, copy and memset
 * on a device's work lines summed into its category, decided from the host
 * op that launched it where a launch flow says which, else from its name.
 * Private to analysis/ (the op table and the compute rules read it).
 */

#include <stddef.h>
#include <stdint.h>
#include "model/devcat.h"
#include "model/findings.h"
#include "model/model.h"

/* A GEMM kernel this short or shorter is tiny: launch-sized work that
 * batching or fusing would merge (docs/analysis.md, "Compute findings"). */
#define TC_TINY_GEMM_PS 10000000

struct tc_devcat_acc {
	uint64_t count;
	int64_t total_ps, self_ps, min_ps, max_ps;
	int64_t launched_ps; /* in events whose launching host op is known */
	double flops, bytes; /* totals, < 0 unknown */
};

struct tc_devwork {
	struct tc_devcat_acc cat[TC_DEVCAT_COUNT];
	/* GEMM and convolution kernels longer than TC_TINY_GEMM_PS whose
	 * names say FP32 math on CUDA cores (tc_devcat_fp32_math) */
	int64_t fp32_ps;
	uint64_t fp32_count;
	/* layout conversions: layout work, and kernels whose own names say
	 * so whatever launched them (cuDNN's NCHW<->NHWC inside a conv) */
	int64_t layout_ps;
	uint64_t layout_count;
	/* GEMM kernels of at most TC_TINY_GEMM_PS, FP32 or not */
	int64_t tiny_gemm_ps;
	uint64_t tiny_gemm_count;
	/* The same three in work off the roofline (FLOPs or bytes unknown):
	 * the time they may explain, as the memory- and compute-bound rules
	 * explain the rest (one attribution, no time twice). */
	int64_t fp32_free_ps, layout_free_ps, tiny_gemm_free_ps;
};

/* An empty w (no category has events). */
void tc_devwork_init(struct tc_devwork *w);
/* Adds b (sums of another part: a rank) to w's category c. */
void tc_devwork_add(struct tc_devwork *w, enum tc_devcat c, const struct tc_devcat_acc *b);

/* Sums over the work lines of device only (TC_NONE: every device). */
void tc_devwork_scan(const struct tc_model *m, uint32_t only, struct tc_devwork *w);
/* The same, taking the usage pass's op sums (struct tc_op_sums, passes.h)
 * for the lines it summed, unwalked, where they give what the walk does:
 * no launch flows, every event's costs its op's, all those lines in
 * scope, no sum saturated or inexact. Otherwise every line is walked. */
struct tc_op_sums;
void tc_devwork_scan_sums(const struct tc_model *m, uint32_t only, const struct tc_op_sums *pre,
	struct tc_devwork *w);

/* Whether m has launch flows: then events have launchers, which the op
 * sums know nothing of, and tc_devwork_scan_sums walks every line. */
bool tc_devwork_launched(const struct tc_model *m);

/* A device's work scanned before the rules ask for it (on the analysis'
 * side thread once usage has summed the ops), so the rules need not scan
 * it once they know their device. */
struct tc_devwork_ahead {
	uint32_t device; /* TC_NONE: not scanned */
	struct tc_devwork w;
};

/* The one device with events on its work lines, whose work the rules will
 * read; TC_NONE where several or none have (the rules scan theirs then). */
uint32_t tc_devwork_only_device(const struct tc_model *m);

/* One op-table row per category with events, for `ops --by category`
 * (label: the category's name). */
struct tc_op_row *tc_devwork_rows(const struct tc_devwork *w, size_t *n);

#endif
