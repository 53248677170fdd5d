/*
 * `tracectl report`: analyses the inputs (two runs with --diff) and writes
 * one self-contained HTML page.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/compare.h"
#include "analysis/job.h"
#include "analysis/launcher.h"
#include "analysis/timeline.h"
#include "cli/cli.h"
#include "digest/ranks.h"
#include "ingest/ingest.h"
#include "model/rank.h"
#include "output/html_write.h"
#include "util/xalloc.h"

enum {
	OPT_DIFF = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_TOP,
};

static const struct tc_option options[] = {
	{ "output", 'o', "FILE", "write the page to FILE (required; atomically; '-' = stdout)",
		"Write the page to _FILE_ (required) through a temporary file renamed into "
		"place; *-* is standard output.", 'o' },
	{ "diff", 0, NULL, "two traces, BASE and TEST: add the diff view",
		"Take exactly two traces, _BASE_ and _TEST_, and add the view of what changed "
		"between them (the figures of *tracectl diff*).", OPT_DIFF },
	{ "top", 0, "N", "ops drawn (default 15)", NULL, OPT_TOP },
	{ 0 },
};

const struct tc_cli_spec tc_report_spec = {
	.name = "report",
	.usage = "[OPTIONS] -o FILE TRACE...",
	.about =
		"One self-contained HTML page to look at: inputs, findings, the step-time\n"
		"attribution of every step (per rank with several files), device utilisation\n"
		"over time, the top ops, memory over time, a rank heatmap, transfers and,\n"
		"with --diff, what changed. Inline SVG and CSS only: it opens offline and\n"
		"fetches nothing. The page embeds the JSON of 'summarize --json' (and of\n"
		"'diff --json' with --diff); its figures are the same. With several files\n"
		"each is a rank.\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_input_group, NULL,
	},
};

struct report_opts {
	bool diff;
	bool have_output;
	size_t top;
};

static void add_rank(struct tc_report_rank *rk, const char *label, const struct tc_analysis *a) {
	/* Labels longer than the field are cut on purpose. */
	snprintf(rk->label, sizeof(rk->label), "%.*s", (int)sizeof(rk->label) - 1, label);
	rk->n_steps = a->n_steps;
	rk->steps = tc_xmalloc((a->n_steps ? a->n_steps : 1) * sizeof(*rk->steps));
	if (a->n_steps) {
		memcpy(rk->steps, a->steps, a->n_steps * sizeof(*rk->steps));
	}
}

/* Read one input file (a rank) alone for its steps. */
static int load_one(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		const char *path, const char *label, struct tc_report_rank *rk) {
	struct tc_error err;
	tc_error_init(&err);
	struct tc_model *m = tc_ingest(&path, 1, &c->ingest, &err);
	if (!m) {
		return tc_cli_error(&err);
	}
	struct tc_analysis a;
	tc_analyze(m, ao, TC_AN_BREAKDOWN, &a);
	char name[256];
	if (!label) {
		tc_model_source_rank(m, 0, name, sizeof(name));
	}
	add_rank(rk, label ? label : name, &a);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
	return TC_EXIT_OK;
}

struct report_state {
	struct tc_report_rank *ranks;
	size_t n_ranks;
};

static void state_finish(struct report_state *st) {
	for (size_t i = 0; i < st->n_ranks; i++) {
		free(st->ranks[i].steps);
	}
	free(st->ranks);
}

/* The ranks (each file on its own), or the one model as a single rank. */
static int load_ranks(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		const struct tc_model *m,
		const struct tc_analysis *an, struct report_state *st) {
	if (!tc_cli_per_source(m)) {
		char name[256];
		if (m->n_sources == 1) {
			tc_model_source_rank(m, 0, name, sizeof(name));
		} else {
			snprintf(name, sizeof(name), "all");
		}
		st->ranks = tc_xcalloc(1, sizeof(*st->ranks));
		add_rank(&st->ranks[0], name, an);
		st->n_ranks = 1;
		return TC_EXIT_OK;
	}
	st->ranks = tc_xcalloc(m->n_sources, sizeof(*st->ranks));
	for (size_t s = 0; s < m->n_sources; s++) {
		char name[256];
		tc_model_source_rank(m, (uint32_t)s, name, sizeof(name));
		int code = load_one(c, ao, tc_model_str(m, m->sources[s].path), name,
			&st->ranks[s]);
		if (code) {
			return code;
		}
		st->n_ranks++;
	}
	return TC_EXIT_OK;
}

