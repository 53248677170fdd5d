/*
 * Check suite for device-work categories (model/devcat.c): launching op
 * names, kernel names of every vendor library, XLA categories, the launcher
 * winning over the kernel, FP32 math in GEMM/conv kernel names, the
 * data-sheet peaks table's matches, and device work summed by category
 * (analysis/devwork.c) and by op (the op table, summary.c).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/devwork.h"
#include "analysis/passes.h"
#include "analysis/summary.h"
#include "model/devcat.h"
#include "model/findings.h"
#include "model/peaks.h"
#include "tc_test.h"

struct row {
	const char *launcher; /* NULL: none known */
	const char *name, *cat;
	enum tc_op_kind kind;
	enum tc_devcat want;
};

#define K TC_OP_KERNEL

static const struct row rows[] = {
	/* kernels alone: NVIDIA */
	{ NULL, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", NULL, K,
		TC_DEVCAT_GEMM },
	{ NULL, "volta_sgemm_128x64_nn", "kernel", K, TC_DEVCAT_GEMM },
	{ NULL, "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>", NULL, K,
		TC_DEVCAT_GEMM },
	{ NULL, "void epilogue::impl::globalKernel<float, float, float, true, true>(int, "
		"cublasLtEpilogue_t)", NULL, K, TC_DEVCAT_GEMM },
	{ NULL, "implicit_convolve_sgemm", NULL, K, TC_DEVCAT_CONV_FWD },
	{ NULL, "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", NULL, K, TC_DEVCAT_CONV_FWD },
	{ NULL, "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw", NULL, K,
		TC_DEVCAT_CONV_FWD },
	{ NULL, "sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc", NULL, K,
		TC_DEVCAT_CONV_BWD },
	{ NULL, "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>", NULL, K,
		TC_DEVCAT_ATTENTION },
	{ NULL, "fmha_cutlassF_f16_aligned_64x64_rf_sm80", NULL, K, TC_DEVCAT_ATTENTION },
	{ NULL, "void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>", NULL, K,
		TC_DEVCAT_NORMALIZATION },
	{ NULL, "void at::native::batch_norm_backward_kernel<c10::BFloat16>", NULL, K,
		TC_DEVCAT_NORMALIZATION },
	{ NULL, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>", NULL, K,
		TC_DEVCAT_SOFTMAX },
	{ NULL, "void at::native::reduce_kernel<512, 1, ReduceOp<float, MeanOps>>", NULL, K,
		TC_DEVCAT_REDUCTION },
	{ NULL, "void at::native::indexSelectLargeIndex<c10::BFloat16, long>", NULL, K,
		TC_DEVCAT_EMBEDDING },
	{ NULL, "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>", NULL, K,
		TC_DEVCAT_LAYOUT },
	{ NULL, "void at::native::CatArrayBatchedCopy<OpaqueType<2u>, unsigned int>", NULL, K,
		TC_DEVCAT_LAYOUT },
	{ NULL, "void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>>", NULL,
		K, TC_DEVCAT_ELEMENTWISE },
	{ NULL, "triton_poi_fused__unsafe_view_mul_silu_2", NULL, K, TC_DEVCAT_ELEMENTWISE },
	{ NULL, "triton_red_fused_add_mean_mul_pow_rsqrt_0", NULL, K, TC_DEVCAT_REDUCTION },
	{ NULL, "triton_tem_fused_addmm_0", NULL, K, TC_DEVCAT_GEMM },
	{ NULL, "max_pool_forward_nchw", NULL, K, TC_DEVCAT_OTHER },
	/* AMD */
	{ NULL, "Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1_SN_1LDSB1.kd", NULL, K,
		TC_DEVCAT_GEMM },
	{ NULL, "igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x256x32", NULL, K, TC_DEVCAT_CONV_FWD },
	{ NULL, "igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16", NULL, K, TC_DEVCAT_CONV_BWD },
	{ NULL, "batched_transpose_16x64_pack_1x4_ediv_1x2_half", NULL, K, TC_DEVCAT_LAYOUT },
	{ NULL, "void ck_tile::kentry<ck_tile::FmhaFwdKernel<...>>", NULL, K, TC_DEVCAT_ATTENTION },
	{ NULL, "attn_fwd", NULL, K, TC_DEVCAT_ATTENTION },
	{ NULL, "__amd_rocclr_copyBuffer.kd", NULL, K, TC_DEVCAT_MEMCPY },
	{ NULL, "__amd_rocclr_fillBufferAligned.kd", NULL, K, TC_DEVCAT_MEMSET },
	/* XLA kernels and HLO categories */
	{ NULL, "loop_convert_fusion.kd", NULL, K, TC_DEVCAT_ELEMENTWISE },
	{ NULL, "gemm_fusion_dot_general_1.kd", NULL, K, TC_DEVCAT_GEMM },
	{ NULL, "input_reduce_fusion", NULL, K, TC_DEVCAT_REDUCTION },
	{ NULL, "wrapped_transpose.kd", NULL, K, TC_DEVCAT_LAYOUT },
	{ NULL, "copy.12", NULL, K, TC_DEVCAT_LAYOUT },
	{ NULL, "input_concatenate_fusion.kd", NULL, K, TC_DEVCAT_LAYOUT },
	{ NULL, "fusion.3", "convolution fusion", K, TC_DEVCAT_GEMM },
	{ NULL, "convolution.1", "convolution", K, TC_DEVCAT_CONV_FWD },
	{ NULL, "fusion.9", "data formatting", K, TC_DEVCAT_LAYOUT },
	{ NULL, "fusion.2", "loop fusion", K, TC_DEVCAT_ELEMENTWISE },
	{ NULL, "reduce.7", "reduce", K, TC_DEVCAT_REDUCTION },
	/* kinds the reader decided */
	{ NULL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", TC_OP_COLLECTIVE,
		TC_DEVCAT_COLLECTIVE },
	{ NULL, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", TC_OP_MEMCPY_H2D,
		TC_DEVCAT_MEMCPY },
	{ NULL, "Memset (Device)", "gpu_memset", TC_OP_MEMSET, TC_DEVCAT_MEMSET },
	/* the launching op decides (TraceLens's grouping) */
	{ "aten::copy_", "void at::native::unrolled_elementwise_kernel<direct_copy_kernel_cuda>",
		NULL, K, TC_DEVCAT_ELEMENTWISE },
	{ "aten::mm", "Memset (Device)", "gpu_memset", TC_OP_MEMSET, TC_DEVCAT_GEMM },
	{ "aten::zero_", "Memset (Device)", "gpu_memset", TC_OP_MEMSET, TC_DEVCAT_MEMSET },
	{ "aten::_local_scalar_dense", "Memcpy DtoH (Device -> Pinned)", "gpu_memcpy",
		TC_OP_MEMCPY_D2H, TC_DEVCAT_MEMCPY },
	{ "aten::copy_", "Memcpy HtoD", "gpu_memcpy", TC_OP_MEMCPY_H2D, TC_DEVCAT_MEMCPY },
	{ "aten::_flash_attention_forward", "flash_fwd_kernel", NULL, K, TC_DEVCAT_ATTENTION },
	{ "aten::native_layer_norm", "void at::native::vectorized_layer_norm_kernel", NULL, K,
		TC_DEVCAT_NORMALIZATION },
	{ "aten::cudnn_convolution", "sm90_xmma_fprop_implicit_gemm", NULL, K,
		TC_DEVCAT_CONV_FWD },
	{ "aten::convolution_backward", "sm90_xmma_gemm_f16f16_f16f32", NULL, K,
		TC_DEVCAT_CONV_BWD },
	{ "aten::_softmax", "cunn_SoftMaxForward", NULL, K, TC_DEVCAT_SOFTMAX },
	{ "aten::embedding_dense_backward", "indexing_backward_kernel", NULL, K,
		TC_DEVCAT_EMBEDDING },
	{ "aten::mean", "reduce_kernel", NULL, K, TC_DEVCAT_REDUCTION },
	{ "aten::addmm", "sm90_xmma_gemm_bf16bf16", NULL, K, TC_DEVCAT_GEMM },
	{ "aten::add_", "vectorized_elementwise_kernel", NULL, K, TC_DEVCAT_ELEMENTWISE },
	{ "aten::cat", "CatArrayBatchedCopy", NULL, K, TC_DEVCAT_LAYOUT },
	/* a launcher the vocabulary does not know: the kernel decides */
	{ "aten::arange", "elementwise_kernel_with_index", NULL, K, TC_DEVCAT_ELEMENTWISE },
	{ "ThunkExecutor::Execute", "gemm_fusion_dot.kd", NULL, K, TC_DEVCAT_GEMM },
	{ "aten::mm", "ncclDevKernel_AllGather", NULL, TC_OP_COLLECTIVE, TC_DEVCAT_COLLECTIVE },
};

