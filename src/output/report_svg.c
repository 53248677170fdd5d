/*
 * The report's inline SVG charts: step times, utilisation over time, top
 * ops, memory and the rank heatmap, each bounded in size.
 */
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
	".ax{stroke:#999;stroke-width:1}.grid{stroke:#e6e6e6;stroke-width:1}"
	".u{fill:#4e79a7}.h{fill:#b2182b}.up{fill:#d6604d}.down{fill:#4393c3}"
	".base{fill:#9a9a9a}.test{fill:#4e79a7}";

char *tc_report_ms(char *buf, int64_t ps) {
	snprintf(buf, TC_FMT_LEN, "%.3f ms", (double)ps / 1e9);
	return buf;
}

/*
 * A label s cut to n bytes (on a UTF-8 boundary); full, the text s stands
 * for, in a title when s is not all of it.
 */
static void label_of(FILE *f, const char *cls, double x, double y, const char *anchor,
		const char *s, const char *full, size_t n) {
	fprintf(f, "<text%s%s%s x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "", x, y, anchor);
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

/* A label cut to n bytes, the full text in a title. */
void tc_report_label(FILE *f, const char *cls, double x, double y, const char *anchor,
		const char *s, size_t n) {
	label_of(f, cls, x, y, anchor, s, s, n);
}

static void label(FILE *f, double x, double y, const char *anchor, const char *s, size_t n) {
	tc_report_label(f, NULL, x, y, anchor, s, n);
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

void tc_report_svg_begin(FILE *f, const char *id, const char *title, int h) {
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n<svg width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\">\n", id, title, W, h, W, h);
}

/* A tick step of 1, 2 or 5 times a power of ten: at most n ticks to max. */
static double nice_step(double max, int n) {
	if (!(max > 0)) {
		return 1;
	}
	double raw = max / n, p = pow(10, floor(log10(raw))), q = raw / p;
	return p * (q <= 1.000001 ? 1 : q <= 2.000001 ? 2 : q <= 5.000001 ? 5 : 10);
}

struct unit {
	double div;
	const char *name;
};

/* Seconds past 10 s (ms would read 60000), else ms, us or ns. */
static struct unit time_unit(double max_ps) {
	return max_ps > 10e12 ? (struct unit){ 1e12, "s" } :
		max_ps >= 1e9 ? (struct unit){ 1e9, "ms" } :
		max_ps >= 1e6 ? (struct unit){ 1e6, "us" } : (struct unit){ 1e3, "ns" };
}

static struct unit byte_unit(double max) {
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	struct unit u = { 1, names[0] };
	for (int k = 1; k < 5 && max >= u.div * 1024; k++) {
		u = (struct unit){ u.div * 1024, names[k] };
	}
	return u;
}

/* The step of ticks up to max in unit u, itself a round number of u. */
static double unit_step(double max, int n, struct unit u) {
	return nice_step(max / u.div, n) * u.div;
}

/* v in unit u with the decimals that ticks step apart need. */
static char *tick_text(char *buf, double v, double step, struct unit u) {
	double s = step / u.div;
	int dec = s >= 1 ? 0 : (int)ceil(-log10(s) - 1e-9);
	snprintf(buf, TC_FMT_LEN, "%.*f %s", dec, v / u.div, u.name);
	return buf;
}

/* A time on an axis of span ps, in the axis' unit with 3 decimals. */
static char *time_text(char *buf, double ps, double span) {
	struct unit u = time_unit(span);
	snprintf(buf, TC_FMT_LEN, "%.3f %s", ps / u.div, u.name);
	return buf;
}

/* Time axis under a plot of [0, span_ps) drawn from x0, w wide, at y:
 * round ticks with their unit. */
static void time_axis(FILE *f, double x0, double w, double y, int64_t span_ps, int n) {
	char x[TC_FMT_LEN];
	fprintf(f, "<g class=\"xaxis\"><line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>", x0, y, x0 + w, y);
	double span = span_ps > 0 ? (double)span_ps : 1;
	struct unit u = time_unit(span);
	double step = unit_step(span, n, u);
	for (double v = 0; v <= span * (1 + 1e-9); v += step) {
		double px = x0 + w * v / span;
		fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			px, y, px, y + 4);
		tc_report_label(f, "xtick", px, y + 16, v == 0 ? "start" : "middle",
			tick_text(x, v, step, u), 40);
	}
	fputs("</g>\n", f);
}

/* A y axis from 0 to top (a multiple of step) over [y0, y0 + ph] with
 * grid lines across w from x0; tick labels left of x0 unless bare. */
static void y_axis(FILE *f, double x0, double w, double y0, double ph, double top, double step,
		struct unit u, bool bare) {
	char x[TC_FMT_LEN];
	fputs("<g class=\"yaxis\">", f);
	for (double v = 0; v <= top * (1 + 1e-9); v += step) {
		double py = y0 + ph - ph * v / top;
		fprintf(f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			v == 0 ? "ax" : "grid", x0, py, x0 + w, py);
		if (!bare) {
			tc_report_label(f, "ytick", x0 - 5, py + 4, "end", tick_text(x, v, step, u), 40);
		}
	}
	fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
		x0, y0, x0, y0 + ph);
}

