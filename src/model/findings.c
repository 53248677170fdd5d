/*
 * Analysis results as plain data: freeing them, the names of their enums
 * (severity, categories, frameworks, runtimes) and a finding's top ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/findings.h"
#include "util/num.h"

void tc_op_table_finish(struct tc_op_table *t) {
	if (!t) {
		return;
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void tc_xfer_stats_add(struct tc_xfer_stats *t, const struct tc_xfer_stats *x) {
	t->count += x->count;
	t->n_bytes_known += x->n_bytes_known;
	t->bytes += x->bytes;
	t->dur_ps = tc_sat_add(t->dur_ps, x->dur_ps);
	t->bytes_dur_ps = tc_sat_add(t->bytes_dur_ps, x->bytes_dur_ps);
	t->n_pageable += x->n_pageable;
	t->n_pinned += x->n_pinned;
	t->bytes_pageable += x->bytes_pageable;
}

void tc_analysis_finish(struct tc_analysis *a) {
	if (!a) {
		return;
	}
	free(a->steps);
	free(a->mem);
	tc_mem_view_finish(&a->memview);
	free(a->compile.recompiled);
	free(a->compile.programs);
	free(a->util);
	free(a->streams);
	for (size_t i = 0; i < a->n_attr; i++) {
		free(a->attr[i].step_cat);
		free(a->attr[i].step_wait);
	}
	free(a->attr);
	tc_op_table_finish(&a->ops);
	tc_op_table_finish(&a->op_table);
	tc_summary_finish(&a->summary);
	tc_ranks_finish(&a->ranks);
	for (size_t i = 0; i < a->n_findings; i++) {
		free(a->findings[i].text);
		free(a->findings[i].suggestion);
	}
	free(a->findings);
	memset(a, 0, sizeof(*a));
}

static const char *const sev_names[] = { "none", "low", "medium", "high", "critical" };

const char *tc_severity_name(enum tc_severity s) {
	return (unsigned)s <= TC_SEV_CRITICAL ? sev_names[s] : "?";
}

bool tc_severity_parse(const char *s, enum tc_severity *out) {
	for (int i = 0; i <= TC_SEV_CRITICAL; i++) {
		if (strcmp(s, sev_names[i]) == 0) {
			*out = (enum tc_severity)i;
			return true;
		}
	}
	return false;
}

const char *tc_bd_cat_name(enum tc_bd_cat c) {
	static const char *const n[TC_BD_COUNT] = {
		"compute", "d2h", "d2d", "input", "collective", "profiler", "sync", "launch",
		"h2d", "compile", "host", "idle",
	};
	return (unsigned)c < TC_BD_COUNT ? n[c] : "?";
}

const char *tc_xfer_dir_name(enum tc_xfer_dir d) {
	static const char *const n[TC_XFER_COUNT] = { "h2d", "d2h", "d2d" };
	return (unsigned)d < TC_XFER_COUNT ? n[d] : "?";
}

const char *tc_bound_name(enum tc_bound b) {
	switch (b) {
	case TC_BOUND_MEMORY:
		return "memory-bound";
	case TC_BOUND_COMPUTE:
		return "compute-bound";
	default:
		return "unknown";
	}
}

const char *tc_framework_id(enum tc_framework f) {
	static const char *const n[TC_FW_COUNT] = {
		"unknown", "jax", "tensorflow", "pytorch", "torch.compile", "vllm", "sglang",
	};
	return (unsigned)f < TC_FW_COUNT ? n[f] : "unknown";
}

const char *tc_framework_label(enum tc_framework f) {
	static const char *const n[TC_FW_COUNT] = {
		"unknown", "JAX/XLA", "TensorFlow", "PyTorch (eager)", "PyTorch (torch.compile)",
		"vLLM (serving)", "SGLang (serving)",
	};
	return (unsigned)f < TC_FW_COUNT ? n[f] : "unknown";
}

const char *tc_runtime_id(enum tc_runtime r) {
	static const char *const n[TC_RT_COUNT] = {
		"unknown", "cuda", "rocm", "tpu", "cpu", "gpu", "accelerator",
	};
	return (unsigned)r < TC_RT_COUNT ? n[r] : "unknown";
}

const char *tc_runtime_label(enum tc_runtime r) {
	static const char *const n[TC_RT_COUNT] = {
		"unknown", "CUDA", "ROCm/HIP", "TPU", "CPU only", "GPU, vendor not in the trace",
		"other accelerator",
	};
	return (unsigned)r < TC_RT_COUNT ? n[r] : "unknown";
}

const char *tc_framework_source(const struct tc_runtime_info *ri) {
	return ri->framework_src[0] ? ri->framework_src : ri->framework_why;
}

const char *tc_evidence_id(uint32_t bit) {
	static const char *const n[TC_EVD_COUNT] = {
		"graph-replay", "torch-compile", "pinned-copies", "pageable-copies",
		"dataloader-workers", "xla-jit", "tf-data-prefetch", "host-callbacks",
		"gloo-collectives",
	};
	for (int i = 0; i < TC_EVD_COUNT; i++) {
		if (bit == 1u << i) {
			return n[i];
		}
	}
	return NULL;
}

void tc_finding_add_ops_by_time(struct tc_finding *f, const struct tc_model *m, int64_t *op_ps) {
	while (f->n_ops < TC_FINDING_MAX_ITEMS) {
		size_t best = SIZE_MAX;
		for (size_t op = 0; op < m->n_ops; op++) {
			if (op_ps[op] > 0 && (best == SIZE_MAX || op_ps[op] > op_ps[best])) {
				best = op;
			}
		}
		if (best == SIZE_MAX) {
			break;
		}
		bool dup = false;
		for (size_t j = 0; j < f->n_ops; j++) {
			dup |= f->ops[j] == m->ops[best].name;
		}
		if (!dup) {
			f->ops[f->n_ops++] = m->ops[best].name;
		}
		op_ps[best] = 0;
	}
}

void tc_finding_spread_clause(char *buf, size_t n, size_t over, size_t measured) {
	snprintf(buf, n, "; %zu of %zu devices at or above the moderate band", over, measured);
}

void tc_finding_add_fig(struct tc_finding *f, const char *name, double value, const char *unit) {
	if (f->n_figs < TC_FINDING_MAX_FIGS) {
		f->figs[f->n_figs++] = (struct tc_finding_fig){ name, value, unit };
	}
}
