/*
 * Check suite for util/: arena, strings, numbers and units, terminal text,
 * tables, short names, UTF-8, the protobuf wire reader and inflating.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "config.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif
#include "ingest/ingest.h"
#include "tc_test.h"
#include "util/arena.h"
#include "util/ascii.h"
#include "util/corr.h"
#include "util/cxxname.h"
#include "util/inflate.h"
#include "util/input.h"
#include "util/intern.h"
#include "util/outfile.h"
#include "util/pair.h"
#include "util/spill.h"
#include "util/num.h"
#include "util/numfmt.h"
#include "util/xalloc.h"
#include "util/pbkeep.h"
#include "util/pbwire.h"
#include "util/prefault.h"
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

START_TEST(prefault_hints) {
	/* Hints only fault pages in: contents stay, and bad ranges (freed,
	 * unmapped, read-only) are ignored. Without the kernel feature the calls
	 * are no-ops, which this checks as well. */
	bool on = tc_prefault_start();
	size_t n = 8u << 20;
	unsigned char *p = tc_xmalloc(n);
	memset(p, 0xab, n / 2);
	tc_prefault_hint(p, n);
	tc_prefault_next(p, 1, 0, n, n);
	tc_prefault_next(p, 1, n / 4, n / 4, n);
	tc_prefault_hint_read(p, n);
	tc_prefault_hint((void *)(uintptr_t)4096, 1u << 20);
	tc_prefault_hint(NULL, 0);
	tc_prefault_stop();
	for (size_t i = 0; i < n / 2; i += 4093) {
		ck_assert_uint_eq(p[i], 0xab);
	}
	p[n - 1] = 1;
	free(p);
	/* Stop twice, start again. */
	tc_prefault_stop();
	ck_assert(tc_prefault_start() == on);
	tc_prefault_stop();
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

static char *gzip_file(const char *data, size_t n) {
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/tc_gz_XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	gzFile g = gzopen(path, "wb");
	gzwrite(g, data, (unsigned)n);
	gzclose(g);
	return path;
}

/* in streams text back, read chunk bytes at a time; then it is finished. */
static void reads_back(struct tc_input *in, const char *text, size_t n, size_t chunk) {
	struct tc_error err;
	tc_error_init(&err);
	char *buf = malloc(chunk);
	size_t total = 0;
	ssize_t r;
	while ((r = tc_input_read(in, buf, chunk, &err)) > 0) {
		ck_assert(total + (size_t)r <= n && memcmp(buf, text + total, (size_t)r) == 0);
		total += (size_t)r;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(total, n);
	free(buf);
	tc_input_finish(in);
}

START_TEST(input_plain_and_gzip) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	char text[10000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)('a' + i % 26);
	}
	const char *p = tc_test_tmpfile(text, sizeof(text));
	struct tc_input in;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_NONE);
	ck_assert_uint_eq(in.head_len, TC_INPUT_HEAD);
	const uint8_t *d;
	size_t n;
	ck_assert(tc_input_map(&in, &d, &n, &err));
	ck_assert_uint_eq(n, sizeof(text));
	ck_assert(memcmp(d, text, n) == 0);
	tc_input_finish(&in);
	unlink(p);

	p = gzip_file(text, sizeof(text));
	ck_assert(tc_input_open(&in, p, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_GZIP);
	ck_assert(memcmp(in.head, text, in.head_len) == 0);
	reads_back(&in, text, sizeof(text), 777);
	unlink(p);
}
END_TEST

/* A plain file read in large chunks goes straight into the caller's buffer
 * once the read-ahead is drained: the same bytes, in order, after the head
 * and after small reads, and the size cap still holds. */