/* The top of a y axis over max: the first tick at or above it. */
static double axis_top(double max, double step) {
	double top = ceil(max / step - 1e-9) * step;
	return top > 0 ? top : step;
}

/* Warm-up and partial steps are hatched: faded colours would read as
 * other categories. */
static const char hatch_def[] =
	"<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	"patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
	"stroke=\"#fff\" stroke-width=\"2.5\"/></pattern></defs>\n";

/* Categories drawn: any with time over the counted steps or in a bar. */
static void cats_drawn(const struct tc_report *r, size_t cap, bool *on) {
	for (int c = 0; c < TC_BD_COUNT; c++) {
		on[c] = false;
		for (size_t k = 0; k < r->n_runs && !r->diff; k++) {
			on[c] |= r->run[k].a->cat_total_ps[c] != 0;
		}
	}
	for (size_t k = 0; k < r->n_ranks; k++) {
		for (size_t i = 0; i < r->ranks[k].n_steps && i < cap; i++) {
			for (int c = 0; c < TC_BD_COUNT; c++) {
				on[c] |= r->ranks[k].steps[i].cat_ps[c] != 0;
			}
		}
	}
}

/* Legend of the categories drawn, with their totals over the counted
 * steps (step_breakdown.breakdown_ps of the embedded JSON; with --diff
 * the attribution section has them), and the hatching. */
static void cat_legend(FILE *f, const struct tc_report *r, const bool *on, bool hatched) {
	char x[TC_FMT_LEN];
	int col = 0;
	for (int c = 0; c <= TC_BD_COUNT; c++) {
		if (c < TC_BD_COUNT && !on[c]) {
			continue;
		}
		if (c == TC_BD_COUNT && !hatched) {
			break;
		}
		double px = L + (col % 6) * (PW / 6.0), py = 8 + (col / 6) * 16;
		col++;
		char text[96];
		if (c == TC_BD_COUNT) {
			fprintf(f, "<g class=\"legend-hatch\"><rect class=\"c11\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"10\" height=\"10\"/><rect x=\"%.1f\" y=\"%.1f\" width=\"10\" "
				"height=\"10\" fill=\"url(#hatch)\"/>", px, py, px, py);
			snprintf(text, sizeof(text), "warm-up or partial (not counted)");
		} else {
			const char *name = tc_bd_cat_name((enum tc_bd_cat)c);
			fprintf(f, "<g class=\"legend\" data-cat=\"%s\"", name);
			if (!r->diff) {
				int64_t v = r->run[0].a->cat_total_ps[c];
				fprintf(f, " data-ps=\"%" PRId64 "\"", v);
				/* Drawn only in warm-up or partial steps. */
				snprintf(text, sizeof(text), "%s %s", name,
					v ? time_text(x, (double)v, (double)v) : "(not counted)");
			} else {
				snprintf(text, sizeof(text), "%s", name);
			}
			fprintf(f, "><rect class=\"c%d\" x=\"%.1f\" y=\"%.1f\" width=\"10\" "
				"height=\"10\"/>", c, px, py);
		}
		label(f, px + 14, py + 9, "start", text, 60);
		fputs("</g>\n", f);
	}
}

