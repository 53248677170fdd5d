/*
 * Check suite for op costs from shapes (analysis/opcost.c) and the kernel
 * -> launching op table (analysis/launcher.c): each formula against
 * hand-worked counts (TraceLens's reference rows for the H100 traces where
 * one exists), the shape parser, and launches attributed up the op stack.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/launcher.h"
#include "analysis/opcost.h"
#include "model/findings.h"
#include "tc_test.h"
#include "util/xalloc.h"

/* The cost of one recorded call. */
static struct tc_opcost cost(const char *name, const char *dims, const char *types,
		const char *conc) {
	struct tc_opargs a;
	ck_assert(tc_opargs_parse(&a, dims, types, conc));
	struct tc_opcost c;
	tc_opcost_of(name, &a, &c);
	return c;
}

START_TEST(gemm_formulas) {
	/* 2MNK (+ MN with bias) FLOPs; (MK + KN + MN [+ N]) x bpe bytes */
	ck_assert_int_eq(tc_opcost_gemm_flops(1, 141, 512, 512, true), 73996800);
	ck_assert_int_eq(tc_opcost_gemm_bytes(1, 141, 512, 512, true, 2, 2), 814080);
	ck_assert_int_eq(tc_opcost_gemm_flops(1, 8944, 2816, 1024, false), 51581550592);
	ck_assert_int_eq(tc_opcost_gemm_bytes(1, 8944, 2816, 1024, false, 2, 2), 74457088);
	/* batched: B times one */
	ck_assert_int_eq(tc_opcost_gemm_flops(4, 2, 3, 5, false), 4 * 60);
	ck_assert_int_eq(tc_opcost_gemm_bytes(4, 2, 3, 5, false, 4, 4), 4 * (10 + 15 + 6) * 4);
	/* overflow and negative sizes are unknown */
	ck_assert_int_eq(tc_opcost_gemm_flops(1, INT64_MAX / 2, 4, 4, false), -1);
	ck_assert_int_eq(tc_opcost_gemm_flops(1, -1, 4, 4, false), -1);
	ck_assert_int_eq(tc_opcost_gemm_bytes(1, 2, 2, 2, false, 0, 2), -1);
}
END_TEST

