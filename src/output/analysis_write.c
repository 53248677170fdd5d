/*
 * Text and JSON writers for steps, ops, bottlenecks and the analysis
 * section of summarize; they only read the model and the results.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "model/rank.h"
#include "model/step_counted.h"
#include "output/analysis_write.h"
#include "output/finding_text.h"
#include "output/fmt.h"
#include "output/rank_write.h"
#include "output/table.h"
#include "util/cxxname.h"
#include "util/term.h"
#include "util/xalloc.h"

static const char *S(const struct tc_model *m, uint32_t id) {
	return tc_model_str(m, id);
}

static const char *dev_name(const struct tc_model *m, uint32_t d) {
	return d < m->n_devices ? S(m, m->devices[d].name) : "host";
}

/* "rank" beside a device's name, with several ranks only: device names
 * repeat across ranks. */
static void json_rank(struct tc_jw *w, const struct tc_model *m, uint32_t d) {
	if (tc_model_n_ranks(m) < 2) {
		return;
	}
	tc_jw_key(w, "rank");
	int32_t r = d < m->n_devices ? tc_model_device_rank(m, d) : -1;
	if (r >= 0) {
		tc_jw_int(w, r);
	} else {
		tc_jw_null(w);
	}
}

/* The device for text: with several ranks, "rank 3: GPU 0". A ring of
 * buffers, as one line may name two devices (writers run on one thread). */
static const char *dev_label(const struct tc_model *m, uint32_t d) {
	static char ring[4][128];
	static unsigned next;
	char *b = ring[next++ % 4];
	return tc_write_device_label(b, sizeof(ring[0]), m, d);
}

static double ms(int64_t ps) {
	return (double)ps / 1e9;
}

/* The trace start: the first event's start. Text prints times from it
 * ("from trace start") and JSON *_ps times count from it too. */
static int64_t trace_first(const struct tc_model *m) {
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	return lo;
}

/* ---- steps ---- */

/* The --step-marker pattern after the steps' source, so the output says
 * which marker made the steps. */
static void marker_text(FILE *f, const struct tc_analysis *a) {
	if (a->step_marker) {
		tc_term_fprintf(f, " '%s'", a->step_marker);
	}
}

void tc_write_startup_text(FILE *f, const struct tc_startup *su) {
	if (!su->n_calls) {
		return;
	}
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	fprintf(f, "; start-up outside the counted steps: %s, %s (", tc_fmt_noun(b1,
		su->n_calls, "one-off call", "one-off calls"), tc_fmt_dur(b2, su->total_ps));
	for (size_t i = 0; i < TC_STARTUP_TOP && su->name[i]; i++) {
		tc_term_fprintf(f, "%s%s %s", i ? ", " : "", su->name[i],
			tc_fmt_dur(b1, su->dur_ps[i]));
	}
	fprintf(f, "%s)", su->n_calls > TC_STARTUP_TOP ? ", ..." : "");
}

void tc_write_startup_json(struct tc_jw *w, const struct tc_startup *su) {
	if (!su->n_calls) {
		return;
	}
	tc_jw_key(w, "startup");
	tc_jw_obj_begin(w);
	tc_jw_kv_uint(w, "calls", su->n_calls);
	tc_jw_kv_int(w, "dur_ps", su->total_ps);
	tc_jw_key(w, "longest");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < TC_STARTUP_TOP && su->name[i]; i++) {
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", su->name[i]);
		tc_jw_kv_int(w, "dur_ps", su->dur_ps[i]);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_obj_end(w);
}

static void steps_header_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN], b4[TC_FMT_LEN];
	fprintf(f, "steps      %s (%s", tc_fmt_count(b1, a->n_steps),
		a->steps_source ? a->steps_source : "none");
	marker_text(f, a);
	fprintf(f, ")");
	if (a->n_steps != a->n_steps_all) {
		fprintf(f, ", %s of %s selected", tc_fmt_count(b1, a->n_steps),
			tc_fmt_count(b2, a->n_steps_all));
	}
	if (a->n_steps_counted != a->n_steps) {
		fprintf(f, "; %s counted in totals (warm-up/partial excluded)",
			tc_fmt_count(b1, a->n_steps_counted));
	}
	if (a->bd_device < m->n_devices) {
		tc_term_fprintf(f, "\nbreakdown  on %s and its host", dev_label(m, a->bd_device));
	} else {
		fprintf(f, "\nbreakdown  on host threads (no device activity)");
	}
	fprintf(f, "; disjoint categories that sum to the step time (priority: compute > d2h > "
		"d2d > input > collective > h2d > profiler > sync > launch > compile > host > "
		"idle)\n");
	if (a->trimmed_before_ps > 0 || a->trimmed_after_ps > 0 || a->startup.n_calls) {
		fprintf(f, "window     %s to %s from trace start (the steps); left out: "
			"%s before, %s after (profiler start-up and tear-down, set-up)",
			tc_fmt_dur(b1, a->window_lo_ps - trace_first(m)),
			tc_fmt_dur(b2, a->window_hi_ps - trace_first(m)),
			tc_fmt_dur(b3, a->trimmed_before_ps), tc_fmt_dur(b4, a->trimmed_after_ps));
		tc_write_startup_text(f, &a->startup);
		fprintf(f, "\n");
	}
}

