/* `tracectl info`: the raw structure of a trace, for debugging a file. */
#include "cli/cli.h"
#include "output/summary_write.h"

const struct tc_cli_spec tc_info_spec = {
	.name = "info",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"The raw structure of a trace as tracectl reads it: inputs, devices,\n"
		"tracks (lines, streams, threads) with event counts and nesting depth,\n"
		"counters and warnings. For debugging a file.\n",
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

static void emit(FILE *f, bool json, const void *ctx) {
	if (json) {
		tc_write_info_json(f, ctx);
	} else {
		tc_write_info_text(f, ctx);
	}
}

int tc_cmd_info(int argc, char **argv) {
	struct tc_cli_common c;
	int code;
	struct tc_model *m = tc_cli_plain_load(&tc_info_spec, &c, argc, argv, &code);
	if (!m) {
		return code;
	}
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, m);
	tc_cli_model_done(m);
	return code;
}
