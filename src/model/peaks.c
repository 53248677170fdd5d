/*
 * The device peaks table: vendor data-sheet FLOP/s by data type and memory
 * bandwidth per part, and its match from a trace's device name, memory and
 * core count, and the row of a model's device. No allocation.
 */
#include <string.h>
#include "model/findings.h"
#include "model/model.h"
#include "model/peaks.h"
#include "util/ascii.h"

#define T 1e12
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MI210_FIGURES { 22.6 * T, 22.6 * T, 0, 181 * T, 0 }, 1.6e12, \
	"https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html"
#define MI250X_DIE { "MI250X (one of its two dies)", \
	{ 23.95 * T, 23.95 * T, 0, 191.5 * T, 0 }, 1.6e12, \
	"https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html" }

/* Figures are dense: the data sheets' "with sparsity" figures halved. A
 * row matches when the name holds one of its needles and not its
 * exclusion, and the memory lies in [mem_lo, mem_hi] GiB when those are
 * set; cores (with mem, and arch where set) lets a nameless device
 * match. First match wins. */
static const struct {
	const char *needle[3];
	const char *unless;
	double mem_lo, mem_hi;
	int32_t cores;
	int32_t arch; /* major * 10 + minor a nameless match needs; 0 any */
	struct tc_peak_row row;
} table[] = {
	{ { "h100 pcie", "h100-pcie", NULL }, NULL, 0, 0, 114, 0, { "H100 PCIe",
		{ 26 * T, 51 * T, 378 * T, 756 * T, 1513 * T }, 2.0e12,
		"https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet" } },
	{ { "h200", NULL, NULL }, NULL, 135, 145, 132, 0, { "H200 SXM",
		{ 34 * T, 67 * T, 494 * T, 989 * T, 1979 * T }, 4.8e12,
		"https://www.nvidia.com/en-us/data-center/h200/" } },
	{ { "h100", NULL, NULL }, NULL, 75, 85, 132, 0, { "H100 SXM",
		{ 34 * T, 67 * T, 494 * T, 989 * T, 1979 * T }, 3.35e12,
		"https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet" } },
	{ { "b200", NULL, NULL }, NULL, 170, 200, 148, 0, { "B200 (HGX, per GPU)",
		{ 37 * T, 0, 1125 * T, 2250 * T, 4500 * T }, 8e12,
		"https://www.nvidia.com/en-us/data-center/hgx/" } },
	{ { "a100 80gb pcie", "a100-pcie-80", NULL }, NULL, 0, 0, 0, 0, { "A100 80GB PCIe",
		{ 9.7 * T, 19.5 * T, 156 * T, 312 * T, 0 }, 1.935e12,
		"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
		"nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf" } },
	{ { "a100", NULL, NULL }, NULL, 30, 45, 0, 0, { "A100 40GB",
		{ 9.7 * T, 19.5 * T, 156 * T, 312 * T, 0 }, 1.555e12,
		"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
		"nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf" } },
	{ { "a100", NULL, NULL }, NULL, 0, 0, 0, 0, { "A100 80GB SXM",
		{ 9.7 * T, 19.5 * T, 156 * T, 312 * T, 0 }, 2.039e12,
		"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
		"nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf" } },
	{ { "v100", NULL, NULL }, NULL, 0, 0, 0, 0, { "V100 SXM2",
		{ 7.8 * T, 15.7 * T, 0, 125 * T, 0 }, 0.9e12,
		"https://images.nvidia.com/content/technologies/volta/pdf/"
		"volta-v100-datasheet-update-us-1165301-r5.pdf" } },
	{ { "nvidia l4", NULL, NULL }, NULL, 0, 0, 0, 0, { "L4",
		{ 0, 30.3 * T, 60 * T, 121 * T, 242 * T }, 0.3e12,
		"https://www.nvidia.com/en-us/data-center/l4/" } },
	{ { "tesla t4", "nvidia t4", NULL }, NULL, 0, 0, 0, 0, { "T4",
		{ 0, 8.1 * T, 0, 65 * T, 0 }, 0.32e12,
		"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
		"t4-tensor-core-datasheet-951643.pdf" } },
	{ { "nvidia a10", NULL, NULL }, "a10g", 0, 0, 0, 0, { "A10",
		{ 0, 31.2 * T, 62.5 * T, 125 * T, 0 }, 0.6e12,
		"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/"
		"a10-datasheet.pdf" } },
	{ { "mi325", NULL, NULL }, NULL, 240, 270, 304, 0, { "MI325X",
		{ 81.7 * T, 163.4 * T, 653.7 * T, 1307.4 * T, 2614.9 * T }, 6e12,
		"https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html" } },
	{ { "mi300", NULL, NULL }, NULL, 180, 200, 304, 0, { "MI300X",
		{ 81.7 * T, 163.4 * T, 653.7 * T, 1307.4 * T, 2614.9 * T }, 5.3e12,
		"https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html" } },
	/* An MI250(X) shows as two devices of 64 GB, one per die: half each. */
	{ { "mi250x", NULL, NULL }, NULL, 0, 70, 0, 0, MI250X_DIE },
	{ { "mi250x", NULL, NULL }, NULL, 0, 0, 0, 0, { "MI250X",
		{ 47.9 * T, 47.9 * T, 0, 383 * T, 0 }, 3.2e12,
		"https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html" } },
	{ { "mi250", NULL, NULL }, NULL, 0, 70, 0, 0, { "MI250 (one of its two dies)",
		{ 22.65 * T, 22.65 * T, 0, 181.05 * T, 0 }, 1.6e12,
		"https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html" } },
	{ { "mi250", NULL, NULL }, NULL, 0, 0, 0, 0, { "MI250",
		{ 45.3 * T, 45.3 * T, 0, 362.1 * T, 0 }, 3.2e12,
		"https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html" } },
	{ { "mi210", NULL, NULL }, NULL, 0, 0, 0, 0, { "MI210", MI210_FIGURES } },
	/* Nameless gfx90a devices ("AMD Radeon Graphics", compute 9.0) of
	 * 64 GB: 104 CUs are an MI210 or one die of an MI250, both 104 CUs
	 * at 1.7 GHz with 1.6 TB/s, so one row of peaks fits either; 110 CUs
	 * are one die of an MI250X. */
	{ { NULL, NULL, NULL }, NULL, 60, 70, 104, 90, { "MI210 or one MI250 die (gfx90a, 104 CUs)",
		MI210_FIGURES } },
	{ { NULL, NULL, NULL }, NULL, 60, 70, 110, 90, MI250X_DIE },
	{ { "v6e", "v6 lite", NULL }, NULL, 0, 0, 0, 0, { "TPU v6e",
		{ 0, 0, 0, 918 * T, 0 }, 1.64e12, "https://cloud.google.com/tpu/docs/v6e" } },
	{ { "v5e", "v5 lite", NULL }, NULL, 0, 0, 0, 0, { "TPU v5e",
		{ 0, 0, 0, 197 * T, 0 }, 0.819e12, "https://cloud.google.com/tpu/docs/v5e" } },
	{ { "v5p", NULL, NULL }, NULL, 0, 0, 0, 0, { "TPU v5p",
		{ 0, 0, 0, 459 * T, 0 }, 2.765e12, "https://cloud.google.com/tpu/docs/v5p" } },
	{ { "tpu v4", NULL, NULL }, NULL, 0, 0, 0, 0, { "TPU v4",
		{ 0, 0, 0, 275 * T, 0 }, 1.2e12, "https://cloud.google.com/tpu/docs/v4" } },
};

