/*
 * Check suite for util/: arena, strings, numbers and units, terminal text,
 * tables, short names, UTF-8, the protobuf wire reader, sorting and
 * threads. Files and streams (inputs, inflating, output and spill files)
 * are check_util_io.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tc_test.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/corr.h"
#include "util/cxxname.h"
#include "util/intern.h"
#include "util/pair.h"
#include "util/num.h"
#include "util/numfmt.h"
#include "util/xalloc.h"
#include "util/pbkeep.h"
#include "util/pbwire.h"
#include "util/term.h"
#include "util/termout.h"
#include "output/table.h"

/* s escaped for the terminal, through every entry point. */
static void check_term(const char *s, size_t n, const char *want) {
	char buf[256];
	ck_assert_uint_lt(4 * n + 1, sizeof(buf));
	size_t len = tc_term_escape(buf, s, n);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert_uint_eq(tc_term_escape(NULL, s, n), len);
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	tc_term_write(f, s, n);
	fclose(f);
	ck_assert_str_eq(mem, want);
	free(mem);
	if (strlen(s) == n) {
		char *d = tc_term_strdup(s);
		ck_assert_str_eq(d, want);
		free(d);
	}
}

/* s elided to max columns is want; a copy only when cut. */
static void check_elide(const char *s, size_t max, const char *want) {
	char *e = tc_text_elide(s, max);
	ck_assert_str_eq(e, want);
	ck_assert_uint_le(tc_text_width(e, strlen(e)), max);
	if (e != s) {
		free(e);
	}
}

/* The earliest record of an id wins, ids absent give UINT32_MAX, with
 * dense ids (an array by id) and sparse ones (sorted, binary search; the
 * bits of a negative int64 id among them). */
START_TEST(corr_index) {
	static const uint64_t sparse[] = { 7, 1000000000000ull, (uint64_t)-5 };
	for (int v = 0; v < 2; v++) {
		uint64_t a = v ? sparse[0] : 10, b = v ? sparse[1] : 11, c = v ? sparse[2] : 12;
		struct tc_corr recs[] = { { b, 40 }, { a, 30 }, { c, 20 }, { a, 10 }, { b, 50 } };
		struct tc_corr_index ix;
		tc_corr_index_init(&ix, recs, 5);
		ck_assert_msg((ix.direct == NULL) == (v == 1), "variant %d", v);
		ck_assert_uint_eq(tc_corr_index_find(&ix, a), 10);
		ck_assert_uint_eq(tc_corr_index_find(&ix, b), 40);
		ck_assert_uint_eq(tc_corr_index_find(&ix, c), 20);
		ck_assert_uint_eq(tc_corr_index_find(&ix, v ? 8 : 9), UINT32_MAX);
		ck_assert_uint_eq(tc_corr_index_find(&ix, v ? (uint64_t)-4 : 13), UINT32_MAX);
		tc_corr_index_finish(&ix);
	}
	struct tc_corr_index ix;
	tc_corr_index_init(&ix, NULL, 0);
	ck_assert_uint_eq(tc_corr_index_find(&ix, 1), UINT32_MAX);
	tc_corr_index_finish(&ix);
}
END_TEST

START_TEST(text_width_elide) {
	ck_assert_uint_eq(tc_text_width("", 0), 0);
	ck_assert_uint_eq(tc_text_width("abc", 3), 3);
	/* UTF-8 characters take one column; colour sequences none. */
	ck_assert_uint_eq(tc_text_width("\u00b5s \u8a08", strlen("\u00b5s \u8a08")), 4);
	ck_assert_uint_eq(tc_text_width("\033[1;31mhigh\033[0m", 15), 4);
	check_elide("short", 10, "short");
	check_elide("exactly10!", 10, "exactly10!");
	/* Both ends stay; the head gets the odd column. */
	check_elide("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<>, long>(int)", 30,
		"void Eigen::in...>, long>(int)");
	check_elide("abcdefghij", 9, "abc...hij");
	check_elide("abcdefghij", 8, "abc...ij");
	check_elide("abcdefghij", 5, "a...j");
	check_elide("abcdefghij", 4, "abcd");
	/* Never half a character: 2-byte and 3-byte sequences kept whole. */
	check_elide("\u00b5\u00b5\u00b5\u00b5\u00b5\u00b5\u00b5\u00b5", 7,
		"\u00b5\u00b5...\u00b5\u00b5");
	check_elide("\u8a08\u7b97\u8a08\u7b97\u8a08\u7b97", 5, "\u8a08...\u7b97");
}
END_TEST

START_TEST(text_elide_around) {
	const char *a = "void Eigen::internal::EigenMetaKernel<Eigen::TensorAssignOp<Eigen::TensorMap<"
		"Eigen::Tensor<float, 1, 1, long>>>, Eigen::GpuDevice>, long>(int)";
	/* Column 91 is where it differs from its look-alike ("float" there). */
	char *e = tc_text_elide_around(a, 40, 91);
	ck_assert_str_eq(e, "void Eigen::i...nsor<float, 1, ...>(int)");
	ck_assert_uint_le(tc_text_width(e, strlen(e)), 40);
	free(e);
	/* Near the start: one long head shows it. */
	e = tc_text_elide_around(a, 40, 12);
	ck_assert_str_eq(e, "void Eigen::internal::EigenMeta...>(int)");
	free(e);
	/* Near the end: a window there. */
	e = tc_text_elide_around(a, 40, 125);
	ck_assert_str_eq(e, "void Eigen::i...GpuDevice>, lon...>(int)");
	free(e);
	/* Narrow: plain middle elision. */
	e = tc_text_elide_around(a, 20, 91);
	ck_assert_str_eq(e, "void Eige...ng>(int)");
	free(e);
}
END_TEST

