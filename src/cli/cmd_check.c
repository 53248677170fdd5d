/*
 * `tracectl check`: budget metrics measured on each rank and judged
 * against limits, as a table, JSON or JUnit XML; --list prints the metrics.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/budget.h"
#include "cli/cli.h"
#include "digest/ranks.h"
#include "digest/read.h"
#include "ingest/ingest.h"
#include "model/rank.h"
#include "output/check_write.h"
#include "util/xalloc.h"

enum {
	OPT_MAX = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_MIN,
	OPT_BUDGET,
	OPT_JUNIT,
	OPT_LIST,
};

static const struct tc_option options[] = {
	{ "max", 0, "METRIC=VALUE", "fail when METRIC exceeds VALUE (repeatable)",
		"Fail when _METRIC_ is above _VALUE_ (repeatable).", OPT_MAX, NULL, tc_metric_words },
	{ "min", 0, "METRIC=VALUE", "fail when METRIC is below VALUE (repeatable)",
		"Fail when _METRIC_ is below _VALUE_ (repeatable).", OPT_MIN, NULL, tc_metric_words },
	{ "budget", 0, "FILE", "limits from FILE: 'METRIC <= VALUE' or 'METRIC >= VALUE' "
		"a line, '#' comments",
		"Read limits from _FILE_: one *METRIC <= VALUE* or *METRIC >= VALUE* a "
		"line, *#* comments and blank lines allowed; errors name _FILE_:_LINE_.",
		OPT_BUDGET },
	{ "junit", 0, "FILE", "also write JUnit XML, one test case per metric",
		"Also write JUnit XML to _FILE_, one test case per metric, atomically "
		"as *-o* does.", OPT_JUNIT },
	{ "list", 0, NULL, "list the metric catalogue with units and exit (values take "
		"units: 150ms, 2.5s, 16KiB, 16KB, 20%)",
		"List the metric catalogue with units and definitions and exit. Values "
		"take units: *150ms*, *2.5s*, *16KiB*, *16KB*, *20%*.", OPT_LIST },
	{ 0 },
};

const struct tc_cli_spec tc_check_spec = {
	.name = "check",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"Hold a performance budget: measure metrics of the catalogue (step time,\n"
		"transfers per step, step-time shares, compilation, memory, ops, findings)\n"
		"and compare them with limits. Prints a table of metric, measured value,\n"
		"limit and verdict; exits 1 when a limit is violated, with one line per\n"
		"violation on stderr. Without limits every metric is measured and listed.\n"
		"With several input files each is a rank: every metric is checked on\n"
		"each rank and the worst rank is named.\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

/* A bad metric or value names the catalogue, not --help. */
static int budget_error(const struct tc_error *err) {
	if (err->code != TC_EXIT_USAGE) {
		return tc_cli_error(err);
	}
	tc_term_fprintf(stderr, "tracectl: error: %s; see 'tracectl check --list'\n", err->msg);
	return TC_EXIT_USAGE;
}

static void emit(FILE *f, bool json, const void *ctx) {
	if (json) {
		tc_write_check_json(f, ctx);
	} else {
		tc_write_check_text(f, ctx);
	}
}

static void measure(struct tc_check *chk, size_t r, const char *name, const struct tc_model *m,
		const struct tc_analysis_opts *ao) {
	struct tc_analysis a;
	tc_analyze(m, ao, TC_AN_FINDINGS, &a);
	tc_check_measure(chk, r, name, m, &a);
	tc_analysis_finish(&a);
}

static int write_junit(const char *path, char **inputs, int n, const struct tc_model *m,
		const struct tc_check *chk) {
	struct tc_cli_common jc;
	tc_cli_common_init(&jc, "check");
	jc.output = path;
	jc.data = true;
	struct tc_outfile out;
	if (!tc_cli_open_output(&jc, inputs, n, m, &out)) {
		return TC_EXIT_OUTPUT;
	}
	tc_write_check_junit(out.fp, chk);
	return tc_cli_close_output(&out);
}

