/*
 * tc_analyze: plans the passes a command asks for from the pass table and
 * runs them over a finalized model, some on a side thread; also the threshold table and the parsing of
 * --threshold, --step-marker and --steps into the analysis options.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/host_evidence.h"
#include "analysis/markers.h"
#include "analysis/memview.h"
#include "analysis/passes.h"
#include "analysis/ranks.h"
#include "analysis/step_marker.h"

/*
 * Defaults and where they come from (docs/analysis.md lists them).
 * XP = XProf, TBP = PyTorch TensorBoard plugin, TL = TraceLens, NSYS = Nsight
 * Systems, HTA = Holistic Trace Analysis.
 */
static const struct tc_threshold_def thresholds[TC_TH_COUNT] = {
	[TC_TH_ALLOC_SHARE] = { "alloc.share", 30, "%", "tracectl default: allocator calls running, with the device idle, for this share of a launch/host finding's time make it about allocation" },
	[TC_TH_COMM_MODERATE] = { "communication.moderate", 3, "%", "XProf collectives band 3 %" },
	[TC_TH_COMM_HIGH] = { "communication.high", 15, "%", "XProf collectives band 15 %" },
	[TC_TH_COMPILE_MODERATE] = { "compile.moderate", 5, "%", "tracectl default (XProf input band 5 %)" },
	[TC_TH_COMPILE_HIGH] = { "compile.high", 20, "%", "tracectl default (XProf input band 20 %)" },
	[TC_TH_COMPUTE_BOUND] = { "compute-bound.share", 70, "%", "XProf smart suggestion: util > 70" },
	[TC_TH_CRITICAL] = { "critical", 50, "%", "tracectl: a category over half the time is critical" },
	[TC_TH_FP32_SHARE] = { "fp32.share", 10, "%", "tracectl default: FP32 GEMM/convolution kernels' share of device work on a device with tensor cores" },
	[TC_TH_FRAG_SHARE] = { "fragmentation.share", 30, "%", "tracectl default (PyTorch caching allocator: reserved - allocated is cached, unused)" },
	[TC_TH_FRAG_HIGH] = { "fragmentation.high", 50, "%", "tracectl default: half the pool unused" },
	[TC_TH_FRAG_MIN_SIZE] = { "fragmentation.min-size", 1, "GiB", "tracectl default: smaller pools are not worth judging" },
	[TC_TH_FRAG_MIN_DEVICE] = { "fragmentation.min-device", 10, "%", "tracectl default: or this share of device memory" },
	[TC_TH_HOST_MODERATE] = { "host.moderate", 3, "%", "XProf all-other/host band 3 %" },
	[TC_TH_HOST_HIGH] = { "host.high", 15, "%", "XProf all-other/host band 15 %" },
	[TC_TH_IDLE_MODERATE] = { "idle.moderate", 10, "%", "tracectl default (TBP rule 5 / NSYS gpu_time_util: idle half the time)" },
	[TC_TH_IDLE_HIGH] = { "idle.high", 30, "%", "tracectl default" },
	[TC_TH_KERNEL_WAIT_US] = { "kernel.wait", 30, "us", "HTA consecutive_kernel_delay 30 us" },
	[TC_TH_INPUT_MODERATE] = { "input.moderate", 5, "%", "XProf input band 5 % / TBP rule 1" },
	[TC_TH_INPUT_HIGH] = { "input.high", 20, "%", "XProf input band 20 %" },
	[TC_TH_LAUNCH_MODERATE] = { "launch.moderate", 3, "%", "XProf kernel-launch band 3 %" },
	[TC_TH_LAUNCH_HIGH] = { "launch.high", 15, "%", "XProf kernel-launch band 15 %" },
	[TC_TH_LAUNCH_DELAY_US] = { "launch.delay", 50, "us", "tracectl default: a waiting device starts a kernel within ~5-20 us of its launch" },
	[TC_TH_LAYOUT_SHARE] = { "layout.share", 10, "%", "tracectl default: layout conversion kernels' share of device work" },
	[TC_TH_LAUNCH_SHORT_SHARE] = { "launch.short-kernels", 50, "%", "tracectl default (TraceLens short kernels)" },
	[TC_TH_MEMORY_BOUND] = { "memory-bound.share", 50, "%", "tracectl default" },
	[TC_TH_MEMORY_BOUND_HIGH] = { "memory-bound.high", 70, "%", "XProf smart suggestion: HBM util > 70" },
	[TC_TH_MEM_PRESSURE] = { "memory.peak", 90, "%", "TBP rule 7: peak > 90 % of device memory" },
	[TC_TH_MEM_PRESSURE_CRITICAL] = { "memory.peak-critical", 98, "%", "tracectl default" },
	[TC_TH_MEM_LEAK] = { "memory.leak", 1, "%",
		"tracectl default: live bytes grow at every step end by this share of the peak" },
	[TC_TH_PARTIAL_STEP] = { "step.partial", 80, "%", "TBP: last step dropped if device work < 0.8x the previous" },
	[TC_TH_PAGEABLE_SHARE] = { "pageable.share", 50, "%", "tracectl default (NSYS cuda_memcpy_async)" },
	[TC_TH_RECOMPILE_COUNT] = { "recompile.count", 2, "count", "tracectl default" },
	[TC_TH_SHORT_KERNEL_US] = { "kernel.short", 10, "us", "TraceLens short kernel < 10 us" },
	[TC_TH_SMALL_BATCH_SHARE] = { "small-batch.share", 50, "%", "tracectl default (TBP Est. SM Efficiency: kernels under 1 block per SM)" },
	[TC_TH_SMALL_BATCH_HIGH] = { "small-batch.high", 80, "%", "tracectl default" },
	[TC_TH_SMALL_BATCH_BLOCKS] = { "small-batch.blocks", 1, "x", "TBP Est. SM Efficiency: min(blocks per SM, 1)" },
	[TC_TH_SMALL_BATCH_SHORT] = { "small-batch.short-share", 80, "%", "tracectl default (TraceLens short kernels, HTA kernel breakdown)" },
	[TC_TH_SMALL_BATCH_BUSY] = { "small-batch.busy", 80, "%", "tracectl default (TBP rule 5 GPU utilisation)" },
	[TC_TH_STRAGGLER_SKEW] = { "straggler.skew", 30, "%", "tracectl default (HTA straggler analysis)" },
	[TC_TH_STRAGGLER_WAIT] = { "straggler.wait", 5, "%", "tracectl default (others' wait for the last rank)" },
	[TC_TH_SYNC_MODERATE] = { "sync.moderate", 3, "%", "tracectl default (XProf host band 3 %; NSYS cuda_api_sync)" },
	[TC_TH_SYNC_HIGH] = { "sync.high", 15, "%", "tracectl default (XProf host band 15 %)" },
	[TC_TH_TINY_GEMMS] = { "tiny-gemms.per_step", 100, "", "tracectl default: GEMM kernels of 10 us or less per step, when half the GEMMs or more" },
	[TC_TH_TRANSFER_MODERATE] = { "transfer.moderate", 5, "%", "XProf input/output band 5 %" },
	[TC_TH_TRANSFER_HIGH] = { "transfer.high", 20, "%", "XProf input/output band 20 %" },
	[TC_TH_UNOPT_EFFICIENCY] = { "unoptimized.efficiency", 20, "%", "tracectl default (XProf roofline efficiency)" },
	[TC_TH_UNOPT_SHARE] = { "unoptimized.share", 10, "%", "tracectl default" },
	[TC_TH_WARMUP_FACTOR] = { "warmup.factor", 2, "x", "tracectl default" },
};

