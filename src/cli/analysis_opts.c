#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "analysis/analyze.h"
#include "cli/cli.h"

static bool parse_rate(const char *s, double *out) {
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0) {
		return false;
	}
	*out = v;
	return true;
}

bool tc_cli_analysis_opt(struct tc_analysis_opts *o, const char *cmd, int opt,
		const char *arg, int *exit_code) {
	struct tc_error err;
	tc_error_init(&err);
	switch (opt) {
	case TC_OPT_STEPS:
		if (!tc_analysis_opts_steps(o, arg, &err)) {
			*exit_code = tc_cli_usage_error(cmd, "%s", err.msg);
		}
		return true;
	case TC_OPT_THRESHOLD:
		if (!tc_analysis_opts_threshold(o, arg, &err)) {
			*exit_code = tc_cli_usage_error(cmd, "%s", err.msg);
		}
		return true;
	case TC_OPT_PEAK_FLOPS:
	case TC_OPT_PEAK_BW:
		if (!parse_rate(arg, opt == TC_OPT_PEAK_FLOPS ? &o->peak_flops : &o->peak_bw)) {
			*exit_code = tc_cli_usage_error(cmd, "invalid %s '%s' (a positive number)",
				opt == TC_OPT_PEAK_FLOPS ? "--peak-flops" : "--peak-bw", arg);
		}
		return true;
	case TC_OPT_DEVICE:
		o->device = arg;
		return true;
	default:
		return false;
	}
}

bool tc_cli_analysis_check(const struct tc_analysis_opts *o, const char *cmd,
		const struct tc_model *m) {
	if (o->device && tc_analysis_find_device(m, o->device) == TC_NONE) {
		fprintf(stderr, "tracectl: error: %s: no device named '%s' in the trace\n", cmd,
			o->device);
		return false;
	}
	return true;
}