static void step_bar(FILE *f, const struct tc_step *st, double x, double bw, double y0,
		double ph, double ymax) {
	char t[TC_FMT_LEN];
	bool warm = st->warmup || st->partial;
	fprintf(f, "<g class=\"step%s\" data-step=\"%" PRId64 "\" data-ps=\"%" PRId64 "\">"
		"<title>step %" PRId64 "%s: %s", warm ? " warm" : "", st->num,
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
	double total = ph * (double)(sum ? sum : st->dur_ps) / ymax;
	if (sum == 0) {
		/* No attribution (no device): the step's length alone. */
		fprintf(f, "<rect class=\"c11\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>", x, bottom - total, w, total);
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
	if (warm) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.2f\" "
			"fill=\"url(#hatch)\"/>", x, y0 + ph - total, w, total);
	}
	fputs("</g>\n", f);
}

/* Every k-th bar numbered, k the first of 1, 2, 5, 10, 20, ... that
 * leaves room for the longest number. */
static size_t num_every(const struct tc_report_rank *rk, size_t n, double bw) {
	char buf[32];
	size_t len = 1;
	for (size_t i = 0; i < n; i++) {
		size_t l = (size_t)snprintf(buf, sizeof(buf), "%" PRId64, rk->steps[i].num);
		len = l > len ? l : len;
	}
	double need = 7.0 * (double)len + 4;
	for (size_t k = 1;; k *= 10) {
		for (size_t m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			if ((double)(k * m) * bw >= need || k * m >= n) {
				return k * m;
			}
		}
	}
}

/* One rank's (or run's) bars in the plot [x0, x0 + pw] x [y0, y0 + ph]. */
static void steps_panel(FILE *f, const struct tc_report_rank *rk, size_t cap, double x0,
		double pw, double y0, double ph, double ytop) {
	size_t n = rk->n_steps < cap ? rk->n_steps : cap;
	double bw = n ? pw / (double)n : pw;
	size_t every = n ? num_every(rk, n, bw) : 1;
	for (size_t i = 0; i < n; i++) {
		const struct tc_step *st = &rk->steps[i];
		double x = x0 + bw * (double)i;
		step_bar(f, st, x, bw, y0, ph, ytop);
		if (i % every == 0) {
			char num[32];
			snprintf(num, sizeof(num), "%" PRId64, st->num);
			tc_report_label(f, "stepnum", x + (bw > 2 ? bw * 0.425 : bw / 2), y0 + ph + 12,
				"middle", num, 30);
		}
	}
	char text[160];
	if (!rk->n_steps) {
		snprintf(text, sizeof(text), "no steps");
	} else {
		snprintf(text, sizeof(text), "step (%zu of %zu drawn)", n, rk->n_steps);
	}
	label(f, x0, y0 + ph + 28, "start", text, 160);
	tc_report_label(f, "run", x0, y0 - 6, "start", rk->label, 120);
	fputc('\n', f);
}

/* Stacked bars of each step's attribution on one time scale: a row of
 * bars per rank, or with --diff the two runs side by side. */
