#ifndef TC_MODEL_DIFF_H
#define TC_MODEL_DIFF_H

/*
 * `tracectl diff`: what changed between two runs, as plain data.
 *
 * A side is summarised once into a struct tc_diff_side, which owns every
 * string it holds (malloc'd, freed by tc_diff_side_finish) and points into
 * no model: the model can be destroyed as soon as its side is built, and a
 * side can come from somewhere other than a trace (a stored digest). The
 * diff (struct tc_diff, analysis/diff.c) is computed from two sides alone;
 * it borrows their strings, so finish it before the sides.
 *
 * Times are picoseconds; "per step" figures divide a side's sums over its
 * counted steps by their number (the whole trace counts as one step when a
 * side has none), so sides with different step counts compare.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"

/* Step times of one source file (a rank) of a side read from several. */
struct tc_diff_rank {
	char *label;            /* the file's name */
	size_t n_steps;
	double mean_ps, median_ps, p90_ps;
};

struct tc_diff_device {
	char *name;             /* device name; "#2" appended to a repeated one */
	int64_t busy_ps;        /* over the counted steps (whole trace: its span) */
	int64_t idle_ps;
};

enum tc_diff_scope {
	TC_DIFF_HOST = 0,       /* host threads (framework ops, runtime calls, markers) */
	TC_DIFF_DEVICE,         /* device op lines, streams and modules */
};

/* An op (exact name) or an op category, summed over the counted steps. */
struct tc_diff_op {
	char *name;
	uint8_t scope;          /* enum tc_diff_scope */
	uint8_t kind;           /* enum tc_op_kind of its first event */
	uint64_t count;
	int64_t total_ps;
	/* Host ops: calls inside another host op (a framework op, runtime
	 * call or data loader, not a step, annotation, python frame or
	 * module), and the op that encloses every call on its thread, NULL
	 * when none or several do (a side from a digest: 0 and NULL). */
	uint64_t nested;
	char *parent;
	/* Device ops: FLOPs summed over the calls when every call carries
	 * its own (xplane op costs), < 0 else (host ops, digests). */
	double flops;
};

struct tc_diff_finding {
	char *kind;             /* rule id */
	char *device;           /* device name, NULL if none */
	uint8_t severity;       /* enum tc_severity */
	double share;           /* of the device's step time, 0..1 */
	char *text;
};

struct tc_diff_mem {
	char *label;            /* "GPU 0 memory.allocated" */
	double peak_bytes;
};

/* One op's memory on one device (docs/analysis.md, "Memory by op"):
 * what it held at its allocator's peak, what it allocated itself over the
 * whole trace. Rows for the bytes from before the trace and those outside
 * any op carry the names `tracectl memory` prints for them. */
struct tc_diff_mem_op {
	char *device;           /* device name, as tc_diff_device's */
	char *name;
	int64_t held;           /* live at the peak, bytes */
	int64_t alloc_bytes;    /* self allocation size, whole trace */
	uint64_t allocs;        /* self allocation count */
	uint64_t calls;
};

struct tc_diff_xfer {
	uint64_t count;
	double bytes;
};

struct tc_diff_side {
	char *label;            /* the path given */
	char *format;           /* reader name(s), "json", "xplane+json" */
	size_t n_sources;
	/* Steps: counted ones (warm-up and partial left out, as in `steps`).
	 * has_steps false: the side has none and is one whole-trace "step"
	 * (the analysed window), n_steps 1. */
	bool has_steps;
	char *steps_source;     /* "host markers", "inferred ...", "whole trace" */
	size_t n_steps, n_steps_all;
	int64_t step_total_ps;
	double step_mean_ps, step_median_ps, step_p90_ps;
	struct tc_diff_rank *ranks; /* only when read from several files */
	size_t n_ranks;
	char *bd_device;        /* device the attribution is measured on, NULL none */
	int64_t cat_ps[TC_BD_COUNT]; /* summed over the counted steps */
	int64_t device_busy_ps; /* summed busy of every device, over the counted steps */
	int64_t trace_busy_ps;  /* the same over the whole trace */
	struct tc_diff_device *devices;
	size_t n_devices;
	struct tc_diff_op *ops; /* by (scope, exact name) */
	size_t n_ops;
	struct tc_diff_op *cats; /* by (scope, category) */
	size_t n_cats;
	struct tc_diff_finding *findings;
	size_t n_findings;
	struct tc_diff_xfer xfer[TC_XFER_COUNT]; /* over the counted steps */
	struct tc_diff_mem *mem;
	size_t n_mem;
	/* From the allocator records (analysis/diff_mem.c): each allocator's
	 * peak ("GPU 0", "GPU 0 GPU_0_bfc") and the ops by (device, name). */
	struct tc_diff_mem *mem_peaks;
	size_t n_mem_peaks;
	struct tc_diff_mem_op *mem_ops;
	size_t n_mem_ops;
	uint64_t compile_count;
	int64_t compile_ps;     /* union of compile events, whole trace */
};

