/* Text and JSON writers for `tracectl diff`, reading only the diff. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/diff_write.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/table.h"
#include "util/cxxname.h"
#include "util/term.h"
#include "util/xalloc.h"

/*
 * Text: one block per kind of figure, rows ordered by the size of their
 * change in time per step. JSON: the same, in tracectl.diff/1
 * (docs/json-schema.md). Per-step times are means over counted steps and
 * so not whole picoseconds: JSON rounds them.
 */

static int64_t ps(double v) {
	return (int64_t)llround(v);
}

static char *dur(char *buf, double v) {
	return tc_fmt_dur(buf, ps(v));
}

/* The smallest step a duration shows in: tc_fmt_dur gives 3 decimals of
 * its unit ("12.340 ms": 1 us), whole ps below 1 ns. */
static double shown_step(double v) {
	double a = fabs(v), scale = 1e3;
	if (a < 1e3) {
		return 1;
	}
	while (scale < 1e12 && a / scale >= 999.9995) {
		scale *= 1e3;
	}
	return scale / 1e3;
}

/*
 * The signed change from base to test: "+1.250 ms", "-3 ps". A change
 * below the unit base and test show in is shown in theirs ("12.340 ms" to
 * "12.341 ms" is "+0.001 ms", not "+500.000 ns"), and "0" when it rounds
 * away there.
 */
static char *sdur(char *buf, double base, double test) {
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	char tmp[TC_FMT_LEN];
	double v = test - base;
	double step = shown_step(fabs(base) > fabs(test) ? base : test);
	if (step > 1 && fabs(v) < step) {
		int u = 0; /* the values' unit: 1e3 ps is ns */
		for (double s = step * 1e3; s > 1e3 && u < 3; s /= 1e3) {
			u++;
		}
		double shown = v / (step * 1e3);
		if (fabs(shown) < 0.0005) {
			return strcpy(buf, "0");
		}
		snprintf(buf, TC_FMT_LEN, "%+.3f %s", shown, unit[u]);
		return buf;
	}
	tc_fmt_dur(tmp, ps(v));
	snprintf(buf, TC_FMT_LEN, "%s%.*s", ps(v) > 0 ? "+" : "", TC_FMT_LEN - 2, tmp);
	return buf;
}

/* Change in percent of base: "+30.0 %", "new" when base is 0. */
static char *spct(char *buf, double base, double test) {
	if (base == 0) {
		snprintf(buf, TC_FMT_LEN, test == 0 ? "0.0 %%" : "new");
	} else {
		snprintf(buf, TC_FMT_LEN, "%+.1f %%", 100.0 * (test - base) / base);
	}
	return buf;
}

static char *sbytes(char *buf, double v) {
	char tmp[TC_FMT_LEN];
	tc_fmt_bytes(tmp, v);
	snprintf(buf, TC_FMT_LEN, "%s%.*s", v > 0 ? "+" : "", TC_FMT_LEN - 2, tmp);
	return buf;
}

static double step_n(const struct tc_diff_side *s) {
	return s->n_steps ? (double)s->n_steps : 1;
}

static const char *row_status(const struct tc_diff_row *r) {
	if (!r->base.present) {
		return "added";
	}
	if (!r->test.present) {
		return "removed";
	}
	return r->base.calls == r->test.calls && r->base.time_ps == r->test.time_ps ?
		"same" : "changed";
}

/* What a category's change says, falling and rising; gone: it was a
 * cause in BASE and is next to nothing in TEST. */
static const char *const cat_says[TC_BD_COUNT][3] = {
	[TC_BD_COMPUTE] = { "less device compute per step", "more device compute per step",
		"less device compute per step" },
	[TC_BD_D2H] = { "less exposed D2H copy time", "more exposed D2H copy time",
		"D2H copies no longer hold up the step" },
	[TC_BD_D2D] = { "less exposed D2D copy time", "more exposed D2D copy time",
		"D2D copies no longer hold up the step" },
	[TC_BD_INPUT] = { "less waiting for input", "the step waits longer for input",
		"the input pipeline no longer blocks the step" },
	[TC_BD_COLLECTIVE] = { "less exposed communication", "more exposed communication",
		"communication is no longer exposed" },
	[TC_BD_PROFILER] = { "less profiler overhead", "more profiler overhead",
		"profiler overhead is gone" },
	[TC_BD_SYNC] = { "less host synchronisation with the device idle",
		"more host synchronisation with the device idle",
		"host synchronisation no longer stalls the device" },
	[TC_BD_LAUNCH] = { "less launch overhead", "more launch overhead",
		"launch overhead no longer holds up the device" },
	[TC_BD_H2D] = { "less exposed H2D copy time", "more exposed H2D copy time",
		"H2D copies no longer hold up the step" },
	[TC_BD_COMPILE] = { "less compilation in the steps", "more compilation in the steps",
		"compilation no longer runs in the steps" },
	[TC_BD_HOST] = { "less host (framework/Python) time with the device idle",
		"more host (framework/Python) time with the device idle",
		"host (framework/Python) work no longer keeps the device idle" },
	[TC_BD_IDLE] = { "less unexplained device idle", "more unexplained device idle",
		"unexplained device idle is gone" },
};