static int by_num(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* Column col of step s in the steps table: duration, busy, categories. */
static int64_t step_col(const struct tc_step *s, int col) {
	return col == 0 ? s->dur_ps : col == 1 ? s->busy_ps : s->cat_ps[col - 2];
}

/*
 * The steps table's last rows: mean, median and p90 of each column over
 * the counted steps (warm-up and partial left out unless nothing else is
 * left, as in the totals), when there are two or more; median of an even
 * count is the middle two's mean.
 */
static void step_stat_rows(struct tc_table *t, const struct tc_analysis *a) {
	size_t n_full = tc_steps_full(a->steps, a->n_steps), n = 0;
	if ((n_full ? n_full : a->n_steps) < 2) {
		return; /* one step's figures again */
	}
	int64_t *v = tc_xcalloc(a->n_steps, sizeof(*v));
	double stat[3][2 + TC_BD_COUNT];
	for (int col = 0; col < 2 + TC_BD_COUNT; col++) {
		n = 0;
		double sum = 0;
		for (size_t i = 0; i < a->n_steps; i++) {
			const struct tc_step *s = &a->steps[i];
			if (tc_step_counted(s, n_full)) {
				v[n++] = step_col(s, col);
				sum += (double)v[n - 1];
			}
		}
		tc_sort(v, n, sizeof(*v), by_num);
		stat[0][col] = sum / (double)n;
		stat[1][col] = ((double)v[(n - 1) / 2] + (double)v[n / 2]) / 2;
		stat[2][col] = (double)v[(9 * n + 9) / 10 - 1]; /* nearest rank */
	}
	free(v);
	static const char *const label[3] = { "mean", "median", "p90" };
	for (int r = 0; r < 3; r++) {
		tc_table_cell(t, label[r]);
		tc_table_cell(t, "");
		for (int col = 0; col < 2 + TC_BD_COUNT; col++) {
			tc_table_cellf(t, "%.3f", stat[r][col] / 1e9);
		}
	}
}

void tc_write_steps_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a) {
	steps_header_text(f, m, a);
	if (!a->n_steps) {
		fprintf(f, "\nno steps\n");
		return;
	}
	fprintf(f, "\ntimes in ms; start from the first event of the trace; busy = device busy "
		"inside the step\n");
	const char *h[4 + TC_BD_COUNT];
	h[0] = ">step";
	h[1] = ">start";
	h[2] = ">duration";
	h[3] = ">busy";
	static const char *const cat_h[TC_BD_COUNT] = {
		">compute", ">d2h", ">d2d", ">input", ">collective", ">profiler", ">sync",
		">launch", ">h2d", ">compile", ">host", ">idle",
	};
	for (int c = 0; c < TC_BD_COUNT; c++) {
		h[4 + c] = cat_h[c];
	}
	struct tc_table t;
	tc_table_init(&t, 4 + TC_BD_COUNT, h);
	int64_t first = trace_first(m);
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct tc_step *s = &a->steps[i];
		tc_table_cellf(&t, "%" PRId64 "%s", s->num, s->warmup ? "*" : s->partial ? "~" : "");
		tc_table_cellf(&t, "%.3f", ms(s->start_ps - first));
		tc_table_cellf(&t, "%.3f", ms(s->dur_ps));
		tc_table_cellf(&t, "%.3f", ms(s->busy_ps));
		for (int c = 0; c < TC_BD_COUNT; c++) {
			tc_table_cellf(&t, "%.3f", ms(s->cat_ps[c]));
		}
	}
	step_stat_rows(&t, a);
	/* Under a width limit the categories with the least time go first. */
	for (int c = 0; c < TC_BD_COUNT; c++) {
		unsigned rank = 1;
		for (int k = 0; k < TC_BD_COUNT; k++) {
			rank += a->cat_total_ps[k] > a->cat_total_ps[c] ||
				(a->cat_total_ps[k] == a->cat_total_ps[c] && k < c);
		}
		tc_table_optional(&t, 4 + (size_t)c, rank);
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	bool any_copy = false;
	for (size_t i = 0; i < a->n_steps && !any_copy; i++) {
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			any_copy |= a->steps[i].xfer[d].count > 0;
		}
	}
	if (any_copy) {
		/* What users ask per iteration: host<->device copies and bytes. */
		fprintf(f, "\ncopies per step (count, and bytes summed over copies that carry a "
			"size; - when none does)\n");
		static const char *const xh[] = {
			">step", ">h2d", ">h2d bytes", ">d2h", ">d2h bytes", ">d2d", ">d2d bytes",
		};
		tc_table_init(&t, 7, xh);
		char b[TC_FMT_LEN];
		for (size_t i = 0; i < a->n_steps; i++) {
			const struct tc_step *s = &a->steps[i];
			tc_table_cellf(&t, "%" PRId64 "%s", s->num,
				s->warmup ? "*" : s->partial ? "~" : "");
			for (int d = 0; d < TC_XFER_COUNT; d++) {
				tc_table_cell(&t, tc_fmt_count(b, s->xfer[d].count));
				/* "-": copies whose trace gives no size, not zero bytes. */
				tc_table_cell(&t, s->xfer[d].count && !s->xfer[d].n_bytes_known ? "-" :
					tc_fmt_bytes(b, s->xfer[d].bytes));
			}
		}
		tc_table_print(&t, f, "  ");
		tc_table_finish(&t);
	}
	if (a->n_steps > 1 && a->steps[a->n_steps - 1].partial) {
		fprintf(f, "  ~ partial: last step with under step.partial of the previous step's "
			"device busy time (cut off by the profiler); left out of totals\n");
	}
	if (a->n_steps && a->steps[0].warmup) {
		fprintf(f, "  * warm-up: first step longer than warmup.factor x the median of the "
			"others (likely compilation); left out of totals\n");
	}
	tc_write_ranks_text(f, m, &a->ranks);
}

static void json_breakdown(struct tc_jw *w, const int64_t *cat) {
	tc_jw_obj_begin(w);
	for (int c = 0; c < TC_BD_COUNT; c++) {
		tc_jw_key(w, tc_bd_cat_name((enum tc_bd_cat)c));
		tc_jw_int(w, cat[c]);
	}
	tc_jw_obj_end(w);
}

static void json_xfer(struct tc_jw *w, const struct tc_xfer_stats *x) {
	tc_jw_obj_begin(w);
	for (int d = 0; d < TC_XFER_COUNT; d++) {
		tc_jw_key(w, tc_xfer_dir_name((enum tc_xfer_dir)d));
		tc_jw_obj_begin(w);
		tc_jw_kv_uint(w, "count", x[d].count);
		tc_jw_kv_double(w, "bytes", x[d].bytes);
		tc_jw_kv_uint(w, "with_bytes", x[d].n_bytes_known);
		tc_jw_kv_int(w, "dur_ps", x[d].dur_ps);
		tc_jw_key(w, "bytes_per_s");
		if (x[d].bytes_dur_ps > 0) {
			tc_jw_double(w, x[d].bytes / ((double)x[d].bytes_dur_ps * 1e-12));
		} else {
			tc_jw_null(w);
		}
		tc_jw_kv_uint(w, "pageable", x[d].n_pageable);
		tc_jw_kv_uint(w, "pinned", x[d].n_pinned);
		tc_jw_obj_end(w);
	}
	tc_jw_obj_end(w);
}