START_TEST(gemm_ops) {
	struct tc_opcost c = cost("aten::addmm", "[[512],[141,512],[512,512],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"1\",\"1\"]");
	ck_assert_int_eq(c.cls, TC_OPCOST_GEMM);
	ck_assert_int_eq(c.flops, 73996800);
	ck_assert_int_eq(c.bytes, 814080);
	c = cost("aten::mm", "[[8944, 1024], [1024, 2816]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
		NULL);
	ck_assert_int_eq(c.flops, 51581550592);
	ck_assert_int_eq(c.bytes, 74457088);
	/* linear: x (..., K), weight (N, K), bias when given */
	c = cost("aten::linear", "[[1,141,512],[512,512],[512]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", NULL);
	ck_assert_int_eq(c.flops, 73996800);
	ck_assert_int_eq(c.bytes, 814080);
	c = cost("aten::linear", "[[16,559,1024],[2816,1024],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"\"]", NULL);
	ck_assert_int_eq(c.flops, 51581550592);
	/* bmm and baddbmm scale by the batch */
	c = cost("aten::bmm", "[[8,2,3],[8,3,5]]", "[\"float\",\"float\"]", NULL);
	ck_assert_int_eq(c.flops, 8 * 2 * 2 * 3 * 5);
	ck_assert_int_eq(c.bytes, 8 * (6 + 15 + 10) * 4);
	c = cost("aten::baddbmm", "[[8,2,5],[8,2,3],[8,3,5],[],[]]",
		"[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL);
	ck_assert_int_eq(c.flops, 8 * (2 * 2 * 3 * 5 + 10));
	/* matmul, batched on both sides */
	c = cost("aten::matmul", "[[4,2,3],[4,3,5]]", "[\"c10::Half\",\"c10::Half\"]", NULL);
	ck_assert_int_eq(c.flops, 4 * 2 * 2 * 3 * 5);
	/* fp8 _scaled_mm writes 16-bit results */
	c = cost("aten::_scaled_mm", "[[16,32],[32,8],[],[],[],[]]",
		"[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\",\"\"]", NULL);
	ck_assert_int_eq(c.flops, 2 * 16 * 32 * 8);
	ck_assert_int_eq(c.bytes, 16 * 32 + 32 * 8 + 16 * 8 * 2);
	/* shapes that do not fit */
	c = cost("aten::mm", "[[8,4],[]]", "[\"float\",\"float\"]", NULL);
	ck_assert_int_eq(c.cls, TC_OPCOST_NONE);
	ck_assert_int_eq(c.flops, -1);
	c = cost("aten::not_an_op", "[[8,4],[4,8]]", "[\"float\",\"float\"]", NULL);
	ck_assert_int_eq(c.cls, TC_OPCOST_NONE);
}
END_TEST

START_TEST(sdpa_formulas) {
	/* B H (2 Nq Nkv dqk + 2 Nq Nkv dv); q, k, v and the output moved */
	ck_assert_int_eq(tc_opcost_sdpa_flops(1, 8, 141, 141, 64, 64, false), 40716288);
	ck_assert_int_eq(tc_opcost_sdpa_bytes(1, 8, 8, 141, 141, 64, 64, 2), 577536);
	/* causal halves a square score matrix, refuses another */
	ck_assert_int_eq(tc_opcost_sdpa_flops(16, 16, 559, 559, 64, 64, true), 10239377408);
	ck_assert_int_eq(tc_opcost_sdpa_flops(1, 1, 4, 8, 2, 2, true), -1);
	/* grouped-query: k and v have fewer heads */
	ck_assert_int_eq(tc_opcost_sdpa_bytes(1, 8, 2, 4, 4, 16, 16, 2),
		(8 * 4 * 16 + 2 * 4 * 16 + 2 * 4 * 16 + 8 * 4 * 16) * 2);
	struct tc_opcost c = cost("aten::_scaled_dot_product_flash_attention",
		"[[16,16,559,64],[16,16,559,64],[16,16,559,64],[],[],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\","
		"\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.125\"]");
	ck_assert_int_eq(c.cls, TC_OPCOST_SDPA);
	ck_assert_int_eq(c.flops, 10239377408);
	ck_assert_int_eq(c.bytes, 73269248);
	/* efficient attention: is_causal is input 6 */
	c = cost("aten::_scaled_dot_product_efficient_attention",
		"[[1,2,4,8],[1,2,4,8],[1,2,4,8],[],[],[],[],[]]",
		"[\"float\",\"float\",\"float\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"\",\"False\",\"0.\",\"True\",\"\"]");
	ck_assert_int_eq(c.flops, 2 * (2 * 4 * 4 * 8 * 2) / 2);
	/* flash_attention_forward: (B, N, H, d), is_causal input 8 */
	c = cost("aten::_flash_attention_forward",
		"[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"Scalar\","
		"\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"\",\"\",\"559\",\"559\",\"0.\",\"True\",\"False\"]");
	ck_assert_int_eq(c.flops, 10239377408);
}
END_TEST

START_TEST(conv_formulas) {
	int64_t x[4] = { 4, 3, 224, 224 }, w[4] = { 768, 3, 16, 16 }, o[4] = { 4, 768, 14, 14 };
	ck_assert_int_eq(tc_opcost_conv_out_dim(224, 16, 16, 0, 1, false, 0), 14);
	ck_assert_int_eq(tc_opcost_conv_out_dim(7, 3, 2, 1, 1, true, 1), 14);
	ck_assert_int_eq(tc_opcost_conv_out_dim(2, 5, 1, 0, 1, false, 0), -1);
	ck_assert_int_eq(tc_opcost_conv_out_dim(8, 3, 0, 0, 1, false, 0), -1);
	/* prod(out) 2 prod(w[1:]), as an implicit GEMM for the bytes */
	ck_assert_int_eq(tc_opcost_conv_flops(x, w, o, 4, false, false), 924844032);
	ck_assert_int_eq(tc_opcost_conv_flops(x, w, o, 4, true, false), 924844032 + 602112);
	ck_assert_int_eq(tc_opcost_conv_bytes(x, w, o, 4, 1, false, 2), 3588096);
	/* transposed: prod(x) instead of prod(out) */
	int64_t tx[4] = { 1, 4, 7, 7 }, tw[4] = { 4, 2, 3, 3 }, to[4] = { 1, 2, 14, 14 };
	ck_assert_int_eq(tc_opcost_conv_flops(tx, tw, to, 4, false, true), 196 * 2 * 18);
	ck_assert_int_eq(tc_opcost_conv_bytes(tx, tw, to, 4, 1, true, 4), (196 + 72 + 392) * 4);
	/* backward: input gradient + weight gradient */
	ck_assert_int_eq(tc_opcost_conv_bwd_flops(x, w, o, 4, false, false),
		924844032 + 2 * 589824 * 784);
	ck_assert_int_eq(tc_opcost_conv_bwd_bytes(x, w, o, 4, 2),
		2 * (602112 + 589824 + 602112) * 2);

	struct tc_opcost c = cost("aten::convolution",
		"[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\","
		"\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"[16, 16]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]");
	ck_assert_int_eq(c.cls, TC_OPCOST_CONV_FWD);
	ck_assert_int_eq(c.flops, 924844032);
	ck_assert_int_eq(c.bytes, 3588096);
	/* grouped (depthwise): w[1] is one group's channels */
	c = cost("aten::conv2d", "[[2,8,10,10],[8,1,3,3],[],[],[],[],[]]",
		"[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]",
		"[\"\",\"\",\"\",\"[1]\",\"[1]\",\"[1]\",\"8\"]");
	ck_assert_int_eq(c.flops, 2 * 8 * 10 * 10 * 2 * 9);
	ck_assert_int_eq(c.bytes, (200 * 9 * 8 + 72 + 1600) * 4);
	/* cudnn_convolution keeps padding before stride */
	c = cost("aten::cudnn_convolution", "[[1,1,5,5],[1,1,3,3],[],[],[],[],[],[],[]]",
		"[\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\","
		"\"Scalar\",\"Scalar\",\"Scalar\"]",
		"[\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\"]");
	ck_assert_int_eq(c.flops, 3 * 3 * 2 * 9);
	/* backward: grad_output, input, weight first */
	c = cost("aten::convolution_backward",
		"[[4,768,14,14],[4,3,224,224],[768,3,16,16],[],[],[],[],[],[],[],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\","
		"\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"]",
		"[\"\",\"\",\"\",\"[768]\",\"[16, 16]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\","
		"\"[True, True, True]\"]");
	ck_assert_int_eq(c.cls, TC_OPCOST_CONV_BWD);
	ck_assert_int_eq(c.flops, 924844032 + 2 * 589824 * 784);
}
END_TEST

