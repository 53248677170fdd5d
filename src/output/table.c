#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "output/table.h"
#include "util/term.h"
#include "util/xalloc.h"

void tc_table_init(struct tc_table *t, size_t ncols, const char *const *headers) {
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->max_width = 60;
	for (size_t i = 0; i < ncols; i++) {
		tc_table_cell(t, headers[i]);
	}
}

/* Cells are kept escaped, so widths are measured on what is printed. */
void tc_table_cell(struct tc_table *t, const char *s) {
	TC_GROW(t->cells, t->cap, t->n + 1);
	t->cells[t->n++] = tc_term_strdup(s);
}

void tc_table_cellf(struct tc_table *t, const char *fmt, ...) {
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tc_table_cell(t, buf);
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s) {
	size_t w = 0;
	for (; *s; s++) {
		w += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return w;
}

/* Print at most max columns of s, ending with "..." when cut. */
static size_t put_cut(FILE *f, const char *s, size_t max) {
	size_t w = width(s);
	if (max == 0 || w <= max) {
		fputs(s, f);
		return w;
	}
	size_t cols = 0;
	const char *p = s;
	while (*p && cols < max - 3) {
		p++;
		while ((*p & 0xc0) == 0x80) {
			p++;
		}
		cols++;
	}
	fwrite(s, 1, (size_t)(p - s), f);
	fputs("...", f);
	return max;
}

void tc_table_print(const struct tc_table *t, FILE *f, const char *indent) {
	size_t rows = t->n / t->ncols;
	size_t *wid = tc_xcalloc(t->ncols, sizeof(*wid));
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t w = width(s[0] == '>' && r == 0 ? s + 1 : s);
			if (t->max_width && w > t->max_width) {
				w = t->max_width;
			}
			if (w > wid[c]) {
				wid[c] = w;
			}
		}
	}
	for (size_t r = 0; r < rows; r++) {
		fputs(indent, f);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *h = t->cells[c];
			const char *s = t->cells[r * t->ncols + c];
			bool right = h[0] == '>';
			if (r == 0 && right) {
				s++;
			}
			size_t w = width(s);
			if (t->max_width && w > t->max_width) {
				w = t->max_width;
			}
			if (right) {
				fprintf(f, "%*s", (int)(wid[c] - w), "");
			}
			put_cut(f, s, t->max_width);
			if (c + 1 < t->ncols) {
				if (!right) {
					fprintf(f, "%*s", (int)(wid[c] - w), "");
				}
				fputs("  ", f);
			}
		}
		fputc('\n', f);
	}
	free(wid);
}

void tc_table_finish(struct tc_table *t) {
	if (!t) {
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		free(t->cells[i]);
	}
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
