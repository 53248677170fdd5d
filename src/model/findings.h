#ifndef TC_MODEL_FINDINGS_H
#define TC_MODEL_FINDINGS_H

/*
 * Results of the bottleneck analysis (steps, step-time breakdown, transfers,
 * memory, compilation, device utilisation, op roofline, findings) as plain
 * data: analysis/ fills them, output/ prints them. Times are integer
 * picoseconds. Every array is malloc'd and freed by tc_analysis_finish();
 * finding texts are malloc'd too. Name fields are string ids of the model
 * the analysis was run on.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/memview.h"
#include "model/model.h"
#include "model/ranks.h"
#include "model/report.h"

enum tc_severity {
	TC_SEV_NONE = 0,
	TC_SEV_LOW,
	TC_SEV_MEDIUM,
	TC_SEV_HIGH,
	TC_SEV_CRITICAL,
};

/*
 * Step-time attribution: every picosecond of a step on a device belongs to
 * exactly one cause. Where several kinds of activity overlap, the earlier
 * category claims the time (XProf's "larger event type wins" order, with
 * host causes ranked by how directly they stall the device). The categories
 * are disjoint and, with IDLE, sum exactly to the step time. See
 * docs/analysis.md.
 */
enum tc_bd_cat {
	TC_BD_COMPUTE = 0, /* device kernels/ops (anything on a device line that is not a copy or a collective) */
	TC_BD_D2H,         /* device-to-host copies */
	TC_BD_D2D,         /* device-to-device / peer / unknown-direction copies */
	TC_BD_INPUT,       /* input pipeline / data loader / infeed waits */
	TC_BD_COLLECTIVE,  /* collectives not hidden behind the above */
	TC_BD_PROFILER,    /* profiler start/stop and overhead while the device is idle */
	TC_BD_SYNC,        /* the host blocked in a synchronisation (cudaStreamSynchronize, .item()) */
	TC_BD_LAUNCH,      /* host runtime calls (kernel launch, memcpy API) while the device is idle */
	TC_BD_H2D,         /* host-to-device copies */
	TC_BD_COMPILE,     /* compilation */
	TC_BD_HOST,        /* other host work (framework ops, python) */
	TC_BD_IDLE,        /* none of the above: unexplained idle */
	TC_BD_COUNT,
};

enum tc_xfer_dir {
	TC_XFER_H2D = 0,
	TC_XFER_D2H,
	TC_XFER_D2D, /* includes peer and unknown direction */
	TC_XFER_COUNT,
};

struct tc_xfer_stats {
	uint64_t count;
	uint64_t n_bytes_known; /* copies that carried a byte count */
	double bytes;           /* sum over copies with a byte count */
	int64_t dur_ps;         /* sum of copy durations (not a union) */
	int64_t bytes_dur_ps;   /* duration of the copies with a byte count */
	uint64_t n_pageable, n_pinned;
	double bytes_pageable;
};

struct tc_step {
	int64_t num;
	uint32_t name;
	uint32_t device;        /* device whose step line marked it; TC_NONE otherwise */
	int64_t start_ps, dur_ps;
	int64_t marker_start_ps, marker_dur_ps; /* the marker itself (host markers are aligned to their device work) */
	bool warmup;            /* first step, an outlier (likely compilation) */
	bool partial;           /* last step with much less device work than the one before (cut off) */
	int64_t busy_ps;        /* breakdown device busy inside the step */
	int64_t cat_ps[TC_BD_COUNT];
	struct tc_xfer_stats xfer[TC_XFER_COUNT];
};

struct tc_mem_peak {
	uint32_t device;        /* TC_NONE: global counter */
	uint32_t name;          /* "memory.allocated" / "memory.reserved" */
	uint32_t group;         /* allocator, 0 none */
	double peak_bytes;
	int64_t peak_ts_ps;
	int64_t capacity_bytes; /* device memory, 0 unknown */
	uint64_t samples;
};

struct tc_compile_entry {
	uint32_t name;
	uint64_t count;
	int64_t total_ps;
};

struct tc_compile_stats {
	uint64_t n_events;
	int64_t union_ps;       /* union of compile events (all host and device lines) */
	int64_t first_ps, last_ps;
	struct tc_compile_entry *recompiled; /* names compiled more than once, by count */
	size_t n_recompiled;
	struct tc_compile_entry *programs; /* every name compiled, by total time */
	size_t n_programs;
};