START_TEST(termout_columns) {
	ck_assert_uint_eq(tc_termout_columns("80", -1), 80);
	ck_assert_uint_eq(tc_termout_columns("120", -1), 120);
	/* Not a positive integer: the terminal's (none on fd -1), else none. */
	ck_assert_uint_eq(tc_termout_columns("0", -1), 0);
	ck_assert_uint_eq(tc_termout_columns("-5", -1), 0);
	ck_assert_uint_eq(tc_termout_columns("80x", -1), 0);
	ck_assert_uint_eq(tc_termout_columns("", -1), 0);
	ck_assert_uint_eq(tc_termout_columns(NULL, -1), 0);
	ck_assert_uint_eq(tc_termout_columns("99999999999", -1), 100000);
}
END_TEST

static char *wrapped(const char *s, size_t width) {
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	tc_text_wrap(f, s, strlen(s), width);
	fclose(f);
	return mem;
}

START_TEST(text_wrap) {
	char *w = wrapped("short line\n", 20);
	ck_assert_str_eq(w, "short line\n");
	free(w);
	w = wrapped("a fairly long line of words\n", 0);
	ck_assert_str_eq(w, "a fairly long line of words\n");
	free(w);
	/* Past a label, at separators in the last third of the room. */
	w = wrapped("steps      compute 1.0 %, d2h 2.0 %, d2d 3.0 %, input 4.0 %\n", 40);
	ck_assert_str_eq(w, "steps      compute 1.0 %, d2h 2.0 %,\n"
		"           d2d 3.0 %, input 4.0 %\n");
	free(w);
	/* A numbered item hangs under its text; no separator: at spaces. */
	w = wrapped(" 1. [high] host-bound: the host runs framework code\nnext\n", 30);
	ck_assert_str_eq(w, " 1. [high] host-bound: the\n    host runs framework code\nnext\n");
	free(w);
	/* One long word: cut at the width, nothing lost. */
	w = wrapped("abcdefghijklmnop", 10);
	ck_assert_str_eq(w, "abcdefghij\n  klmnop");
	free(w);
	/* Colour takes no room. */
	w = wrapped("\033[1mab\033[0m cd ef", 8);
	ck_assert_str_eq(w, "\033[1mab\033[0m cd ef");
	free(w);
}
END_TEST

static char *table_at(size_t width, bool optional) {
	static const char *const h[] = { "name", ">count", ">rare" };
	struct tc_table t;
	tc_table_init(&t, 3, h);
	tc_table_cell(&t, "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<>, long>(int)");
	tc_table_cell(&t, "12");
	tc_table_cell(&t, "1.5");
	tc_table_cell(&t, "MemcpyH2D");
	tc_table_cell(&t, "3");
	tc_table_cell(&t, "2.5");
	tc_table_elastic(&t, 0);
	if (optional) {
		tc_table_optional(&t, 2, 1);
	}
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	tc_g_termout.width = width;
	tc_table_print(&t, f, "  ");
	tc_g_termout.width = 0;
	fclose(f);
	tc_table_finish(&t);
	return mem;
}

START_TEST(table_fit) {
	/* No limit: nothing cut. */
	char *s = table_at(0, true);
	ck_assert_str_eq(s,
		"  name                                                                        count  rare\n"
		"  void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<>, long>(int)     12   1.5\n"
		"  MemcpyH2D                                                                       3   2.5\n");
	free(s);
	/* The name shrinks, cut in the middle, down to 30 columns. */
	s = table_at(50, true);
	ck_assert_str_eq(s,
		"  name                                 count  rare\n"
		"  void Eigen::inte...or<>, long>(int)     12   1.5\n"
		"  MemcpyH2D                                3   2.5\n");
	free(s);
	/* Then the optional column goes (and says so), the name grows back. */
	s = table_at(40, true);
	ck_assert_str_eq(s,
		"  name                             count\n"
		"  void Eigen::in...<>, long>(int)     12\n"
		"  MemcpyH2D                            3\n"
		"  rare: left out to fit 40 columns (--wide shows it)\n");
	free(s);
	/* Nothing to leave out: the name shrinks past 30 columns. */
	s = table_at(30, false);
	ck_assert_str_eq(s,
		"  name             count  rare\n"
		"  void E...>(int)     12   1.5\n"
		"  MemcpyH2D            3   2.5\n");
	free(s);
}
END_TEST

/* t as printed width columns wide, then finished. */
static char *printed(struct tc_table *t, size_t width) {
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	tc_g_termout.width = width;
	tc_table_print(t, f, "");
	tc_g_termout.width = 0;
	fclose(f);
	tc_table_finish(t);
	return mem;
}

/* Names a plain middle cut makes alike stay apart. */
START_TEST(table_lookalikes) {
	static const char *const h[] = { "op", ">n" };
	struct tc_table t;
	tc_table_init(&t, 2, h);
	tc_table_cell(&t, "void Eigen::internal::EigenMetaKernel<Eigen::TensorMap<Eigen::Tensor<float, "
		"1, 1, long>>, Eigen::GpuDevice>, long>(int)");
	tc_table_cell(&t, "1");
	tc_table_cell(&t, "void Eigen::internal::EigenMetaKernel<Eigen::TensorMap<Eigen::Tensor<bool, "
		"1, 1, long>>, Eigen::GpuDevice>, long>(int)");
	tc_table_cell(&t, "2");
	tc_table_elastic(&t, 0);
	char *mem = printed(&t, 40);
	ck_assert_str_eq(mem,
		"op                                     n\n"
		"void Eigen::...sor<float, 1,...>(int)  1\n"
		"void Eigen::...sor<bool, 1, ...>(int)  2\n");
	free(mem);
}
END_TEST

