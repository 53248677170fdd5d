#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

static const char usage[] =
	"Usage: tracectl bottlenecks [OPTIONS] TRACE...\n"
	"\n"
	"Why the run is slow: the step-time breakdown, device utilisation, transfers,\n"
	"memory and compilation, and ranked findings (each with its numbers, the\n"
	"source of its threshold and a suggestion).\n"
	"\n"
	"Options:\n"
	"      --top N             findings listed (default all)\n"
	"      --min-severity S    list findings at or above S (low|medium|high|critical)\n"
	"      --fail-on S         exit 1 when a finding at or above S exists\n"
	"      --thresholds        list the rule thresholds (key, value, source) and exit\n"
	TC_CLI_ANALYSIS_HELP
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

enum {
	OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_MIN_SEVERITY,
	OPT_FAIL_ON,
	OPT_THRESHOLDS,
};

struct emit_ctx {
	const struct tc_model *m;
	const struct tc_analysis *a;
	const struct tc_bottlenecks_opts *bo;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (json) {
		tc_write_bottlenecks_json(f, e->m, e->a, e->bo);
	} else {
		tc_write_bottlenecks_text(f, e->m, e->a, e->bo);
	}
}

static int list_thresholds(const struct tc_analysis_opts *o) {
	const struct tc_threshold_def *t = tc_thresholds();
	for (int i = 0; i < TC_TH_COUNT; i++) {
		printf("%-24s %8g %-5s %s%s\n", t[i].key, o->th[i], t[i].unit, t[i].source,
			o->th[i] != t[i].value ? " (overridden)" : "");
	}
	return TC_EXIT_OK;
}

int tc_cmd_bottlenecks(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		TC_CLI_ANALYSIS_LONGOPTS,
		{ "top", required_argument, NULL, OPT_TOP },
		{ "min-severity", required_argument, NULL, OPT_MIN_SEVERITY },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "thresholds", no_argument, NULL, OPT_THRESHOLDS },
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "bottlenecks");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	ao.threads = c.ingest.threads;
	struct tc_bottlenecks_opts bo = { .top = 0, .min_severity = TC_SEV_LOW };
	enum tc_severity fail_on = TC_SEV_NONE;
	bool show_thresholds = false;
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code) ||
				tc_cli_analysis_opt(&ao, "bottlenecks", opt, optarg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case 'h':
			fputs(usage, stdout);
			return TC_EXIT_OK;
		case OPT_TOP:
			if (!tc_cli_parse_count("bottlenecks", "--top", optarg, &bo.top, &code)) {
				return code;
			}
			break;
		case OPT_THRESHOLDS:
			show_thresholds = true;
			break;
		case OPT_MIN_SEVERITY:
		case OPT_FAIL_ON: {
			enum tc_severity s;
			if (!tc_severity_parse(optarg, &s) || s == TC_SEV_NONE) {
				return tc_cli_usage_error("bottlenecks",
					"unknown severity '%s' (use low, medium, high or critical)", optarg);
			}
			if (opt == OPT_FAIL_ON) {
				fail_on = s;
			} else {
				bo.min_severity = s;
			}
			break;
		}
		default:
			return tc_cli_getopt_error("bottlenecks", opt, argv);
		}
	}
	if (show_thresholds) {
		return list_thresholds(&ao);
	}
	struct tc_model *m = tc_cli_analysis_load(&c, &ao, "bottlenecks", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis a;
	tc_analyze(m, &ao, TC_AN_FINDINGS, &a);
	struct emit_ctx ec = { m, &a, &bo };
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, &ec);
	if (code == TC_EXIT_OK && fail_on != TC_SEV_NONE) {
		for (size_t i = 0; i < a.n_findings; i++) {
			if (a.findings[i].severity >= fail_on) {
				code = TC_EXIT_FINDINGS;
				break;
			}
		}
	}
	tc_analysis_finish(&a);
	tc_cli_model_done(m);
	return code;
}
