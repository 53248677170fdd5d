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

int tc_cmd_steps(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		TC_CLI_ANALYSIS_LONGOPTS,
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c);
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	int code = TC_EXIT_OK, opt;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
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
		return tc_cli_usage_error("steps", "unknown option");
	}
	if (optind >= argc) {
		return tc_cli_usage_error("steps", "no TRACE given");
	}
	struct tc_model *m = tc_cli_load(&c, argv + optind, argc - optind, &code);
	if (!m) {
		return code;
	}
	if (!tc_cli_analysis_check(&ao, "steps", m)) {
		tc_model_destroy(m);
		return TC_EXIT_USAGE;
	}
	struct tc_analysis a = { 0 };
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	a.span_ps = hi - lo;
	tc_analyze_util(m, &ao, &a);
	tc_analyze_steps(m, &ao, &a);
	tc_analyze_breakdown(m, &ao, &a);
	struct tc_outfile out;
	if (!tc_cli_open_output(&c, argv + optind, argc - optind, &out)) {
		tc_analysis_finish(&a);
		tc_model_destroy(m);
		return TC_EXIT_OUTPUT;
	}
	if (c.format == TC_FORMAT_JSON) {
		tc_write_steps_json(out.fp, m, &a);
	} else {
		tc_write_steps_text(out.fp, m, &a);
	}
	code = tc_cli_close_output(&out);
	if (code == TC_EXIT_OK) {
		code = tc_cli_strict(&c, m);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(m);
	return code;
}
