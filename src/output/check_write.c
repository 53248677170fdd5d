/*
 * Writers for `tracectl check`: the metric list, the text table, JSON and
 * JUnit XML, reading only the check results.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "model/findings.h"
#include "output/check_write.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/markup.h"
#include "output/table.h"
#include "util/term.h"

char *tc_check_fmt_value(char *buf, size_t size, enum tc_metric_unit u, double v) {
	char tmp[TC_FMT_LEN];
	switch (u) {
	case TC_MU_TIME:
		snprintf(buf, size, "%s", tc_fmt_dur(tmp, (int64_t)llround(v * 1e12)));
		break;
	case TC_MU_BYTES:
		snprintf(buf, size, "%s", tc_fmt_bytes(tmp, v));
		break;
	case TC_MU_RATIO:
		snprintf(buf, size, "%.1f %%", v * 100);
		break;
	case TC_MU_SEVERITY:
		snprintf(buf, size, "%s", tc_severity_name((enum tc_severity)(int)v));
		break;
	default:
		snprintf(buf, size, "%.6g", v);
		break;
	}
	return buf;
}

char *tc_check_fmt_limit(char *buf, size_t size, const struct tc_check_row *r) {
	if (!r->has_limit) {
		snprintf(buf, size, "%s", "");
	} else {
		snprintf(buf, size, "%s %s", r->is_min ? ">=" : "<=", r->limit_text);
	}
	return buf;
}

void tc_write_check_list(FILE *f) {
	const struct tc_metric_def *d = tc_metric_defs();
	for (int i = 0; i < TC_M_COUNT; i++) {
		fprintf(f, "%-24s %-9s %s\n", d[i].name,
			tc_metric_unit_name((enum tc_metric_unit)d[i].unit), d[i].definition);
	}
	fprintf(f, "\nunits in values: time 150ms, 2.5s, 80us, 500ns; bytes 16KiB, 16KB, 1.5MiB,\n"
		"4096B; ratio 20%%; a time, size or ratio needs its unit; counts are plain\n"
		"numbers; severity none, low, medium, high, critical. Per-step figures count\n"
		"the steps the breakdown counts (warm-up and partial steps left out). With\n"
		"several inputs each file is a rank, every metric is measured on each and the\n"
		"worst rank decides.\n");
}

/* The rank and detail of row r's deciding value: "rank 1, GPU 0 memory.allocated". */
static void where(const struct tc_check *c, const struct tc_check_row *r, char *buf,
		size_t size) {
	buf[0] = '\0';
	if (r->worst == SIZE_MAX) {
		return;
	}
	const char *det = r->details[r->worst] ? r->details[r->worst] : "";
	if (c->n_ranks > 1) {
		snprintf(buf, size, "%s%s%s", c->ranks[r->worst], *det ? ", " : "", det);
	} else {
		snprintf(buf, size, "%s", det);
	}
}

static const char *verdict_text(const struct tc_check_row *r) {
	switch (r->verdict) {
	case TC_VERDICT_PASS:
		return "ok";
	case TC_VERDICT_FAIL:
		return "FAIL";
	case TC_VERDICT_MISSING:
		return "FAIL (not measured)";
	default:
		return "";
	}
}

static void measured(const struct tc_check_row *r, char *buf, size_t size) {
	if (r->worst == SIZE_MAX || !r->known[r->worst]) {
		snprintf(buf, size, "n/a");
	} else {
		tc_check_fmt_value(buf, size, (enum tc_metric_unit)tc_metric_defs()[r->metric.id].unit,
			r->values[r->worst]);
	}
}

/*
 * A trace without steps is checked as one step, the whole trace (or its
 * device work); per-step limits then hold for that, so say so in words:
 * "none marked: the whole trace was used as one step (no step markers ...".
 * The caller closes the parenthesis. False for any other source.
 */