struct tc_stream_util {
	uint32_t track;
	int64_t busy_ps;        /* union of the stream's slices */
	int64_t span_ps;        /* its first start to last end */
	uint64_t n_events;
	int64_t idle_host_wait_ps; /* gaps on this stream ended by an op launched after the gap began */
	uint32_t kinds;         /* op kinds on it (TC_KIND_BIT), 0 unknown: later passes skip streams */
};

struct tc_device_util {
	uint32_t device;
	int64_t first_ps, last_ps;
	int64_t busy_ps;        /* union of all device work */
	int64_t compute_ps;     /* union of device compute (TC_KINDS_DEVICE_COMPUTE: kernels, memsets, ...) */
	int64_t kernel_ps;      /* union of TC_OP_KERNEL events only (HTA "computation") */
	int64_t comm_ps;        /* union of TC_OP_COLLECTIVE events */
	int64_t overlap_ps;     /* |compute ∩ comm| */
	int64_t idle_ps;        /* span - busy */
	int64_t idle_host_wait_ps; /* gaps whose next op was launched after the gap began */
	uint64_t n_gaps_host_wait;
	int64_t idle_kernel_wait_ps; /* other gaps shorter than kernel.wait (HTA kernel_wait) */
	uint64_t n_kernels, n_short_kernels; /* TC_OP_KERNEL; short < 10 us */
	uint64_t n_launches;    /* launch flows that reach this device */
	int64_t launch_delay_p50_ps; /* median (device start - launch call start), -1 none */
	int64_t launch_delay_max_ps;
	double peak_flops, peak_bw; /* used for roofline (plane stats, table or override) */
	const char *peak_source;    /* "trace", "table", "override" or NULL (unknown) */
};

/* One device's attribution over the counted steps (warm-up and partial
 * steps left out, as in the totals): cat_ps sums exactly to step_ps. */
struct tc_dev_attr {
	uint32_t device;
	int64_t step_ps;        /* summed duration of the counted steps */
	int64_t cat_ps[TC_BD_COUNT];
	int64_t busy_ps;        /* the device's busy time inside them */
	int64_t *step_cat;      /* n_steps x TC_BD_COUNT, every step (malloc'd) */
	/* Of its collective time, the wait for the rank the others waited
	 * for longest (tc_ranks.straggler): counted steps, and every step
	 * (n_steps, malloc'd; NULL when step_cat is or no rank waited). */
	int64_t wait_ps;
	int64_t *step_wait;
};

enum tc_bound {
	TC_BOUND_UNKNOWN = 0,
	TC_BOUND_MEMORY,
	TC_BOUND_COMPUTE,
};

/* One row of `tracectl ops`. Grouping decides which keys are meaningful. */
struct tc_op_row {
	uint32_t name;          /* op name, category or 0 (see label) */
	uint32_t category;
	uint8_t kind;
	uint32_t device;        /* TC_NONE unless grouped by device */
	const char *label;      /* static label when the group key is not a string id */
	uint64_t count;
	int64_t total_ps, self_ps, min_ps, max_ps;
	int64_t p50_ps, p99_ps; /* -1 when not available for this grouping */
	double flops, bytes;    /* totals, < 0 unknown */
	int64_t launched_ps;    /* device category rows: time in work whose
	                         * launching host op is known */
	double share;           /* of the table's busy_ps (see share_of) */
	double flop_rate;       /* FLOP/s over total time, < 0 unknown */
	double byte_rate;       /* B/s, < 0 unknown */
	double intensity;       /* FLOP/byte, < 0 unknown */
	double efficiency;      /* measured / roofline bound, < 0 unknown */
	uint8_t bound;          /* enum tc_bound */
};

struct tc_op_table {
	struct tc_op_row *rows;
	size_t n;
	const char *by;         /* "name", "category", "kind", "device" */
	const char *scope;      /* "device" or "host" */
	uint32_t device;        /* the one device tabled (--device), TC_NONE for all */
	int64_t busy_ps;        /* share denominator */
	const char *share_of;   /* what busy_ps sums, e.g. "summed device busy" */
	double peak_flops, peak_bw, ridge; /* 0 unknown */
	const char *peak_source;
};

/*
 * What produced the trace, so advice names the right knobs. Detected from
 * op, track and device names (analysis/runtime.c, docs/analysis.md).
 */
enum tc_framework {
	TC_FW_UNKNOWN = 0,
	TC_FW_JAX,           /* JAX / XLA */
	TC_FW_TENSORFLOW,
	TC_FW_PYTORCH,       /* eager */
	TC_FW_TORCH_COMPILE, /* PyTorch with TorchDynamo/Inductor */
	TC_FW_VLLM,          /* serving engines (PyTorch underneath) */
	TC_FW_SGLANG,
	TC_FW_COUNT,
};

