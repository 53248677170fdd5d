/*
 * Check suite for budgets (analysis/budget.c): metric names, values and
 * their units, budget files, and measuring and judging limits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/analyze.h"
#include "analysis/budget.h"
#include "analysis/step_marker.h"
#include "model/rank.h"
#include "tc_test.h"

/*
 * `tracectl check`: the value and unit parser, the budget-file parser with
 * its file:line errors, metric names, --step-marker numbering, the rank
 * names of input files, and evaluation over ranks (the worst one decides).
 */

static double value(enum tc_metric_unit u, const char *s) {
	double v = -1;
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(tc_metric_value_parse(u, s, &v, &err), "'%s': %s", s, err.msg);
	return v;
}

static void bad_value(enum tc_metric_unit u, const char *s) {
	double v;
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(!tc_metric_value_parse(u, s, &v, &err), "'%s' accepted", s);
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, s));
}

START_TEST(value_units) {
	ck_assert(fabs(value(TC_MU_TIME, "150ms") - 0.150) < 1e-12);
	ck_assert(fabs(value(TC_MU_TIME, "2.5s") - 2.5) < 1e-12);
	ck_assert(fabs(value(TC_MU_TIME, "80us") - 80e-6) < 1e-15);
	ck_assert(fabs(value(TC_MU_TIME, "80\xc2\xb5s") - 80e-6) < 1e-15);
	ck_assert(fabs(value(TC_MU_TIME, "500ns") - 500e-9) < 1e-18);
	ck_assert(fabs(value(TC_MU_TIME, "2 min") - 120) < 1e-9);
	ck_assert(value(TC_MU_BYTES, "16KiB") == 16384);
	ck_assert(value(TC_MU_BYTES, "16KB") == 16000);
	ck_assert(value(TC_MU_BYTES, "16kB") == 16000);
	ck_assert(value(TC_MU_BYTES, "1.5MiB") == 1572864);
	ck_assert(value(TC_MU_BYTES, "2GB") == 2e9);
	ck_assert(value(TC_MU_BYTES, "4096B") == 4096);
	ck_assert(value(TC_MU_BYTES, "100 B") == 100);
	ck_assert(fabs(value(TC_MU_RATIO, "20%") - 0.2) < 1e-12);
	ck_assert(fabs(value(TC_MU_RATIO, "12.5 %") - 0.125) < 1e-12);
	ck_assert(value(TC_MU_COUNT, "5") == 5);
	ck_assert(value(TC_MU_COUNT, "2.5") == 2.5);
	ck_assert(value(TC_MU_COUNT, "1e3") == 1000);
	ck_assert(value(TC_MU_SEVERITY, "high") == TC_SEV_HIGH);
	ck_assert(value(TC_MU_SEVERITY, "none") == TC_SEV_NONE);
	ck_assert(value(TC_MU_SEVERITY, "critical") == TC_SEV_CRITICAL);
}
END_TEST

START_TEST(value_refused) {
	bad_value(TC_MU_TIME, "150MB");
	bad_value(TC_MU_TIME, "ms");
	bad_value(TC_MU_TIME, "");
	bad_value(TC_MU_TIME, "-5ms");
	bad_value(TC_MU_TIME, "+5ms");
	bad_value(TC_MU_TIME, "inf");
	bad_value(TC_MU_TIME, "nan");
	bad_value(TC_MU_TIME, "0x10");
	bad_value(TC_MU_TIME, "1e999");
	bad_value(TC_MU_TIME, "5 parsecs");
	bad_value(TC_MU_BYTES, "16KIB");
	bad_value(TC_MU_BYTES, "16K");
	bad_value(TC_MU_BYTES, "16ms");
	bad_value(TC_MU_RATIO, "20%%");
	bad_value(TC_MU_RATIO, "20 percent");
	bad_value(TC_MU_COUNT, "5ms");
	bad_value(TC_MU_COUNT, "five");
	bad_value(TC_MU_SEVERITY, "urgent");
	bad_value(TC_MU_SEVERITY, "3");
}
END_TEST

/* A bare number for a time, a size or a share has no unit to read it in
 * ("150" as seconds passed a 177 ms step): refused, naming the units. */
