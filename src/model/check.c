/*
 * Check results as plain data: the metric catalogue (names, units,
 * descriptions), verdict names, and freeing a check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/check.h"
#include "model/findings.h"
#include "util/xalloc.h"

static const struct tc_metric_def defs[TC_M_COUNT] = {
	[TC_M_STEP_COUNT] = { "step.count", TC_MU_COUNT,
		"steps counted (warm-up and partial steps left out, as in every per-step figure)" },
	[TC_M_STEP_MEAN] = { "step.mean", TC_MU_TIME, "mean step time" },
	[TC_M_STEP_MEDIAN] = { "step.median", TC_MU_TIME, "median step time" },
	[TC_M_STEP_P90] = { "step.p90", TC_MU_TIME, "90th percentile step time (nearest rank)" },
	[TC_M_STEP_MAX] = { "step.max", TC_MU_TIME, "longest step" },
	[TC_M_H2D_BYTES] = { "h2d.bytes_per_step", TC_MU_BYTES,
		"host-to-device bytes copied per step (mean)" },
	[TC_M_H2D_COUNT] = { "h2d.count_per_step", TC_MU_COUNT,
		"host-to-device copies per step (mean)" },
	[TC_M_D2H_BYTES] = { "d2h.bytes_per_step", TC_MU_BYTES,
		"device-to-host bytes copied per step (mean)" },
	[TC_M_D2H_COUNT] = { "d2h.count_per_step", TC_MU_COUNT,
		"device-to-host copies per step (mean)" },
	[TC_M_D2D_BYTES] = { "d2d.bytes_per_step", TC_MU_BYTES,
		"device-to-device, peer and unknown-direction bytes copied per step (mean)" },
	[TC_M_D2D_COUNT] = { "d2d.count_per_step", TC_MU_COUNT,
		"device-to-device, peer and unknown-direction copies per step (mean)" },
	[TC_M_SHARE] = { "share.CATEGORY", TC_MU_RATIO,
		"the category's share of step time on the breakdown device (compute, d2h, d2d, "
		"input, collective, profiler, sync, launch, h2d, compile, host, idle)" },
	[TC_M_DEVICE_BUSY] = { "device.busy", TC_MU_RATIO,
		"share of step time the breakdown device is busy" },
	[TC_M_COMPILE_COUNT] = { "compile.count", TC_MU_COUNT, "compilation events in the trace" },
	[TC_M_COMPILE_TIME] = { "compile.time", TC_MU_TIME,
		"time spent compiling (union of compilation events)" },
	[TC_M_RECOMPILE_COUNT] = { "recompile.count", TC_MU_COUNT,
		"compilations of a name already compiled (each compile after a name's first)" },
	[TC_M_MEMORY_PEAK] = { "memory.peak", TC_MU_BYTES,
		"highest memory counter peak of any device (the device is named)" },
	[TC_M_MEMORY_CV] = { "memory.cv", TC_MU_RATIO,
		"coefficient of variation (standard deviation / mean) of the per-step peak of "
		"the memory counter with the highest peak" },
	[TC_M_MEMORY_BY_OP] = { "memory.peak_by_op:NAME", TC_MU_BYTES,
		"bytes op NAME allocated that are live at the largest allocator peak (allocator "
		"records, 'tracectl memory')" },
	[TC_M_OP_TIME] = { "op:NAME.time_per_step", TC_MU_TIME,
		"time in events named NAME (exactly) per step, host and device" },
	[TC_M_OP_CALLS] = { "op:NAME.calls_per_step", TC_MU_COUNT,
		"events named NAME (exactly) per step" },
	[TC_M_MAX_SEVERITY] = { "findings.max_severity", TC_MU_SEVERITY,
		"highest severity of the bottleneck findings (none, low, medium, high, critical)" },
};

const struct tc_metric_def *tc_metric_defs(void) {
	return defs;
}

const char *tc_metric_unit_name(enum tc_metric_unit u) {
	static const char *const n[] = { "time", "bytes", "count", "ratio", "severity" };
	return (unsigned)u < sizeof(n) / sizeof(n[0]) ? n[u] : "?";
}

const char *const *tc_metric_words(void) {
	static char buf[TC_M_COUNT + TC_BD_COUNT][48];
	static const char *words[TC_M_COUNT + TC_BD_COUNT + 1];
	if (words[0]) {
		return words;
	}
	size_t n = 0;
	for (int i = 0; i < TC_M_COUNT; i++) {
		if (i == TC_M_SHARE) {
			for (int c = 0; c < TC_BD_COUNT; c++, n++) {
				snprintf(buf[n], sizeof(buf[n]), "share.%s=",
					tc_bd_cat_name((enum tc_bd_cat)c));
				words[n] = buf[n];
			}
		} else if (i == TC_M_OP_TIME) {
			words[n++] = "op:";
		} else if (i == TC_M_MEMORY_BY_OP) {
			words[n++] = "memory.peak_by_op:";
		} else if (i != TC_M_OP_CALLS) {
			snprintf(buf[n], sizeof(buf[n]), "%s=", defs[i].name);
			words[n] = buf[n];
			n++;
		}
	}
	words[n] = NULL;
	return words;
}

void tc_metric_finish(struct tc_metric *mt) {
	if (!mt) {
		return;
	}
	free(mt->name);
	free(mt->op);
	memset(mt, 0, sizeof(*mt));
}

static char *dup(const char *s) {
	return s ? tc_xstrdup(s) : NULL;
}

void tc_metric_copy(struct tc_metric *dst, const struct tc_metric *src) {
	*dst = *src;
	dst->name = dup(src->name);
	dst->op = dup(src->op);
}

void tc_check_finish(struct tc_check *c) {
	if (!c) {
		return;
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		struct tc_check_row *r = &c->rows[i];
		tc_metric_finish(&r->metric);
		free(r->limit_text);
		free(r->values);
		free(r->known);
		for (size_t k = 0; k < c->n_ranks; k++) {
			free(r->details[k]);
		}
		free(r->details);
		free(r->op_hint);
	}
	free(c->rows);
	for (size_t k = 0; k < c->n_ranks; k++) {
		free(c->ranks[k]);
		free(c->steps_source ? c->steps_source[k] : NULL);
	}
	free(c->ranks);
	free(c->steps_source);
	free(c->n_steps);
	memset(c, 0, sizeof(*c));
}

const char *tc_verdict_name(enum tc_verdict v) {
	static const char *const n[] = { "measured", "pass", "fail", "missing" };
	return (unsigned)v < sizeof(n) / sizeof(n[0]) ? n[v] : "?";
}