START_TEST(input_large_reads) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	size_t n = 3 * 256 * 1024 + 12345;
	char *text = malloc(n);
	for (size_t i = 0; i < n; i++) {
		text[i] = (char)(i * 7919 % 251);
	}
	const char *p = tc_test_tmpfile(text, n);
	struct tc_input in;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	reads_back(&in, text, n, 300 * 1024);

	/* Small reads first (the read-ahead half used), then large ones. */
	ck_assert(tc_input_open(&in, p, &lim, &err));
	char *buf = malloc(n);
	size_t got = 0;
	ssize_t r;
	for (int i = 0; i < 5; i++) {
		r = tc_input_read(&in, buf + got, 1000, &err);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	while ((r = tc_input_read(&in, buf + got, n - got < 400 * 1024 ? n - got + 1 : 400 * 1024,
			&err)) > 0) {
		got += (size_t)r;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(buf, text, n) == 0);
	tc_input_finish(&in);

	/* The cap counts bytes read straight into the buffer too. */
	lim.max_input = n - 1;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	got = 0;
	while ((r = tc_input_read(&in, buf, 300 * 1024, &err)) > 0) {
		got += (size_t)r;
	}
	ck_assert_int_eq(r, -1);
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_uint_le(got, n - 1);
	tc_input_finish(&in);
	unlink(p);
	free(buf);
	free(text);
}
END_TEST

START_TEST(input_errors) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	ck_assert(!tc_input_open(&in, "/nonexistent/x.pb", &lim, &err));
	ck_assert_int_eq(err.code, 3);
	ck_assert(strstr(err.msg, "cannot open") != NULL);

	/* A gzip stream cut in the middle is refused, not read short. */
	char text[50000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)(i * 7919 % 251);
	}
	const char *p = gzip_file(text, sizeof(text));
	size_t n;
	unsigned char *gz = tc_test_slurp(p, &n);
	unlink(p);
	p = tc_test_tmpfile(gz, n / 2);
	free(gz);
	tc_error_init(&err);
	bool ok = tc_input_open(&in, p, &lim, &err);
	if (ok) {
		const uint8_t *d;
		size_t len;
		ok = tc_input_map(&in, &d, &len, &err);
		tc_input_finish(&in);
	}
	ck_assert(!ok);
	ck_assert_int_eq(err.code, 3);
	ck_assert(strstr(err.msg, "truncated") != NULL);
	unlink(p);

	/* Decompressed-size cap. */
	lim.max_input = 1000;
	p = gzip_file(text, sizeof(text));
	tc_error_init(&err);
	ok = tc_input_open(&in, p, &lim, &err);
	if (ok) {
		const uint8_t *d;
		size_t len;
		ok = tc_input_map(&in, &d, &len, &err);
		tc_input_finish(&in);
	}
	ck_assert(!ok);
	ck_assert_int_eq(err.code, 5);
	unlink(p);
}
END_TEST

/* Stream all of data through the input layer, chunk bytes a read. */
struct drained {
	bool ok;
	int code;
	char msg[512];
	uint8_t *out;
	size_t len;
};

static struct drained drain(const uint8_t *data, size_t n, const struct tc_limits *lim,
		size_t chunk) {
	struct drained d = { 0 };
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	d.ok = tc_input_open_mem(&in, "t", data, n, lim, &err);
	if (d.ok) {
		size_t cap = 1 << 16;
		d.out = malloc(cap);
		ssize_t r;
		do {
			if (d.len + chunk > cap) {
				cap = 2 * (d.len + chunk);
				d.out = realloc(d.out, cap);
			}
			r = tc_input_read(&in, d.out + d.len, chunk, &err);
			d.len += r > 0 ? (size_t)r : 0;
		} while (r > 0);
		d.ok = r == 0;
		tc_input_finish(&in);
	}
	d.code = err.code;
	snprintf(d.msg, sizeof(d.msg), "%s", err.msg);
	return d;
}

/* ISA-L (where built in) and zlib inflate the same inputs to the same
 * bytes, and refuse damaged ones the same way: gzip and zlib format,
 * concatenated members, trailing bytes, every cut, flipped bytes, the
 * size cap. */