START_TEST(memory_bound_formulas) {
	ck_assert_int_eq(tc_opcost_elementwise_flops(72192), 72192);
	ck_assert_int_eq(tc_opcost_elementwise_bytes(288768, 72192, 2), 433152);
	ck_assert_int_eq(tc_opcost_reduction_flops(100), 100);
	ck_assert_int_eq(tc_opcost_reduction_bytes(100, 10, 4), 440);
	ck_assert_int_eq(tc_opcost_norm_flops(10, 4), 62);
	ck_assert_int_eq(tc_opcost_norm_bytes(10, 4, 2), 64);
	/* binary with broadcast: both inputs read, the broadcast shape written */
	struct tc_opcost c = cost("aten::add_", "[[4,768,14,14],[1,768,1,1],[]]",
		"[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]", NULL);
	ck_assert_int_eq(c.cls, TC_OPCOST_ELEMENTWISE);
	ck_assert_int_eq(c.flops, 602112);
	ck_assert_int_eq(c.bytes, 2409984);
	c = cost("aten::mul", "[[16,559,1024],[16,559,1]]", "[\"float\",\"float\"]", NULL);
	ck_assert_int_eq(c.bytes, 73305024);
	/* copy_ writes self (first) from src (second): no read of self */
	c = cost("aten::copy_", "[[16,559,1024],[16,559,1024],[]]",
		"[\"float\",\"c10::BFloat16\",\"Scalar\"]", NULL);
	ck_assert_int_eq(c.bytes, 9158656 * 6);
	c = cost("aten::pow", "[[16,559,1024],[]]", "[\"float\",\"Scalar\"]", NULL);
	ck_assert_int_eq(c.bytes, 9158656 * 8);
	/* shapes that do not broadcast */
	c = cost("aten::add", "[[3,4],[5,4]]", "[\"float\",\"float\"]", NULL);
	ck_assert_int_eq(c.cls, TC_OPCOST_NONE);
	/* reduction over the last dim, kept */
	c = cost("aten::mean", "[[16,559,1024],[],[],[]]", "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
		"[\"\",\"[-1]\",\"True\",\"\"]");
	ck_assert_int_eq(c.cls, TC_OPCOST_REDUCTION);
	ck_assert_int_eq(c.bytes, (9158656 + 8944) * 4);
	/* layer norm: input, output and the affine parameters */
	c = cost("aten::layer_norm", "[[1,141,512],[],[512],[512],[],[]]",
		"[\"c10::BFloat16\",\"ScalarList\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\","
		"\"Scalar\"]", NULL);
	ck_assert_int_eq(c.cls, TC_OPCOST_NORM);
	ck_assert_int_eq(c.flops, 364032);
	ck_assert_int_eq(c.bytes, 294912);
}
END_TEST

