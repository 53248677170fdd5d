/*
 * Aligned text tables: terminal-escaped cells, right-aligned numbers, and
 * fitting a width limit by shrinking one column or leaving some out.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "output/table.h"
#include "util/cxxname.h"
#include "util/term.h"
#include "util/xalloc.h"

/* The elastic column keeps this much before any other column goes. */
#define SOFT_MIN 30

void tc_table_init(struct tc_table *t, size_t ncols, const char *const *headers) {
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	for (size_t i = 0; i < ncols; i++) {
		tc_table_cell(t, headers[i]);
		tc_table_style(t, TC_STYLE_HEADER);
	}
}

/* Cells are kept escaped, so widths are measured on what is printed. */
void tc_table_cell(struct tc_table *t, const char *s) {
	size_t cap = t->cap;
	TC_GROW(t->cells, t->cap, t->n + 1);
	if (t->cap != cap) {
		t->styles = tc_xrealloc(t->styles, t->cap);
	}
	t->styles[t->n] = TC_STYLE_NONE;
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

void tc_table_style(struct tc_table *t, enum tc_style st) {
	if (t->n) {
		t->styles[t->n - 1] = (uint8_t)st;
	}
}

void tc_table_elastic(struct tc_table *t, size_t col) {
	t->elastic = col + 1;
}

void tc_table_optional(struct tc_table *t, size_t col, unsigned rank) {
	if (!t->drop) {
		t->drop = tc_xcalloc(t->ncols, sizeof(*t->drop));
	}
	t->drop[col] = rank;
}

static const char *header(const struct tc_table *t, size_t c) {
	return t->cells[c] + (t->cells[c][0] == '>');
}

static size_t width(const char *s) {
	return tc_text_width(s, strlen(s));
}

/* Columns the kept columns take, with their separators. */
static size_t total_width(const struct tc_table *t, const size_t *wid, const bool *keep,
		size_t indent) {
	size_t w = indent, k = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		if (keep[c]) {
			w += wid[c] + (k++ ? 2 : 0);
		}
	}
	return w;
}

/* Fit wid[] and keep[] to limit (see table.h). */
static void fit(const struct tc_table *t, size_t *wid, bool *keep, size_t indent,
		size_t limit) {
	size_t e = t->elastic ? t->elastic - 1 : t->ncols;
	size_t natural = e < t->ncols ? wid[e] : 0;
	for (;;) {
		size_t total = total_width(t, wid, keep, indent);
		if (total <= limit) {
			return;
		}
		size_t over = total - limit;
		size_t soft = natural < SOFT_MIN ? natural : SOFT_MIN;
		if (e < t->ncols && natural >= soft + over) {
			wid[e] = natural - over;
			return;
		}
		size_t drop = t->ncols;
		for (size_t c = 0; c < t->ncols && t->drop; c++) {
			if (keep[c] && t->drop[c] && (drop == t->ncols || t->drop[c] > t->drop[drop])) {
				drop = c;
			}
		}
		if (drop == t->ncols) {
			if (e < t->ncols) {
				size_t hard = width(header(t, e));
				hard = hard > 5 ? hard : 5;
				wid[e] = natural > over + hard ? natural - over : hard < natural ? hard : natural;
			}
			return;
		}
		keep[drop] = false;
	}
}

/* The elastic column's cells cut to w columns; NULL where a cell fits. */
struct cut_cell {
	const char *full;
	char *shown;
};

static int by_shown(const void *a, const void *b) {
	const struct cut_cell *x = a, *y = b;
	return strcmp(x->shown ? x->shown : x->full, y->shown ? y->shown : y->full);
}

/* Columns two strings share from their start. */
static size_t common_cols(const char *a, const char *b) {
	size_t i = 0;
	while (a[i] && a[i] == b[i]) {
		i++;
	}
	return tc_text_width(a, i);
}

/*
 * Cut the elastic column's cells (rows 1..) to w columns. Names that would
 * then read alike (kernel templates differ deep inside) also show where
 * each differs from its closest look-alike, so every row stays telling.
 */
static struct cut_cell *cut_column(const struct tc_table *t, size_t c, size_t rows, size_t w) {
	struct cut_cell *cc = tc_xcalloc(rows, sizeof(*cc));
	for (size_t r = 1; r < rows; r++) {
		cc[r].full = t->cells[r * t->ncols + c];
		char *s = tc_text_elide(cc[r].full, w);
		cc[r].shown = s != cc[r].full ? s : NULL;
	}
	/* Sort a copy, so look-alikes sit next to each other. */
	struct cut_cell *sorted = tc_xcalloc(rows, sizeof(*sorted));
	memcpy(sorted, cc + 1, (rows - 1) * sizeof(*cc));
	tc_sort(sorted, rows - 1, sizeof(*sorted), by_shown);
	for (size_t i = 0; i + 1 < rows;) {
		size_t j = i + 1;
		while (j + 1 < rows && sorted[i].shown && by_shown(&sorted[i], &sorted[j]) == 0) {
			j++;
		}
		for (size_t a = i; j > i + 1 && a < j; a++) {
			if (!sorted[a].shown) {
				continue; /* whole: it reads as itself */
			}
			size_t at = 0;
			for (size_t b = i; b < j; b++) {
				size_t k = b == a || strcmp(sorted[a].full, sorted[b].full) == 0 ? 0 :
					common_cols(sorted[a].full, sorted[b].full);
				at = k > at ? k : at;
			}
			for (size_t r = 1; at && r < rows; r++) {
				if (cc[r].shown == sorted[a].shown) {
					cc[r].shown = tc_text_elide_around(cc[r].full, w, at);
					free(sorted[a].shown);
					break;
				}
			}
		}
		i = j;
	}
	free(sorted);
	return cc;
}

