/*
 * Check suite for framework and runtime detection and the advice chosen
 * for them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "analysis/analyze.h"
#include "ingest/ingest.h"
#include "tc_test.h"

/*
 * Framework/runtime detection on small models that carry one stack's
 * names, the advice table's promises (no other stack's API names, nothing
 * the trace shows in use), and detection plus advice on the real traces.
 */

#define US 1000000LL

struct fx {
	struct tc_model *m;
	uint32_t cpu, dev, thread, stream;
};

static struct fx fx_new(const char *dev_name, enum tc_device_kind kind, const char *model) {
	struct fx f;
	f.m = tc_model_create();
	struct tc_model *m = f.m;
	tc_model_add_host(m, tc_model_intern(m, "node0"), TC_NONE);
	f.cpu = tc_model_add_device(m, tc_model_intern(m, "python (pid 1)"), TC_DEV_CPU);
	f.thread = tc_model_add_track(m, f.cpu, tc_model_intern(m, "thread 1"),
		TC_TRACK_HOST_THREAD, 1);
	f.dev = f.stream = TC_NONE;
	if (dev_name) {
		f.dev = tc_model_add_device(m, tc_model_intern(m, dev_name), kind);
		if (model) {
			m->devices[f.dev].model = tc_model_intern(m, model);
		}
		f.stream = tc_model_add_track(m, f.dev, tc_model_intern(m, "stream 7"),
			TC_TRACK_STREAM, 7);
	}
	return f;
}

static uint32_t ev(struct fx *f, uint32_t track, const char *name, enum tc_op_kind kind,
		int64_t start) {
	uint32_t op = tc_model_op(f->m, tc_model_intern(f->m, name), 0, kind);
	return tc_model_add_event(f->m, track, op, start, 10 * US, 0);
}

static void copy(struct fx *f, const char *memory_kind, int64_t start) {
	uint32_t e = ev(f, f->stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, start);
	uint32_t a = tc_model_args_begin(f->m);
	tc_model_arg_str(f->m, f->m->key.memory_kind, tc_model_intern(f->m, memory_kind));
	tc_model_set_event_args(f->m, e, tc_model_args_end(f->m, a));
}

static struct tc_runtime_info detect(struct fx *f) {
	tc_model_finalize(f->m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.threads = 1;
	struct tc_analysis a;
	tc_analyze(f->m, &o, TC_AN_FINDINGS, &a);
	struct tc_runtime_info ri = a.runtime;
	tc_analysis_finish(&a);
	tc_model_destroy(f->m);
	return ri;
}

START_TEST(detect_pytorch_cuda) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, "NVIDIA H100 80GB HBM3");
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 1 * US);
	ev(&f, f.stream, "sm90_xmma_gemm", TC_OP_KERNEL, 2 * US);
	copy(&f, "pinned", 20 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_PYTORCH);
	ck_assert_int_eq(ri.runtime, TC_RT_CUDA);
	ck_assert(ri.evidence & TC_EVD_PINNED);
	ck_assert(!(ri.evidence & (TC_EVD_GRAPHS | TC_EVD_TORCH_COMPILE | TC_EVD_PAGEABLE)));
}
END_TEST

START_TEST(detect_torch_compile_rocm_graphs) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, "AMD Instinct MI300X");
	ev(&f, f.thread, "Torch-Compiled Region: 0/0", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "hipGraphLaunch", TC_OP_RUNTIME, 1 * US);
	ev(&f, f.stream, "triton_poi_fused_add_0", TC_OP_KERNEL, 2 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_TORCH_COMPILE);
	ck_assert_int_eq(ri.runtime, TC_RT_ROCM);
	ck_assert(ri.evidence & TC_EVD_GRAPHS);
	ck_assert(ri.evidence & TC_EVD_TORCH_COMPILE);
}
END_TEST

