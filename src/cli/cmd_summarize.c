/*
 * `tracectl summarize`: what ran where and for how long (inputs, devices,
 * top ops, steps), from a trace, a digest or several ranks.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/digest.h"
#include "analysis/job.h"
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

/* One rank's summary from its digest: the figures its trace gave. */
static int from_digests(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		int kind, char **paths, int n, struct tc_summary_opts *so) {
	struct tc_cli_digests in;
	int code = tc_cli_digest_rank_open(c, "summarize", ao, kind, paths, n, true, &in);
	if (code == TC_EXIT_OK) {
		struct tc_analysis an;
		tc_digest_result(in.skel, in.ranks[0], 0, &an);
		code = print_summary(c, paths, n, in.skel, &an, so);
		tc_analysis_finish(&an);
	}
	tc_cli_digests_finish(&in);
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
	if (optind >= argc) {
		return tc_cli_usage_error("summarize", "no TRACE given");
	}
	/* Text prints the steps' count and durations, not each step. */
	ao.summary_steps_counted = c.format != TC_FORMAT_JSON;
	struct tc_cli_job job;
	int is_job = tc_cli_job_open(&c, "summarize", &ao, argv + optind, argc - optind, &job,
		&code);
	if (is_job) {
		if (is_job > 0) {
			struct tc_analysis an;
			tc_job_compose(job.skel, job.ranks, job.n, job.aside, &ao, &an);
			code = print_summary(&c, argv + optind, argc - optind, job.skel, &an, &so);
			tc_analysis_finish(&an);
			tc_cli_job_finish(&job);
		}
		return code;
	}
	int kind = tc_cli_inputs_kind(&c, argv + optind, argc - optind);
	if (kind) {
		return from_digests(&c, &ao, kind, argv + optind, argc - optind, &so);
	}
	struct tc_model *m = tc_cli_analysis_load(&c, &ao, "summarize", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis an;
	tc_analyze(m, &ao, TC_AN_SUMMARY | TC_AN_FINDINGS, &an);
	code = print_summary(&c, argv + optind, argc - optind, m, &an, &so);
	tc_analysis_finish(&an);
	tc_cli_model_done(m);
	return code;
}