static void json_steps_head(struct tc_jw *w, const struct tc_model *m, const struct tc_analysis *a) {
	tc_jw_key(w, "steps_source");
	if (a->steps_source) {
		tc_jw_str(w, a->steps_source);
	} else {
		tc_jw_null(w);
	}
	tc_jw_kv_bool(w, "steps_inferred", a->steps_inferred);
	if (a->step_marker) {
		tc_jw_kv_str(w, "step_marker", a->step_marker);
	}
	tc_jw_key(w, "breakdown_device");
	if (a->bd_device < m->n_devices) {
		tc_jw_str(w, dev_name(m, a->bd_device));
	} else {
		tc_jw_null(w);
	}
	tc_jw_kv_uint(w, "steps_total", a->n_steps_all);
	tc_jw_kv_uint(w, "steps_selected", a->n_steps);
	tc_jw_kv_uint(w, "steps_counted", a->n_steps_counted);
	tc_jw_kv_int(w, "step_time_ps", a->step_total_ps);
	tc_jw_key(w, "breakdown_ps");
	json_breakdown(w, a->cat_total_ps);
	tc_jw_key(w, "window");
	tc_jw_obj_begin(w);
	tc_jw_kv_int(w, "start_ps", a->window_lo_ps - trace_first(m));
	tc_jw_kv_int(w, "end_ps", a->window_hi_ps - trace_first(m));
	tc_jw_kv_int(w, "trimmed_before_ps", a->trimmed_before_ps);
	tc_jw_kv_int(w, "trimmed_after_ps", a->trimmed_after_ps);
	tc_write_startup_json(w, &a->startup);
	tc_jw_obj_end(w);
	/* Every device's attribution over the counted steps. */
	tc_jw_key(w, "attribution");
	tc_jw_arr_begin(w);
	for (size_t k = 0; k < a->n_attr; k++) {
		const struct tc_dev_attr *at = &a->attr[k];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "device", dev_name(m, at->device));
		json_rank(w, m, at->device);
		tc_jw_kv_int(w, "step_time_ps", at->step_ps);
		tc_jw_key(w, "breakdown_ps");
		json_breakdown(w, at->cat_ps);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

void tc_write_steps_json(FILE *f, const struct tc_model *m, const struct tc_analysis *a) {
	int64_t first = trace_first(m);
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_STEPS_SCHEMA);
	json_steps_head(&w, m, a);
	tc_jw_key(&w, "steps");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct tc_step *s = &a->steps[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_int(&w, "num", s->num);
		tc_jw_kv_str(&w, "name", S(m, s->name));
		tc_jw_kv_int(&w, "start_ps", s->start_ps - first);
		tc_jw_kv_int(&w, "dur_ps", s->dur_ps);
		tc_jw_kv_int(&w, "marker_dur_ps", s->marker_dur_ps);
		tc_jw_kv_bool(&w, "warmup", s->warmup);
		tc_jw_kv_bool(&w, "partial", s->partial);
		tc_jw_kv_int(&w, "device_busy_ps", s->busy_ps);
		tc_jw_key(&w, "breakdown_ps");
		json_breakdown(&w, s->cat_ps);
		tc_jw_key(&w, "transfers");
		json_xfer(&w, s->xfer);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_write_ranks_json(&w, m, &a->ranks);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}

/* ---- ops ---- */

static const char *row_label(const struct tc_model *m, const struct tc_op_table *t,
		const struct tc_op_row *r) {
	if (r->label) {
		return r->label;
	}
	if (strcmp(t->by, "device") == 0) {
		return dev_label(m, r->device);
	}
	return S(m, r->name);
}

/* No roofline: say which peak the trace lacks, since 'info' may show the
 * other one (an xplane GPU plane gives its memory bandwidth, not FLOP/s). */
static void peaks_unknown_text(FILE *f, const struct tc_model *m, const struct tc_op_table *t) {
	char b[TC_FMT_LEN];
	for (size_t d = 0; d < m->n_devices; d++) {
		const struct tc_device *dev = &m->devices[d];
		if ((t->device < m->n_devices && d != t->device) || dev->kind == TC_DEV_CPU ||
				(dev->peak_flops > 0) == (dev->peak_bw > 0)) {
			continue;
		}
		tc_term_fprintf(f, "roofline   peak %s unknown: %s gives only its %s %s (use %s)\n",
			dev->peak_flops > 0 ? "memory bandwidth" : "FLOP/s", S(m, dev->name),
			dev->peak_flops > 0 ? "FLOP/s" : "memory bandwidth",
			dev->peak_flops > 0 ? tc_fmt_rate(b, dev->peak_flops, "FLOP/s") :
			tc_fmt_rate(b, dev->peak_bw, "B/s"),
			dev->peak_flops > 0 ? "--peak-bw" : "--peak-flops");
		return;
	}
	fprintf(f, "roofline   device peak FLOP/s and memory bandwidth unknown (use "
		"--peak-flops and --peak-bw)\n");
}

void tc_write_ops_text(FILE *f, const struct tc_model *m, const struct tc_op_table *t,
		size_t top) {
	char b[8][TC_FMT_LEN];
	size_t n = top && top < t->n ? top : t->n;
	fprintf(f, "ops by %s", t->by);
	if (t->device < m->n_devices) {
		tc_term_fprintf(f, " on %s", dev_label(m, t->device));
	}
	fprintf(f, ": %s of %s by total time (%s; share of %s %s)\n", tc_fmt_count(b[1], n),
		tc_fmt_noun(b[2], t->n, "row", "rows"), t->scope, t->share_of,
		tc_fmt_dur(b[0], t->busy_ps));
	if (t->peak_source) {
		fprintf(f, "roofline   peaks %s, %s (%s); ridge point %.1f FLOP/B; class = "
			"FLOP/B below the ridge: memory-bound, else compute-bound\n",
			tc_fmt_rate(b[0], t->peak_flops, "FLOP/s"), tc_fmt_rate(b[1], t->peak_bw, "B/s"),
			t->peak_source, t->ridge);
	} else {
		peaks_unknown_text(f, m, t);
	}
	if (!n) {
		return;
	}
	static const char *const h[] = {
		"op", ">count", ">total", ">self", ">mean", ">min", ">max", ">p50", ">p99", ">share",
		">FLOP/s", ">B/s", ">FLOP/B", "class",
	};
	struct tc_table tb;
	tc_table_init(&tb, 14, h);
	/* Under a width limit: the name shrinks, then the rarer figures go. */
	static const unsigned drop[14] = { 0, 0, 0, 5, 4, 7, 6, 8, 3, 0, 1, 2, 9, 0 };
	tc_table_elastic(&tb, 0);
	for (size_t c = 0; c < 14; c++) {
		tc_table_optional(&tb, c, drop[c]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		tc_table_cell(&tb, row_label(m, t, r));
		tc_table_cell(&tb, tc_fmt_count(b[0], r->count));
		tc_table_cell(&tb, tc_fmt_dur(b[1], r->total_ps));
		tc_table_cell(&tb, tc_fmt_dur(b[2], r->self_ps));
		tc_table_cell(&tb, tc_fmt_dur(b[3], r->count ? r->total_ps / (int64_t)r->count : 0));
		tc_table_cell(&tb, tc_fmt_dur(b[4], r->min_ps));
		tc_table_cell(&tb, tc_fmt_dur(b[5], r->max_ps));
		tc_table_cell(&tb, r->p50_ps >= 0 ? tc_fmt_dur(b[6], r->p50_ps) : "-");
		tc_table_cell(&tb, r->p99_ps >= 0 ? tc_fmt_dur(b[7], r->p99_ps) : "-");
		tc_table_cellf(&tb, "%.1f %%", 100 * r->share);
		tc_table_cell(&tb, r->flop_rate >= 0 ? tc_fmt_rate(b[0], r->flop_rate, "FLOP/s") : "-");
		tc_table_cell(&tb, r->byte_rate >= 0 ? tc_fmt_rate(b[1], r->byte_rate, "B/s") : "-");
		if (r->intensity >= 0) {
			tc_table_cellf(&tb, "%.2f", r->intensity);
		} else {
			tc_table_cell(&tb, "-");
		}
		tc_table_cell(&tb, tc_bound_name((enum tc_bound)r->bound));
	}
	tc_table_print(&tb, f, "  ");
	tc_table_finish(&tb);
}

void tc_write_ops_json(FILE *f, const struct tc_model *m, const struct tc_op_table *t,
		size_t top) {
	size_t n = top && top < t->n ? top : t->n;
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_OPS_SCHEMA);
	tc_jw_kv_str(&w, "by", t->by);
	tc_jw_kv_str(&w, "scope", t->scope);
	tc_jw_key(&w, "device");
	if (t->device < m->n_devices) {
		tc_jw_str(&w, dev_name(m, t->device));
	} else {
		tc_jw_null(&w);
	}
	tc_jw_kv_int(&w, "busy_ps", t->busy_ps);
	tc_jw_kv_str(&w, "share_of", t->share_of);
	tc_jw_kv_double(&w, "peak_flops_per_s", t->peak_flops);
	tc_jw_kv_double(&w, "peak_bytes_per_s", t->peak_bw);
	tc_jw_kv_double(&w, "ridge_flops_per_byte", t->ridge);
	tc_jw_key(&w, "peak_source");
	if (t->peak_source) {
		tc_jw_str(&w, t->peak_source);
	} else {
		tc_jw_null(&w);
	}
	tc_jw_kv_uint(&w, "rows_total", t->n);
	tc_jw_key(&w, "rows");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < n; i++) {
		const struct tc_op_row *r = &t->rows[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "key", row_label(m, t, r));
		if (strcmp(t->by, "name") == 0) {
			tc_jw_kv_str(&w, "category", S(m, r->category));
			tc_jw_kv_str(&w, "kind", tc_op_kind_name((enum tc_op_kind)r->kind));
		} else if (strcmp(t->by, "device") == 0 && r->device < m->n_devices) {
			tc_jw_kv_str(&w, "device", S(m, m->devices[r->device].name));
			tc_write_device_identity_json(&w, m, r->device);
		} else if (strcmp(t->by, "category") == 0 && strcmp(t->scope, "device") == 0) {
			/* the part TraceLens counts: work a known host op launched */
			tc_jw_kv_int(&w, "launched_ps", r->launched_ps);
		}
		tc_jw_kv_uint(&w, "count", r->count);
		tc_jw_kv_int(&w, "total_ps", r->total_ps);
		tc_jw_kv_int(&w, "self_ps", r->self_ps);
		tc_jw_kv_int(&w, "min_ps", r->min_ps);
		tc_jw_kv_int(&w, "max_ps", r->max_ps);
		tc_jw_kv_int(&w, "p50_ps", r->p50_ps);
		tc_jw_kv_int(&w, "p99_ps", r->p99_ps);
		tc_jw_kv_double(&w, "share", r->share);
		if (r->flops >= 0) {
			tc_jw_kv_double(&w, "flops", r->flops);
			tc_jw_kv_double(&w, "flops_per_s", r->flop_rate);
		}
		if (r->bytes >= 0) {
			tc_jw_kv_double(&w, "bytes_accessed", r->bytes);
			tc_jw_kv_double(&w, "bytes_per_s", r->byte_rate);
		}
		if (r->intensity >= 0) {
			tc_jw_kv_double(&w, "flops_per_byte", r->intensity);
		}
		if (r->efficiency >= 0) {
			tc_jw_kv_double(&w, "roofline_efficiency", r->efficiency);
		}
		tc_jw_kv_str(&w, "class", tc_bound_name((enum tc_bound)r->bound));
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}

/* ---- findings ---- */

static bool listed(const struct tc_finding *fd, enum tc_severity min) {
	return fd->severity >= min;
}

/* "explains 12.3 %" of the step time, where the finding is a cause. */
static const char *explains(const struct tc_finding *fd, char *buf, size_t n) {
	buf[0] = 0;
	if (fd->explained_ps > 0) {
		snprintf(buf, n, " (%.1f %% of step time)", 100 * fd->share);
	}
	return buf;
}

/* " 1. [high] kind (12.3 % of step time): text", the severity coloured. */
static void finding_line(FILE *f, const struct tc_finding *fd, size_t k) {
	static const enum tc_style sev_style[] = {
		[TC_SEV_LOW] = TC_STYLE_LOW, [TC_SEV_MEDIUM] = TC_STYLE_MEDIUM,
		[TC_SEV_HIGH] = TC_STYLE_HIGH, [TC_SEV_CRITICAL] = TC_STYLE_CRITICAL,
	};
	char ex[48];
	struct tc_strbuf sb = { 0 };
	tc_finding_wording(fd, &sb);
	fprintf(f, "%2zu. [", k);
	tc_style_puts(f, sev_style[fd->severity], tc_severity_name((enum tc_severity)fd->severity));
	tc_term_fprintf(f, "] %s%s: %s\n", fd->kind, explains(fd, ex, sizeof(ex)), sb.s);
	tc_strbuf_finish(&sb);
}

/* "    ops: 'a', 'b'", kernel signatures shortened as in the tables. */
static void op_list(FILE *f, const struct tc_model *m, const struct tc_finding *fd) {
	const char **full = tc_xcalloc(fd->n_ops, sizeof(*full));
	char **shown = tc_xcalloc(fd->n_ops, sizeof(*shown));
	for (size_t i = 0; i < fd->n_ops; i++) {
		full[i] = S(m, fd->ops[i]);
	}
	if (tc_g_termout.short_names) {
		tc_cxxname_distinct(full, fd->n_ops, shown);
	}
	fprintf(f, "    ops:");
	for (size_t i = 0; i < fd->n_ops; i++) {
		tc_term_fprintf(f, "%s '%s'", i ? "," : "", shown[i] ? shown[i] : full[i]);
		free(shown[i]);
	}
	fprintf(f, "\n");
	free(shown);
	free(full);
}

/* "    steps: 0, 5-10, 12": sorted, runs of consecutive numbers as ranges. */
static void step_ranges(FILE *f, const int64_t *steps, size_t n) {
	int64_t *v = tc_xmalloc(n * sizeof(*v));
	memcpy(v, steps, n * sizeof(*v));
	tc_sort(v, n, sizeof(*v), by_num);
	fprintf(f, "    steps:");
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] <= v[j] + 1) {
			j++;
		}
		fprintf(f, "%s %" PRId64, k ? "," : "", v[i]);
		if (v[j] != v[i]) {
			fprintf(f, "-%" PRId64, v[j]);
		}
		i = j + 1;
	}
	fprintf(f, "\n");
	free(v);
}