START_TEST(table) {
	const struct row *r = &rows[_i];
	enum tc_devcat got = tc_devcat_of(r->launcher, r->launcher ? strlen(r->launcher) : 0,
		r->name, strlen(r->name), r->cat, r->cat ? strlen(r->cat) : 0, r->kind);
	ck_assert_msg(got == r->want, "%s / %s: %s, want %s", r->launcher ? r->launcher : "-",
		r->name, tc_devcat_name(got), tc_devcat_name(r->want));
}
END_TEST

START_TEST(launcher_names) {
	ck_assert_int_eq(tc_devcat_of_launcher("aten::linear", 12), TC_DEVCAT_GEMM);
	ck_assert_int_eq(tc_devcat_of_launcher("aten::conv2d", 12), TC_DEVCAT_CONV_FWD);
	ck_assert_int_eq(tc_devcat_of_launcher("aten::_foreach_add_", 19), TC_DEVCAT_ELEMENTWISE);
	/* names outside ATen, and empty or short ones, say nothing */
	ck_assert_int_eq(tc_devcat_of_launcher("mm", 2), TC_DEVCAT_NONE);
	ck_assert_int_eq(tc_devcat_of_launcher("aten::", 6), TC_DEVCAT_NONE);
	ck_assert_int_eq(tc_devcat_of_launcher(NULL, 0), TC_DEVCAT_NONE);
	ck_assert_int_eq(tc_devcat_of_launcher("aten::_", 7), TC_DEVCAT_NONE);
	/* the length bounds the name: no read past it */
	ck_assert_int_eq(tc_devcat_of_launcher("aten::mmXYZ", 8), TC_DEVCAT_GEMM);
}
END_TEST

