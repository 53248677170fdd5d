/*
 * Framework and runtime detection from names only (op table, tracks,
 * devices, device metadata), never from a pass over the events.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include "analysis/analyze.h"
#include "util/ascii.h"

/*
 * Framework and runtime detection. It reads names only: the op table (one
 * entry per distinct op, not per event), track and device names and device
 * metadata, so it costs nothing next to the passes over events. Each
 * signal is a name a framework or runtime writes and the others do not;
 * the table of signals is in docs/analysis.md.
 */

/* A serving engine's evidence: distinct names with its Python frame path
 * ("sglang/srt/…"), and other names (kernel templates, threads). */
struct engine {
	unsigned frames, names;
};

struct scan {
	/* framework signals */
	unsigned jax, tf, torch, compile;
	const char *jax_why, *tf_why, *torch_why, *compile_why;
	struct engine vllm, sglang;
	/* runtime signals */
	unsigned cuda, rocm, tpu, accel;
	const char *cuda_why, *rocm_why, *tpu_why, *accel_why;
	bool gpu_device, device_work;
	bool gpu_placed; /* ops placed on a GPU, traced on the host only */
	uint32_t evidence;
};

/* The first byte in line: most names fail on it, without a call. */
static inline __attribute__((always_inline)) bool prefix(const char *s, const char *p) {
	return s[0] == p[0] && strncmp(s, p, strlen(p)) == 0;
}

static bool has(const char *s, const char *needle) {
	return strstr(s, needle) != NULL;
}

/* has() and has_ci() in a name of pairs (tc_ascii_pairs): needle is a
 * literal, so its pairs fold to constants where this is inlined, and
 * most of the forty searches per op name end on one test. */
static inline __attribute__((always_inline)) bool has_p(const char *s, uint64_t pairs,
		const char *needle) {
	return tc_ascii_may_contain(pairs, needle, strlen(needle)) && has(s, needle);
}

static bool has_ci(const char *s, const char *needle) {
	size_t n = strlen(needle);
	for (; *s; s++) {
		if ((*s | 0x20) == (needle[0] | 0x20) && strncasecmp(s, needle, n) == 0) {
			return true;
		}
	}
	return false;
}

static inline __attribute__((always_inline)) bool has_ci_p(const char *s, uint64_t pairs,
		const char *needle) {
	return tc_ascii_may_contain(pairs, needle, strlen(needle)) && has_ci(s, needle);
}

static void hit(unsigned *count, const char **why, const char *what) {
	if (!(*count)++) {
		*why = what;
	}
}

/* A name of a serving engine: its Python frames ("vllm/…") weigh more
 * than its other names, since engines share kernels (SGLang runs vLLM's
 * `vllm::` kernel templates). */
static inline __attribute__((always_inline)) void scan_engine(struct engine *e,
		const char *n, uint64_t pairs, const char *frame, const char *word) {
	if (has_p(n, pairs, frame)) {
		e->frames++;
	} else if (has_ci_p(n, pairs, word)) {
		e->names++;
	}
}

/* torch.compile's own work, never the wrappers every PyTorch program
 * runs through: torch._disable_dynamo's `torch/_compile.py: inner` and
 * `torch/_dynamo/eval_frame.py: _fn` wrap zero_grad, checkpointing and
 * DDP hooks in eager programs, and Inductor's compile worker waits on a
 * pipe in `torch/_inductor/...: _read_thread` (issue 48, classes 1 and
 * 6). Dynamo's and Inductor's frames tell only where they compile
 * (compile_op: n is an op classified as compilation). */
static bool compile_name(const char *n, uint64_t pairs, bool compile_op) {
	return prefix(n, "triton_poi_") || prefix(n, "triton_red_") || prefix(n, "triton_per_") ||
		prefix(n, "triton_tem_") || prefix(n, "triton__") ||
		prefix(n, "Torch-Compiled Region") || prefix(n, "CompiledFunction") ||
		has_p(n, pairs, "CompiledFxGraph") || has_p(n, pairs, "TorchDynamo") ||
		(compile_op && (has_p(n, pairs, "torch/_dynamo") || has_p(n, pairs, "torch/_inductor") ||
			has_p(n, pairs, "compile_fx")));
}