void tc_report_svg_steps(FILE *f, const struct tc_report *r) {
	const int ph = 150, gap = 56, top = 58;
	size_t cap = r->n_ranks ? STEPS_DRAWN / r->n_ranks : STEPS_DRAWN;
	cap = cap < 25 ? 25 : cap > 300 ? 300 : cap;
	int64_t ymax = 1;
	bool hatched = false;
	for (size_t k = 0; k < r->n_ranks; k++) {
		for (size_t i = 0; i < r->ranks[k].n_steps && i < cap; i++) {
			const struct tc_step *st = &r->ranks[k].steps[i];
			ymax = st->dur_ps > ymax ? st->dur_ps : ymax;
			hatched |= st->warmup || st->partial;
		}
	}
	bool cols = r->diff != NULL;
	size_t rows = cols ? 1 : r->n_ranks;
	bool on[TC_BD_COUNT];
	cats_drawn(r, cap, on);
	int h = top + (int)rows * (ph + gap);
	tc_report_svg_begin(f, "steps", "Step time attribution", h);
	fputs(hatch_def, f);
	cat_legend(f, r, on, hatched);
	struct unit u = time_unit((double)ymax);
	double step = unit_step((double)ymax, 5, u), ytop = axis_top((double)ymax, step);
	double pw = cols ? (PW - 30) / 2.0 : PW;
	for (size_t k = 0; k < r->n_ranks; k++) {
		double x0 = cols ? L + (double)k * (pw + 30) : L;
		double y0 = top + (cols ? 0 : (double)k * (ph + gap));
		y_axis(f, x0, pw, y0, ph, ytop, step, u, cols && k > 0);
		steps_panel(f, &r->ranks[k], cap, x0, pw, y0, ph, ytop);
	}
	fputs("</svg>\n", f);
	char x[TC_FMT_LEN];
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
	fputs("<p class=\"note\">Each bar is one step, numbered below; its parts are the "
		"disjoint categories that sum to the step time (hatched: warm-up or partial "
		"steps, left out of the totals).</p>\n</section>\n", f);
}

/* One run's device strips from y, on the run's own time axis; returns
 * the height drawn. */
static double util_run(FILE *f, const struct tc_report_run *run, double y) {
	const struct tc_timeline *tl = run->tl;
	const int rh = 16, gap = 6;
	size_t n = tl->n_dev < UTIL_ROWS ? tl->n_dev : UTIL_ROWS;
	double y0 = y;
	if (run->label) {
		tc_report_label(f, "run", L, y + 12, "start", run->label, 120);
		y += 18;
	}
	int64_t span = tl->hi_ps - tl->lo_ps;
	double bw = (double)PW / TC_TL_BINS;
	struct unit u = time_unit((double)span);
	char x[2][TC_FMT_LEN];
	for (size_t d = 0; d < n; d++) {
		const struct tc_tl_device *td = &tl->dev[d];
		double yd = y + (double)d * (rh + gap);
		fprintf(f, "<g class=\"device\" data-busy-ps=\"%" PRId64 "\">", td->busy_ps);
		char name[256];
		label(f, L - 8, yd + 12, "end", dev_label(run->m, td->device, name, sizeof(name)), 28);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"/>",
			L, yd, PW, rh);
		for (size_t b = 0; b < TC_TL_BINS; b++) {
			double v = td->busy[b];
			if (v < 0.005) {
				continue;
			}
			double lo = (double)span * (double)b / TC_TL_BINS;
			fprintf(f, "<rect class=\"u\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill-opacity=\"%.2f\"><title>%s + %s: %.0f %% busy</title></rect>",
				L + bw * (double)b, yd, bw, rh, v, tick_text(x[0], lo, u.div / 1000, u),
				tick_text(x[1], (double)span / TC_TL_BINS, u.div / 1000, u), 100 * v);
		}
		fputs("</g>\n", f);
	}
	y += (double)n * (rh + gap);
	time_axis(f, L, PW, y, span, 8);
	y += 26;
	if (tl->n_dev > n) {
		char text[96];
		snprintf(text, sizeof(text), "%zu more devices not drawn", tl->n_dev - n);
		label(f, L, y + 4, "start", text, 96);
		y += 16;
	}
	return y - y0;
}

/* The height of a chart of each run's block, 8 apart. */
static int runs_height(const struct tc_report *r, double (*height)(const struct tc_report_run *)) {
	double h = 8;
	for (size_t k = 0; k < r->n_runs; k++) {
		h += height(&r->run[k]) + 8;
	}
	return (int)h;
}

/* The height util_run draws. */
static double util_height(const struct tc_report_run *run) {
	size_t n = run->tl->n_dev < UTIL_ROWS ? run->tl->n_dev : UTIL_ROWS;
	return (run->label ? 18 : 0) + (double)n * 22 + 26 + (run->tl->n_dev > n ? 16 : 0);
}

/* Busy fraction of each device in fixed time bins, each run on its own
 * time axis. */