START_TEST(names) {
	ck_assert_str_eq(tc_devcat_name(TC_DEVCAT_GEMM), "GEMM");
	ck_assert_str_eq(tc_devcat_name(TC_DEVCAT_CONV_BWD), "CONV_bwd");
	ck_assert_str_eq(tc_devcat_name(TC_DEVCAT_NONE), "(none)");
	ck_assert_str_eq(tc_devcat_name((enum tc_devcat)99), "other");
	for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
		ck_assert_ptr_nonnull(tc_devcat_name((enum tc_devcat)c));
	}
}
END_TEST

START_TEST(fp32_math) {
	static const char *const yes[] = { "volta_sgemm_128x64_nn", "implicit_convolve_sgemm",
		"cutlass_80_simt_sgemm_128x32_8x5_nn_align1", "cudnn_ampere_scudnn_128x64_relu",
		"Cijk_Ailk_Bljk_SB_MT64x64x8_SN",
		"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma", NULL };
	static const char *const no[] = { "volta_s884gemm_fp16_128x128_ldg8_f2f_nn", "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32",
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "ampere_h16816gemm_128x128",
		"Cijk_Ailk_Bljk_BBS_BH_MT256x224x64", "sm80_xmma_fprop_implicit_gemm_tf32f32", NULL };
	for (size_t i = 0; yes[i]; i++) {
		ck_assert_msg(tc_devcat_fp32_math(yes[i], strlen(yes[i])), "%s", yes[i]);
	}
	for (size_t i = 0; no[i]; i++) {
		ck_assert_msg(!tc_devcat_fp32_math(no[i], strlen(no[i])), "%s", no[i]);
	}
}
END_TEST

