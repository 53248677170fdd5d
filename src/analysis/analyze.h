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
#include "model/findings.h"
#include "model/model.h"
#include "util/error.h"

/* Thresholds, one table (analyze.c) with defaults and their sources;
 * `--threshold KEY=VALUE` overrides by key. Percentages are 0..100. */
enum tc_threshold_id {
	TC_TH_COMM_MODERATE = 0,
	TC_TH_COMM_HIGH,
	TC_TH_COMPILE_MODERATE,
	TC_TH_COMPILE_HIGH,
	TC_TH_COMPUTE_BOUND,
	TC_TH_CRITICAL,
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
	TC_TH_MEMORY_BOUND,
	TC_TH_MEMORY_BOUND_HIGH,
	TC_TH_MEM_PRESSURE,
	TC_TH_MEM_PRESSURE_CRITICAL,
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
	TC_TH_SYNC_MODERATE,
	TC_TH_SYNC_HIGH,
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
	double th[TC_TH_COUNT];
	/* tc_analyze runs its independent passes on a second thread: 0 = when
	 * the model is big enough to gain, 1 = never (--threads 1), 2 or more =
	 * always. Results do not depend on it. */
	unsigned threads;
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

/* Everything, findings included. */
void tc_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);
/* The same, also running side(ctx) beside the passes (on the second thread
 * when there is one): work of the caller's that reads the model only. */
void tc_analyze_with(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a, void (*side)(void *ctx), void *ctx);

/* The parts, in the order tc_analyze runs them (each may use earlier parts). */
void tc_analyze_util(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);
void tc_analyze_steps(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);
void tc_analyze_breakdown(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);
void tc_analyze_memory(const struct tc_model *m, struct tc_analysis *a);
void tc_analyze_compile(const struct tc_model *m, struct tc_analysis *a);
void tc_analyze_rules(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);

/*
 * Device selection, for every command's --device NAME: a device whose name,
 * or "host: name", equals NAME exactly wins; else the devices whose name
 * contains NAME, ignoring ASCII case. One candidate selects it; several are
 * ambiguous (analysis commands refuse them, export keeps them all).
 */
enum tc_device_match_status {
	TC_DEVICE_MATCH_NONE = 0,  /* no device matches */
	TC_DEVICE_MATCH_EXACT,     /* one device is named NAME exactly */
	TC_DEVICE_MATCH_UNIQUE,    /* no exact name; one name contains NAME */
	TC_DEVICE_MATCH_AMBIGUOUS, /* several exact names, or several containing NAME */
};

struct tc_device_match {
	enum tc_device_match_status status;
	uint32_t device;      /* EXACT or UNIQUE: the device; else TC_NONE */
	uint32_t *candidates; /* the matching devices in model order (malloc'd) */
	size_t n_candidates;
};

/* Match name (NULL: nothing asked, status NONE) into dm; finish dm after. */
void tc_analysis_match_device(const struct tc_model *m, const char *name,
	struct tc_device_match *dm);
void tc_analysis_device_match_finish(struct tc_device_match *dm);
/* The selected device for name, TC_NONE when none or several match. */

/* Framework, runtime and evidence of what is already in use, from op,
 * track and device names (runtime.c); a may be NULL (then no copy or
 * device-work evidence). tc_analyze_runtime stores it in a->runtime. */
void tc_runtime_detect(const struct tc_model *m, const struct tc_analysis *a,
	struct tc_runtime_info *ri);
void tc_analyze_runtime(const struct tc_model *m, struct tc_analysis *a);

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
	TC_ADV_COUNT,
};

/* The advice for a topic on this framework and runtime (advice.c, one
 * table; docs/analysis.md): the most specific row whose evidence
 * conditions hold, else the generic one. ri may be NULL. Static string. */
const char *tc_advice(enum tc_advice_topic topic, const struct tc_runtime_info *ri);
const char *tc_advice_topic_name(enum tc_advice_topic topic);

/* The device o->device names (exact name, else the first containing it),
 * TC_NONE when none matches or none is asked for. */
uint32_t tc_analysis_find_device(const struct tc_model *m, const char *name);
/* "host: name" when device d has a host, else its name. */
void tc_analysis_device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size);

/* Index of the step containing t (a->steps sorted by start), or SIZE_MAX. */
size_t tc_analysis_step_at(const struct tc_analysis *a, int64_t t);

/* The device with the largest busy time in a->util, TC_NONE if none. */
uint32_t tc_analysis_busiest_device(const struct tc_analysis *a);

/* A key with a duration; tc_group_key_dur sorts v by key and returns the
 * groups (key, count, summed duration) as a malloc'd array in key order. */
struct tc_key_dur {
	uint32_t key;
	int64_t dur;
};
struct tc_compile_entry *tc_group_key_dur(struct tc_key_dur *v, size_t n, size_t *n_groups);

/* Op table grouped by "name", "category", "kind" or "device", with shares,
 * rates and roofline class (peaks: overrides, then the trace's device
 * stats, then the built-in table). False if by is unknown. */
bool tc_analyze_op_table(const struct tc_model *m, const struct tc_analysis_opts *o,
	const char *by, struct tc_op_table *t);
/* The "name" table as the rules read it, into a->ops: no p50/p99 (left
 * -1), which no rule reads and which cost a gather and a selection over
 * every event. Its shares and peaks come from a->util: run it after
 * tc_analyze_util. */
void tc_analyze_rule_ops(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a);

/* Built-in peaks for a device model name (case-insensitive substring
 * match, e.g. "NVIDIA H100 80GB HBM3", "TPU v5 lite"); false if unknown. */
bool tc_peaks_lookup(const char *model, double *flops, double *bw);
/* Peaks for device d: override, trace, table; returns the source or NULL. */
const char *tc_device_peaks(const struct tc_model *m, uint32_t d,
	const struct tc_analysis_opts *o, double *flops, double *bw);

#endif