const struct tc_threshold_def *tc_thresholds(void) {
	return thresholds;
}

void tc_analysis_opts_init(struct tc_analysis_opts *o) {
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < TC_TH_COUNT; i++) {
		o->th[i] = thresholds[i].value;
	}
}

bool tc_analysis_opts_threshold(struct tc_analysis_opts *o, const char *kv,
		struct tc_error *err) {
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		return tc_error_set(err, TC_EXIT_USAGE, "threshold '%s' is not KEY=VALUE", kv);
	}
	size_t kl = (size_t)(eq - kv);
	for (int i = 0; i < TC_TH_COUNT; i++) {
		if (strlen(thresholds[i].key) == kl && strncmp(thresholds[i].key, kv, kl) == 0) {
			char *end;
			errno = 0;
			double v = strtod(eq + 1, &end);
			if (errno || end == eq + 1 || *end || !isfinite(v) || v < 0) {
				return tc_error_set(err, TC_EXIT_USAGE,
					"invalid value '%s' for threshold '%.*s'", eq + 1, (int)kl, kv);
			}
			o->th[i] = v;
			return true;
		}
	}
	return tc_error_set(err, TC_EXIT_USAGE, "unknown threshold '%.*s'", (int)kl, kv);
}

bool tc_analysis_opts_step_marker(struct tc_analysis_opts *o, const char *pattern,
		struct tc_error *err) {
	if (!tc_step_marker_valid(pattern, err)) {
		return false;
	}
	o->step_marker = pattern;
	return true;
}

