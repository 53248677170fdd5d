/* `tracectl steps`: one row per step with its step-time breakdown. */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

const struct tc_cli_spec tc_steps_spec = {
	.name = "steps",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"One row per step: number, start, duration, device busy time and the\n"
		"step-time breakdown (disjoint categories that sum to the duration).\n"
		"Steps come from step markers; without them they are inferred from\n"
		"repeated top-level work, and the output says so.\n",
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

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
	struct tc_cli_common c;
	tc_cli_common_init(&c, "steps");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_steps_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		/* Every option it takes is an analysis, input or output one. */
		if (!tc_cli_common_opt(&c, opt, arg, &code)) {
			tc_cli_analysis_opt(&ao, "steps", opt, arg, &code);
		}
		if (code) {
			return code;
		}
	}
	if (opt < 0) {
		return p.code;
	}
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_AN_STEPS | TC_AN_BREAKDOWN, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		struct emit_ctx ec = { src.m, &src.an };
		code = tc_cli_emit(&c, argv + optind, argc - optind, src.m, emit, &ec);
	}
	tc_cli_source_finish(&src);
	return code;
}
