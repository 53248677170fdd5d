#ifndef TC_ANALYSIS_OPCOST_H
#define TC_ANALYSIS_OPCOST_H

/*
 * FLOPs and bytes of a framework op from the shapes the profiler recorded
 * (Kineto record_shapes: "Input Dims", "Input type", "Concrete Inputs"),
 * with TraceLens's definitions (docs/analysis.md, "Op costs from shapes").
 * Pure functions: no model, no I/O. Every count is exact in int64; a count
 * that would overflow, or a shape that does not fit the op, is unknown (-1).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_OPCOST_MAX_IN 32
#define TC_OPCOST_MAX_RANK 8

/* One op call's recorded inputs, parsed. */
struct tc_opargs {
	size_t n;                          /* inputs (the longest of the lists) */
	int rank[TC_OPCOST_MAX_IN];        /* -1: no shape (a scalar, a list, none) */
	int64_t dim[TC_OPCOST_MAX_IN][TC_OPCOST_MAX_RANK];
	int bpe[TC_OPCOST_MAX_IN];         /* bytes per element of its type, 0 unknown */
	/* Concrete Inputs: each value's text, a span of the string parsed */
	const char *conc[TC_OPCOST_MAX_IN];
	size_t conc_len[TC_OPCOST_MAX_IN];
};

enum tc_opcost_class {
	TC_OPCOST_NONE = 0,
	TC_OPCOST_GEMM,
	TC_OPCOST_SDPA,
	TC_OPCOST_CONV_FWD,
	TC_OPCOST_CONV_BWD,
	TC_OPCOST_ELEMENTWISE,
	TC_OPCOST_REDUCTION,
	TC_OPCOST_NORM,
};

struct tc_opcost {
	enum tc_opcost_class cls;
	int64_t flops; /* per call, -1 unknown */
	int64_t bytes; /* per call, -1 unknown */
};

/* Parse the three args' texts (any may be NULL); false when a given one is
 * not a list of the expected form. */
bool tc_opargs_parse(struct tc_opargs *a, const char *dims, const char *types,
	const char *concrete);
/* Bytes per element of a recorded type name ("c10::BFloat16", "float"),
 * 0 for Scalar, ScalarList and unknown names. */
int tc_opcost_dtype_bpe(const char *s, size_t n);

/* The cost of op `name` (an aten:: name) called with a; false (cls NONE,
 * -1 costs) when the op has no cost model or its shapes do not fit one. */
bool tc_opcost_of(const char *name, const struct tc_opargs *a, struct tc_opcost *out);
const char *tc_opcost_class_name(enum tc_opcost_class c);

/* The formulas, one per op family. Sizes are element counts; bpe bytes. */
int64_t tc_opcost_gemm_flops(int64_t batch, int64_t m, int64_t n, int64_t k, bool bias);
int64_t tc_opcost_gemm_bytes(int64_t batch, int64_t m, int64_t n, int64_t k, bool bias,
	int bpe_in, int bpe_out);
int64_t tc_opcost_sdpa_flops(int64_t b, int64_t h_q, int64_t n_q, int64_t n_kv, int64_t d_qk,
	int64_t d_v, bool causal);
int64_t tc_opcost_sdpa_bytes(int64_t b, int64_t h_q, int64_t h_kv, int64_t n_q, int64_t n_kv,
	int64_t d_qk, int64_t d_v, int bpe);
/* One spatial output size of a convolution, -1 when not positive. */
int64_t tc_opcost_conv_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad,
	int64_t dil, bool transposed, int64_t out_pad);
/* x, w and out are full shapes (batch, channels, spatial...) of rank nd + 2. */
int64_t tc_opcost_conv_flops(const int64_t *x, const int64_t *w, const int64_t *out, int rank,
	bool bias, bool transposed);
int64_t tc_opcost_conv_bytes(const int64_t *x, const int64_t *w, const int64_t *out, int rank,
	int64_t groups, bool transposed, int bpe);
int64_t tc_opcost_conv_bwd_flops(const int64_t *x, const int64_t *w, const int64_t *out,
	int rank, bool bias, bool transposed);
int64_t tc_opcost_conv_bwd_bytes(const int64_t *x, const int64_t *w, const int64_t *out,
	int rank, int bpe);
/* Elementwise: n_out outputs of bpe_out; the inputs' bytes given summed. */
int64_t tc_opcost_elementwise_flops(int64_t n_out);
int64_t tc_opcost_elementwise_bytes(int64_t in_bytes, int64_t n_out, int bpe_out);
int64_t tc_opcost_reduction_flops(int64_t n_in);
int64_t tc_opcost_reduction_bytes(int64_t n_in, int64_t n_out, int bpe);
/* Normalization over n elements with n_param affine elements (weight and
 * bias together). */
int64_t tc_opcost_norm_flops(int64_t n, int64_t n_param);
int64_t tc_opcost_norm_bytes(int64_t n, int64_t n_param, int bpe);

#endif