/*
 * A job of two or more rank files: the page is the job's, as summarize
 * composes it (analysis/job.h), each rank's steps from its digest rank
 * and the timeline binned rank by rank, each file read once more alone.
 */
static int job_page(const struct tc_cli_common *c, const struct report_opts *ro,
		char **inputs, int n, struct tc_cli_source *src) {
	const struct tc_job_ranks *jr = src->job.jr;
	struct tc_model *skel = src->job.skel;
	struct tc_analysis *an = &src->an;
	struct tc_summary_opts so = { .top = 10, .findings = 3, .analysis = an };
	struct report_state st = { 0 };
	struct tc_timeline tl;
	tc_timeline_job_init(an, 0, an->span_ps, &tl);
	int64_t *clock = tc_xmalloc(jr->n * sizeof(*clock));
	jr->clock(jr->ctx, clock);
	int code = TC_EXIT_OK;
	st.ranks = tc_xcalloc(jr->n, sizeof(*st.ranks));
	uint32_t base = 0;
	size_t util_lo = 0, mem_lo = 0;
	/* File after file: a model's freed arrays serve the next one's. */
	tc_malloc_reuse_begin();
	for (size_t k = 0; k < jr->n && code == TC_EXIT_OK; k++) {
		const struct tc_job_rank *r = &jr->v[k];
		struct tc_analysis a;
		jr->steps(jr->ctx, skel, k, 0, &a);
		add_rank(&st.ranks[st.n_ranks++], r->name, &a);
		tc_analysis_finish(&a);
		struct tc_error err;
		tc_error_init(&err);
		const char *path = r->input;
		struct tc_model *m = tc_ingest(&path, 1, &c->ingest, &err);
		if (!m) {
			code = tc_cli_error(&err);
			break;
		}
		size_t nu = r->n_util;
		tc_timeline_add_rank(&tl, an, skel, m, base, util_lo, nu, mem_lo, r->n_mem, clock[k]);
		tc_model_destroy(m);
		base += (uint32_t)r->n_devices;
		util_lo += nu;
		mem_lo += r->n_mem;
	}
	tc_malloc_reuse_end();
	free(clock);
	struct tc_outfile out;
	if (code == TC_EXIT_OK && !tc_cli_open_output(c, inputs, n, skel, &out)) {
		code = TC_EXIT_OUTPUT;
	}
	if (code == TC_EXIT_OK) {
		struct tc_report rep = {
			.run = { { .m = skel, .a = an, .tl = &tl } }, .n_runs = 1, .so = &so,
			.ranks = st.ranks, .n_ranks = st.n_ranks, .top = ro->top,
		};
		tc_write_report_html(out.fp, &rep);
		code = tc_cli_close_output(&out);
		if (code == TC_EXIT_OK) {
			code = tc_cli_strict(c, skel);
		}
	}
	tc_timeline_finish(&tl);
	state_finish(&st);
	return code;
}

/* One run of a --diff page: read alone (a file or a folder of ranks),
 * with what summarize computes for it, its own timeline and its side of
 * the diff. */
struct diff_run {
	struct tc_model *m;
	struct tc_analysis an;
	struct tc_timeline tl;
	bool analysed;
};

static void diff_run_finish(struct diff_run *dr) {
	tc_timeline_finish(&dr->tl);
	if (dr->analysed) {
		tc_analysis_finish(&dr->an);
	}
	if (dr->m) {
		tc_model_destroy(dr->m);
	}
}

