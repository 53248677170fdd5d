#ifndef TC_MODEL_CHECK_H
#define TC_MODEL_CHECK_H

/*
 * Results of `tracectl check` as plain data: the metric catalogue, and the
 * rows of a check (a metric, its limit, its value on every rank and the
 * verdict). analysis/budget.c fills them, output/check_write.c prints them.
 * A struct tc_check owns its rows, rank names, values and strings
 * (tc_check_finish); nothing borrows from a model. Definitions are in
 * docs/check.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tc_metric_unit {
	TC_MU_TIME = 0,  /* seconds */
	TC_MU_BYTES,
	TC_MU_COUNT,
	TC_MU_RATIO,     /* a fraction: 0.2 = 20 % */
	TC_MU_SEVERITY,  /* enum tc_severity */
};

enum tc_metric_id {
	TC_M_STEP_COUNT = 0,
	TC_M_STEP_MEAN,
	TC_M_STEP_MEDIAN,
	TC_M_STEP_P90,
	TC_M_STEP_MAX,
	TC_M_H2D_BYTES,
	TC_M_H2D_COUNT,
	TC_M_D2H_BYTES,
	TC_M_D2H_COUNT,
	TC_M_D2D_BYTES,
	TC_M_D2D_COUNT,
	TC_M_SHARE,          /* share.CATEGORY: one per enum tc_bd_cat */
	TC_M_DEVICE_BUSY,
	TC_M_COMPILE_COUNT,
	TC_M_COMPILE_TIME,
	TC_M_RECOMPILE_COUNT,
	TC_M_MEMORY_PEAK,
	TC_M_MEMORY_CV,
	TC_M_MEMORY_BY_OP,   /* memory.peak_by_op:NAME */
	TC_M_OP_TIME,        /* op:NAME.time_per_step */
	TC_M_OP_CALLS,       /* op:NAME.calls_per_step */
	TC_M_MAX_SEVERITY,   /* findings.max_severity */
	TC_M_COUNT,
};

struct tc_metric_def {
	const char *name;       /* "step.mean", "share.CATEGORY", "op:NAME.time_per_step" */
	uint8_t unit;           /* enum tc_metric_unit */
	const char *definition; /* one line, for --list and docs/check.md */
};

/* Whether metric i needs a NAME (op:NAME.*, memory.peak_by_op:NAME). */
static inline bool tc_metric_named(int i) {
	return i == TC_M_OP_TIME || i == TC_M_OP_CALLS || i == TC_M_MEMORY_BY_OP;
}

/* The catalogue, indexed by enum tc_metric_id. */
const struct tc_metric_def *tc_metric_defs(void);
const char *tc_metric_unit_name(enum tc_metric_unit u);
/* Every name a limit may start with, as completions offer them
 * (NULL-terminated): "step.mean=", one "share.CATEGORY=" per category,
 * and "op:" for the op families. */
const char *const *tc_metric_words(void);

/* One metric as named on the command line or in a budget file. */
struct tc_metric {
	uint8_t id;   /* enum tc_metric_id */
	uint8_t cat;  /* TC_M_SHARE: enum tc_bd_cat */
	char *name;   /* the full name, "share.idle", "op:fusion.1.calls_per_step" (malloc'd) */
	char *op;     /* TC_M_OP_*: the op name (malloc'd), else NULL */
};

void tc_metric_finish(struct tc_metric *mt);
/* A copy with its own strings. */
void tc_metric_copy(struct tc_metric *dst, const struct tc_metric *src);

enum tc_verdict {
	TC_VERDICT_MEASURED = 0, /* no limit: listed only */
	TC_VERDICT_PASS,
	TC_VERDICT_FAIL,
	TC_VERDICT_MISSING,      /* a limit on what a rank's trace cannot measure: fails */
};

struct tc_check_row {
	struct tc_metric metric;  /* a copy (own strings) */
	bool has_limit, is_min;
	double limit;
	char *limit_text;         /* as written, NULL without a limit */
	double *values;           /* per rank */
	bool *known;              /* per rank */
	char **details;           /* per rank ("" none) */
	size_t worst;             /* the rank whose value decides (SIZE_MAX: none known) */
	uint8_t verdict;          /* enum tc_verdict */
	/* op:NAME rows: whether some rank has an op of that name, else the
	 * closest name a rank has (NULL none) for the error. */
	bool op_found;
	char *op_hint;
};

struct tc_check {
	struct tc_check_row *rows;
	size_t n_rows;
	char **ranks;             /* rank names */
	size_t n_ranks;
	size_t n_fail;            /* rows that failed (FAIL or MISSING) */
	char **steps_source;      /* per rank: the analysis's, malloc'd; NULL none */
	size_t *n_steps;          /* per rank: steps counted */
	const char *step_marker;  /* --step-marker (borrowed), NULL */
};

void tc_check_finish(struct tc_check *c);
const char *tc_verdict_name(enum tc_verdict v);

#endif
