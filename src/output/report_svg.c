#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/rank.h"
#include "output/fmt.h"
#include "output/markup.h"
#include "output/report_svg.h"
#include "util/cxxname.h"
#include "util/termout.h"
#include "util/xalloc.h"

/*
 * Layout: every chart is W wide, labels in the left margin L, the plot
 * PW wide. Coordinates are written with one decimal, enough for a screen
 * and short enough to keep a few thousand shapes small.
 */
#define W 1200
#define L 180
#define PW (W - L - 20)
#define STEPS_DRAWN 400   /* bars over all ranks */
#define HEAT_COLS 200
/* Heatmap cells per panel over all ranks: a job of 512 ranks drew 100,000
 * (30 MB of page). More steps than columns go in bins of equal count. */
#define HEAT_CELLS 8000
#define HEAT_MIN_COLS 16
#define UTIL_ROWS 32

/* Category colours are the CSS classes c0.. (enum tc_bd_cat order). */
static const char *const line_fill[] = {
	"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#9c755f", "#edc948",
};

const char tc_report_svg_css[] =
	".c0{fill:#4e79a7}.c1{fill:#f28e2b}.c2{fill:#e15759}.c3{fill:#76b7b2}"
	".c4{fill:#59a14f}.c5{fill:#edc948}.c6{fill:#b07aa1}.c7{fill:#ff9da7}"
	".c8{fill:#9c755f}.c9{fill:#8cd17d}.c10{fill:#bab0ac}.c11{fill:#dddddd}"
	".ax{stroke:#999;stroke-width:1}.warm{opacity:.45}.u{fill:#4e79a7}.h{fill:#b2182b}";

char *tc_report_ms(char *buf, int64_t ps) {
	snprintf(buf, TC_FMT_LEN, "%.3f ms", (double)ps / 1e9);
	return buf;
}

/*
 * A label s cut to n bytes (on a UTF-8 boundary); full, the text s stands
 * for, in a title when s is not all of it.
 */
static void label_of(FILE *f, double x, double y, const char *anchor, const char *s,
		const char *full, size_t n) {
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	size_t len = strlen(s);
	if (len <= n) {
		if (strcmp(s, full) != 0) {
			fputs("<title>", f);
			tc_markup_escape(f, full);
			fputs("</title>", f);
		}
		tc_markup_escape(f, s);
	} else {
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) {
			n--;
		}
		char buf[128];
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1), s);
		fputs("<title>", f);
		tc_markup_escape(f, full);
		fputs("</title>", f);
		tc_markup_escape(f, buf);
		fputs("&hellip;", f);
	}
	fputs("</text>", f);
}

static void label(FILE *f, double x, double y, const char *anchor, const char *s, size_t n) {
	label_of(f, x, y, anchor, s, s, n);
}

static const char *dev_name(const struct tc_model *m, uint32_t d) {
	return d < m->n_devices ? tc_model_str(m, m->devices[d].name) : "host";
}

/* With several inputs each device is named with its rank: the ranks'
 * devices often share a name ("GPU 0"). */
static const char *dev_label(const struct tc_model *m, uint32_t d, char *buf, size_t n) {
	const char *name = dev_name(m, d);
	uint32_t h = d < m->n_devices ? m->devices[d].host : TC_NONE;
	if (m->n_sources < 2 || h >= m->n_hosts || m->hosts[h].source >= m->n_sources) {
		return name;
	}
	char rank[128];
	tc_model_source_rank(m, m->hosts[h].source, rank, sizeof(rank));
	snprintf(buf, n, "%s (%s)", name, rank);
	return buf;
}

static void svg_begin(FILE *f, const char *id, const char *title, int h) {
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n<svg width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\">\n", id, title, W, h, W, h);
}

