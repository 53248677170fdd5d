#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

static const char usage[] =
	"Usage: tracectl ops [OPTIONS] TRACE...\n"
	"\n"
	"Op statistics: count, total, self, mean, min, max, p50/p99, share of device\n"
	"busy time, FLOP/s and B/s where known, and the roofline class (operational\n"
	"intensity against the device ridge point).\n"
	"\n"
	"Options:\n"
	"      --by KEY            group by name (default), category, kind or device\n"
	"      --top N             rows listed (default 20, 0 = all)\n"
	TC_CLI_ANALYSIS_HELP
	TC_CLI_COMMON_HELP
	"  -h, --help              show this help\n";

enum {
	OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_BY,
};

struct emit_ctx {
	const struct tc_model *m;
	const struct tc_op_table *t;
	size_t top;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (json) {
		tc_write_ops_json(f, e->m, e->t, e->top);
	} else {
		tc_write_ops_text(f, e->m, e->t, e->top);
	}
}

int tc_cmd_ops(int argc, char **argv) {
	static const struct option longopts[] = {
		TC_CLI_COMMON_LONGOPTS,
		TC_CLI_ANALYSIS_LONGOPTS,
		{ "top", required_argument, NULL, OPT_TOP },
		{ "by", required_argument, NULL, OPT_BY },
		{ 0 },
	};
	struct tc_cli_common c;
	tc_cli_common_init(&c, "ops");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	const char *by = "name";
	size_t top = 20;
	int code = TC_EXIT_OK, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, TC_CLI_OPTSTRING, longopts, NULL)) != -1) {
		if (tc_cli_common_opt(&c, opt, optarg, &code) ||
				tc_cli_analysis_opt(&ao, "ops", opt, optarg, &code)) {
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
			if (!tc_cli_parse_count("ops", "--top", optarg, &top, &code)) {
				return code;
			}
			break;
		case OPT_BY:
			if (strcmp(optarg, "name") && strcmp(optarg, "category") &&
					strcmp(optarg, "kind") && strcmp(optarg, "device")) {
				return tc_cli_usage_error("ops",
					"unknown --by '%s' (use name, category, kind or device)", optarg);
			}
			by = optarg;
			break;
		default:
			return tc_cli_getopt_error("ops", opt, argv);
		}
	}
	struct tc_model *m = tc_cli_analysis_load(&c, &ao, "ops", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis a;
	ao.op_by = by;
	tc_analyze(m, &ao, TC_AN_OP_TABLE, &a);
	struct emit_ctx ec = { m, &a.op_table, top };
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, &ec);
	tc_analysis_finish(&a);
	tc_cli_model_done(m);
	return code;
}
