#ifndef TC_ANALYSIS_PASSES_H
#define TC_ANALYSIS_PASSES_H

/*
 * The analysis passes, private to analysis/ (tests/layering.sh keeps it
 * so). tc_analyze (analyze.c) runs the passes its flags need, as the pass
 * table there declares them (tc_pass_table): what each needs and makes,
 * and which may run beside the others; no pass calls another. Each reads
 * the model, the options and the earlier results named in its
 * parameters, and fills only the output it is given.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/analyze.h"
#include "analysis/devwork.h"
#include "analysis/intervals.h"
#include "analysis/optable.h"
#include "analysis/steps.h"
#include "model/findings.h"
#include "model/model.h"
#include "model/report.h"
#include "model/step_counted.h"

struct tc_ivals;
struct tc_bd_early;
struct tc_host_unions;
struct tc_markers;

/* The usage pass's result, as later passes read it: by device, ascending.
 * kinds (NULL when not kept): the kind runs of the work lines of
 * util[k]'s device at kinds[k], so the breakdown does not build them
 * again. */
struct tc_usage {
	const struct tc_device_util *util;
	size_t n_util;
	const struct tc_ivals *kinds;
};

/* The results of the passes, as the pass table names them. */
enum tc_pass_result {
	TC_R_MARKERS = 1u << 0,    /* the built-in step markers */
	TC_R_EARLY = 1u << 1,      /* steps from markers, and the breakdown's
	                            * attribution made during usage */
	TC_R_USAGE = 1u << 2,      /* util, streams */
	TC_R_STEPS = 1u << 3,      /* steps, their window */
	TC_R_BREAKDOWN = 1u << 4,  /* steps' categories, attribution, transfers */
	TC_R_RANKS = 1u << 5,
	TC_R_STARTUP = 1u << 6,    /* one-off start-up calls */
	TC_R_MEMORY = 1u << 7,     /* memory peaks */
	TC_R_MEMVIEW = 1u << 8,
	TC_R_COMPILE = 1u << 9,
	TC_R_OPS = 1u << 10,       /* the rules' op table */
	TC_R_RUNTIME = 1u << 11,   /* framework and runtime */
	TC_R_FINDINGS = 1u << 12,
	TC_R_OP_TABLE = 1u << 13,  /* the op table asked for (o->op_by) */
	TC_R_SUM_BASE = 1u << 14,  /* the summary from the model alone */
	TC_R_SUM_ROWS = 1u << 15,  /* its op rows */
	TC_R_SUM_STEPS = 1u << 16, /* its marked steps */
	TC_R_SUM_BUSY = 1u << 17,  /* its devices' busy time */
	TC_R_SUM_MARKED = 1u << 18, /* its steps as the analysis's */
	TC_R_DEVWORK = 1u << 19,   /* the device work the rules read, made ahead */
	TC_R_COSTS = 1u << 20,     /* the model's cost column, made ahead */
	TC_R_HOSTS = 1u << 21,     /* the host threads' unions, made ahead */
};

/*
 * One row of the pass table. A plan takes the passes making the results
 * asked for and, walking back, those making what they need; after names
 * results read only when some other pass needs them (they order, never
 * pull in). Of the rows making a result, when (NULL: always) picks those
 * that run. beside: may run on the side thread.
 */
struct tc_pass_run;
struct tc_pass_def {
	const char *name;
	uint32_t needs, after, provides; /* enum tc_pass_result bits */
	bool beside;
	bool (*when)(const struct tc_pass_run *c);
	void (*run)(struct tc_pass_run *c);
};
/* The table (*n rows), in the order the passes run. */
const struct tc_pass_def *tc_pass_table(size_t *n);
/* The rows tc_analyze runs for what (TC_AN_* bits) on m: bit i for row i. */
uint64_t tc_pass_plan(const struct tc_model *m, const struct tc_analysis_opts *o,
	unsigned what);

/* Below this many events a second thread costs more than it saves. */
#define TC_PARALLEL_MIN_EVENTS 100000

/* Whether a pass over n events takes a second thread (o->threads: 0 = when
 * big enough, 1 = never, more = always). */
static inline bool tc_pass_parallel(const struct tc_analysis_opts *o, uint64_t n) {
	return o->threads > 1 || (o->threads == 0 && n >= TC_PARALLEL_MIN_EVENTS);
}