static void report_violations(const struct tc_check *chk) {
	for (size_t i = 0; i < chk->n_rows; i++) {
		const struct tc_check_row *r = &chk->rows[i];
		if (r->verdict != TC_VERDICT_FAIL && r->verdict != TC_VERDICT_MISSING) {
			continue;
		}
		char val[128], lim[160];
		tc_check_fmt_limit(lim, sizeof(lim), r);
		if (r->verdict == TC_VERDICT_MISSING) {
			snprintf(val, sizeof(val), "not measured");
		} else {
			tc_check_fmt_value(val, sizeof(val),
				(enum tc_metric_unit)tc_metric_defs()[r->metric.id].unit, r->values[r->worst]);
		}
		tc_term_fprintf(stderr, "tracectl: violation: %s is %s", r->metric.name, val);
		if (chk->n_ranks > 1) {
			tc_term_fprintf(stderr, " on %s", chk->ranks[r->worst]);
		}
		tc_term_fprintf(stderr, ", limit %s\n", lim);
	}
}

/* A limit on an op no rank has is a typo: it would pass by measuring 0. */
static int ops_known(const struct tc_check *chk) {
	struct tc_error err;
	tc_error_init(&err);
	return tc_check_ops_known(chk, &err) ? TC_EXIT_OK : tc_cli_error(&err);
}

/* --device names one device of each rank (a job has one per rank). */
static bool device_ok(const struct tc_model *m, const char *device) {
	struct tc_device_match dm;
	tc_analysis_match_device(m, device, &dm);
	bool ok = dm.device != TC_NONE;
	if (!ok) {
		tc_cli_device_error(m, device, &dm);
	}
	tc_analysis_device_match_finish(&dm);
	return ok;
}

/*
 * Each rank measured on its own, one model at a time: every trace file in
 * paths is a rank, and so is each rank a digest holds. inputs (n_inputs)
 * are the paths as given, for the output's checks; none collects the
 * ranks' warnings.
 */
static int run_each(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
		const struct tc_budget *b, const char *junit, char **inputs, int n_inputs,
		char **paths, int n, struct tc_model *none) {
	int code = TC_EXIT_OK;
	ao->threads = c->ingest.threads;
	struct tc_cli_digests *in = tc_xcalloc(n ? (size_t)n : 1, sizeof(*in));
	size_t n_ranks = 0;
	for (int i = 0; i < n && code == TC_EXIT_OK; i++) {
		if (tc_ingest_is_digest(paths[i], &c->ingest.lim)) {
			code = tc_cli_digests_load(c, "check", paths + i, 1, &in[i]);
			n_ranks += tc_rank_set_n(in[i].ranks);
		} else {
			n_ranks++;
		}
	}
	/* A rank in two digests is measured once, as a file named twice. */
	size_t twice = tc_cli_digests_dedupe(in, (size_t)n);
	n_ranks -= twice;
	for (int i = 0; i < n; i++) {
		twice += in[i].twice;
	}
	tc_cli_digests_warn_twice(none, twice);
	struct tc_check chk;
	tc_check_init(&chk, b, n_ranks);
	size_t r = 0;
	/* File after file: a model's freed arrays serve the next one's. */
	tc_malloc_reuse_begin();
	for (int i = 0; i < n && code == TC_EXIT_OK; i++) {
		for (size_t k = 0; k < tc_rank_set_n(in[i].ranks); k++, r++) {
			struct tc_model *skel = tc_rank_set_skeleton_of(in[i].ranks, k);
			tc_rank_set_check_measure(&chk, r, skel, in[i].ranks, k);
			tc_model_destroy(skel);
		}
		if (in[i].n) {
			continue;
		}
		struct tc_model *m = tc_cli_load(c, paths + i, 1, &code);
		if (m && ao->device && !device_ok(m, ao->device)) {
			tc_model_destroy(m);
			m = NULL;
			code = TC_EXIT_USAGE;
		}
		if (m) {
			char name[512];
			tc_model_source_rank(m, 0, name, sizeof(name));
			measure(&chk, r++, name, m, ao);
			/* For --strict: the rank's warnings, and its host for the
			 * job's (a file naming none stands for one, as in a merge). */
			tc_model_warn_from(none, m);
			uint32_t src = tc_model_add_hosts_of(none, m);
			if (m->n_hosts == 0) {
				tc_model_add_host(none, tc_ingest_host_from_path(none, paths[i]), src);
			}
			tc_model_destroy(m);
		}
	}
	tc_malloc_reuse_end();
	/* Ranks missing from the job or claimed twice, as one model warns. */
	tc_model_assign_ranks(none);
	if (code == TC_EXIT_OK) {
		code = ops_known(&chk);
	}
	if (code == TC_EXIT_OK) {
		tc_check_evaluate(&chk);
		code = tc_cli_emit(c, inputs, n_inputs, none, emit, &chk);
	}
	if (code == TC_EXIT_OK && junit) {
		code = write_junit(junit, inputs, n_inputs, none, &chk);
	}
	if (code == TC_EXIT_OK && chk.n_fail) {
		report_violations(&chk);
		code = TC_EXIT_FINDINGS;
	}
	tc_check_finish(&chk);
	tc_model_destroy(none);
	for (int i = 0; i < n; i++) {
		tc_cli_digests_finish(&in[i]);
	}
	free(in);
	return code;
}