/* Kernel names from the shared traces (json/hta: trace_filter__sampled_rank-0,
 * nccl_parser_config__nccl_data; json/tracelens: h100-falconsai_nsfw; xplane:
 * xprof-tf_gpu_multiworker), each with its short name, and names that are not
 * C++ signatures, kept whole. */
static const char *const cxx_short[][2] = {
	{ "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(f"
		"loat*, float const*, int, int, int, bool const*, int, bool)",
		"softmax_warp_forward<float, float, float, 10, true, false>" },
	{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128,"
		" 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned"
		" int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, in"
		"t, unsigned int)",
		"native::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>" },
	{ "void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_ga"
		"ther_internal_kernel<false, at::native::OpaqueType<4> >::operator()<at::native::TensorAs"
		"sign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{lambda(i"
		"nt)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<false, at::native::OpaqueT"
		"ype<4> >::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at"
		"::native::TensorAssign const&)::{lambda(int)#1})",
		"native::_scatter_gather_elementwise_kernel<128, 4, _cuda_scatter_gather_internal_kernel<"
		"...>::{lambda(int)#1}>" },
	{ "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::CUDA"
		"Functor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)"
		"::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >"
		"(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1})",
		"native::elementwise_kernel<128, 2, gpu_kernel_impl<...>::{lambda(int)#1}>" },
	{ "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::MaxOps<fl"
		"oat>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MaxOps<float>, u"
		"nsigned int, float, 4>)",
		"native::reduce_kernel<128, 4, ReduceOp<...>>" },
	{ "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float, floa"
		"t, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorS"
		"truct, float*, float const*, float*, float*, float const*, float const*, float)",
		"cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>" },
	{ "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensor"
		"Struct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, floa"
		"t, float*, float*, float*, float*, float, float)",
		"cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>" },
	{ "aten::addmm",
		"aten::addmm" },
	{ "Memcpy HtoD (Pageable -> Device)",
		"Memcpy HtoD (Pageable -> Device)" },
	{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
		"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)" },
	{ "fusion.123",
		"fusion.123" },
	{ "ProfilerStep#5",
		"ProfilerStep#5" },
	{ "void gemm_kernel<...>(float const*, float*) (2 names)",
		"gemm_kernel<...> (2 names)" },
	{ "void foo<int(int)",
		"void foo<int(int)" },
	{ "void split_embedding_backward_kernel_1<...>(at::GenericPackedTensorAccessor<...>, at",
		"split_embedding_backward_kernel_1<...>" },
	{ "torch/nn/modules/module.py(1501): _call_impl",
		"torch/nn/modules/module.py(1501): _call_impl" },
};

/* Tables of look-alikes: cudnn batch norm forward and backward at three
 * block sizes, cub in two namespaces, Eigen kernels that differ deep inside. */