/* Called by the usage pass for each device in place of its kind runs.
 * runs: with util[k] done but for the runs' share, and the device's work
 * lines (has_coll: some collective on them has a duration), it reads the
 * runs (tc_runs_scan over tracks, all kinds) and adds all of them to util
 * with tc_usage_add_runs; with gaps, the scan's gaps go there
 * (tc_runs_scan.gaps). streams: then, with the device's streams (on a
 * one-device trace made on another thread meanwhile, so runs may not read
 * util's kernel counts). From two threads at once (for different k) on
 * big models. */
struct tc_usage_each {
	void (*runs)(void *ctx, size_t k, struct tc_device_util *util, const uint32_t *tracks,
		size_t nt, bool has_coll, struct tc_gaps *gaps);
	void (*streams)(void *ctx, size_t k, const struct tc_device_util *util,
		const struct tc_stream_util *streams, size_t n_streams);
	void *ctx;
};
/* Adds runs (a piece of a device's kind runs) to u's busy, compute,
 * kernel, communication and overlap time. */
void tc_usage_add_runs(struct tc_device_util *u, const struct tc_ivals *runs);
/* The same from runs summed by kinds. */
void tc_usage_add_kind_sums(struct tc_device_util *u, const struct tc_kind_sums *ks);

/* Those sums for a walk over runs made elsewhere: tc_usage_sums_run per
 * run, then tc_usage_add_sums. Masks, not branches: neighbouring runs
 * differ in kinds. The runs are disjoint and inside the model's clamped
 * times (2^62 either side of the origin, durations up to TC_MAX_DUR_PS),
 * so every sum stays under 2^64: 64-bit sums, held in registers, are
 * exact. */
struct tc_usage_sums {
	uint64_t busy, compute, kernel, comm, both;
};
static inline void tc_usage_sums_run(struct tc_usage_sums *s, uint64_t len, uint32_t kd) {
	uint64_t is_k = -(uint64_t)((kd & TC_KIND_BIT(TC_OP_KERNEL)) != 0);
	uint64_t is_c = -(uint64_t)((kd & TC_KIND_BIT(TC_OP_COLLECTIVE)) != 0);
	s->busy += len;
	s->compute += len & -(uint64_t)((kd & TC_KINDS_DEVICE_COMPUTE) != 0);
	s->kernel += len & is_k;
	s->comm += len & is_c;
	/* Comm/compute overlap against kernels, as HTA measures it. */
	s->both += len & is_k & is_c;
}
/* By value: a local struct whose address is never taken stays in
 * registers through the walk. */
void tc_usage_add_sums(struct tc_device_util *u, struct tc_usage_sums s);

/*
 * Per op, sums over the events of the device work lines that the usage
 * pass walked and that nest nothing (done[t]: line t's events are in
 * them), so the summary's op rows, the device work by category and the
 * kernel fill need no walk of their own there. Sums of non-negative
 * durations, saturated: the same in any order.
 */
struct tc_op_acc {
	uint64_t count;
	int64_t total, min, max; /* ps; min starts at INT64_MAX, max at 0 */
	/* Of those, events of at most TC_TINY_GEMM_PS (devwork's tiny GEMMs),
	 * and the time of those shorter than tc_op_sums.under (the kernel
	 * fill's short ones), where the usage pass sums them
	 * (tc_op_acc_short) */
	uint64_t short_count, short_ps, under_ps;
};
static inline void tc_op_acc_event(struct tc_op_acc *a, int64_t dur) {
	a->count++;
	a->total = tc_sat_add(a->total, dur);
	a->min = dur < a->min ? dur : a->min;
	a->max = dur > a->max ? dur : a->max;
}
static inline void tc_op_acc_short(struct tc_op_acc *a, int64_t dur, int64_t under) {
	bool sh = dur <= TC_TINY_GEMM_PS;
	a->short_count += sh;
	a->short_ps += sh ? (uint64_t)dur : 0;
	a->under_ps += dur < under ? (uint64_t)dur : 0;
}
static inline void tc_op_acc_merge(struct tc_op_acc *a, const struct tc_op_acc *b) {
	a->count += b->count;
	a->short_count += b->short_count;
	a->short_ps += b->short_ps;
	a->under_ps += b->under_ps;
	a->total = tc_sat_add(a->total, b->total);
	a->min = b->min < a->min ? b->min : a->min;
	a->max = b->max > a->max ? b->max : a->max;
}
struct tc_op_sums {
	struct tc_op_acc *op; /* n_ops, malloc'd */
	bool *done;           /* n_tracks, malloc'd */
	int64_t under;        /* ps: the short kernels' bound (kernel.short) */
};
void tc_op_sums_finish(struct tc_op_sums *s);

