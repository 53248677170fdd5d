#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/budget.h"
#include "cli/cli.h"
#include "model/rank.h"
#include "output/check_write.h"

static const char usage[] =
	"Usage: tracectl check [OPTIONS] TRACE...\n"
	"\n"
	"Hold a performance budget: measure metrics of the catalogue (step time,\n"
	"transfers per step, step-time shares, compilation, memory, ops, findings)\n"
	"and compare them with limits. Prints a table of metric, measured value,\n"
	"limit and verdict; exits 1 when a limit is violated, with one line per\n"
	"violation on stderr. Without limits every metric is measured and listed.\n"
	"With several input files each is a rank: every metric is checked on\n"
	"each rank and the worst rank is named.\n"
	"\n"
	"Options:\n"
	"      --max METRIC=VALUE  fail when METRIC exceeds VALUE (repeatable)\n"
	"      --min METRIC=VALUE  fail when METRIC is below VALUE (repeatable)\n"
	"      --budget FILE       limits from FILE: 'METRIC <= VALUE' or\n"
	"                          'METRIC >= VALUE' a line, '#' comments\n"
	"      --junit FILE        also write JUnit XML, one test case per metric\n"
	"      --list              list the metric catalogue with units and exit\n"
	"                          (values take units: 150ms, 2.5s, 16KiB, 16KB, 20%)\n"
	TC_CLI_ANALYSIS_HELP
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

enum {
	OPT_MAX = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_MIN,
	OPT_BUDGET,
	OPT_JUNIT,
	OPT_LIST,
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

/* Several files and none on stdin (which cannot be read twice): one rank
 * each. */
static bool per_source(const struct tc_model *m) {
	if (m->n_sources < 2) {
		return false;
	}
	for (size_t s = 0; s < m->n_sources; s++) {
		if (strcmp(tc_model_str(m, m->sources[s].path), "-") == 0) {
			return false;
		}
	}
	return true;
}

static void measure(struct tc_check *chk, size_t r, const char *name, const struct tc_model *m,
		const struct tc_analysis_opts *ao) {
	struct tc_analysis a;
	tc_analyze(m, ao, &a);
	tc_check_measure(chk, r, name, m, &a);
	tc_analysis_finish(&a);
}

/* Measure every rank: each source file read and analysed on its own (the
 * model has no rank identity to split by), else the whole model as one. */
static int measure_ranks(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		const struct tc_model *m, struct tc_check *chk) {
	char name[512];
	if (!per_source(m)) {
		if (m->n_sources == 1) {
			tc_model_source_rank(m, 0, name, sizeof(name));
		} else {
			snprintf(name, sizeof(name), "all");
		}
		measure(chk, 0, name, m, ao);
		return TC_EXIT_OK;
	}
	for (size_t s = 0; s < m->n_sources; s++) {
		const char *path = tc_model_str(m, m->sources[s].path);
		struct tc_error err;
		tc_error_init(&err);
		struct tc_model *rm = tc_ingest(&path, 1, &c->ingest, &err);
		if (!rm) {
			return tc_cli_error(&err);
		}
		tc_model_source_rank(m, (uint32_t)s, name, sizeof(name));
		measure(chk, s, name, rm, ao);
		tc_model_destroy(rm);
	}
	return TC_EXIT_OK;
}

static int write_junit(const char *path, char **inputs, int n, const struct tc_model *m,
		const struct tc_check *chk) {
	struct tc_cli_common jc;
	tc_cli_common_init(&jc, "check");
	jc.output = path;
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

static int run(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		const struct tc_budget *b, const char *junit, int argc, char **argv) {
	int code = TC_EXIT_OK;
	struct tc_model *m = tc_cli_analysis_load(c, ao, "check", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_check chk;
	tc_check_init(&chk, b, per_source(m) ? m->n_sources : 1);
	code = measure_ranks(c, ao, m, &chk);
	if (code == TC_EXIT_OK) {
		tc_check_evaluate(&chk);
		code = tc_cli_emit(c, argv + optind, argc - optind, m, emit, &chk);
	}
	if (code == TC_EXIT_OK && junit) {
		code = write_junit(junit, argv + optind, argc - optind, m, &chk);
	}
	if (code == TC_EXIT_OK && chk.n_fail) {
		report_violations(&chk);
		code = TC_EXIT_FINDINGS;
	}
	tc_check_finish(&chk);
	tc_cli_model_done(m);
	return code;
}

int tc_cmd_check(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		TC_CLI_ANALYSIS_LONGOPTS,
		{ "max", required_argument, NULL, OPT_MAX },
		{ "min", required_argument, NULL, OPT_MIN },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "check");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct tc_budget b;
	tc_budget_init(&b);
	const char *junit = NULL;
	bool list = false;
	struct tc_error err;
	tc_error_init(&err);
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while (code == TC_EXIT_OK &&
			(opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code) ||
				tc_cli_analysis_opt(&ao, "check", opt, optarg, &code)) {
			continue;
		}
		switch (opt) {
		case 'h':
			fputs(usage, stdout);
			tc_budget_finish(&b);
			return TC_EXIT_OK;
		case OPT_MAX:
		case OPT_MIN:
			if (!tc_budget_add_arg(&b, optarg, opt == OPT_MIN, &err)) {
				code = budget_error(&err);
			}
			break;
		case OPT_BUDGET:
			if (!tc_budget_read(&b, optarg, &err)) {
				code = budget_error(&err);
			}
			break;
		case OPT_JUNIT:
			junit = optarg;
			break;
		case OPT_LIST:
			list = true;
			break;
		default:
			code = tc_cli_getopt_error("check", opt, argv);
			break;
		}
	}
	if (code == TC_EXIT_OK && list) {
		tc_write_check_list(stdout);
	} else if (code == TC_EXIT_OK) {
		ao.threads = c.ingest.threads;
		code = run(&c, &ao, &b, junit, argc, argv);
	}
	tc_budget_finish(&b);
	return code;
}