/* Shares of the step (percent) that make a category a cause, or none. */
#define CAUSE_PCT 5.0
#define GONE_PCT 1.0

void tc_diff_headline(const struct tc_diff *d, char *buf, size_t size) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	const char *what = d->whole_trace ? "time (whole trace)" : "step time";
	double change = t->step_mean_ps - b->step_mean_ps;
	char x[2][TC_FMT_LEN];
	if (b->has_steps != t->has_steps) {
		/* A step against a whole trace: no change to speak of. */
		snprintf(buf, size, "step time not compared: %s has no steps, its whole trace "
			"stands for one", b->has_steps ? "TEST" : "BASE");
		return;
	}
	if (ps(change) == 0) {
		snprintf(buf, size, "%s unchanged (%s per step)", what, dur(x[0], b->step_mean_ps));
		return;
	}
	int len = snprintf(buf, size, "%s %s (%s per step)", what,
		spct(x[0], b->step_mean_ps, t->step_mean_ps), sdur(x[1], b->step_mean_ps, t->step_mean_ps));
	/* The category whose time changed most, as the attribution table
	 * orders them, with the same figures. */
	int c = d->bd_order[0];
	double bv = (double)b->cat_ps[c] / step_n(b), tv = (double)t->cat_ps[c] / step_n(t);
	if (len < 0 || (size_t)len >= size || ps(tv - bv) == 0) {
		return;
	}
	double bp = b->step_total_ps ? 100.0 * (double)b->cat_ps[c] / (double)b->step_total_ps : 0;
	double tp = t->step_total_ps ? 100.0 * (double)t->cat_ps[c] / (double)t->step_total_ps : 0;
	bool same_way = (tv - bv < 0) == (change < 0);
	bool gone = bp >= CAUSE_PCT && tp < GONE_PCT;
	snprintf(buf + len, size - (size_t)len, ", %s %s %s: %s",
		same_way && fabs(tv - bv) >= fabs(change) / 2 ? "mostly" : "largest change",
		tc_bd_cat_name((enum tc_bd_cat)c), sdur(x[0], bv, tv),
		cat_says[c][gone ? 2 : tv > bv]);
}

static void text_side(FILE *f, const char *which, const struct tc_diff_side *s) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	tc_term_fprintf(f, "%-10s %s (%s", which, s->label, s->format);
	if (s->n_sources > 1) {
		fprintf(f, ", %s files", tc_fmt_count(b1, s->n_sources));
	}
	if (s->has_steps) {
		fprintf(f, "): %s counted of %s (%s)", tc_fmt_noun(b1, s->n_steps, "step", "steps"),
			tc_fmt_count(b2, s->n_steps_all), s->steps_source);
	} else {
		fprintf(f, "): no steps, the whole trace is compared (%s)", s->steps_source);
	}
	fputc('\n', f);
}

static void text_norm(FILE *f, const struct tc_diff *d) {
	if (d->exact_names) {
		fprintf(f, "names      ops matched by exact name (--exact-names)\n");
		return;
	}
	fprintf(f, "names      ops matched by normalised name (template args <...>, hex "
		"addresses 0x?, trailing numbers .N _N #N -N); ");
	if (!d->norm_used) {
		fprintf(f, "no name needed it\n");
		return;
	}
	fprintf(f, "used:");
	for (uint32_t b = 0; b < TC_NORM_COUNT; b++) {
		if (d->norm_used & (1u << b)) {
			fprintf(f, " %s", tc_diff_norm_name((enum tc_diff_norm)(1u << b)));
		}
	}
	fprintf(f, "; --exact-names turns it off\n");
}

static const struct tc_diff_rank *find_rank(const struct tc_diff_side *s, const char *label) {
	for (size_t i = 0; i < s->n_ranks; i++) {
		if (strcmp(s->ranks[i].label, label) == 0) {
			return &s->ranks[i];
		}
	}
	return NULL;
}

/* Mean step time per file (rank), matched by file name. */
static void text_ranks(FILE *f, const struct tc_diff *d) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	static const char *const hdr[] = { "  file (rank)", ">base mean", ">test mean", ">change",
		">", ">base p90", ">test p90" };
	struct tc_table tb;
	tc_table_init(&tb, 7, hdr);
	char x[5][TC_FMT_LEN];
	for (int k = 0; k < 2; k++) {
		const struct tc_diff_side *s = k ? t : b;
		for (size_t i = 0; i < s->n_ranks; i++) {
			const struct tc_diff_rank *rb = k ? find_rank(b, s->ranks[i].label) : &s->ranks[i];
			const struct tc_diff_rank *rt = k ? &s->ranks[i] : find_rank(t, s->ranks[i].label);
			if (k && rb) {
				continue; /* listed with BASE's */
			}
			tc_table_cellf(&tb, "  %s", s->ranks[i].label);
			tc_table_cell(&tb, rb ? dur(x[0], rb->mean_ps) : "-");
			tc_table_cell(&tb, rt ? dur(x[1], rt->mean_ps) : "-");
			tc_table_cell(&tb, rb && rt ? sdur(x[2], rb->mean_ps, rt->mean_ps) : "-");
			tc_table_cell(&tb, rb && rt ? spct(x[3], rb->mean_ps, rt->mean_ps) : "");
			tc_table_cell(&tb, rb ? dur(x[4], rb->p90_ps) : "-");
			tc_table_cell(&tb, rt ? dur(x[0], rt->p90_ps) : "-");
		}
	}
	fprintf(f, "\nstep time per file (its own step markers, the counted step numbers)\n");
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