/* Device utilisation per device and stream (usage.c); *util and *streams
 * are malloc'd. With kinds, *kinds gets each device's kind runs (n_util
 * run lists, malloc'd; free with tc_usage_kinds_destroy). each, if not NULL,
 * reads every device's runs in their place. With op_sums, the
 * walk also sums each op's events there (struct tc_op_sums). */
void tc_pass_usage(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_device_util **util, size_t *n_util,
	struct tc_stream_util **streams, size_t *n_streams, struct tc_ivals **kinds,
	const struct tc_usage_each *each, struct tc_op_sums *op_sums);
void tc_usage_kinds_destroy(struct tc_ivals *kinds, size_t n_util);

/* Steps (steps.c): fills a's steps, n_steps, n_steps_all, steps_source,
 * steps_inferred, steps_device and the window and trimmed times. Without
 * search, the markers were searched already and none found; without u
 * (before the usage pass), only markers make steps: false when none do.
 * mk: the model's built-in markers (NULL: found here). */
bool tc_pass_steps_from(const struct tc_model *m, const struct tc_analysis_opts *o,
	const struct tc_markers *mk, const struct tc_usage *u, bool search,
	struct tc_analysis *a);
/* The same for times that never fall (a track's events): *lo, 0 at first,
 * moves past the steps starting at or before t, so no search is repeated. */
static inline size_t tc_step_at_from(const struct tc_step *steps, size_t n_steps, size_t *lo,
		int64_t t) {
	while (*lo < n_steps && steps[*lo].start_ps <= t) {
		(*lo)++;
	}
	if (*lo == 0) {
		return SIZE_MAX;
	}
	const struct tc_step *s = &steps[*lo - 1];
	return t < s->start_ps + s->dur_ps ? *lo - 1 : SIZE_MAX;
}

/* Whether t (a track's times, never falling) is in a step the totals count:
 * warm-up and partial steps count only when nothing else is left; without
 * steps, everything counts. *at as for tc_step_at_from. Needs the
 * breakdown's n_steps_counted. */
static inline bool tc_step_counted_from(const struct tc_analysis *a, size_t *at, int64_t t) {
	if (!a->n_steps) {
		return true;
	}
	size_t i = tc_step_at_from(a->steps, a->n_steps, at, t);
	return i != SIZE_MAX && tc_step_counted_in(a, &a->steps[i]);
}

/*
 * The events tc_step_counted_from counts, a run at a time, for walks that
 * would rather not test every event: passes *i over the track's events
 * (start, sorted, up to end) that do not count, and gives *lim, before
 * which every event from *i on counts. False when no event is left. *at
 * as for tc_step_at_from.
 */
static inline bool tc_step_counted_run(const struct tc_analysis *a, size_t *at,
		const int64_t *start, size_t *i, size_t end, int64_t *lim) {
	size_t j = *i;
	*lim = INT64_MAX;
	while (j < end && a->n_steps) {
		int64_t t = start[j];
		while (*at < a->n_steps && a->steps[*at].start_ps <= t) {
			(*at)++;
		}
		int64_t next = *at < a->n_steps ? a->steps[*at].start_ps : INT64_MAX;
		*lim = next;
		bool counts = false;
		if (*at > 0) {
			const struct tc_step *s = &a->steps[*at - 1];
			int64_t s_end = s->start_ps + s->dur_ps;
			if (t < s_end) {
				counts = tc_step_counted_in(a, s);
				*lim = s_end < next ? s_end : next;
			}
		}
		if (counts) {
			break;
		}
		while (j < end && start[j] < *lim) {
			j++;
		}
	}
	*i = j;
	return j < end;
}

/* Step-time breakdown (breakdown.c): reads a's steps from tc_pass_steps_from
 * and the attributions in early (NULL: none), fills the steps' categories,
 * busy time and partial flag, and a's bd_device, attr, n_steps_counted,
 * step_total_ps, cat_total_ps and xfer. It takes *hosts (made ahead, or
 * NULL) and sets it to NULL. */
void tc_pass_breakdown(const struct tc_model *m, const struct tc_analysis_opts *o,
	const struct tc_usage *u, struct tc_bd_early *early, struct tc_host_unions **hosts,
	struct tc_analysis *a);

