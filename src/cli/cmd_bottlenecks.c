/*
 * `tracectl bottlenecks`: ranked findings with the step-time breakdown,
 * from a trace, a digest or several ranks; --fail-on sets the exit code.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "output/analysis_write.h"

enum {
	OPT_TOP = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_MIN_SEVERITY,
	OPT_FAIL_ON,
	OPT_THRESHOLDS,
};

static const char *const severities[] = { "low", "medium", "high", "critical", NULL };

static const struct tc_option options[] = {
	{ "top", 0, "N", "findings listed (default 0 = all)", NULL, OPT_TOP },
	{ "min-severity", 0, "S", "list findings at or above S: low (default), medium, high, critical",
		"List findings of severity _S_ (low, medium, high, critical) or above "
		"(default low).", OPT_MIN_SEVERITY, severities },
	{ "fail-on", 0, "S", "exit 1 when a finding at or above S exists",
		"Exit 1 when a finding of severity _S_ (low, medium, high, critical) or "
		"above exists.", OPT_FAIL_ON, severities },
	{ "thresholds", 0, NULL, "list rule thresholds (key, value, source) and exit",
		"List every rule threshold with its value and source (marked when "
		"*--threshold* overrides it) and exit.", OPT_THRESHOLDS },
	{ 0 },
};

const struct tc_cli_spec tc_bottlenecks_spec = {
	.name = "bottlenecks",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"Why the run is slow: the step-time breakdown, device utilisation, transfers,\n"
		"memory and compilation, and ranked findings (each with its numbers, the\n"
		"source of its threshold and a suggestion).\n",
	.options = options,
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_analysis_group, &tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

struct emit_ctx {
	const struct tc_model *m;
	const struct tc_analysis *a;
	const struct tc_bottlenecks_opts *bo;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (json) {
		tc_write_bottlenecks_json(f, e->m, e->a, e->bo);
	} else {
		tc_write_bottlenecks_text(f, e->m, e->a, e->bo);
	}
}

static int list_thresholds(const struct tc_analysis_opts *o) {
	const struct tc_threshold_def *t = tc_thresholds();
	for (int i = 0; i < TC_TH_COUNT; i++) {
		printf("%-24s %8g %-5s %s%s\n", t[i].key, o->th[i], t[i].unit, t[i].source,
			o->th[i] != t[i].value ? " (overridden)" : "");
	}
	return TC_EXIT_OK;
}

/* The --fail-on gate: exit 1 naming the findings that failed it, so a CI
 * log says why without the report. */
static int fail_gate(const struct tc_analysis *a, enum tc_severity fail_on) {
	size_t n = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		n += a->findings[i].severity >= fail_on;
	}
	if (!n) {
		return TC_EXIT_OK;
	}
	const char *sev = tc_severity_name(fail_on);
	fprintf(stderr, "tracectl: --fail-on %s: %zu finding%s at or above %s:", sev, n,
		n == 1 ? "" : "s", sev);
	size_t k = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *fd = &a->findings[i];
		if (fd->severity >= fail_on) {
			tc_term_fprintf(stderr, "%s %s (%s)", k++ ? "," : "", fd->kind,
				tc_severity_name((enum tc_severity)fd->severity));
		}
	}
	fputc('\n', stderr);
	return TC_EXIT_FINDINGS;
}

int tc_cmd_bottlenecks(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "bottlenecks");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct tc_bottlenecks_opts bo = { .top = 0, .min_severity = TC_SEV_LOW };
	enum tc_severity fail_on = TC_SEV_NONE;
	bool show_thresholds = false;
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_bottlenecks_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(&c, opt, arg, &code) ||
				tc_cli_analysis_opt(&ao, "bottlenecks", opt, arg, &code)) {
			if (code) {
				return code;
			}
			continue;
		}
		switch (opt) {
		case OPT_TOP:
			if (!tc_cli_parse_count("bottlenecks", "--top", arg, &bo.top, &code)) {
				return code;
			}
			break;
		case OPT_THRESHOLDS:
			show_thresholds = true;
			break;
		case OPT_MIN_SEVERITY:
		case OPT_FAIL_ON: {
			/* The parser took only the severities above. */
			enum tc_severity s = TC_SEV_LOW;
			tc_severity_parse(arg, &s);
			if (opt == OPT_FAIL_ON) {
				fail_on = s;
			} else {
				bo.min_severity = s;
			}
			break;
		}
		}
	}
	if (opt < 0) {
		return p.code;
	}
	if (show_thresholds) {
		return list_thresholds(&ao);
	}
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_AN_FINDINGS, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		struct emit_ctx ec = { src.m, &src.an, &bo };
		code = tc_cli_emit(&c, argv + optind, argc - optind, src.m, emit, &ec);
	}
	if (code == TC_EXIT_OK && fail_on != TC_SEV_NONE) {
		code = fail_gate(&src.an, fail_on);
	}
	tc_cli_source_finish(&src);
	return code;
}