static const char *const cxx_bn[] = {
	"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float, floa"
		"t, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorS"
		"truct, float*, float const*, float*, float*, float const*, float const*, float)",
	"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float, float"
		", float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorSt"
		"ruct, float*, float const*, float*, float*, float const*, float const*, float)",
	"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, floa"
		"t, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorS"
		"truct, float*, float const*, float*, float*, float const*, float const*, float)",
	"void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_bw_1C11_args<floa"
		"t>)",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensor"
		"Struct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, floa"
		"t, float*, float*, float*, float*, float, float)",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 32, true, 1, true>(cudnnTensorS"
		"truct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float"
		", float*, float*, float*, float*, float, float)",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>(cudnnTensor"
		"Struct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, floa"
		"t, float*, float*, float*, float*, float, float)",
	"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_arg"
		"s<float>)",
};
static const char *const cxx_bn_short[] = {
	"cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>",
	"cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>",
	"cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>",
	"cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>",
	"cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>",
	"cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 32, true, 1, true>",
	"cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>",
	"cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>",
};
static const char *const cxx_cub[] = {
	"void at_cuda_detail::cub::DeviceScanInitKernel<at_cuda_detail::cub::ScanTileState<long, "
		"true> >(at_cuda_detail::cub::ScanTileState<long, true>, int)",
	"void cub::DeviceScanInitKernel<cub::ScanTileState<int, true> >(cub::ScanTileState<int, t"
		"rue>, int)",
	"void cub::DeviceScanInitKernel<cub::ScanTileState<long, true> >(cub::ScanTileState<long,"
		" true>, int)",
};
static const char *const cxx_cub_short[] = {
	"at_cuda_detail::cub::DeviceScanInitKernel<ScanTileState<long, true>>",
	"cub::DeviceScanInitKernel<ScanTileState<int, true>>",
	"cub::DeviceScanInitKernel<ScanTileState<long, true>>(ScanTileState<long, true>, int)",
};
static const char *const cxx_eigen[] = {
	"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen"
		"::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, int>, 16, Eigen::MakePointer>, Eigen::Tenso"
		"rBroadcastingOp<Eigen::array<int, 1ul> const, Eigen::TensorMap<Eigen::Tensor<Eigen::half"
		" const, 1, 1, int>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, int>"
		"(Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<Eigen::half"
		", 1, 1, int>, 16, Eigen::MakePointer>, Eigen::TensorBroadcastingOp<Eigen::array<int, 1ul"
		"> const, Eigen::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, int>, 16, Eigen::MakePo"
		"inter> const> const> const, Eigen::GpuDevice>, int)",
	"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen"
		"::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, int>, 16, Eigen::MakePointer>, Eigen::Tenso"
		"rCwiseBinaryOp<Eigen::internal::scalar_product_op<Eigen::half, Eigen::half>, Eigen::Tens"
		"orMap<Eigen::Tensor<Eigen::half const, 1, 1, int>, 16, Eigen::MakePointer> const, Eigen:"
		":TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, long>, 16, Eigen::MakePointer> const> "
		"const> const, Eigen::GpuDevice>, long>(Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eige"
		"n::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, int>, 16, Eigen::MakePointer>, Eigen::Tens"
		"orCwiseBinaryOp<Eigen::internal::scalar_product_op<Eigen::half, Eigen::half>, Eigen::Ten"
		"sorMap<Eigen::Tensor<Eigen::half const, 1, 1, int>, 16, Eigen::MakePointer> const, Eigen"
		"::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, long>, 16, Eigen::MakePointer> const>"
		" const> const, Eigen::GpuDevice>, long)",
	"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen"
		"::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, int>, 16, Eigen::MakePointer>, Eigen::Tenso"
		"rCwiseUnaryOp<Eigen::internal::scalar_left<Eigen::half, Eigen::half, Eigen::internal::sc"
		"alar_product_op<Eigen::half, Eigen::half>, false>, Eigen::TensorMap<Eigen::Tensor<Eigen:"
		":half const, 1, 1, int>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>,"
		" int>(Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<Eigen:"
		":half, 1, 1, int>, 16, Eigen::MakePointer>, Eigen::TensorCwiseUnaryOp<Eigen::internal::s"
		"calar_left<Eigen::half, Eigen::half, Eigen::internal::scalar_product_op<Eigen::half, Eig"
		"en::half>, false>, Eigen::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, int>, 16, Eig"
		"en::MakePointer> const> const> const, Eigen::GpuDevice>, int)",
};
static const char *const cxx_eigen_short[] = {
	"Eigen::internal::EigenMetaKernel<TensorEvaluator<TensorAssignOp<TensorMap<...>, TensorBr"
		"oadcastingOp<...> const> const, GpuDevice>, int>",
	"Eigen::internal::EigenMetaKernel<TensorEvaluator<...>, long>",
	"Eigen::internal::EigenMetaKernel<TensorEvaluator<TensorAssignOp<TensorMap<...>, TensorCw"
		"iseUnaryOp<...> const> const, GpuDevice>, int>",
};

START_TEST(cxxname_short) {
	for (size_t i = 0; i < sizeof(cxx_short) / sizeof(cxx_short[0]); i++) {
		char *got = tc_cxxname_short(cxx_short[i][0], 1);
		ck_assert_str_eq(got, cxx_short[i][1]);
		free(got);
	}
	/* every level shows the name, the last one whole */
	const char *s = cxx_bn[0];
	size_t prev = 0;
	for (unsigned level = 1; level < 40; level++) {
		char *got = tc_cxxname_short(s, level);
		ck_assert_uint_ge(strlen(got), prev);
		prev = strlen(got);
		free(got);
	}
	ck_assert_uint_eq(prev, strlen(s));
}
END_TEST

/* names shortened as a table does; two different names never read alike */
static void check_distinct(const char *const *names, const char *const *want, size_t n) {
	char **out = tc_xcalloc(n, sizeof(*out));
	tc_cxxname_distinct(names, n, out);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(out[i], want[i]);
		ck_assert_uint_le(strlen(out[i]), strlen(names[i]));
		for (size_t j = 0; j < i; j++) {
			ck_assert_int_eq(strcmp(out[i], out[j]) == 0, strcmp(names[i], names[j]) == 0);
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
	}
	free(out);
}

START_TEST(cxxname_distinct) {
#define D(x) check_distinct(x, x##_short, sizeof(x) / sizeof(x[0]))
	D(cxx_bn);
	D(cxx_cub);
	D(cxx_eigen);
#undef D
	/* equal names stay equal; the whole table of real names stays distinct */
	size_t n = sizeof(cxx_short) / sizeof(cxx_short[0]);
	const char **names = tc_xcalloc(2 * n, sizeof(*names));
	char **out = tc_xcalloc(2 * n, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		names[i] = names[n + i] = cxx_short[i][0];
	}
	tc_cxxname_distinct(names, 2 * n, out);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(out[i], out[n + i]);
		ck_assert_str_eq(out[i], cxx_short[i][1]);
	}
	for (size_t i = 0; i < 2 * n; i++) {
		free(out[i]);
	}
	free(out);
	free(names);
}
END_TEST

/* At 50 columns the cudnn batch-norm kernels no longer all read
 * "void cudnn::bn...": forward and backward, and each block size, show. */
START_TEST(table_short_names) {
	static const char *const h[] = { "op", ">n" };
	struct tc_table t;
	tc_table_init(&t, 2, h);
	for (size_t i = 0; i < sizeof(cxx_bn) / sizeof(cxx_bn[0]); i++) {
		tc_table_cell(&t, cxx_bn[i]);
		tc_table_cellf(&t, "%zu", i);
	}
	tc_table_elastic(&t, 0);
	tc_g_termout.short_names = true;
	char *mem = printed(&t, 50);
	tc_g_termout.short_names = false;
	ck_assert_str_eq(mem,
		"op                                               n\n"
		"cudnn::bn_bw_1C11_kern... float2, 128, true, 1>  0\n"
		"cudnn::bn_bw_1C11_kern..., float2, 32, true, 1>  1\n"
		"cudnn::bn_bw_1C11_kern... float2, 512, true, 1>  2\n"
		"cudnn::bn_bw_1C11_sing...t, 512, true, 1, 2, 0>  3\n"
		"cudnn::bn_fw_tr_1C11_k...t, 128, true, 1, true>  4\n"
		"cudnn::bn_fw_tr_1C11_k...nt, 32, true, 1, true>  5\n"
		"cudnn::bn_fw_tr_1C11_k...t, 512, true, 1, true>  6\n"
		"cudnn::bn_fw_tr_1C11_s...t, 512, true, 1, 2, 0>  7\n");
	free(mem);
}
END_TEST

START_TEST(term_escape) {
#define T(s, want) check_term(s, sizeof(s) - 1, want)
	T("", "");
	T("plain op_name:1", "plain op_name:1");
	T("a\\b", "a\\b"); /* a backslash stays as is */
	/* C0 controls: named where C has a name, else \xNN; DEL */
	T("\033[2Jx\ny", "\\x1b[2Jx\\ny");
	T("\033]0;title\007", "\\x1b]0;title\\x07");
	T("a\r\nb\tc", "a\\r\\nb\\tc");
	T("\001\037\177", "\\x01\\x1f\\x7f");
	/* C1 controls, UTF-8 C2 80..C2 9F; C2 A0 (NBSP) is printable */
	T("\302\200\302\233[2J\302\237", "\\u0080\\u009b[2J\\u009f");
	T("\302\240", "\302\240");
	/* valid multi-byte UTF-8 passes */
	T("µs 計算 \360\237\232\200", "µs 計算 \360\237\232\200");
	/* invalid UTF-8: lone continuation, bad lead, overlong, surrogate */
	T("a\200b", "a\\x80b");
	T("\377\376", "\\xff\\xfe");
	T("\300\257", "\\xc0\\xaf");
	T("\355\240\200", "\\xed\\xa0\\x80");
	T("\370\210\200\200\200", "\\xf8\\x88\\x80\\x80\\x80");
	/* truncated sequences: at the end and before an ASCII byte */
	T("ok\342\202", "ok\\xe2\\x82");
	T("\302", "\\xc2");
	T("\342\202x", "\\xe2\\x82x");
#undef T
	/* bytes past n are not read; an embedded NUL is escaped */
	check_term("ab\033", 2, "ab");
	check_term("a\0b", 3, "a\\x00b");
}
END_TEST

START_TEST(term_fprintf) {
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	/* %s arguments are escaped, the format's own newline is not */
	tc_term_fprintf(f, "%s: %d%%\n", "x\033[2J\n", 42);
	/* width pads the escaped text; precision cuts the input */
	tc_term_fprintf(f, "[%-6s|%6s|%.2s|%*s|%-*s]\n", "\t", "ab", "\033xyz", 3, "c", 3, "d");
	tc_term_fprintf(f, "%zu %" PRId64 " %" PRIu64 " %ld %lld %u %x %c %.3f %5.1e %s\n",
		(size_t)7, (int64_t)-8, (uint64_t)9, -10L, 11LL, 12u, 255u, 'z', 1.5, 2.0,
		"end");
	tc_term_fprintf(f, "%hhd %hu %jd %td %zd %Lg %p\n", (signed char)-1, (unsigned short)2,
		(intmax_t)3, (ptrdiff_t)-4, (ptrdiff_t)5, (long double)6, (void *)0);
	fclose(f);
	char want[256];
	snprintf(want, sizeof(want), "x\\x1b[2J\\n: 42%%\n"
		"[\\t    |    ab|\\x1bx|  c|d  ]\n"
		"7 -8 9 -10 11 12 ff z 1.500 2.0e+00 end\n"
		"-1 2 3 -4 5 6 %p\n", (void *)0);
	ck_assert_str_eq(mem, want);
	free(mem);
}
END_TEST

#include "util/utf8.h"

/* A cut never splits a sequence: 1-, 2-, 3- and 4-byte characters, cut
 * at every length; invalid runs of continuation bytes cut where asked. */
START_TEST(utf8_cut) {
	static const uint8_t s[] = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	static const size_t keep[13] = { 0, 1, 2, 2, 4, 4, 4, 7, 7, 7, 7, 11, 12 };
	for (size_t max = 0; max <= 13; max++) {
		size_t want = max > 12 ? 12 : keep[max];
		ck_assert_msg(tc_utf8_cut(s, 12, max) == want, "max %zu: %zu, want %zu", max,
			tc_utf8_cut(s, 12, max), want);
	}
	static const uint8_t bad[] = "a\x80\x80\x80\x80\x80";
	ck_assert_uint_eq(tc_utf8_cut(bad, 6, 4), 4);
	ck_assert_uint_eq(tc_utf8_cut(bad, 6, 0), 0);
}
END_TEST

/* The pair filter in front of keyword searches (runtime detection, device
 * categories) may only rule out what tc_ascii_contains_ci would not find:
 * every substring of a name, in any case, passes it. */
START_TEST(ascii_pairs_never_rule_out) {
	const char *names[] = { "fusion.123", "volta_sgemm_128x64_nn", "aten::Linear",
		"MemcpyH2D", "jax/_src/pjit.py", "Stream #7(Compute)", "x", "" };
	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
		const char *s = names[k];
		size_t n = strlen(s);
		uint64_t pairs = tc_ascii_pairs(s, n);
		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j <= n; j++) {
				char sub[64];
				for (size_t b = i; b < j; b++) {
					/* Both cases of every letter. */
					sub[b - i] = (char)((b & 1) ? tc_ascii_lower(s[b]) :
						(s[b] >= 'a' && s[b] <= 'z' ? s[b] - 32 : s[b]));
				}
				sub[j - i] = '\0';
				ck_assert_msg(tc_ascii_contains_ci(s, n, sub), "%s in %s", sub, s);
				ck_assert_msg(tc_ascii_may_contain(pairs, sub, j - i), "%s in %s", sub, s);
			}
		}
	}
	/* And it does rule out: no "mm" pair in a name of other pairs. */
	uint64_t pairs = tc_ascii_pairs("fusion.1", 8);
	ck_assert(!tc_ascii_may_contain(pairs, "gemm", 4) || !tc_ascii_may_contain(pairs, "cutlass", 7));
}
END_TEST