START_TEST(input_inflaters) {
	static uint8_t text[300000];
	static const char unit[] = "{\"ph\":\"X\",\"name\":\"k\"} ";
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (uint8_t)(unit[i % (sizeof(unit) - 1)] + (i / 4096) % 3);
	}
	size_t gz_len, zl_len;
	uint8_t *gz = tc_test_deflate(text, sizeof(text), 31, 6, &gz_len);
	uint8_t *zl = tc_test_deflate(text, sizeof(text), 15, 6, &zl_len);
	/* gzip -c a b, then a member and junk. */
	uint8_t *two = malloc(2 * gz_len + 8);
	memcpy(two, gz, gz_len);
	memcpy(two + gz_len, gz, gz_len);
	struct tc_limits lim[2];
	for (int k = 0; k < 2; k++) {
		tc_limits_default(&lim[k]);
		lim[k].zlib_inflate = k == 1;
	}
	static const size_t chunks[] = { 1, 777, 65536, 1 << 20 };
	for (int k = 0; k < 2; k++) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			struct drained d = drain(gz, gz_len, &lim[k], chunks[c]);
			ck_assert_msg(d.ok, "%s", d.msg);
			ck_assert(d.len == sizeof(text) && memcmp(d.out, text, d.len) == 0);
			free(d.out);
		}
		struct drained d = drain(zl, zl_len, &lim[k], 4096);
		ck_assert_msg(d.ok && d.len == sizeof(text) && memcmp(d.out, text, d.len) == 0,
			"zlib format, %s: %d %zu %s", k ? "zlib" : "default", d.ok, d.len, d.msg);
		free(d.out);
		d = drain(two, 2 * gz_len, &lim[k], 100000);
		ck_assert(d.ok && d.len == 2 * sizeof(text));
		ck_assert(memcmp(d.out + sizeof(text), text, sizeof(text)) == 0);
		free(d.out);
		memcpy(two + gz_len, "junk", 4);
		d = drain(two, gz_len + 4, &lim[k], 100000);
		ck_assert(d.ok && d.len == sizeof(text));
		free(d.out);
		memcpy(two + gz_len, gz, 4);
	}
	/* Damage: both inflaters agree on success, bytes and exit code. */
	uint8_t *bad = malloc(gz_len);
	for (size_t i = 0; i < 400; i++) {
		size_t cut = 2 + i * (gz_len - 2) / 400, at = (i * 7919) % gz_len;
		struct drained a = drain(gz, cut, &lim[0], 65536);
		struct drained b = drain(gz, cut, &lim[1], 65536);
		ck_assert_msg(!a.ok && !b.ok && a.code == 3 && b.code == 3,
			"cut %zu: %s / %s", cut, a.msg, b.msg);
		free(a.out);
		free(b.out);
		memcpy(bad, gz, gz_len);
		bad[at] ^= (uint8_t)(1 + i % 255);
		a = drain(bad, gz_len, &lim[0], 65536);
		b = drain(bad, gz_len, &lim[1], 65536);
		ck_assert_msg(a.ok == b.ok && a.code == b.code, "flip at %zu: %s / %s", at,
			a.msg, b.msg);
		if (a.ok) {
			ck_assert(a.len == b.len && memcmp(a.out, b.out, a.len) == 0);
		}
		free(a.out);
		free(b.out);
	}
	/* Whole buffers (Perfetto's bundles): the same, and a cut is refused. */
	for (size_t i = 0; i < 44; i++) {
		const uint8_t *src = i % 2 ? zl : gz;
		size_t whole = i % 2 ? zl_len : gz_len;
		size_t len = i < 4 ? whole : 2 + (i - 4) * (whole - 2) / 40;
		uint8_t *a = NULL, *b = NULL;
		size_t an = 0, bn = 0;
		struct tc_error e1, e2;
		tc_error_init(&e1);
		tc_error_init(&e2);
		bool oka = tc_inflate(src, len, 15 + 32, 1 << 20, &a, &an, &e1);
		bool okb = tc_inflate_zlib(src, len, 15 + 32, 1 << 20, &b, &bn, &e2);
		ck_assert_msg(oka == okb && oka == (i < 4), "%zu: %s / %s", i, e1.msg, e2.msg);
		if (oka) {
			ck_assert(an == sizeof(text) && bn == an && memcmp(a, b, an) == 0);
			free(a);
			free(b);
		} else {
			ck_assert(e1.code == 3 && e2.code == 3);
		}
	}
	free(bad);
	for (int k = 0; k < 2; k++) {
		struct tc_limits small = lim[k];
		small.max_input = 100000;
		struct drained d = drain(gz, gz_len, &small, 65536);
		ck_assert(!d.ok && d.code == 5);
		free(d.out);
	}
	/* A plain stream is held to the cap too (a pipe; JSON, read in pieces). */
	struct tc_limits small = lim[0];
	small.max_input = 100000;
	struct drained d = drain(text, sizeof(text), &small, 65536);
	ck_assert_msg(!d.ok && d.code == 5 && d.len <= small.max_input &&
		strstr(d.msg, "input size exceeds") != NULL, "%s", d.msg);
	free(d.out);
	free(two);
	free(zl);
	free(gz);
}
END_TEST