static void finding_text(FILE *f, const struct tc_model *m, const struct tc_finding *fd,
		size_t k, int64_t first) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	finding_line(f, fd, k);
	tc_term_fprintf(f, "    try: %s\n", fd->suggestion);
	if (fd->n_ops) {
		op_list(f, m, fd);
	}
	if (fd->n_steps) {
		step_ranges(f, fd->steps, fd->n_steps);
	}
	if (fd->window_hi_ps > fd->window_lo_ps) {
		fprintf(f, "    window: %s .. %s from trace start\n",
			tc_fmt_dur(b1, fd->window_lo_ps - first), tc_fmt_dur(b2, fd->window_hi_ps - first));
	} else if (fd->window_hi_ps == fd->window_lo_ps && fd->window_lo_ps) {
		fprintf(f, "    at: %s from trace start\n", tc_fmt_dur(b1, fd->window_lo_ps - first));
	}
}

static void breakdown_text(FILE *f, const struct tc_analysis *a) {
	if (!a->step_total_ps) {
		return;
	}
	/* Categories with no time say nothing here; JSON keeps them all. */
	fprintf(f, "           ");
	for (int c = 0, k = 0; c < TC_BD_COUNT; c++) {
		if (a->cat_total_ps[c] > 0) {
			fprintf(f, "%s%s %.1f %%", k++ ? ", " : "", tc_bd_cat_name((enum tc_bd_cat)c),
				100.0 * (double)a->cat_total_ps[c] / (double)a->step_total_ps);
		}
	}
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	fprintf(f, "\n           of %s step time, mean %s per step\n",
		tc_fmt_dur(b1, a->step_total_ps), tc_fmt_dur(b2, a->step_total_ps /
			(int64_t)(a->n_steps_counted ? a->n_steps_counted : 1)));
}

