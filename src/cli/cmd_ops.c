/* `tracectl ops`: op statistics with roofline classes, grouped by --by. */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

enum {
	OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_BY,
};

static const char *const by_keys[] = { "name", "category", "kind", "device", NULL };

static const struct tc_option options[] = {
	{ "by", 0, "KEY", "group by name (default), category, kind or device", NULL, OPT_BY,
		by_keys },
	{ "top", 0, "N", "rows listed (default 20, 0 = all)", NULL, OPT_TOP },
	{ 0 },
};

const struct tc_cli_spec tc_ops_spec = {
	.name = "ops",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"Op statistics: count, total, self, mean, min, max, p50/p99, share of device\n"
		"busy time, FLOP/s and B/s where known, and the roofline class (operational\n"
		"intensity against the device ridge point).\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
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
	struct tc_cli_common c;
	tc_cli_common_init(&c, "ops");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	const char *by = "name";
	size_t top = 20;
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_ops_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(&c, opt, arg, &code) ||
				tc_cli_analysis_opt(&ao, "ops", opt, arg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case OPT_TOP:
			if (!tc_cli_parse_count("ops", "--top", arg, &top, &code)) {
				return code;
			}
			break;
		case OPT_BY:
			by = arg; /* one of by_keys: the parser checked */
			break;
		}
	}
	if (opt < 0) {
		return p.code;
	}
	ao.op_by = by;
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_AN_OP_TABLE, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		struct emit_ctx ec = { src.m, &src.an.op_table, top };
		code = tc_cli_emit(&c, argv + optind, argc - optind, src.m, emit, &ec);
	}
	tc_cli_source_finish(&src);
	return code;
}