START_TEST(parse) {
	struct tc_opargs a;
	ck_assert(tc_opargs_parse(&a, " [ [2, 3] , [], [[1,2],[3]], [4] ] ",
		"[\"c10::Half\", \"TensorList\", \"long int\", \"double\"]", "[\"\",\"a\\\"b\",\"\",\"x\"]"));
	ck_assert_uint_eq(a.n, 4);
	ck_assert_int_eq(a.rank[0], 2);
	ck_assert_int_eq(a.dim[0][1], 3);
	ck_assert_int_eq(a.rank[1], 0);
	ck_assert_int_eq(a.rank[2], -1); /* a TensorList has no one shape */
	ck_assert_int_eq(a.dim[3][0], 4);
	ck_assert_int_eq(a.bpe[0], 2);
	ck_assert_int_eq(a.bpe[1], 0);
	ck_assert_int_eq(a.bpe[2], 8);
	ck_assert_int_eq(a.bpe[3], 8);
	ck_assert_uint_eq(a.conc_len[1], 4);
	ck_assert_uint_eq(a.conc_len[3], 1);
	/* malformed texts are refused, never read past */
	ck_assert(!tc_opargs_parse(&a, "[[2,3]", NULL, NULL));
	ck_assert(!tc_opargs_parse(&a, "[[2,3],]x", NULL, NULL));
	ck_assert(!tc_opargs_parse(&a, NULL, "[\"float\"", NULL));
	ck_assert(!tc_opargs_parse(&a, NULL, NULL, "[\"unterminated]"));
	ck_assert(!tc_opargs_parse(&a, "{}", NULL, NULL));
	/* a dimension past int64 is no shape */
	ck_assert(tc_opargs_parse(&a, "[[99999999999999999999999,2]]", NULL, NULL));
	ck_assert_int_eq(a.rank[0], -1);
	ck_assert_int_eq(tc_opcost_dtype_bpe("c10::Float8_e5m2fnuz", 20), 1);
	ck_assert_int_eq(tc_opcost_dtype_bpe("c10::BFloat16", 13), 2);
	ck_assert_int_eq(tc_opcost_dtype_bpe("Scalar", 6), 0);
}
END_TEST

/* A host thread and a GPU stream, and the launch and kernel ops. */
struct launch_fixture {
	struct tc_model *m;
	uint32_t th, st, cpu, rt, k;
};