/* ---- the data-sheet peaks table (model/peaks.c) ---- */

#define GB (1024LL * 1024 * 1024)

START_TEST(peaks_table) {
	const struct tc_peak_row *r = tc_peaks_match("NVIDIA H100 80GB HBM3", 85018279936LL, 132);
	ck_assert_str_eq(r->part, "H100 SXM");
	ck_assert(r->flops[TC_PEAK_BF16] == 989e12 && r->bw == 3.35e12);
	ck_assert(r->flops[TC_PEAK_FP32] == 67e12 && r->flops[TC_PEAK_FP8] == 1979e12);
	ck_assert_ptr_nonnull(strstr(r->source, "nvidia.com"));
	ck_assert_str_eq(tc_peaks_match("NVIDIA H100 PCIe", 0, 0)->part, "H100 PCIe");
	ck_assert_str_eq(tc_peaks_match("NVIDIA H200", 0, 0)->part, "H200 SXM");
	/* one name, two memory sizes */
	ck_assert_str_eq(tc_peaks_match("NVIDIA A100-SXM4-40GB", 40 * GB, 108)->part, "A100 40GB");
	ck_assert_str_eq(tc_peaks_match("NVIDIA A100-SXM4-80GB", 80 * GB, 108)->part,
		"A100 80GB SXM");
	ck_assert_str_eq(tc_peaks_match("NVIDIA A100 80GB PCIe", 80 * GB, 108)->part,
		"A100 80GB PCIe");
	ck_assert_str_eq(tc_peaks_match("Tesla V100-SXM2-16GB", 16 * GB, 80)->part, "V100 SXM2");
	ck_assert(tc_peaks_match("Tesla V100-SXM2-16GB", 0, 0)->flops[TC_PEAK_TF32] == 0);
	ck_assert_str_eq(tc_peaks_match("NVIDIA L4", 0, 0)->part, "L4");
	ck_assert_str_eq(tc_peaks_match("Tesla T4", 0, 0)->part, "T4");
	ck_assert_str_eq(tc_peaks_match("NVIDIA A10", 0, 0)->part, "A10");
	ck_assert_ptr_null(tc_peaks_match("NVIDIA A10G", 0, 0)); /* another part */
	ck_assert_str_eq(tc_peaks_match("NVIDIA B200", 0, 0)->part, "B200 (HGX, per GPU)");
	ck_assert_str_eq(tc_peaks_match("AMD Instinct MI300X", 0, 0)->part, "MI300X");
	ck_assert_str_eq(tc_peaks_match("AMD Instinct MI325X", 0, 0)->part, "MI325X");
	ck_assert_str_eq(tc_peaks_match("AMD Instinct MI210", 64 * GB, 104)->part, "MI210");
	/* an MI250X shows one die per device */
	ck_assert_str_eq(tc_peaks_match("AMD Instinct MI250X", 64 * GB, 110)->part,
		"MI250X (one of its two dies)");
	ck_assert_str_eq(tc_peaks_match("TPU v6 lite", 0, 0)->part, "TPU v6e");
	ck_assert_str_eq(tc_peaks_match("TPU v4", 0, 0)->part, "TPU v4");
	ck_assert_str_eq(tc_peaks_match("TPU v5p", 0, 0)->part, "TPU v5p");
	/* a generic name: memory and cores pick the one part that has them */
	ck_assert_str_eq(tc_peaks_match("/device:GPU:0", 192 * GB, 304)->part, "MI300X");
	ck_assert_str_eq(tc_peaks_match("", 80 * GB, 132)->part, "H100 SXM");
	/* ... and, without the architecture, nothing for a 64 GB 104-CU
	 * device: with gfx90a (9.0) it is an MI210 or an MI250 die, whose
	 * peaks are the same; 110 CUs are an MI250X die */
	ck_assert_ptr_null(tc_peaks_match("AMD Radeon Graphics", 64 * GB, 104));
	r = tc_peaks_match_arch("AMD Radeon Graphics", 68702699520LL, 104, 90);
	ck_assert_str_eq(r->part, "MI210 or one MI250 die (gfx90a, 104 CUs)");
	ck_assert(r->flops[TC_PEAK_BF16] == 181e12 && r->bw == 1.6e12);
	ck_assert(tc_peaks_match("AMD Instinct MI250", 64 * GB, 104)->bw == r->bw);
	ck_assert_str_eq(tc_peaks_match_arch("AMD Radeon Graphics", 64 * GB, 110, 90)->part,
		"MI250X (one of its two dies)");
	ck_assert_ptr_null(tc_peaks_match_arch("AMD Radeon Graphics", 64 * GB, 104, 94));
	ck_assert_ptr_null(tc_peaks_match_arch("AMD Radeon Graphics", 32 * GB, 104, 90));
	/* a name still wins over the nameless rows */
	ck_assert_str_eq(tc_peaks_match_arch("AMD Instinct MI210", 64 * GB, 104, 90)->part, "MI210");
	ck_assert_ptr_null(tc_peaks_match("/device:GPU:0", 192 * GB, 0));
	ck_assert_ptr_null(tc_peaks_match(NULL, 0, 0));
	ck_assert_ptr_null(tc_peaks_match("GeForce GT 710", 2 * GB, 2));
	ck_assert_str_eq(tc_peak_dtype_name(TC_PEAK_TF32), "tf32");
	ck_assert_str_eq(tc_peak_dtype_name((enum tc_peak_dtype)9), "?");
}
END_TEST