/* Limits come from files too: no output may land on a budget file, a
 * trace or the other output, and nothing is written before that is known. */
static int outputs_safe(const struct tc_cli_common *c, const char *junit,
		const char *const *budgets, size_t n_budgets, char **inputs, int n_inputs) {
	size_t n = n_budgets + (size_t)n_inputs;
	const char **reads = tc_xmalloc((n ? n : 1) * sizeof(*reads));
	for (size_t i = 0; i < n_budgets; i++) {
		reads[i] = budgets[i];
	}
	for (int i = 0; i < n_inputs; i++) {
		reads[n_budgets + (size_t)i] = inputs[i];
	}
	struct tc_error err;
	tc_error_init(&err);
	bool ok = tc_outfile_precheck(c->output, reads, n, &junit, 1, &err) &&
		tc_outfile_precheck(junit, reads, n, NULL, 0, &err);
	free(reads);
	return ok ? TC_EXIT_OK : tc_cli_error(&err);
}

static int run(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
		const struct tc_budget *b, const char *junit, int argc, char **argv) {
	int code = TC_EXIT_OK;
	if (optind >= argc) {
		return tc_cli_usage_error("check", "no TRACE given");
	}
	char **inputs = argv + optind;
	int n_inputs = argc - optind;
	struct tc_model *none = tc_model_create();
	if (tc_cli_inputs_kind(c, inputs, n_inputs)) {
		if (!tc_cli_digest_opts("check", ao, &code)) {
			tc_model_destroy(none);
			return code;
		}
		return run_each(c, ao, b, junit, inputs, n_inputs, inputs, n_inputs, none);
	}
	/* Two or more trace files (none of them stdin) are ranks: each is
	 * read and measured alone, so memory holds one rank, never the job. */
	char **files;
	size_t n_files;
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_ingest_list((const char *const *)inputs, (size_t)n_inputs, &c->ingest, none,
			&files, &n_files, &err)) {
		tc_model_destroy(none);
		return tc_cli_error(&err);
	}
	/* A folder's files are inputs too, known only now: no output may be
	 * one of them, and nothing is written yet. */
	code = outputs_safe(c, junit, NULL, 0, files, (int)n_files);
	bool each = n_files >= 2 && code == TC_EXIT_OK;
	for (size_t i = 0; i < n_files; i++) {
		each &= strcmp(files[i], "-") != 0;
	}
	if (each) {
		code = run_each(c, ao, b, junit, inputs, n_inputs, files, (int)n_files, none);
	} else {
		tc_model_destroy(none);
	}
	for (size_t i = 0; i < n_files; i++) {
		free(files[i]);
	}
	free(files);
	if (each || code != TC_EXIT_OK) {
		return code;
	}
	/* One model: a trace, a folder of one rank, or inputs with stdin. */
	struct tc_cli_source src;
	code = tc_cli_source_open(c, ao, TC_AN_FINDINGS | TC_CLI_ONE_MODEL | TC_CLI_TRACES_ONLY,
		argc, argv, &src);
	if (code != TC_EXIT_OK) {
		tc_cli_source_finish(&src);
		return code;
	}
	const struct tc_model *m = src.m;
	struct tc_check chk;
	tc_check_init(&chk, b, 1);
	char name[512];
	if (m->n_sources == 1) {
		tc_model_source_rank(m, 0, name, sizeof(name));
	} else {
		snprintf(name, sizeof(name), "all");
	}
	tc_check_measure(&chk, 0, name, m, &src.an);
	tc_check_evaluate(&chk);
	code = ops_known(&chk);
	if (code == TC_EXIT_OK) {
		code = tc_cli_emit(c, inputs, n_inputs, m, emit, &chk);
	}
	if (code == TC_EXIT_OK && junit) {
		code = write_junit(junit, inputs, n_inputs, m, &chk);
	}
	if (code == TC_EXIT_OK && chk.n_fail) {
		report_violations(&chk);
		code = TC_EXIT_FINDINGS;
	}
	tc_check_finish(&chk);
	tc_cli_source_finish(&src);
	return code;
}

