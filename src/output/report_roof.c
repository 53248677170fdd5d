/*
 * The report's roofline chart: the op table's rows with FLOPs and bytes
 * (the trace's own costs, TPU), else the launcher rows' (costs from the
 * ops' shapes, Kineto), as points (FLOP/B against achieved FLOP/s,
 * log-log) under the device's roofs (bandwidth slope, compute ceiling).
 * Drawn only where some row has both costs and the peaks are known; it
 * computes nothing of its own.
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "model/launch.h"
#include "output/fmt.h"
#include "output/launch_write.h"
#include "output/report_svg.h"
#include "util/xalloc.h"

#define W 1200
#define L 180
#define PLOT_W (W - L - 40)
#define PLOT_H 320

/* A point: an op with FLOPs and bytes, from the op table (the trace's own
 * costs: TPU) or else the launcher rows (costs from shapes: Kineto). */
struct pt {
	const char *name;
	double rate, intensity, efficiency;
	int64_t ps;
};

/* The roofs and points drawn; n 0 where there are none. */
struct roof {
	double peak_flops, peak_bw, ridge;
	const char *source, *what;
	struct pt *p;
	size_t n;
};

static bool op_on_roof(const struct tc_op_row *o) {
	return o->flops > 0 && o->bytes > 0 && o->total_ps > 0 && o->flop_rate > 0 &&
		o->intensity > 0;
}

static bool launch_on_roof(const struct tc_launch_row *o) {
	return o->flops > 0 && o->bytes > 0 && o->kernel_ps > 0 && o->flop_rate > 0 &&
		o->intensity > 0;
}

static void roof_ops(const struct tc_report_run *run, struct roof *rf) {
	const struct tc_op_table *t = &run->a->ops;
	*rf = (struct roof){ t->peak_flops, t->peak_bw, t->ridge, t->peak_source,
		"Each op with FLOPs and bytes (as 'tracectl ops')",
		tc_xcalloc(t->n + 1, sizeof(*rf->p)), 0 };
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		if (op_on_roof(o)) {
			rf->p[rf->n++] = (struct pt){ o->label ? o->label : tc_model_str(run->m, o->name),
				o->flop_rate, o->intensity, o->efficiency, o->total_ps };
		}
	}
}

static void roof_launchers(const struct tc_report_run *run, struct roof *rf) {
	const struct tc_launch_table *t = run->launch;
	*rf = (struct roof){ t->peak_flops, t->peak_bw, t->ridge, t->peak_source,
		"Each framework op with FLOPs and bytes from its shapes (as 'tracectl ops --by "
		"launcher')", tc_xcalloc(t->n + 1, sizeof(*rf->p)), 0 };
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_launch_row *o = &t->rows[i];
		if (launch_on_roof(o)) {
			rf->p[rf->n++] = (struct pt){ tc_model_str(run->m, o->name), o->flop_rate,
				o->intensity, o->peak_fraction, o->kernel_ps };
		}
	}
}

/* The op table's points where it has any, else the launcher rows'; none
 * on a diff page or where the peaks are unknown. */
static void roof_of(const struct tc_report *r, struct roof *rf) {
	*rf = (struct roof){ 0 };
	if (r->diff) {
		return;
	}
	/* The peaks are checked after: the launcher's may differ. */
	roof_ops(&r->run[0], rf);
	if (!rf->n && r->run[0].launch) {
		free(rf->p);
		roof_launchers(&r->run[0], rf);
	}
	if (!(rf->ridge > 0) || !(rf->peak_flops > 0) || !(rf->peak_bw > 0)) {
		free(rf->p);
		*rf = (struct roof){ 0 };
	}
}

bool tc_report_has_roofline(const struct tc_report *r) {
	struct roof rf;
	roof_of(r, &rf);
	free(rf.p);
	return rf.n > 0;
}

struct logax {
	double lo, hi; /* powers of ten */
};

static double pos(const struct logax *a, double v, double len) {
	return len * (log10(v) - a->lo) / (a->hi - a->lo);
}

