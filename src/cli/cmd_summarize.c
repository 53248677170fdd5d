#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/summary_write.h"

static const char usage[] =
	"Usage: tracectl summarize [OPTIONS] TRACE...\n"
	"\n"
	"What ran where and for how long: inputs, devices with busy/idle time,\n"
	"the top ops by total time, steps and warnings.\n"
	"TRACE is an xplane.pb, Perfetto or Chrome/Kineto/JAX JSON file (plain,\n"
	"gzip or zstd), a folder of them, or '-' for standard input.\n"
	"\n"
	"Options:\n"
	"      --top N             ops listed (default 10)\n"
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

enum { OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC };

int tc_cmd_summarize(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		{ "top", required_argument, NULL, OPT_TOP },
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "summarize");
	struct tc_summary_opts so = { .top = 10, .findings = 3 };
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case 'h':
			fputs(usage, stdout);
			return TC_EXIT_OK;
		case OPT_TOP: {
			uint64_t v;
			if (!tc_cli_parse_size(optarg, &v)) {
				return tc_cli_usage_error("summarize", "invalid --top '%s'", optarg);
			}
			so.top = (size_t)v;
			break;
		}
		default:
			return tc_cli_getopt_error("summarize", opt, argv);
		}
	}
	if (optind >= argc) {
		return tc_cli_usage_error("summarize", "no TRACE given");
	}
	struct tc_model *m = tc_cli_load(&c, argv + optind, argc - optind, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	ao.threads = c.ingest.threads;
	struct tc_analysis an;
	tc_analyze(m, &ao, TC_AN_SUMMARY | TC_AN_FINDINGS, &an);
	struct tc_summary *s = &an.summary;
	so.analysis = &an;
	struct tc_outfile out;
	if (!tc_cli_open_output(&c, argv + optind, argc - optind, m, &out)) {
		tc_analysis_finish(&an);
		tc_model_destroy(m);
		return TC_EXIT_OUTPUT;
	}
	if (c.format == TC_FORMAT_JSON) {
		tc_write_summary_json(out.fp, m, s, &so);
	} else {
		tc_write_summary_text(out.fp, m, s, &so);
	}
	code = tc_cli_close_output(&out);
	if (code == TC_EXIT_OK) {
		code = tc_cli_strict(&c, m);
	}
	tc_analysis_finish(&an);
	tc_cli_model_done(m);
	return code;
}