static void text_steps(FILE *f, const struct tc_diff *d) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	char x[4][TC_FMT_LEN];
	if (d->whole_trace) {
		if (!b->has_steps && !t->has_steps) {
			fprintf(f, "\nno steps on either side: the whole traces are compared, and "
				"\"per step\" below means per trace\n");
		} else {
			fprintf(f, "\n%s has no steps: its figures below are for its whole trace, "
				"%s's per step; the gate compares whole-trace device busy time\n",
				!b->has_steps ? "BASE" : "TEST", !b->has_steps ? "TEST" : "BASE");
		}
	}
	static const char *const hdr[] = { "step time", ">base", ">test", ">change", ">" };
	struct tc_table tb;
	tc_table_init(&tb, 5, hdr);
	const double bv[3] = { b->step_mean_ps, b->step_median_ps, b->step_p90_ps };
	const double tv[3] = { t->step_mean_ps, t->step_median_ps, t->step_p90_ps };
	static const char *const names[] = { "  mean", "  median", "  p90" };
	for (int i = 0; i < 3; i++) {
		tc_table_cell(&tb, names[i]);
		tc_table_cell(&tb, dur(x[0], bv[i]));
		tc_table_cell(&tb, dur(x[1], tv[i]));
		tc_table_cell(&tb, sdur(x[2], bv[i], tv[i]));
		tc_table_cell(&tb, spct(x[3], bv[i], tv[i]));
	}
	fputc('\n', f);
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
	if (b->n_ranks || t->n_ranks) {
		text_ranks(f, d);
	}
}