static bool whole_trace(FILE *f, const char *src) {
	static const char whole[] = "whole trace", dev[] = "whole trace: its device work";
	if (strncmp(src, whole, sizeof(whole) - 1) != 0) {
		return false;
	}
	bool device = strncmp(src, dev, sizeof(dev) - 1) == 0;
	const char *why = src + (device ? sizeof(dev) : sizeof(whole)) - 1;
	/* " (no step markers or repeated work)" or ", no event matching ..." */
	size_t n = strlen(why);
	bool paren = n >= 2 && why[1] == '(';
	if (n >= 2) {
		why += 2;
		n -= 2;
	}
	if (paren && n && why[n - 1] == ')') {
		n--;
	}
	tc_term_fprintf(f, "none marked: the whole trace%s was used as one step (%.*s",
		device ? "'s device work" : "", (int)n, why);
	return true;
}

void tc_write_check_text(FILE *f, const struct tc_check *c) {
	for (size_t k = 0; k < c->n_ranks; k++) {
		if (c->n_ranks > 1) {
			tc_term_fprintf(f, "%-10s ", c->ranks[k]);
		} else {
			fprintf(f, "steps      ");
		}
		char b[TC_FMT_LEN];
		const char *src = c->steps_source[k] ? c->steps_source[k] : "none";
		if (!whole_trace(f, src)) {
			tc_term_fprintf(f, "%s counted (%s", tc_fmt_count(b, c->n_steps[k]), src);
		}
		if (c->step_marker) {
			tc_term_fprintf(f, " '%s'", c->step_marker);
		}
		fprintf(f, ")\n");
	}
	/* Columns that say something: limit and verdict with limits, where
	 * with several ranks or a value found somewhere in particular. */
	bool limits = false, any_where = c->n_ranks > 1;
	for (size_t i = 0; i < c->n_rows; i++) {
		char buf[512];
		limits |= c->rows[i].has_limit;
		where(c, &c->rows[i], buf, sizeof(buf));
		any_where |= buf[0] != '\0';
	}
	const char *headers[5] = { "metric", ">measured" };
	size_t nc = 2;
	if (limits) {
		headers[nc++] = "limit";
		headers[nc++] = "verdict";
	}
	if (any_where) {
		headers[nc++] = "where";
	}
	struct tc_table t;
	tc_table_init(&t, nc, headers);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct tc_check_row *r = &c->rows[i];
		char buf[512];
		tc_table_cell(&t, r->metric.name);
		measured(r, buf, sizeof(buf));
		tc_table_cell(&t, buf);
		if (limits) {
			tc_table_cell(&t, r->has_limit ? tc_check_fmt_limit(buf, sizeof(buf), r) : "-");
			tc_table_cell(&t, r->has_limit ? verdict_text(r) : "-");
		}
		if (any_where) {
			where(c, r, buf, sizeof(buf));
			tc_table_cell(&t, buf[0] ? buf : "-");
		}
	}
	fputc('\n', f);
	tc_table_print(&t, f, "");
	tc_table_finish(&t);
	if (!limits) {
		fprintf(f, "\nno limits given: every metric of the catalogue measured "
			"(see 'tracectl check --list')\n");
	} else if (c->n_fail) {
		char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
		fprintf(f, "\n%s of %s violated\n", tc_fmt_count(b1, c->n_fail),
			tc_fmt_noun(b2, c->n_rows, "limit", "limits"));
	} else if (c->n_rows == 1) {
		fprintf(f, "\nthe 1 limit holds\n");
	} else {
		char b[TC_FMT_LEN];
		fprintf(f, "\nall %s limits hold\n", tc_fmt_count(b, c->n_rows));
	}
}

/* 15 significant digits: 0.7 rather than 0.70000000000000007 (the values
 * are measurements, not exact times). */