static void decade_ticks(FILE *f, const struct logax *x, const struct logax *y) {
	char b[TC_FMT_LEN];
	for (double e = x->lo; e <= x->hi + 1e-9; e++) {
		double px = L + pos(x, pow(10, e), PLOT_W);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\"/>", px, px,
			20 + PLOT_H);
		snprintf(b, sizeof(b), "%g", pow(10, e));
		tc_report_label(f, "xtick", px, 20 + PLOT_H + 16, "middle", b, 20);
	}
	for (double e = y->lo; e <= y->hi + 1e-9; e++) {
		double py = 20 + PLOT_H - pos(y, pow(10, e), PLOT_H);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", L, py,
			L + PLOT_W, py);
		tc_report_label(f, "ytick", L - 5, py + 4, "end", tc_fmt_rate(b, pow(10, e), "FLOP/s"),
			40);
	}
	fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<line class=\"ax\" x1=\"%d\" y1=\"20\" x2=\"%d\" y2=\"%d\"/>\n", L, 20 + PLOT_H,
		L + PLOT_W, 20 + PLOT_H, L, L, 20 + PLOT_H);
}

void tc_report_svg_roofline(FILE *f, const struct tc_report *r) {
	struct roof rf;
	roof_of(r, &rf);
	double imin = rf.ridge, imax = rf.ridge, rmin = rf.peak_flops;
	for (size_t i = 0; i < rf.n; i++) {
		imin = fmin(imin, rf.p[i].intensity);
		imax = fmax(imax, rf.p[i].intensity);
		rmin = fmin(rmin, rf.p[i].rate);
	}
	struct logax x = { floor(log10(imin) - 0.05), ceil(log10(imax) + 0.05) };
	struct logax y = { floor(log10(rmin) - 0.05), ceil(log10(rf.peak_flops) + 0.05) };
	x.hi = x.hi > x.lo ? x.hi : x.lo + 1;
	y.hi = y.hi > y.lo ? y.hi : y.lo + 1;
	tc_report_svg_begin(f, "roofline", "Roofline", 20 + PLOT_H + 30);
	decade_ticks(f, &x, &y);
	/* the roofs: bandwidth up to the ridge point, then the compute peak;
	 * the slope clipped to the plot's bottom */
	double x0 = pow(10, x.lo), x1 = pow(10, x.hi);
	double ybot = pow(10, y.lo), xs = fmax(x0, ybot / rf.peak_bw);
	double yv[3] = { xs * rf.peak_bw, rf.peak_flops, rf.peak_flops };
	double xv[3] = { xs, rf.ridge, x1 };
	fprintf(f, "<polyline class=\"roof\" data-peak-flops=\"%.17g\" data-peak-bw=\"%.17g\" "
		"fill=\"none\" stroke=\"#b2182b\" stroke-width=\"2\" points=\"", rf.peak_flops,
		rf.peak_bw);
	for (int k = 0; k < 3; k++) {
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", L + pos(&x, xv[k], PLOT_W),
			20 + PLOT_H - pos(&y, yv[k], PLOT_H));
	}
	fputs("\"/>\n", f);
	char b[3][TC_FMT_LEN];
	for (size_t i = 0; i < rf.n; i++) {
		const struct pt *o = &rf.p[i];
		fprintf(f, "<circle class=\"roof-op c0\" data-flops-per-s=\"%.17g\" "
			"data-flops-per-byte=\"%.17g\" data-ps=\"%" PRId64 "\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"4\"><title>", o->rate, o->intensity, o->ps,
			L + pos(&x, o->intensity, PLOT_W), 20 + PLOT_H - pos(&y, o->rate, PLOT_H));
		tc_markup_escape(f, o->name);
		fprintf(f, ": %s at %.1f FLOP/B, %s", tc_fmt_rate(b[0], o->rate, "FLOP/s"),
			o->intensity, tc_report_ms(b[1], o->ps));
		if (o->efficiency >= 0) {
			fprintf(f, ", %.1f %% of its roof", 100 * o->efficiency);
		}
		fputs("</title></circle>\n", f);
	}
	fprintf(f, "</svg>\n<p class=\"note\">%s: FLOP/B across, achieved FLOP/s up, under the "
		"roofs of %s and %s (", rf.what, tc_fmt_rate(b[0], rf.peak_bw, "B/s"),
		tc_fmt_rate(b[2], rf.peak_flops, "FLOP/s"));
	tc_markup_escape(f, rf.source ? rf.source : "");
	fprintf(f, "; ridge point %.1f FLOP/B).</p>\n</section>\n", rf.ridge);
	free(rf.p);
}