/* Time axis under a plot of the span [0, span_ps) at y. */
static void time_axis(FILE *f, double y, int64_t span_ps) {
	char x[TC_FMT_LEN];
	fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", L, y,
		L + PW, y);
	for (int k = 0; k <= 4; k++) {
		double px = L + PW * k / 4.0;
		fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			px, y, px, y + 4);
		label(f, px, y + 16, k == 0 ? "start" : k == 4 ? "end" : "middle",
			tc_report_ms(x, (int64_t)((double)span_ps * k / 4)), 40);
	}
	fputc('\n', f);
}

/* Legend of the categories with their totals over the counted steps
 * (step_breakdown.breakdown_ps of the embedded JSON). */
static void cat_legend(FILE *f, const struct tc_analysis *a) {
	char x[TC_FMT_LEN];
	int col = 0;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		double px = L + (col % 6) * (PW / 6.0), py = 8 + (col / 6) * 16;
		col++;
		fprintf(f, "<g class=\"legend\" data-cat=\"%s\" data-ps=\"%" PRId64 "\">"
			"<rect class=\"c%d\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\"/>",
			tc_bd_cat_name((enum tc_bd_cat)c), a->cat_total_ps[c], c, px, py);
		char text[96];
		snprintf(text, sizeof(text), "%s %s", tc_bd_cat_name((enum tc_bd_cat)c),
			tc_report_ms(x, a->cat_total_ps[c]));
		label(f, px + 14, py + 9, "start", text, 60);
		fputs("</g>\n", f);
	}
}

static void step_bar(FILE *f, const struct tc_step *st, double x, double bw, double y0,
		double ph, double ymax) {
	char t[TC_FMT_LEN];
	fprintf(f, "<g class=\"step%s\" data-step=\"%" PRId64 "\" data-ps=\"%" PRId64 "\">"
		"<title>step %" PRId64 "%s: %s", st->warmup || st->partial ? " warm" : "", st->num,
		st->dur_ps, st->num, st->warmup ? " (warm-up)" : st->partial ? " (partial)" : "",
		tc_report_ms(t, st->dur_ps));
	int64_t sum = 0;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		if (st->cat_ps[c]) {
			fprintf(f, "; %s %s", tc_bd_cat_name((enum tc_bd_cat)c),
				tc_report_ms(t, st->cat_ps[c]));
			sum += st->cat_ps[c];
		}
	}
	fputs("</title>", f);
	double bottom = y0 + ph, w = bw > 2 ? bw * 0.85 : bw;
	if (sum == 0) {
		/* No attribution (no device): the step's length alone. */
		double h = ph * (double)st->dur_ps / ymax;
		fprintf(f, "<rect class=\"c11\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>", x, bottom - h, w, h);
	}
	for (int c = 0; c < TC_BD_COUNT; c++) {
		if (!st->cat_ps[c]) {
			continue;
		}
		double h = ph * (double)st->cat_ps[c] / ymax;
		bottom -= h;
		fprintf(f, "<rect class=\"c%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.2f\"/>", c, x, bottom, w, h);
	}
	fputs("</g>\n", f);
}

