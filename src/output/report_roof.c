/*
 * The report's roofline chart: the op table's rows with FLOPs and bytes
 * as points (FLOP/B against achieved FLOP/s, log-log) under the device's
 * roofs (bandwidth slope, compute ceiling). Drawn only where some row has
 * both costs and the peaks are known; it computes nothing of its own.
 */

#include <inttypes.h>
#include <math.h>
#include "output/fmt.h"
#include "output/report_svg.h"

#define W 1200
#define L 180
#define PLOT_W (W - L - 40)
#define PLOT_H 320

static bool on_roof(const struct tc_op_row *o) {
	return o->flops > 0 && o->bytes > 0 && o->total_ps > 0 && o->flop_rate > 0 &&
		o->intensity > 0;
}

bool tc_report_has_roofline(const struct tc_report *r) {
	const struct tc_op_table *t = &r->run[0].a->ops;
	if (r->diff || !(t->ridge > 0) || !(t->peak_flops > 0) || !(t->peak_bw > 0)) {
		return false;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (on_roof(&t->rows[i])) {
			return true;
		}
	}
	return false;
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
	const struct tc_report_run *run = &r->run[0];
	const struct tc_op_table *t = &run->a->ops;
	double imin = t->ridge, imax = t->ridge, rmin = t->peak_flops;
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		if (on_roof(o)) {
			imin = fmin(imin, o->intensity);
			imax = fmax(imax, o->intensity);
			rmin = fmin(rmin, o->flop_rate);
		}
	}
	struct logax x = { floor(log10(imin) - 0.05), ceil(log10(imax) + 0.05) };
	struct logax y = { floor(log10(rmin) - 0.05), ceil(log10(t->peak_flops) + 0.05) };
	x.hi = x.hi > x.lo ? x.hi : x.lo + 1;
	y.hi = y.hi > y.lo ? y.hi : y.lo + 1;
	tc_report_svg_begin(f, "roofline", "Roofline", 20 + PLOT_H + 30);
	decade_ticks(f, &x, &y);
	/* the roofs: bandwidth up to the ridge point, then the compute peak;
	 * the slope clipped to the plot's bottom */
	double x0 = pow(10, x.lo), x1 = pow(10, x.hi);
	double ybot = pow(10, y.lo), xs = fmax(x0, ybot / t->peak_bw);
	double yv[3] = { xs * t->peak_bw, t->peak_flops, t->peak_flops };
	double xv[3] = { xs, t->ridge, x1 };
	fprintf(f, "<polyline class=\"roof\" data-peak-flops=\"%.17g\" data-peak-bw=\"%.17g\" "
		"fill=\"none\" stroke=\"#b2182b\" stroke-width=\"2\" points=\"", t->peak_flops, t->peak_bw);
	for (int k = 0; k < 3; k++) {
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", L + pos(&x, xv[k], PLOT_W),
			20 + PLOT_H - pos(&y, yv[k], PLOT_H));
	}
	fputs("\"/>\n", f);
	char b[3][TC_FMT_LEN];
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_op_row *o = &t->rows[i];
		if (!on_roof(o)) {
			continue;
		}
		const char *name = o->label ? o->label : tc_model_str(run->m, o->name);
		fprintf(f, "<circle class=\"roof-op c0\" data-flops-per-s=\"%.17g\" "
			"data-flops-per-byte=\"%.17g\" data-ps=\"%" PRId64 "\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"4\"><title>", o->flop_rate, o->intensity, o->total_ps,
			L + pos(&x, o->intensity, PLOT_W), 20 + PLOT_H - pos(&y, o->flop_rate, PLOT_H));
		tc_markup_escape(f, name);
		fprintf(f, ": %s at %.1f FLOP/B, %s", tc_fmt_rate(b[0], o->flop_rate, "FLOP/s"),
			o->intensity, tc_report_ms(b[1], o->total_ps));
		if (o->efficiency >= 0) {
			fprintf(f, ", %.1f %% of its roof", 100 * o->efficiency);
		}
		fputs("</title></circle>\n", f);
	}
	fprintf(f, "</svg>\n<p class=\"note\">Each op with FLOPs and bytes (as 'tracectl ops'): "
		"FLOP/B across, achieved FLOP/s up, under the roofs of %s and %s (%s; ridge point "
		"%.1f FLOP/B).</p>\n</section>\n", tc_fmt_rate(b[0], t->peak_bw, "B/s"),
		tc_fmt_rate(b[2], t->peak_flops, "FLOP/s"), t->peak_source ? t->peak_source : "",
		t->ridge);
}
