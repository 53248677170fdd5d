/*
 * Check suite for op classification: the name table, categories, host
 * flags, the same ops across formats, and category shares on real traces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "ingest/ingest.h"
#include "model/classify.h"
#include "tc_test.h"

/* ---- the rules, one table row per name ---- */

struct row {
	const char *name, *cat;
	enum tc_place place;
	enum tc_op_kind kind;
	int64_t step;        /* expected step number, -1 none */
	const char *canon;   /* expected canonical category, NULL none */
};

#define H TC_PLACE_HOST
#define D TC_PLACE_DEVICE

static const struct row rows[] = {
	/* steps */
	{ "ProfilerStep#12", "user_annotation", H, TC_OP_STEP, 12, "user_annotation" },
	{ "ProfilerStep#3", "gpu_user_annotation", D, TC_OP_STEP, 3, "gpu_user_annotation" },
	{ "step 7", NULL, H, TC_OP_STEP, 7, NULL },
	{ "Step 8", NULL, H, TC_OP_STEP, 8, NULL },
	{ "Step#9", "cpu_op", H, TC_OP_STEP, 9, "cpu_op" },
	{ "train_step", NULL, H, TC_OP_STEP, -1, NULL },
	{ "train_step 4", "user_annotation", H, TC_OP_STEP, 4, "user_annotation" },
	{ "train#step_num=5,_r=1#", NULL, H, TC_OP_STEP, 5, NULL },
	{ "TraceContext", NULL, H, TC_OP_STEP, -1, NULL },
	{ "StepMarker", NULL, H, TC_OP_STEP, -1, NULL },
	{ "17", NULL, TC_PLACE_STEPS, TC_OP_STEP, 17, NULL },
	{ "training_loop", NULL, H, TC_OP_HOST_OP, -1, NULL },
	{ "stepper", "cpu_op", H, TC_OP_HOST_OP, -1, "cpu_op" },
	/* collectives */
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", D, TC_OP_COLLECTIVE, -1, "kernel" },
	{ "ncclKernel_AllGather_RING_LL_Sum_int8_t", "Kernel", D, TC_OP_COLLECTIVE, -1, "kernel" },
	{ "rcclKernel_x", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "nccl:all_reduce", "cpu_op", H, TC_OP_COLLECTIVE, -1, "cpu_op" },
	{ "record_param_comms", "cpu_op", H, TC_OP_COLLECTIVE, -1, "cpu_op" },
	{ "c10d::allreduce_", "cpu_op", H, TC_OP_COLLECTIVE, -1, "cpu_op" },
	{ "all-reduce.3", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "all-gather-start.1", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "reduce-scatter-done", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "all-to-all.2", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "collective-permute-start", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "send.1", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "recv-done.2", NULL, D, TC_OP_COLLECTIVE, -1, NULL },
	{ "async-collective-fusion", NULL, H, TC_OP_HOST_OP, -1, NULL },
	/* copies and memsets */
	{ "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", D, TC_OP_MEMCPY_H2D, -1, "gpu_memcpy" },
	{ "Memcpy DtoH", "Memcpy", D, TC_OP_MEMCPY_D2H, -1, "gpu_memcpy" },
	{ "Memcpy DtoD", "Memcpy", D, TC_OP_MEMCPY_D2D, -1, "gpu_memcpy" },
	{ "Memcpy PtoP", "gpu_memcpy", D, TC_OP_MEMCPY_OTHER, -1, "gpu_memcpy" },
	{ "memcpy_h2d", NULL, D, TC_OP_MEMCPY_H2D, -1, NULL },
	{ "copy-start.4", NULL, D, TC_OP_MEMCPY_D2D, -1, NULL },
	{ "copy.2", NULL, D, TC_OP_KERNEL, -1, NULL },
	{ "dma_request", "mtia_ccp_events", D, TC_OP_MEMCPY_OTHER, -1, "mtia_ccp_events" },
	{ "Memset (Device)", "Memset", D, TC_OP_MEMSET, -1, "gpu_memset" },
	{ "hipMemsetAsync", NULL, H, TC_OP_RUNTIME, -1, NULL },
	{ "gloo:all_reduce", "user_annotation", H, TC_OP_COLLECTIVE, -1, "user_annotation" },
	/* compilation */
	{ "backend_compile", NULL, H, TC_OP_COMPILE, -1, NULL },
	{ "XlaCompile", NULL, H, TC_OP_COMPILE, -1, NULL },
	{ "TfrtTpuCompiler::Compile", NULL, H, TC_OP_COMPILE, -1, NULL },
	{ "PjRtCApiClient::CompileAndLoad(jit_step)", NULL, H, TC_OP_COMPILE, -1, NULL },
	/* a method of a compiler class, not a compilation */
	{ "PjRtCApiCompiler::BufferFromHostBuffer(f32[512,1024])", NULL, H, TC_OP_HOST_OP, -1, NULL },
	{ "torch._dynamo.convert_frame", "cpu_op", H, TC_OP_COMPILE, -1, "cpu_op" },
	{ "torch._inductor.compile_fx.compile_fx_inner", "user_annotation", H,
		TC_OP_COMPILE, -1, "user_annotation" },
	{ "TorchDynamo Cache Lookup", "user_annotation", H, TC_OP_ANNOTATION, -1, "user_annotation" }, /* a guard check per call */
	{ "tf.function tracing", NULL, H, TC_OP_COMPILE, -1, NULL },
	{ "CompiledFunction", "cpu_op", H, TC_OP_HOST_OP, -1, "cpu_op" },
	{ "Torch-Compiled Region: 0/0", "cpu_op", H, TC_OP_HOST_OP, -1, "cpu_op" },
	{ "torch/compiler/__init__.py(56): is_compiling", "python_function", H,
		TC_OP_PYTHON, -1, "python_function" },
	/* a Python frame compiles when its function does, whatever its file */
	{ "torch/_compile.py(32): inner", "python_function", H, TC_OP_PYTHON, -1,
		"python_function" },
	{ "triton/compiler/compiler.py(480): launch_metadata", "python_function", H,
		TC_OP_PYTHON, -1, "python_function" },
	{ "torch/_inductor/compile_worker/subproc_pool.py(180): _read_thread",
		"python_function", H, TC_OP_PYTHON, -1, "python_function" },
	{ "torch/_dynamo/convert_frame.py(700): _compile", "python_function", H,
		TC_OP_COMPILE, -1, "python_function" },
	{ "torch/_inductor/compile_fx.py(1200): compile_fx", "python_function", H,
		TC_OP_COMPILE, -1, "python_function" },
	{ "triton/compiler/compiler.py(230): compile", "python_function", H, TC_OP_COMPILE,
		-1, "python_function" },
	{ "$jax/_src/compiler.py:300 compile_or_get_cached", NULL, H, TC_OP_COMPILE, -1, NULL },
	{ "$triton/compiler/compiler.py:480 launch_metadata", NULL, H, TC_OP_PYTHON, -1, NULL },
	/* data loading */
	{ "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "user_annotation", H,
		TC_OP_DATALOAD, -1, "user_annotation" },
	{ "IteratorGetNext", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "IteratorGetNextAsOptional_1:IteratorGetNextAsOptional", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "Iterator::Prefetch::Generator", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "InfeedEnqueueTuple", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "infeed-dequeue", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "infeed.3", NULL, H, TC_OP_DATALOAD, -1, NULL },
	{ "infeed-decomposer", NULL, H, TC_OP_HOST_OP, -1, NULL },
	{ "grain.python.DataLoader", NULL, H, TC_OP_DATALOAD, -1, NULL },
	/* host synchronisation */
	{ "cudaDeviceSynchronize", "cuda_runtime", H, TC_OP_SYNC, -1, "cuda_runtime" },
	{ "cudaStreamSynchronize", "Runtime", H, TC_OP_SYNC, -1, "cuda_runtime" },
	{ "cudaEventSynchronize", NULL, H, TC_OP_SYNC, -1, NULL },
	{ "hipStreamSynchronize", NULL, H, TC_OP_SYNC, -1, NULL },
	{ "cudaMemcpy", "cuda_runtime", H, TC_OP_SYNC, -1, "cuda_runtime" },
	{ "hipMemcpy", NULL, H, TC_OP_SYNC, -1, NULL },
	{ "cudaMemcpyAsync", "cuda_runtime", H, TC_OP_RUNTIME, -1, "cuda_runtime" },
	{ "hipMemcpyHtoDAsync", NULL, H, TC_OP_RUNTIME, -1, NULL },
	{ "cudaLaunchKernel", "cuda_runtime", H, TC_OP_RUNTIME, -1, "cuda_runtime" },
	{ "cuLaunchKernel", "cuda_driver", H, TC_OP_RUNTIME, -1, "cuda_driver" },
	{ "aten::item", "cpu_op", H, TC_OP_SYNC, -1, "cpu_op" },
	{ "aten::_local_scalar_dense", "Operator", H, TC_OP_SYNC, -1, "cpu_op" },
	{ "$api.py:2990 block_until_ready", NULL, H, TC_OP_SYNC, -1, NULL },
	{ "$api.py:3012 device_get", NULL, H, TC_OP_SYNC, -1, NULL },
	{ "cudaEventRecord", "cuda_sync", H, TC_OP_SYNC, -1, "cuda_sync" },
	/* profiler overhead */
	{ "$profiler.py:112 start_trace", NULL, H, TC_OP_OVERHEAD, -1, NULL },
	{ "$profiler.py:180 stop_trace", NULL, H, TC_OP_OVERHEAD, -1, NULL },
	{ "torch/profiler/profiler.py(723): step", "python_function", H,
		TC_OP_OVERHEAD, -1, "python_function" },
	{ "<built-in method _kineto_step of PyCapsule object at 0x7f>", "python_function", H,
		TC_OP_OVERHEAD, -1, "python_function" },
	{ "CUPTI Overhead", "overhead", H, TC_OP_OVERHEAD, -1, "overhead" },
	{ "Buffer flush", "Overhead", H, TC_OP_OVERHEAD, -1, "overhead" },
	{ "ProfilerSession::Start", NULL, H, TC_OP_OVERHEAD, -1, NULL },
	/* the rest */
	{ "volta_sgemm_128x64_nn", "Kernel", D, TC_OP_KERNEL, -1, "kernel" },
	{ "fusion.12", "loop fusion", D, TC_OP_KERNEL, -1, NULL },
	{ "aten::mm", "Operator", H, TC_OP_HOST_OP, -1, "cpu_op" },
	{ "forward", "user_annotation", H, TC_OP_ANNOTATION, -1, "user_annotation" },
	{ "$train.py:10 step", NULL, H, TC_OP_PYTHON, -1, NULL },
	{ "nn.Module: Linear", "python_function", H, TC_OP_PYTHON, -1, "python_function" },
	{ "MemoryAllocation", NULL, H, TC_OP_MEMORY, -1, NULL },
	{ "PyTorch Profiler (0)", "Trace", H, TC_OP_HOST_OP, -1, NULL },
};