/* Stacked bars of each step's attribution, one row of bars per rank. */
void tc_report_svg_steps(FILE *f, const struct tc_report *r) {
	const int ph = 150, gap = 36, top = 48;
	size_t cap = r->n_ranks ? STEPS_DRAWN / r->n_ranks : STEPS_DRAWN;
	cap = cap < 25 ? 25 : cap > 300 ? 300 : cap;
	int64_t ymax = 1;
	for (size_t k = 0; k < r->n_ranks; k++) {
		for (size_t i = 0; i < r->ranks[k].n_steps && i < cap; i++) {
			int64_t d = r->ranks[k].steps[i].dur_ps;
			ymax = d > ymax ? d : ymax;
		}
	}
	int h = top + (int)r->n_ranks * (ph + gap) + 4;
	svg_begin(f, "steps", "Step time attribution", h);
	cat_legend(f, r->a);
	char x[TC_FMT_LEN];
	for (size_t k = 0; k < r->n_ranks; k++) {
		const struct tc_report_rank *rk = &r->ranks[k];
		double y0 = top + (double)k * (ph + gap);
		label(f, L - 8, y0 + ph / 2.0, "end", rk->label, 28);
		label(f, L - 8, y0 + 10, "end", tc_report_ms(x, ymax), 40);
		fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			"<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			L, y0, L, y0 + ph, L, y0 + ph, L + PW, y0 + ph);
		size_t n = rk->n_steps < cap ? rk->n_steps : cap;
		double bw = n ? (double)PW / (double)n : PW;
		for (size_t i = 0; i < n; i++) {
			step_bar(f, &rk->steps[i], L + bw * (double)i, bw, y0, ph, (double)ymax);
		}
		char text[160];
		if (!rk->n_steps) {
			snprintf(text, sizeof(text), "no steps");
		} else {
			snprintf(text, sizeof(text), "steps %" PRId64 " to %" PRId64 " (%zu of %zu)",
				rk->steps[0].num, rk->steps[n - 1].num, n, rk->n_steps);
		}
		label(f, L, y0 + ph + 14, "start", text, 160);
	}
	fputs("</svg>\n", f);
	for (size_t k = 0; k < r->n_ranks; k++) {
		const struct tc_report_rank *rk = &r->ranks[k];
		if (rk->n_steps <= cap) {
			continue;
		}
		int64_t rest = 0;
		for (size_t i = cap; i < rk->n_steps; i++) {
			rest += rk->steps[i].dur_ps;
		}
		fputs("<p class=\"note\">", f);
		tc_markup_escape(f, rk->label);
		fprintf(f, ": %zu more steps not drawn, mean %s.</p>\n", rk->n_steps - cap,
			tc_report_ms(x, rest / (int64_t)(rk->n_steps - cap)));
	}
	fputs("<p class=\"note\">Each bar is one step; its parts are the disjoint categories "
		"that sum to the step time (faded: warm-up or partial steps, left out of the "
		"totals).</p>\n</section>\n", f);
}

/* Busy fraction of each device in fixed time bins. */
void tc_report_svg_util(FILE *f, const struct tc_report *r) {
	const struct tc_timeline *tl = r->tl;
	const int rh = 16, gap = 6;
	size_t n = tl->n_dev < UTIL_ROWS ? tl->n_dev : UTIL_ROWS;
	int h = 8 + (int)n * (rh + gap) + 24;
	svg_begin(f, "utilization", "Device utilisation over time", h);
	int64_t span = tl->hi_ps - tl->lo_ps;
	double bw = (double)PW / TC_TL_BINS;
	char x[2][TC_FMT_LEN];
	for (size_t d = 0; d < n; d++) {
		const struct tc_tl_device *td = &tl->dev[d];
		double y = 8 + (double)d * (rh + gap);
		fprintf(f, "<g class=\"device\" data-busy-ps=\"%" PRId64 "\">", td->busy_ps);
		char name[256];
		label(f, L - 8, y + 12, "end", dev_label(r->m, td->device, name, sizeof(name)), 28);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"/>",
			L, y, PW, rh);
		for (size_t b = 0; b < TC_TL_BINS; b++) {
			double v = td->busy[b];
			if (v < 0.005) {
				continue;
			}
			int64_t lo = (int64_t)((double)span * (double)b / TC_TL_BINS);
			fprintf(f, "<rect class=\"u\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill-opacity=\"%.2f\"><title>%s + %s: %.0f %% busy</title></rect>",
				L + bw * (double)b, y, bw, rh, v, tc_report_ms(x[0], lo),
				tc_report_ms(x[1], span / TC_TL_BINS), 100 * v);
		}
		fputs("</g>\n", f);
	}
	time_axis(f, 8 + (double)n * (rh + gap), span);
	fputs("</svg>\n", f);
	if (tl->n_dev > n) {
		fprintf(f, "<p class=\"note\">%zu more devices not drawn.</p>\n", tl->n_dev - n);
	}
	fprintf(f, "<p class=\"note\">Darker is busier: the share of each of %d equal time bins "
		"covered by the device's work (the union of its kernels, copies and "
		"collectives), from the trace's first event.</p>\n</section>\n", TC_TL_BINS);
}