static int by_device(const void *pa, const void *pb) {
	const struct tc_mem_peak *a = *(const struct tc_mem_peak *const *)pa;
	const struct tc_mem_peak *b = *(const struct tc_mem_peak *const *)pb;
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	return a < b ? -1 : a > b; /* the analysis' order within a device */
}

/*
 * The memory counters to list, by device: a counter whose peak is 0 over
 * the whole trace (a reserved counter the trace never fills) says nothing.
 */
static const struct tc_mem_peak **mem_rows(const struct tc_analysis *a, size_t *n) {
	const struct tc_mem_peak **v = tc_xcalloc(a->n_mem ? a->n_mem : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < a->n_mem; i++) {
		if (a->mem[i].peak_bytes > 0) {
			v[(*n)++] = &a->mem[i];
		}
	}
	tc_sort(v, *n, sizeof(*v), by_device);
	return v;
}

/* The devices table: busy, compute, collectives, host wait, kernels. */
static void devices_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	if (!a->n_util) {
		return;
	}
	fprintf(f, "\ndevices (busy = union of device ops; span = first to last op; host wait = "
		"idle gaps ended by an op launched after the gap began)\n");
	static const char *const h[] = {
		">rank", "device", ">busy %", ">compute", ">collective", ">overlap", ">host wait",
		">kernels", ">< 10 us", ">launch delay p50",
	};
	/* A rank column only when the devices belong to several ranks. */
	bool ranks = tc_model_n_ranks(m) >= 2;
	struct tc_table t;
	tc_table_init(&t, ranks ? 10 : 9, ranks ? h : h + 1);
	for (size_t k = 0; k < a->n_util; k++) {
		const struct tc_device_util *u = &a->util[k];
		if (ranks) {
			tc_table_cell(&t, tc_write_rank(b1, m, u->device));
		}
		tc_table_cell(&t, dev_name(m, u->device));
		/* Wrapped, not undefined: a digest's times are input. */
		int64_t span = (int64_t)((uint64_t)u->last_ps - (uint64_t)u->first_ps);
		tc_table_cell(&t, tc_fmt_pct(b1, (double)u->busy_ps, (double)span));
		if (u->busy_ps < (int64_t)((uint64_t)span - (uint64_t)u->busy_ps)) {
			tc_table_style(&t, TC_STYLE_BAD); /* mostly idle */
		}
		tc_table_cell(&t, tc_fmt_dur(b1, u->compute_ps));
		tc_table_cell(&t, tc_fmt_dur(b2, u->comm_ps));
		tc_table_cell(&t, tc_fmt_pct(b1, (double)u->overlap_ps, (double)u->comm_ps));
		tc_table_cell(&t, tc_fmt_dur(b2, u->idle_host_wait_ps));
		tc_table_cell(&t, tc_fmt_count(b1, u->n_kernels));
		tc_table_cell(&t, tc_fmt_count(b2, u->n_short_kernels));
		tc_table_cell(&t, u->launch_delay_p50_ps >= 0 ?
			tc_fmt_dur(b1, u->launch_delay_p50_ps) : "-");
	}
	tc_table_elastic(&t, 0);
	tc_table_optional(&t, 8, 4);
	tc_table_optional(&t, 7, 3);
	tc_table_optional(&t, 6, 2);
	tc_table_optional(&t, 4, 1);
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
}