#define N_TABLE (sizeof(table) / sizeof(table[0]))

static bool has(const char *s, const char *needle) {
	return tc_ascii_contains_ci(s, strlen(s), needle);
}

static bool mem_in(size_t i, int64_t memory_bytes) {
	if (!table[i].mem_hi) {
		return true;
	}
	double gib = (double)memory_bytes / GIB;
	return memory_bytes > 0 && gib >= table[i].mem_lo && gib <= table[i].mem_hi;
}

const struct tc_peak_row *tc_peaks_match(const char *name, int64_t memory_bytes, int32_t cores) {
	return tc_peaks_match_arch(name, memory_bytes, cores, 0);
}

const struct tc_peak_row *tc_peaks_match_arch(const char *name, int64_t memory_bytes,
		int32_t cores, int32_t arch) {
	for (size_t i = 0; name && *name && i < N_TABLE; i++) {
		bool named = false;
		for (size_t k = 0; k < 3 && table[i].needle[k]; k++) {
			named |= has(name, table[i].needle[k]);
		}
		if (!named || (table[i].unless && has(name, table[i].unless))) {
			continue;
		}
		/* A row for one memory size matches only that size. */
		if (table[i].mem_hi && table[i].cores == 0 && !mem_in(i, memory_bytes)) {
			continue;
		}
		return &table[i].row;
	}
	/* A generic name ("AMD Radeon Graphics", "/device:GPU:0"): the one
	 * part with this memory and core count, if only one has them. */
	if (memory_bytes <= 0 || cores <= 0) {
		return NULL;
	}
	const struct tc_peak_row *found = NULL;
	for (size_t i = 0; i < N_TABLE; i++) {
		if (table[i].cores == cores && mem_in(i, memory_bytes) &&
				(!table[i].arch || table[i].arch == arch)) {
			if (found && found != &table[i].row) {
				return NULL;
			}
			found = &table[i].row;
		}
	}
	return found;
}