static bool parse_i64(const char *s, const char *end, int64_t *out) {
	if (s == end) {
		return false;
	}
	char *e;
	errno = 0;
	long long v = strtoll(s, &e, 10);
	if (errno || e != end) {
		return false;
	}
	*out = v;
	return true;
}

bool tc_analysis_opts_steps(struct tc_analysis_opts *o, const char *range,
		struct tc_error *err) {
	const char *colon = strchr(range, ':');
	const char *end = range + strlen(range);
	int64_t a = INT64_MIN, b = INT64_MAX;
	bool ok;
	if (!colon) {
		ok = parse_i64(range, end, &a);
		b = a;
	} else {
		ok = (colon == range || parse_i64(range, colon, &a)) &&
			(colon + 1 == end || parse_i64(colon + 1, end, &b)) &&
			!(colon == range && colon + 1 == end);
	}
	if (!ok || a > b) {
		return tc_error_set(err, TC_EXIT_USAGE, "invalid step range '%s' (use A:B)", range);
	}
	o->step_range = true;
	o->step_first = a;
	o->step_last = b;
	return true;
}

/* What a pass reads and writes while tc_analyze runs the table. */
struct tc_pass_run {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct tc_analysis *a;
	const char *by;            /* the op table's grouping */
	uint32_t want;             /* the results the plan asked for */
	uint32_t made;             /* the results its passes make */
	bool sums;                 /* the usage pass sums the ops for the summary's rows
	                            * and the rules' device work and kernel fill */
	struct tc_markers mk;
	bool marked;               /* the markers made the steps before usage */
	struct tc_bd_early *early; /* the breakdown's attribution, made during usage */
	struct tc_ivals *kinds;    /* usage's kind runs, kept for the breakdown */
	struct tc_usage usage;
	struct tc_op_sums op_sums; /* the usage pass's, for the summary's rows */
	struct tc_devwork_ahead ahead; /* the rules' device work, made ahead */
	bool work_sums;            /* ahead's device work from op_sums (plan decides) */
	bool device_work;          /* some device has work on its lines (plan) */
	struct tc_host_unions *hosts; /* the breakdown's host unions, made ahead */
	/* With a side thread: the results made so far, under lock. */
	bool threaded;
	uint32_t done;
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

static void run_summary_base(struct tc_pass_run *c) {
	tc_pass_summary_base(c->m, &c->a->summary);
}

static void run_summary_rows(struct tc_pass_run *c) {
	tc_pass_summary_rows(c->m, c->sums ? &c->op_sums : NULL, &c->a->summary);
}

static bool rows_alone(const struct tc_pass_run *c) {
	return !c->sums;
}

static bool rows_from_usage(const struct tc_pass_run *c) {
	return c->sums;
}

static void run_memory(struct tc_pass_run *c) {
	tc_pass_memory(c->m, &c->a->mem, &c->a->n_mem);
}

static void run_memview(struct tc_pass_run *c) {
	tc_memview_build(c->m, &c->a->memview);
}

static void run_compile(struct tc_pass_run *c) {
	tc_pass_compile(c->m, &c->a->compile);
}

/* Events from which the markers' walk of the op column takes a second
 * thread unless threads are asked for: below, it is done in a few ms, and
 * a thread that waits for a core busy with a side pass costs more. */
#define MARKERS_TWO_MIN ((uint64_t)1 << 22)

static void run_markers(struct tc_pass_run *c) {
	tc_markers_init(&c->mk, c->m,
		tc_pass_parallel(c->o, c->m->ev.n >= MARKERS_TWO_MIN ? c->m->ev.n : 0));
}

static bool with_steps(const struct tc_pass_run *c) {
	return c->want & TC_R_STEPS;
}

static void run_summary_steps(struct tc_pass_run *c) {
	/* With the steps pass, summary-marked replaces these steps. */
	if (with_steps(c)) {
		tc_pass_summary_steps_source(c->m, &c->mk, &c->a->summary);
		return;
	}
	tc_pass_summary_steps(c->m, &c->mk, !c->o->summary_steps_counted, &c->a->summary);
}

/* Steps from markers need no usage: then the breakdown attributes each
 * device as usage builds its per-kind unions, and none is kept (all
 * devices' unions together cost more memory than the model's times). */
static void run_early_steps(struct tc_pass_run *c) {
	c->marked = tc_pass_steps_from(c->m, c->o, &c->mk, NULL, true, c->a);
	c->early = c->marked && c->a->n_steps ?
		tc_bd_early_create(c->m, c->o, c->a, c->ahead.device != TC_NONE) : NULL;
}

/* Otherwise the per-kind unions are kept from usage for the breakdown. */
static void run_usage(struct tc_pass_run *c) {
	struct tc_analysis *a = c->a;
	const struct tc_usage_each early = { tc_bd_early_runs, tc_bd_early_streams, c->early };
	tc_pass_usage(c->m, c->o, &a->util, &a->n_util, &a->streams, &a->n_streams,
		(c->made & TC_R_BREAKDOWN) && !c->marked ? &c->kinds : NULL,
		c->early ? &early : NULL, c->sums ? &c->op_sums : NULL);
	c->usage = (struct tc_usage){ a->util, a->n_util, c->kinds };
}

/* The rules judge the whole trace, whatever --device names; the
 * summary's op rows are the same walk: reuse them. */
static void run_rules_ops(struct tc_pass_run *c) {
	tc_pass_op_table(c->m, "name", false, TC_NONE, &c->usage,
		c->made & TC_R_SUM_ROWS ? &c->a->summary : NULL, &c->a->ops);
}

static void run_steps(struct tc_pass_run *c) {
	if (!c->marked) {
		tc_pass_steps_from(c->m, c->o, &c->mk, &c->usage, !(c->made & TC_R_EARLY), c->a);
	}
}

/* Without device work, the breakdown's host unions are all its
 * attribution reads besides the steps: with a side thread, they are made
 * there while the markers and steps are found (unused if none are). */
static bool hosts_ahead(const struct tc_pass_run *c) {
	return !c->device_work && tc_pass_parallel(c->o, c->m->ev.n);
}

static void run_host_unions(struct tc_pass_run *c) {
	c->hosts = tc_bd_host_unions_ahead(c->m);
}

static void run_breakdown(struct tc_pass_run *c) {
	tc_pass_breakdown(c->m, c->o, &c->usage, c->early, &c->hosts, c->a);
	tc_usage_kinds_destroy(c->kinds, c->a->n_util);
}

/* Each rank alone on its own sub-model, then composed. */
static void run_ranks(struct tc_pass_run *c) {
	struct tc_rank_parts parts;
	tc_rank_parts_analyze(c->m, c->o, &parts);
	tc_pass_ranks(c->m, c->o, &parts, c->a);
	tc_rank_parts_finish(&parts);
}

static void run_startup(struct tc_pass_run *c) {
	tc_host_evidence_startup(c->m, c->a);
}

static void run_op_table(struct tc_pass_run *c) {
	tc_pass_op_table(c->m, c->by, true, tc_analysis_find_device(c->m, c->o->device),
		&c->usage, NULL, &c->a->op_table);
}

static void run_runtime(struct tc_pass_run *c) {
	tc_runtime_detect(c->m, c->a, &c->a->runtime);
}

static void run_rules(struct tc_pass_run *c) {
	tc_pass_rules(c->m, c->o, c->a, c->made & TC_R_DEVWORK ? &c->ahead : NULL,
		c->sums ? &c->op_sums : NULL);
}

/* With one device doing work (plan finds it), the rules' device is known
 * before the rules: its work is summed after usage, from the usage pass's
 * op sums, or, where launch flows keep those from standing for its lines,
 * walked beside usage from the start. */
static bool work_from_sums(const struct tc_pass_run *c) {
	return c->ahead.device != TC_NONE && c->work_sums;
}

static bool work_walked(const struct tc_pass_run *c) {
	return c->ahead.device != TC_NONE && !c->work_sums;
}

static void run_costs(struct tc_pass_run *c) {
	tc_model_costs(c->m);
}

static void run_devwork(struct tc_pass_run *c) {
	tc_devwork_scan_sums(c->m, c->ahead.device, &c->op_sums, &c->ahead.w);
}

static void run_devwork_walk(struct tc_pass_run *c) {
	tc_devwork_scan(c->m, c->ahead.device, &c->ahead.w);
}

static void run_summary_busy(struct tc_pass_run *c) {
	tc_pass_summary_busy(c->m, c->made & TC_R_USAGE ? &c->usage : NULL, &c->a->summary);
}

static void run_summary_marked(struct tc_pass_run *c) {
	tc_pass_summary_marked(c->m, c->a, !c->o->summary_steps_counted, &c->a->summary);
}

/*
 * The passes in the order they run: each after every pass making what it
 * needs (check_analysis tests it). Those beside the usage/steps/breakdown
 * chain run on a side thread on big models, in this order too, each once
 * what it reads is made; the summary's and the memory passes come first
 * there, so they run while the markers are found and usage walks the
 * model.
 */
#define R(x) TC_R_##x
static const struct tc_pass_def pass_table[] = {
	{ "summary-base", 0, 0, R(SUM_BASE), true, NULL, run_summary_base },
	{ "costs", 0, 0, R(COSTS), true, NULL, run_costs },
	{ "host-unions", 0, 0, R(HOSTS), true, hosts_ahead, run_host_unions },
	{ "summary-rows", R(SUM_BASE), 0, R(SUM_ROWS), true, rows_alone, run_summary_rows },
	{ "memory", 0, 0, R(MEMORY), true, NULL, run_memory },
	{ "memview", 0, 0, R(MEMVIEW), true, NULL, run_memview },
	{ "compile", 0, 0, R(COMPILE), true, NULL, run_compile },
	/* The one work device's work where the op sums cannot stand for its
	 * lines: walked from the start, beside the markers and usage. */
	{ "devwork-walk", 0, 0, R(DEVWORK), true, work_walked, run_devwork_walk },
	{ "markers", 0, 0, R(MARKERS), false, NULL, run_markers },
	{ "summary-steps", R(SUM_BASE) | R(MARKERS), 0, R(SUM_STEPS), true, NULL,
		run_summary_steps },
	{ "early-steps", R(MARKERS), 0, R(EARLY), false, NULL, run_early_steps },
	{ "usage", 0, R(EARLY), R(USAGE), false, NULL, run_usage },
	/* The one work device's work, from the usage pass's op sums (its flat
	 * lines unwalked). */
	{ "devwork", 0, R(USAGE), R(DEVWORK), true, work_from_sums, run_devwork },
	/* The op rows take the usage pass's sums where it makes them. */
	{ "summary-rows-usage", R(SUM_BASE), R(USAGE), R(SUM_ROWS), true, rows_from_usage,
		run_summary_rows },
	{ "rules-ops", R(USAGE), R(SUM_ROWS), R(OPS), true, NULL, run_rules_ops },
	{ "steps", R(MARKERS) | R(USAGE), R(EARLY), R(STEPS), false, NULL, run_steps },
	{ "breakdown", R(STEPS) | R(USAGE) | R(EARLY), R(HOSTS), R(BREAKDOWN), false, NULL,
		run_breakdown },
	{ "ranks", R(BREAKDOWN), 0, R(RANKS), false, NULL, run_ranks },
	{ "startup", R(BREAKDOWN), 0, R(STARTUP), false, NULL, run_startup },
	{ "op-table", R(USAGE), 0, R(OP_TABLE), false, NULL, run_op_table },
	{ "runtime", R(USAGE) | R(BREAKDOWN), 0, R(RUNTIME), false, NULL, run_runtime },
	{ "rules", R(USAGE) | R(STEPS) | R(BREAKDOWN) | R(RANKS) | R(STARTUP) | R(MEMORY) |
		R(MEMVIEW) | R(COMPILE) | R(OPS) | R(RUNTIME) | R(DEVWORK), 0, R(FINDINGS), false,
		NULL, run_rules },
	{ "summary-busy", R(SUM_BASE), R(USAGE), R(SUM_BUSY), false, NULL, run_summary_busy },
	/* The summary's steps become the analysis's, where it has steps. */
	{ "summary-marked", R(SUM_STEPS), R(STEPS), R(SUM_MARKED), false, with_steps,
		run_summary_marked },
};

/* The results each TC_AN_* bit asks for, by bit. */
static const uint32_t results_of[] = {
	R(USAGE),
	R(STEPS),
	R(BREAKDOWN) | R(RANKS) | R(STARTUP),
	R(FINDINGS),
	R(OP_TABLE),
	R(SUM_BASE) | R(SUM_ROWS) | R(SUM_STEPS) | R(SUM_BUSY) | R(SUM_MARKED),
};
#undef R

#define N_PASSES (sizeof(pass_table) / sizeof(pass_table[0]))
_Static_assert(N_PASSES <= 64, "a plan is a 64-bit mask");

const struct tc_pass_def *tc_pass_table(size_t *n) {
	*n = N_PASSES;
	return pass_table;
}

/* Whether a device has work on its lines, as the summary counts devices:
 * the usage pass's op sums are of device work, and without any the rows
 * walk the threads from the start, beside the markers and the steps. */
static bool any_device_work(const struct tc_model *m) {
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->device < m->n_devices && tr->count &&
				tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
			return true;
		}
	}
	return false;
}

