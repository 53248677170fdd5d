/*
 * Device-work categories (GEMM, convolution, attention, ...) from the
 * launching op's name, the kernel's name and the writer's category. Pure:
 * no model, no allocation (the keywords' pair sets are worked out once).
 */
#include <pthread.h>
#include <string.h>
#include "model/devcat.h"
#include "util/ascii.h"

static const char *const names[TC_DEVCAT_COUNT] = {
	[TC_DEVCAT_NONE] = "(none)",
	[TC_DEVCAT_GEMM] = "GEMM",
	[TC_DEVCAT_CONV_FWD] = "CONV_fwd",
	[TC_DEVCAT_CONV_BWD] = "CONV_bwd",
	[TC_DEVCAT_ATTENTION] = "attention",
	[TC_DEVCAT_ELEMENTWISE] = "elementwise",
	[TC_DEVCAT_REDUCTION] = "reduction",
	[TC_DEVCAT_NORMALIZATION] = "normalization",
	[TC_DEVCAT_SOFTMAX] = "softmax",
	[TC_DEVCAT_EMBEDDING] = "embedding",
	[TC_DEVCAT_LAYOUT] = "layout",
	[TC_DEVCAT_COLLECTIVE] = "collective",
	[TC_DEVCAT_MEMCPY] = "memcpy",
	[TC_DEVCAT_MEMSET] = "memset",
	[TC_DEVCAT_OTHER] = "other",
};

const char *tc_devcat_name(enum tc_devcat c) {
	return (unsigned)c < TC_DEVCAT_COUNT ? names[c] : names[TC_DEVCAT_OTHER];
}

static bool has(const char *s, size_t n, const char *needle) {
	return tc_ascii_contains_ci(s, n, needle);
}

/* A keyword list (NULL-terminated) and each keyword's pairs
 * (tc_ascii_needle_pairs), worked out once: a name's pairs rule out most
 * keywords without a pass over the name. */
#define KEYWORDS_MAX 24
struct keywords {
	const char *const *word;
	uint64_t pairs[KEYWORDS_MAX];
};

static bool has_any(const char *s, size_t n, uint64_t pairs, const struct keywords *kw) {
	for (size_t i = 0; kw->word[i]; i++) {
		if ((pairs & kw->pairs[i]) == kw->pairs[i] && has(s, n, kw->word[i])) {
			return true;
		}
	}
	return false;
}

static inline bool has_p(const char *s, size_t n, uint64_t pairs, const char *needle) {
	return tc_ascii_may_contain(pairs, needle, strlen(needle)) && has(s, n, needle);
}