/* Copies by direction: count, time, bytes, bandwidth, pageable or pinned. */
static void transfers_text(FILE *f, const struct tc_analysis *a) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	uint64_t nx = 0;
	for (int d = 0; d < TC_XFER_COUNT; d++) {
		nx += a->xfer[d].count;
	}
	if (nx) {
		fprintf(f, "\ntransfers (bandwidth = bytes / copy duration, copies with a byte count)\n");
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			const struct tc_xfer_stats *x = &a->xfer[d];
			if (!x->count) {
				continue;
			}
			fprintf(f, "  %-4s %s, %s", tc_xfer_dir_name((enum tc_xfer_dir)d),
				tc_fmt_noun(b1, x->count, "copy", "copies"), tc_fmt_dur(b2, x->dur_ps));
			if (x->n_bytes_known) {
				fprintf(f, ", %s in %s with a size", tc_fmt_bytes(b1, x->bytes),
					tc_fmt_noun(b2, x->n_bytes_known, "copy", "copies"));
			}
			if (x->bytes_dur_ps > 0) {
				fprintf(f, ", %s", tc_fmt_rate(b2, x->bytes / ((double)x->bytes_dur_ps * 1e-12),
					"B/s"));
			}
			if (x->n_pageable || x->n_pinned) {
				fprintf(f, ", %s pageable / %s pinned", tc_fmt_count(b1, x->n_pageable),
					tc_fmt_count(b2, x->n_pinned));
			}
			fprintf(f, "\n");
		}
	}
}

/* The peak of each memory counter. */
static void memory_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
		int64_t first) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	size_t n_mem = 0;
	const struct tc_mem_peak **mem = mem_rows(a, &n_mem);
	if (n_mem) {
		fprintf(f, "\nmemory (peak of each counter)\n");
		for (size_t i = 0; i < n_mem; i++) {
			const struct tc_mem_peak *p = mem[i];
			tc_term_fprintf(f, "  %s %s%s%s: peak %s at %s", dev_label(m, p->device),
				S(m, p->name),
				p->group ? " " : "", p->group ? S(m, p->group) : "",
				tc_fmt_bytes(b1, p->peak_bytes), tc_fmt_dur(b2, p->peak_ts_ps - first));
			if (p->capacity_bytes > 0) {
				fprintf(f, ", %.1f %% of %s", 100.0 * p->peak_bytes / (double)p->capacity_bytes,
					tc_fmt_bytes(b2, (double)p->capacity_bytes));
			}
			fprintf(f, "\n");
		}
	}
	free(mem);
}

/* Compilation: its union time, how many, how many programs compiled again. */
static void compile_text(FILE *f, const struct tc_analysis *a) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	if (a->compile.n_events) {
		char b3[TC_FMT_LEN];
		fprintf(f, "\ncompile    %s in %s (union over all lines), %s compiled more than "
			"once\n", tc_fmt_dur(b1, a->compile.union_ps),
			tc_fmt_noun(b2, a->compile.n_events, "compilation", "compilations"),
			tc_fmt_noun(b3, a->compile.n_recompiled, "program", "programs"));
	}
}

/* The findings at or above o's severity, o's top of them. */
static void findings_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_bottlenecks_opts *o, int64_t first) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	size_t shown = 0, eligible = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		eligible += listed(&a->findings[i], o->min_severity);
	}
	fprintf(f, "\nfindings (%s", tc_fmt_count(b1, eligible));
	if (eligible != a->n_findings) {
		fprintf(f, " at or above %s, %s in all", tc_severity_name(o->min_severity),
			tc_fmt_count(b2, a->n_findings));
	}
	if (o->top && o->top < eligible) {
		fprintf(f, "; top %s shown", tc_fmt_count(b1, o->top));
	}
	fprintf(f, ")\n");
	if (!eligible && a->n_steps == 0 && a->n_util == 0) {
		/* Nothing ran, not even a whole-trace step: no threshold was tried. */
		char b3[TC_FMT_LEN];
		fprintf(f, "  no device activity: nothing to diagnose (%s)\n",
			tc_fmt_noun(b3, m->n_counters, "counter track", "counter tracks"));
	} else if (!eligible) {
		fprintf(f, "  no bottleneck found above the thresholds\n");
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		if (!listed(&a->findings[i], o->min_severity) || (o->top && shown >= o->top)) {
			continue;
		}
		finding_text(f, m, &a->findings[i], ++shown, first);
	}
}