/* Every host thread's per-kind unions, the breakdown's host side, made
 * ahead of the steps (on one thread); NULL where some device's host has
 * threads of its own, so that the breakdown may ask for other lines. */
struct tc_host_unions *tc_bd_host_unions_ahead(const struct tc_model *m);
void tc_bd_host_unions_free(struct tc_host_unions *h);

/*
 * The breakdown's attribution of each device made during the usage pass,
 * when the steps are known before it (markers): a device's runs are then
 * used as they are built and none is kept for later. tc_bd_early_create
 * reads a's steps; tc_bd_early_runs and _streams are a struct tc_usage_each's;
 * tc_pass_breakdown takes the attributions and frees early. one_device:
 * the usage pass reads one device's runs at a time (one device works), so
 * a device's steps may take a second thread.
 */
struct tc_bd_early *tc_bd_early_create(const struct tc_model *m,
	const struct tc_analysis_opts *o, const struct tc_analysis *a, bool one_device);
void tc_bd_early_runs(void *early, size_t k, struct tc_device_util *util,
	const uint32_t *tracks, size_t nt, bool has_coll, struct tc_gaps *gaps);
void tc_bd_early_streams(void *early, size_t k, const struct tc_device_util *util,
	const struct tc_stream_util *streams, size_t n_streams);

/* Peaks of the memory counters, then of the curves allocator records draw
 * on devices without a memory.allocated counter (memory.c); *mem is
 * malloc'd. */
void tc_pass_memory(const struct tc_model *m, struct tc_mem_peak **mem, size_t *n_mem);
/* Compilation time and recompiled modules (compile.c). */
void tc_pass_compile(const struct tc_model *m, struct tc_compile_stats *c);

/* Whether host track t dispatches work (holds a host op, runtime or sync
 * call): compilation counts only on such threads, the ones the device
 * waits on, where a host has any (a background compile worker that does
 * nothing else holds no step up). */
bool tc_track_dispatches(const struct tc_model *m, uint32_t t);

/* A key with a duration; tc_group_key_dur sorts v by key and returns the
 * groups (key, count, summed duration) as a malloc'd array in key order. */
struct tc_key_dur {
	uint32_t key;
	int64_t dur;
};
struct tc_compile_entry *tc_group_key_dur(struct tc_key_dur *v, size_t n, size_t *n_groups);

/* Op table grouped by "name", "category", "kind" or "device" (roofline.c),
 * with shares of the devices' busy time in u, rates and roofline class
 * (peaks: the first device in u with known peaks). only: the one device
 * tabled (scope, shares and peaks over it alone), or TC_NONE for all.
 * percentiles: fill p50/p99 of "name" rows (a gather and a selection over
 * every event), else -1. sum (NULL: none): a summary whose op rows
 * (tc_analyze_ops without percentiles over every device work line, or
 * every line but derived ones when its scope is "host") are used instead
 * of a second walk when they are the rows wanted. False if by is unknown. */
bool tc_pass_op_table(const struct tc_model *m, const char *by, bool percentiles,
	uint32_t only, const struct tc_usage *u, const struct tc_summary *sum,
	struct tc_op_table *t);

/* Multi-rank results (ranks.c): job's rank table, collectives and waits
 * for the late rank, composed from its ranks' own (p, from
 * tc_rank_parts_analyze, consumed), and job's devices of other ranks than
 * the breakdown's given their own rank's step attribution. job: the whole
 * model's analysis after its breakdown. */
struct tc_rank_parts;
void tc_pass_ranks(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_rank_parts *p, struct tc_analysis *job);

/* Where a pass reads each rank's steps, one rank at a time: get fills t
 * (which the pass finishes with tc_step_times_finish) with rank k's. */
struct tc_step_source {
	void (*get)(void *ctx, size_t k, struct tc_step_times *t);
	void *ctx;
};
/* A get over an array of analyses (ctx): rank k's steps from its own. */
void tc_step_times_analysis_get(void *ctx, size_t k, struct tc_step_times *t);

/* One rank's row of the rank table from its own analysis a. */
void tc_rank_fill(struct tc_rank_result *rr, const struct tc_analysis *a);

