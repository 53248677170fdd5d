#ifndef TC_MODEL_DEVCAT_H
#define TC_MODEL_DEVCAT_H

/*
 * One category vocabulary for device work, in every format: what a kernel,
 * copy or memset does (GEMM, convolution, attention, ...), decided from the
 * host op that launched it (aten names), the kernel's name (cuBLAS, CUTLASS,
 * hipBLASLt/Tensile, cuDNN/MIOpen, flash/fmha, NCCL/RCCL, Triton, XLA
 * fusions) and the writer's category (XLA hlo_category). docs/analysis.md,
 * "Device-work categories", lists the rules.
 *
 * Pure functions of their inputs: no model, no allocation, no output.
 */

#include <stdbool.h>
#include <stddef.h>
#include "model/model.h"

enum tc_devcat {
	TC_DEVCAT_NONE = 0, /* not known from this input (launcher lookups) */
	TC_DEVCAT_GEMM,
	TC_DEVCAT_CONV_FWD,
	TC_DEVCAT_CONV_BWD,
	TC_DEVCAT_ATTENTION,
	TC_DEVCAT_ELEMENTWISE,
	TC_DEVCAT_REDUCTION,
	TC_DEVCAT_NORMALIZATION,
	TC_DEVCAT_SOFTMAX,
	TC_DEVCAT_EMBEDDING, /* embedding, gather, scatter, index ops */
	TC_DEVCAT_LAYOUT,    /* transpose, permute, concatenation, layout copies */
	TC_DEVCAT_COLLECTIVE,
	TC_DEVCAT_MEMCPY,
	TC_DEVCAT_MEMSET,
	TC_DEVCAT_OTHER,
	TC_DEVCAT_COUNT,
};

/* "GEMM", "CONV_fwd", ..., "other"; "(none)" for TC_DEVCAT_NONE. */
const char *tc_devcat_name(enum tc_devcat c);

/* The category a framework op's name gives the device work it launches
 * ("aten::addmm" -> GEMM), TC_DEVCAT_NONE when the name says nothing. */
enum tc_devcat tc_devcat_of_launcher(const char *name, size_t n);

/* The category of a device op from its own name, its writer's category
 * (cat may be NULL: none) and its kind; TC_DEVCAT_OTHER when nothing says. */
enum tc_devcat tc_devcat_of_kernel(const char *name, size_t n, const char *cat, size_t cat_len,
	enum tc_op_kind kind);

/*
 * A device op's category: the launching op's where that names one (so a
 * cuBLAS workspace memset counts with its GEMM), else the kernel's own.
 * Copies and collectives keep theirs: their time is transfer or network,
 * whoever launched them. launcher may be NULL (none known).
 */
enum tc_devcat tc_devcat_of(const char *launcher, size_t launcher_len, const char *name,
	size_t n, const char *cat, size_t cat_len, enum tc_op_kind kind);

/* Whether a GEMM or convolution kernel's name says it does FP32 math on
 * CUDA cores rather than tensor/matrix cores ("volta_sgemm_128x64_nn",
 * "implicit_convolve_sgemm", "cutlass_80_simt_sgemm", Tensile "Cijk_..._SB_"). */
bool tc_devcat_fp32_math(const char *name, size_t n);

#endif
