#ifndef TC_OUTPUT_HTML_WRITE_H
#define TC_OUTPUT_HTML_WRITE_H

/*
 * `tracectl report`: one self-contained HTML page (inline SVG and CSS, a
 * few lines of inline JS, nothing fetched) drawn from the analysis
 * results. The page embeds the JSON `summarize --json` prints (and `diff
 * --json` with --diff) and every visible figure comes from the same
 * structures. Sections and their definitions: docs/report.md.
 */

#include <stddef.h>
#include <stdio.h>
#include "model/diff.h"
#include "model/findings.h"
#include "model/launch.h"
#include "model/memview.h"
#include "model/model.h"
#include "model/timeline.h"
#include "output/diff_write.h"
#include "output/summary_write.h"

/* One input file (a rank; with --diff, a side): its own steps. */
struct tc_report_rank {
	char label[256];
	struct tc_step *steps;  /* numbers only: names are ids of a model gone */
	size_t n_steps;
};

/* One run on its own clock: the page's input, or with --diff BASE or TEST
 * (two runs' clocks have nothing in common, so each gets its own axis). */
struct tc_report_run {
	const char *label;                 /* NULL on a one-run page; "base", "test" */
	const struct tc_model *m;          /* every input of the run, read together */
	const struct tc_analysis *a;       /* TC_AN_SUMMARY | TC_AN_FINDINGS of m */
	const struct tc_timeline *tl;      /* over the run's own span */
	const struct tc_mem_view *mem;     /* allocator records' view, NULL none */
	const struct tc_launch_table *launch; /* `ops --by launcher`, NULL none */
};

struct tc_report {
	struct tc_report_run run[2];
	size_t n_runs;                     /* 1, or 2 with --diff */
	const struct tc_summary_opts *so;  /* as summarize's defaults */
	const struct tc_report_rank *ranks;
	size_t n_ranks;
	const struct tc_diff *diff;        /* of run[0] and run[1]; NULL without --diff */
	const struct tc_diff_write_opts *dwo;
	size_t top;                        /* op bars drawn */
};

/* The page's section ids, in order (tests count one chart or table each). */
void tc_write_report_html(FILE *f, const struct tc_report *r);

#endif