/* Without device identity a class holds only where every part agrees:
 * below the smallest ridge of the dtype, at or above the largest. */
START_TEST(peaks_ridge_range) {
	double lo, hi, lo32, hi32, none_lo, none_hi;
	ck_assert(tc_peaks_ridge_range(TC_PEAK_BF16, &lo, &hi));
	ck_assert(tc_peaks_ridge_range(TC_PEAK_FP32, &lo32, &hi32));
	/* H100 SXM's bf16 ridge (989 T / 3.35 T) lies inside the range */
	ck_assert(lo < 989e12 / 3.35e12 && 989e12 / 3.35e12 < hi);
	ck_assert(lo32 < lo && hi32 < hi);
	ck_assert(!tc_peaks_ridge_range(TC_PEAK_DTYPES, &none_lo, &none_hi));
	ck_assert(none_lo == 0 && none_hi == 0);
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * lo, TC_PEAK_BF16), TC_BOUND_MEMORY);
	ck_assert_int_eq(tc_peaks_bound_any(hi, TC_PEAK_BF16), TC_BOUND_COMPUTE);
	ck_assert_int_eq(tc_peaks_bound_any(2 * hi, TC_PEAK_BF16), TC_BOUND_COMPUTE);
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * (lo + hi), TC_PEAK_BF16), TC_BOUND_UNKNOWN);
	ck_assert_int_eq(tc_peaks_bound_any(lo, TC_PEAK_BF16), TC_BOUND_UNKNOWN);
	/* an unknown dtype is held to bf16's ridges */
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * lo, TC_PEAK_DTYPES), TC_BOUND_MEMORY);
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * (lo + hi), TC_PEAK_DTYPES), TC_BOUND_UNKNOWN);
	ck_assert_int_eq(tc_peaks_bound_any(hi, TC_PEAK_DTYPES), TC_BOUND_COMPUTE);
	/* fp32's ridges are lower: compute-bound on every part at bf16's low end */
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * lo32, TC_PEAK_FP32), TC_BOUND_MEMORY);
	ck_assert_int_eq(tc_peaks_bound_any(hi32, TC_PEAK_FP32), TC_BOUND_COMPUTE);
	ck_assert_int_eq(tc_peaks_bound_any(0.5 * (lo32 + hi32), TC_PEAK_FP32), TC_BOUND_UNKNOWN);
	/* no FLOPs or bytes: no class */
	ck_assert_int_eq(tc_peaks_bound_any(-1, TC_PEAK_BF16), TC_BOUND_UNKNOWN);
}
END_TEST