/* torch._disable_dynamo's wrapper and Dynamo's eval-frame shim run in
 * eager code, Inductor's compile worker waits in a thread: no compile
 * work, so not torch.compile. Dynamo compiling a frame is. */
START_TEST(detect_eager_with_dynamo_frames) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, "NVIDIA H100 80GB HBM3");
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "torch/_compile.py(32): inner", TC_OP_PYTHON, 1 * US);
	ev(&f, f.thread, "torch/_dynamo/eval_frame.py(600): _fn", TC_OP_PYTHON, 2 * US);
	ev(&f, f.thread, "torch/_inductor/compile_worker/subproc_pool.py(180): _read_thread",
		TC_OP_PYTHON, 3 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_PYTORCH);
	ck_assert(!(ri.evidence & TC_EVD_TORCH_COMPILE));
	f = fx_new("GPU 0", TC_DEV_GPU, "NVIDIA H100 80GB HBM3");
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "torch/_dynamo/convert_frame.py(700): _compile", TC_OP_COMPILE, 1 * US);
	ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_TORCH_COMPILE);
}
END_TEST

START_TEST(detect_jax_rocm) {
	struct fx f = fx_new("/device:GPU:0", TC_DEV_GPU, NULL);
	ev(&f, f.thread, "jax/_src/pjit.py:123 _pjit_call_impl", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "hipModuleLaunchKernel", TC_OP_RUNTIME, 1 * US);
	ev(&f, f.stream, "jit_train_step", TC_OP_MODULE, 2 * US);
	ev(&f, f.stream, "Cijk_Ailk_Bljk_BBS_BH_MT128x32x64", TC_OP_KERNEL, 2 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_JAX);
	ck_assert_int_eq(ri.runtime, TC_RT_ROCM);
	ck_assert(ri.evidence & TC_EVD_XLA_JIT);
}
END_TEST

START_TEST(detect_jax_tpu) {
	struct fx f = fx_new("/device:TPU:0", TC_DEV_TPU, "TPU v5 lite");
	ev(&f, f.stream, "jit_step(123)", TC_OP_MODULE, 0);
	ev(&f, f.stream, "fusion.1", TC_OP_KERNEL, 0);
	ev(&f, f.stream, "copy-done", TC_OP_MEMCPY_D2D, 20 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_JAX);
	ck_assert_int_eq(ri.runtime, TC_RT_TPU);
}
END_TEST

START_TEST(detect_tensorflow) {
	struct fx f = fx_new("/device:GPU:0", TC_DEV_GPU, NULL);
	uint32_t t = tc_model_add_track(f.m, f.cpu, tc_model_intern(f.m, "tf_Compute/1"),
		TC_TRACK_HOST_THREAD, 2);
	ev(&f, t, "ExecutorState::Process", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "Iterator::Prefetch", TC_OP_DATALOAD, 0);
	ev(&f, f.stream, "volta_sgemm_128x64_nn", TC_OP_KERNEL, 1 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_TENSORFLOW);
	ck_assert_int_eq(ri.runtime, TC_RT_CUDA);
	ck_assert(ri.evidence & TC_EVD_TF_DATA_PREFETCH);
}
END_TEST

START_TEST(detect_vllm_and_sglang) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, "NVIDIA H100");
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "vllm/worker/model_runner.py(1500): execute_model", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "cudaGraphLaunch", TC_OP_RUNTIME, 1 * US);
	ev(&f, f.stream, "ampere_bf16_gemm", TC_OP_KERNEL, 2 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_VLLM);
	ck_assert_int_eq(ri.runtime, TC_RT_CUDA);
	ck_assert(ri.evidence & TC_EVD_GRAPHS);

	f = fx_new("GPU 0", TC_DEV_GPU, "AMD Instinct MI300X");
	ev(&f, f.thread, "sglang/srt/managers/scheduler.py(800): event_loop", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "hipLaunchKernel", TC_OP_RUNTIME, 1 * US);
	ev(&f, f.stream, "kernel", TC_OP_KERNEL, 2 * US);
	ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_SGLANG);
	ck_assert_int_eq(ri.runtime, TC_RT_ROCM);
}
END_TEST

