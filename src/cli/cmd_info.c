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

int tc_cmd_info(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "info");
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_info_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		/* Every option it takes is an input or output one. */
		tc_cli_common_opt(&c, opt, arg, &code);
		if (code) {
			return code;
		}
	}
	if (opt < 0) {
		return p.code;
	}
	if (optind >= argc) {
		return tc_cli_usage_error("info", "no TRACE given");
	}
	struct tc_model *m = tc_cli_load(&c, argv + optind, argc - optind, &code);
	if (!m) {
		return code;
	}
	struct tc_outfile out;
	if (!tc_cli_open_output(&c, argv + optind, argc - optind, m, &out)) {
		tc_model_destroy(m);
		return TC_EXIT_OUTPUT;
	}
	if (c.format == TC_FORMAT_JSON) {
		tc_write_info_json(out.fp, m);
	} else {
		tc_write_info_text(out.fp, m);
	}
	code = tc_cli_close_output(&out);
	if (code == TC_EXIT_OK) {
		code = tc_cli_strict(&c, m);
	}
	tc_cli_model_done(m);
	return code;
}