void tc_write_bottlenecks_text(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_bottlenecks_opts *o) {
	int64_t first = trace_first(m);
	steps_header_text(f, m, a);
	breakdown_text(f, a);
	devices_text(f, m, a);
	transfers_text(f, a);
	memory_text(f, m, a, first);
	compile_text(f, a);
	findings_text(f, m, a, o, first);
}

/* The spread of a cause over the devices, and the figures the text quotes. */
static void json_finding_data(struct tc_jw *w, const struct tc_finding *fd) {
	tc_jw_key(w, "spread");
	if (fd->n_measured) {
		tc_jw_obj_begin(w);
		tc_jw_kv_int(w, "devices", fd->n_measured);
		tc_jw_kv_int(w, "at_or_above_moderate", fd->n_over);
		tc_jw_obj_end(w);
	} else {
		tc_jw_null(w);
	}
	tc_jw_key(w, "evidence");
	tc_jw_arr_begin(w);
	for (size_t k = 0; k < fd->n_figs; k++) {
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", fd->figs[k].name);
		tc_jw_kv_double(w, "value", fd->figs[k].value);
		tc_jw_kv_str(w, "unit", fd->figs[k].unit);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

static void json_findings(struct tc_jw *w, const struct tc_model *m, const struct tc_analysis *a,
		enum tc_severity min, size_t top) {
	int64_t first = trace_first(m);
	tc_jw_key(w, "findings");
	tc_jw_arr_begin(w);
	size_t shown = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *fd = &a->findings[i];
		if (!listed(fd, min) || (top && shown >= top)) {
			continue;
		}
		shown++;
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "kind", fd->kind);
		tc_jw_kv_str(w, "severity", tc_severity_name((enum tc_severity)fd->severity));
		tc_jw_kv_double(w, "value", fd->value);
		tc_jw_kv_int(w, "explained_ps", fd->explained_ps);
		tc_jw_kv_double(w, "share", fd->share);
		struct tc_strbuf sb = { 0 };
		tc_finding_wording(fd, &sb);
		tc_jw_kv_str(w, "text", sb.s);
		tc_strbuf_finish(&sb);
		tc_jw_kv_str(w, "suggestion", fd->suggestion);
		tc_jw_key(w, "device");
		if (fd->device < m->n_devices) {
			tc_jw_str(w, dev_name(m, fd->device));
		} else {
			tc_jw_null(w);
		}
		json_rank(w, m, fd->device);
		json_finding_data(w, fd);
		tc_jw_key(w, "ops");
		tc_jw_arr_begin(w);
		for (size_t k = 0; k < fd->n_ops; k++) {
			tc_jw_str(w, S(m, fd->ops[k]));
		}
		tc_jw_arr_end(w);
		tc_jw_key(w, "steps");
		tc_jw_arr_begin(w);
		for (size_t k = 0; k < fd->n_steps; k++) {
			tc_jw_int(w, fd->steps[k]);
		}
		tc_jw_arr_end(w);
		tc_jw_key(w, "window");
		if (fd->window_hi_ps >= fd->window_lo_ps && (fd->window_hi_ps || fd->window_lo_ps)) {
			tc_jw_obj_begin(w);
			tc_jw_kv_int(w, "start_ps", fd->window_lo_ps - first);
			tc_jw_kv_int(w, "end_ps", fd->window_hi_ps - first);
			tc_jw_obj_end(w);
		} else {
			tc_jw_null(w);
		}
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

void tc_write_runtime_text(FILE *f, const struct tc_runtime_info *ri) {
	fprintf(f, "framework  %s", tc_framework_label((enum tc_framework)ri->framework));
	const char *src = tc_framework_source(ri);
	fprintf(f, src ? " (from %s)\n" : "%s\n", src ? src : "");
	fprintf(f, "runtime    %s", tc_runtime_label((enum tc_runtime)ri->runtime));
	fprintf(f, ri->runtime_why ? " (from %s)\n" : "%s\n",
		ri->runtime_why ? ri->runtime_why : "");
	if (ri->evidence) {
		fprintf(f, "seen       ");
		const char *sep = "";
		for (int i = 0; i < TC_EVD_COUNT; i++) {
			if (ri->evidence & (1u << i)) {
				fprintf(f, "%s%s", sep, tc_evidence_id(1u << i));
				sep = ", ";
			}
		}
		fprintf(f, "\n");
	}
}

void tc_write_runtime_json(struct tc_jw *w, const struct tc_runtime_info *ri) {
	tc_jw_kv_str(w, "framework", tc_framework_id((enum tc_framework)ri->framework));
	tc_jw_kv_str(w, "runtime", tc_runtime_id((enum tc_runtime)ri->runtime));
	tc_jw_key(w, "framework_source");
	if (tc_framework_source(ri)) {
		tc_jw_str(w, tc_framework_source(ri));
	} else {
		tc_jw_null(w);
	}
	tc_jw_key(w, "runtime_source");
	if (ri->runtime_why) {
		tc_jw_str(w, ri->runtime_why);
	} else {
		tc_jw_null(w);
	}
	tc_jw_key(w, "framework_evidence");
	tc_jw_arr_begin(w);
	for (int i = 0; i < TC_EVD_COUNT; i++) {
		if (ri->evidence & (1u << i)) {
			tc_jw_str(w, tc_evidence_id(1u << i));
		}
	}
	tc_jw_arr_end(w);
}

void tc_write_bottlenecks_json(FILE *f, const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_bottlenecks_opts *o) {
	int64_t first = trace_first(m);
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_BOTTLENECKS_SCHEMA);
	tc_jw_kv_int(&w, "span_ps", a->span_ps);
	tc_write_runtime_json(&w, &a->runtime);
	json_steps_head(&w, m, a);
	tc_jw_key(&w, "transfers");
	json_xfer(&w, a->xfer);
	tc_jw_key(&w, "devices");
	tc_jw_arr_begin(&w);
	bool by_device = true;
	for (size_t s = 1; s < a->n_streams && by_device; s++) {
		by_device = m->tracks[a->streams[s - 1].track].device <=
			m->tracks[a->streams[s].track].device;
	}
	size_t cur = 0;
	for (size_t k = 0; k < a->n_util; k++) {
		const struct tc_device_util *u = &a->util[k];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", dev_name(m, u->device));
		tc_write_device_identity_json(&w, m, u->device);
		tc_jw_kv_int(&w, "first_ps", u->first_ps - first);
		tc_jw_kv_int(&w, "last_ps", u->last_ps - first);
		tc_jw_kv_int(&w, "busy_ps", u->busy_ps);
		tc_jw_kv_int(&w, "computation_ps", u->compute_ps);
		tc_jw_kv_int(&w, "kernel_ps", u->kernel_ps);
		tc_jw_kv_int(&w, "collective_ps", u->comm_ps);
		tc_jw_kv_int(&w, "overlap_ps", u->overlap_ps);
		tc_jw_kv_int(&w, "idle_ps", u->idle_ps);
		tc_jw_kv_int(&w, "idle_host_wait_ps", u->idle_host_wait_ps);
		tc_jw_kv_int(&w, "idle_kernel_wait_ps", u->idle_kernel_wait_ps);
		tc_jw_kv_uint(&w, "kernels", u->n_kernels);
		tc_jw_kv_uint(&w, "short_kernels", u->n_short_kernels);
		tc_jw_kv_uint(&w, "launches", u->n_launches);
		tc_jw_kv_int(&w, "launch_delay_p50_ps", u->launch_delay_p50_ps);
		tc_jw_key(&w, "peak_source");
		if (u->peak_source) {
			tc_jw_str(&w, u->peak_source);
		} else {
			tc_jw_null(&w);
		}
		tc_jw_key(&w, "streams");
		tc_jw_arr_begin(&w);
		/* Streams come grouped by device in util order (usage.c): start
		 * at the device's first, not at 0, when they are. */
		size_t s = 0;
		if (by_device) {
			while (cur < a->n_streams && m->tracks[a->streams[cur].track].device < u->device) {
				cur++;
			}
			s = cur;
		}
		for (; s < a->n_streams; s++) {
			const struct tc_stream_util *su = &a->streams[s];
			if (m->tracks[su->track].device != u->device) {
				if (by_device && m->tracks[su->track].device > u->device) {
					break;
				}
				continue;
			}
			tc_jw_obj_begin(&w);
			tc_jw_kv_str(&w, "name", S(m, m->tracks[su->track].name));
			tc_jw_kv_uint(&w, "events", su->n_events);
			tc_jw_kv_int(&w, "busy_ps", su->busy_ps);
			tc_jw_kv_int(&w, "span_ps", su->span_ps);
			tc_jw_kv_int(&w, "idle_host_wait_ps", su->idle_host_wait_ps);
			tc_jw_obj_end(&w);
		}
		tc_jw_arr_end(&w);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "memory");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < a->n_mem; i++) {
		const struct tc_mem_peak *p = &a->mem[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "device", dev_name(m, p->device));
		tc_jw_kv_str(&w, "counter", S(m, p->name));
		tc_jw_kv_str(&w, "group", S(m, p->group));
		tc_jw_kv_double(&w, "peak_bytes", p->peak_bytes);
		tc_jw_kv_int(&w, "peak_ps", p->peak_ts_ps - first);
		tc_jw_kv_int(&w, "capacity_bytes", p->capacity_bytes);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "compile");
	tc_jw_obj_begin(&w);
	tc_jw_kv_uint(&w, "events", a->compile.n_events);
	tc_jw_kv_int(&w, "union_ps", a->compile.union_ps);
	tc_jw_key(&w, "recompiled");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < a->compile.n_recompiled; i++) {
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, a->compile.recompiled[i].name));
		tc_jw_kv_uint(&w, "count", a->compile.recompiled[i].count);
		tc_jw_kv_int(&w, "total_ps", a->compile.recompiled[i].total_ps);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_obj_end(&w);
	json_findings(&w, m, a, o->min_severity, o->top);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}