static struct launch_fixture launch_fixture(void) {
	struct launch_fixture f;
	struct tc_model *m = f.m = tc_model_create();
	uint32_t h = tc_model_add_device(m, tc_model_intern(m, "python3"), TC_DEV_CPU);
	uint32_t g = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	f.th = tc_model_add_track(m, h, tc_model_intern(m, "thread 1"), TC_TRACK_HOST_THREAD, 1);
	f.st = tc_model_add_track(m, g, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	f.cpu = tc_model_intern(m, "cpu_op");
	f.rt = tc_model_op(m, tc_model_intern(m, "cudaLaunchKernel"), 0, TC_OP_RUNTIME);
	f.k = tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL);
	return f;
}

/* A host thread running linear > addmm > launch (two kernels, one of them
 * named by two flows), a second launch under linear alone, and a launch
 * under no framework op; the device stream runs the kernels. */
START_TEST(launcher_nesting) {
	struct launch_fixture f = launch_fixture();
	struct tc_model *m = f.m;
	uint32_t th = f.th, st = f.st, rt = f.rt, k = f.k;
	uint32_t lin = tc_model_op(m, tc_model_intern(m, "aten::linear"), f.cpu, TC_OP_HOST_OP);
	uint32_t mm = tc_model_op(m, tc_model_intern(m, "aten::addmm"), f.cpu, TC_OP_HOST_OP);
	uint32_t mod = tc_model_op(m, tc_model_intern(m, "nn.Module: Linear_0"), 0, TC_OP_PYTHON);
	uint32_t dims = tc_model_intern(m, "Input Dims"), types = tc_model_intern(m, "Input type");
	tc_model_add_event(m, th, mod, 0, 1000, 0);
	uint32_t el = tc_model_add_event(m, th, lin, 10, 900, 0);
	uint32_t em = tc_model_add_event(m, th, mm, 20, 500, 0);
	uint32_t b = tc_model_args_begin(m);
	tc_model_arg_str(m, dims, tc_model_intern(m, "[[8],[4,8],[8,8],[],[]]"));
	tc_model_arg_str(m, types, tc_model_intern(m, "[\"float\",\"float\",\"float\",\"Scalar\","
		"\"Scalar\"]"));
	tc_model_set_event_args(m, em, tc_model_args_end(m, b));
	uint32_t r1 = tc_model_add_event(m, th, rt, 30, 10, 0);
	uint32_t r2 = tc_model_add_event(m, th, rt, 600, 10, 0);
	uint32_t r3 = tc_model_add_event(m, th, rt, 2000, 10, 0);
	uint32_t k1 = tc_model_add_event(m, st, k, 100, 40, 0);
	uint32_t k2 = tc_model_add_event(m, st, k, 700, 60, 0);
	uint32_t k3 = tc_model_add_event(m, st, k, 2100, 5, 0);
	uint32_t k4 = tc_model_add_event(m, st, k, 3000, 7, 0);
	tc_model_add_flow(m, r1, k1, TC_FLOW_LAUNCH, 1);
	tc_model_add_flow(m, r1, k1, TC_FLOW_LAUNCH, 1);
	tc_model_add_flow(m, r2, k2, TC_FLOW_LAUNCH, 2);
	tc_model_add_flow(m, r3, k3, TC_FLOW_LAUNCH, 3);
	(void)el;
	(void)k4;
	tc_model_finalize(m);

	struct tc_launch_table t;
	tc_launcher_table(m, TC_NONE, 1e12, 1e11, &t);
	ck_assert_uint_eq(t.device_events, 4);
	ck_assert_uint_eq(t.linked, 2);
	ck_assert_int_eq(t.linked_ps, 100);
	ck_assert_int_eq(t.device_ps, 112);
	ck_assert_uint_eq(t.n, 2);
	/* linear holds both its kernels, addmm its own one */
	const struct tc_launch_row *r = &t.rows[0];
	ck_assert_str_eq(tc_model_str(m, r->name), "aten::linear");
	ck_assert_uint_eq(r->kernels, 2);
	ck_assert_int_eq(r->kernel_ps, 100);
	ck_assert(!r->nested);
	ck_assert_str_eq(tc_model_str(m, r->scope), "nn.Module: Linear_0");
	r = &t.rows[1];
	ck_assert_str_eq(tc_model_str(m, r->name), "aten::addmm");
	ck_assert_uint_eq(r->calls, 1);
	ck_assert_uint_eq(r->kernels, 1);
	ck_assert_int_eq(r->kernel_ps, 40);
	ck_assert(r->nested);
	ck_assert_str_eq(tc_model_str(m, r->outer), "aten::linear");
	ck_assert_str_eq(r->cls, "gemm");
	ck_assert_str_eq(r->flops_from, "shapes");
	ck_assert_int_eq(r->flops_call, 2 * 4 * 8 * 8 + 32);
	ck_assert_int_eq(r->bytes_call, (32 + 64 + 8 + 32) * 4);
	/* 544 FLOP in 40 ps */
	ck_assert(r->flop_rate > 1.35e13 && r->flop_rate < 1.37e13);
	/* 544 / 544 = 1 FLOP/B, under the ridge of 10 */
	ck_assert_int_eq(r->bound, TC_BOUND_MEMORY);
	tc_launch_table_finish(&t);
	/* each kernel's innermost launching op */
	uint32_t *of = tc_xmalloc(m->ev.n * sizeof(*of));
	tc_launcher_of_events(m, of);
	size_t n_linked = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (of[i] == TC_NONE) {
			continue;
		}
		n_linked++;
		const char *by = tc_model_str(m, m->ops[m->ev.op[of[i]]].name);
		ck_assert_str_eq(by, m->ev.start[i] == 100 ? "aten::addmm" : "aten::linear");
	}
	ck_assert_uint_eq(n_linked, 2);
	free(of);
	tc_model_destroy(m);
}
END_TEST