START_TEST(name_table) {
	const struct row *r = &rows[_i];
	struct tc_class k;
	tc_classify(r->name, strlen(r->name), r->cat, r->cat ? strlen(r->cat) : 0, r->place,
		TC_OP_HOST_OP, &k);
	ck_assert_msg(k.kind == r->kind, "%s: kind %s, want %s", r->name,
		tc_op_kind_name(k.kind), tc_op_kind_name(r->kind));
	ck_assert_msg(k.step == r->step, "%s: step %lld, want %lld", r->name,
		(long long)k.step, (long long)r->step);
	if (r->canon) {
		ck_assert_msg(k.category && strcmp(k.category, r->canon) == 0, "%s: category %s",
			r->name, k.category ? k.category : "(null)");
	} else {
		ck_assert_msg(!k.category, "%s: category %s", r->name, k.category);
	}
}
END_TEST

START_TEST(categories) {
	static const char *const same[][2] = {
		{ "Kernel", "kernel" }, { "KERNEL", "kernel" }, { "Memcpy", "gpu_memcpy" },
		{ "gpu_memcpy", "gpu_memcpy" }, { "Memset", "gpu_memset" },
		{ "Runtime", "cuda_runtime" }, { "cuda_runtime", "cuda_runtime" },
		{ "Operator", "cpu_op" }, { "Overhead", "overhead" },
		{ "python_function", "python_function" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *c = tc_classify_category(same[i][0], strlen(same[i][0]));
		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c, same[i][1]);
	}
	ck_assert_ptr_null(tc_classify_category("convolution", 11));
	ck_assert_ptr_null(tc_classify_category("", 0));
	ck_assert_ptr_null(tc_classify_category(NULL, 0));
}
END_TEST