void tc_diff_side_finish(struct tc_diff_side *s);

/* Name normalisations, so generated suffixes line up across runs. */
enum tc_diff_norm {
	TC_NORM_TEMPLATE = 1 << 0, /* kernel template arguments: "f<float, 4>" -> "f<...>" */
	TC_NORM_HEX = 1 << 1,      /* addresses: "0x7f3a" -> "0x?" */
	TC_NORM_NUMBER = 1 << 2,   /* trailing numbers: "fusion.123" -> "fusion.N", "_12", "#7" */
	TC_NORM_COUNT = 3,
};

/* Both sides' values of one row; absent on a side: present false, zeros. */
struct tc_diff_val {
	bool present;
	double calls;           /* per step */
	double time_ps;         /* per step */
	double mean_ps;         /* per call */
	double flop_rate;       /* achieved FLOP/s over its time, < 0 unknown */
};

struct tc_diff_row {
	const char *key;        /* normalised name (borrowed, or owned: see own_key) */
	char *own_key;
	uint8_t scope;
	uint8_t kind;
	uint32_t norm;          /* normalisations that changed a name in this row */
	uint32_t n_names;       /* distinct exact names merged, over both sides */
	struct tc_diff_val base, test;
	/* Every call on both sides nests inside another host op: listed
	 * under it only with --nested. */
	bool nested;
	const char *parent[2];  /* base's and test's enclosing op (tc_diff_op.parent) */
	/* An added and a removed op with the same role, paired into one row
	 * (key is BASE's name, paired TEST's): docs/analysis.md, diff. */
	char *paired;
};

struct tc_diff_dev_row {
	const char *name;
	bool in_base, in_test;
	double base_busy_ps, test_busy_ps; /* per step */
	double base_idle_ps, test_idle_ps;
};

enum tc_diff_change {
	TC_DIFF_SAME = 0,
	TC_DIFF_APPEARED,
	TC_DIFF_DISAPPEARED,
	TC_DIFF_WORSE,          /* severity rose */
	TC_DIFF_BETTER,         /* severity fell */
};

struct tc_diff_finding_row {
	const struct tc_diff_finding *base, *test; /* NULL where absent */
	uint8_t change;         /* enum tc_diff_change */
};

struct tc_diff_mem_row {
	const char *label;
	double base_bytes, test_bytes; /* < 0: absent */
};

/* One op on one device on both sides; absent: present false, zeros.
 * growth: the change in bytes held at the peak, else in bytes allocated. */
struct tc_diff_mem_op_row {
	const struct tc_diff_mem_op *base, *test; /* NULL where absent */
};

struct tc_diff {
	const struct tc_diff_side *base, *test;
	bool exact_names;
	uint32_t norm_used;     /* every normalisation that merged or renamed a name */
	/* Either side has no steps: times are whole-trace times. */
	bool whole_trace;
	/* Rows, each ordered by |change in time per step|, largest first. */
	struct tc_diff_row *ops;
	size_t n_ops;
	struct tc_diff_row *cats;
	size_t n_cats;
	struct tc_diff_dev_row *devices;
	size_t n_devices;
	struct tc_diff_finding_row *findings;
	size_t n_findings;
	struct tc_diff_mem_row *mem;
	size_t n_mem;
	/* Allocator peaks by label; ops by growth (held at the peak, then
	 * allocated), largest first. */
	struct tc_diff_mem_row *mem_peaks;
	size_t n_mem_peaks;
	struct tc_diff_mem_op_row *mem_ops;
	size_t n_mem_ops;
	int bd_order[TC_BD_COUNT]; /* categories by |change in ms per step| */
	/* "GPU 3 / GPU 1": the attribution devices, differently named, are
	 * compared as one device (runs on different ranks); "" when not. */
	char paired_label[256];
};

void tc_diff_finish(struct tc_diff *d);

/* A --fail-on-regression check on one metric (analysis/compare.c). */
struct tc_diff_gate {
	char label[200];        /* "step time (mean)", "op 'fusion.N' time per step" */
	double base, test;      /* the metric on each side (ps) */
	double change_pct;      /* (test - base) / base, in %; INFINITY when base is 0 */
	double threshold_pct;
	bool failed;
};

const char *tc_diff_norm_name(enum tc_diff_norm n);
const char *tc_diff_change_name(enum tc_diff_change c);
const char *tc_diff_scope_name(enum tc_diff_scope s);

#endif