/* Issue 48 class 6: one vLLM kernel template inside an SGLang run does not
 * make it vLLM; the counts that decided are shown. */
START_TEST(detect_engine_by_weight) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, "NVIDIA H100");
	ev(&f, f.thread, "sglang/srt/managers/scheduler.py(870): event_loop_normal",
		TC_OP_PYTHON, 0);
	ev(&f, f.thread, "sglang/srt/model_executor/model_runner.py(1450): forward",
		TC_OP_PYTHON, 0);
	ev(&f, f.stream, "void vllm::rms_norm_kernel<c10::BFloat16, 8>", TC_OP_KERNEL, 2 * US);
	ev(&f, f.stream, "void vllm::act_and_mul_kernel<c10::BFloat16>", TC_OP_KERNEL, 3 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_SGLANG);
	ck_assert_str_eq(ri.framework_src, "2 sglang python frames, over 2 vllm names");

	/* No frames either side: the names count; a tie names neither. */
	f = fx_new("GPU 0", TC_DEV_GPU, NULL);
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.stream, "void vllm::rms_norm_kernel<float>", TC_OP_KERNEL, 2 * US);
	ev(&f, f.stream, "sglang::moe_align_block_size", TC_OP_KERNEL, 3 * US);
	ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_PYTORCH);
}
END_TEST

/* torch._disable_dynamo's wrappers run in every eager PyTorch 2 program
 * (zero_grad, checkpointing): no torch.compile without its own work. */
START_TEST(detect_eager_despite_dynamo_wrappers) {
	struct fx f = fx_new("GPU 0", TC_DEV_GPU, NULL);
	ev(&f, f.thread, "torch/_compile.py(32): inner", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "torch/_dynamo/eval_frame.py(745): _fn", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "torch/optim/optimizer.py(950): zero_grad", TC_OP_PYTHON, 0);
	ev(&f, f.thread, "aten::zero_", TC_OP_HOST_OP, 0);
	ev(&f, f.stream, "sm90_xmma_gemm", TC_OP_KERNEL, 2 * US);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_PYTORCH);
	ck_assert(!(ri.evidence & TC_EVD_TORCH_COMPILE));

	/* A Dynamo compile frame is compile work (classify makes it TC_OP_COMPILE). */
	f = fx_new("GPU 0", TC_DEV_GPU, NULL);
	ev(&f, f.thread, "aten::mm", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "torch/_dynamo/convert_frame.py(1024): _compile", TC_OP_COMPILE, 0);
	ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_TORCH_COMPILE);
}
END_TEST

START_TEST(detect_cpu_and_unknown) {
	struct fx f = fx_new(NULL, TC_DEV_OTHER, NULL);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 0);
	ev(&f, f.thread, "DataLoader worker 0", TC_OP_DATALOAD, 0);
	struct tc_runtime_info ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_PYTORCH);
	ck_assert_int_eq(ri.runtime, TC_RT_CPU);
	ck_assert(ri.evidence & TC_EVD_LOADER_WORKERS);

	f = fx_new("GPU 0", TC_DEV_GPU, NULL);
	ev(&f, f.stream, "kernel", TC_OP_KERNEL, 0);
	ri = detect(&f);
	ck_assert_int_eq(ri.framework, TC_FW_UNKNOWN);
	ck_assert_int_eq(ri.runtime, TC_RT_GPU);
	ck_assert_ptr_null(ri.framework_why);
}
END_TEST

static bool has_ci(const char *s, const char *w) {
	for (size_t n = strlen(w); *s; s++) {
		if (strncasecmp(s, w, n) == 0) {
			return true;
		}
	}
	return false;
}

static void no_words(const char *text, const char *const *words, const char *what) {
	for (size_t i = 0; words[i]; i++) {
		ck_assert_msg(!has_ci(text, words[i]), "%s advice names '%s': %s", what, words[i], text);
	}
}