START_TEST(host_default_and_flags) {
	struct tc_class k;
	tc_classify("my scope", 8, NULL, 0, TC_PLACE_HOST, TC_OP_ANNOTATION, &k);
	ck_assert_int_eq(k.kind, TC_OP_ANNOTATION);
	tc_classify("my scope", 8, "ipc", 3, TC_PLACE_HOST, TC_OP_OTHER, &k);
	ck_assert_int_eq(k.kind, TC_OP_OTHER);
	tc_classify("all-reduce-done.3", 17, NULL, 0, TC_PLACE_DEVICE, TC_OP_OTHER, &k);
	ck_assert(k.async_done);
	tc_classify("all-reduce-start.3", 18, NULL, 0, TC_PLACE_DEVICE, TC_OP_OTHER, &k);
	ck_assert(!k.async_done);
	tc_classify("dma_request", 11, "kernel", 6, TC_PLACE_DEVICE, TC_OP_OTHER, &k);
	ck_assert(k.dma);
	/* A device category classifies as device work wherever it lies. */
	tc_classify("volta_sgemm", 11, "kernel", 6, TC_PLACE_HOST, TC_OP_OTHER, &k);
	ck_assert_int_eq(k.kind, TC_OP_KERNEL);
	/* Names are not NUL-terminated. */
	tc_classify("ProfilerStep#42xyz", 15, NULL, 0, TC_PLACE_HOST, TC_OP_OTHER, &k);
	ck_assert_int_eq(k.step, 42);
	ck_assert_int_eq(tc_classify_memcpy("Memcpy HtoD", 11), TC_OP_MEMCPY_H2D);
	ck_assert_int_eq(tc_classify_memcpy("Memcpy", 6), TC_OP_MEMCPY_OTHER);
}
END_TEST