static int diff_run_load(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		char **input, const char *label, struct diff_run *dr, struct tc_report_rank *rk,
		struct tc_diff_side *side) {
	int code = TC_EXIT_OK;
	dr->m = tc_cli_load(c, input, 1, &code);
	if (!dr->m) {
		return code;
	}
	tc_analyze(dr->m, ao, TC_AN_SUMMARY | TC_AN_FINDINGS, &dr->an);
	dr->analysed = true;
	char name[300];
	const char *slash = strrchr(input[0], '/');
	snprintf(name, sizeof(name), "%s: %s", label, slash && slash[1] ? slash + 1 : input[0]);
	add_rank(rk, name, &dr->an);
	tc_timeline_build(dr->m, &dr->an, dr->an.summary.first_ps, dr->an.summary.last_ps, &dr->tl);
	/* The comparison is diff's own, from its summary of each side. */
	tc_diff_side_build(dr->m, ao, input[0], side);
	return TC_EXIT_OK;
}

/*
 * report --diff BASE TEST: two runs, each read and drawn on its own
 * clock (their clocks share nothing), compared as `tracectl diff` does.
 */
static int diff_page(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
		const struct report_opts *ro, char **inputs) {
	if (tc_cli_inputs_kind(c, inputs, 2) != 0) {
		return tc_cli_usage_error("report", "--diff takes traces, not digests");
	}
	ao->threads = c->ingest.threads;
	struct diff_run dr[2] = { 0 };
	struct tc_diff_side sides[2] = { 0 };
	struct report_state st = { .ranks = tc_xcalloc(2, sizeof(*st.ranks)) };
	int code = TC_EXIT_OK;
	for (int k = 0; k < 2 && code == TC_EXIT_OK; k++) {
		code = diff_run_load(c, ao, &inputs[k], k ? "test" : "base", &dr[k],
			&st.ranks[k], &sides[k]);
		st.n_ranks += code == TC_EXIT_OK;
	}
	struct tc_outfile out;
	if (code == TC_EXIT_OK && (!tc_cli_open_output(c, inputs, 2, dr[0].m, &out) ||
			!tc_cli_check_output(&out, dr[1].m))) {
		code = TC_EXIT_OUTPUT;
	}
	if (code == TC_EXIT_OK) {
		struct tc_diff diff = { 0 };
		tc_diff_compute(&sides[0], &sides[1], false, &diff);
		/* Each run's embedded JSON is summarize's of that run. */
		struct tc_summary_opts so = { .top = 10, .findings = 3, .analysis = &dr[0].an };
		const struct tc_mem_view *mem[2];
		for (int k = 0; k < 2; k++) {
			mem[k] = dr[k].an.memview.records ? &dr[k].an.memview : NULL;
		}
		so.memory = mem[0];
		/* The diff view's JSON is diff's with its default --top. */
		struct tc_diff_write_opts dwo = { .top = 20 };
		struct tc_report rep = {
			.run = {
				{ .label = "base", .m = dr[0].m, .a = &dr[0].an, .tl = &dr[0].tl,
					.mem = mem[0] },
				{ .label = "test", .m = dr[1].m, .a = &dr[1].an, .tl = &dr[1].tl,
					.mem = mem[1] },
			},
			.n_runs = 2, .so = &so, .ranks = st.ranks, .n_ranks = st.n_ranks,
			.diff = &diff, .dwo = &dwo, .top = ro->top,
		};
		tc_write_report_html(out.fp, &rep);
		tc_diff_finish(&diff);
		code = tc_cli_close_output(&out);
		for (int k = 0; k < 2 && code == TC_EXIT_OK; k++) {
			code = tc_cli_strict(c, dr[k].m);
		}
	}
	state_finish(&st);
	for (int k = 0; k < 2; k++) {
		tc_diff_side_finish(&sides[k]);
		diff_run_finish(&dr[k]);
	}
	return code;
}

