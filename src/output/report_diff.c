/*
 * The charts of `tracectl report --diff` that compare BASE and TEST:
 * the change of each attribution category per step, and the ops that
 * changed most. Both draw the rows of `tracectl diff` (model/diff.h), in
 * its order, and compute nothing of their own.
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "output/fmt.h"
#include "output/report_svg.h"
#include "util/cxxname.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define W 1200
#define L 180

static double per_step(const struct tc_diff_side *s, int64_t v) {
	return (double)v / (double)(s->n_steps ? s->n_steps : 1);
}

/* "+1.250 ms (+30.0 %)", "new" when base is 0. */
static void change_text(char *buf, size_t n, double base, double test) {
	char x[TC_FMT_LEN];
	int64_t d = llround(test) - llround(base);
	tc_report_ms(x, d);
	if (base != 0) {
		snprintf(buf, n, "%s%s (%+.1f %%)", d > 0 ? "+" : "", x, 100.0 * (test - base) / base);
	} else {
		snprintf(buf, n, "%s%s (new)", d > 0 ? "+" : "", x);
	}
}

/* base and test as two bars from x0 on one scale (max px wide at vmax),
 * with "base → test, change" after them. */
static void pair_bars(FILE *f, double x0, double y, double px, double vmax, double base,
		double test, const char *test_cls) {
	char x[2][TC_FMT_LEN], ch[96], text[200];
	double wb = px * base / vmax, wt = px * test / vmax;
	fprintf(f, "<rect class=\"base\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\"/>"
		"<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"8\"/>", x0, y + 2, wb,
		test_cls, x0, y + 9, wt);
	change_text(ch, sizeof(ch), base, test);
	snprintf(text, sizeof(text), "%s \xe2\x86\x92 %s, %s", tc_report_ms(x[0], llround(base)),
		tc_report_ms(x[1], llround(test)), ch);
	double end = wb > wt ? wb : wt;
	tc_report_label(f, NULL, x0 + end + 6, y + 14, "start", text, 120);
}

static void pair_legend(FILE *f, double y, const char *test) {
	fprintf(f, "<rect class=\"base\" x=\"%d\" y=\"%.1f\" width=\"10\" height=\"6\"/>", L, y);
	tc_report_label(f, NULL, L + 14, y + 7, "start", "base", 10);
	fprintf(f, "<rect class=\"test\" x=\"%d\" y=\"%.1f\" width=\"10\" height=\"8\"/>", L + 60,
		y - 1);
	tc_report_label(f, NULL, L + 74, y + 7, "start", test, 60);
	fputc('\n', f);
}

/* The end of a chart of n rows (none: a line saying so) and the start of
 * its note; the caller ends the note and the section. */
static void chart_end(FILE *f, size_t n, const char *none, const char *note) {
	if (!n) {
		tc_report_label(f, NULL, L, 40, "start", none, 60);
	}
	fprintf(f, "</svg>\n<p class=\"note\">%s", note);
}

void tc_report_svg_attribution(FILE *f, const struct tc_report *r) {
	const struct tc_diff *d = r->diff;
	const struct tc_diff_side *b = d->base, *t = d->test;
	const int rh = 22;
	size_t n = 0;
	double vmax = 1;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		double vb = per_step(b, b->cat_ps[c]), vt = per_step(t, t->cat_ps[c]);
		n += vb != 0 || vt != 0;
		vmax = vb > vmax ? vb : vmax;
		vmax = vt > vmax ? vt : vmax;
	}
	tc_report_svg_begin(f, "attribution", "Attribution per step, base against test",
		24 + (int)(n ? n : 1) * rh + 8);
	pair_legend(f, 6, "test (in the category's colour)");
	size_t row = 0;
	for (int k = 0; k < TC_BD_COUNT; k++) {
		int c = d->bd_order[k];
		double vb = per_step(b, b->cat_ps[c]), vt = per_step(t, t->cat_ps[c]);
		if (vb == 0 && vt == 0) {
			continue;
		}
		double y = 24 + (double)row++ * rh;
		const char *name = tc_bd_cat_name((enum tc_bd_cat)c);
		fprintf(f, "<g class=\"delta\" data-cat=\"%s\" data-base-ps=\"%" PRId64 "\" "
			"data-test-ps=\"%" PRId64 "\">", name, (int64_t)llround(vb), (int64_t)llround(vt));
		tc_report_label(f, NULL, L - 8, y + 14, "end", name, 40);
		char cls[8];
		snprintf(cls, sizeof(cls), "c%d", c);
		pair_bars(f, L, y, 560, vmax, vb, vt, cls);
		fputs("</g>\n", f);
	}
	chart_end(f, n, "no attribution on either side", "Time per counted step in each "
		"category of the attribution (the categories sum to the step time), largest change "
		"first, as 'tracectl diff'");
	if (d->paired_label[0]) {
		fputs("; devices compared: ", f);
		tc_markup_escape(f, d->paired_label);
	}
	fputs(".</p>\n</section>\n", f);
}

/* "name (scope)", malloc'd. */
static char *with_scope(const char *name, const char *scope) {
	struct tc_strbuf sb = { 0 };
	tc_strbuf_addf(&sb, "%s (%s)", name, scope);
	return sb.s;
}

void tc_report_svg_ops_diff(FILE *f, const struct tc_report *r) {
	const struct tc_diff *d = r->diff;
	const int rh = 22, lw = 420;
	size_t n = d->n_ops < r->top ? d->n_ops : r->top;
	double vmax = 1;
	for (size_t i = 0; i < n; i++) {
		vmax = d->ops[i].base.time_ps > vmax ? d->ops[i].base.time_ps : vmax;
		vmax = d->ops[i].test.time_ps > vmax ? d->ops[i].test.time_ps : vmax;
	}
	tc_report_svg_begin(f, "ops", "Top ops, base against test", 24 + (int)(n ? n : 1) * rh + 8);
	pair_legend(f, 6, "test");
	/* Kernel signatures by their short names, as the top-ops chart. */
	const char **keys = tc_xcalloc(n ? n : 1, sizeof(*keys));
	char **shown = tc_xcalloc(n ? n : 1, sizeof(*shown));
	char **full = tc_xcalloc(n ? n : 1, sizeof(*full));
	for (size_t i = 0; i < n; i++) {
		keys[i] = d->ops[i].key;
	}
	tc_cxxname_distinct(keys, n, shown);
	for (size_t i = 0; i < n; i++) {
		const char *scope = tc_diff_scope_name((enum tc_diff_scope)d->ops[i].scope);
		full[i] = with_scope(keys[i], scope);
		char *s = with_scope(shown[i], scope);
		free(shown[i]);
		shown[i] = s;
	}
	for (size_t i = 0; i < n; i++) {
		const struct tc_diff_row *o = &d->ops[i];
		double y = 24 + (double)i * rh;
		fprintf(f, "<g class=\"opdiff\" data-base-ps=\"%" PRId64 "\" data-test-ps=\"%" PRId64
			"\">", (int64_t)llround(o->base.time_ps), (int64_t)llround(o->test.time_ps));
		tc_report_op_label(f, lw - 8, y + 14, shown, (const char *const *)full, n, i);
		pair_bars(f, lw, y, W - lw - 330, vmax, o->base.time_ps, o->test.time_ps, "test");
		fputs("</g>\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		free(shown[i]);
		free(full[i]);
	}
	free(shown);
	free(full);
	free(keys);
	chart_end(f, n, "no ops", "Time per counted step of the ops that changed most (host and "
		"device, matched by normalised name), as 'tracectl diff'");
	fputs(".</p>\n</section>\n", f);
}