/* Names that any kind of record may carry: ops, tracks. compile_op: n
 * is an op classified as compilation. */
static void scan_name(struct scan *s, const char *n, uint64_t pairs, bool compile_op) {
	scan_engine(&s->vllm, n, pairs, "vllm/", "vllm");
	scan_engine(&s->sglang, n, pairs, "sglang/", "sglang");
	if (has_p(n, pairs, "jax/_src") || has_p(n, pairs, "jaxlib") ||
			has_p(n, pairs, "trace_to_jaxpr") || has_p(n, pairs, "PjitFunction") ||
			has_p(n, pairs, "jax.Array")) {
		hit(&s->jax, &s->jax_why, "jax python frames");
	}
	if (prefix(n, "tf_Compute") || prefix(n, "tf_data_") || has_p(n, pairs, "tensorflow::") ||
			prefix(n, "ExecutorState::") || has_p(n, pairs, "tensorflow/python")) {
		hit(&s->tf, &s->tf_why, "TensorFlow executor names");
	}
	if (prefix(n, "aten::") || prefix(n, "autograd::") || prefix(n, "ProfilerStep#") ||
			prefix(n, "torch/") || has_p(n, pairs, "/torch/") || prefix(n, "c10d::") ||
			prefix(n, "nccl:") || prefix(n, "record_param_comms")) {
		hit(&s->torch, &s->torch_why, "aten:: ops / torch frames");
	}
	if (compile_name(n, pairs, compile_op)) {
		hit(&s->compile, &s->compile_why, "Inductor/Triton kernels, compiled regions");
		s->evidence |= TC_EVD_TORCH_COMPILE;
	}
	if (prefix(n, "cudaGraphLaunch") || prefix(n, "cuGraphLaunch") ||
			prefix(n, "hipGraphLaunch") || has_p(n, pairs, "CUDAGraphRunner") ||
			has_p(n, pairs, "torch/cuda/graphs.py") || has_p(n, pairs, "CUDAGraph.replay")) {
		s->evidence |= TC_EVD_GRAPHS;
	}
	if (has_p(n, pairs, "_MultiProcessingDataLoaderIter") || prefix(n, "pt_data_worker") ||
			has_p(n, pairs, "DataLoader worker")) {
		s->evidence |= TC_EVD_LOADER_WORKERS;
	}
	if (prefix(n, "Iterator::Prefetch") || has_p(n, pairs, "PrefetchDataset")) {
		s->evidence |= TC_EVD_TF_DATA_PREFETCH;
	}
	if (prefix(n, "py_xla_callback") || has_p(n, pairs, "pure_callback") ||
			has_p(n, pairs, "io_callback") || has_p(n, pairs, "host_callback")) {
		s->evidence |= TC_EVD_HOST_CALLBACKS;
	}
	/* Runtime API calls: cudaLaunchKernel / cuLaunchKernel vs hipLaunchKernel. */
	if (prefix(n, "cuda") && isupper((unsigned char)n[4])) {
		hit(&s->cuda, &s->cuda_why, "CUDA runtime calls");
	} else if (prefix(n, "cu") && isupper((unsigned char)n[2]) && n[3] &&
			islower((unsigned char)n[3])) {
		hit(&s->cuda, &s->cuda_why, "CUDA driver calls");
	} else if (prefix(n, "hip") && isupper((unsigned char)n[3])) {
		hit(&s->rocm, &s->rocm_why, "HIP runtime calls");
	}
}