/* Partly overlapping ops (async slices, synthetic traces) do not nest: a
 * launch under the second is not the first's. */
START_TEST(launcher_partial_overlap) {
	struct launch_fixture f = launch_fixture();
	struct tc_model *m = f.m;
	uint32_t a = tc_model_op(m, tc_model_intern(m, "aten::a"), f.cpu, TC_OP_HOST_OP);
	uint32_t b = tc_model_op(m, tc_model_intern(m, "aten::b"), f.cpu, TC_OP_HOST_OP);
	tc_model_add_event(m, f.th, a, 0, 100, 0);
	tc_model_add_event(m, f.th, b, 50, 100, 0);
	uint32_t r = tc_model_add_event(m, f.th, f.rt, 120, 10, 0);
	uint32_t d = tc_model_add_event(m, f.st, f.k, 200, 30, 0);
	tc_model_add_flow(m, r, d, TC_FLOW_LAUNCH, 1);
	tc_model_finalize(m);
	struct tc_launch_table t;
	tc_launcher_table(m, TC_NONE, 0, 0, &t);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_str_eq(tc_model_str(m, t.rows[0].name), "aten::b");
	ck_assert(!t.rows[0].nested);
	ck_assert_int_eq(t.rows[0].bound, TC_BOUND_UNKNOWN);
	tc_launch_table_finish(&t);
	/* --device: the GPU's work, or (the host) none */
	tc_launcher_table(m, 1, 0, 0, &t);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.device_events, 1);
	tc_launch_table_finish(&t);
	tc_launcher_table(m, 0, 0, 0, &t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_uint_eq(t.device_events, 0);
	ck_assert_uint_eq(t.linked, 0);
	tc_launch_table_finish(&t);
	tc_model_destroy(m);
}
END_TEST

static Suite *suite(void) {
	Suite *s = suite_create("opcost");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, gemm_formulas);
	tcase_add_test(tc, gemm_ops);
	tcase_add_test(tc, sdpa_formulas);
	tcase_add_test(tc, conv_formulas);
	tcase_add_test(tc, memory_bound_formulas);
	tcase_add_test(tc, parse);
	tcase_add_test(tc, launcher_nesting);
	tcase_add_test(tc, launcher_partial_overlap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	return tc_test_run(suite());
}
