/*
 * The analysis option group (--steps, --device, thresholds, ...): its
 * parsing, whether it asks for the default analysis, and the error for a
 * --device that names no one device.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static const struct tc_option analysis_options[] = {
	{ "steps", 0, "A:B", "only steps numbered A..B (either side may be empty)",
		"Only steps numbered _A_ to _B_ (_A_, _A_:, :_B_ also work).", TC_OPT_STEPS },
	TC_CLI_STEP_MARKER_OPTION,
	{ "threshold", 0, "K=V", "override a rule threshold (see docs/analysis.md)",
		"Override the rule threshold _K_ with _V_; *bottlenecks --thresholds* "
		"lists them. Definitions are in docs/analysis.md.", TC_OPT_THRESHOLD },
	{ "peak-flops", 0, "F", "device peak FLOP/s for the roofline (e.g. 989e12)",
		NULL, TC_OPT_PEAK_FLOPS },
	{ "peak-bw", 0, "B", "device peak memory bandwidth in B/s (e.g. 3.35e12)",
		NULL, TC_OPT_PEAK_BW },
	{ "device", 0, "NAME", "one device: its exact name, else a unique part of a name, "
		"any case; the step breakdown is measured on it (default: the step line's "
		"device, else the busiest), ops lists only its ops",
		"One device: its exact name (or _host_: _name_), else a part of one "
		"name, in any case; a part that several names contain is a usage error "
		"listing them (exit 2). The step breakdown is measured on it (default: "
		"the step line's device, else the busiest); *ops* lists only its ops.",
		TC_OPT_DEVICE },
	{ 0 },
};

const struct tc_option_group tc_cli_analysis_group = {
	"analysis", "Analysis options", analysis_options,
};

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
	case TC_OPT_STEP_MARKER:
		if (!tc_analysis_opts_step_marker(o, arg, &err)) {
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

bool tc_cli_analysis_default(const struct tc_analysis_opts *o) {
	struct tc_analysis_opts d;
	tc_analysis_opts_init(&d);
	return !o->step_range && !o->device && !o->step_marker && o->peak_flops == d.peak_flops &&
		o->peak_bw == d.peak_bw && memcmp(o->th, d.th, sizeof(d.th)) == 0;
}

/* Candidates named in an ambiguity error; the rest are counted. */
#define DEVICE_ERROR_LIST 8

void tc_cli_device_error(const struct tc_model *m, const char *name,
		const struct tc_device_match *dm) {
	if (dm->n_candidates == 0) {
		tc_term_fprintf(stderr, "tracectl: error: --device '%s' matches no device "
			"(run 'tracectl info' to list them)\n", name);
		return;
	}
	tc_term_fprintf(stderr, "tracectl: error: --device '%s' matches %zu devices: ", name,
		dm->n_candidates);
	char label[1024];
	for (size_t k = 0; k < dm->n_candidates && k < DEVICE_ERROR_LIST; k++) {
		uint32_t d = dm->candidates[k];
		/* A name another candidate shares (one per host): add the host. */
		bool shared = false;
		for (size_t j = 0; j < dm->n_candidates && !shared; j++) {
			shared = j != k && m->devices[dm->candidates[j]].name == m->devices[d].name;
		}
		if (shared) {
			tc_analysis_device_label(m, d, label, sizeof(label));
		} else {
			snprintf(label, sizeof(label), "%s", tc_model_str(m, m->devices[d].name));
		}
		tc_term_fprintf(stderr, "%s'%s'", k ? ", " : "", label);
	}
	if (dm->n_candidates > DEVICE_ERROR_LIST) {
		fprintf(stderr, " and %zu more", dm->n_candidates - DEVICE_ERROR_LIST);
	}
	fprintf(stderr, "; give one exactly\n");
}