/* Names of device work: kernels that only one vendor's libraries emit. */
static void scan_kernel(struct scan *s, const char *n, uint64_t pairs) {
	size_t len = strlen(n);
	if (prefix(n, "Cijk_") || prefix(n, "__amd_rocclr") ||
			(len > 3 && strcmp(n + len - 3, ".kd") == 0)) {
		hit(&s->rocm, &s->rocm_why, "ROCm kernels (Tensile, .kd code objects)");
	} else if (has_p(n, pairs, "volta_") || has_p(n, pairs, "ampere_") ||
			has_p(n, pairs, "sm80_") || has_p(n, pairs, "sm90_") ||
			has_p(n, pairs, "cutlass") || prefix(n, "nvjet")) {
		hit(&s->cuda, &s->cuda_why, "NVIDIA kernels (cuBLAS/CUTLASS)");
	}
}

static void scan_device(struct scan *s, const struct tc_model *m, const struct tc_device *d) {
	const char *name = tc_model_str(m, d->name);
	/* TensorFlow's full device names (a TF 1.x timeline's executor rows). */
	if (prefix(name, "/job:") && has(name, "/replica:") && has(name, "/device:")) {
		hit(&s->tf, &s->tf_why, "TensorFlow device names (/job:…/device:…)");
		s->gpu_placed |= d->kind == TC_DEV_CPU && has(name, "/device:GPU:");
	}
	const char *model = d->model ? tc_model_str(m, d->model) : "";
	const char *vendor = d->vendor ? tc_model_str(m, d->vendor) : "";
	if (d->kind == TC_DEV_TPU || has(name, "TPU") || has(model, "TPU")) {
		hit(&s->tpu, &s->tpu_why, "TPU devices");
		return;
	}
	if (has_ci(model, "NVIDIA") || has_ci(vendor, "NVIDIA")) {
		hit(&s->cuda, &s->cuda_why, "NVIDIA device model");
	} else if (has(model, "AMD") || has(model, "Instinct") || has(model, "gfx") ||
			has_ci(vendor, "AMD")) {
		hit(&s->rocm, &s->rocm_why, "AMD device model");
	}
	if (d->kind == TC_DEV_GPU) {
		s->gpu_device = true;
	} else if (d->kind == TC_DEV_ACCEL || has_ci(name, "mtia")) {
		hit(&s->accel, &s->accel_why, "accelerator devices");
	}
}

/* 1: vLLM, -1: SGLang, 0: neither. Python frames decide, then other
 * names; a tie names neither (the trace does not say which). */
static int engine_pick(const struct engine *v, const struct engine *g) {
	if (v->frames != g->frames) {
		return v->frames > g->frames ? 1 : -1;
	}
	if (v->names != g->names) {
		return v->names > g->names ? 1 : -1;
	}
	return 0;
}

static void engine_part(char *buf, size_t n, const struct engine *e, const char *word) {
	const char *fs = e->frames == 1 ? "" : "s", *ns = e->names == 1 ? "" : "s";
	if (e->frames && e->names) {
		snprintf(buf, n, "%u %s python frame%s and %u name%s", e->frames, word, fs,
			e->names, ns);
	} else if (e->frames) {
		snprintf(buf, n, "%u %s python frame%s", e->frames, word, fs);
	} else {
		snprintf(buf, n, "%u %s name%s", e->names, word, ns);
	}
}

/* The evidence shown with the engine: its own and, where the other engine
 * left names too, both counts. */
static void engine_why(struct tc_runtime_info *ri, const struct engine *win, const char *ww,
		const struct engine *lose, const char *lw) {
	char a[64], b[64];
	engine_part(a, sizeof(a), win, ww);
	if (!lose->frames && !lose->names) {
		snprintf(ri->framework_src, sizeof(ri->framework_src), "%s", a);
		return;
	}
	engine_part(b, sizeof(b), lose, lw);
	snprintf(ri->framework_src, sizeof(ri->framework_src), "%s, over %s", a, b);
}