enum tc_runtime {
	TC_RT_UNKNOWN = 0,
	TC_RT_CUDA,
	TC_RT_ROCM,
	TC_RT_TPU,
	TC_RT_CPU,           /* no device work */
	TC_RT_GPU,           /* a GPU whose vendor the trace does not say */
	TC_RT_ACCEL,         /* another accelerator (MTIA, custom planes) */
	TC_RT_COUNT,
};

/* Things the trace shows already in use: advice does not suggest them. */
enum tc_evidence {
	TC_EVD_GRAPHS = 1 << 0,          /* CUDA/HIP graph replay */
	TC_EVD_TORCH_COMPILE = 1 << 1,   /* Inductor/Triton kernels, compiled regions */
	TC_EVD_PINNED = 1 << 2,          /* host<->device copies from pinned memory */
	TC_EVD_PAGEABLE = 1 << 3,        /* ... and from pageable memory */
	TC_EVD_LOADER_WORKERS = 1 << 4,  /* multi-process DataLoader */
	TC_EVD_XLA_JIT = 1 << 5,         /* jit-compiled XLA modules */
	TC_EVD_TF_DATA_PREFETCH = 1 << 6, /* tf.data prefetch stage */
	TC_EVD_HOST_CALLBACKS = 1 << 7,  /* XLA host callbacks (py_xla_callback) */
	TC_EVD_GLOO = 1 << 8,            /* collectives on the gloo backend (gloo:all_reduce) */
	TC_EVD_COUNT = 9,                /* number of flags */
};

struct tc_runtime_info {
	uint8_t framework;      /* enum tc_framework */
	uint8_t runtime;        /* enum tc_runtime */
	uint32_t evidence;      /* enum tc_evidence bits */
	const char *framework_why; /* static: the names that decided it, NULL if unknown */
	const char *runtime_why;
	/* The evidence weighed, where counts decided (two serving engines'
	 * names): shown instead of framework_why; "" none. */
	char framework_src[144];
};

#define TC_FINDING_MAX_ITEMS 5
#define TC_FINDING_MAX_SLOTS 4
#define TC_FINDING_MAX_FIGS 8

/* One measured figure a finding rests on: value in the unit named ("%",
 * "s", "B", "B/s", "" for a count). name and unit are static, or borrow
 * from the digest the finding was read from. */
struct tc_finding_fig {
	const char *name;
	double value;
	const char *unit;
};

struct tc_finding {
	const char *kind;       /* rule id, static */
	uint8_t severity;       /* enum tc_severity */
	double value;           /* the measured figure that set the severity */
	/* The step time on device it accounts for: its cause's share of the
	 * attribution (0 for findings that are not a cause of step time, e.g.
	 * memory pressure). A device's findings never explain the same time
	 * twice. share = explained_ps / the device's counted step time. */
	int64_t explained_ps;
	double share;
	/* One line with the numbers, as the analysed model names things
	 * (malloc'd). Its wording for a reader is tc_finding_wording()'s
	 * (output/finding_text.h): the same unless has_rank. */
	char *text;
	char *suggestion;       /* what to try (malloc'd) */
	uint32_t device;        /* TC_NONE if not device-specific */
	uint32_t ops[TC_FINDING_MAX_ITEMS]; /* op names (string ids) */
	size_t n_ops;
	int64_t steps[TC_FINDING_MAX_ITEMS]; /* step numbers */
	size_t n_steps;
	int64_t window_lo_ps, window_hi_ps; /* hi <= lo: no window */
	/* A cause measured on every attributed device: on how many, and on how
	 * many it reached the moderate band (0 and 0 for other findings). */
	uint32_t n_measured, n_over;
	/* One rank's finding in a job: its rank, named before each device
	 * name (at byte offsets slot[] of text; first when there are none).
	 * has_spread: text[spread_at, spread_at + spread_len) is the cause's
	 * spread over the rank's devices, which the job's (n_over of
	 * n_measured) replaces. A rank's analysis records slots and spread
	 * with tc_analysis_opts.rank_slots; a job sets has_rank and rank. */
	bool has_rank;
	int32_t rank;
	uint32_t slot[TC_FINDING_MAX_SLOTS];
	size_t n_slots;
	bool has_spread;
	uint32_t spread_at, spread_len;
	/* The figures the text quotes, as numbers. */
	struct tc_finding_fig figs[TC_FINDING_MAX_FIGS];
	size_t n_figs;
};

