#ifndef TC_ANALYSIS_COMPARE_H
#define TC_ANALYSIS_COMPARE_H

/*
 * `tracectl diff`: summarise each side (diff_side.c, the only caller of the
 * analysis passes), then compare two summaries (compare.c), which reads
 * nothing else. Types and ownership are in model/diff.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include "analysis/analyze.h"
#include "model/diff.h"
#include "model/memview.h"
#include "model/model.h"
#include "util/error.h"

/* Analyse m with o (--steps, --device, thresholds) and fill s, which owns
 * copies of everything it keeps: m may be destroyed next. label is the
 * path the side was given as. */
void tc_diff_side_build(const struct tc_model *m, const struct tc_analysis_opts *o,
	const char *label, struct tc_diff_side *s);

/* Memory by op (analysis/diff_mem.c): s's allocator peaks and per-op rows
 * from m's allocator records' view v; only: that device's alone (TC_NONE
 * all). */
void tc_diff_mem_side(const struct tc_model *m, const struct tc_mem_view *v, uint32_t only,
	struct tc_diff_side *s);
/* The same from views v[0..n) of one model's devices (a digest's ranks'
 * unpacked onto their skeleton): their rows summed by device and name. */
void tc_diff_mem_side_views(const struct tc_model *m, const struct tc_mem_view *v, size_t n,
	uint32_t only, struct tc_diff_side *s);
/* Their comparison into d's mem_peaks and mem_ops (by tc_diff_compute). */
void tc_diff_mem_compute(const struct tc_diff_side *base, const struct tc_diff_side *test,
	struct tc_diff *d);

/* Compare two sides into d (finished with tc_diff_finish, before them).
 * exact_names: match ops by their exact names, no normalisation. */
void tc_diff_compute(const struct tc_diff_side *base, const struct tc_diff_side *test,
	bool exact_names, struct tc_diff *d);

/* Normalise an op name into buf (NUL-terminated, cut to size); returns the
 * enum tc_diff_norm bits of the rules that changed it. */
uint32_t tc_diff_normalize(const char *name, char *buf, size_t size);

/* Fill g with metric ("step", "device-busy" or "op:NAME") on both sides of
 * d and whether TEST is more than threshold_pct % above BASE. False with a
 * message in err for an unknown metric or an op neither side has. */
bool tc_diff_gate(const struct tc_diff *d, const char *metric, double threshold_pct,
	struct tc_diff_gate *g, struct tc_error *err);
/* False with a message when metric is not one tc_diff_gate knows. */
bool tc_diff_metric_valid(const char *metric, struct tc_error *err);

#endif