/*
 * Collectives matched across the ranks in r (collectives.c) from their
 * occurrence tables alone. The tables go in one at a time
 * (tc_coll_rows_add: rank k's table t, ids[s] the id of t's string s in
 * the job's string table names, which the results name and which orders
 * the instances) and are kept sorted outside memory where a temporary
 * file can be made, so matching holds a few rows of each rank.
 *
 * tc_pass_collectives fills r's coll, alignment and each rank's clock
 * offset, waits and arrivals. steps gives rank k's own steps, on the
 * clock of its table; waits (r->n lists, cleared; NULL: not wanted) gets
 * each rank's wait for r->straggler, on its own clock: from its start of
 * each instance that rank reached last to that arrival.
 */
struct tc_coll_table;
struct tc_coll_rows;
struct tc_intern;
struct tc_coll_rows *tc_coll_rows_create(size_t n_ranks);
void tc_coll_rows_destroy(struct tc_coll_rows *c);
void tc_coll_rows_add(struct tc_coll_rows *c, size_t k, const struct tc_coll_table *t,
	const uint32_t *ids);
void tc_pass_collectives(struct tc_coll_rows *c, const struct tc_intern *names,
	struct tc_ranks *r, const struct tc_step_source *steps, struct tc_ivals *waits);

/* Copies on device dev's work lines only (TC_NONE: every device's), as the
 * breakdown counts them: added to total[TC_XFER_COUNT] and, per step of
 * a, to per_step[step * TC_XFER_COUNT + dir] (breakdown.c). */
void tc_breakdown_transfers(const struct tc_model *m, const struct tc_analysis *a, uint32_t dev,
	struct tc_xfer_stats *total, struct tc_xfer_stats *per_step);

/* One row summing s[0..n) (n > 0), as `ops --by device` sums a device's
 * ops; no percentiles. */
struct tc_op_row tc_op_row_sum(const struct tc_op_summary *s, size_t n);


/* The compute-side rules (rules_compute.c): FP32 matrix math, layout
 * conversions and tiny GEMMs on the breakdown device, appended to
 * a->findings (unsorted). */
void tc_rules_compute(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a, const struct tc_devwork_ahead *ahead);



/* Compiled programs by count, then total time, then name (compile.c). */
int tc_compile_entry_cmp(const void *pa, const void *pb);


/* The bottleneck rules (rules.c): read every result in a, fill a's
 * findings, ranked. ahead, sums: the rules' device's work and the usage
 * pass's op sums, where passes before made them (NULL: not). */
void tc_pass_rules(const struct tc_model *m, const struct tc_analysis_opts *o,
	struct tc_analysis *a, const struct tc_devwork_ahead *ahead, const struct tc_op_sums *sums);
/* The findings' order (qsort comparator): by the step time explained,
 * then severity, figure and kind. */
int tc_finding_cmp(const void *pa, const void *pb);
/* The rules a job judges across its ranks (communication, straggler), on
 * a job's analysis composed from its ranks' (job.c), skel its skeleton;
 * their findings are added to a's, all ranked again. */
void tc_pass_rules_job(const struct tc_model *skel, const struct tc_analysis_opts *o,
	struct tc_analysis *a);

/* The summary (summary.c) in the pass table's parts: base first (the
 * model alone, leaving the devices' busy and computation time and the op
 * shares' base at zero), then the op rows (with op_sums, where the usage
 * pass summed them; NULL: none) and the steps in either order, and busy,
 * which fills those times from u where it has the device (the same
 * unions), else from the model. u may be NULL; mk: the model's built-in
 * step markers (NULL: found here); without list, the steps are only
 * counted (tc_analysis_opts.summary_steps_counted). */
void tc_pass_summary_base(const struct tc_model *m, struct tc_summary *s);
void tc_pass_summary_rows(const struct tc_model *m, const struct tc_op_sums *op_sums,
	struct tc_summary *s);
void tc_pass_summary_steps(const struct tc_model *m, const struct tc_markers *mk, bool list,
	struct tc_summary *s);
/* tc_pass_summary_steps where tc_pass_summary_marked follows: only what
 * that reads (the source), not the markers' walk it replaces. */
void tc_pass_summary_steps_source(const struct tc_model *m, const struct tc_markers *mk,
	struct tc_summary *s);
void tc_pass_summary_busy(const struct tc_model *m, const struct tc_usage *u,
	struct tc_summary *s);
/* The summary's steps become the analysis's (listed with list): those
 * --step-marker made, else the built-in markers', aligned to their device
 * work and cut to --steps as every analysis command shows them. */
void tc_pass_summary_marked(const struct tc_model *m, const struct tc_analysis *a, bool list,
	struct tc_summary *s);

#endif
