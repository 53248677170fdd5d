#ifndef TC_OUTPUT_TABLE_H
#define TC_OUTPUT_TABLE_H

/*
 * Aligned text tables: cells are collected, widths measured, then printed.
 * Columns whose header starts with '>' are right-aligned (numbers). Cells
 * are stored escaped for the terminal (util/term.h), so a name's control
 * bytes neither reach the terminal nor break the alignment.
 *
 * Under a width limit (util/termout.h) a table that would be wider is
 * fitted: the elastic column (a name) shrinks to SOFT_MIN columns, its
 * cells cut in the middle; then optional columns are left out, highest
 * rank first, and a note names them; then the elastic column shrinks to
 * its header. Without a limit nothing is cut.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "util/termout.h"

struct tc_table {
	size_t ncols;
	char **cells; /* row-major, header row first */
	uint8_t *styles; /* enum tc_style per cell */
	size_t n, cap;
	size_t elastic; /* column index + 1; 0 = none */
	unsigned *drop; /* per column: rank to leave it out by, 0 = never */
};

void tc_table_init(struct tc_table *t, size_t ncols, const char *const *headers);
void tc_table_cell(struct tc_table *t, const char *s);
void tc_table_cellf(struct tc_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The cell added last is shown in style st (when colour is on). */
void tc_table_style(struct tc_table *t, enum tc_style st);
/* Column col is the one to shrink (at most one per table). */
void tc_table_elastic(struct tc_table *t, size_t col);
/* Column col may be left out to fit; higher ranks go first. */
void tc_table_optional(struct tc_table *t, size_t col, unsigned rank);
void tc_table_print(const struct tc_table *t, FILE *f, const char *indent);
void tc_table_finish(struct tc_table *t);

#endif