/* A device line's events summed per category (analysis/devwork.c): a flat
 * line without launchers is summed per op, and must give the per-event
 * sums; where double FLOP sums would round, the per-event order holds. */
static uint32_t cost_op(struct tc_model *m, const char *name, int64_t flops, int64_t bytes) {
	uint32_t o = tc_model_add_op(m, tc_model_intern(m, name), 0, TC_OP_KERNEL);
	m->ops[o].flops = flops;
	m->ops[o].bytes = bytes;
	return o;
}

START_TEST(devwork_flat) {
	const int64_t us = 1000000;
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t s = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t g = cost_op(m, "volta_sgemm_128x64_nn", 100, 10);
	uint32_t l = cost_op(m, "transpose_kernel", -1, 8);
	tc_model_add_event(m, s, g, 0, 5 * us, 0);   /* tiny: launch-sized */
	tc_model_add_event(m, s, l, 10 * us, 3 * us, 0);
	tc_model_add_event(m, s, g, 20 * us, 20 * us, 0);
	tc_model_add_event(m, s, l, 50 * us, 4 * us, 0);
	tc_model_finalize(m);
	ck_assert_int_eq(tc_devcat_of_kernel("transpose_kernel", 16, NULL, 0, TC_OP_KERNEL),
		TC_DEVCAT_LAYOUT);
	struct tc_devwork w;
	tc_devwork_scan(m, TC_NONE, &w);
	const struct tc_devcat_acc *a = &w.cat[TC_DEVCAT_GEMM];
	ck_assert_uint_eq(a->count, 2);
	ck_assert_int_eq(a->total_ps, 25 * us);
	ck_assert_int_eq(a->self_ps, 25 * us);
	ck_assert_int_eq(a->launched_ps, 0);
	ck_assert_int_eq(a->min_ps, 5 * us);
	ck_assert_int_eq(a->max_ps, 20 * us);
	ck_assert(a->flops == 200 && a->bytes == 20);
	ck_assert_int_eq(w.fp32_ps, 20 * us);
	ck_assert_uint_eq(w.fp32_count, 1);
	ck_assert_int_eq(w.fp32_free_ps, 0);
	ck_assert_int_eq(w.tiny_gemm_ps, 5 * us);
	ck_assert_uint_eq(w.tiny_gemm_count, 1);
	a = &w.cat[TC_DEVCAT_LAYOUT];
	ck_assert_uint_eq(a->count, 2);
	ck_assert(a->flops < 0 && a->bytes == 16);
	ck_assert_int_eq(w.layout_ps, 7 * us);
	ck_assert_int_eq(w.layout_free_ps, 7 * us); /* no FLOPs: off the roofline */
	ck_assert_uint_eq(w.layout_count, 2);
	tc_model_destroy(m);

	/* 2^53 then three 1s, on two ops of one name (one op-table row): each
	 * addition rounds back to 2^53 one by one, where 2^53 + 3 would round
	 * up to 2^53 + 4. */
	m = tc_model_create();
	d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	s = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t big = cost_op(m, "k_mix", INT64_C(1) << 53, 1);
	uint32_t one = cost_op(m, "k_mix", 1, 1);
	tc_model_add_event(m, s, big, 0, us, 0);
	for (int i = 1; i <= 3; i++) {
		tc_model_add_event(m, s, one, i * 2 * us, us, 0);
	}
	tc_model_finalize(m);
	tc_devwork_scan(m, TC_NONE, &w);
	a = &w.cat[tc_devcat_of_kernel("k_mix", 5, NULL, 0, TC_OP_KERNEL)];
	ck_assert_uint_eq(a->count, 4);
	ck_assert(a->flops == 9007199254740992.0);
	size_t n;
	struct tc_op_summary *ops = tc_analyze_ops(m, tc_track_device_work, NULL, false, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ops[0].count, 4);
	ck_assert(ops[0].flops == 9007199254740992.0 && ops[0].bytes == 4);
	free(ops);
	tc_model_destroy(m);
}
END_TEST