/* ---- one logical trace, three formats (fixtures/cross/make.py) ---- */

START_TEST(cross_format) {
	const char *paths[3] = {
		tc_test_build("fixtures/xplane-cross.xplane.pb"),
		tc_test_build("fixtures/perfetto/cross.pb"),
		tc_test_src("fixtures/json/cross.json"),
	};
	char *own[3];
	struct tc_model *m[3];
	struct tc_analysis a[3];
	struct tc_op_table t[3];
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	for (int i = 0; i < 3; i++) {
		own[i] = strdup(paths[i]); /* tc_test_* return a static buffer */
	}
	for (int i = 0; i < 3; i++) {
		m[i] = tc_test_load(own[i]);
		tc_analyze(m[i], &o, TC_AN_FINDINGS, &a[i]);
		ck_assert(tc_test_op_table(m[i], &o, "category", &t[i]));
	}
	ck_assert_uint_eq(a[0].n_steps, 3);
	ck_assert_int_eq(a[0].steps[0].num, 1);
	ck_assert_uint_gt(a[0].cat_total_ps[TC_BD_COLLECTIVE], 0);
	ck_assert_uint_gt(a[0].cat_total_ps[TC_BD_INPUT], 0);
	ck_assert_uint_gt(a[0].cat_total_ps[TC_BD_COMPILE], 0);
	ck_assert_uint_gt(a[0].cat_total_ps[TC_BD_H2D], 0);
	/* One row per device-work category (model/devcat.h), alike in all three. */
	ck_assert_uint_eq(t[0].n, 4);
	ck_assert_str_eq(t[0].rows[1].label, "GEMM");
	for (int i = 1; i < 3; i++) {
		const char *w = own[i];
		ck_assert_uint_eq(a[i].n_steps, a[0].n_steps);
		for (size_t s = 0; s < a[0].n_steps; s++) {
			ck_assert_int_eq(a[i].steps[s].num, a[0].steps[s].num);
		}
		for (int c = 0; c < TC_BD_COUNT; c++) {
			ck_assert_msg(a[i].cat_total_ps[c] == a[0].cat_total_ps[c], "%s: %s %lld vs %lld",
				w, tc_bd_cat_name(c), (long long)a[i].cat_total_ps[c],
				(long long)a[0].cat_total_ps[c]);
		}
		ck_assert_uint_eq(a[i].n_findings, a[0].n_findings);
		for (size_t f = 0; f < a[0].n_findings; f++) {
			ck_assert_str_eq(a[i].findings[f].kind, a[0].findings[f].kind);
			ck_assert_int_eq(a[i].findings[f].severity, a[0].findings[f].severity);
			ck_assert(fabs(a[i].findings[f].value - a[0].findings[f].value) < 1e-9);
		}
		ck_assert_uint_eq(t[i].n, t[0].n);
		for (size_t r = 0; r < t[0].n; r++) {
			const struct tc_op_row *x = &t[i].rows[r], *y = &t[0].rows[r];
			ck_assert_str_eq(tc_model_str(m[i], x->name), tc_model_str(m[0], y->name));
			ck_assert_str_eq(x->label ? x->label : "", y->label ? y->label : "");
			ck_assert_uint_eq(x->count, y->count);
			ck_assert_int_eq(x->total_ps, y->total_ps);
			ck_assert_int_eq(x->self_ps, y->self_ps);
			ck_assert(fabs(x->share - y->share) < 1e-12);
		}
	}
	for (int i = 0; i < 3; i++) {
		tc_op_table_finish(&t[i]);
		tc_analysis_finish(&a[i]);
		tc_model_destroy(m[i]);
		free(own[i]);
	}
}
END_TEST