void tc_report_svg_util(FILE *f, const struct tc_report *r) {
	tc_report_svg_begin(f, "utilization", "Device utilisation over time",
		runs_height(r, util_height));
	double y = 8;
	for (size_t k = 0; k < r->n_runs; k++) {
		y += util_run(f, &r->run[k], y) + 8;
	}
	fputs("</svg>\n", f);
	fprintf(f, "<p class=\"note\">Darker is busier: the share of each of %d equal time bins "
		"covered by the device's work (the union of its kernels, copies and "
		"collectives), from the %s first event.</p>\n</section>\n", TC_TL_BINS,
		r->n_runs > 1 ? "run's" : "trace's");
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

void tc_report_op_label(FILE *f, double x, double y, char *const *shown,
		const char *const *full, size_t n, size_t i) {
	char *cut = op_label(shown, n, i);
	label_of(f, NULL, x, y, "end", cut, full[i], 60);
	if (cut != shown[i]) {
		free(cut);
	}
}

/* The op table of `tracectl ops` (by name, device scope), top rows. */
void tc_report_svg_ops(FILE *f, const struct tc_report *r) {
	const struct tc_report_run *run = &r->run[0];
	const struct tc_op_table *t = &run->a->ops;
	const int rh = 20, lw = 420;
	size_t n = t->n < r->top ? t->n : r->top;
	int h = 8 + (int)(n ? n : 1) * rh + 8;
	tc_report_svg_begin(f, "ops", "Top ops", h);
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
		full[i] = o->label ? o->label : tc_model_str(run->m, o->name);
	}
	tc_cxxname_distinct(full, n, shown);
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		double y = 8 + (double)i * rh;
		double bw = (double)(W - lw - 200) * (double)o->total_ps / (double)max;
		fprintf(f, "<g class=\"op\" data-ps=\"%" PRId64 "\" data-count=\"%" PRIu64 "\">",
			o->total_ps, o->count);
		tc_report_op_label(f, lw - 8, y + 13, shown, full, n, i);
		fprintf(f, "<rect class=\"c0\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>",
			lw, y + 2, bw, rh - 5);
		char text[160], rate[TC_FMT_LEN];
		int k = snprintf(text, sizeof(text), "%s, %.1f %%, %" PRIu64 " calls",
			tc_report_ms(x, o->total_ps), 100 * o->share, o->count);
		/* efficiency where the op's FLOPs and the roofline are known */
		if (o->flop_rate > 0 && k > 0 && (size_t)k < sizeof(text)) {
			k += snprintf(text + k, sizeof(text) - (size_t)k, ", %s",
				tc_fmt_rate(rate, o->flop_rate, "FLOP/s"));
		}
		if (o->efficiency >= 0 && k > 0 && (size_t)k < sizeof(text)) {
			snprintf(text + k, sizeof(text) - (size_t)k, " (%.1f %% of its roof)",
				100 * o->efficiency);
		}
		label(f, lw + bw + 6, y + 13, "start", text, 150);
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

/* A counter that stays at 0, or under 1 % of the run's highest peak
 * (4 B of a host counter beside GiB of a GPU's), would draw a flat line
 * on the axis: it is named in a note instead. */
static bool mem_drawn(const struct tc_report_run *run, size_t c) {
	double max = 0;
	for (size_t k = 0; k < run->tl->n_mem; k++) {
		max = run->a->mem[k].peak_bytes > max ? run->a->mem[k].peak_bytes : max;
	}
	double p = run->a->mem[c].peak_bytes;
	return p > 0 && p >= max / 100;
}

bool tc_report_has_memory(const struct tc_report *r) {
	for (size_t k = 0; k < r->n_runs; k++) {
		for (size_t c = 0; c < r->run[k].tl->n_mem; c++) {
			if (mem_drawn(&r->run[k], c)) {
				return true;
			}
		}
	}
	return false;
}

#define MULTI_COLS 4

/* The devices of a run's drawn counters, in first-seen order; their count. */
static size_t mem_devices(const struct tc_report_run *run, uint32_t *dev) {
	size_t n = 0;
	for (size_t c = 0; c < run->tl->n_mem; c++) {
		size_t i = 0;
		while (i < n && dev[i] != run->a->mem[c].device) {
			i++;
		}
		if (mem_drawn(run, c) && i == n) {
			dev[n++] = run->a->mem[c].device;
		}
	}
	return n;
}

/* Counter c of a run in the plot [x0, x0 + pw] x [y0, y0 + ph]: its line,
 * its peak dot, and its legend line at ly (none when ly < 0). */
static void mem_counter(FILE *f, const struct tc_report_run *run, size_t c, const char *col,
		double x0, double pw, double y0, double ph, double vmax, double ly) {
	const struct tc_timeline *tl = run->tl;
	const struct tc_tl_counter *tc = &tl->mem[c];
	const struct tc_mem_peak *p = &run->a->mem[c];
	int64_t span = tl->hi_ps - tl->lo_ps;
	double bw = pw / TC_TL_BINS;
	fprintf(f, "<g class=\"counter\" data-peak-bytes=\"%.0f\"><polyline fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"1.5\" points=\"", p->peak_bytes, col);
	for (size_t b = 0; b < TC_TL_BINS; b++) {
		if (tc->has[b]) {
			fprintf(f, "%.1f,%.1f ", x0 + bw * ((double)b + 0.5),
				y0 + ph - ph * tc->max[b] / vmax);
		}
	}
	fputs("\"/>", f);
	double px = span > 0 ? x0 + pw * (double)(p->peak_ts_ps - tl->lo_ps) / (double)span : x0;
	double py = y0 + ph - ph * p->peak_bytes / vmax;
	char b[2][TC_FMT_LEN], text[400], name[256];
	snprintf(text, sizeof(text), "%s %s%s%s: peak %s at %s",
		dev_label(run->m, p->device, name, sizeof(name)),
		tc_model_str(run->m, p->name), p->group ? " " : "",
		p->group ? tc_model_str(run->m, p->group) : "", tc_fmt_bytes(b[0], p->peak_bytes),
		time_text(b[1], (double)(p->peak_ts_ps - tl->lo_ps), (double)span));
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", px, py, col);
	tc_markup_escape(f, text);
	fputs("</title></circle>", f);
	if (ly >= 0) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>", x0,
			ly - 5, col);
		label(f, x0 + 18, ly, "start", text, 200);
	}
	fputs("</g>\n", f);
}