START_TEST(arena_basic) {
	struct tc_arena a;
	tc_arena_init(&a, 64);
	char *s = tc_arena_strdup(&a, "hello");
	ck_assert_str_eq(s, "hello");
	void *big = tc_arena_alloc(&a, 1000);
	ck_assert_ptr_nonnull(big);
	memset(big, 1, 1000);
	char *f = tc_arena_strfmt(&a, "%d-%s", 42, "x");
	ck_assert_str_eq(f, "42-x");
	ck_assert_uint_eq((uintptr_t)tc_arena_alloc(&a, 3) % 8, 0);
	tc_arena_finish(&a);
	tc_arena_finish(&a); /* finish twice is quiet */
}
END_TEST

static void keep_case(const uint8_t *in, size_t len, const struct tc_pb_keep *keep,
		const uint8_t *want, size_t want_len) {
	struct tc_arena a;
	tc_arena_init(&a, 64);
	uint8_t out[64];
	ck_assert_uint_le(len, sizeof(out));
	size_t n = tc_pb_keep_fields(&a, in, len, keep, out);
	ck_assert_uint_eq(n, want_len);
	ck_assert_int_eq(memcmp(out, want, n), 0);
	tc_arena_finish(&a);
}

START_TEST(pb_keep_fields) {
	/* 1: varint 300, then 1 as LEN (dropped); 2: { 3 as LEN (dropped), 3: 5 };
	 * 4: unknown (dropped). */
	static const uint8_t in[] = {
		0x08, 0xac, 0x02, 0x0a, 0x01, 'x', 0x12, 0x05, 0x1a, 0x01, 'y', 0x18, 0x05,
		0x20, 0x07,
	};
	static const uint8_t want[] = { 0x08, 0xac, 0x02, 0x12, 0x02, 0x18, 0x05 };
	static const struct tc_pb_keep sub[] = { { 3, TC_PB_VARINT, NULL }, { 0 } };
	static const struct tc_pb_keep keep[] = {
		{ 1, TC_PB_VARINT, NULL }, { 2, TC_PB_LEN, sub }, { 0 },
	};
	keep_case(in, sizeof(in), keep, want, sizeof(want));
}
END_TEST