/* ---- real Kineto traces (skipped when ../shared/traces is absent) ---- */

static const char *const kineto[] = {
	"json/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
	"json/hta/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
	"json/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
	"json/hta/critical_path__cuda_event_sync__event_sync_trace.json.gz",
	"json/hta/critical_path__cuda_event_sync_multi_stream__event_sync_trace.json.gz",
	"json/hta/critical_path__end_to_end__simple_add__output__overlaid_critical_path_trace.json.gz",
	"json/hta/critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
	"json/hta/cupti_profiler__benchmark_result_924719_1679055439_trace.json.gz",
	"json/hta/df_index_resolver__df_index_resolver.json.gz",
	"json/hta/execution_trace__benchmark_simple_add_trace.json.gz",
	"json/hta/mtia_inference_trace__mtia_inference_rank_0.json.gz",
	"json/hta/mtia_trace_single_rank__mtia_rank_0.json.gz",
	"json/hta/nccl_parser_config__nccl_data.json.gz",
	"json/hta/negative_queue_length_values_check__rank0.json.gz",
	"json/hta/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
	"json/hta/trace_compare__base__base.json.gz",
	"json/hta/trace_compare__test__test.json.gz",
	"json/hta/trace_diff__control__control.json.gz",
	"json/hta/trace_diff__test__test.json.gz",
	"json/hta/trace_filter__sampled_rank-0.json.gz",
	"json/hta/trace_filter__sampled_rank-1.json.gz",
	"json/hta/triton_example__triton_example.json.gz",
	"json/tracelens/h100-bert-small.json.gz",
	"json/tracelens/h100-falconsai_nsfw.json.gz",
	"json/tracelens/h100-qwen1.5-0.5b-chat.json.gz",
	"json/tracelens/mi210-gpu_only.json.gz",
	"json/tracelens/mi300-torch_compile_triton.json.gz",
};

START_TEST(real_category_shares) {
	struct tc_model *m = tc_test_load_trace(kineto[_i]);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_op_table t;
	ck_assert(tc_test_op_table(m, &o, "category", &t));
	double sum = 0;
	for (size_t i = 0; i < t.n; i++) {
		sum += t.rows[i].share;
		/* One row per canonical category. */
		for (size_t j = 0; j < i; j++) {
			ck_assert(t.rows[i].name != t.rows[j].name || t.rows[i].label != t.rows[j].label);
		}
	}
	ck_assert_msg(sum <= 1.0 + 1e-9, "%s: category shares sum to %.4f", kineto[_i], sum);
	tc_op_table_finish(&t);
	tc_model_destroy(m);
}
END_TEST

static Suite *suite(void) {
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, name_table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, categories);
	tcase_add_test(tc, host_default_and_flags);
	tcase_add_test(tc, cross_format);
	suite_add_tcase(s, tc);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_add_loop_test(tt, real_category_shares, 0, (int)(sizeof(kineto) / sizeof(kineto[0])));
	suite_add_tcase(s, tt);
	return s;
}

int main(void) {
	return tc_test_run(suite());
}