START_TEST(value_needs_unit) {
	static const struct {
		enum tc_metric_unit unit;
		const char *value, *hint;
	} cases[] = {
		{ TC_MU_TIME, "150", "150ms" },
		{ TC_MU_TIME, "0.25", "2.5s" },
		{ TC_MU_TIME, "0", "500ns" },
		{ TC_MU_TIME, "150 ", "150ms" },
		{ TC_MU_BYTES, "4096", "16KiB" },
		{ TC_MU_RATIO, "5", "5%" },
		{ TC_MU_RATIO, "0.2", "20%" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v;
		struct tc_error err;
		tc_error_init(&err);
		ck_assert_msg(!tc_metric_value_parse(cases[i].unit, cases[i].value, &v, &err),
			"'%s' accepted", cases[i].value);
		ck_assert_int_eq(err.code, TC_EXIT_USAGE);
		ck_assert_msg(strstr(err.msg, "has no unit") && strstr(err.msg, cases[i].hint),
			"'%s': %s", cases[i].value, err.msg);
	}
	/* Counts are bare numbers. */
	ck_assert(value(TC_MU_COUNT, "0") == 0);
	/* On the command line and in a budget file, the metric is named. */
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(!tc_budget_add_arg(&b, "step.mean=150", false, &err));
	ck_assert_str_eq(err.msg, "metric 'step.mean': value '150' has no unit (a time such as "
		"150ms, 2.5s, 80us or 500ns)");
	const char *text = "h2d.count_per_step <= 5\nshare.input <= 5\n";
	tc_error_init(&err);
	ck_assert(!tc_budget_parse(&b, text, strlen(text), "b.txt", &err));
	ck_assert_str_eq(err.msg, "b.txt:2: metric 'share.input': value '5' has no unit "
		"(a share such as 5% or 20%)");
	tc_budget_finish(&b);
}
END_TEST

static void metric_ok(const char *name, enum tc_metric_id id, const char *op) {
	struct tc_metric mt;
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(tc_metric_parse(name, strlen(name), &mt, &err), "%s: %s", name, err.msg);
	ck_assert_int_eq(mt.id, id);
	ck_assert_str_eq(mt.name, name);
	if (op) {
		ck_assert_str_eq(mt.op, op);
	} else {
		ck_assert_ptr_null(mt.op);
	}
	tc_metric_finish(&mt);
}

START_TEST(metric_names) {
	metric_ok("step.mean", TC_M_STEP_MEAN, NULL);
	metric_ok("step.p90", TC_M_STEP_P90, NULL);
	metric_ok("h2d.count_per_step", TC_M_H2D_COUNT, NULL);
	metric_ok("d2d.bytes_per_step", TC_M_D2D_BYTES, NULL);
	metric_ok("share.idle", TC_M_SHARE, NULL);
	metric_ok("share.collective", TC_M_SHARE, NULL);
	metric_ok("memory.cv", TC_M_MEMORY_CV, NULL);
	metric_ok("findings.max_severity", TC_M_MAX_SEVERITY, NULL);
	/* An op name may hold dots and colons: the suffix decides. */
	metric_ok("op:fusion.1.time_per_step", TC_M_OP_TIME, "fusion.1");
	metric_ok("op:aten::mm.calls_per_step", TC_M_OP_CALLS, "aten::mm");
	metric_ok("memory.peak_by_op:aten::cat", TC_M_MEMORY_BY_OP, "aten::cat");
	const char *bad[] = { "step.avg", "share.CATEGORY", "share.", "share.idlex", "op:",
		"op:.calls_per_step", "op:x.calls", "", "STEP.MEAN", "step.mean " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tc_metric mt;
		struct tc_error err;
		tc_error_init(&err);
		ck_assert_msg(!tc_metric_parse(bad[i], strlen(bad[i]), &mt, &err), "'%s'", bad[i]);
		ck_assert_int_eq(err.code, TC_EXIT_USAGE);
		ck_assert_ptr_nonnull(strstr(err.msg, "unknown metric"));
	}
	/* Did you mean: the closest catalogue name, the share families too. */
	static const char *const typos[][2] = {
		{ "step.maen", "step.mean" }, { "step.p99", "step.p90" },
		{ "shares.idle", "share.idle" }, { "h2d.count_per_stp", "h2d.count_per_step" },
		{ "memory.peek", "memory.peak" },
	};
	for (size_t i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
		struct tc_metric mt;
		struct tc_error err;
		tc_error_init(&err);
		ck_assert(!tc_metric_parse(typos[i][0], strlen(typos[i][0]), &mt, &err));
		char want[128];
		snprintf(want, sizeof(want), "unknown metric '%s' (did you mean '%s'?)", typos[i][0],
			typos[i][1]);
		ck_assert_str_eq(err.msg, want);
	}
	/* Every catalogue name but the families parses as itself. */
	const struct tc_metric_def *d = tc_metric_defs();
	for (int i = 0; i < TC_M_COUNT; i++) {
		ck_assert_ptr_nonnull(d[i].name);
		ck_assert_ptr_nonnull(d[i].definition);
		if (i != TC_M_SHARE && !tc_metric_named(i)) {
			metric_ok(d[i].name, (enum tc_metric_id)i, NULL);
		}
	}
}
END_TEST

static const char budget_text[] =
	"# the budget\n"
	"\n"
	"step.mean <= 150ms\n"
	"  h2d.count_per_step<=5   # copies\n"
	"\tdevice.busy >= 50%\r\n"
	"op:fusion.1.calls_per_step <= 2\n"
	"findings.max_severity <= medium";

START_TEST(budget_file) {
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(tc_budget_parse(&b, budget_text, strlen(budget_text), "b.txt", &err),
		"%s", err.msg);
	ck_assert_uint_eq(b.n, 5);
	ck_assert_str_eq(b.v[0].metric.name, "step.mean");
	ck_assert(!b.v[0].is_min && fabs(b.v[0].value - 0.15) < 1e-12);
	ck_assert_str_eq(b.v[0].text, "150ms");
	ck_assert_str_eq(b.v[1].metric.name, "h2d.count_per_step");
	ck_assert(b.v[1].value == 5);
	ck_assert(b.v[2].is_min && fabs(b.v[2].value - 0.5) < 1e-12);
	ck_assert_str_eq(b.v[2].text, "50%");
	ck_assert_str_eq(b.v[3].metric.op, "fusion.1");
	ck_assert(b.v[4].value == TC_SEV_MEDIUM);
	/* --max/--min add to the same list. */
	ck_assert(tc_budget_add_arg(&b, "share.idle=20%", false, &err));
	ck_assert(tc_budget_add_arg(&b, "step.count=3", true, &err));
	ck_assert_uint_eq(b.n, 7);
	ck_assert(b.v[6].is_min);
	tc_budget_finish(&b);
	tc_budget_finish(&b); /* finished twice: quiet */
}
END_TEST

static void budget_error(const char *text, const char *want) {
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(!tc_budget_parse(&b, text, strlen(text), "ci/budget.txt", &err),
		"accepted: %s", text);
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "'%s' does not start '%s'",
		err.msg, want);
	tc_budget_finish(&b);
}