static const char *const not_jax[] = {
	"cuda", "torch", "PyTorch", "DataLoader", "pin_memory", "non_blocking", NULL,
};

START_TEST(advice_every_topic_has_text) {
	for (int fw = 0; fw < TC_FW_COUNT; fw++) {
		for (int rt = 0; rt < TC_RT_COUNT; rt++) {
			struct tc_runtime_info ri = { .framework = (uint8_t)fw, .runtime = (uint8_t)rt };
			for (int t = 0; t < TC_ADV_COUNT; t++) {
				const char *s = tc_advice((enum tc_advice_topic)t, &ri);
				ck_assert_msg(s && *s, "no advice for %s %s %s",
					tc_advice_topic_name((enum tc_advice_topic)t),
					tc_framework_id((enum tc_framework)fw), tc_runtime_id((enum tc_runtime)rt));
			}
		}
	}
	ck_assert_str_ne(tc_advice(TC_ADV_INPUT, NULL), "");
}
END_TEST

START_TEST(advice_jax_rocm_and_tpu) {
	static const uint8_t rts[] = { TC_RT_ROCM, TC_RT_TPU };
	for (size_t r = 0; r < sizeof(rts); r++) {
		struct tc_runtime_info ri = { .framework = TC_FW_JAX, .runtime = rts[r],
			.evidence = TC_EVD_XLA_JIT };
		for (int t = 0; t < TC_ADV_COUNT; t++) {
			no_words(tc_advice((enum tc_advice_topic)t, &ri), not_jax,
				tc_advice_topic_name((enum tc_advice_topic)t));
		}
	}
	/* A TPU copy wait is never told to pin memory, whatever the framework. */
	static const char *const tpu_words[] = { "pinned", "pin_memory", "non_blocking", "cuda", NULL };
	for (int fw = 0; fw < TC_FW_COUNT; fw++) {
		if (fw == TC_FW_PYTORCH || fw == TC_FW_TORCH_COMPILE) {
			continue; /* torch_xla is not told apart yet */
		}
		struct tc_runtime_info ri = { .framework = (uint8_t)fw, .runtime = TC_RT_TPU };
		no_words(tc_advice(TC_ADV_TRANSFER, &ri), tpu_words, "tpu transfer");
		no_words(tc_advice(TC_ADV_PAGEABLE_COPIES, &ri), tpu_words, "tpu pageable");
	}
}
END_TEST

START_TEST(advice_rocm_never_cuda_graph) {
	for (int fw = 0; fw < TC_FW_COUNT; fw++) {
		for (uint32_t ev = 0; ev < (1u << TC_EVD_COUNT); ev++) {
			struct tc_runtime_info ri = { .framework = (uint8_t)fw, .runtime = TC_RT_ROCM,
				.evidence = ev };
			for (int t = 0; t < TC_ADV_COUNT; t++) {
				const char *s = tc_advice((enum tc_advice_topic)t, &ri);
				ck_assert_msg(!has_ci(s, "CUDA graph") && !has_ci(s, "cudaHost") &&
					!has_ci(s, "PYTORCH_CUDA"), "ROCm advice names CUDA: %s", s);
			}
		}
	}
}
END_TEST

