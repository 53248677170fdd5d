#ifndef TC_ANALYSIS_ANALYZE_H
#define TC_ANALYSIS_ANALYZE_H

/*
 * The bottleneck analysis: steps, step-time breakdown, transfers, memory,
 * compilation, device utilisation, op roofline and the rule findings, all
 * computed from a finalized model into a struct tc_analysis
 * (model/findings.h; the caller finishes it with tc_analysis_finish()).
 * Definitions are in docs/analysis.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include "analysis/device.h"
#include "model/findings.h"
#include "model/model.h"
#include "util/error.h"

/* Thresholds, one table (analyze.c) with defaults and their sources;
 * `--threshold KEY=VALUE` overrides by key. Percentages are 0..100. */
enum tc_threshold_id {
	TC_TH_ALLOC_SHARE = 0,
	TC_TH_COMM_MODERATE,
	TC_TH_COMM_HIGH,
	TC_TH_COMPILE_MODERATE,
	TC_TH_COMPILE_HIGH,
	TC_TH_COMPUTE_BOUND,
	TC_TH_CRITICAL,
	TC_TH_FP32_SHARE,
	TC_TH_FRAG_SHARE,
	TC_TH_FRAG_HIGH,
	TC_TH_FRAG_MIN_SIZE,
	TC_TH_FRAG_MIN_DEVICE,
	TC_TH_HOST_MODERATE,
	TC_TH_HOST_HIGH,
	TC_TH_IDLE_MODERATE,
	TC_TH_KERNEL_WAIT_US,
	TC_TH_IDLE_HIGH,
	TC_TH_INPUT_MODERATE,
	TC_TH_INPUT_HIGH,
	TC_TH_LAUNCH_MODERATE,
	TC_TH_LAUNCH_HIGH,
	TC_TH_LAUNCH_DELAY_US,
	TC_TH_LAUNCH_SHORT_SHARE,
	TC_TH_LAYOUT_SHARE,
	TC_TH_MEMORY_BOUND,
	TC_TH_MEMORY_BOUND_HIGH,
	TC_TH_MEM_PRESSURE,
	TC_TH_MEM_PRESSURE_CRITICAL,
	TC_TH_MEM_LEAK,
	TC_TH_PARTIAL_STEP,
	TC_TH_PAGEABLE_SHARE,
	TC_TH_RECOMPILE_COUNT,
	TC_TH_SHORT_KERNEL_US,
	TC_TH_SMALL_BATCH_SHARE,
	TC_TH_SMALL_BATCH_HIGH,
	TC_TH_SMALL_BATCH_BLOCKS,
	TC_TH_SMALL_BATCH_SHORT,
	TC_TH_SMALL_BATCH_BUSY,
	TC_TH_STRAGGLER_SKEW,
	TC_TH_STRAGGLER_WAIT,
	TC_TH_SYNC_MODERATE,
	TC_TH_SYNC_HIGH,
	TC_TH_TINY_GEMMS,
	TC_TH_TRANSFER_MODERATE,
	TC_TH_TRANSFER_HIGH,
	TC_TH_UNOPT_EFFICIENCY,
	TC_TH_UNOPT_SHARE,
	TC_TH_WARMUP_FACTOR,
	TC_TH_COUNT,
};

struct tc_threshold_def {
	const char *key;     /* "input.moderate" */
	double value;        /* default */
	const char *unit;    /* "%", "us", "x", "count", "GiB" */
	const char *source;  /* where the default comes from */
};

/* The table, indexed by enum tc_threshold_id. */
const struct tc_threshold_def *tc_thresholds(void);

struct tc_analysis_opts {
	bool step_range;             /* --steps A:B given */
	int64_t step_first, step_last; /* inclusive step numbers */
	double peak_flops, peak_bw;  /* overrides (FLOP/s, B/s); 0 = none */
	const char *device;          /* --device (tc_analysis_match_device); NULL = auto */
	const char *step_marker;     /* --step-marker REGEX (analysis/step_marker.h); NULL = built-in */
	const char *op_by;           /* TC_AN_OP_TABLE: "name" (NULL), "category", "kind", "device" */
	double th[TC_TH_COUNT];
	/* tc_analyze runs its independent passes on a second thread: 0 = when
	 * the model is big enough to gain, 1 = never (--threads 1), 2 or more =
	 * always. Results do not depend on it. */
	unsigned threads;
	/* The summary's marked steps counted (n_steps and their durations'
	 * totals), not listed (summary.steps NULL): all the text summary
	 * prints of them, without a list as long as the markers. */
	bool summary_steps_counted;
	/* One rank of a job analysed alone: each finding records where a job
	 * names the rank and its spread (tc_finding.slot, spread_at). */
	bool rank_slots;
};

