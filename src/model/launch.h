#ifndef TC_MODEL_LAUNCH_H
#define TC_MODEL_LAUNCH_H

/*
 * Device work by the framework op that launched it (`ops --by launcher`):
 * one row per host op name, input shapes and dtypes. Filled by
 * analysis/launcher.c, printed by output/launch_write.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tc_launch_row {
	uint32_t name;        /* host op name (string id) */
	uint32_t dims;        /* its "Input Dims" text, 0 none (XLA ops) */
	uint32_t types;       /* its "Input type" text, 0 none */
	uint32_t outer;       /* outermost framework op above its first call (XLA: its
	                       * module), 0 none */
	uint32_t scope;       /* module scope of its first call (nn.Module frame,
	                       * annotation; XLA: the named scope), 0 none */
	const char *via;      /* "host_op" (a framework op on the host stack),
	                       * "xla_op" (the XLA op a device event names or is)
	                       * or "tf_op" (the TensorFlow op it names) */
	const char *cls;      /* cost family ("gemm", "sdpa", ...), NULL none */
	const char *flops_from; /* "trace" (the event's own count), "shapes", NULL */
	uint64_t calls;       /* calls that launched device work */
	uint64_t kernels;     /* device events launched, children's included */
	int64_t kernel_ps;    /* their summed duration */
	int64_t flops_call;   /* per call (the first), -1 unknown */
	int64_t bytes_call;   /* per call (the first), -1 unknown */
	double flops, bytes;  /* summed over calls, < 0 unknown */
	double flop_rate;     /* FLOP/s over kernel time, < 0 unknown */
	double flop_rate_call_mean; /* mean of the calls' own FLOP/s, < 0 unknown */
	double byte_rate;     /* B/s over kernel time, < 0 unknown */
	double intensity;     /* FLOP/byte, < 0 unknown */
	double peak_fraction; /* of the device's peak for its bound, < 0 unknown */
	const char *peak_roof; /* the peak it is against: "bf16", "fp32", "tf32",
	                        * "fp8", "fp64" or "bandwidth"; NULL unknown */
	uint8_t bound;        /* enum tc_bound */
	const char *bound_dtype; /* where the class holds on every part in the peak
	                        * table (no device identity): the dtype whose ridges
	                        * it is against ("bf16", "bf16 assumed"); else NULL */
	bool nested;          /* some framework op above it launched too */
};

struct tc_launch_table {
	struct tc_launch_row *rows;
	size_t n;
	uint64_t device_events; /* kernels, copies and memsets on device lines */
	uint64_t linked;        /* of them, linked to a framework op */
	uint64_t linked_hlo;    /* the others naming their XLA or TF op */
	int64_t device_ps;      /* their summed duration */
	int64_t linked_ps;
	double peak_flops, peak_bw, ridge; /* 0 unknown */
	char peak_source[96]; /* where the peaks came from ("data sheet: H100 SXM",
	                       * "trace", "--peak-flops"), "" unknown */
	const char *class_source; /* where the classes came from: peak_source, or
	                           * without device peaks the peak table's every
	                           * part (static text) */
};

void tc_launch_table_finish(struct tc_launch_table *t);

#endif
