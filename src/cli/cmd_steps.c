/* `tracectl steps`: one row per step with its step-time breakdown. */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/digest.h"
#include "analysis/job.h"
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

/* One rank's steps from its digest. */
static int from_digests(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		int kind, int argc, char **argv) {
	struct tc_cli_digests in;
	int code = tc_cli_digest_rank_open(c, "steps", ao, kind, argv + optind, argc - optind,
		false, &in);
	if (code == TC_EXIT_OK) {
		struct tc_analysis a;
		tc_digest_steps(in.skel, in.ranks[0], &a);
		struct emit_ctx ec = { in.skel, &a };
		code = tc_cli_emit(c, argv + optind, argc - optind, in.skel, emit, &ec);
		tc_analysis_finish(&a);
	}
	tc_cli_digests_finish(&in);
	return code;
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
	if (optind < argc) {
		/* A job's ranks list no marked steps: nothing here prints them. */
		struct tc_analysis_opts jo = ao;
		jo.summary_steps_counted = true;
		struct tc_cli_job job;
		int is_job = tc_cli_job_open(&c, "steps", &jo, argv + optind, argc - optind, &job,
			&code);
		if (is_job > 0) {
			struct tc_analysis a;
			tc_job_compose(job.skel, job.ranks, job.n, job.aside, &ao, &a);
			struct emit_ctx ec = { job.skel, &a };
			code = tc_cli_emit(&c, argv + optind, argc - optind, job.skel, emit, &ec);
			tc_analysis_finish(&a);
			tc_cli_job_finish(&job);
		}
		if (is_job) {
			return code;
		}
	}
	int kind = tc_cli_inputs_kind(&c, argv + optind, argc - optind);
	if (kind) {
		return from_digests(&c, &ao, kind, argc, argv);
	}
	struct tc_model *m = tc_cli_analysis_load(&c, &ao, "steps", argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_analysis a;
	tc_analyze(m, &ao, TC_AN_STEPS | TC_AN_BREAKDOWN, &a);
	struct emit_ctx ec = { m, &a };
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, &ec);
	tc_analysis_finish(&a);
	tc_cli_model_done(m);
	return code;
}
