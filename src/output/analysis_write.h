#ifndef TC_OUTPUT_ANALYSIS_WRITE_H
#define TC_OUTPUT_ANALYSIS_WRITE_H

/* Writers for `steps`, `ops`, `bottlenecks` and the analysis section of
 * `summarize`. They only read the model and the analysis results. */

#include <stdbool.h>
#include <stdio.h>
#include "model/findings.h"
#include "model/model.h"
#include "output/jsonw.h"

#define TC_BOTTLENECKS_SCHEMA "tracectl.bottlenecks/2"
#define TC_STEPS_SCHEMA "tracectl.steps/2"
#define TC_OPS_SCHEMA "tracectl.ops/1"

struct tc_bottlenecks_opts {
	size_t top;             /* findings listed (0 = all) */
	enum tc_severity min_severity;
};

/* Detected framework and runtime: "framework", "runtime" lines (text) or
 * members (JSON: framework, runtime, framework_source, runtime_source,
 * framework_evidence[]). */
void tc_write_runtime_text(FILE *f, const struct tc_runtime_info *ri);
void tc_write_runtime_json(struct tc_jw *w, const struct tc_runtime_info *ri);

void tc_write_steps_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a);
/* The one-off start-up calls outside the counted steps, once: a clause
 * ("; start-up outside the counted steps: ...", nothing without any) and
 * a "startup" member (none without any). */
void tc_write_startup_text(FILE *f, const struct tc_startup *su);
void tc_write_startup_json(struct tc_jw *w, const struct tc_startup *su);
void tc_write_steps_json(FILE *f, const struct tc_model *m, const struct tc_analysis *a);

void tc_write_ops_text(FILE *f, const struct tc_model *m, const struct tc_op_table *t,
	size_t top);
void tc_write_ops_json(FILE *f, const struct tc_model *m, const struct tc_op_table *t,
	size_t top);

void tc_write_bottlenecks_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
	const struct tc_bottlenecks_opts *o);
void tc_write_bottlenecks_json(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
	const struct tc_bottlenecks_opts *o);

/* The `summarize` section: step breakdown and the top n findings. */
void tc_write_analysis_section_text(FILE *f, const struct tc_model *m,
	const struct tc_analysis *a, size_t n);
/* Writes keys "step_breakdown" and "findings" into the open object. */
void tc_write_analysis_section_json(struct tc_jw *w, const struct tc_model *m,
	const struct tc_analysis *a, size_t n);

#endif