/*
 * Op label i cut to 60 columns in the middle, as the tables cut, and where
 * it would then read like another op's, around where the two differ.
 */
static char *op_label(char *const *shown, size_t n, size_t i) {
	char *cut = tc_text_elide(shown[i], 60);
	size_t at = 0;
	for (size_t j = 0; cut != shown[i] && j < n; j++) {
		char *other = tc_text_elide(shown[j], 60);
		if (j != i && strcmp(cut, other) == 0 && strcmp(shown[i], shown[j]) != 0) {
			size_t k = 0;
			while (shown[i][k] && shown[i][k] == shown[j][k]) {
				k++;
			}
			k = tc_text_width(shown[i], k);
			at = k > at ? k : at;
		}
		if (other != shown[j]) {
			free(other);
		}
	}
	if (at) {
		free(cut);
		cut = tc_text_elide_around(shown[i], 60, at);
	}
	return cut;
}

/* The op table of `tracectl ops` (by name, device scope), top rows. */
void tc_report_svg_ops(FILE *f, const struct tc_report *r) {
	const struct tc_op_table *t = &r->a->ops;
	const int rh = 20, lw = 420;
	size_t n = t->n < r->top ? t->n : r->top;
	int h = 8 + (int)(n ? n : 1) * rh + 8;
	svg_begin(f, "ops", "Top ops", h);
	int64_t max = n ? t->rows[0].total_ps : 1;
	for (size_t i = 0; i < n; i++) {
		max = t->rows[i].total_ps > max ? t->rows[i].total_ps : max;
	}
	max = max > 0 ? max : 1;
	char x[TC_FMT_LEN];
	/* Kernel signatures by their short names, distinct among the rows
	 * drawn (util/cxxname.h); the full name in the title. */
	const char **full = tc_xcalloc(n ? n : 1, sizeof(*full));
	char **shown = tc_xcalloc(n ? n : 1, sizeof(*shown));
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		full[i] = o->label ? o->label : tc_model_str(r->m, o->name);
	}
	tc_cxxname_distinct(full, n, shown);
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		double y = 8 + (double)i * rh;
		double bw = (double)(W - lw - 200) * (double)o->total_ps / (double)max;
		fprintf(f, "<g class=\"op\" data-ps=\"%" PRId64 "\" data-count=\"%" PRIu64 "\">",
			o->total_ps, o->count);
		char *cut = op_label(shown, n, i);
		label_of(f, lw - 8, y + 13, "end", cut, full[i], 60);
		if (cut != shown[i]) {
			free(cut);
		}
		fprintf(f, "<rect class=\"c0\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>",
			lw, y + 2, bw, rh - 5);
		char text[96];
		snprintf(text, sizeof(text), "%s, %.1f %%, %" PRIu64 " calls",
			tc_report_ms(x, o->total_ps), 100 * o->share, o->count);
		label(f, lw + bw + 6, y + 13, "start", text, 90);
		fputs("</g>\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		free(shown[i]);
	}
	free(shown);
	free(full);
	if (!n) {
		label(f, L, 20, "start", "no ops", 20);
	}
	fputs("</svg>\n<p class=\"note\">Total time per op name over ", f);
	tc_markup_escape(f, t->scope ? t->scope : "device");
	fputs(" tracks; the share is of ", f);
	tc_markup_escape(f, t->share_of ? t->share_of : "");
	fputs(" (as 'tracectl ops').</p>\n</section>\n", f);
}

static double mem_y(double v, double vmax, double y0, double ph) {
	return y0 + ph - ph * v / vmax;
}