/* zstd: a whole input read in pieces, and buffers (Perfetto's bundles). */
START_TEST(input_zstd) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	static char text[300000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)('a' + i * 7 % 26);
	}
#if TC_HAVE_ZSTD
	size_t cap = ZSTD_compressBound(sizeof(text)) * 2;
	uint8_t *z = malloc(cap);
	/* Two frames: one stream. */
	size_t a = ZSTD_compress(z, cap, text, 1000, 1);
	size_t b = ZSTD_compress(z + a, cap - a, text + 1000, sizeof(text) - 1000, 9);
	ck_assert(!ZSTD_isError(a) && !ZSTD_isError(b));
	struct tc_input in;
	ck_assert(tc_input_open_mem(&in, "z", z, a + b, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_ZSTD);
	ck_assert_str_eq(tc_compression_name(in.comp), "zstd");
	reads_back(&in, text, sizeof(text), 999);

	/* Buffers: whole, capped, cut, damaged. */
	uint8_t *out;
	size_t n;
	ck_assert(tc_unzstd(z, a + b, sizeof(text), &out, &n, &err));
	ck_assert_uint_eq(n, sizeof(text));
	ck_assert(memcmp(out, text, n) == 0);
	free(out);
	ck_assert(!tc_unzstd(z, a + b, sizeof(text) - 1, &out, &n, &err));
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	tc_error_init(&err);
	ck_assert(!tc_unzstd(z, a + b - 3, sizeof(text), &out, &n, &err));
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	tc_error_init(&err);
	ck_assert(!tc_unzstd(z, 0, sizeof(text), &out, &n, &err));
	ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	tc_error_init(&err);
	z[1] ^= 0xff;
	ck_assert(!tc_unzstd(z, a + b, sizeof(text), &out, &n, &err));
	ck_assert_msg(strstr(err.msg, "corrupt") != NULL, "%s", err.msg);
	free(z);
#else
	static const uint8_t magic[] = { 0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0 };
	struct tc_input in;
	ck_assert(!tc_input_open_mem(&in, "z", magic, sizeof(magic), &lim, &err));
	ck_assert_msg(strstr(err.msg, "without libzstd") != NULL, "%s", err.msg);
	uint8_t *out;
	size_t n;
	tc_error_init(&err);
	ck_assert(!tc_unzstd(magic, sizeof(magic), 1000, &out, &n, &err));
	ck_assert_int_eq(err.code, 3);
	ck_assert_msg(strstr(err.msg, "without libzstd") != NULL, "%s", err.msg);
#endif
}
END_TEST

