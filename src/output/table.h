#ifndef TC_OUTPUT_TABLE_H
#define TC_OUTPUT_TABLE_H

/*
 * Aligned text tables: cells are collected, widths measured, then printed.
 * Columns whose header starts with '>' are right-aligned (numbers). Cells
 * are stored escaped for the terminal (util/term.h), so a name's control
 * bytes neither reach the terminal nor break the alignment.
 */

#include <stddef.h>
#include <stdio.h>

struct tc_table {
	size_t ncols;
	char **cells; /* row-major, header row first */
	size_t n, cap;
	size_t max_width; /* cap on one cell's width (0: none) */
};

void tc_table_init(struct tc_table *t, size_t ncols, const char *const *headers);
void tc_table_cell(struct tc_table *t, const char *s);
void tc_table_cellf(struct tc_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tc_table_print(const struct tc_table *t, FILE *f, const char *indent);
void tc_table_finish(struct tc_table *t);

#endif