/* The launcher rows with an efficiency: a one-run page's table of them. */
bool tc_report_has_launchers(const struct tc_report *r) {
	const struct tc_launch_table *t = r->diff ? NULL : r->run[0].launch;
	for (size_t i = 0; t && i < t->n; i++) {
		if (t->rows[i].peak_fraction >= 0) {
			return true;
		}
	}
	return false;
}

static void cell(FILE *f, const char *cls, const char *text) {
	fprintf(f, "<td%s>", cls);
	tc_markup_escape(f, text);
	fputs("</td>", f);
}

/* The top launcher rows by kernel time with their efficiency, as `ops
 * --by launcher` prints them. */
void tc_report_launchers(FILE *f, const struct tc_report *r) {
	const struct tc_report_run *run = &r->run[0];
	const struct tc_launch_table *t = run->launch;
	size_t n = t->n < r->top ? t->n : r->top;
	fputs("<section id=\"launchers\">\n<h2>Top ops by launcher</h2>\n<table>\n<tr><th>op</th>"
		"<th>input dims</th><th>dtype</th><th class=\"n\">calls</th>"
		"<th class=\"n\">kernel time</th><th class=\"n\">FLOP/s</th><th class=\"n\">B/s</th>"
		"<th class=\"n\">% of peak</th><th>class</th></tr>\n", f);
	char b[TC_FMT_LEN];
	for (size_t i = 0; i < n; i++) {
		const struct tc_launch_row *o = &t->rows[i];
		fprintf(f, "<tr data-ps=\"%" PRId64 "\" data-peak-fraction=\"%.17g\">", o->kernel_ps,
			o->peak_fraction);
		cell(f, "", tc_model_str(run->m, o->name));
		cell(f, "", o->dims ? tc_model_str(run->m, o->dims) : "-");
		char dt[128];
		cell(f, "", tc_launch_dtypes(dt, sizeof(dt), o->types ? tc_model_str(run->m, o->types) :
			NULL));
		fprintf(f, "<td class=\"n\">%s</td>", tc_fmt_count(b, o->calls));
		fprintf(f, "<td class=\"n\">%s</td>", tc_report_ms(b, o->kernel_ps));
		cell(f, " class=\"n\"", o->flop_rate >= 0 ? tc_fmt_rate(b, o->flop_rate, "FLOP/s") : "-");
		cell(f, " class=\"n\"", o->byte_rate >= 0 ? tc_fmt_rate(b, o->byte_rate, "B/s") : "-");
		if (o->peak_fraction >= 0) {
			fprintf(f, "<td class=\"n\">%.1f %% ", 100 * o->peak_fraction);
			tc_markup_escape(f, o->peak_roof ? o->peak_roof : "");
			fputs("</td>", f);
		} else {
			fputs("<td class=\"n\">-</td>", f);
		}
		cell(f, "", tc_bound_name((enum tc_bound)o->bound));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"note\">Device time by the framework op that launched it, its "
		"input shapes and types (as 'tracectl ops --by launcher'); the efficiency is against "
		"the peak of the op's dtype, or the bandwidth for memory-bound ops (peaks from ", f);
	tc_markup_escape(f, t->peak_source);
	fputs(").</p>\n</section>\n", f);
}