/* Host names from paths lose one compression suffix and one trace suffix. */
START_TEST(host_names) {
	struct tc_model *m = tc_model_create();
	static const char *const cases[][2] = {
		{ "/x/rank0.pt.trace.json.gz", "rank0" },
		{ "a.json.zst", "a" },
		{ "run/h1.xplane.pb", "h1" },
		{ "t.perfetto-trace.zst", "t" },
		{ "t.gz.zst", "t.gz" },
		{ "trace.json.json", "trace.json" },
		{ ".gz", ".gz" },
		{ "-", "stdin" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t h = tc_ingest_host_from_path(m, cases[i][0]);
		ck_assert_str_eq(tc_model_str(m, h), cases[i][1]);
	}
	tc_model_destroy(m);
}
END_TEST

START_TEST(outfile_atomic) {
	char path[] = "/tmp/tc_out_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old", 3), 3);
	close(fd);
	struct tc_outfile o;
	struct tc_error err;
	tc_error_init(&err);
	/* Onto an input: refused, the input untouched. */
	const char *inputs[] = { path };
	ck_assert(!tc_outfile_open(&o, path, inputs, 1, &err));
	ck_assert_int_eq(err.code, 4);
	/* Aborted output leaves the old content. */
	tc_error_init(&err);
	ck_assert(tc_outfile_open(&o, path, NULL, 0, &err));
	fputs("partial", o.fp);
	tc_outfile_abort(&o);
	size_t n;
	unsigned char *b = tc_test_slurp(path, &n);
	ck_assert_uint_eq(n, 3);
	free(b);
	/* Committed output replaces it. */
	ck_assert(tc_outfile_open(&o, path, NULL, 0, &err));
	fputs("new content", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	b = tc_test_slurp(path, &n);
	ck_assert_uint_eq(n, 11);
	free(b);
	unlink(path);
}
END_TEST

/* What -o does with links, modes, FIFOs, folder members and signals. */
static int count_tmp(const char *dir) {
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		n += strstr(de->d_name, ".tmp.") != NULL;
	}
	if (d) {
		closedir(d);
	}
	return n;
}

static void put(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
}