void tc_analysis_opts_init(struct tc_analysis_opts *o);
/* Parse "KEY=VALUE" into o; false with a message in err when unknown/bad. */
bool tc_analysis_opts_threshold(struct tc_analysis_opts *o, const char *kv,
	struct tc_error *err);
/* Parse "A:B", "A:", ":B" or "A"; false on a malformed range. */
bool tc_analysis_opts_steps(struct tc_analysis_opts *o, const char *range,
	struct tc_error *err);

/* Set o->step_marker; false with a message in err when not a valid regex. */
bool tc_analysis_opts_step_marker(struct tc_analysis_opts *o, const char *pattern,
	struct tc_error *err);

/* What tc_analyze computes; it runs whatever else these need. */
enum tc_analysis_what {
	TC_AN_USAGE = 1 << 0,     /* util, streams: device utilisation */
	TC_AN_STEPS = 1 << 1,     /* steps and their window */
	TC_AN_BREAKDOWN = 1 << 2, /* steps' categories, attribution, transfers */
	TC_AN_FINDINGS = 1 << 3,  /* all of the above, memory, compilation, the
	                           * rules' op table (ops), runtime and findings */
	TC_AN_OP_TABLE = 1 << 4,  /* op_table: grouped by o->op_by over o->device,
	                           * with p50/p99 */
	TC_AN_SUMMARY = 1 << 5,   /* summary: what summarize prints (busy time from usage
	                           * when that is computed too) */
};

/* Fill a (finished with tc_analysis_finish, also on failure) with what the
 * TC_AN_* bits in what ask for, from a finalized model. False, with a
 * empty, when o->op_by is unknown. */
bool tc_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
	unsigned what, struct tc_analysis *a);

/* Framework, runtime and evidence of what is already in use, from op,
 * track and device names (runtime.c); a may be NULL (then no copy or
 * device-work evidence). tc_analyze stores it in a->runtime. */
void tc_runtime_detect(const struct tc_model *m, const struct tc_analysis *a,
	struct tc_runtime_info *ri);

/* What a suggestion is about: one per rule, plus topics later rules use. */
enum tc_advice_topic {
	TC_ADV_INPUT = 0,
	TC_ADV_LAUNCH,
	TC_ADV_HOST,          /* framework / Python host work */
	TC_ADV_SYNC,          /* host synchronisation */
	TC_ADV_COMMUNICATION,
	TC_ADV_TRANSFER,
	TC_ADV_COMPILE,
	TC_ADV_RECOMPILE,
	TC_ADV_MEMORY_PRESSURE,
	TC_ADV_MEMORY_BOUND,
	TC_ADV_COMPUTE_BOUND,
	TC_ADV_UNOPTIMIZED_OP,
	TC_ADV_PAGEABLE_COPIES,
	TC_ADV_IDLE,          /* unexplained idle device time */
	TC_ADV_STRAGGLER,
	TC_ADV_FRAGMENTED_MEMORY,
	TC_ADV_SMALL_BATCH,   /* an underfilled device */
	TC_ADV_ALLOC,         /* device memory allocated inside the step */
	TC_ADV_MEMORY_LEAK,   /* live memory growing step over step */
	TC_ADV_STARTUP,       /* one-off start-up calls inside the analysed steps */
	TC_ADV_STALL,         /* one call, a single stall, most of a finding */
	TC_ADV_COUNT,
};

/* The advice for a topic on this framework and runtime (advice.c, one
 * table; docs/analysis.md): the most specific row whose evidence
 * conditions hold, else the generic one. ri may be NULL. Static string. */
const char *tc_advice(enum tc_advice_topic topic, const struct tc_runtime_info *ri);
const char *tc_advice_topic_name(enum tc_advice_topic topic);

#endif
