/*
 * tc_analyze: runs the passes a command asks for over a finalized model,
 * some on a side thread; also the threshold table and the parsing of
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

/* what, with the passes it needs. */
static unsigned passes_for(unsigned what) {
	unsigned run = what;
	if (run & TC_AN_FINDINGS) {
		run |= TC_AN_BREAKDOWN;
	}
	if (run & TC_AN_BREAKDOWN) {
		run |= TC_AN_STEPS;
	}
	if (run & (TC_AN_STEPS | TC_AN_OP_TABLE)) {
		run |= TC_AN_USAGE;
	}
	return run;
}

struct side_job {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	const struct tc_markers *mk;
	unsigned run;
	struct tc_analysis *a;
	struct tc_usage usage;
	struct tc_op_sums op_sums; /* the usage pass's, for the summary's rows */
	bool sums;                 /* the usage pass makes op_sums */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool markers_done; /* mk is set (the summary's steps read it) */
	bool usage_done;   /* usage is done (the rules' op table reads it) */
};

/* Waits for *flag, set under j->lock. */
static void side_wait(struct side_job *j, const bool *flag) {
	pthread_mutex_lock(&j->lock);
	while (!*flag) {
		pthread_cond_wait(&j->cv, &j->lock);
	}
	pthread_mutex_unlock(&j->lock);
}

static void side_set(struct side_job *j, bool *flag) {
	pthread_mutex_lock(&j->lock);
	*flag = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->lock);
}

/* The passes beside the usage/steps/breakdown chain: they fill fields of
 * a that the chain neither reads nor writes, and read only the usage of
 * its results, once the chain says it is done. */
static void *side_passes(void *p) {
	struct side_job *j = p;
	struct tc_analysis *a = j->a;
	/* What needs neither markers nor usage first: the markers are found
	 * meanwhile. The op rows come after the usage pass where they take
	 * its sums, else now, beside it. */
	bool rows_late = false;
	if (j->run & TC_AN_SUMMARY) {
		tc_pass_summary_base(j->m, &a->summary);
		rows_late = j->sums && a->summary.n_devices;
		if (!rows_late) {
			tc_pass_summary_rows(j->m, NULL, &a->summary);
		}
	}
	if (j->run & TC_AN_FINDINGS) {
		tc_pass_memory(j->m, &a->mem, &a->n_mem);
		tc_memview_build(j->m, &a->memview);
		tc_pass_compile(j->m, &a->compile);
	}
	if (j->run & TC_AN_SUMMARY) {
		side_wait(j, &j->markers_done);
		tc_pass_summary_steps(j->m, j->mk, !j->o->summary_steps_counted, &a->summary);
	}
	side_wait(j, &j->usage_done);
	if (rows_late) {
		tc_pass_summary_rows(j->m, &j->op_sums, &a->summary);
	}
	if (!(j->run & TC_AN_FINDINGS)) {
		return NULL;
	}
	/* The rules judge the whole trace, whatever --device names. */
	/* The summary's op rows are the same walk: reuse them. */
	tc_pass_op_table(j->m, "name", false, TC_NONE, &j->usage,
		j->run & TC_AN_SUMMARY ? &a->summary : NULL, &a->ops);
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
	unsigned run = passes_for(what);
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	a->span_ps = hi - lo;
	struct tc_markers mk = { 0 };
	struct side_job job = { .m = m, .o = o, .mk = &mk, .run = run, .a = a,
		.sums = (run & TC_AN_SUMMARY) && (run & TC_AN_USAGE) &&
			tc_pass_summary_sums_usable(m) };
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.cv, NULL);
	pthread_t th;
	bool side = run & (TC_AN_FINDINGS | TC_AN_SUMMARY);
	bool threaded = side && tc_pass_parallel(o, m->ev.n) &&
		pthread_create(&th, NULL, side_passes, &job) == 0;
	/* The built-in step markers, found once for the steps and the summary. */
	if (run & (TC_AN_SUMMARY | TC_AN_STEPS)) {
		tc_markers_init(&mk, m, tc_pass_parallel(o, m->ev.n));
	}
	side_set(&job, &job.markers_done);
	/* Steps from markers need no usage: then the breakdown attributes each
	 * device as usage builds its per-kind unions, and none is kept (all
	 * devices' unions together cost more memory than the model's times). */
	bool marked = (run & TC_AN_BREAKDOWN) && tc_pass_steps_from(m, o, &mk, NULL, true, a);
	struct tc_bd_early *early = marked && a->n_steps ? tc_bd_early_create(m, o, a) : NULL;
	/* Otherwise the per-kind unions are kept from usage for the breakdown. */
	struct tc_ivals *kinds = NULL;
	if (run & TC_AN_USAGE) {
		tc_pass_usage(m, o, &a->util, &a->n_util, &a->streams, &a->n_streams,
			(run & TC_AN_BREAKDOWN) && !marked ? &kinds : NULL,
			early ? tc_bd_early_device : NULL, early,
			job.sums ? &job.op_sums : NULL);
		job.usage = (struct tc_usage){ a->util, a->n_util, kinds };
	}
	side_set(&job, &job.usage_done);
	if ((run & TC_AN_STEPS) && !marked) {
		tc_pass_steps_from(m, o, &mk, &job.usage, !(run & TC_AN_BREAKDOWN), a);
	}
	if (run & TC_AN_BREAKDOWN) {
		tc_pass_breakdown(m, o, &job.usage, early, a);
	}
	tc_usage_kinds_destroy(kinds, a->n_util);
	if (run & TC_AN_BREAKDOWN) {
		/* Each rank alone on its own sub-model, then composed. */
		struct tc_rank_parts parts;
		tc_rank_parts_analyze(m, o, &parts);
		tc_pass_ranks(m, o, &parts, a);
		tc_rank_parts_finish(&parts);
		tc_host_evidence_startup(m, a);
	}
	if (threaded) {
		pthread_join(th, NULL);
	} else if (side) {
		side_passes(&job);
	}
	tc_op_sums_finish(&job.op_sums);
	pthread_mutex_destroy(&job.lock);
	pthread_cond_destroy(&job.cv);
	tc_markers_finish(&mk);
	if (run & TC_AN_OP_TABLE) {
		tc_pass_op_table(m, by, true, tc_analysis_find_device(m, o->device), &job.usage,
			NULL, &a->op_table);
	}
	if (run & TC_AN_FINDINGS) {
		tc_runtime_detect(m, a, &a->runtime);
		tc_pass_rules(m, o, a);
	}
	if (run & TC_AN_SUMMARY) {
		tc_pass_summary_busy(m, run & TC_AN_USAGE ? &job.usage : NULL, &a->summary);
		if (run & TC_AN_STEPS) {
			tc_pass_summary_marked(m, a, !o->summary_steps_counted, &a->summary);
		}
	}
	return true;
}