static bool equal(const char *s, size_t n, const char *lit) {
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static bool one_of(const char *s, size_t n, const char *const *lits) {
	for (; *lits; lits++) {
		if (equal(s, n, *lits)) {
			return true;
		}
	}
	return false;
}

/* ---- the launching op: ATen names, as TraceLens groups them ---- */

static const char *const l_gemm[] = { "mm", "addmm", "bmm", "baddbmm", "addbmm", "linear",
	"matmul", "scaled_mm", "addmm_activation", "mv", "addmv", "dot", "vdot", "einsum",
	"int_mm", "grouped_mm", "scaled_grouped_mm", NULL };
static const char *const l_attn[] = { "scaled_dot_product_attention",
	"scaled_dot_product_flash_attention", "scaled_dot_product_efficient_attention",
	"scaled_dot_product_cudnn_attention", "flash_attention_forward",
	"flash_attention_backward", "efficient_attention_forward",
	"efficient_attention_backward", "scaled_dot_product_flash_attention_backward",
	"scaled_dot_product_efficient_attention_backward",
	"scaled_dot_product_cudnn_attention_backward", NULL };
static const char *const l_norm[] = { "layer_norm", "native_layer_norm",
	"native_layer_norm_backward", "batch_norm", "native_batch_norm",
	"native_batch_norm_backward", "cudnn_batch_norm", "cudnn_batch_norm_backward",
	"miopen_batch_norm", "miopen_batch_norm_backward", "batch_norm_impl_index",
	"batch_norm_impl_index_backward", "group_norm", "native_group_norm",
	"native_group_norm_backward", "instance_norm", "rms_norm", "fused_rms_norm",
	"fused_rms_norm_backward", "batch_norm_elemt", "batch_norm_stats",
	"batch_norm_backward_elemt", "batch_norm_backward_reduce", NULL };
static const char *const l_softmax[] = { "softmax", "log_softmax", "softmax_backward_data",
	"log_softmax_backward_data", "safe_softmax", NULL };
static const char *const l_embed[] = { "embedding", "embedding_backward",
	"embedding_dense_backward", "embedding_bag", "embedding_bag_backward", "index_select",
	"index_select_backward", "gather", "scatter", "scatter_add", "scatter_reduce", "index",
	"index_put", "index_add", "index_copy", "take", "masked_select", "index_put_impl", NULL };
static const char *const l_layout[] = { "transpose", "permute", "contiguous", "cat", "stack",
	"flip", "roll", "repeat", "t", "clone", "pixel_shuffle", "channel_shuffle",
	"constant_pad_nd", "pad", NULL };
static const char *const l_reduce[] = { "sum", "mean", "all", "any", "max", "min", "amax",
	"amin", "argmax", "argmin", "prod", "var", "std", "var_mean", "std_mean", "norm",
	"linalg_vector_norm", "cumsum", "cumprod", "logsumexp", "aminmax", "topk", "sort",
	"nansum", "count_nonzero", NULL };
static const char *const l_elem[] = { "add", "sub", "mul", "div", "pow", "rsqrt", "sqrt", "exp",
	"exp2", "log", "log2", "log1p", "neg", "abs", "sin", "cos", "tanh", "sigmoid", "relu",
	"gelu", "silu", "hardtanh", "leaky_relu", "elu", "mish", "threshold", "threshold_backward",
	"gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward", "copy", "to",
	"to_copy", "fill", "zero", "zeros", "ones", "full", "eq", "ne", "lt", "gt", "le", "ge",
	"where", "clamp", "clamp_min", "clamp_max", "masked_fill", "dropout", "native_dropout",
	"native_dropout_backward", "fused_dropout", "reciprocal", "erf", "floor", "ceil", "round",
	"sign", "maximum", "minimum", "logical_and", "logical_or", "logical_not", "bitwise_and",
	"bitwise_or", "bitwise_not", "addcmul", "addcdiv", "lerp", "sgn", "square", "fmod",
	"remainder", "tril", "triu", "isnan", "isinf", "nan_to_num", "foreach_add", "foreach_mul",
	"foreach_div", "foreach_sub", "foreach_addcmul", "foreach_addcdiv", "foreach_sqrt",
	"foreach_lerp", "fused_adam", "fused_adamw", "fused_sgd", NULL };

enum tc_devcat tc_devcat_of_launcher(const char *name, size_t n) {
	if (!name || n < 7 || memcmp(name, "aten::", 6) != 0) {
		return TC_DEVCAT_NONE;
	}
	const char *s = name + 6;
	n -= 6;
	/* The ATen spelling of one op varies: "_softmax", "add_", "_foreach_add_". */
	while (n > 1 && s[0] == '_') {
		s++;
		n--;
	}
	while (n > 1 && s[n - 1] == '_') {
		n--;
	}
	if (one_of(s, n, l_gemm)) {
		return TC_DEVCAT_GEMM;
	}
	/* convolution, _convolution, cudnn_convolution[_transpose], conv2d, ... */
	if (has(s, n, "convolution") || (n >= 6 && memcmp(s, "conv", 4) == 0 &&
			s[4] >= '1' && s[4] <= '3' && s[5] == 'd') || has(s, n, "conv_depthwise")) {
		return has(s, n, "backward") ? TC_DEVCAT_CONV_BWD : TC_DEVCAT_CONV_FWD;
	}
	if (one_of(s, n, l_attn)) {
		return TC_DEVCAT_ATTENTION;
	}
	if (one_of(s, n, l_norm)) {
		return TC_DEVCAT_NORMALIZATION;
	}
	if (one_of(s, n, l_softmax)) {
		return TC_DEVCAT_SOFTMAX;
	}
	if (one_of(s, n, l_embed)) {
		return TC_DEVCAT_EMBEDDING;
	}
	if (one_of(s, n, l_layout)) {
		return TC_DEVCAT_LAYOUT;
	}
	if (one_of(s, n, l_reduce)) {
		return TC_DEVCAT_REDUCTION;
	}
	if (one_of(s, n, l_elem)) {
		return TC_DEVCAT_ELEMENTWISE;
	}
	return TC_DEVCAT_NONE;
}

/* ---- the kernel's own name and its writer's category ---- */

/* XProf's hlo_category values (TPU and GPU op profiles). */
static enum tc_devcat of_hlo_category(const char *cat, size_t n, const char *name, size_t nn) {
	if (!cat || !n) {
		return TC_DEVCAT_NONE;
	}
	if (has(cat, n, "convolution")) {
		/* XLA puts dots and convolutions in one category. */
		return has(name, nn, "conv") && !has(name, nn, "convert") ? TC_DEVCAT_CONV_FWD :
			TC_DEVCAT_GEMM;
	}
	if (has(cat, n, "data formatting") || has(cat, n, "transpose")) {
		return TC_DEVCAT_LAYOUT;
	}
	if (has(cat, n, "reduce")) {
		return TC_DEVCAT_REDUCTION;
	}
	if (has(cat, n, "elementwise") || has(cat, n, "loop fusion")) {
		return TC_DEVCAT_ELEMENTWISE;
	}
	if (has(cat, n, "gather") || has(cat, n, "scatter")) {
		return TC_DEVCAT_EMBEDDING;
	}
	return TC_DEVCAT_NONE;
}

static const char *const k_attn[] = { "flash", "fmha", "attn", "attention", "sdpa", "mha_fwd",
	"mha_bwd", NULL };
static const char *const k_conv[] = { "convolution", "convolve", "conv2d", "conv3d", "conv1d",
	"fprop", "dgrad", "wgrad", "scudnn", "hcudnn", "implicit_gemm", "igemm_", "winograd",
	"conv_fusion", "miopen", "naive_conv", "fft2d_", "fft3d_", NULL };
static const char *const k_conv_bwd[] = { "dgrad", "wgrad", "bwd", "wrw", "backward",
	"bprop", NULL };
static const char *const k_gemm[] = { "gemm", "cijk_", "cublas", "cutlass", "matmul", "dot_",
	"dot.", "_dot", "xmma_", "wgmma", "hipblaslt", "rocblas", NULL };
static const char *const k_norm[] = { "layer_norm", "layernorm", "batch_norm", "batchnorm",
	"group_norm", "groupnorm", "rms_norm", "rmsnorm", "instance_norm", "instancenorm", "bn_fw",
	"bn_bw", "normalization", NULL };
static const char *const k_embed[] = { "embedding", "index_select", "indexselect", "gather",
	"scatter", "indexing_backward", "index_put", "index_elementwise", "take_", NULL };
static const char *const k_layout[] = { "transpose", "permute", "nchwtonhwc", "nhwctonchw",
	"catarraybatchedcopy", "concatenate", "copy_fusion", "wrapped_copy", NULL };
static const char *const k_reduce[] = { "reduce", "reduction", "triton_red_", "triton_per_",
	"argmax", "argmin", NULL };
static const char *const k_elem[] = { "elementwise", "triton_poi_", "loop_", "eigenmetakernel",
	"convert", "fill", "philox", "dropout", "functor", "broadcast", "subtensorop", "copy_kernel",
	"_fusion", "activation", "relu", "gelu", "silu", "sigmoid", "tanh", "clamp", NULL };

#define KEYWORDS(name, list) \
	static struct keywords name = { list, { 0 } }; \
	_Static_assert(sizeof(list) / sizeof(*(list)) <= KEYWORDS_MAX + 1, #list " too long")
KEYWORDS(kw_attn, k_attn);
KEYWORDS(kw_conv, k_conv);
KEYWORDS(kw_conv_bwd, k_conv_bwd);
KEYWORDS(kw_gemm, k_gemm);
KEYWORDS(kw_norm, k_norm);
KEYWORDS(kw_embed, k_embed);
KEYWORDS(kw_layout, k_layout);
KEYWORDS(kw_reduce, k_reduce);
KEYWORDS(kw_elem, k_elem);
static pthread_once_t kw_once = PTHREAD_ONCE_INIT;

static void keywords_init(void) {
	struct keywords *const all[] = { &kw_attn, &kw_conv, &kw_conv_bwd, &kw_gemm, &kw_norm,
		&kw_embed, &kw_layout, &kw_reduce, &kw_elem };
	for (size_t k = 0; k < sizeof(all) / sizeof(*all); k++) {
		for (size_t i = 0; all[k]->word[i]; i++) {
			const char *w = all[k]->word[i];
			all[k]->pairs[i] = tc_ascii_needle_pairs(w, strlen(w));
		}
	}
}

static bool name_equal_ci(const char *s, size_t n, const char *lit) {
	if (strlen(lit) != n) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (tc_ascii_lower(s[i]) != lit[i]) {
			return false;
		}
	}
	return true;
}

enum tc_devcat tc_devcat_of_kernel(const char *name, size_t n, const char *cat, size_t cat_len,
		enum tc_op_kind kind) {
	if (kind == TC_OP_COLLECTIVE) {
		return TC_DEVCAT_COLLECTIVE;
	}
	if (kind >= TC_OP_MEMCPY_H2D && kind <= TC_OP_MEMCPY_OTHER) {
		return TC_DEVCAT_MEMCPY;
	}
	/* Some ninety keywords are looked for in the name. */
	pthread_once(&kw_once, keywords_init);
	uint64_t pairs = tc_ascii_pairs(name, n);
	if (kind == TC_OP_MEMSET || has_p(name, n, pairs, "memset") ||
			has_p(name, n, pairs, "fillbuffer")) {
		return TC_DEVCAT_MEMSET;
	}
	if (has_p(name, n, pairs, "copybuffer") || has_p(name, n, pairs, "memcpy")) {
		return TC_DEVCAT_MEMCPY;
	}
	enum tc_devcat h = of_hlo_category(cat, cat_len, name, n);
	if (h != TC_DEVCAT_NONE) {
		return h;
	}
	/* Most specific first: an attention kernel is built of GEMMs, a
	 * convolution kernel says "gemm" (implicit_convolve_sgemm), a norm or
	 * softmax kernel says "reduce". */
	if (has_any(name, n, pairs, &kw_attn)) {
		return TC_DEVCAT_ATTENTION;
	}
	if (has_any(name, n, pairs, &kw_conv) && !has_p(name, n, pairs, "convert")) {
		return has_any(name, n, pairs, &kw_conv_bwd) ? TC_DEVCAT_CONV_BWD : TC_DEVCAT_CONV_FWD;
	}
	if (has_any(name, n, pairs, &kw_gemm) || (has_p(name, n, pairs, "triton_tem_") &&
			has_p(name, n, pairs, "mm"))) {
		return TC_DEVCAT_GEMM;
	}
	if (has_any(name, n, pairs, &kw_norm)) {
		return TC_DEVCAT_NORMALIZATION;
	}
	if (has_p(name, n, pairs, "softmax")) {
		return TC_DEVCAT_SOFTMAX;
	}
	if (has_any(name, n, pairs, &kw_embed)) {
		return TC_DEVCAT_EMBEDDING;
	}
	/* XLA "transpose.3", "copy.12": a copy on the device is a relayout. */
	if (has_any(name, n, pairs, &kw_layout) || name_equal_ci(name, n < 5 ? n : 5, "copy.") ||
			name_equal_ci(name, n, "copy")) {
		return TC_DEVCAT_LAYOUT;
	}
	if (has_any(name, n, pairs, &kw_reduce)) {
		return TC_DEVCAT_REDUCTION;
	}
	if (has_any(name, n, pairs, &kw_elem)) {
		return TC_DEVCAT_ELEMENTWISE;
	}
	return TC_DEVCAT_OTHER;
}

enum tc_devcat tc_devcat_of(const char *launcher, size_t launcher_len, const char *name,
		size_t n, const char *cat, size_t cat_len, enum tc_op_kind kind) {
	enum tc_devcat k = tc_devcat_of_kernel(name, n, cat, cat_len, kind);
	if (k == TC_DEVCAT_COLLECTIVE || k == TC_DEVCAT_MEMCPY) {
		return k;
	}
	enum tc_devcat l = tc_devcat_of_launcher(launcher, launcher_len);
	if (l == TC_DEVCAT_NONE) {
		return k;
	}
	/* A memset is its launcher's only where a library zeroes a workspace
	 * for it; "zero_" launching one is still a memset. */
	if (k == TC_DEVCAT_MEMSET && l != TC_DEVCAT_GEMM && l != TC_DEVCAT_CONV_FWD &&
			l != TC_DEVCAT_CONV_BWD && l != TC_DEVCAT_ATTENTION) {
		return k;
	}
	return l;
}

bool tc_devcat_fp32_math(const char *name, size_t n) {
	/* cuBLAS/CUTLASS "sgemm", cuDNN "scudnn", xmma "_ffma_" (FP32 FMA) */
	if (has(name, n, "sgemm") || has(name, n, "scudnn") || has(name, n, "_ffma")) {
		return true;
	}
	/* Tensile/hipBLASLt: "Cijk_Ailk_Bljk_SB_" is single precision. */
	return has(name, n, "cijk_") && has(name, n, "_sb_");
}