void tc_runtime_detect(const struct tc_model *m, const struct tc_analysis *a,
		struct tc_runtime_info *ri) {
	struct scan s = { 0 };
	for (size_t i = 0; i < m->n_ops; i++) {
		const struct tc_op *op = &m->ops[i];
		const char *n = tc_model_str(m, op->name);
		uint64_t pairs = tc_ascii_pairs(n, strlen(n));
		scan_name(&s, n, pairs, op->kind == TC_OP_COMPILE);
		if (op->kind == TC_OP_KERNEL || op->kind == TC_OP_COLLECTIVE) {
			scan_kernel(&s, n, pairs);
		}
		if (op->kind == TC_OP_COLLECTIVE && prefix(n, "gloo:")) {
			s.evidence |= TC_EVD_GLOO;
		}
		/* XLA programs: jit_<fn> modules (xplane, JAX JSON). */
		if (op->kind == TC_OP_MODULE || (prefix(n, "jit_") && has(n, "XLA"))) {
			s.evidence |= TC_EVD_XLA_JIT;
			if (prefix(n, "jit_")) {
				hit(&s.jax, &s.jax_why, "jit_* XLA modules");
			}
		}
	}
	for (size_t i = 0; i < m->n_tracks; i++) {
		const char *n = tc_model_str(m, m->tracks[i].name);
		scan_name(&s, n, tc_ascii_pairs(n, strlen(n)), false);
	}
	for (size_t i = 0; i < m->n_devices; i++) {
		scan_device(&s, m, &m->devices[i]);
	}
	for (size_t k = 0; a && k < a->n_util; k++) {
		uint32_t d = a->util[k].device;
		if (a->util[k].busy_ps > 0 && d < m->n_devices && m->devices[d].kind != TC_DEV_CPU) {
			s.device_work = true;
		}
	}
	if (a) {
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			s.evidence |= a->xfer[d].n_pinned ? TC_EVD_PINNED : 0;
			s.evidence |= a->xfer[d].n_pageable ? TC_EVD_PAGEABLE : 0;
		}
	}

	*ri = (struct tc_runtime_info){ .evidence = s.evidence };
	/* Serving engines first: they run PyTorch underneath. JAX before
	 * TensorFlow: JAX's runtime shares TSL thread and op names with TF. */
	int eng = engine_pick(&s.vllm, &s.sglang);
	if (eng) {
		ri->framework = eng > 0 ? TC_FW_VLLM : TC_FW_SGLANG;
		engine_why(ri, eng > 0 ? &s.vllm : &s.sglang, eng > 0 ? "vllm" : "sglang",
			eng > 0 ? &s.sglang : &s.vllm, eng > 0 ? "sglang" : "vllm");
	} else if (s.jax) {
		ri->framework = TC_FW_JAX;
		ri->framework_why = s.jax_why;
	} else if (s.compile) {
		ri->framework = TC_FW_TORCH_COMPILE;
		ri->framework_why = s.compile_why;
	} else if (s.torch) {
		ri->framework = TC_FW_PYTORCH;
		ri->framework_why = s.torch_why;
	} else if (s.tf) {
		ri->framework = TC_FW_TENSORFLOW;
		ri->framework_why = s.tf_why;
	}

	if (s.tpu) {
		ri->runtime = TC_RT_TPU;
		ri->runtime_why = s.tpu_why;
	} else if (s.rocm > s.cuda) {
		ri->runtime = TC_RT_ROCM;
		ri->runtime_why = s.rocm_why;
	} else if (s.cuda) {
		ri->runtime = TC_RT_CUDA;
		ri->runtime_why = s.cuda_why;
	} else if (s.accel) {
		ri->runtime = TC_RT_ACCEL;
		ri->runtime_why = s.accel_why;
	} else if (s.gpu_device) {
		ri->runtime = TC_RT_GPU;
		ri->runtime_why = "GPU devices without vendor or runtime names";
	} else if (s.gpu_placed && !s.device_work) {
		ri->runtime = TC_RT_GPU;
		ri->runtime_why = "ops placed on a GPU; no device timeline in the trace";
	} else if (m->n_devices && !s.device_work) {
		ri->runtime = TC_RT_CPU;
		ri->runtime_why = "no device work";
	}
}