void tc_write_analysis_section_text(FILE *f, const struct tc_model *m,
		const struct tc_analysis *a, size_t n) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	/* Without events there is no step time: no breakdown header to dangle. */
	if (a->step_total_ps > 0) {
		tc_term_fprintf(f, "\nstep time  %s counted (%s",
			tc_fmt_noun(b1, a->n_steps_counted, "step", "steps"),
			a->steps_source ? a->steps_source : "none");
		marker_text(f, a);
		tc_term_fprintf(f, "), breakdown on %s:\n",
			a->bd_device < m->n_devices ? dev_label(m, a->bd_device) : "host threads");
		breakdown_text(f, a);
	}
	tc_write_ranks_text(f, m, &a->ranks);
	if (!a->n_findings) {
		fprintf(f, "\nfindings   none above the thresholds\n");
		return;
	}
	fprintf(f, "\nfindings   %s (top %s; see 'tracectl bottlenecks')\n",
		tc_fmt_count(b1, a->n_findings), tc_fmt_count(b2, n < a->n_findings ? n : a->n_findings));
	for (size_t i = 0; i < a->n_findings && i < n; i++) {
		finding_line(f, &a->findings[i], i + 1);
	}
}

void tc_write_analysis_section_json(struct tc_jw *w, const struct tc_model *m,
		const struct tc_analysis *a, size_t n) {
	tc_jw_key(w, "step_breakdown");
	tc_jw_obj_begin(w);
	json_steps_head(w, m, a);
	tc_jw_obj_end(w);
	tc_write_ranks_json(w, m, &a->ranks);
	json_findings(w, m, a, TC_SEV_NONE, n);
}
