/*
 * `tracectl diff`: what changed between two runs (traces, folders or
 * digests), and the --fail-on-regression gate on one metric.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "cli/cli.h"
#include "digest/ranks.h"
#include "output/diff_write.h"
#include "output/fmt.h"

enum {
	OPT_FAIL = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_METRIC,
	OPT_EXACT,
	OPT_TOP,
	OPT_NESTED,
};

static const struct tc_option options[] = {
	{ "fail-on-regression", 0, "PCT",
		"exit 1 when TEST's metric is more than PCT % above BASE's",
		"Exit 1, with one line on stderr naming the change, when _TEST_'s "
		"metric is more than _PCT_ % above _BASE_'s.", OPT_FAIL },
	{ "metric", 0, "M",
		"the metric gated: step (default: mean step time, or whole-trace device "
		"busy time when a side has no steps), device-busy, an attribution category "
		"(input, compute, ...: its time per step), or op:NAME (its time per step)",
		"The metric *--fail-on-regression* gates: *step* (default; the mean "
		"step time, or the whole-trace device busy time when a side has no "
		"steps), *device-busy* (summed device busy time per step), an attribution "
		"category (*compute*, *d2h*, *d2d*, *input*, *collective*, *profiler*, "
		"*sync*, *launch*, *h2d*, *compile*, *host*, *idle*: its time per step, "
		"as the attribution table prints it) or *op:*_NAME_ (that op's time per "
		"step; _NAME_ exact or normalised).",
		OPT_METRIC },
	{ "exact-names", 0, NULL, "match ops by exact name, not normalised", NULL, OPT_EXACT },
	{ "top", 0, "N", "op, category and memory-by-op rows listed (default 20, 0 = all)",
		"Op and category rows, names in the added and removed lists, and "
		"memory-by-op rows listed (default 20, 0 = all).", OPT_TOP },
	{ "nested", 0, NULL, "also list host ops called inside other host ops",
		"Also list the host ops called inside other host ops (*aten::addmm* "
		"inside *aten::linear*, the runtime calls they make): by default the "
		"ops table lists the outer ones, whose time includes them; JSON lists "
		"all, marked *nested*.", OPT_NESTED },
	{ 0 },
};

const struct tc_cli_spec tc_diff_spec = {
	.name = "diff",
	.usage = "[OPTIONS] BASE TEST",
	.about =
		"What changed between two runs: step time, its attribution, device busy\n"
		"and idle, ops and op categories (calls, time and mean duration per step;\n"
		"added and removed ops by normalised name), findings, transfers, peak\n"
		"memory, which op's memory grew (from allocator records) and compilation.\n"
		"BASE and TEST are each a trace, a folder of ranks or a digest, in any\n"
		"supported format. Sides are compared per step (over their counted\n"
		"steps, as in 'steps'); a side without steps is compared whole.\n"
		"--steps and --device apply to both sides.\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

struct diff_opts {
	double fail_pct;        /* NAN: no gate */
	const char *metric;     /* NULL: no metric asked */
	bool exact_names;
	bool nested;
	size_t top;
};

static bool parse_pct(const char *s, double *out) {
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0) {
		return false;
	}
	*out = v;
	return true;
}

/*
 * Read one side and summarise it. Sides are read one after the other and
 * each model is dropped once its summary is made, so a diff holds one
 * model at a time. A side that is a digest fills s from its ranks,
 * without a model.
 */
static int load_side(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
		char **argv, int i, struct tc_outfile *out, int *strict, struct tc_diff_side *s) {
	/* argv[optind..i]: this side only. */
	optind = i;
	struct tc_cli_source src;
	int code = tc_cli_source_open(c, ao, TC_CLI_ONE_MODEL | TC_CLI_ALL_RANKS |
		TC_CLI_DROP_MODEL, i + 1, argv, &src);
	bool trace = src.from == TC_CLI_FROM_TRACE;
	if (code != TC_EXIT_OK) {
		/* reported */
	} else if (!trace) {
		tc_rank_set_diff_side(src.digests.ranks, argv[i], s);
	} else if (!tc_cli_check_output(out, src.m)) {
		code = TC_EXIT_OUTPUT;
	} else {
		if (c->format == TC_FORMAT_TEXT) {
			tc_cli_truncated_note(out->fp, src.m);
		}
		tc_diff_side_build(src.m, ao, argv[i], s);
		int sc = tc_cli_strict(c, src.m);
		*strict = *strict ? *strict : sc;
	}
	tc_cli_source_finish(&src);
	if (code == TC_EXIT_OK && trace && ao->step_range && s->n_steps == 0) {
		return tc_cli_usage_error("diff", "--steps selects no step of '%s'", argv[i]);
	}
	return code;
}