START_TEST(budget_errors) {
	budget_error("step.mean <= 150ms\n\n# x\nstep.avg <= 1s\n",
		"ci/budget.txt:4: unknown metric 'step.avg'");
	budget_error("step.mean = 150ms\n", "ci/budget.txt:1: expected 'METRIC <= VALUE'");
	budget_error("step.mean < 150ms\n", "ci/budget.txt:1: expected");
	budget_error("step.mean\n", "ci/budget.txt:1: expected");
	budget_error("<= 5\n", "ci/budget.txt:1: expected");
	budget_error("# ok\nstep.mean <=\n", "ci/budget.txt:2: no value");
	budget_error("step.mean <= # comment only\n", "ci/budget.txt:1: no value");
	budget_error("\n\nstep.mean <= 150MB\n",
		"ci/budget.txt:3: metric 'step.mean': invalid value '150MB' (a time");
	budget_error("share.idle <= 20 parsecs\n",
		"ci/budget.txt:1: metric 'share.idle': invalid value '20 parsecs'");
	budget_error("op:\"a#b.time_per_step <= 1ms\n", "ci/budget.txt:1: a quote left open");
	/* Nothing but comments, blanks or a byte-order mark: no budget at all. */
	budget_error("", "ci/budget.txt: no limits");
	budget_error("# nothing yet\n\n   \n# more\n", "ci/budget.txt: no limits");
	budget_error("\xef\xbb\xbf\n", "ci/budget.txt: no limits");
	budget_error("step.mean <= 1s\nx\n", "ci/budget.txt:2: expected");
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(!tc_budget_add_arg(&b, "step.mean", false, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "METRIC=VALUE"));
	tc_error_init(&err);
	ck_assert(!tc_budget_add_arg(&b, "step.mean=", false, &err));
	tc_error_init(&err);
	ck_assert(!tc_budget_read(&b, "/nonexistent/budget.txt", &err));
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	tc_budget_finish(&b);
}
END_TEST