START_TEST(pb_keep_wide_tags) {
	/* Tags of more than one byte: 58 varint 7; 31 packed {1, 2} and 31
	 * varint 3 (both kept); 45 as I64 (dropped). */
	static const uint8_t in[] = {
		0xd0, 0x03, 0x07, 0xfa, 0x01, 0x02, 0x01, 0x02, 0xe9, 0x02,
		1, 2, 3, 4, 5, 6, 7, 8, 0xf8, 0x01, 0x03,
	};
	static const uint8_t want[] = {
		0xd0, 0x03, 0x07, 0xfa, 0x01, 0x02, 0x01, 0x02, 0xf8, 0x01, 0x03,
	};
	static const struct tc_pb_keep keep[] = {
		{ 58, TC_PB_VARINT, NULL }, { 31, TC_PB_LEN, NULL }, { 31, TC_PB_VARINT, NULL },
		{ 45, TC_PB_VARINT, NULL }, { 0 },
	};
	keep_case(in, sizeof(in), keep, want, sizeof(want));
}
END_TEST

START_TEST(arena_reset) {
	struct tc_arena a;
	tc_arena_init(&a, 64);
	tc_arena_reset(&a); /* nothing yet */
	char *first = tc_arena_alloc(&a, 16);
	memset(tc_arena_alloc(&a, 1000), 2, 1000);
	tc_arena_reset(&a);
	ck_assert_uint_eq(a.total, 0);
	/* The kept block is handed out again from its start. */
	ck_assert_ptr_eq(tc_arena_alloc(&a, 16), first);
	tc_arena_finish(&a);
}
END_TEST

START_TEST(intern_ids) {
	struct tc_arena a;
	struct tc_intern t;
	tc_arena_init(&a, 0);
	tc_intern_init(&t, &a);
	ck_assert_uint_eq(tc_intern(&t, ""), 0);
	uint32_t x = tc_intern(&t, "abc");
	ck_assert_uint_eq(tc_intern(&t, "abc"), x);
	ck_assert_uint_ne(tc_intern(&t, "abd"), x);
	/* Embedded NUL keeps its length. */
	uint32_t y = tc_intern_n(&t, "a\0b", 3);
	ck_assert_uint_ne(y, tc_intern_n(&t, "a", 1));
	ck_assert_uint_eq(tc_intern_len(&t, y), 3);
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		tc_intern(&t, buf);
	}
	ck_assert_str_eq(tc_intern_str(&t, tc_intern(&t, "s4999")), "s4999");
	ck_assert_uint_eq(tc_intern_find(&t, "nope", 4), UINT32_MAX);
	ck_assert_uint_eq(tc_intern_find(&t, "abc", 3), x);
	tc_intern_finish(&t);
	tc_arena_finish(&a);
}
END_TEST