static void text_attribution(FILE *f, const struct tc_diff *d) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	fprintf(f, "\nattribution per step (disjoint categories that sum to the step time; ");
	tc_term_fprintf(f, "base on %s, test on %s)\n", b->bd_device ? b->bd_device : "no device",
		t->bd_device ? t->bd_device : "no device");
	static const char *const hdr[] = { "  category", ">base", ">test", ">change",
		">base %", ">test %", ">change pp" };
	struct tc_table tb;
	tc_table_init(&tb, 7, hdr);
	char x[3][TC_FMT_LEN];
	for (int i = 0; i < TC_BD_COUNT; i++) {
		int c = d->bd_order[i];
		double bv = (double)b->cat_ps[c] / step_n(b), tv = (double)t->cat_ps[c] / step_n(t);
		if (bv == 0 && tv == 0) {
			continue;
		}
		double bp = b->step_total_ps ? 100.0 * (double)b->cat_ps[c] / (double)b->step_total_ps : 0;
		double tp = t->step_total_ps ? 100.0 * (double)t->cat_ps[c] / (double)t->step_total_ps : 0;
		tc_table_cellf(&tb, "  %s", tc_bd_cat_name((enum tc_bd_cat)c));
		tc_table_cell(&tb, dur(x[0], bv));
		tc_table_cell(&tb, dur(x[1], tv));
		tc_table_cell(&tb, sdur(x[2], bv, tv));
		tc_table_cellf(&tb, "%.1f", bp);
		tc_table_cellf(&tb, "%.1f", tp);
		tc_table_cellf(&tb, "%+.1f", tp - bp);
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

static void text_devices(FILE *f, const struct tc_diff *d) {
	if (!d->n_devices) {
		return;
	}
	fprintf(f, "\ndevices per step (busy = union of device work; idle = the rest of the step)\n");
	static const char *const hdr[] = { "  device", ">base busy", ">test busy", ">change",
		">base idle", ">test idle", ">change" };
	struct tc_table tb;
	tc_table_init(&tb, 7, hdr);
	char x[6][TC_FMT_LEN];
	for (size_t i = 0; i < d->n_devices; i++) {
		const struct tc_diff_dev_row *r = &d->devices[i];
		tc_table_cellf(&tb, "  %s", r->name);
		tc_table_cell(&tb, r->in_base ? dur(x[0], r->base_busy_ps) : "-");
		tc_table_cell(&tb, r->in_test ? dur(x[1], r->test_busy_ps) : "-");
		tc_table_cell(&tb, sdur(x[2], r->base_busy_ps, r->test_busy_ps));
		tc_table_cell(&tb, r->in_base ? dur(x[3], r->base_idle_ps) : "-");
		tc_table_cell(&tb, r->in_test ? dur(x[4], r->test_idle_ps) : "-");
		tc_table_cell(&tb, sdur(x[5], r->base_idle_ps, r->test_idle_ps));
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

/* Rows listed: nested host ops only with --nested. */
static bool row_listed(const struct tc_diff_row *r, bool nested) {
	return nested || !r->nested;
}

/* An op's achieved FLOP/s on each side and the change, "-" unknown. */
static void rate_cells(struct tc_table *tb, const struct tc_diff_row *r) {
	char x[2][TC_FMT_LEN];
	bool b = r->base.present && r->base.flop_rate >= 0;
	bool t = r->test.present && r->test.flop_rate >= 0;
	tc_table_cell(tb, b ? tc_fmt_rate(x[0], r->base.flop_rate, "FLOP/s") : "-");
	tc_table_cell(tb, t ? tc_fmt_rate(x[1], r->test.flop_rate, "FLOP/s") : "-");
	if (b && t && r->base.flop_rate > 0) {
		tc_table_cellf(tb, "%+.1f %%", 100 * (r->test.flop_rate / r->base.flop_rate - 1));
	} else {
		tc_table_cell(tb, "-");
	}
}

static void text_rows(FILE *f, const char *title, const struct tc_diff_row *rows, size_t n,
		size_t top, bool names, bool nested) {
	fprintf(f, "\n%s per step (calls, time, mean duration; by |change in time|)", title);
	size_t listed = 0;
	for (size_t i = 0; i < n; i++) {
		listed += row_listed(&rows[i], nested);
	}
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	if (top && listed > top) {
		fprintf(f, ", top %s of %s", tc_fmt_count(b1, top), tc_fmt_count(b2, listed));
	}
	if (listed < n) {
		fprintf(f, "; %s inside other host ops left out (--nested lists them)",
			tc_fmt_noun(b1, n - listed, "op", "ops"));
	}
	fputc('\n', f);
	static const char *const hdr[] = { "  status", "scope", "name", ">calls base", ">test",
		">change", ">time base", ">test", ">change", ">", ">mean base", ">test", ">change",
		">FLOP/s base", ">test", ">change" };
	/* Achieved FLOP/s only where some op knows its FLOPs on both sides */
	bool rates = false;
	for (size_t i = 0; i < n; i++) {
		rates |= rows[i].base.present && rows[i].test.present && rows[i].base.flop_rate >= 0 &&
			rows[i].test.flop_rate >= 0;
	}
	size_t cols = rates ? 16 : 13;
	struct tc_table tb;
	tc_table_init(&tb, cols, hdr);
	/* Under a width limit: the name shrinks, then the rates, means and
	 * calls go. */
	tc_table_elastic(&tb, 2);
	for (size_t c = 3; c < cols; c++) {
		tc_table_optional(&tb, c, c >= 13 ? 3 : c >= 10 ? 2 : c <= 5 ? 1 : 0);
	}
	char x[8][TC_FMT_LEN];
	for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
		const struct tc_diff_row *r = &rows[i];
		if (!row_listed(r, nested)) {
			continue;
		}
		shown++;
		tc_table_cellf(&tb, "  %s", r->paired ? "paired" : row_status(r));
		tc_table_cell(&tb, tc_diff_scope_name((enum tc_diff_scope)r->scope));
		if (r->paired) {
			tc_table_cellf(&tb, "%s -> %s", r->key, r->paired);
		} else if (names && r->n_names > 1) {
			tc_table_cellf(&tb, "%s (%u names)", r->key, r->n_names);
		} else {
			tc_table_cell(&tb, r->key);
		}
		tc_table_cellf(&tb, "%.4g", r->base.calls);
		tc_table_cellf(&tb, "%.4g", r->test.calls);
		tc_table_cellf(&tb, "%+.4g", r->test.calls - r->base.calls);
		tc_table_cell(&tb, dur(x[0], r->base.time_ps));
		tc_table_cell(&tb, dur(x[1], r->test.time_ps));
		tc_table_cell(&tb, sdur(x[2], r->base.time_ps, r->test.time_ps));
		tc_table_cell(&tb, spct(x[3], r->base.time_ps, r->test.time_ps));
		tc_table_cell(&tb, r->base.present ? dur(x[4], r->base.mean_ps) : "-");
		tc_table_cell(&tb, r->test.present ? dur(x[5], r->test.mean_ps) : "-");
		tc_table_cell(&tb, r->base.present && r->test.present ?
			sdur(x[6], r->base.mean_ps, r->test.mean_ps) : "-");
		if (rates) {
			rate_cells(&tb, r);
		}
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

static int cmp_row_name(const void *pa, const void *pb) {
	const struct tc_diff_row *a = *(const struct tc_diff_row *const *)pa;
	const struct tc_diff_row *b = *(const struct tc_diff_row *const *)pb;
	if (a->scope != b->scope) {
		return a->scope < b->scope ? -1 : 1;
	}
	return strcmp(a->key, b->key);
}

/* "ops added (3): host 'a', host 'b', device 'c'" in name order, at most
 * top (0 = all). */
static void text_added(FILE *f, const struct tc_diff *d, bool added, size_t top) {
	const struct tc_diff_row **v = tc_xmalloc((d->n_ops ? d->n_ops : 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < d->n_ops; i++) {
		if (added ? !d->ops[i].base.present : !d->ops[i].test.present) {
			v[n++] = &d->ops[i];
		}
	}
	tc_sort(v, n, sizeof(*v), cmp_row_name);
	char b[TC_FMT_LEN];
	fprintf(f, "ops %s (%s)%s", added ? "added" : "removed", tc_fmt_count(b, n), n ? ":" : "");
	size_t shown = n < top || !top ? n : top;
	/* kernel signatures by short names, as in the tables */
	const char **key = tc_xcalloc(shown ? shown : 1, sizeof(*key));
	char **name = tc_xcalloc(shown ? shown : 1, sizeof(*name));
	for (size_t i = 0; i < shown; i++) {
		key[i] = v[i]->key;
	}
	if (tc_g_termout.short_names) {
		tc_cxxname_distinct(key, shown, name);
	}
	for (size_t i = 0; i < shown; i++) {
		tc_term_fprintf(f, "%s %s '%s'", i ? "," : "",
			tc_diff_scope_name((enum tc_diff_scope)v[i]->scope), name[i] ? name[i] : key[i]);
		free(name[i]);
	}
	free(name);
	free(key);
	if (shown < n) {
		fprintf(f, " and %s more", tc_fmt_count(b, n - shown));
	}
	fputc('\n', f);
	free(v);
}

const char *tc_diff_finding_device(const struct tc_diff *d, const struct tc_diff_finding_row *r) {
	const struct tc_diff_finding *x = r->test ? r->test : r->base;
	if (r->base && r->test && x->device && strcmp(r->base->device, r->test->device) != 0) {
		return d->paired_label;
	}
	return x->device;
}

static void text_findings(FILE *f, const struct tc_diff *d) {
	char nb[TC_FMT_LEN], nt[TC_FMT_LEN];
	fprintf(f, "\nfindings (%s in base, %s in test)\n", tc_fmt_count(nb, d->base->n_findings),
		tc_fmt_count(nt, d->test->n_findings));
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct tc_diff_finding_row *r = &d->findings[i];
		const struct tc_diff_finding *x = r->test ? r->test : r->base;
		char sev[64];
		if (r->base && r->test && r->base->severity != r->test->severity) {
			snprintf(sev, sizeof(sev), "%s -> %s", tc_severity_name(r->base->severity),
				tc_severity_name(r->test->severity));
		} else {
			snprintf(sev, sizeof(sev), "%s", tc_severity_name(x->severity));
		}
		const char *dev = tc_diff_finding_device(d, r);
		tc_term_fprintf(f, "  %-11s [%s] %s%s%s", tc_diff_change_name(r->change), sev, x->kind,
			dev ? " on " : "", dev ? dev : "");
		/* Findings that are no cause of step time (memory) have no share. */
		if (r->base && r->test && (r->base->share > 0 || r->test->share > 0)) {
			fprintf(f, " (%.1f %% -> %.1f %% of step time)", 100 * r->base->share,
				100 * r->test->share);
		} else if (x->share > 0) {
			fprintf(f, " (%.1f %% of step time)", 100 * x->share);
		}
		fputc('\n', f);
	}
}

static int cmp_mem_label(const void *pa, const void *pb) {
	const struct tc_diff_mem_row *a = *(const struct tc_diff_mem_row *const *)pa;
	const struct tc_diff_mem_row *b = *(const struct tc_diff_mem_row *const *)pb;
	int c = strcmp(a->label, b->label);
	return c ? c : (a > b) - (a < b);
}

static void text_rest(FILE *f, const struct tc_diff *d, size_t top) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	char x[6][TC_FMT_LEN];
	fprintf(f, "\ntransfers per step\n");
	static const char *const hdr[] = { "  direction", ">copies base", ">test", ">change",
		">bytes base", ">test", ">change" };
	struct tc_table tb;
	tc_table_init(&tb, 7, hdr);
	for (int k = 0; k < TC_XFER_COUNT; k++) {
		double bc = (double)b->xfer[k].count / step_n(b), tc = (double)t->xfer[k].count / step_n(t);
		double bb = b->xfer[k].bytes / step_n(b), tbb = t->xfer[k].bytes / step_n(t);
		tc_table_cellf(&tb, "  %s", tc_xfer_dir_name((enum tc_xfer_dir)k));
		tc_table_cellf(&tb, "%.4g", bc);
		tc_table_cellf(&tb, "%.4g", tc);
		tc_table_cellf(&tb, "%+.4g", tc - bc);
		tc_table_cell(&tb, tc_fmt_bytes(x[0], bb));
		tc_table_cell(&tb, tc_fmt_bytes(x[1], tbb));
		tc_table_cell(&tb, sbytes(x[2], tbb - bb));
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
	/* By device (the label starts with it), without the counters that stay
	 * at 0 on both sides: a reserved counter neither trace fills. */
	const struct tc_diff_mem_row **mem = tc_xcalloc(d->n_mem ? d->n_mem : 1, sizeof(*mem));
	size_t n_mem = 0;
	for (size_t i = 0; i < d->n_mem; i++) {
		if (d->mem[i].base_bytes > 0 || d->mem[i].test_bytes > 0) {
			mem[n_mem++] = &d->mem[i];
		}
	}
	tc_sort(mem, n_mem, sizeof(*mem), cmp_mem_label);
	if (n_mem) {
		fprintf(f, "\nmemory (peak of each counter)\n");
		static const char *const mh[] = { "  counter", ">base", ">test", ">change" };
		tc_table_init(&tb, 4, mh);
		for (size_t i = 0; i < n_mem; i++) {
			const struct tc_diff_mem_row *r = mem[i];
			tc_table_cellf(&tb, "  %s", r->label);
			tc_table_cell(&tb, r->base_bytes >= 0 ? tc_fmt_bytes(x[0], r->base_bytes) : "-");
			tc_table_cell(&tb, r->test_bytes >= 0 ? tc_fmt_bytes(x[1], r->test_bytes) : "-");
			tc_table_cell(&tb, r->base_bytes >= 0 && r->test_bytes >= 0 ?
				sbytes(x[2], r->test_bytes - r->base_bytes) : "-");
		}
		tc_table_print(&tb, f, "");
		tc_table_finish(&tb);
	}
	free(mem);
	tc_write_diff_mem_text(f, d, top);
	fprintf(f, "\ncompile    %s -> %s, %s -> %s (%s), whole trace\n",
		tc_fmt_count(x[0], b->compile_count),
		tc_fmt_noun(x[1], t->compile_count, "event", "events"),
		tc_fmt_dur(x[3], b->compile_ps), tc_fmt_dur(x[4], t->compile_ps),
		sdur(x[5], (double)b->compile_ps, (double)t->compile_ps));
}

void tc_write_diff_text(FILE *f, const struct tc_diff *d, const struct tc_diff_write_opts *o) {
	char head[512];
	tc_diff_headline(d, head, sizeof(head));
	fprintf(f, "%s\n\n", head);
	text_side(f, "base", d->base);
	text_side(f, "test", d->test);
	text_norm(f, d);
	if (o->gate) {
		const struct tc_diff_gate *g = o->gate;
		char x[2][TC_FMT_LEN];
		tc_term_fprintf(f, "gate       %s: %s -> %s, %+.1f %%", g->label, dur(x[0], g->base),
			dur(x[1], g->test), g->change_pct);
		if (isfinite(g->threshold_pct)) {
			fprintf(f, " (limit +%g %%): %s\n", g->threshold_pct,
				g->failed ? "REGRESSION" : "ok");
		} else {
			fprintf(f, " (no --fail-on-regression limit)\n");
		}
	}
	text_steps(f, d);
	text_attribution(f, d);
	text_devices(f, d);
	text_rows(f, "ops", d->ops, d->n_ops, o->top, true, o->nested);
	text_added(f, d, true, o->top);
	text_added(f, d, false, o->top);
	text_rows(f, "op categories", d->cats, d->n_cats, o->top, false, true);
	text_findings(f, d);
	text_rest(f, d, o->top);
}

static void json_side(struct tc_jw *w, const struct tc_diff_side *s) {
	tc_jw_obj_begin(w);
	tc_jw_kv_str(w, "path", s->label);
	tc_jw_kv_str(w, "format", s->format);
	tc_jw_kv_uint(w, "files", s->n_sources);
	tc_jw_kv_bool(w, "has_steps", s->has_steps);
	tc_jw_kv_str(w, "steps_source", s->steps_source);
	tc_jw_kv_uint(w, "steps_counted", s->n_steps);
	tc_jw_kv_uint(w, "steps_total", s->n_steps_all);
	tc_jw_key(w, "attribution_device");
	if (s->bd_device) {
		tc_jw_str(w, s->bd_device);
	} else {
		tc_jw_null(w);
	}
	tc_jw_key(w, "step_time");
	tc_jw_obj_begin(w);
	tc_jw_kv_int(w, "mean_ps", ps(s->step_mean_ps));
	tc_jw_kv_int(w, "median_ps", ps(s->step_median_ps));
	tc_jw_kv_int(w, "p90_ps", ps(s->step_p90_ps));
	tc_jw_obj_end(w);
	tc_jw_key(w, "ranks");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < s->n_ranks; i++) {
		const struct tc_diff_rank *r = &s->ranks[i];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "file", r->label);
		tc_jw_kv_uint(w, "steps", r->n_steps);
		tc_jw_kv_int(w, "mean_ps", ps(r->mean_ps));
		tc_jw_kv_int(w, "median_ps", ps(r->median_ps));
		tc_jw_kv_int(w, "p90_ps", ps(r->p90_ps));
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_kv_int(w, "device_busy_per_step_ps", ps((double)s->device_busy_ps / step_n(s)));
	tc_jw_kv_int(w, "trace_device_busy_ps", s->trace_busy_ps);
	tc_jw_kv_uint(w, "compile_events", s->compile_count);
	tc_jw_kv_int(w, "compile_ps", s->compile_ps);
	tc_jw_obj_end(w);
}

/* {"base": b, "test": t, "change": t - b} in picoseconds. */
static void json_ps3(struct tc_jw *w, const char *key, double b, double t) {
	tc_jw_key(w, key);
	tc_jw_obj_begin(w);
	tc_jw_kv_int(w, "base", ps(b));
	tc_jw_kv_int(w, "test", ps(t));
	/* Saturated: a side summed from crafted digests may sit at either end. */
	int64_t change;
	if (__builtin_sub_overflow(ps(t), ps(b), &change)) {
		change = ps(t) < ps(b) ? INT64_MIN : INT64_MAX;
	}
	tc_jw_kv_int(w, "change", change);
	tc_jw_obj_end(w);
}

static void json_num3(struct tc_jw *w, const char *key, double b, double t) {
	tc_jw_key(w, key);
	tc_jw_obj_begin(w);
	tc_jw_kv_double(w, "base", b);
	tc_jw_kv_double(w, "test", t);
	tc_jw_kv_double(w, "change", t - b);
	tc_jw_obj_end(w);
}

static void opt_rate(struct tc_jw *w, const char *key, const struct tc_diff_val *v) {
	tc_jw_key(w, key);
	if (v->present && v->flop_rate >= 0) {
		tc_jw_double(w, v->flop_rate);
	} else {
		tc_jw_null(w);
	}
}

/* Achieved FLOP/s on each side (null unknown) and test/base - 1. */
static void json_rate3(struct tc_jw *w, const char *key, const struct tc_diff_row *r) {
	tc_jw_key(w, key);
	tc_jw_obj_begin(w);
	opt_rate(w, "base", &r->base);
	opt_rate(w, "test", &r->test);
	tc_jw_key(w, "change_ratio");
	bool b = r->base.present && r->base.flop_rate > 0;
	if (b && r->test.present && r->test.flop_rate >= 0) {
		tc_jw_double(w, r->test.flop_rate / r->base.flop_rate - 1);
	} else {
		tc_jw_null(w);
	}
	tc_jw_obj_end(w);
}

static void json_rows(struct tc_jw *w, const char *key, const struct tc_diff_row *rows,
		size_t n, bool names) {
	tc_jw_key(w, key);
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		const struct tc_diff_row *r = &rows[i];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", r->key);
		tc_jw_kv_str(w, "scope", tc_diff_scope_name((enum tc_diff_scope)r->scope));
		tc_jw_kv_str(w, "status", row_status(r));
		if (names) {
			tc_jw_key(w, "test_name");
			if (r->paired) {
				tc_jw_str(w, r->paired);
			} else {
				tc_jw_null(w);
			}
			tc_jw_kv_bool(w, "nested", r->nested);
			tc_jw_kv_str(w, "kind", tc_op_kind_name((enum tc_op_kind)r->kind));
			tc_jw_kv_uint(w, "names", r->n_names);
			tc_jw_key(w, "normalised");
			tc_jw_arr_begin(w);
			for (uint32_t b = 0; b < TC_NORM_COUNT; b++) {
				if (r->norm & (1u << b)) {
					tc_jw_str(w, tc_diff_norm_name((enum tc_diff_norm)(1u << b)));
				}
			}
			tc_jw_arr_end(w);
		}
		json_num3(w, "calls_per_step", r->base.calls, r->test.calls);
		json_ps3(w, "time_per_step_ps", r->base.time_ps, r->test.time_ps);
		json_ps3(w, "mean_ps", r->base.mean_ps, r->test.mean_ps);
		json_rate3(w, "flops_per_s", r);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

static void json_finding(struct tc_jw *w, const char *key, const struct tc_diff_finding *x) {
	tc_jw_key(w, key);
	if (!x) {
		tc_jw_null(w);
		return;
	}
	tc_jw_obj_begin(w);
	tc_jw_kv_str(w, "severity", tc_severity_name(x->severity));
	tc_jw_kv_double(w, "share", x->share);
	tc_jw_kv_str(w, "text", x->text);
	tc_jw_obj_end(w);
}

static void json_rest(struct tc_jw *w, const struct tc_diff *d) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	tc_jw_key(w, "findings");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct tc_diff_finding_row *r = &d->findings[i];
		const struct tc_diff_finding *x = r->test ? r->test : r->base;
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "kind", x->kind);
		const char *dev = tc_diff_finding_device(d, r);
		tc_jw_key(w, "device");
		if (dev) {
			tc_jw_str(w, dev);
		} else {
			tc_jw_null(w);
		}
		tc_jw_kv_str(w, "change", tc_diff_change_name(r->change));
		json_finding(w, "base", r->base);
		json_finding(w, "test", r->test);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "transfers");
	tc_jw_arr_begin(w);
	for (int k = 0; k < TC_XFER_COUNT; k++) {
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "direction", tc_xfer_dir_name((enum tc_xfer_dir)k));
		json_num3(w, "copies_per_step", (double)b->xfer[k].count / step_n(b),
			(double)t->xfer[k].count / step_n(t));
		json_num3(w, "bytes_per_step", b->xfer[k].bytes / step_n(b),
			t->xfer[k].bytes / step_n(t));
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "memory");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_mem; i++) {
		const struct tc_diff_mem_row *r = &d->mem[i];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "counter", r->label);
		tc_jw_key(w, "base_peak_bytes");
		r->base_bytes >= 0 ? tc_jw_double(w, r->base_bytes) : tc_jw_null(w);
		tc_jw_key(w, "test_peak_bytes");
		r->test_bytes >= 0 ? tc_jw_double(w, r->test_bytes) : tc_jw_null(w);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_write_diff_mem_json(w, d);
	json_num3(w, "compile_events", (double)b->compile_count, (double)t->compile_count);
	json_ps3(w, "compile_ps", (double)b->compile_ps, (double)t->compile_ps);
}