bool tc_peaks_ridge_range(enum tc_peak_dtype dt, double *lo, double *hi) {
	*lo = *hi = 0;
	bool any = false;
	for (size_t i = 0; (unsigned)dt < TC_PEAK_DTYPES && i < sizeof(table) / sizeof(*table); i++) {
		const struct tc_peak_row *r = &table[i].row;
		if (!(r->flops[dt] > 0) || !(r->bw > 0)) {
			continue;
		}
		double ridge = r->flops[dt] / r->bw;
		*lo = any && *lo < ridge ? *lo : ridge;
		*hi = any && *hi > ridge ? *hi : ridge;
		any = true;
	}
	return any;
}

int tc_peaks_bound_any(double intensity, enum tc_peak_dtype dt) {
	double lo, hi;
	/* An unknown dtype is held to the dense 16-bit peak, as the
	 * efficiency against a known part is. */
	if (!(intensity >= 0) || !tc_peaks_ridge_range(dt < TC_PEAK_DTYPES ? dt : TC_PEAK_BF16,
			&lo, &hi)) {
		return TC_BOUND_UNKNOWN;
	}
	return intensity < lo ? TC_BOUND_MEMORY : intensity >= hi ? TC_BOUND_COMPUTE :
		TC_BOUND_UNKNOWN;
}

const char *tc_peak_dtype_name(enum tc_peak_dtype t) {
	static const char *const names[TC_PEAK_DTYPES] = { "fp64", "fp32", "tf32", "bf16", "fp8" };
	return (unsigned)t < TC_PEAK_DTYPES ? names[t] : "?";
}

/* computeMajor/computeMinor as the readers store them in device args. */
static int32_t device_arch(const struct tc_model *m, const struct tc_device *dev) {
	int64_t major, minor;
	if (!tc_model_arg_i64(m, dev->args, m->key.compute_major, &major) ||
			major < 0 || major > 99) {
		return 0;
	}
	if (!tc_model_arg_i64(m, dev->args, m->key.compute_minor, &minor) ||
			minor < 0 || minor > 9) {
		minor = 0;
	}
	return (int32_t)(major * 10 + minor);
}

const struct tc_peak_row *tc_peaks_of_device(const struct tc_model *m, uint32_t d) {
	if (d >= m->n_devices) {
		return NULL;
	}
	const struct tc_device *dev = &m->devices[d];
	int32_t arch = device_arch(m, dev);
	const struct tc_peak_row *r = NULL;
	if (dev->model) {
		r = tc_peaks_match_arch(tc_model_str(m, dev->model), dev->memory_bytes,
			dev->core_count, arch);
	}
	return r ? r : tc_peaks_match_arch(tc_model_str(m, dev->name), dev->memory_bytes,
		dev->core_count, arch);
}
