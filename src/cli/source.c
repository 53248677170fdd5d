/*
 * Where an analysis command's results come from: a trace analysed here, one
 * rank's digest, or a job of several ranks (traces read one at a time, or
 * digests). summarize, bottlenecks, steps, ops, memory, report, each
 * side of diff and check's one model open their inputs through
 * tc_cli_source_open and write what it returns, whatever the inputs were.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/job.h"
#include "analysis/memview.h"
#include "cli/cli.h"
#include "digest/ranks.h"

struct tc_model *tc_cli_analysis_load(const struct tc_cli_common *c,
		struct tc_analysis_opts *o, const char *cmd, int argc, char **argv, int *code) {
	o->threads = c->ingest.threads;
	if (optind >= argc) {
		*code = tc_cli_usage_error(cmd, "no TRACE given");
		return NULL;
	}
	struct tc_model *m = tc_cli_load(c, argv + optind, argc - optind, code);
	if (m && o->device) {
		struct tc_device_match dm;
		tc_analysis_match_device(m, o->device, &dm);
		bool ok = dm.device != TC_NONE;
		if (!ok) {
			tc_cli_device_error(m, o->device, &dm);
		}
		tc_analysis_device_match_finish(&dm);
		if (!ok) {
			tc_model_destroy(m);
			*code = TC_EXIT_USAGE;
			return NULL;
		}
	}
	return m;
}

/* Ranks of a job: composed into one analysis, or their op statistics
 * merged. 1 when s holds them, 0 when the inputs are no job, -1 on an
 * error (printed, *code set). */
static int open_job(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		unsigned want, char **paths, int n, struct tc_cli_source *s, int *code) {
	/* A job's op statistics are the digests' own: the default analysis. */
	if (n == 0 || (want & TC_CLI_ONE_MODEL) ||
			((want & TC_AN_OP_TABLE) && !tc_cli_analysis_default(ao))) {
		return 0;
	}
	/* Only a summary that lists steps needs the ranks' marked steps. */
	struct tc_analysis_opts jo = *ao;
	if (!(want & TC_AN_SUMMARY)) {
		jo.summary_steps_counted = true;
	}
	int is_job = tc_cli_job_open(c, c->cmd, &jo, paths, n, &s->job, code);
	if (is_job <= 0) {
		return is_job;
	}
	s->from = TC_CLI_FROM_JOB;
	s->m = s->job.skel;
	if (want & TC_AN_OP_TABLE) {
		s->job.jr->op_table(s->job.jr->ctx, s->job.skel, ao->op_by, &s->an.op_table);
	} else {
		tc_job_compose(s->job.skel, s->job.jr, ao, &s->an);
	}
	return 1;
}

/* One rank's results from its digest (the op table: every rank's). */
static int open_digests(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		unsigned want, int kind, char **paths, int n, struct tc_cli_source *s) {
	s->from = TC_CLI_FROM_DIGEST;
	struct tc_cli_digests *in = &s->digests;
	int code;
	if (want & (TC_AN_OP_TABLE | TC_CLI_ALL_RANKS)) {
		code = tc_cli_digests_open(c, c->cmd, ao, kind, paths, n, in);
	} else {
		/* Steps come from any rank; a summary, findings or memory
		 * need the rank's result. */
		bool result = (want & (TC_AN_SUMMARY | TC_AN_FINDINGS | TC_CLI_MEMVIEW)) != 0;
		code = tc_cli_digest_rank_open(c, c->cmd, ao, kind, paths, n, result, in);
	}
	if (code == TC_EXIT_OK && (want & TC_CLI_MEMVIEW) &&
			!tc_rank_set_has_memview(in->ranks, 0)) {
		/* Written before Rank.mem_view, it holds the memory line
		 * only, which is not the view. */
		struct tc_error err;
		tc_error_init(&err);
		tc_error_set(&err, TC_EXIT_INPUT, "rank '%s' was digested before digests kept "
			"memory by op; run memory on its trace, or digest it again",
			tc_rank_set_name(in->ranks, 0));
		tc_error_path(&err, n == 1 ? paths[0] : "");
		code = tc_cli_error(&err);
	}
	if (code != TC_EXIT_OK) {
		return code;
	}
	s->m = in->skel;
	if (want & TC_CLI_ALL_RANKS) {
		/* The command reads the ranks themselves. */
	} else if (want & TC_AN_OP_TABLE) {
		tc_rank_set_op_table(in->skel, in->ranks, ao->op_by, &s->an.op_table);
	} else if (want & (TC_AN_SUMMARY | TC_AN_FINDINGS | TC_CLI_MEMVIEW)) {
		tc_rank_set_result(in->skel, in->ranks, 0, &s->an);
	} else {
		tc_rank_set_steps(in->skel, in->ranks, 0, &s->an);
	}
	return TC_EXIT_OK;
}

int tc_cli_source_open(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
		unsigned want, int argc, char **argv, struct tc_cli_source *s) {
	memset(s, 0, sizeof(*s));
	s->want = want;
	char **paths = argv + optind;
	int n = argc - optind, code = TC_EXIT_OK;
	int kind = n > 0 ? tc_cli_inputs_kind(c, paths, n) : 0;
	/* Traces only: digests go on to be read as traces, and are refused
	 * there as such. */
	if (want & TC_CLI_TRACES_ONLY && kind) {
		kind = 0;
	} else {
		ao->threads = c->ingest.threads;
		int is_job = open_job(c, ao, want, paths, n, s, &code);
		if (is_job) {
			return code;
		}
	}
	if (kind) {
		return open_digests(c, ao, want, kind, paths, n, s);
	}
	s->m = tc_cli_analysis_load(c, ao, c->cmd, argc, argv, &code);
	if (!s->m) {
		return code;
	}
	s->from = TC_CLI_FROM_TRACE;
	if (want & ~TC_CLI_SOURCE_BITS) {
		tc_analyze(s->m, ao, want & ~TC_CLI_SOURCE_BITS, &s->an);
	}
	if (want & TC_CLI_MEMVIEW) {
		tc_memview_build(s->m, &s->an.memview);
	}
	return TC_EXIT_OK;
}

void tc_cli_source_finish(struct tc_cli_source *s) {
	tc_analysis_finish(&s->an);
	switch (s->from) {
	case TC_CLI_FROM_NONE:
		break;
	case TC_CLI_FROM_TRACE:
		if (s->want & TC_CLI_DROP_MODEL) {
			tc_model_destroy(s->m);
		} else {
			tc_cli_model_done(s->m);
		}
		break;
	case TC_CLI_FROM_DIGEST:
		tc_cli_digests_finish(&s->digests);
		break;
	case TC_CLI_FROM_JOB:
		tc_cli_job_finish(&s->job);
		break;
	}
	memset(s, 0, sizeof(*s));
}