/* In small multiples a counter's colour says its name (allocated,
 * reserved) across panels; in one plot it tells the counters apart. */
static const char *mem_colour(const struct tc_report_run *run, size_t c, bool multi) {
	if (multi) {
		return strstr(tc_model_str(run->m, run->a->mem[c].name), "reserved") ?
			line_fill[1] : line_fill[0];
	}
	return line_fill[c % (sizeof(line_fill) / sizeof(line_fill[0]))];
}

/* One run's memory from y on the scale 0..vmax: one plot, or small
 * multiples (a panel per device) past MULTI_COLS devices; returns the
 * height drawn. */
static double mem_run(FILE *f, const struct tc_report_run *run, double y, double vmax) {
	const struct tc_timeline *tl = run->tl;
	double y0 = y;
	uint32_t dev[TC_TL_MAX_COUNTERS];
	size_t nd = mem_devices(run, dev);
	if (!nd) {
		return 0;
	}
	if (run->label) {
		tc_report_label(f, "run", L, y + 12, "start", run->label, 120);
		y += 22;
	}
	struct unit u = byte_unit(vmax);
	int64_t span = tl->hi_ps - tl->lo_ps;
	if (nd <= MULTI_COLS) {
		const double ph = 200;
		double step = unit_step(vmax, 5, u), top = axis_top(vmax, step);
		y_axis(f, L, PW, y + 6, ph, top, step, u, false);
		size_t k = 0;
		for (size_t c = 0; c < tl->n_mem; c++) {
			if (mem_drawn(run, c)) {
				mem_counter(f, run, c, mem_colour(run, c, false), L, PW, y + 6, ph, top,
					y + 6 + ph + 36 + 18 * (double)k++);
			}
		}
		time_axis(f, L, PW, y + 6 + ph, span, 8);
		return y + 6 + ph + 30 + 18 * (double)k - y0;
	}
	/* Small multiples on one scale, so panels compare. */
	const double gap = 24, ph = 90, cw = (W - 20 - 60 - gap * (MULTI_COLS - 1)) / MULTI_COLS;
	double step = unit_step(vmax, 3, u), top = axis_top(vmax, step);
	size_t rows = (nd + MULTI_COLS - 1) / MULTI_COLS;
	for (size_t i = 0; i < nd; i++) {
		double x0 = 60 + (double)(i % MULTI_COLS) * (cw + gap);
		double py = y + (double)(i / MULTI_COLS) * (ph + 50) + 16;
		char name[256];
		fputs("<g class=\"multiple\">", f);
		label(f, x0, py - 4, "start", dev_label(run->m, dev[i], name, sizeof(name)), 40);
		y_axis(f, x0, cw, py, ph, top, step, u, i % MULTI_COLS != 0);
		for (size_t c = 0; c < tl->n_mem; c++) {
			if (mem_drawn(run, c) && run->a->mem[c].device == dev[i]) {
				mem_counter(f, run, c, mem_colour(run, c, true), x0, cw, py, ph, top, -1);
			}
		}
		time_axis(f, x0, cw, py + ph, span, 3);
		fputs("</g>\n", f);
	}
	y += (double)rows * (ph + 50) + 10;
	/* The colours' names: one of each counter name drawn. */
	bool seen[2] = { false, false };
	for (size_t c = 0; c < tl->n_mem; c++) {
		const char *col = mem_colour(run, c, true);
		int k = col == line_fill[1];
		if (!mem_drawn(run, c) || seen[k]) {
			continue;
		}
		seen[k] = true;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>",
			60.0 + 160 * k, y + 4, col);
		label(f, 78.0 + 160 * k, y + 9, "start", k ? "reserved" : "allocated", 40);
	}
	return y + 18 - y0;
}