/* c's plan for what: the results wanted, with those their passes need
 * (from rows before them, so one walk back finds all), and the passes
 * that make them. */
static uint64_t plan(struct tc_pass_run *c, unsigned what) {
	uint32_t want = 0;
	for (size_t b = 0; b < sizeof(results_of) / sizeof(results_of[0]); b++) {
		want |= what & (1u << b) ? results_of[b] : 0;
	}
	for (size_t i = N_PASSES; i-- > 0;) {
		want |= pass_table[i].provides & want ? pass_table[i].needs : 0;
	}
	c->device_work = any_device_work(c->m);
	c->sums = (want & (TC_R_SUM_ROWS | TC_R_FINDINGS)) && (want & TC_R_USAGE) &&
		c->device_work;
	want |= want & TC_R_BREAKDOWN ? TC_R_HOSTS : 0;
	/* Then the rows wait for usage: the events' costs, where they have
	 * their own, are searched on the side thread meanwhile. */
	want |= c->sums && c->m->event_costs ? TC_R_COSTS : 0;
	c->want = want;
	c->ahead.device = tc_devwork_only_device(c->m);
	c->work_sums = c->sums && c->ahead.device != TC_NONE && !tc_devwork_launched(c->m);
	uint64_t passes = 0;
	c->made = 0;
	for (size_t i = 0; i < N_PASSES; i++) {
		const struct tc_pass_def *p = &pass_table[i];
		if ((p->provides & want) && (!p->when || p->when(c))) {
			passes |= UINT64_C(1) << i;
			c->made |= p->provides;
		}
	}
	return passes;
}

