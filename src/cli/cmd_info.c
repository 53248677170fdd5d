#include "cli/cli.h"
#include "output/summary_write.h"

static const char usage[] =
	"Usage: tracectl info [OPTIONS] TRACE...\n"
	"\n"
	"The raw structure of a trace as tracectl reads it: inputs, devices,\n"
	"tracks (lines, streams, threads) with event counts and nesting depth,\n"
	"counters and warnings. For debugging a file.\n"
	"\n"
	"Options:\n"
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

int tc_cmd_info(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "info");
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		if (opt == 'h') {
			fputs(usage, stdout);
			return TC_EXIT_OK;
		}
		return tc_cli_getopt_error("info", opt, argv);
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