/* The height mem_run draws. */
static double mem_height(const struct tc_report_run *run) {
	uint32_t dev[TC_TL_MAX_COUNTERS];
	size_t nd = mem_devices(run, dev), k = 0;
	if (!nd) {
		return 0;
	}
	for (size_t c = 0; c < run->tl->n_mem; c++) {
		k += mem_drawn(run, c);
	}
	return (run->label ? 22 : 0) + (nd <= MULTI_COLS ? 236 + 18 * (double)k :
		(double)((nd + MULTI_COLS - 1) / MULTI_COLS) * 140 + 28);
}

/* The counters left out as flat, by name with their peaks. */
static void mem_flat_note(FILE *f, const struct tc_report *r, size_t n) {
	fprintf(f, "<p class=\"note\">%zu counter%s flat at 0 on this scale, not drawn:", n,
		n == 1 ? "" : "s");
	size_t k = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct tc_report_run *run = &r->run[i];
		for (size_t c = 0; c < run->tl->n_mem; c++) {
			if (mem_drawn(run, c)) {
				continue;
			}
			const struct tc_mem_peak *p = &run->a->mem[c];
			char name[256], b[TC_FMT_LEN];
			fputs(k++ ? ", " : " ", f);
			if (run->label) {
				fprintf(f, "%s ", run->label);
			}
			tc_markup_escape(f, dev_label(run->m, p->device, name, sizeof(name)));
			fputc(' ', f);
			tc_markup_escape(f, tc_model_str(run->m, p->name));
			fprintf(f, " (peak %s)", tc_fmt_bytes(b, p->peak_bytes));
		}
	}
	fputs(".</p>\n", f);
}

/* Allocated and reserved memory over time, each counter's peak marked;
 * each run on its own time axis. */
/* What the run's largest allocator peak held, by allocating op: the
 * table of 'tracectl memory' for that allocator. */