int tc_cmd_diff(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "diff");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct diff_opts d = { .fail_pct = NAN, .top = 20 };
	struct tc_error err;
	tc_error_init(&err);
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_diff_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(&c, opt, arg, &code) ||
				tc_cli_analysis_opt(&ao, "diff", opt, arg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case OPT_FAIL:
			if (!parse_pct(arg, &d.fail_pct)) {
				return tc_cli_usage_error("diff", "invalid --fail-on-regression '%s' "
					"(a percentage, 0 or more)", arg);
			}
			break;
		case OPT_METRIC:
			if (!tc_diff_metric_valid(arg, &err)) {
				return tc_cli_usage_error("diff", "%s", err.msg);
			}
			d.metric = arg;
			break;
		case OPT_EXACT:
			d.exact_names = true;
			break;
		case OPT_NESTED:
			d.nested = true;
			break;
		case OPT_TOP:
			if (!tc_cli_parse_count("diff", "--top", arg, &d.top, &code)) {
				return code;
			}
			break;
		}
	}
	if (opt < 0) {
		return p.code;
	}
	if (argc - optind != 2) {
		return tc_cli_usage_error("diff", argc - optind < 2 ? "diff needs BASE and TEST" :
			"diff takes two traces, BASE and TEST, not %d", argc - optind);
	}
	int first = optind;
	struct tc_outfile out;
	if (!tc_cli_open_output(&c, argv + first, 2, NULL, &out)) {
		return TC_EXIT_OUTPUT;
	}
	struct tc_diff_side sides[2] = { 0 };
	int strict = TC_EXIT_OK;
	for (int k = 0; k < 2 && code == TC_EXIT_OK; k++) {
		code = load_side(&c, &ao, argv, first + k, &out, &strict, &sides[k]);
	}
	struct tc_diff diff = { 0 };
	struct tc_diff_gate gate;
	bool gated = false;
	if (code == TC_EXIT_OK) {
		tc_diff_compute(&sides[0], &sides[1], d.exact_names, &diff);
		if (d.metric || !isnan(d.fail_pct)) {
			double limit = isnan(d.fail_pct) ? INFINITY : d.fail_pct;
			gated = tc_diff_gate(&diff, d.metric ? d.metric : "step", limit, &gate, &err);
			code = gated ? TC_EXIT_OK : tc_cli_usage_error("diff", "%s", err.msg);
		}
	}
	if (code != TC_EXIT_OK) {
		tc_outfile_abort(&out);
	} else {
		struct tc_diff_write_opts wo = { .top = d.top, .gate = gated ? &gate : NULL,
			.nested = d.nested };
		if (c.format == TC_FORMAT_JSON) {
			tc_write_diff_json(out.fp, &diff, &wo);
		} else {
			tc_write_diff_text(out.fp, &diff, &wo);
		}
		code = tc_cli_close_output(&out);
	}
	if (code == TC_EXIT_OK && gated && gate.failed) {
		char x[2][TC_FMT_LEN];
		tc_fmt_dur(x[0], (int64_t)llround(gate.base));
		tc_fmt_dur(x[1], (int64_t)llround(gate.test));
		tc_term_fprintf(stderr, "tracectl: regression: %s rose from %s to %s (%+.1f %%, "
			"over --fail-on-regression %g %%)\n", gate.label, x[0], x[1], gate.change_pct,
			gate.threshold_pct);
		code = TC_EXIT_FINDINGS;
	}
	if (code == TC_EXIT_OK) {
		code = strict;
	}
	tc_diff_finish(&diff);
	tc_diff_side_finish(&sides[0]);
	tc_diff_side_finish(&sides[1]);
	return code;
}