void tc_write_diff_json(FILE *f, const struct tc_diff *d, const struct tc_diff_write_opts *o) {
	const struct tc_diff_side *b = d->base, *t = d->test;
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_DIFF_SCHEMA);
	char head[512];
	tc_diff_headline(d, head, sizeof(head));
	tc_jw_kv_str(&w, "headline", head);
	tc_jw_key(&w, "base");
	json_side(&w, b);
	tc_jw_key(&w, "test");
	json_side(&w, t);
	tc_jw_kv_bool(&w, "whole_trace", d->whole_trace);
	tc_jw_kv_bool(&w, "exact_names", d->exact_names);
	tc_jw_key(&w, "normalisations_used");
	tc_jw_arr_begin(&w);
	for (uint32_t k = 0; k < TC_NORM_COUNT; k++) {
		if (d->norm_used & (1u << k)) {
			tc_jw_str(&w, tc_diff_norm_name((enum tc_diff_norm)(1u << k)));
		}
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "gate");
	if (o->gate) {
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "metric", o->gate->label);
		tc_jw_kv_int(&w, "base_ps", ps(o->gate->base));
		tc_jw_kv_int(&w, "test_ps", ps(o->gate->test));
		tc_jw_key(&w, "change_pct");
		isfinite(o->gate->change_pct) ? tc_jw_double(&w, o->gate->change_pct) : tc_jw_null(&w);
		tc_jw_key(&w, "threshold_pct");
		isfinite(o->gate->threshold_pct) ? tc_jw_double(&w, o->gate->threshold_pct) :
			tc_jw_null(&w);
		tc_jw_kv_bool(&w, "failed", o->gate->failed);
		tc_jw_obj_end(&w);
	} else {
		tc_jw_null(&w);
	}
	tc_jw_key(&w, "step_time");
	tc_jw_obj_begin(&w);
	json_ps3(&w, "mean_ps", b->step_mean_ps, t->step_mean_ps);
	json_ps3(&w, "median_ps", b->step_median_ps, t->step_median_ps);
	json_ps3(&w, "p90_ps", b->step_p90_ps, t->step_p90_ps);
	tc_jw_obj_end(&w);
	tc_jw_key(&w, "attribution");
	tc_jw_arr_begin(&w);
	for (int i = 0; i < TC_BD_COUNT; i++) {
		int c = d->bd_order[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "category", tc_bd_cat_name((enum tc_bd_cat)c));
		json_ps3(&w, "per_step_ps", (double)b->cat_ps[c] / step_n(b),
			(double)t->cat_ps[c] / step_n(t));
		json_num3(&w, "percent", b->step_total_ps ? 100.0 * (double)b->cat_ps[c] /
			(double)b->step_total_ps : 0, t->step_total_ps ? 100.0 * (double)t->cat_ps[c] /
			(double)t->step_total_ps : 0);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "devices");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < d->n_devices; i++) {
		const struct tc_diff_dev_row *r = &d->devices[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", r->name);
		tc_jw_kv_bool(&w, "in_base", r->in_base);
		tc_jw_kv_bool(&w, "in_test", r->in_test);
		json_ps3(&w, "busy_per_step_ps", r->base_busy_ps, r->test_busy_ps);
		json_ps3(&w, "idle_per_step_ps", r->base_idle_ps, r->test_idle_ps);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	json_rows(&w, "ops", d->ops, d->n_ops, true);
	json_rows(&w, "categories", d->cats, d->n_cats, false);
	json_rest(&w, d);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}