/* Allocated and reserved memory over time, each counter's peak marked. */
void tc_report_svg_memory(FILE *f, const struct tc_report *r) {
	const struct tc_timeline *tl = r->tl;
	const struct tc_analysis *a = r->a;
	const double y0 = 10, ph = 200;
	int h = (int)(y0 + ph + 24 + 18 * (double)tl->n_mem);
	svg_begin(f, "memory", "Memory", h);
	double vmax = 1;
	for (size_t c = 0; c < tl->n_mem; c++) {
		vmax = a->mem[c].peak_bytes > vmax ? a->mem[c].peak_bytes : vmax;
	}
	int64_t span = tl->hi_ps - tl->lo_ps;
	char x[TC_FMT_LEN];
	label(f, L - 8, y0 + 10, "end", tc_fmt_bytes(x, vmax), 40);
	fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		L, y0, L, y0 + ph);
	double bw = (double)PW / TC_TL_BINS;
	for (size_t c = 0; c < tl->n_mem; c++) {
		const struct tc_tl_counter *tc = &tl->mem[c];
		const struct tc_mem_peak *p = &a->mem[c];
		const char *col = line_fill[c % (sizeof(line_fill) / sizeof(line_fill[0]))];
		fprintf(f, "<g class=\"counter\" data-peak-bytes=\"%.0f\"><polyline fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"1.5\" points=\"", p->peak_bytes, col);
		for (size_t b = 0; b < TC_TL_BINS; b++) {
			if (tc->has[b]) {
				fprintf(f, "%.1f,%.1f ", L + bw * ((double)b + 0.5),
					mem_y(tc->max[b], vmax, y0, ph));
			}
		}
		fputs("\"/>", f);
		double px = span > 0 ? L + PW * (double)(p->peak_ts_ps - tl->lo_ps) / (double)span : L;
		double py = mem_y(p->peak_bytes, vmax, y0, ph);
		char b[2][TC_FMT_LEN], text[400], name[256];
		snprintf(text, sizeof(text), "%s %s%s%s: peak %s at %s",
			dev_label(r->m, p->device, name, sizeof(name)),
			tc_model_str(r->m, p->name), p->group ? " " : "",
			p->group ? tc_model_str(r->m, p->group) : "", tc_fmt_bytes(b[0], p->peak_bytes),
			tc_report_ms(b[1], p->peak_ts_ps - tl->lo_ps));
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", px, py, col);
		tc_markup_escape(f, text);
		fputs("</title></circle>", f);
		double ly = y0 + ph + 30 + 18 * (double)c;
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>", L,
			ly - 5, col);
		label(f, L + 18, ly, "start", text, 200);
		fputs("</g>\n", f);
	}
	time_axis(f, y0 + ph, span);
	fputs("</svg>\n", f);
	if (tl->n_mem_all > tl->n_mem) {
		fprintf(f, "<p class=\"note\">%zu more memory counters not drawn.</p>\n",
			tl->n_mem_all - tl->n_mem);
	}
	fprintf(f, "<p class=\"note\">The highest sample in each of %d equal time bins; the "
		"dot marks the peak (as 'tracectl bottlenecks' reports it).</p>\n</section>\n",
		TC_TL_BINS);
}

/* Step i's value in a heat panel: its time, or its category cat's. */
static int64_t heat_value(const struct tc_step *st, int cat) {
	return cat < 0 ? st->dur_ps : st->cat_ps[cat];
}

/* Cell c of rank k: the largest value of its bin of per steps (the bin
 * from step c * per); false past the rank's steps. */
static bool heat_cell(const struct tc_report_rank *rk, size_t c, size_t per, int cat,
		int64_t *v, size_t *lo, size_t *hi) {
	*lo = c * per;
	if (*lo >= rk->n_steps) {
		return false;
	}
	*hi = *lo + per < rk->n_steps ? *lo + per : rk->n_steps;
	*v = heat_value(&rk->steps[*lo], cat);
	for (size_t i = *lo + 1; i < *hi; i++) {
		int64_t x = heat_value(&rk->steps[i], cat);
		*v = x > *v ? x : *v;
	}
	return true;
}