static void mem_holders(FILE *f, const struct tc_report_run *run) {
	const struct tc_mem_view *v = run->mem;
	const struct tc_model *m = run->m;
	const struct tc_mem_holder *h0;
	const struct tc_mem_device *d = v ? tc_mem_view_top(v, &h0) : NULL;
	if (!d) {
		return;
	}
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	/* The peak's figures marked, for the tests to read. */
	fprintf(f, "<h3 class=\"mem-peak\" data-peak-bytes=\"%" PRId64 "\" data-peak-ps=\"%" PRId64
		"\">", d->peak_bytes, d->peak_ps - run->a->summary.first_ps);
	if (run->label) {
		tc_markup_escape(f, run->label);
		fputs(": ", f);
	}
	fprintf(f, "live at the peak, %s at %s on ", tc_fmt_bytes(b1, (double)d->peak_bytes),
		tc_report_ms(b2, d->peak_ps - run->a->summary.first_ps));
	tc_markup_escape(f, d->device < m->n_devices ? tc_model_str(m, m->devices[d->device].name) :
		"host");
	fputs("</h3>\n<table class=\"mem-holders\">\n<tr><th>op</th><th>scope</th>"
		"<th class=\"n\">bytes</th><th class=\"n\">share</th><th class=\"n\">buffers</th>"
		"<th class=\"n\">oldest</th></tr>\n", f);
	size_t n = d->n_holders < 20 ? d->n_holders : 20;
	for (size_t i = 0; i < n; i++) {
		const struct tc_mem_holder *h = &d->holders[i];
		fputs("<tr><td>", f);
		tc_markup_escape(f, h->before_trace ? "(allocated before the trace)" :
			h->name == TC_NONE ? "(outside any op)" : tc_model_str(m, h->name));
		fputs("</td><td>", f);
		tc_markup_escape(f, h->scope == TC_NONE ? "" : tc_model_str(m, h->scope));
		fprintf(f, "</td><td class=\"n\" data-live-bytes=\"%" PRId64 "\">%s</td>", h->bytes,
			tc_fmt_bytes(b1, (double)h->bytes));
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s"
			"</td></tr>\n", tc_fmt_pct(b1, (double)h->bytes, (double)d->peak_bytes), h->buffers,
			h->oldest_ps < 0 ? "" : tc_fmt_dur(b2, h->oldest_ps));
	}
	if (d->n_holders > n) {
		fprintf(f, "<tr><td colspan=\"6\">%zu more not listed (see 'tracectl memory')</td>"
			"</tr>\n", d->n_holders - n);
	}
	fputs("</table>\n", f);
}

void tc_report_svg_memory(FILE *f, const struct tc_report *r) {
	tc_report_svg_begin(f, "memory", "Memory", runs_height(r, mem_height));
	/* One scale for every run, so runs compare. */
	double vmax = 1;
	for (size_t k = 0; k < r->n_runs; k++) {
		for (size_t c = 0; c < r->run[k].tl->n_mem; c++) {
			double p = r->run[k].a->mem[c].peak_bytes;
			vmax = p > vmax ? p : vmax;
		}
	}
	double y = 8;
	size_t zero = 0, more = 0;
	for (size_t k = 0; k < r->n_runs; k++) {
		const struct tc_timeline *tl = r->run[k].tl;
		y += mem_run(f, &r->run[k], y, vmax) + 8;
		for (size_t c = 0; c < tl->n_mem; c++) {
			zero += !mem_drawn(&r->run[k], c);
		}
		more += tl->n_mem_all - tl->n_mem;
	}
	fputs("</svg>\n", f);
	if (more) {
		fprintf(f, "<p class=\"note\">%zu more memory counters not drawn.</p>\n", more);
	}
	if (zero) {
		mem_flat_note(f, r, zero);
	}
	fprintf(f, "<p class=\"note\">The highest sample in each of %d equal time bins; the "
		"dot marks the peak (as 'tracectl bottlenecks' reports it)%s.</p>\n",
		TC_TL_BINS, r->n_runs > 1 ? "; each run on its own time axis" : "");
	for (size_t k = 0; k < r->n_runs; k++) {
		mem_holders(f, &r->run[k]);
	}
	fputs("</section>\n", f);
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
	tc_report_svg_begin(f, "ranks", "Ranks", (int)(2 * panel + 16));
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
