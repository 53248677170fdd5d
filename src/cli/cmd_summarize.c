/*
 * `tracectl summarize`: what ran where and for how long (inputs, devices,
 * top ops, steps), from a trace, a digest or several ranks.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/summary_write.h"

enum { OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC };

static const struct tc_option options[] = {
	{ "top", 0, "N", "ops listed (default 10, 0 = all)", NULL, OPT_TOP },
	{ 0 },
};

const struct tc_cli_spec tc_summarize_spec = {
	.name = "summarize",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"What ran where and for how long: inputs, devices with busy/idle time,\n"
		"the top ops by total time, steps and warnings.\n"
		"TRACE is an xplane.pb, Perfetto or Chrome/Kineto/JAX JSON file (plain,\n"
		"gzip or zstd), a folder of them, or '-' for standard input.\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

static int print_summary(const struct tc_cli_common *c, char **paths, int n,
		struct tc_model *m, struct tc_analysis *an, struct tc_summary_opts *so) {
	so->analysis = an;
	so->memory = an->memview.records ? &an->memview : NULL;
	struct tc_outfile out;
	if (!tc_cli_open_output(c, paths, n, m, &out)) {
		return TC_EXIT_OUTPUT;
	}
	if (c->format == TC_FORMAT_JSON) {
		tc_write_summary_json(out.fp, m, &an->summary, so);
	} else {
		tc_write_summary_text(out.fp, m, &an->summary, so);
	}
	int code = tc_cli_close_output(&out);
	if (code == TC_EXIT_OK) {
		code = tc_cli_strict(c, m);
	}
	return code;
}

int tc_cmd_summarize(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "summarize");
	struct tc_summary_opts so = { .top = 10, .findings = 3 };
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_summarize_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(&c, opt, arg, &code) ||
				tc_cli_analysis_opt(&ao, "summarize", opt, arg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case OPT_TOP:
			if (!tc_cli_parse_count("summarize", "--top", arg, &so.top, &code)) {
				return code;
			}
			/* 0 = all, as for every --top */
			so.top = so.top ? so.top : SIZE_MAX;
			break;
		}
	}
	if (opt < 0) {
		return p.code;
	}
	/* Text prints the steps' count and durations, not each step. */
	ao.summary_steps_counted = c.format != TC_FORMAT_JSON;
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_AN_SUMMARY | TC_AN_FINDINGS, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		code = print_summary(&c, argv + optind, argc - optind, src.m, &src.an, &so);
	}
	tc_cli_source_finish(&src);
	return code;
}