static void heat_panel(FILE *f, const struct tc_report *r, double y0, int rh, size_t cols,
		size_t per, int cat, const char *title) {
	int64_t lo = INT64_MAX, hi = 0, v;
	size_t a, b;
	for (size_t k = 0; k < r->n_ranks; k++) {
		for (size_t c = 0; c < cols && heat_cell(&r->ranks[k], c, per, cat, &v, &a, &b); c++) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	char x[2][TC_FMT_LEN], text[200];
	snprintf(text, sizeof(text), "%s (%s to %s)", title, tc_report_ms(x[0], lo == INT64_MAX ? 0 :
		lo), tc_report_ms(x[1], hi));
	label(f, L, y0 - 6, "start", text, 200);
	double cw = (double)PW / (double)(cols ? cols : 1);
	for (size_t k = 0; k < r->n_ranks; k++) {
		const struct tc_report_rank *rk = &r->ranks[k];
		double y = y0 + (double)k * rh;
		label(f, L - 8, y + rh - 4, "end", rk->label, 28);
		for (size_t c = 0; c < cols && heat_cell(rk, c, per, cat, &v, &a, &b); c++) {
			double op = hi > lo ? 0.08 + 0.92 * (double)(v - lo) / (double)(hi - lo) :
				v > 0 ? 0.5 : 0.04;
			fprintf(f, "<rect class=\"h\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill-opacity=\"%.2f\" data-ps=\"%" PRId64 "\"><title>", L + cw * (double)c, y,
				cw, rh - 1, op, v);
			tc_markup_escape(f, rk->label);
			if (b - a == 1) {
				fprintf(f, " step %" PRId64 ": %s</title></rect>", rk->steps[a].num,
					tc_report_ms(x[0], v));
			} else {
				fprintf(f, " steps %" PRId64 " to %" PRId64 ": longest %s</title></rect>",
					rk->steps[a].num, rk->steps[b - 1].num, tc_report_ms(x[0], v));
			}
		}
		fputc('\n', f);
	}
}

/* Step time and exposed communication per rank and step. */
void tc_report_svg_heatmap(FILE *f, const struct tc_report *r) {
	const int rh = 16;
	size_t cols = 0;
	for (size_t k = 0; k < r->n_ranks; k++) {
		cols = r->ranks[k].n_steps > cols ? r->ranks[k].n_steps : cols;
	}
	size_t all = cols;
	size_t room = HEAT_CELLS / (r->n_ranks ? r->n_ranks : 1);
	room = room < HEAT_MIN_COLS ? HEAT_MIN_COLS : room > HEAT_COLS ? HEAT_COLS : room;
	/* Every step drawn: more than room go in bins of per steps. */
	size_t per = all > room ? (all + room - 1) / room : 1;
	cols = (all + per - 1) / per;
	double panel = 24 + (double)r->n_ranks * rh;
	svg_begin(f, "ranks", "Ranks", (int)(2 * panel + 16));
	heat_panel(f, r, 20, rh, cols, per, -1, "step time");
	heat_panel(f, r, 20 + panel, rh, cols, per, TC_BD_COLLECTIVE, "exposed communication");
	fputs("</svg>\n", f);
	if (per > 1) {
		fprintf(f, "<p class=\"note\">Each cell is the longest of %zu steps in a row "
			"(%zu steps in %zu columns).</p>\n", per, all, cols);
	}
	fputs("<p class=\"note\">One row per rank (input file), one column per step (or bin of "
		"steps) in the rank's order; darker is longer. Exposed communication is the collective "
		"category of the attribution: collective time not hidden behind compute or "
		"copies.</p>\n</section>\n", f);
}
