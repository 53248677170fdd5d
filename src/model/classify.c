/*
 * Op classification for every reader: op kind, step number and canonical
 * category from an op's name and category. Pure: no model, no allocation.
 */
#include <string.h>
#include "model/classify.h"
#include "util/ascii.h"

/* Names are bytes with a length (readers hand out interned strings, xplane
 * reads them in place); every helper here takes (s, n). */

static bool is_digit(char c) {
	return c >= '0' && c <= '9';
}

static bool prefix(const char *s, size_t n, const char *p) {
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

static bool prefix_ci(const char *s, size_t n, const char *p) {
	size_t k = strlen(p);
	if (n < k) {
		return false;
	}
	for (size_t i = 0; i < k; i++) {
		if (tc_ascii_lower(s[i]) != p[i]) {
			return false;
		}
	}
	return true;
}

static bool equal(const char *s, size_t n, const char *lit) {
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static bool contains(const char *s, size_t n, const char *needle) {
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++) {
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) {
			return true;
		}
	}
	return false;
}

/* Digits at s[0..n) up to the first non-digit; false if none. */
static bool leading_int(const char *s, size_t n, int64_t *out) {
	int64_t v = 0;
	size_t i = 0;
	for (; i < n && is_digit(s[i]); i++) {
		if (v > (INT64_MAX - 9) / 10) {
			return false;
		}
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return i > 0;
}

/* ---- categories ---- */

/* Writer spellings -> canonical category. Canonical names are the current
 * Kineto ones, so exported traces stay readable by Kineto tools. */
static const struct {
	const char *alias, *canon;
} cat_alias[] = {
	{ "kernel", "kernel" },
	{ "gpu_memcpy", "gpu_memcpy" },
	{ "memcpy", "gpu_memcpy" },
	{ "gpu_memset", "gpu_memset" },
	{ "memset", "gpu_memset" },
	{ "cuda_runtime", "cuda_runtime" },
	{ "runtime", "cuda_runtime" },
	{ "cuda_driver", "cuda_driver" },
	{ "driver", "cuda_driver" },
	{ "cuda_sync", "cuda_sync" },
	{ "cpu_op", "cpu_op" },
	{ "operator", "cpu_op" },
	{ "user_annotation", "user_annotation" },
	{ "gpu_user_annotation", "gpu_user_annotation" },
	{ "python_function", "python_function" },
	{ "python", "python_function" },
	{ "overhead", "overhead" },
	{ "cpu_instant_event", "cpu_instant_event" },
	{ "mtia_runtime", "mtia_runtime" },
	{ "mtia_ccp_events", "mtia_ccp_events" },
};

static bool equal_ci(const char *s, size_t n, const char *lit) {
	return strlen(lit) == n && prefix_ci(s, n, lit);
}

const char *tc_classify_category(const char *cat, size_t n) {
	if (!cat || n == 0) {
		return NULL;
	}
	for (size_t i = 0; i < sizeof(cat_alias) / sizeof(cat_alias[0]); i++) {
		if (equal_ci(cat, n, cat_alias[i].alias)) {
			return cat_alias[i].canon;
		}
	}
	return NULL;
}

/* ---- name rules ---- */

/* "ProfilerStep#N", "step N", "Step#N", "train_step", TF TraceMe step
 * markers ("train#step_num=N,_r=1#", "StepMarker"). */
bool tc_classify_step(const char *s, size_t n, int64_t *step) {
	*step = -1;
	if (prefix(s, n, "ProfilerStep#")) {
		return leading_int(s + 13, n - 13, step);
	}
	if (prefix(s, n, "step ") || prefix(s, n, "Step ") || prefix(s, n, "step#") ||
			prefix(s, n, "Step#")) {
		return leading_int(s + 5, n - 5, step);
	}
	/* A TraceMe with a step_num in its encoded metadata is a step. */
	const char *h = memchr(s, '#', n);
	if (h) {
		size_t rest = n - (size_t)(h - s);
		for (size_t i = 0; i + 9 <= rest; i++) {
			if (memcmp(h + i, "step_num=", 9) == 0) {
				return leading_int(h + i + 9, rest - i - 9, step);
			}
		}
	}
	/* Bare step scopes: XProf's host step names and the common loop names.
	 * Exact, or followed by a TraceMe '#' or a " N" number. */
	static const char *const words[] = {
		"train_step", "eval_step", "test_step", "train", "test", "TraceContext",
		"StepMarker",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t k = strlen(words[i]);
		if (!prefix(s, n, words[i])) {
			continue;
		}
		if (n == k || s[k] == '#') {
			return true;
		}
		if (s[k] == ' ' && leading_int(s + k + 1, n - k - 1, step)) {
			return true;
		}
	}
	return false;
}

enum tc_op_kind tc_classify_memcpy(const char *s, size_t n) {
	if (tc_ascii_contains_ci(s, n, "htod") || tc_ascii_contains_ci(s, n, "h2d")) {
		return TC_OP_MEMCPY_H2D;
	}
	if (tc_ascii_contains_ci(s, n, "dtoh") || tc_ascii_contains_ci(s, n, "d2h")) {
		return TC_OP_MEMCPY_D2H;
	}
	if (tc_ascii_contains_ci(s, n, "dtod") || tc_ascii_contains_ci(s, n, "d2d")) {
		return TC_OP_MEMCPY_D2D;
	}
	return TC_OP_MEMCPY_OTHER;
}

bool tc_classify_async_done(const char *s, size_t n) {
	/* Drop a ".N" instance suffix, then look for "-done". */
	size_t e = n;
	while (e > 0 && is_digit(s[e - 1])) {
		e--;
	}
	if (e < n && e > 0 && s[e - 1] == '.') {
		n = e - 1;
	}
	return n > 5 && memcmp(s + n - 5, "-done", 5) == 0;
}

bool tc_classify_async_copy(const char *s, size_t n) {
	return prefix(s, n, "copy-start") || prefix(s, n, "copy-done");
}

/* NCCL/RCCL kernels and API ops, c10d and record_param_comms wrappers. */
static bool comm_lib_name(const char *s, size_t n) {
	return prefix_ci(s, n, "nccl") || prefix_ci(s, n, "rccl") || prefix(s, n, "gloo:") ||
		contains(s, n, "ncclKernel") || contains(s, n, "ncclDevKernel") ||
		prefix(s, n, "c10d::") || equal(s, n, "record_param_comms");
}

/* HLO send/recv ops: "send", "send.3", "send-done", "recv-done.1". */
static bool send_recv(const char *s, size_t n) {
	if (!prefix(s, n, "send") && !prefix(s, n, "recv")) {
		return false;
	}
	return n == 4 || s[4] == '.' || s[4] == '-';
}

/* Whether s[0..n), of pairs (tc_ascii_pairs), has word in any case; word
 * is a literal, so its pairs fold to constants here. */
static inline __attribute__((always_inline)) bool has_word(const char *s, size_t n,
		uint64_t pairs, const char *word) {
	return tc_ascii_may_contain(pairs, word, strlen(word)) && tc_ascii_contains_ci(s, n, word);
}

/* XLA collectives, their -start/-done halves and fused variants. Device
 * only: on the host these words name compiler passes. The name's pairs
 * rule most words out without a pass over it each: every distinct device
 * op name and category comes here. */
static bool hlo_collective(const char *s, size_t n) {
	uint64_t p = tc_ascii_pairs(s, n);
	return has_word(s, n, p, "all-reduce") || has_word(s, n, p, "all-gather") ||
		has_word(s, n, p, "reduce-scatter") || has_word(s, n, p, "all-to-all") ||
		has_word(s, n, p, "collective-permute") || has_word(s, n, p, "collective") ||
		has_word(s, n, p, "allreduce") || has_word(s, n, p, "allgather") ||
		has_word(s, n, p, "reducescatter") || has_word(s, n, p, "alltoall") ||
		send_recv(s, n);
}

/* Compilation, not running compiled code: "CompiledFunction",
 * "Torch-Compiled Region", "_is_compiled", "is_compiling" and cuDNN's
 * "engines_precompiled" kernels run or ask, they do not compile; nor does
 * "TorchDynamo Cache Lookup", the guard check on every call of a compiled
 * function. */
/*
 * The function of a Python frame, "path.py(12): func" (Kineto) or
 * "$path.py:12 func" (XPlane's Python tracer); false if s is no frame.
 */
static bool frame_function(const char *s, size_t n, const char **fn, size_t *fl) {
	for (size_t i = 0; i + 3 < n; i++) {
		if (s[i] == ')' && s[i + 1] == ':' && s[i + 2] == ' ' && i > 0 &&
				is_digit(s[i - 1])) {
			*fn = s + i + 3;
			*fl = n - i - 3;
			return true;
		}
	}
	if (n && s[0] == '$') {
		size_t i = n;
		while (i > 1 && s[i - 1] != ' ') {
			i--;
		}
		if (i > 1) {
			*fn = s + i;
			*fl = n - i;
			return true;
		}
	}
	return false;
}

static bool compile_name(const char *s, size_t n) {
	if (tc_ascii_contains_ci(s, n, "cache lookup")) {
		return false;
	}
	/* A Python frame compiles when its function does (Dynamo's _compile,
	 * compile_fx, Triton's compile), not when its file's path says
	 * "compile": torch/_compile.py's inner wraps functions to disable
	 * Dynamo, triton/compiler/compiler.py's launcher runs on every
	 * launch, Inductor's compile_worker reader thread waits on a pipe. */
	const char *fn;
	size_t fl;
	if (frame_function(s, n, &fn, &fl)) {
		return tc_ascii_contains_ci(fn, fl, "compile") &&
			!tc_ascii_contains_ci(fn, fl, "compiled");
	}
	if (prefix(s, n, "torch.compile") || prefix(s, n, "torch._dynamo") ||
			prefix(s, n, "torch._inductor") || prefix(s, n, "TorchDynamo") ||
			prefix(s, n, "Dynamo") || prefix(s, n, "tf.function")) {
		return true;
	}
	if (tc_ascii_contains_ci(s, n, "compiled") || tc_ascii_contains_ci(s, n, "compiling")) {
		return false;
	}
	/* A class named "...Compiler::" is not a compilation by itself: JAX's
	 * "PjRtCApiCompiler::BufferFromHostBuffer(f32[512,1024])" copies a
	 * buffer to the device. */
	for (size_t i = 0; i + 7 <= n; i++) {
		if (tc_ascii_contains_ci(s + i, 7, "compile") &&
				!(i + 10 <= n && s[i + 7] == 'r' && s[i + 8] == ':' && s[i + 9] == ':')) {
			return true;
		}
	}
	return false;
}

/* PyTorch DataLoader, tf.data iterators, TPU infeed, grain. Compiler
 * passes named "infeed-..." or "infeed_..." are not input. */
static bool dataload_name(const char *s, size_t n) {
	if (prefix(s, n, "enumerate(DataLoader)") || prefix(s, n, "DataLoader") ||
			contains(s, n, "DataLoaderIter.__next__") ||
			prefix(s, n, "IteratorGetNext") || prefix(s, n, "MultiDeviceIteratorGetNext") ||
			prefix(s, n, "Iterator::") || prefix(s, n, "Prefetch") ||
			prefix_ci(s, n, "infeedenqueue") || prefix_ci(s, n, "infeeddequeue") ||
			prefix(s, n, "infeed-dequeue") || prefix(s, n, "TransferToInfeed") ||
			prefix(s, n, "grain.") || prefix(s, n, "grain::") || contains(s, n, "grain/")) {
		return true;
	}
	/* The HLO infeed op: "infeed", "infeed.3". */
	return prefix(s, n, "infeed") && (n == 6 || s[6] == '.');
}

/* Host calls that block until the device catches up. */
static bool sync_name(const char *s, size_t n) {
	bool api = prefix(s, n, "cuda") || prefix(s, n, "hip") ||
		(n > 2 && s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z');
	if (api && contains(s, n, "Synchronize")) {
		return true;
	}
	/* Blocking copies: cudaMemcpy, cudaMemcpy2D, hipMemcpyDtoH, not *Async. */
	if ((prefix(s, n, "cudaMemcpy") || prefix(s, n, "hipMemcpy") ||
			prefix(s, n, "cuMemcpy")) && !contains(s, n, "Async")) {
		return true;
	}
	return equal(s, n, "aten::item") || equal(s, n, "aten::_local_scalar_dense") ||
		contains(s, n, "block_until_ready") || contains(s, n, "device_get");
}

/* The profiler's own work: JAX's profiler.py frames, PyTorch's profiler
 * python code and hooks, TF's profiler session. */
static bool overhead_name(const char *s, size_t n) {
	return prefix(s, n, "$profiler.py:") || contains(s, n, "jax/_src/profiler.py") ||
		prefix(s, n, "torch/profiler/profiler.py") ||
		prefix(s, n, "torch/autograd/profiler.py") ||
		contains(s, n, "_kineto_step") || contains(s, n, "_disable_profiler") ||
		contains(s, n, "_enable_profiler") || prefix(s, n, "[profiler]") ||
		prefix(s, n, "ProfilerSession") || equal(s, n, "CUPTI Overhead");
}

static bool runtime_name(const char *s, size_t n) {
	return prefix(s, n, "cuda") || prefix(s, n, "hip") ||
		(n > 2 && s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z');
}

static bool dma_name(const char *s, size_t n) {
	return prefix_ci(s, n, "dma");
}

/* A device op without a device category: by name. */
static enum tc_op_kind device_name_kind(const char *s, size_t n, const char *c, size_t cn) {
	if (tc_ascii_contains_ci(s, n, "memcpy")) {
		return tc_classify_memcpy(s, n);
	}
	if (tc_ascii_contains_ci(s, n, "memset")) {
		return TC_OP_MEMSET;
	}
	if (dma_name(s, n)) {
		return TC_OP_MEMCPY_OTHER;
	}
	/* XLA async copies (hlo_category may name them too). */
	if (tc_classify_async_copy(s, n) || tc_classify_async_copy(c, cn)) {
		return TC_OP_MEMCPY_D2D;
	}
	if (comm_lib_name(s, n) || hlo_collective(s, n) || (cn && hlo_collective(c, cn))) {
		return TC_OP_COLLECTIVE;
	}
	return TC_OP_KERNEL;
}

static enum tc_op_kind device_kind(const char *s, size_t n, const char *c, size_t cn,
		const char *canon, int64_t *step) {
	if (!canon) {
		return device_name_kind(s, n, c, cn);
	}
	if (!strcmp(canon, "kernel") || !strcmp(canon, "mtia_ccp_events")) {
		if (dma_name(s, n)) {
			return TC_OP_MEMCPY_OTHER; /* JSON refines it by its direction arg */
		}
		return comm_lib_name(s, n) ? TC_OP_COLLECTIVE : TC_OP_KERNEL;
	}
	if (!strcmp(canon, "gpu_memcpy")) {
		return tc_classify_memcpy(s, n);
	}
	if (!strcmp(canon, "gpu_memset")) {
		return TC_OP_MEMSET;
	}
	if (!strcmp(canon, "gpu_user_annotation")) {
		/* Kineto projects ProfilerStep#N onto the GPU: the device-side
		 * step window. */
		return tc_classify_step(s, n, step) ? TC_OP_STEP : TC_OP_ANNOTATION;
	}
	return TC_OP_OTHER; /* a host category: the host rules decide */
}

static enum tc_op_kind host_kind(const char *s, size_t n, const char *canon,
		enum tc_op_kind dflt, int64_t *step) {
	if (canon && !strcmp(canon, "overhead")) {
		return TC_OP_OVERHEAD;
	}
	if (canon && !strcmp(canon, "cuda_sync")) {
		return TC_OP_SYNC;
	}
	if (tc_classify_step(s, n, step)) {
		return TC_OP_STEP;
	}
	if (overhead_name(s, n)) {
		return TC_OP_OVERHEAD;
	}
	if (sync_name(s, n)) {
		return TC_OP_SYNC;
	}
	if (compile_name(s, n)) {
		return TC_OP_COMPILE;
	}
	if (dataload_name(s, n)) {
		return TC_OP_DATALOAD;
	}
	if (comm_lib_name(s, n)) {
		return TC_OP_COLLECTIVE;
	}
	if (equal(s, n, "MemoryAllocation") || equal(s, n, "MemoryDeallocation")) {
		return TC_OP_MEMORY;
	}
	if (canon && (!strcmp(canon, "cuda_runtime") || !strcmp(canon, "cuda_driver") ||
			!strcmp(canon, "mtia_runtime"))) {
		return TC_OP_RUNTIME;
	}
	if (canon && !strcmp(canon, "python_function")) {
		return TC_OP_PYTHON;
	}
	if (canon && !strcmp(canon, "cpu_op")) {
		return TC_OP_HOST_OP;
	}
	if (canon && !strcmp(canon, "user_annotation")) {
		return TC_OP_ANNOTATION;
	}
	if (n && s[0] == '$') {
		return TC_OP_PYTHON; /* xplane python tracer frames */
	}
	if (runtime_name(s, n)) {
		return TC_OP_RUNTIME;
	}
	return dflt;
}

void tc_classify(const char *name, size_t n, const char *cat, size_t cn,
		enum tc_place place, enum tc_op_kind host_default, struct tc_class *out) {
	if (!cat) {
		cn = 0;
	}
	const char *canon = tc_classify_category(cat, cn);
	out->category = canon;
	out->step = -1;
	out->async_done = false;
	out->dma = false;
	if (place == TC_PLACE_STEPS) {
		/* Step line events are steps; names are often the number. */
		out->kind = TC_OP_STEP;
		if (!tc_classify_step(name, n, &out->step) || out->step < 0) {
			size_t i = 0;
			while (i < n && is_digit(name[i])) {
				i++;
			}
			int64_t v;
			if (i == n && leading_int(name, n, &v)) {
				out->step = v;
			}
		}
		return;
	}
	/* A device category says where the op ran, whatever line holds it. */
	bool dev_cat = canon && (!strcmp(canon, "kernel") || !strcmp(canon, "gpu_memcpy") ||
		!strcmp(canon, "gpu_memset") || !strcmp(canon, "gpu_user_annotation") ||
		!strcmp(canon, "mtia_ccp_events"));
	if (place == TC_PLACE_DEVICE || dev_cat) {
		out->kind = device_kind(name, n, cat, cn, canon, &out->step);
		out->async_done = tc_classify_async_done(name, n);
		out->dma = out->kind == TC_OP_MEMCPY_OTHER && dma_name(name, n);
		if (out->kind != TC_OP_OTHER) {
			return;
		}
	}
	out->kind = host_kind(name, n, canon, host_default, &out->step);
	if (out->kind != TC_OP_STEP) {
		out->step = -1;
	}
}