/* Quoted names hold '#', spaces and '<'; a byte-order mark is skipped; on
 * the command line the last '=' splits, so an op name may hold one. */
START_TEST(budget_quotes_bom) {
	static const char text[] =
		"\xef\xbb\xbfstep.mean <= 1s\n"
		"op:\"ProfilerStep#3\".time_per_step <= 1ms   # a comment\n"
		"\"op:a b<c\".calls_per_step >= 2\n"
		"op:\"q\\\"#\\\\\".calls_per_step<=3\n";
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(tc_budget_parse(&b, text, strlen(text), "b.txt", &err), "%s", err.msg);
	ck_assert_uint_eq(b.n, 4);
	ck_assert_str_eq(b.v[0].metric.name, "step.mean");
	ck_assert_str_eq(b.v[1].metric.op, "ProfilerStep#3");
	ck_assert_str_eq(b.v[1].metric.name, "op:ProfilerStep#3.time_per_step");
	ck_assert_str_eq(b.v[1].text, "1ms");
	ck_assert_str_eq(b.v[2].metric.op, "a b<c");
	ck_assert(b.v[2].is_min && b.v[2].value == 2);
	ck_assert_str_eq(b.v[3].metric.op, "q\"#\\");
	ck_assert(tc_budget_add_arg(&b, "op:alpha=1.calls_per_step=4", false, &err));
	ck_assert_str_eq(b.v[4].metric.op, "alpha=1");
	tc_budget_finish(&b);
}
END_TEST

/* A limit on an op no rank has would measure 0 and pass: refused, naming
 * the closest op a rank has; an op any one rank has is fine. */
START_TEST(op_must_exist) {
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_budget_add_arg(&b, "op:fusion.2.calls_per_step=3", false, &err));
	ck_assert(tc_budget_add_arg(&b, "op:fusoin.1.time_per_step=1ms", false, &err));
	struct tc_check c;
	tc_check_init(&c, &b, 2);
	static const char *const r0[] = { "fusion.1", "copy.3" };
	static const char *const r1[] = { "fusion.2" };
	tc_check_note_ops(&c, r0, 2);
	tc_check_note_ops(&c, r1, 1);
	ck_assert(c.rows[0].op_found);
	ck_assert(!tc_check_ops_known(&c, &err));
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	ck_assert_str_eq(err.msg, "metric 'op:fusoin.1.time_per_step': no op named 'fusoin.1' "
		"in any rank (did you mean 'fusion.1'?)");
	tc_check_finish(&c);
	tc_check_init(&c, &b, 1);
	static const char *const far[] = { "matmul" };
	tc_check_note_ops(&c, far, 1);
	tc_error_init(&err);
	ck_assert(!tc_check_ops_known(&c, &err));
	ck_assert_str_eq(err.msg, "metric 'op:fusion.2.calls_per_step': no op named 'fusion.2' "
		"in the trace");
	tc_check_finish(&c);
	tc_budget_finish(&b);
}
END_TEST

START_TEST(budget_read_file) {
	const char *path = tc_test_tmpfile(budget_text, strlen(budget_text));
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_msg(tc_budget_read(&b, path, &err), "%s", err.msg);
	ck_assert_uint_eq(b.n, 5);
	tc_budget_finish(&b);
	unlink(path);
}
END_TEST

START_TEST(step_marker_numbers) {
	struct tc_model *m = tc_test_load(tc_test_src("fixtures/json/jax_iters_4.json"));
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_step_marker_valid("^train_iter$", &err));
	ck_assert(!tc_step_marker_valid("(train", &err));
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	struct tc_marked_step *v;
	uint32_t dev;
	bool on_device;
	size_t n = tc_step_marker_find(m, "^train_iter$", &v, &dev, &on_device);
	ck_assert_uint_eq(n, 6);
	ck_assert(!on_device);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].num, (int64_t)i + 1); /* the iteration arg */
		ck_assert(i == 0 || v[i].start_ps > v[i - 1].start_ps);
	}
	free(v);
	/* Kernels are not markers even when the pattern names them. */
	n = tc_step_marker_find(m, "fusion", &v, &dev, &on_device);
	ck_assert_uint_eq(n, 0);
	free(v);
	/* The analysis numbers its steps the same way and says so. */
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	ck_assert(tc_analysis_opts_step_marker(&o, "train_iter", &err));
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.n_steps, 6);
	ck_assert_int_eq(a.steps[0].num, 1);
	ck_assert_int_eq(a.steps[5].num, 6);
	ck_assert_str_eq(a.step_marker, "train_iter");
	ck_assert_ptr_nonnull(strstr(a.steps_source, "--step-marker"));
	tc_analysis_finish(&a);
	/* A marker that matches nothing: the whole trace, not a guess. */
	o.step_marker = "no such marker";
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.n_steps, 1);
	ck_assert(a.steps_inferred);
	ck_assert_ptr_nonnull(strstr(a.steps_source, "no event matching --step-marker"));
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