/* The same with the costs on the events (per-event costs, read from the
 * cost column): a flat line is summed per cost key, and where the sums
 * would round, the per-event order holds. */
static void cost_event(struct tc_model *m, uint32_t track, uint32_t op, int64_t at, int64_t dur,
		int64_t flops, int64_t bytes) {
	uint32_t e = tc_model_add_event(m, track, op, at, dur, 0);
	uint32_t a = tc_model_args_begin(m);
	if (flops >= 0) {
		tc_model_arg_int(m, m->key.flops, flops);
	}
	tc_model_arg_int(m, m->key.bytes_accessed, bytes);
	tc_model_set_event_args(m, e, tc_model_args_end(m, a));
}

START_TEST(devwork_event_costs) {
	const int64_t us = 1000000;
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t s = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t g = cost_op(m, "volta_sgemm_128x64_nn", -1, -1);
	cost_event(m, s, g, 0, 20 * us, 100, 10);
	cost_event(m, s, g, 30 * us, 20 * us, 300, 10);
	cost_event(m, s, g, 60 * us, 20 * us, -1, 10); /* no FLOPs: off the roofline */
	tc_model_add_event(m, s, g, 90 * us, 20 * us, 0);
	tc_model_finalize(m);
	ck_assert(m->event_costs);
	struct tc_devwork w;
	tc_devwork_scan(m, TC_NONE, &w);
	const struct tc_devcat_acc *a = &w.cat[TC_DEVCAT_GEMM];
	ck_assert_uint_eq(a->count, 4);
	ck_assert(a->flops == 400 && a->bytes == 30);
	ck_assert_int_eq(w.fp32_ps, 80 * us);
	ck_assert_int_eq(w.fp32_free_ps, 40 * us);
	size_t n;
	struct tc_op_summary *ops = tc_analyze_ops(m, tc_track_device_work, NULL, false, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(ops[0].flops == 400 && ops[0].bytes == 30);
	free(ops);
	tc_model_destroy(m);

	m = tc_model_create();
	d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	s = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t k = cost_op(m, "k_mix", -1, -1);
	cost_event(m, s, k, 0, us, INT64_C(1) << 53, 1);
	for (int i = 1; i <= 3; i++) {
		cost_event(m, s, k, i * 2 * us, us, 1, 1);
	}
	tc_model_finalize(m);
	tc_devwork_scan(m, TC_NONE, &w);
	a = &w.cat[tc_devcat_of_kernel("k_mix", 5, NULL, 0, TC_OP_KERNEL)];
	ck_assert_uint_eq(a->count, 4);
	ck_assert(a->flops == 9007199254740992.0);
	ops = tc_analyze_ops(m, tc_track_device_work, NULL, false, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(ops[0].flops == 9007199254740992.0 && ops[0].bytes == 4);
	free(ops);
	tc_model_destroy(m);
}
END_TEST

static Suite *suite(void) {
	Suite *s = suite_create("devcat");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, launcher_names);
	tcase_add_test(tc, names);
	tcase_add_test(tc, fp32_math);
	tcase_add_test(tc, peaks_table);
	tcase_add_test(tc, peaks_ridge_range);
	tcase_add_test(tc, devwork_flat);
	tcase_add_test(tc, devwork_event_costs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	return tc_test_run(suite());
}