START_TEST(advice_skips_what_is_in_use) {
	for (int fw = 0; fw < TC_FW_COUNT; fw++) {
		for (int rt = 0; rt < TC_RT_COUNT; rt++) {
			struct tc_runtime_info ri = { .framework = (uint8_t)fw, .runtime = (uint8_t)rt,
				.evidence = TC_EVD_GRAPHS };
			const char *s = tc_advice(TC_ADV_LAUNCH, &ri);
			ck_assert_msg(!has_ci(s, "capture the step") && !has_ci(s, "keep graph capture on"),
				"graphs in use, still told to capture: %s", s);
			ri.evidence = TC_EVD_TORCH_COMPILE;
			for (int t = 0; t < TC_ADV_COUNT; t++) {
				s = tc_advice((enum tc_advice_topic)t, &ri);
				ck_assert_msg(!strstr(s, "torch.compile the") &&
					!strstr(s, "torch.compile fuses") &&
					!strstr(s, "torch.compile(mode"), "compile in use: %s", s);
			}
			ri.evidence = TC_EVD_PINNED;
			s = tc_advice(TC_ADV_TRANSFER, &ri);
			ck_assert_msg(!strstr(s, "pin_memory") && !strstr(s, "pin host"), "pinned: %s", s);
			s = tc_advice(TC_ADV_INPUT, &ri);
			ck_assert_msg(!strstr(s, "pin_memory"), "pinned: %s", s);
		}
	}
	/* Pageable copies beside pinned ones: pinning is still advice. */
	struct tc_runtime_info ri = { .framework = TC_FW_PYTORCH, .runtime = TC_RT_CUDA,
		.evidence = TC_EVD_PINNED | TC_EVD_PAGEABLE };
	ck_assert_ptr_nonnull(strstr(tc_advice(TC_ADV_TRANSFER, &ri), "pin_memory"));
	ri.evidence = TC_EVD_LOADER_WORKERS;
	ck_assert_ptr_nonnull(strstr(tc_advice(TC_ADV_INPUT, &ri), "already in use"));
	ri.framework = TC_FW_TENSORFLOW;
	ri.evidence = TC_EVD_TF_DATA_PREFETCH;
	ck_assert_ptr_nonnull(strstr(tc_advice(TC_ADV_INPUT, &ri), "prefetch is in use"));
}
END_TEST

START_TEST(advice_serving_not_training) {
	static const char *const training[] = {
		"checkpointing", "ZeRO", "FSDP", "DataLoader", "gradient", "rematerialis", NULL,
	};
	static const uint8_t fws[] = { TC_FW_VLLM, TC_FW_SGLANG };
	for (size_t i = 0; i < sizeof(fws); i++) {
		struct tc_runtime_info ri = { .framework = fws[i], .runtime = TC_RT_CUDA };
		no_words(tc_advice(TC_ADV_MEMORY_PRESSURE, &ri), training, "serving memory");
		ck_assert_ptr_nonnull(strstr(tc_advice(TC_ADV_MEMORY_PRESSURE, &ri),
			"gpu_memory_utilization"));
		for (int t = 0; t < TC_ADV_COUNT; t++) {
			no_words(tc_advice((enum tc_advice_topic)t, &ri), training,
				tc_advice_topic_name((enum tc_advice_topic)t));
		}
	}
}
END_TEST

START_TEST(advice_generic_is_neutral) {
	static const char *const stack_words[] = {
		"cuda", "hip", "torch", "DataLoader", "jax", "tf.", "vllm", "sglang", NULL,
	};
	for (int t = 0; t < TC_ADV_COUNT; t++) {
		no_words(tc_advice((enum tc_advice_topic)t, NULL), stack_words, "generic");
	}
}
END_TEST

/* Real traces: what each is known to be (PROVENANCE.md). */
static const struct {
	const char *rel;
	enum tc_framework fw;
	enum tc_runtime rt;
} known[] = {
	{ "xplane/xprof-tpu_inference_2.xplane.pb", TC_FW_JAX, TC_RT_TPU },
	{ "xplane/tracelens-jax08_gemm.xplane.pb", TC_FW_JAX, TC_RT_ROCM },
	{ "xplane/tracelens-jax08_attention.xplane.pb", TC_FW_JAX, TC_RT_ROCM },
	{ "xplane/tracelens-jax_te_fused_attn.xplane.pb", TC_FW_JAX, TC_RT_ROCM },
	{ "xplane/xprof-tf_gpu_multiworker.xplane.pb", TC_FW_TENSORFLOW, TC_RT_GPU },
	{ "json/tracelens/h100-bert-small.json.gz", TC_FW_PYTORCH, TC_RT_CUDA },
	{ "json/tracelens/mi300-torch_compile_triton.json.gz", TC_FW_TORCH_COMPILE, TC_RT_ROCM },
	{ "json/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz", TC_FW_PYTORCH, TC_RT_ROCM },
	{ "json/hta/triton_example__triton_example.json.gz", TC_FW_TORCH_COMPILE, TC_RT_CUDA },
	{ "json/hta/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", TC_FW_PYTORCH, TC_RT_CPU },
};