/* Names with a trailing number and no arg: numbered by the name. */
START_TEST(step_marker_trailing_number) {
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"epoch_7\"},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,\"name\":\"epoch_8\"},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":10,\"name\":\"epoch\"}]}";
	const char *path = tc_test_tmpfile(json, strlen(json));
	struct tc_model *m = tc_test_load(path);
	unlink(path);
	struct tc_marked_step *v;
	uint32_t dev;
	bool on_device;
	size_t n = tc_step_marker_find(m, "^epoch", &v, &dev, &on_device);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(v[0].num, 7);
	ck_assert_int_eq(v[1].num, 8);
	ck_assert_int_eq(v[2].num, INT64_MIN); /* neither: numbered by order */
	free(v);
	tc_model_destroy(m);
}
END_TEST

START_TEST(rank_names) {
	struct tc_model *m = tc_model_create();
	const char *paths[] = { "/x/trace_filter__sampled_rank-1.json.gz", "/x/RANK_12.json",
		"/x/rank007.pt.trace.json", "/x/worker.json", "-", "/x/ranking.json" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		tc_model_add_source(m, paths[i], "json", "none", 0, 0);
	}
	/* A host the reader named from distributedInfo.rank wins over the file. */
	tc_model_add_host(m, tc_model_intern(m, "rank 5"), 3);
	char buf[128];
	const char *want[] = { "rank 1", "rank 12", "rank 7", "rank 5", "-", "ranking.json" };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		tc_model_source_rank(m, (uint32_t)i, buf, sizeof(buf));
		ck_assert_str_eq(buf, want[i]);
	}
	tc_model_destroy(m);
}
END_TEST

/* Two ranks: the worst value decides, against a maximum the highest and
 * against a minimum the lowest; a rank that cannot measure fails. */
START_TEST(check_worst_rank) {
	struct tc_model *m = tc_test_load(tc_test_src("fixtures/json/jax_iters_24.json"));
	struct tc_model *m4 = tc_test_load(tc_test_src("fixtures/json/jax_iters_4.json"));
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.step_marker = "^train_iter$";
	struct tc_analysis a, a4;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	tc_analyze(m4, &o, TC_AN_FINDINGS, &a4);
	struct tc_budget b;
	tc_budget_init(&b);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_budget_add_arg(&b, "h2d.count_per_step=5", false, &err));
	ck_assert(tc_budget_add_arg(&b, "h2d.count_per_step=5", true, &err));
	ck_assert(tc_budget_add_arg(&b, "memory.peak=1GiB", false, &err));
	ck_assert(tc_budget_add_arg(&b, "step.mean=1s", false, &err));
	struct tc_check c;
	tc_check_init(&c, &b, 2);
	tc_check_measure(&c, 0, "rank 0", m4, &a4);
	tc_check_measure(&c, 1, "rank 1", m, &a);
	tc_check_evaluate(&c);
	ck_assert_uint_eq(c.n_rows, 4);
	ck_assert_int_eq(c.rows[0].verdict, TC_VERDICT_FAIL);
	ck_assert_uint_eq(c.rows[0].worst, 1);
	ck_assert(c.rows[0].values[1] == 24 && c.rows[0].values[0] == 4);
	ck_assert_int_eq(c.rows[1].verdict, TC_VERDICT_FAIL); /* >= 5: rank 0 has 4 */
	ck_assert_uint_eq(c.rows[1].worst, 0);
	ck_assert_int_eq(c.rows[2].verdict, TC_VERDICT_MISSING); /* no memory counters */
	ck_assert_int_eq(c.rows[3].verdict, TC_VERDICT_PASS);
	ck_assert_uint_eq(c.n_fail, 3);
	ck_assert_str_eq(c.ranks[1], "rank 1");
	tc_check_finish(&c);
	tc_check_finish(&c);
	/* No limits: the catalogue, one row per category share. */
	tc_check_init(&c, NULL, 1);
	tc_check_measure(&c, 0, "r", m, &a);
	tc_check_evaluate(&c);
	ck_assert_uint_eq(c.n_fail, 0);
	size_t shares = 0;
	for (size_t i = 0; i < c.n_rows; i++) {
		shares += c.rows[i].metric.id == TC_M_SHARE;
		ck_assert_int_eq(c.rows[i].verdict, TC_VERDICT_MEASURED);
	}
	ck_assert_uint_eq(shares, TC_BD_COUNT);
	tc_check_finish(&c);
	tc_budget_finish(&b);
	tc_analysis_finish(&a);
	tc_analysis_finish(&a4);
	tc_model_destroy(m);
	tc_model_destroy(m4);
}
END_TEST