static void put_cell(const struct tc_table *t, FILE *f, size_t r, size_t c,
		const struct cut_cell *cc) {
	const char *s = r == 0 ? header(t, c) : t->cells[r * t->ncols + c];
	enum tc_style st = (enum tc_style)t->styles[r * t->ncols + c];
	fputs(tc_style_on(st), f);
	fputs(cc && r && cc[r].shown ? cc[r].shown : s, f);
	fputs(tc_style_off(st), f);
}

/* "  p50, p99: left out to fit 80 columns (--wide shows them)" */
static void dropped_note(const struct tc_table *t, FILE *f, const bool *keep,
		const char *indent, size_t limit) {
	size_t k = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		if (!keep[c]) {
			fprintf(f, "%s%s", k++ ? ", " : indent, header(t, c));
		}
	}
	if (k) {
		fprintf(f, ": left out to fit %zu columns (--wide shows %s)\n", limit,
			k > 1 ? "them" : "it");
	}
}

static void print(const struct tc_table *t, FILE *f, const char *indent) {
	size_t rows = t->n / t->ncols;
	size_t *wid = tc_xcalloc(t->ncols, sizeof(*wid));
	bool *keep = tc_xcalloc(t->ncols, sizeof(*keep));
	for (size_t c = 0; c < t->ncols; c++) {
		keep[c] = true;
		for (size_t r = 0; r < rows; r++) {
			size_t w = width(r == 0 ? header(t, c) : t->cells[r * t->ncols + c]);
			wid[c] = w > wid[c] ? w : wid[c];
		}
	}
	size_t limit = tc_g_termout.width;
	if (limit) {
		fit(t, wid, keep, width(indent), limit);
	}
	size_t last = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		last = keep[c] ? c : last;
	}
	size_t e = t->elastic ? t->elastic - 1 : 0;
	struct cut_cell *cc = t->elastic && keep[e] && rows > 1 ?
		cut_column(t, e, rows, wid[e]) : NULL;
	for (size_t r = 0; r < rows; r++) {
		fputs(indent, f);
		bool sep = false;
		for (size_t c = 0; c < t->ncols; c++) {
			if (!keep[c]) {
				continue;
			}
			const char *s = r == 0 ? header(t, c) : t->cells[r * t->ncols + c];
			size_t w = width(s);
			w = w < wid[c] ? w : wid[c];
			bool right = t->cells[c][0] == '>';
			fputs(sep ? "  " : "", f);
			sep = true;
			if (right) {
				fprintf(f, "%*s", (int)(wid[c] - w), "");
			}
			put_cell(t, f, r, c, c == e ? cc : NULL);
			if (!right && c != last) {
				fprintf(f, "%*s", (int)(wid[c] - w), "");
			}
		}
		fputc('\n', f);
	}
	if (limit) {
		dropped_note(t, f, keep, indent, limit);
	}
	for (size_t r = 1; cc && r < rows; r++) {
		free(cc[r].shown);
	}
	free(cc);
	free(keep);
	free(wid);
}

/*
 * The table as printed: with short names on, the elastic column's
 * signatures shortened, distinct within the column. NULL when as stored.
 */
static char **short_cells(const struct tc_table *t) {
	size_t rows = t->n / t->ncols;
	if (!tc_g_termout.short_names || !t->elastic || rows < 2) {
		return NULL;
	}
	size_t e = t->elastic - 1;
	char **cells = tc_xcalloc(t->n, sizeof(*cells));
	memcpy(cells, t->cells, t->n * sizeof(*cells));
	const char **full = tc_xcalloc(rows - 1, sizeof(*full));
	char **shown = tc_xcalloc(rows - 1, sizeof(*shown));
	for (size_t r = 1; r < rows; r++) {
		full[r - 1] = t->cells[r * t->ncols + e];
	}
	tc_cxxname_distinct(full, rows - 1, shown);
	for (size_t r = 1; r < rows; r++) {
		cells[r * t->ncols + e] = shown[r - 1];
	}
	free(shown);
	free(full);
	return cells;
}

void tc_table_print(const struct tc_table *t, FILE *f, const char *indent) {
	char **cells = short_cells(t);
	if (cells) {
		struct tc_table view = *t;
		view.cells = cells;
		print(&view, f, indent);
		for (size_t r = 1; r < t->n / t->ncols; r++) {
			free(cells[r * t->ncols + t->elastic - 1]);
		}
		free(cells);
		return;
	}
	print(t, f, indent);
}

void tc_table_finish(struct tc_table *t) {
	if (!t) {
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		free(t->cells[i]);
	}
	free(t->cells);
	free(t->styles);
	free(t->drop);
	memset(t, 0, sizeof(*t));
}