uint64_t tc_pass_plan(const struct tc_model *m, const struct tc_analysis_opts *o,
		unsigned what) {
	struct tc_pass_run c = { .m = m, .o = o };
	return plan(&c, what);
}

/* Runs pass i once the results it reads are made. */
static void run_pass(struct tc_pass_run *c, size_t i) {
	const struct tc_pass_def *p = &pass_table[i];
	if (c->threaded) {
		uint32_t reads = (p->needs | p->after) & c->made;
		pthread_mutex_lock(&c->lock);
		while ((c->done & reads) != reads) {
			pthread_cond_wait(&c->cv, &c->lock);
		}
		pthread_mutex_unlock(&c->lock);
	}
	p->run(c);
	if (c->threaded) {
		pthread_mutex_lock(&c->lock);
		c->done |= p->provides;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->lock);
	}
}

struct side {
	struct tc_pass_run *c;
	uint64_t passes;
};

static void *side_passes(void *p) {
	struct side *s = p;
	for (size_t i = 0; i < N_PASSES; i++) {
		if (s->passes >> i & 1) {
			run_pass(s->c, i);
		}
	}
	return NULL;
}

bool tc_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
		unsigned what, struct tc_analysis *a) {
	memset(a, 0, sizeof(*a));
	const char *by = o->op_by ? o->op_by : "name";
	if ((what & TC_AN_OP_TABLE) && strcmp(by, "name") && strcmp(by, "category") &&
			strcmp(by, "kind") && strcmp(by, "device")) {
		return false;
	}
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	a->span_ps = hi - lo;
	struct tc_pass_run c = { .m = m, .o = o, .a = a, .by = by };
	uint64_t passes = plan(&c, what);
	uint64_t beside = 0;
	for (size_t i = 0; i < N_PASSES; i++) {
		beside |= pass_table[i].beside ? (passes & UINT64_C(1) << i) : 0;
	}
	struct side side = { &c, beside };
	pthread_t th;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cv, NULL);
	/* Set before the side thread starts: it reads it. */
	c.threaded = beside && tc_pass_parallel(o, m->ev.n);
	if (c.threaded && pthread_create(&th, NULL, side_passes, &side) != 0) {
		c.threaded = false;
	}
	uint64_t here = c.threaded ? passes & ~beside : passes;
	for (size_t i = 0; i < N_PASSES; i++) {
		if (here >> i & 1) {
			run_pass(&c, i);
		}
	}
	if (c.threaded) {
		pthread_join(th, NULL);
	}
	tc_op_sums_finish(&c.op_sums);
	tc_bd_host_unions_free(c.hosts);
	tc_markers_finish(&c.mk);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.cv);
	return true;
}