#define MS 1000000000LL /* ps per millisecond */

/* Four 10 ms steps marked "it" on the host, a 5 ms kernel in each, and a
 * memory counter peaking at 100, 300, 100, 300 MB: memory.cv = 100 / 200. */
START_TEST(memory_cv_and_peak) {
	struct tc_model *m = tc_model_create();
	uint32_t gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t cpu = tc_model_add_device(m, tc_model_intern(m, "python3"), TC_DEV_CPU);
	uint32_t st = tc_model_add_track(m, gpu, tc_model_intern(m, "stream 7"),
		TC_TRACK_STREAM, 7);
	uint32_t th = tc_model_add_track(m, cpu, tc_model_intern(m, "thread 1"),
		TC_TRACK_HOST_THREAD, 1);
	uint32_t k = tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL);
	uint32_t it = tc_model_op(m, tc_model_intern(m, "it"), 0, TC_OP_ANNOTATION);
	uint32_t c = tc_model_counter(m, gpu, tc_model_intern(m, "memory.allocated"),
		tc_model_intern(m, "bytes"), 0);
	for (int i = 0; i < 4; i++) {
		int64_t s0 = i * 10 * MS;
		tc_model_add_event(m, th, it, s0, 10 * MS, 0);
		tc_model_add_event(m, st, k, s0 + 2 * MS, 5 * MS, 0);
		tc_model_add_sample(m, c, s0 + 1 * MS, 50e6);
		tc_model_add_sample(m, c, s0 + 4 * MS, i % 2 ? 300e6 : 100e6);
		tc_model_add_sample(m, c, s0 + 8 * MS, 50e6);
	}
	tc_model_finalize(m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.step_marker = "^it$";
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.n_steps, 4);
	const char *names[] = { "memory.cv", "memory.peak", "step.mean", "device.busy",
		"op:gemm.calls_per_step", "op:gemm.time_per_step" };
	double want[] = { 0.5, 300e6, 0.010, 0.5, 1, 0.005 };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct tc_metric mt;
		struct tc_error err;
		tc_error_init(&err);
		ck_assert(tc_metric_parse(names[i], strlen(names[i]), &mt, &err));
		double v = -1;
		char where[128];
		ck_assert_msg(tc_metric_measure(m, &a, &mt, &v, where, sizeof(where)), "%s", names[i]);
		ck_assert_msg(fabs(v - want[i]) < 1e-9 * (want[i] > 1 ? want[i] : 1),
			"%s = %g, want %g", names[i], v, want[i]);
		if (mt.id == TC_M_MEMORY_PEAK) {
			ck_assert_str_eq(where, "GPU 0 memory.allocated");
		}
		tc_metric_finish(&mt);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, value_units);
	tcase_add_test(tc, value_refused);
	tcase_add_test(tc, value_needs_unit);
	tcase_add_test(tc, budget_quotes_bom);
	tcase_add_test(tc, op_must_exist);
	tcase_add_test(tc, metric_names);
	tcase_add_test(tc, budget_file);
	tcase_add_test(tc, budget_errors);
	tcase_add_test(tc, budget_read_file);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("evaluate");
	tcase_add_test(te, step_marker_numbers);
	tcase_add_test(te, step_marker_trailing_number);
	tcase_add_test(te, rank_names);
	tcase_add_test(te, check_worst_rank);
	tcase_add_test(te, memory_cv_and_peak);
	suite_add_tcase(s, te);
	return tc_test_run(s);
}
