/* `tracectl ops`: op statistics with roofline classes, grouped by --by. */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/launcher.h"
#include "cli/cli.h"
#include "output/analysis_write.h"
#include "output/launch_write.h"

enum {
	OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_BY,
};

static const char *const by_keys[] = { "name", "category", "kind", "device", "launcher", NULL };

static const struct tc_option options[] = {
	{ "by", 0, "KEY", "group by name (default), category, kind, device or launcher (the "
		"framework op, input shapes and dtypes that launched the device work)", NULL, OPT_BY,
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
	const struct tc_launch_table *lt; /* --by launcher, else NULL */
	size_t top;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (e->lt && json) {
		tc_write_launchers_json(f, e->m, e->lt, e->top);
	} else if (e->lt) {
		tc_write_launchers_text(f, e->m, e->lt, e->top);
	} else if (json) {
		tc_write_ops_json(f, e->m, e->t, e->top);
	} else {
		tc_write_ops_text(f, e->m, e->t, e->top);
	}
}

/* --by launcher: from the trace itself, with the shape args every other
 * command drops (a digest keeps no launch). */
static int by_launcher(struct tc_cli_common *c, struct tc_analysis_opts *ao, size_t top,
		int argc, char **argv) {
	if (tc_cli_inputs_kind(c, argv + optind, argc - optind)) {
		return tc_cli_usage_error("ops", "--by launcher needs traces, not digests");
	}
	c->ingest.known_args_only = false;
	int code = TC_EXIT_OK;
	struct tc_model *m = tc_cli_analysis_load(c, ao, "ops", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_launch_table t;
	tc_launcher_table(m, tc_analysis_find_device(m, ao->device), ao->peak_flops, ao->peak_bw,
		&t);
	struct emit_ctx ec = { m, NULL, &t, top };
	code = tc_cli_emit(c, argv + optind, argc - optind, m, emit, &ec);
	tc_launch_table_finish(&t);
	tc_cli_model_done(m);
	return code;
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
	if (strcmp(by, "launcher") == 0) {
		return by_launcher(&c, &ao, top, argc, argv);
	}
	ao.op_by = by;
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_AN_OP_TABLE, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		struct emit_ctx ec = { src.m, &src.an.op_table, NULL, top };
		code = tc_cli_emit(&c, argv + optind, argc - optind, src.m, emit, &ec);
	}
	tc_cli_source_finish(&src);
	return code;
}