/* One-off start-up calls (context and stream creation, the first launch
 * of a module, allocator growth) outside the counted steps: how many, their
 * time, the longest ones' names (borrowed) and times. */
#define TC_STARTUP_TOP 3
struct tc_startup {
	size_t n_calls;
	int64_t total_ps;
	const char *name[TC_STARTUP_TOP];
	int64_t dur_ps[TC_STARTUP_TOP];
};

struct tc_analysis {
	struct tc_step *steps;  /* selected steps, by start */
	size_t n_steps;
	size_t n_steps_all;     /* before --steps selection */
	const char *steps_source; /* "device markers", "host markers", "inferred ...", "whole trace" */
	bool steps_inferred;
	const char *step_marker; /* the --step-marker pattern the steps came from, NULL */
	uint32_t steps_device;  /* device whose line held the markers (a CPU device for host markers), TC_NONE */
	uint32_t bd_device;     /* device the breakdown is measured on, TC_NONE none */
	/* Sums over the selected steps except a warm-up step. */
	size_t n_steps_counted;
	int64_t step_total_ps;
	int64_t cat_total_ps[TC_BD_COUNT];
	struct tc_dev_attr *attr; /* every device with device work, in util order */
	size_t n_attr;
	/* The analysed window: steps, or the device work when steps are the
	 * whole trace; the trace's time before and after it is left out
	 * (profiler start-up and tear-down). */
	int64_t window_lo_ps, window_hi_ps;
	int64_t trimmed_before_ps, trimmed_after_ps;
	struct tc_startup startup;
	struct tc_xfer_stats xfer[TC_XFER_COUNT]; /* whole trace */
	struct tc_mem_peak *mem;
	size_t n_mem;
	struct tc_mem_view memview; /* allocator records' view (TC_AN_FINDINGS); empty without */
	struct tc_compile_stats compile;
	struct tc_device_util *util;
	size_t n_util;
	struct tc_stream_util *streams;
	size_t n_streams;
	struct tc_op_table ops; /* by name, device scope, roofline filled; no p50/p99 */
	struct tc_finding *findings; /* ranked: severity, then value */
	size_t n_findings;
	int64_t span_ps;        /* trace span */
	struct tc_runtime_info runtime; /* framework and runtime, set before the rules */
	struct tc_op_table op_table; /* the op table asked for (TC_AN_OP_TABLE) */
	struct tc_summary summary;   /* TC_AN_SUMMARY */
	struct tc_ranks ranks;       /* TC_AN_BREAKDOWN with 2+ ranks (analysis/ranks.h) */
};

void tc_analysis_finish(struct tc_analysis *a);
/* t += x, field by field (times saturated). */
void tc_xfer_stats_add(struct tc_xfer_stats *t, const struct tc_xfer_stats *x);
/* Appends to f->ops, up to TC_FINDING_MAX_ITEMS, the names of the ops with
 * the most time in op_ps (per op index, n_ops of them; each taken entry is
 * zeroed), largest first, each name once. */
void tc_finding_add_ops_by_time(struct tc_finding *f, const struct tc_model *m, int64_t *op_ps);
void tc_op_table_finish(struct tc_op_table *t);
/* "; 3 of 8 devices at or above the moderate band": a cause's spread, as
 * the rules write it into a text and a job's wording puts it there. */
void tc_finding_spread_clause(char *buf, size_t n, size_t over, size_t measured);
/* Adds a figure to f->figs; past TC_FINDING_MAX_FIGS it is left out. */
void tc_finding_add_fig(struct tc_finding *f, const char *name, double value, const char *unit);

const char *tc_severity_name(enum tc_severity s);
/* "low", "medium", "high", "critical" (also "none"); false if unknown. */
bool tc_severity_parse(const char *s, enum tc_severity *out);
const char *tc_bd_cat_name(enum tc_bd_cat c);
const char *tc_xfer_dir_name(enum tc_xfer_dir d);
const char *tc_bound_name(enum tc_bound b);
/* Stable ids for JSON ("jax", "torch.compile", "cuda", "graph-replay") and
 * labels for text ("JAX", "PyTorch (torch.compile)", "ROCm/HIP"). */
const char *tc_framework_id(enum tc_framework f);
const char *tc_framework_label(enum tc_framework f);
const char *tc_runtime_id(enum tc_runtime r);
const char *tc_runtime_label(enum tc_runtime r);
/* What decided the framework: framework_src, else framework_why (NULL). */
const char *tc_framework_source(const struct tc_runtime_info *ri);
/* Name of one evidence bit; NULL for a bit that is not a flag. */
const char *tc_evidence_id(uint32_t bit);

#endif
