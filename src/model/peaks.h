#ifndef TC_MODEL_PEAKS_H
#define TC_MODEL_PEAKS_H

/*
 * Device peaks from vendor data sheets: dense FLOP/s by data type and main
 * memory bandwidth, one row per part with the page its figures come from,
 * matched from what a trace says of its device (model name, memory, cores,
 * architecture). Pure data and lookups: no allocation.
 */

#include <stdbool.h>
#include <stdint.h>

enum tc_peak_dtype {
	TC_PEAK_FP64 = 0,
	TC_PEAK_FP32,  /* CUDA-core / vector FP32 */
	TC_PEAK_TF32,  /* tensor-core TF32 (0: the part has none) */
	TC_PEAK_BF16,  /* tensor/matrix-core BF16 and FP16 */
	TC_PEAK_FP8,
	TC_PEAK_DTYPES,
};

struct tc_peak_row {
	const char *part;   /* "H100 SXM" */
	double flops[TC_PEAK_DTYPES]; /* FLOP/s, dense (no sparsity); 0 none */
	double bw;          /* bytes/s of main memory */
	const char *source; /* the data sheet */
};

/* The row for a device: name (NULL or "" unknown) is matched first, by
 * case-insensitive substrings; memory_bytes and cores (0 unknown) tell
 * parts of one name apart (A100 40 GB from 80 GB) and, where the name says
 * nothing, pick a part that only one row has (an MI300X's 192 GB and 304
 * CUs). NULL when nothing matches. */
const struct tc_peak_row *tc_peaks_match(const char *name, int64_t memory_bytes, int32_t cores);

/* The same where the architecture is known: arch is the compute
 * capability (CUDA) or gfx major.minor (HIP) as major * 10 + minor, 0
 * unknown. Some nameless rows need it (a 64 GB, 104-CU device is a
 * gfx90a MI210 or MI250 die only at 9.0). */
const struct tc_peak_row *tc_peaks_match_arch(const char *name, int64_t memory_bytes,
	int32_t cores, int32_t arch);

struct tc_model;

/* Device d's row, matched by its model name, else its name, with its
 * memory, cores and computeMajor/computeMinor args; NULL: none. */
const struct tc_peak_row *tc_peaks_of_device(const struct tc_model *m, uint32_t d);

/* The smallest and largest ridge point (FLOP/s / B/s, FLOP per byte) over
 * every part in the table with a peak for dt; false where none has one. */
bool tc_peaks_ridge_range(enum tc_peak_dtype dt, double *lo, double *hi);

/* The roofline class an op of this intensity (FLOP/B) and dtype
 * (TC_PEAK_DTYPES: unknown, held to bf16) has on every part in the table:
 * memory-bound below the smallest ridge, compute-bound at or above the
 * largest, else unknown; an enum tc_bound. */
int tc_peaks_bound_any(double intensity, enum tc_peak_dtype dt);

/* The data type's name ("fp64", "fp32", "tf32", "bf16", "fp8"). */
const char *tc_peak_dtype_name(enum tc_peak_dtype t);

#endif