/* Standard input can be read once: as the budget or as a trace. */
static int stdin_once(const char *const *budgets, size_t n_budgets, char **inputs,
		int n_inputs) {
	size_t n = 0;
	for (size_t i = 0; i < n_budgets; i++) {
		n += strcmp(budgets[i], "-") == 0;
	}
	for (int i = 0; i < n_inputs; i++) {
		n += strcmp(inputs[i], "-") == 0;
	}
	if (n > 1 && n_budgets) {
		return tc_cli_usage_error("check", "standard input ('-') is read once: "
			"give the budget or the trace as a file");
	}
	return TC_EXIT_OK;
}

/* A --max, --min or --budget as given: read after the options, in order,
 * once it is known what standard input is for. */
struct limit_arg {
	int opt;
	const char *arg;
};

static int add_limits(struct tc_budget *b, const struct limit_arg *v, size_t n) {
	struct tc_error err;
	tc_error_init(&err);
	for (size_t i = 0; i < n; i++) {
		bool ok = v[i].opt == OPT_BUDGET ? tc_budget_read(b, v[i].arg, &err) :
			tc_budget_add_arg(b, v[i].arg, v[i].opt == OPT_MIN, &err);
		if (!ok) {
			return budget_error(&err);
		}
	}
	return TC_EXIT_OK;
}

int tc_cmd_check(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "check");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	const char *junit = NULL;
	struct limit_arg *limits = tc_xcalloc((size_t)argc + 1, sizeof(*limits));
	/* Budget files as given (borrowed from argv), for the input checks. */
	const char **budgets = tc_xcalloc((size_t)argc + 1, sizeof(*budgets));
	size_t n_limits = 0, n_budgets = 0;
	bool list = false;
	int code = TC_EXIT_OK, opt = 0;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_check_spec, argc, argv);
	while (code == TC_EXIT_OK && (opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(&c, opt, arg, &code) ||
				tc_cli_analysis_opt(&ao, "check", opt, arg, &code)) {
			continue;
		}
		switch (opt) {
		case OPT_BUDGET:
			budgets[n_budgets++] = arg;
			/* fall through */
		case OPT_MAX:
		case OPT_MIN:
			limits[n_limits++] = (struct limit_arg){ .opt = opt, .arg = arg };
			break;
		case OPT_JUNIT:
			junit = arg;
			break;
		case OPT_LIST:
			list = true;
			break;
		}
	}
	struct tc_budget b;
	tc_budget_init(&b);
	char **inputs = argv + optind;
	int n_inputs = argc - optind;
	if (code == TC_EXIT_OK && opt < 0) {
		code = p.code;
	} else if (code == TC_EXIT_OK && list) {
		tc_write_check_list(stdout);
	} else if (code == TC_EXIT_OK) {
		code = stdin_once(budgets, n_budgets, inputs, n_inputs);
		if (code == TC_EXIT_OK) {
			code = add_limits(&b, limits, n_limits);
		}
		if (code == TC_EXIT_OK) {
			code = outputs_safe(&c, junit, budgets, n_budgets, inputs, n_inputs);
		}
		if (code == TC_EXIT_OK) {
			code = run(&c, &ao, &b, junit, argc, argv);
		}
	}
	free(limits);
	free(budgets);
	tc_budget_finish(&b);
	return code;
}