START_TEST(real_detection) {
	struct tc_model *m = tc_test_load_trace(known[_i].rel);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_msg(a.runtime.framework == known[_i].fw && a.runtime.runtime == known[_i].rt,
		"%s: detected %s on %s", known[_i].rel,
		tc_framework_id((enum tc_framework)a.runtime.framework),
		tc_runtime_id((enum tc_runtime)a.runtime.runtime));
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

START_TEST(real_graph_replay) {
	struct tc_model *m = tc_test_load_trace("json/hta/trace_diff__test__test.json.gz");
	struct tc_runtime_info ri;
	tc_runtime_detect(m, NULL, &ri);
	ck_assert_int_eq(ri.framework, TC_FW_TORCH_COMPILE);
	ck_assert_int_eq(ri.runtime, TC_RT_CUDA);
	ck_assert(ri.evidence & TC_EVD_GRAPHS);
	ck_assert(ri.evidence & TC_EVD_LOADER_WORKERS);
	tc_model_destroy(m);
}
END_TEST

START_TEST(real_tpu_suggestions) {
	struct tc_model *m = tc_test_load_trace("xplane/xprof-tpu_inference_2.xplane.pb");
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	/* Every rule at its lowest bar, so every topic that can fire does. */
	for (int i = 0; i < TC_TH_COUNT; i++) {
		o.th[i] = i == TC_TH_UNOPT_EFFICIENCY ? 100 : i == TC_TH_LAUNCH_DELAY_US ? 1e12 : 0;
	}
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_gt(a.n_findings, 3);
	static const char *const words[] = { "CUDA", "torch", "DataLoader", "pin_memory", NULL };
	for (size_t i = 0; i < a.n_findings; i++) {
		no_words(a.findings[i].suggestion, words, a.findings[i].kind);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("detect");
	tcase_add_test(tc, detect_pytorch_cuda);
	tcase_add_test(tc, detect_torch_compile_rocm_graphs);
	tcase_add_test(tc, detect_eager_with_dynamo_frames);
	tcase_add_test(tc, detect_jax_rocm);
	tcase_add_test(tc, detect_jax_tpu);
	tcase_add_test(tc, detect_tensorflow);
	tcase_add_test(tc, detect_vllm_and_sglang);
	tcase_add_test(tc, detect_engine_by_weight);
	tcase_add_test(tc, detect_eager_despite_dynamo_wrappers);
	tcase_add_test(tc, detect_cpu_and_unknown);
	suite_add_tcase(s, tc);
	TCase *ta = tcase_create("advice");
	tcase_add_test(ta, advice_every_topic_has_text);
	tcase_add_test(ta, advice_jax_rocm_and_tpu);
	tcase_add_test(ta, advice_rocm_never_cuda_graph);
	tcase_add_test(ta, advice_skips_what_is_in_use);
	tcase_add_test(ta, advice_serving_not_training);
	tcase_add_test(ta, advice_generic_is_neutral);
	suite_add_tcase(s, ta);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_add_loop_test(tt, real_detection, 0, (int)(sizeof(known) / sizeof(known[0])));
	tcase_add_test(tt, real_graph_replay);
	tcase_add_test(tt, real_tpu_suggestions);
	suite_add_tcase(s, tt);
	return tc_test_run(s);
}
