#ifndef TC_ANALYSIS_BUDGET_H
#define TC_ANALYSIS_BUDGET_H

/*
 * Performance budgets (`tracectl check`): one catalogue of metrics measured
 * from an analysis, limits on them (--max/--min METRIC=VALUE or a budget
 * file of "METRIC <= VALUE" lines), and their evaluation over one or more
 * ranks. Definitions are in docs/check.md.
 * The results are model types (model/check.h).
 *
 * Ownership: a struct tc_budget owns its limits and their strings
 * (tc_budget_finish frees them).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/check.h"
#include "model/findings.h"
#include "model/model.h"
#include "util/error.h"

/* Parse a metric name (len bytes of s); false with TC_EXIT_USAGE and a
 * message naming it when it is not in the catalogue. Free with
 * tc_metric_finish. */
bool tc_metric_parse(const char *s, size_t len, struct tc_metric *out, struct tc_error *err);

/*
 * A limit's value in the metric's unit: times "150ms", "2.5s", "80us",
 * "500ns"; bytes "16KiB", "16KB", "1.5MiB", "4096B" (KiB = 1024, KB =
 * 1000); ratios "20%"; counts plain numbers; severities none, low, medium,
 * high, critical. A plain number for a time, size or ratio is refused: it
 * could be read in more than one unit. False with TC_EXIT_USAGE and a
 * message naming the value and the units expected.
 */
bool tc_metric_value_parse(enum tc_metric_unit unit, const char *s, double *out,
	struct tc_error *err);

struct tc_limit {
	struct tc_metric metric;
	bool is_min;    /* METRIC >= VALUE (--min); else <= (--max) */
	double value;
	char *text;     /* the value as written (malloc'd) */
};

struct tc_budget {
	struct tc_limit *v;
	size_t n, cap;
};

void tc_budget_init(struct tc_budget *b);
void tc_budget_finish(struct tc_budget *b);
/* Add "METRIC=VALUE" (--max, or --min when is_min). */
bool tc_budget_add_arg(struct tc_budget *b, const char *kv, bool is_min, struct tc_error *err);
/* Add the limits of a budget file's text: one "METRIC <= VALUE" or
 * "METRIC >= VALUE" a line, '#' comments, blank lines. Errors start with
 * "NAME:LINE: ". */
bool tc_budget_parse(struct tc_budget *b, const char *text, size_t len, const char *name,
	struct tc_error *err);
/* Read and parse the file at path (TC_EXIT_INPUT when it cannot be read). */
bool tc_budget_read(struct tc_budget *b, const char *path, struct tc_error *err);

/* The value of mt measured on a (run with the model m); false when the
 * trace cannot tell (no memory counters, a single step for memory.cv).
 * *detail, when not NULL, gets where the value was found (memory.peak:
 * the device) or "" (buf of size bytes). */
bool tc_metric_measure(const struct tc_model *m, const struct tc_analysis *a,
	const struct tc_metric *mt, double *out, char *detail, size_t size);

/* Rows from the budget's limits, in order; with none, every metric of the
 * catalogue that needs no name (share.CATEGORY for each category). */
void tc_check_init(struct tc_check *c, const struct tc_budget *b, size_t n_ranks);
/* Measure every row on rank r (named name) from its analysis. */
void tc_check_measure(struct tc_check *c, size_t r, const char *name,
	const struct tc_model *m, const struct tc_analysis *a);
/* Note the op names of a rank (names[0, n)) on the op:NAME rows: found,
 * or the closest for "did you mean". */
void tc_check_note_ops(struct tc_check *c, const char *const *names, size_t n);
/* False with TC_EXIT_USAGE and a message naming the closest op when an
 * op:NAME row names an op no rank has: such a limit would measure 0 and
 * pass whatever the trace does. */
bool tc_check_ops_known(const struct tc_check *c, struct tc_error *err);
/* Pick each row's worst rank and verdict; sets n_fail. */
void tc_check_evaluate(struct tc_check *c);

#endif