/* False when the command is done (--help, a usage error), with the exit
 * status in *code. */
static bool parse(int argc, char **argv, struct tc_cli_common *c, struct tc_analysis_opts *ao,
		struct report_opts *ro, int *code) {
	int opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_report_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		/* -o is required here: seen before the common options take it. */
		ro->have_output |= opt == 'o';
		if (tc_cli_common_opt(c, opt, arg, code) ||
				tc_cli_analysis_opt(ao, "report", opt, arg, code)) {
			if (*code) {
				return false;
			}
			continue;
		}
		switch (opt) {
		case OPT_DIFF:
			ro->diff = true;
			break;
		case OPT_TOP:
			if (!tc_cli_parse_count("report", "--top", arg, &ro->top, code)) {
				return false;
			}
			break;
		}
	}
	if (opt < 0) {
		*code = p.code;
		return false;
	}
	int n = argc - optind;
	if (n < 1) {
		*code = tc_cli_usage_error("report", "no TRACE given");
	} else if (!ro->have_output) {
		*code = tc_cli_usage_error("report",
			"no output given: -o FILE is required (-o - for standard output)");
	} else if (ro->diff && n != 2) {
		*code = tc_cli_usage_error("report",
			"--diff takes two traces, BASE and TEST, not %d", n);
	}
	return *code == TC_EXIT_OK;
}

int tc_cmd_report(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "report");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct report_opts ro = { .top = 15 };
	int code = TC_EXIT_OK;
	if (!parse(argc, argv, &c, &ao, &ro, &code)) {
		return code;
	}
	char **inputs = argv + optind;
	int n = argc - optind;
	if (ro.diff) {
		return diff_page(&c, &ao, &ro, inputs);
	}
	/* What summarize computes, so the embedded JSON is its output.
	 * Digests are refused, as reading them as traces does. */
	struct tc_cli_source src;
	c.ingest.known_args_only = false; /* the launcher rows need the ops' shapes */
	code = tc_cli_source_open(&c, &ao, TC_AN_SUMMARY | TC_AN_FINDINGS | TC_CLI_TRACES_ONLY,
		argc, argv, &src);
	if (code == TC_EXIT_OK && src.from == TC_CLI_FROM_JOB) {
		code = job_page(&c, &ro, inputs, n, &src);
	}
	if (code != TC_EXIT_OK || src.from == TC_CLI_FROM_JOB) {
		tc_cli_source_finish(&src);
		return code;
	}
	struct tc_model *m = src.m;
	struct tc_analysis *an = &src.an;
	struct tc_summary_opts so = { .top = 10, .findings = 3, .analysis = an };
	struct report_state st = { 0 };
	struct tc_outfile out;
	struct tc_timeline tl = { 0 };
	if (!tc_cli_open_output(&c, inputs, n, m, &out)) {
		code = TC_EXIT_OUTPUT;
		goto done;
	}
	code = load_ranks(&c, &ao, m, an, &st);
	if (code) {
		tc_outfile_abort(&out);
		goto done;
	}
	tc_timeline_build(m, an, an->summary.first_ps, an->summary.last_ps, &tl);
	so.memory = an->memview.records ? &an->memview : NULL;
	struct tc_launch_table lt;
	tc_launcher_table(m, tc_analysis_find_device(m, ao.device), ao.peak_flops, ao.peak_bw, &lt);
	struct tc_report rep = {
		.run = { { .m = m, .a = an, .tl = &tl, .mem = so.memory, .launch = &lt } },
		.n_runs = 1, .so = &so, .ranks = st.ranks, .n_ranks = st.n_ranks, .top = ro.top,
	};
	tc_write_report_html(out.fp, &rep);
	tc_launch_table_finish(&lt);
	code = tc_cli_close_output(&out);
	if (code == TC_EXIT_OK) {
		code = tc_cli_strict(&c, m);
	}
done:
	tc_timeline_finish(&tl);
	state_finish(&st);
	tc_cli_source_finish(&src);
	return code;
}