static void json_num(struct tc_jw *w, double v) {
	char buf[64];
	if (!isfinite(v)) {
		tc_jw_null(w);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	tc_jw_raw(w, buf);
}

static void json_value(struct tc_jw *w, const struct tc_check_row *r, size_t k) {
	if (k == SIZE_MAX || !r->known[k]) {
		tc_jw_null(w);
	} else if (tc_metric_defs()[r->metric.id].unit == TC_MU_SEVERITY) {
		tc_jw_str(w, tc_severity_name((enum tc_severity)(int)r->values[k]));
	} else {
		json_num(w, r->values[k]);
	}
}

void tc_write_check_json(FILE *f, const struct tc_check *c) {
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_CHECK_SCHEMA);
	tc_jw_kv_bool(&w, "ok", c->n_fail == 0);
	tc_jw_kv_uint(&w, "violations", c->n_fail);
	tc_jw_key(&w, "step_marker");
	if (c->step_marker) {
		tc_jw_str(&w, c->step_marker);
	} else {
		tc_jw_null(&w);
	}
	tc_jw_key(&w, "ranks");
	tc_jw_arr_begin(&w);
	for (size_t k = 0; k < c->n_ranks; k++) {
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", c->ranks[k]);
		tc_jw_key(&w, "steps_source");
		if (c->steps_source[k]) {
			tc_jw_str(&w, c->steps_source[k]);
		} else {
			tc_jw_null(&w);
		}
		tc_jw_kv_uint(&w, "steps_counted", c->n_steps[k]);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "metrics");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct tc_check_row *r = &c->rows[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "metric", r->metric.name);
		tc_jw_kv_str(&w, "unit", tc_metric_unit_name(
			(enum tc_metric_unit)tc_metric_defs()[r->metric.id].unit));
		tc_jw_key(&w, "value");
		json_value(&w, r, r->worst);
		tc_jw_key(&w, "limit");
		if (r->has_limit) {
			tc_jw_obj_begin(&w);
			tc_jw_kv_str(&w, "op", r->is_min ? ">=" : "<=");
			tc_jw_key(&w, "value");
			if (tc_metric_defs()[r->metric.id].unit == TC_MU_SEVERITY) {
				tc_jw_str(&w, tc_severity_name((enum tc_severity)(int)r->limit));
			} else {
				json_num(&w, r->limit);
			}
			tc_jw_kv_str(&w, "text", r->limit_text);
			tc_jw_obj_end(&w);
		} else {
			tc_jw_null(&w);
		}
		tc_jw_kv_str(&w, "verdict", tc_verdict_name((enum tc_verdict)r->verdict));
		tc_jw_key(&w, "rank");
		if (r->worst != SIZE_MAX) {
			tc_jw_str(&w, c->ranks[r->worst]);
		} else {
			tc_jw_null(&w);
		}
		tc_jw_key(&w, "per_rank");
		tc_jw_arr_begin(&w);
		for (size_t k = 0; k < c->n_ranks; k++) {
			tc_jw_obj_begin(&w);
			tc_jw_kv_str(&w, "rank", c->ranks[k]);
			tc_jw_key(&w, "value");
			json_value(&w, r, k);
			if (r->details[k] && r->details[k][0]) {
				tc_jw_kv_str(&w, "where", r->details[k]);
			}
			tc_jw_obj_end(&w);
		}
		tc_jw_arr_end(&w);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}

void tc_write_check_junit(FILE *f, const struct tc_check *c) {
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"tracectl check\" tests=\"%zu\" failures=\"%zu\">\n",
		c->n_rows, c->n_fail);
	fprintf(f, "  <testsuite name=\"tracectl check\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"0\" skipped=\"0\">\n", c->n_rows, c->n_fail);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct tc_check_row *r = &c->rows[i];
		char val[128], lim[160], wh[1024], msg[2048];
		measured(r, val, sizeof(val));
		tc_check_fmt_limit(lim, sizeof(lim), r);
		where(c, r, wh, sizeof(wh));
		fputs("    <testcase classname=\"tracectl.check\" name=\"", f);
		tc_markup_escape(f, r->metric.name);
		fputs("\">\n", f);
		snprintf(msg, sizeof(msg), "%s is %s%s%s%s%s%s", r->metric.name, val,
			*wh ? " (" : "", wh, *wh ? ")" : "", *lim ? ", limit " : "", lim);
		if (r->verdict == TC_VERDICT_FAIL || r->verdict == TC_VERDICT_MISSING) {
			fputs("      <failure type=\"budget\" message=\"", f);
			tc_markup_escape(f, msg);
			fputs("\">", f);
			tc_markup_escape(f, msg);
			fputs("</failure>\n", f);
		} else {
			fputs("      <system-out>", f);
			tc_markup_escape(f, msg);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
}