START_TEST(outfile_targets) {
	char dir[] = "/tmp/tc_outdir_XXXXXX";
	ck_assert(mkdtemp(dir) != NULL);
	char file[256], link_[256], fifo[256], longname[600];
	snprintf(file, sizeof(file), "%s/f.txt", dir);
	snprintf(link_, sizeof(link_), "%s/l.txt", dir);
	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	struct tc_outfile o;
	struct tc_error err;
	tc_error_init(&err);

	/* An existing file keeps its mode; a link keeps pointing at it. */
	put(file, "old");
	ck_assert_int_eq(chmod(file, 0604), 0);
	ck_assert_int_eq(symlink("f.txt", link_), 0);
	ck_assert(tc_outfile_open(&o, link_, NULL, 0, &err));
	ck_assert_str_eq(o.path, file);
	ck_assert_int_eq(count_tmp(dir), 1);
	fputs("new", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	struct stat st;
	ck_assert_int_eq(lstat(link_, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0604);
	size_t n;
	unsigned char *b = tc_test_slurp(file, &n);
	ck_assert(n == 3 && memcmp(b, "new", 3) == 0);
	free(b);

	/* The same file as an input read (a folder member): refused, by
	 * identity, whatever name it had. */
	ck_assert(tc_outfile_open(&o, link_, NULL, 0, &err));
	ck_assert(tc_outfile_check_input(&o, 1, 1, &err));
	ck_assert(!tc_outfile_check_input(&o, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &err));
	ck_assert_int_eq(err.code, TC_EXIT_OUTPUT);
	tc_outfile_abort(&o);
	ck_assert_int_eq(count_tmp(dir), 0);

	/* A FIFO is written through and stays a FIFO. */
	tc_error_init(&err);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert(tc_outfile_open(&o, fifo, NULL, 0, &err));
	ck_assert(o.tmp == NULL);
	fputs("through", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	char got[16] = { 0 };
	ck_assert_int_eq(read(rd, got, sizeof(got) - 1), 7);
	ck_assert_str_eq(got, "through");
	close(rd);
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	/* A 255-byte name has no room for the usual suffix. */
	int k = snprintf(longname, sizeof(longname), "%s/", dir);
	memset(longname + k, 'n', 255);
	longname[k + 255] = 0;
	ck_assert(tc_outfile_open(&o, longname, NULL, 0, &err));
	fputs("long", o.fp);
	ck_assert_msg(tc_outfile_commit(&o, &err), "%s", err.msg);
	ck_assert_int_eq(stat(longname, &st), 0);
	unlink(longname);

	/* What a signal handler does: the temporary file goes, the old output
	 * stays, and the output can still be dropped after. */
	ck_assert(tc_outfile_open(&o, file, NULL, 0, &err));
	fputs("partial", o.fp);
	fflush(o.fp);
	ck_assert_int_eq(count_tmp(dir), 1);
	tc_outfile_cleanup();
	ck_assert_int_eq(count_tmp(dir), 0);
	tc_outfile_abort(&o);
	b = tc_test_slurp(file, &n);
	ck_assert(n == 3 && memcmp(b, "new", 3) == 0);
	free(b);

	/* A folder is refused. */
	ck_assert(!tc_outfile_open(&o, dir, NULL, 0, &err));
	ck_assert_int_eq(err.code, TC_EXIT_OUTPUT);

	unlink(fifo);
	unlink(link_);
	unlink(file);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Bytes set aside come back as written, from the file or, where no file
 * can be made, from memory. */
static void spill_round_trip(void) {
	struct tc_spill s;
	tc_spill_init(&s);
	uint64_t at[64];
	unsigned char buf[1000];
	for (int i = 0; i < 64; i++) {
		memset(buf, i, sizeof(buf));
		at[i] = tc_spill_write(&s, buf, (size_t)(i * 13 % 1000));
	}
	for (int i = 63; i >= 0; i--) {
		size_t n = (size_t)(i * 13 % 1000);
		memset(buf, 0xff, sizeof(buf));
		tc_spill_read(&s, at[i], buf, n);
		for (size_t j = 0; j < n; j++) {
			ck_assert_int_eq(buf[j], i);
		}
		/* and from inside what one write put there */
		if (n > 10) {
			tc_spill_read(&s, at[i] + 5, buf, n - 5);
			ck_assert_int_eq(buf[n - 6], i);
		}
	}
	tc_spill_finish(&s);
}

/* A file that stops taking bytes (a full disk; here a file size limit)
 * leaves what it holds readable and the rest in memory. */
START_TEST(spill_file_full) {
	struct rlimit old;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = { 4096, old.rlim_max };
	struct tc_spill s;
	tc_spill_init(&s);
	ck_assert_int_ge(s.fd, 0);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	unsigned char buf[3000];
	uint64_t at[4];
	for (int i = 0; i < 4; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		at[i] = tc_spill_write(&s, buf, sizeof(buf));
	}
	ck_assert(s.full);
	ck_assert_int_eq(s.error, EFBIG);
	for (int i = 0; i < 4; i++) {
		memset(buf, 0, sizeof(buf));
		tc_spill_read(&s, at[i], buf, sizeof(buf));
		ck_assert_int_eq(buf[0], 'a' + i);
		ck_assert_int_eq(buf[sizeof(buf) - 1], 'a' + i);
	}
	tc_spill_finish(&s);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
}
END_TEST

START_TEST(spill_file_and_memory) {
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	spill_round_trip();
	setenv("TMPDIR", "/nonexistent-tracectl-dir", 1);
	struct tc_spill s;
	tc_spill_init(&s);
	ck_assert_int_lt(s.fd, 0);
	ck_assert_int_eq(s.error, ENOENT);
	ck_assert_str_eq(s.dir, "/nonexistent-tracectl-dir");
	tc_spill_finish(&s);
	spill_round_trip();
	if (keep) {
		setenv("TMPDIR", keep, 1);
		free(keep);
	} else {
		unsetenv("TMPDIR");
	}
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
	tcase_add_test(tc, spill_file_and_memory);
	tcase_add_test(tc, spill_file_full);
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
	tcase_add_test(tc, prefault_hints);
	tcase_add_test(tc, input_plain_and_gzip);
	tcase_add_test(tc, input_large_reads);
	tcase_add_test(tc, input_errors);
	tcase_add_test(tc, input_inflaters);
	tcase_add_test(tc, input_zstd);
	tcase_add_test(tc, host_names);
	tcase_add_test(tc, outfile_atomic);
	tcase_add_test(tc, outfile_targets);
	tcase_add_test(tc, run_pair);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
