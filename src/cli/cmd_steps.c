#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

static const char usage[] =
	"Usage: tracectl steps [OPTIONS] TRACE...\n"
	"\n"
	"One row per step: number, start, duration, device busy time and the\n"
	"step-time breakdown (disjoint categories that sum to the duration).\n"
	"Steps come from step markers; without them they are inferred from\n"
	"repeated top-level work, and the output says so.\n"
	"\n"
	"Options:\n"
	TC_CLI_ANALYSIS_HELP
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

struct emit_ctx {
	const struct tc_model *m;
	const struct tc_analysis *a;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (json) {
		tc_write_steps_json(f, e->m, e->a);
	} else {
		tc_write_steps_text(f, e->m, e->a);
	}
}

int tc_cmd_steps(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		TC_CLI_ANALYSIS_LONGOPTS,
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "steps");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code) ||
				tc_cli_analysis_opt(&ao, "steps", opt, optarg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		if (opt == 'h') {
			fputs(usage, stdout);
			return TC_EXIT_OK;
		}
		return tc_cli_getopt_error("steps", opt, argv);
	}
	struct tc_model *m = tc_cli_analysis_load(&c, &ao, "steps", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis a;
	tc_analyze(m, &ao, TC_AN_STEPS | TC_AN_BREAKDOWN, &a);
	struct emit_ctx ec = { m, &a };
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, &ec);
	tc_analysis_finish(&a);
	tc_cli_model_done(m);
	return code;
}