START_TEST(pb_varints) {
	/* -1 as int64: ten bytes. */
	const uint8_t neg1[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	const uint8_t *p = neg1;
	uint64_t v;
	ck_assert(tc_pb_varint(&p, neg1 + sizeof(neg1), &v));
	ck_assert_int_eq((int64_t)v, -1);
	ck_assert_ptr_eq(p, neg1 + 10);
	/* The derived Steps line id 0xdeadbeef sign-extended. */
	const uint8_t steps[] = { 0xef, 0xfd, 0xb6, 0xf5, 0xfd, 0xff, 0xff, 0xff, 0xff, 0x01 };
	p = steps;
	ck_assert(tc_pb_varint(&p, steps + sizeof(steps), &v));
	ck_assert_int_eq((int64_t)v, -559038737);
	/* Over-long: 11 bytes, or a 10th byte with more than one bit. */
	const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	p = over;
	ck_assert(!tc_pb_varint(&p, over + sizeof(over), &v));
	const uint8_t big10[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	p = big10;
	ck_assert(!tc_pb_varint(&p, big10 + sizeof(big10), &v));
	/* Truncated. */
	const uint8_t trunc[] = { 0x80, 0x80 };
	p = trunc;
	ck_assert(!tc_pb_varint(&p, trunc + 2, &v));
	ck_assert_int_eq(tc_pb_zigzag(3), -2);
	ck_assert_int_eq(tc_pb_zigzag(4), 2);
}
END_TEST

struct sr_item {
	int key;
	int order; /* position before sorting: checks stability */
};

static int cmp_sr(const void *pa, const void *pb) {
	const struct sr_item *a = pa, *b = pb;
	return a->key < b->key ? -1 : a->key > b->key;
}

static void check_sorted_stable(const struct sr_item *v, size_t n) {
	for (size_t i = 1; i < n; i++) {
		ck_assert_int_le(v[i - 1].key, v[i].key);
		if (v[i - 1].key == v[i].key) {
			ck_assert_int_lt(v[i - 1].order, v[i].order);
		}
	}
}

START_TEST(sort_runs) {
	/* Three sorted runs with keys repeated across runs, as steps gathered
	 * track by track are. */
	enum { N = 3000 };
	struct sr_item *v = tc_xmalloc(N * sizeof(*v));
	for (int i = 0; i < N; i++) {
		v[i] = (struct sr_item){ .key = (i % 1000) / 2, .order = i };
	}
	tc_sort_runs(v, N, sizeof(*v), cmp_sr);
	check_sorted_stable(v, N);
	ck_assert_int_eq(v[0].order, 0);
	ck_assert_int_eq(v[1].order, 1);
	ck_assert_int_eq(v[2].order, 1000);
	/* Unsorted input (many short runs) takes the qsort path; keys unique. */
	unsigned x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		v[i] = (struct sr_item){ .key = (int)(x >> 8) ^ i, .order = i };
	}
	tc_sort_runs(v, N, sizeof(*v), cmp_sr);
	check_sorted_stable(v, N);
	/* Already sorted, one element, none. */
	tc_sort_runs(v, N, sizeof(*v), cmp_sr);
	check_sorted_stable(v, N);
	tc_sort_runs(v, 1, sizeof(*v), cmp_sr);
	tc_sort_runs(NULL, 0, sizeof(*v), cmp_sr);
	free(v);
}
END_TEST

START_TEST(numfmt_units) {
	static const struct {
		int64_t ps;
		const char *want;
	} dur[] = {
		{ 0, "0" }, { 812, "812 ps" }, { -812, "-812 ps" }, { 8000, "8.000 ns" },
		{ 3250000, "3.250 us" }, { 12041000000, "12.041 ms" }, { 1500000000000, "1.500 s" },
		{ 78424430000000, "78.424 s" }, { -2500000000, "-2.500 ms" },
		/* Rounding never shows 1000.000 of a unit. */
		{ 999999999, "1.000 ms" }, { 999999, "999.999 ns" }, { 999999500, "1.000 ms" },
		{ 999499, "999.499 ns" }, { 3600000000000000, "3600.000 s" },
		{ INT64_MAX, "9223372.037 s" },
	};
	char b[TC_FMT_LEN];
	for (size_t i = 0; i < sizeof(dur) / sizeof(dur[0]); i++) {
		ck_assert_str_eq(tc_fmt_dur(b, dur[i].ps), dur[i].want);
	}
	ck_assert_str_eq(tc_fmt_bytes(b, 0), "0 B");
	ck_assert_str_eq(tc_fmt_bytes(b, 512), "512 B");
	ck_assert_str_eq(tc_fmt_bytes(b, 1536), "1.50 KiB");
	ck_assert_str_eq(tc_fmt_bytes(b, 3.2 * 1073741824.0), "3.20 GiB");
	ck_assert_str_eq(tc_fmt_rate(b, 1.2e12, "FLOP/s"), "1.20 TFLOP/s");
	ck_assert_str_eq(tc_fmt_rate(b, 2.5e9, "B/s"), "2.50 GB/s");
	ck_assert_str_eq(tc_fmt_rate(b, 12, "B/s"), "12.00 B/s");
	ck_assert_str_eq(tc_fmt_pct(b, 1, 8), "12.5 %");
	ck_assert_str_eq(tc_fmt_pct(b, 1, 0), "-");
	static const struct {
		uint64_t v;
		const char *want;
	} cnt[] = {
		{ 0, "0" }, { 999, "999" }, { 1000, "1,000" }, { 8772, "8,772" }, { 30001, "30,001" },
		{ UINT64_MAX, "18,446,744,073,709,551,615" },
	};
	for (size_t i = 0; i < sizeof(cnt) / sizeof(cnt[0]); i++) {
		ck_assert_str_eq(tc_fmt_count(b, cnt[i].v), cnt[i].want);
	}
	ck_assert_str_eq(tc_fmt_noun(b, 1, "step", "steps"), "1 step");
	ck_assert_str_eq(tc_fmt_noun(b, 0, "step", "steps"), "0 steps");
	ck_assert_str_eq(tc_fmt_noun(b, 5467, "kernel", "kernels"), "5,467 kernels");
	ck_assert_str_eq(tc_fmt_noun(b, 1, "finding", "findings"), "1 finding");
}
END_TEST

START_TEST(num_bounds) {
	ck_assert(tc_double_fits_i64(-9223372036854775808.0));
	ck_assert(!tc_double_fits_i64(9223372036854775808.0));
	ck_assert(tc_double_fits_i64(9.2e18));
	ck_assert(!tc_double_fits_i64(NAN));
	ck_assert_int_eq(tc_sat_add(INT64_MAX - 1, 5), INT64_MAX);
	ck_assert_int_eq(tc_sat_add(INT64_MIN + 1, -5), INT64_MIN);
	ck_assert_int_eq(tc_sat_add(3, -5), -2);
}
END_TEST

START_TEST(pb_fields) {
	/* field 1 varint 150, field 2 "hi", field 3 fixed64 1.5, field 4 fixed32 7 */
	const uint8_t msg[] = {
		0x08, 0x96, 0x01,
		0x12, 0x02, 'h', 'i',
		0x19, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
		0x25, 7, 0, 0, 0,
	};
	struct tc_pb r;
	struct tc_pb_field f;
	tc_pb_init(&r, msg, msg, sizeof(msg));
	ck_assert_int_eq(tc_pb_next(&r, &f), 1);
	ck_assert_uint_eq(f.num, 1);
	ck_assert_uint_eq(f.u, 150);
	ck_assert_int_eq(tc_pb_next(&r, &f), 1);
	ck_assert_uint_eq(f.wt, TC_PB_LEN);
	ck_assert_uint_eq(f.len, 2);
	ck_assert(memcmp(f.data, "hi", 2) == 0);
	ck_assert_int_eq(tc_pb_next(&r, &f), 1);
	ck_assert(tc_pb_double(f.u) == 1.5);
	ck_assert_int_eq(tc_pb_next(&r, &f), 1);
	ck_assert_uint_eq(f.u, 7);
	ck_assert_int_eq(tc_pb_next(&r, &f), 0);

	/* A length past the end of the message. */
	const uint8_t past[] = { 0x0a, 0x05, 'a', 'b' };
	tc_pb_init(&r, past, past, sizeof(past));
	ck_assert_int_eq(tc_pb_next(&r, &f), -1);
	ck_assert_int_eq(tc_pb_offset(&r), 0);
	ck_assert_ptr_nonnull(r.why);
	/* Group wire type is corruption. */
	const uint8_t grp[] = { 0x08, 0x01, 0x0b };
	tc_pb_init(&r, grp, grp, sizeof(grp));
	ck_assert_int_eq(tc_pb_next(&r, &f), 1);
	ck_assert_int_eq(tc_pb_next(&r, &f), -1);
	ck_assert_int_eq(tc_pb_offset(&r), 2);
	/* Field number 0 is invalid. */
	const uint8_t zero[] = { 0x00, 0x01 };
	tc_pb_init(&r, zero, zero, sizeof(zero));
	ck_assert_int_eq(tc_pb_next(&r, &f), -1);
	/* Truncated fixed64. */
	const uint8_t t64[] = { 0x09, 1, 2, 3 };
	tc_pb_init(&r, t64, t64, sizeof(t64));
	ck_assert_int_eq(tc_pb_next(&r, &f), -1);
}
END_TEST

/* Each side's own count, and which thread ran it. */
struct pair_side {
	int runs;
	pthread_t by;
};

static void *pair_fn(void *p) {
	struct pair_side *s = p;
	s->runs++;
	s->by = pthread_self();
	return NULL;
}

START_TEST(run_pair) {
	/* Each side runs once, here first on this thread; with two, the
	 * other on a thread of its own, else here too. */
	for (int two = 0; two < 2; two++) {
		struct pair_side a = { 0 }, b = { 0 };
		tc_run_pair(pair_fn, &a, &b, two);
		ck_assert_int_eq(a.runs, 1);
		ck_assert_int_eq(b.runs, 1);
		ck_assert(pthread_equal(a.by, pthread_self()));
		ck_assert(two ? !pthread_equal(b.by, pthread_self()) : pthread_equal(b.by, pthread_self()));
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, corr_index);
	tcase_add_test(tc, ascii_pairs_never_rule_out);
	tcase_add_test(tc, arena_basic);
	tcase_add_test(tc, arena_reset);
	tcase_add_test(tc, pb_keep_fields);
	tcase_add_test(tc, pb_keep_wide_tags);
	tcase_add_test(tc, term_escape);
	tcase_add_test(tc, text_width_elide);
	tcase_add_test(tc, text_elide_around);
	tcase_add_test(tc, termout_columns);
	tcase_add_test(tc, text_wrap);
	tcase_add_test(tc, table_fit);
	tcase_add_test(tc, table_lookalikes);
	tcase_add_test(tc, cxxname_short);
	tcase_add_test(tc, cxxname_distinct);
	tcase_add_test(tc, table_short_names);
	tcase_add_test(tc, term_fprintf);
	tcase_add_test(tc, utf8_cut);
	tcase_add_test(tc, intern_ids);
	tcase_add_test(tc, pb_varints);
	tcase_add_test(tc, pb_fields);
	tcase_add_test(tc, num_bounds);
	tcase_add_test(tc, numfmt_units);
	tcase_add_test(tc, sort_runs);
	tcase_add_test(tc, run_pair);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
