/*
 * Check suite for the analysis passes: the pass table, usage, markers,
 * steps, the summary, diffs, the straggler's wait and the memory view, on
 * small models built in the test. The interval unions and covers they
 * stand on are check_intervals.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "analysis/fill.h"
#include "analysis/intervals.h"
#include "analysis/markers.h"
#include "analysis/memview.h"
#include "analysis/passes.h"
#include "analysis/steps.h"
#include "analysis/straggler.h"
#include "analysis/summary.h"
#include "tc_test.h"
#include "util/xalloc.h"

/* The pass table: each pass comes after the passes making what it reads
 * (the plan walks it back once on that promise, and each thread runs it
 * in order), every result has a maker, and a request plans only the
 * passes it needs. */
static size_t pass_row(const struct tc_pass_def *t, size_t n, const char *name) {
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].name, name) == 0) {
			return i;
		}
	}
	ck_abort_msg("no pass '%s'", name);
	return 0;
}

/* The plan's rows as a mask from their names. */
static uint64_t pass_mask(const struct tc_pass_def *t, size_t n, const char *const *names) {
	uint64_t v = 0;
	for (; *names; names++) {
		v |= UINT64_C(1) << pass_row(t, n, *names);
	}
	return v;
}

START_TEST(pass_table_order) {
	size_t n;
	const struct tc_pass_def *t = tc_pass_table(&n);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n, 64);
	uint32_t made = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t reads = t[i].needs | t[i].after;
		ck_assert_msg((reads & ~made) == 0, "pass '%s' reads 0x%x before any pass makes it",
			t[i].name, reads & ~made);
		ck_assert_msg(t[i].provides != 0, "pass '%s' makes nothing", t[i].name);
		ck_assert_msg(t[i].run != NULL, "pass '%s' has no run", t[i].name);
		for (size_t j = 0; j < i; j++) {
			ck_assert_str_ne(t[i].name, t[j].name);
		}
		made |= t[i].provides;
	}
	ck_assert_uint_eq(made, TC_R_HOSTS * 2 - 1);

	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t s1 = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	tc_model_add_event(m, s1, tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL),
		0, 100, 0);
	tc_model_finalize(m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	static const char *const usage[] = { "usage", NULL };
	static const char *const steps[] = { "markers", "usage", "steps", NULL };
	static const char *const op_table[] = { "usage", "op-table", NULL };
	static const char *const summary[] = { "summary-base", "summary-rows", "markers",
		"summary-steps", "summary-busy", NULL };
	/* With usage, the summary's rows take its sums (no op has costs). */
	static const char *const summary_usage[] = { "summary-base", "markers",
		"summary-steps", "usage", "summary-rows-usage", "summary-busy", NULL };
	static const char *const breakdown[] = { "markers", "early-steps", "usage", "steps",
		"breakdown", "ranks", "startup", NULL };
	/* One device does work: the rules' device work is summed ahead, from
	 * the usage pass's op sums. */
	static const char *const findings[] = { "memory", "memview", "compile", "markers",
		"early-steps", "usage", "devwork", "rules-ops", "steps", "breakdown", "ranks",
		"startup", "runtime", "rules", NULL };
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_USAGE), pass_mask(t, n, usage));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_STEPS), pass_mask(t, n, steps));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_OP_TABLE), pass_mask(t, n, op_table));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_SUMMARY), pass_mask(t, n, summary));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_SUMMARY | TC_AN_USAGE),
		pass_mask(t, n, summary_usage));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_BREAKDOWN), pass_mask(t, n, breakdown));
	ck_assert_uint_eq(tc_pass_plan(m, &o, TC_AN_FINDINGS), pass_mask(t, n, findings));
	/* With steps, the summary's steps become the analysis's. */
	uint64_t both = tc_pass_plan(m, &o, TC_AN_SUMMARY | TC_AN_FINDINGS);
	ck_assert(both >> pass_row(t, n, "summary-marked") & 1);
	ck_assert_uint_eq(tc_pass_plan(m, &o, 0), 0);
	/* Two do: the rules scan theirs once the breakdown picks it. */
	struct tc_model *m2 = tc_model_create();
	for (int k = 0; k < 2; k++) {
		uint32_t dk = tc_model_add_device(m2, tc_model_intern(m2, k ? "GPU 1" : "GPU 0"),
			TC_DEV_GPU);
		uint32_t sk = tc_model_add_track(m2, dk, tc_model_intern(m2, "stream 7"),
			TC_TRACK_STREAM, 7);
		tc_model_add_event(m2, sk, tc_model_op(m2, tc_model_intern(m2, "gemm"), 0,
			TC_OP_KERNEL), 0, 100, 0);
	}
	tc_model_finalize(m2);
	ck_assert_uint_eq(tc_pass_plan(m2, &o, TC_AN_FINDINGS) >> pass_row(t, n, "devwork") & 1, 0);
	tc_model_destroy(m2);
	/* One does, with a launch flow: its events have launchers, which the
	 * usage pass's op sums do not know, so its work is walked beside
	 * usage from the start, not summed after it. */
	struct tc_model *m3 = tc_model_create();
	uint32_t h3 = tc_model_add_host(m3, tc_model_intern(m3, "host"), 0);
	uint32_t ht = tc_model_add_track(m3, h3, tc_model_intern(m3, "thread"),
		TC_TRACK_HOST_THREAD, 1);
	uint32_t d3 = tc_model_add_device(m3, tc_model_intern(m3, "GPU 0"), TC_DEV_GPU);
	uint32_t s3 = tc_model_add_track(m3, d3, tc_model_intern(m3, "stream 7"),
		TC_TRACK_STREAM, 7);
	uint32_t call = tc_model_add_event(m3, ht, tc_model_op(m3,
		tc_model_intern(m3, "cudaLaunchKernel"), 0, TC_OP_RUNTIME), 0, 10, 0);
	uint32_t kern = tc_model_add_event(m3, s3, tc_model_op(m3, tc_model_intern(m3, "gemm"), 0,
		TC_OP_KERNEL), 20, 100, 0);
	tc_model_add_flow(m3, call, kern, TC_FLOW_LAUNCH, 1);
	tc_model_finalize(m3);
	uint64_t p3 = tc_pass_plan(m3, &o, TC_AN_FINDINGS);
	ck_assert_uint_eq(p3 >> pass_row(t, n, "devwork") & 1, 0);
	ck_assert_uint_eq(p3 >> pass_row(t, n, "devwork-walk") & 1, 1);
	ck_assert_uint_lt(pass_row(t, n, "devwork-walk"), pass_row(t, n, "usage"));
	ck_assert(!(t[pass_row(t, n, "devwork-walk")].after & TC_R_USAGE));
	tc_model_destroy(m3);
	/* Threads alone, no device work: the rows walk the threads from the
	 * start (no usage sums wait), and with a second thread the
	 * breakdown's host unions are made beside the markers and steps. */
	struct tc_model *m4 = tc_model_create();
	uint32_t h4 = tc_model_add_host(m4, tc_model_intern(m4, "host"), 0);
	uint32_t t4 = tc_model_add_track(m4, h4, tc_model_intern(m4, "thread"),
		TC_TRACK_HOST_THREAD, 1);
	tc_model_add_event(m4, t4, tc_model_op(m4, tc_model_intern(m4, "aten::mm"), 0,
		TC_OP_HOST_OP), 0, 10, 0);
	tc_model_finalize(m4);
	uint64_t p4 = tc_pass_plan(m4, &o, TC_AN_SUMMARY | TC_AN_USAGE);
	ck_assert_uint_eq(p4 >> pass_row(t, n, "summary-rows") & 1, 1);
	ck_assert_uint_eq(p4 >> pass_row(t, n, "summary-rows-usage") & 1, 0);
	ck_assert_uint_eq(tc_pass_plan(m4, &o, TC_AN_BREAKDOWN) >> pass_row(t, n, "host-unions") & 1,
		0);
	struct tc_analysis_opts o2 = o;
	o2.threads = 2;
	ck_assert_uint_eq(tc_pass_plan(m4, &o2, TC_AN_BREAKDOWN) >> pass_row(t, n, "host-unions") & 1,
		1);
	ck_assert_uint_eq(tc_pass_plan(m, &o2, TC_AN_BREAKDOWN) >> pass_row(t, n, "host-unions") & 1,
		0);
	ck_assert(t[pass_row(t, n, "breakdown")].after & TC_R_HOSTS);
	tc_model_destroy(m4);

	/* What was not asked for stays empty. */
	struct tc_analysis a;
	ck_assert(tc_analyze(m, &o, TC_AN_USAGE, &a));
	ck_assert_uint_eq(a.n_util, 1);
	ck_assert_uint_eq(a.n_steps, 0);
	ck_assert_uint_eq(a.summary.n_devices, 0);
	ck_assert_uint_eq(a.n_findings, 0);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

/* Outer markers as tc_markers_outer takes them, written plainly: every
 * marker of positive length sorted by (start, longer first, position),
 * kept when it ends past all kept before it; of ties, the lowest number. */
struct mk_ref { int64_t start, dur, num; uint32_t ev; size_t pos; };
static int mk_ref_cmp(const void *pa, const void *pb) {
	const struct mk_ref *a = pa, *b = pb;
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->dur != b->dur) {
		return a->dur > b->dur ? -1 : 1;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

struct mk_got { uint32_t ev[1024]; int64_t start[1024], dur[1024], num[1024]; size_t n; };
static void mk_collect(void *ctx, uint32_t ev, int64_t start, int64_t dur, int64_t num) {
	struct mk_got *g = ctx;
	ck_assert_uint_lt(g->n, 1024);
	g->ev[g->n] = ev;
	g->start[g->n] = start;
	g->dur[g->n] = dur;
	g->num[g->n++] = num;
}

/* Without a step op, no track has markers, on one thread or two. */
START_TEST(markers_none) {
	struct tc_model *m = tc_model_create();
	for (int t = 0; t < 3; t++) {
		uint32_t tr = tc_model_add_track(m, TC_NONE, tc_model_intern(m, "thread"),
			TC_TRACK_HOST_THREAD, t);
		for (int i = 0; i < 5; i++) {
			tc_model_add_event(m, tr, tc_model_op(m, tc_model_intern(m, "aten::mm"), 0,
				TC_OP_HOST_OP), 10 * i, 5, 0);
		}
	}
	tc_model_finalize(m);
	for (int two = 0; two < 2; two++) {
		struct tc_markers mk;
		tc_markers_init(&mk, m, two);
		ck_assert_uint_eq(mk.n, 0);
		for (size_t t = 0; t <= m->n_tracks; t++) {
			ck_assert_uint_eq(mk.first[t], 0);
		}
		tc_markers_finish(&mk);
	}
	tc_model_destroy(m);
}
END_TEST

START_TEST(markers_outer_merge) {
	/* Threads whose markers nest, overlap other threads', repeat one
	 * another's exact times (ties, told apart by step number) and include
	 * instants: the merge, which steps over markers that end inside a
	 * kept one, must keep what the plain sort keeps. Odd seeds take 5
	 * threads (their cursors scanned), even ones 20 (a heap). */
	for (unsigned seed = 1; seed <= 40; seed++) {
		struct tc_model *m = tc_model_create();
		uint32_t h = tc_model_add_host(m, tc_model_intern(m, "host"), 0);
		uint32_t st = tc_model_op(m, tc_model_intern(m, "ProfilerStep"), 0, TC_OP_STEP);
		uint32_t other = tc_model_op(m, tc_model_intern(m, "aten::mm"), 0, TC_OP_HOST_OP);
		enum { NT = 20 };
		const size_t nt = seed % 2 ? 5 : NT;
		uint32_t tr[NT];
		unsigned x = seed;
		int64_t shared_at = 0, shared_dur = 0;
		for (size_t t = 0; t < nt; t++) {
			tr[t] = tc_model_add_track(m, h, tc_model_intern(m, "thread"), TC_TRACK_HOST_THREAD, t);
			int64_t at = 0;
			for (int e = 0; e < 30; e++) {
				x = x * 1103515245u + 12345u;
				at += (x >> 8) % 40;
				int64_t dur = (x >> 16) % 4 == 0 ? 0 : 1 + (int64_t)((x >> 20) % 90);
				if ((x >> 12) % 7 == 0 && shared_dur) {
					at = shared_at > at ? shared_at : at;
					dur = at == shared_at ? shared_dur : dur;
				}
				uint32_t ev = tc_model_add_event(m, tr[t], (x >> 24) % 5 ? st : other, at, dur,
					dur ? 0 : TC_EV_INSTANT);
				uint32_t a = tc_model_args_begin(m);
				tc_model_arg_int(m, m->key.step, (int64_t)((x >> 4) % 6));
				tc_model_set_event_args(m, ev, tc_model_args_end(m, a));
				shared_at = at;
				shared_dur = dur;
			}
		}
		tc_model_finalize(m);
		struct tc_markers mk, mk2;
		tc_markers_init(&mk, m, false);
		/* On two threads (the events cut where half are behind, inside
		 * a track): the same list. */
		tc_markers_init(&mk2, m, true);
		ck_assert_uint_eq(mk2.n, mk.n);
		for (size_t t = 0; t <= nt; t++) {
			ck_assert_uint_eq(mk2.first[t], mk.first[t]);
		}
		for (size_t p = 0; p < mk.n; p++) {
			ck_assert_uint_eq(mk2.ev[p], mk.ev[p]);
			ck_assert_int_eq(mk2.start[p], mk.start[p]);
		}
		tc_markers_finish(&mk2);
		bool take[NT];
		for (size_t t = 0; t < NT; t++) {
			take[t] = t != 2;
		}
		static struct mk_ref ref[NT * 30];
		size_t nr = 0;
		for (size_t t = 0; t < nt; t++) {
			for (size_t p = mk.first[t]; take[t] && p < mk.first[t + 1]; p++) {
				uint32_t ev = mk.ev[p];
				ck_assert_int_eq(mk.start[p], m->ev.start[ev]);
				ck_assert_int_eq(mk.dur[p], m->ev.dur[ev]);
				int64_t num;
				ck_assert(tc_model_arg_i64(m, tc_model_event_args(m, ev),
					m->key.step, &num));
				if (m->ev.dur[ev] > 0) {
					ref[nr++] = (struct mk_ref){ m->ev.start[ev], m->ev.dur[ev], num, ev, p };
				}
			}
		}
		qsort(ref, nr, sizeof(*ref), mk_ref_cmp);
		static struct mk_got got;
		got.n = 0;
		size_t n = tc_markers_outer(m, &mk, take, mk_collect, &got);
		ck_assert_uint_eq(n, got.n);
		size_t k = 0;
		int64_t end_max = INT64_MIN;
		for (size_t r = 0; r < nr;) {
			size_t q = r + 1;
			while (q < nr && ref[q].start == ref[r].start && ref[q].dur == ref[r].dur) {
				q++;
			}
			if (ref[r].start + ref[r].dur > end_max) {
				size_t best = r;
				for (size_t u = r + 1; u < q; u++) {
					best = ref[u].num < ref[best].num ? u : best;
				}
				ck_assert_uint_lt(k, got.n);
				ck_assert_uint_eq(got.ev[k], ref[best].ev);
				ck_assert_int_eq(got.start[k], ref[best].start);
				ck_assert_int_eq(got.dur[k], ref[best].dur);
				ck_assert_int_eq(got.num[k], ref[best].num);
				k++;
				end_max = ref[r].start + ref[r].dur;
			}
			r = q;
		}
		ck_assert_uint_eq(k, got.n);
		tc_markers_finish(&mk);
		tc_model_destroy(m);
	}
}
END_TEST

/* tc_step_at_near, with its hint carried over times in any order (mostly
 * rising, with jumps back and far ahead), finds what the search does. */
START_TEST(step_at_near_search) {
	enum { NS = 40 };
	struct tc_step steps[NS];
	unsigned x = 11;
	int64_t at = 0;
	for (size_t i = 0; i < NS; i++) {
		x = x * 1103515245u + 12345u;
		/* Gaps, steps that touch, and some of no length. */
		at += (x >> 8) % 3 == 0 ? 0 : (int64_t)((x >> 10) % 20);
		int64_t dur = (x >> 16) % 5 == 0 ? 0 : 1 + (int64_t)((x >> 18) % 30);
		steps[i] = (struct tc_step){ .start_ps = at, .dur_ps = dur };
		at += dur;
	}
	for (size_t n = 0; n <= NS; n += NS / 4) {
		size_t near = 0;
		int64_t t = -5;
		for (int k = 0; k < 2000; k++) {
			x = x * 1103515245u + 12345u;
			unsigned r = (x >> 8) % 16;
			t = r == 0 ? (int64_t)((x >> 12) % 1000) - 20 : r == 1 ? t - 17 : t + (int64_t)(r % 4);
			ck_assert_uint_eq(tc_step_at_near(steps, n, &near, t), tc_step_at(steps, n, t));
			ck_assert_uint_le(near, n);
		}
	}
}
END_TEST

START_TEST(step_counted_runs) {
	/* The runs tc_step_counted_run gives hold exactly the events
	 * tc_step_counted_from counts: steps in order, apart, touching and
	 * overlapping, warm-up and partial ones counted or not, and none. */
	unsigned x = 11;
	for (int round = 0; round < 300; round++) {
		struct tc_analysis a;
		memset(&a, 0, sizeof(a));
		struct tc_step steps[8];
		memset(steps, 0, sizeof(steps));
		a.steps = steps;
		a.n_steps = round % 9 == 0 ? 0 : 1 + round % 8;
		int64_t at = 0;
		for (size_t k = 0; k < a.n_steps; k++) {
			x = x * 1103515245u + 12345u;
			at += (int64_t)((x >> 8) % 30) - ((x >> 20) % 4 == 0 ? 10 : 0);
			at = at < 0 ? 0 : at;
			steps[k].start_ps = at;
			steps[k].dur_ps = 1 + (int64_t)((x >> 12) % 40);
			steps[k].warmup = (x >> 3) % 5 == 0;
			steps[k].partial = (x >> 5) % 6 == 0;
			at = k + 1 < a.n_steps && (x >> 24) % 3 == 0 ? at + steps[k].dur_ps : at;
		}
		a.n_steps_counted = a.n_steps ? (x >> 7) % (a.n_steps + 1) : 0;
		int64_t start[120];
		size_t n = 0;
		int64_t t = -5;
		while (n < 120) {
			x = x * 1103515245u + 12345u;
			t += (int64_t)((x >> 10) % 4);
			start[n++] = t;
		}
		size_t from_at = 0;
		bool want[120];
		for (size_t i = 0; i < n; i++) {
			want[i] = tc_step_counted_from(&a, &from_at, start[i]);
		}
		bool got[120] = { false };
		size_t run_at = 0, i = 0;
		int64_t lim;
		while (tc_step_counted_run(&a, &run_at, start, &i, n, &lim)) {
			ck_assert(start[i] < lim);
			for (; i < n && start[i] < lim; i++) {
				got[i] = true;
			}
		}
		for (size_t k = 0; k < n; k++) {
			ck_assert_msg(got[k] == want[k], "round %d, event %zu", round, k);
		}
	}
}
END_TEST

/* device_gaps' order, written plainly: (start, index). */
struct gap_ref { int64_t start, end, launch; uint32_t i; };
static int gap_ref_cmp(const void *pa, const void *pb) {
	const struct gap_ref *a = pa, *b = pb;
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Finalizes m and runs the usage pass alone: its devices' utilisation
 * (malloc'd), *nu of them. */
static struct tc_device_util *usage_of(struct tc_model *m, size_t *nu) {
	tc_model_finalize(m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_device_util *u;
	struct tc_stream_util *su;
	size_t ns;
	tc_pass_usage(m, &o, &u, nu, &su, &ns, NULL, NULL, NULL);
	free(su);
	return u;
}

START_TEST(usage_gaps_merge) {
	/* The device's idle gaps against a plain sort of its events: streams
	 * whose starts tie on a coarse grid, so which event ends a gap (the
	 * lowest index of those starting there) decides whether its launch
	 * came after the device went idle. Three streams take the gaps from
	 * the runs scan, ten the merge by a heap. */
	const int64_t us = 1000000;
	unsigned x = 5;
	for (int round = 0; round < 30; round++) {
		struct tc_model *m = tc_model_create();
		uint32_t cpu = tc_model_add_device(m, tc_model_intern(m, "host"), TC_DEV_CPU);
		uint32_t gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
		uint32_t th = tc_model_add_track(m, cpu, tc_model_intern(m, "thread"),
			TC_TRACK_HOST_THREAD, 1);
		int n_st = round % 2 ? 10 : 3;
		uint32_t st[10];
		for (int k = 0; k < n_st; k++) {
			st[k] = tc_model_add_track(m, gpu, tc_model_intern(m, "stream"), TC_TRACK_STREAM,
				7 + k);
		}
		uint32_t kern = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
		uint32_t launch = tc_model_op(m, tc_model_intern(m, "cudaLaunchKernel"), 0,
			TC_OP_RUNTIME);
		for (int k = 0; k < n_st; k++) {
			int64_t t = 0;
			for (int j = 0; j < 40; j++) {
				x = x * 1103515245u + 12345u;
				t += (int64_t)((x >> 8) % 4) * 10 * us;
				int64_t dur = (int64_t)((x >> 12) % 4) * 7 * us; /* some instants */
				uint32_t d = tc_model_add_event(m, st[k], kern, t, dur, dur ? 0 : TC_EV_INSTANT);
				if ((x >> 16) % 5) {
					int64_t l = t - (int64_t)((x >> 20) % 50) * us;
					uint32_t h = tc_model_add_event(m, th, launch, l, us, 0);
					tc_model_add_flow(m, h, d, TC_FLOW_LAUNCH, (uint64_t)h);
				}
				t += dur;
			}
		}
		size_t nu;
		struct tc_device_util *u = usage_of(m, &nu);
		ck_assert_uint_eq(nu, 1);
		/* The reference walk. */
		struct gap_ref *r = tc_xcalloc(m->ev.n, sizeof(*r));
		int64_t *ls = tc_xcalloc(m->ev.n, sizeof(*ls));
		for (size_t i = 0; i < m->ev.n; i++) {
			ls[i] = INT64_MIN;
		}
		for (size_t f = 0; f < m->n_flows; f++) {
			ls[m->flows[f].to] = m->ev.start[m->flows[f].from];
		}
		size_t n = 0;
		for (size_t i = 0; i < m->ev.n; i++) {
			if (m->tracks[tc_model_event_track(m, i)].device == gpu && m->ev.dur[i] > 0) {
				r[n++] = (struct gap_ref){ m->ev.start[i], m->ev.start[i] + m->ev.dur[i],
					ls[i], (uint32_t)i };
			}
		}
		qsort(r, n, sizeof(*r), gap_ref_cmp);
		int64_t cur = n ? r[0].start : 0, host = 0, kw = 0, wait_ps = 30 * us;
		uint64_t n_host = 0;
		for (size_t j = 0; j < n; j++) {
			if (r[j].start > cur && r[j].launch != INT64_MIN && r[j].launch > cur) {
				host += r[j].start - cur;
				n_host++;
			} else if (r[j].start > cur && r[j].start - cur < wait_ps) {
				kw += r[j].start - cur;
			}
			cur = r[j].end > cur ? r[j].end : cur;
		}
		ck_assert_msg(u[0].idle_host_wait_ps == host, "round %d: %lld != %lld", round,
			(long long)u[0].idle_host_wait_ps, (long long)host);
		ck_assert_uint_eq(u[0].n_gaps_host_wait, n_host);
		ck_assert_int_eq(u[0].idle_kernel_wait_ps, kw);
		free(r);
		free(ls);
		free(u);
		tc_model_destroy(m);
	}
}
END_TEST

/* Brute-force oracle: mark covered unit cells of [0, LIMIT). */
#define LIMIT 4000

START_TEST(usage_stream_busy) {
	/* Each stream's busy time against its covered cells: streams whose
	 * events never overlap (busy is their durations' sum), and streams
	 * with nested and overlapping events (a union walk). */
	unsigned x = 11;
	for (int round = 0; round < 20; round++) {
		struct tc_model *m = tc_model_create();
		uint32_t gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
		uint32_t kern = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
		enum { NS = 4 };
		static bool cell[NS][LIMIT];
		memset(cell, 0, sizeof(cell));
		for (int k = 0; k < NS; k++) {
			uint32_t st = tc_model_add_track(m, gpu, tc_model_intern(m, "stream"),
				TC_TRACK_STREAM, k);
			bool overlap = (k + round) % 2;
			int64_t t = 0;
			for (int j = 0; j < 60; j++) {
				x = x * 1103515245u + 12345u;
				int64_t dur = (int64_t)((x >> 12) % 40);
				if (t + dur >= LIMIT) {
					break;
				}
				tc_model_add_event(m, st, kern, t, dur, dur ? 0 : TC_EV_INSTANT);
				for (int64_t y = t; y < t + dur; y++) {
					cell[k][y] = true;
				}
				/* Flat streams go on at the end or later; the others may
				 * start inside the last event. */
				t += overlap ? (int64_t)((x >> 20) % 30) : dur + (int64_t)((x >> 20) % 3);
			}
		}
		tc_model_finalize(m);
		struct tc_analysis_opts o;
		tc_analysis_opts_init(&o);
		struct tc_device_util *u;
		struct tc_stream_util *su;
		size_t nu, ns;
		tc_pass_usage(m, &o, &u, &nu, &su, &ns, NULL, NULL, NULL);
		ck_assert_uint_eq(ns, NS);
		for (size_t k = 0; k < ns; k++) {
			int64_t want = 0;
			for (int y = 0; y < LIMIT; y++) {
				want += cell[m->tracks[su[k].track].src_id][y];
			}
			ck_assert_msg(su[k].busy_ps == want, "round %d stream %zu: %lld != %lld", round,
				k, (long long)su[k].busy_ps, (long long)want);
		}
		free(u);
		free(su);
		tc_model_destroy(m);
	}
}
END_TEST

START_TEST(usage_launches_per_device) {
	/* Launch flows to the last event of one device's stream and to the
	 * first of the next device's: each delay counts for its own device,
	 * whichever flow came before. */
	const int64_t us = 1000000;
	for (int order = 0; order < 2; order++) {
		struct tc_model *m = tc_model_create();
		uint32_t cpu = tc_model_add_device(m, tc_model_intern(m, "host"), TC_DEV_CPU);
		uint32_t g[2] = {
			tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU),
			tc_model_add_device(m, tc_model_intern(m, "GPU 1"), TC_DEV_GPU),
		};
		uint32_t th = tc_model_add_track(m, cpu, tc_model_intern(m, "thread"),
			TC_TRACK_HOST_THREAD, 1);
		uint32_t kern = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
		uint32_t launch = tc_model_op(m, tc_model_intern(m, "cudaLaunchKernel"), 0,
			TC_OP_RUNTIME);
		uint32_t last = 0, first = 0;
		for (int d = 0; d < 2; d++) {
			uint32_t st = tc_model_add_track(m, g[d], tc_model_intern(m, "stream"),
				TC_TRACK_STREAM, 7 + d);
			for (int j = 0; j < 3; j++) {
				uint32_t e = tc_model_add_event(m, st, kern, (100 + 10 * j) * us, us, 0);
				last = d == 0 ? e : last;
				first = d == 1 && j == 0 ? e : first;
			}
		}
		uint32_t h0 = tc_model_add_event(m, th, launch, 50 * us, us, 0);
		uint32_t h1 = tc_model_add_event(m, th, launch, 60 * us, us, 0);
		tc_model_add_flow(m, order ? h1 : h0, order ? first : last, TC_FLOW_LAUNCH, 1);
		tc_model_add_flow(m, order ? h0 : h1, order ? last : first, TC_FLOW_LAUNCH, 2);
		size_t nu;
		struct tc_device_util *u = usage_of(m, &nu);
		ck_assert_uint_eq(nu, 2);
		for (size_t k = 0; k < nu; k++) {
			ck_assert_uint_eq(u[k].n_launches, 1);
			/* GPU 0's last kernel at 120 us, launched at 50 us; GPU 1's
			 * first at 100 us, launched at 60 us. */
			ck_assert_int_eq(u[k].launch_delay_max_ps, (u[k].device == g[0] ? 70 : 40) * us);
		}
		free(u);
		tc_model_destroy(m);
	}
}
END_TEST

/* Event e's own costs, as args. */
static void event_costs(struct tc_model *m, uint32_t e, int64_t flops, int64_t bytes) {
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, m->key.flops, flops);
	tc_model_arg_int(m, m->key.bytes_accessed, bytes);
	tc_model_set_event_args(m, e, tc_model_args_end(m, a));
}

START_TEST(summary_rows_from_usage_sums) {
	/* The summary's op rows taken from the usage pass's per-op sums (two
	 * workers, an op on both devices, a nesting line walked apart) equal
	 * the rows of the plain walk, field by field; _i: no costs, costs on
	 * the ops, costs of the events' own (varying), and costs whose sums
	 * pass 2^53, where their order shows in the last bits (the rows are
	 * then walked). */
	struct tc_model *m = tc_model_create();
	uint32_t g[2] = {
		tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU),
		tc_model_add_device(m, tc_model_intern(m, "GPU 1"), TC_DEV_GPU),
	};
	uint32_t ops[2] = {
		tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL),
		tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D),
	};
	unsigned x = 9;
	for (int d = 0; d < 2; d++) {
		for (int l = 0; l < 3; l++) {
			uint32_t t = tc_model_add_track(m, g[d], tc_model_intern(m, "stream"),
				TC_TRACK_STREAM, 10 * d + l);
			int64_t at = 0;
			for (int e = 0; e < 50; e++) {
				x = x * 1103515245u + 12345u;
				/* The longest events lie on flat lines. */
				int64_t dur = 2 + (int64_t)((x >> 9) % (d && l < 2 ? 300 : 40));
				/* Line 2 of GPU 1 nests: its events enclose the next. */
				bool nest = d == 1 && l == 2 && e % 2 == 0;
				uint32_t ev = tc_model_add_event(m, t, ops[(x >> 4) % 2], at,
					nest ? 3 * dur : dur, 0);
				at += nest ? 1 : dur + (int64_t)((x >> 20) % 50);
				if (_i == 2 && (x >> 12) % 3) {
					event_costs(m, ev, (int64_t)(x >> 14) % 7 * 1000, 4096);
				} else if (_i == 3) {
					event_costs(m, ev, (x >> 13) % 2 ? ((int64_t)1 << 52) + 1 : 3,
						(int64_t)(x >> 14) % 5);
				}
			}
		}
	}
	if (_i == 1) {
		m->ops[ops[0]].flops = 1 << 20;
		m->ops[ops[0]].bytes = 3 << 10;
		m->ops[ops[1]].bytes = 1 << 16;
	}
	tc_model_finalize(m);
	struct tc_summary want;
	tc_analyze_summary(m, &want);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.threads = 2;
	size_t n;
	const struct tc_pass_def *t = tc_pass_table(&n);
	uint64_t plan = tc_pass_plan(m, &o, TC_AN_SUMMARY | TC_AN_FINDINGS);
	ck_assert(plan >> pass_row(t, n, "summary-rows-usage") & 1);
	/* The events' own costs are searched beside usage. */
	ck_assert_uint_eq(plan >> pass_row(t, n, "costs") & 1, _i >= 2);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_SUMMARY | TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.summary.n_ops, want.n_ops);
	ck_assert_uint_eq(want.n_ops, 2);
	/* Costs past 2^53 do round: the case tests the order. */
	ck_assert(_i != 3 || want.ops[0].flops > 1e16);
	for (size_t r = 0; r < want.n_ops; r++) {
		const struct tc_op_summary *p = &a.summary.ops[r], *q = &want.ops[r];
		ck_assert_uint_eq(p->name, q->name);
		ck_assert_uint_eq(p->count, q->count);
		ck_assert_int_eq(p->total_ps, q->total_ps);
		ck_assert_int_eq(p->self_ps, q->self_ps);
		ck_assert_int_eq(p->min_ps, q->min_ps);
		ck_assert_int_eq(p->max_ps, q->max_ps);
		ck_assert(p->flops == q->flops && p->bytes == q->bytes);
		ck_assert(_i || (p->flops < 0 && p->bytes < 0));
	}
	tc_analysis_finish(&a);
	tc_summary_finish(&want);
	tc_model_destroy(m);
}
END_TEST

/* The usage pass's op sums of m, with the default options (the caller
 * finishes them). */
static void usage_op_sums(const struct tc_model *m, struct tc_op_sums *sums) {
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_device_util *util;
	struct tc_stream_util *streams;
	size_t n_util, n_streams;
	*sums = (struct tc_op_sums){ 0 };
	tc_pass_usage(m, &o, &util, &n_util, &streams, &n_streams, NULL, NULL, sums);
	free(util);
	free(streams);
}

START_TEST(devwork_from_usage_sums) {
	/* The device work by category from the usage pass's op sums (the flat
	 * lines unwalked, a nesting line walked) equals the walk of every
	 * line, field by field: FP32 and half GEMMs, a convolution and a
	 * layout kernel, durations either side of the tiny-GEMM bound; _i: no
	 * costs, costs on the ops, the events' own (alike per op), and sums
	 * past 2^53, where the order of additions shows (then all is
	 * walked). */
	const int64_t us = 1000000;
	struct tc_model *m = tc_model_create();
	uint32_t g = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	static const char *names[] = { "volta_sgemm_128x64_nn", "ampere_h16816gemm_256x128",
		"implicit_convolve_sgemm", "transpose_kernel", "elementwise_add" };
	uint32_t ops[5];
	for (int k = 0; k < 5; k++) {
		ops[k] = tc_model_op(m, tc_model_intern(m, names[k]), 0, TC_OP_KERNEL);
	}
	unsigned x = 11;
	for (int l = 0; l < 4; l++) {
		uint32_t t = tc_model_add_track(m, g, tc_model_intern(m, "stream"), TC_TRACK_STREAM, l);
		int64_t at = 0;
		for (int e = 0; e < 80; e++) {
			x = x * 1103515245u + 12345u;
			int64_t dur = (1 + (int64_t)((x >> 9) % 20)) * us;
			bool nest = l == 3 && e % 2 == 0; /* line 3 nests */
			uint32_t o = (x >> 4) % 5;
			uint32_t ev = tc_model_add_event(m, t, ops[o], at, nest ? 3 * dur : dur, 0);
			at += nest ? 1 : dur + (int64_t)((x >> 20) % 50);
			if (_i == 2) {
				event_costs(m, ev, 1000 * (o + 1), 4096);
			} else if (_i == 3) {
				event_costs(m, ev, o % 2 ? ((int64_t)1 << 52) + 1 : 3, 5);
			}
		}
	}
	if (_i == 1) {
		for (int k = 0; k < 5; k++) {
			m->ops[ops[k]].flops = k == 3 ? -1 : 1 << (10 + k);
			m->ops[ops[k]].bytes = 3 << 10;
		}
	}
	tc_model_finalize(m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	size_t n;
	const struct tc_pass_def *t = tc_pass_table(&n);
	uint64_t plan = tc_pass_plan(m, &o, TC_AN_SUMMARY | TC_AN_FINDINGS);
	ck_assert(plan >> pass_row(t, n, "devwork") & 1);
	struct tc_op_sums sums;
	usage_op_sums(m, &sums);
	struct tc_devwork want, got;
	tc_devwork_scan(m, g, &want);
	tc_devwork_scan_sums(m, g, &sums, &got);
	ck_assert(_i != 3 || want.cat[tc_devcat_of_kernel(names[1], strlen(names[1]), NULL, 0,
		TC_OP_KERNEL)].flops > 1e16);
	ck_assert(want.tiny_gemm_count > 0 && want.fp32_count > 0 && want.layout_count > 0);
	for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
		const struct tc_devcat_acc *p = &got.cat[c], *q = &want.cat[c];
		ck_assert_uint_eq(p->count, q->count);
		ck_assert_int_eq(p->total_ps, q->total_ps);
		ck_assert_int_eq(p->self_ps, q->self_ps);
		ck_assert_int_eq(p->launched_ps, q->launched_ps);
		ck_assert_int_eq(p->min_ps, q->min_ps);
		ck_assert_int_eq(p->max_ps, q->max_ps);
		ck_assert(p->flops == q->flops && p->bytes == q->bytes);
	}
	ck_assert(got.fp32_ps == want.fp32_ps && got.fp32_free_ps == want.fp32_free_ps &&
		got.fp32_count == want.fp32_count);
	ck_assert(got.tiny_gemm_ps == want.tiny_gemm_ps &&
		got.tiny_gemm_free_ps == want.tiny_gemm_free_ps &&
		got.tiny_gemm_count == want.tiny_gemm_count);
	ck_assert(got.layout_ps == want.layout_ps && got.layout_free_ps == want.layout_free_ps &&
		got.layout_count == want.layout_count);
	tc_op_sums_finish(&sums);
	tc_model_destroy(m);
}
END_TEST

START_TEST(fill_from_usage_sums) {
	/* The kernel fill over the counted steps from the usage pass's op sums
	 * (less the events outside them: before the first step, in a warm-up
	 * and a partial one, between steps, after the last) equals the walk,
	 * field by field and op by op; a nesting line and a copy line are
	 * walked apart. */
	const int64_t us = 1000000;
	struct tc_model *m = tc_model_create();
	uint32_t g = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t ops[4] = {
		tc_model_op(m, tc_model_intern(m, "k_a"), 0, TC_OP_KERNEL),
		tc_model_op(m, tc_model_intern(m, "k_b"), 0, TC_OP_KERNEL),
		tc_model_op(m, tc_model_intern(m, "k_c"), 0, TC_OP_KERNEL),
		tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D),
	};
	unsigned x = 5;
	for (int l = 0; l < 4; l++) {
		uint32_t t = tc_model_add_track(m, g, tc_model_intern(m, "stream"), TC_TRACK_STREAM, l);
		int64_t at = 0;
		for (int e = 0; e < 200; e++) {
			x = x * 1103515245u + 12345u;
			int64_t dur = (1 + (int64_t)((x >> 9) % 30)) * us;
			bool nest = l == 3 && e % 2 == 0; /* line 3 nests */
			tc_model_add_event(m, t, ops[l == 2 ? 3 : (x >> 4) % 3], at, nest ? 3 * dur : dur, 0);
			at += nest ? 1 : dur + (int64_t)((x >> 20) % 5) * us;
		}
	}
	tc_model_finalize(m);
	struct tc_op_sums sums;
	usage_op_sums(m, &sums);
	/* Four steps with gaps between: a warm-up, two full, a partial. */
	struct tc_step steps[4] = { { 0 } };
	for (int k = 0; k < 4; k++) {
		steps[k].start_ps = (200 + k * 800) * us;
		steps[k].dur_ps = 700 * us;
	}
	steps[0].warmup = true;
	steps[3].partial = true;
	struct tc_analysis a = { .steps = steps, .n_steps = 4, .n_steps_counted = 2 };
	uint32_t *kinds = tc_xcalloc(m->n_tracks, sizeof(*kinds));
	struct tc_fill *want = tc_fill_measure(m, &a, &g, 1, kinds, sums.under, 4.0, NULL, false);
	struct tc_fill *got = tc_fill_measure(m, &a, &g, 1, kinds, sums.under, 4.0, &sums, false);
	ck_assert_int_gt(want->kern_ps, 0);
	ck_assert_int_gt(want->short_ps, 0);
	ck_assert_int_eq(got->kern_ps, want->kern_ps);
	ck_assert_int_eq(got->short_ps, want->short_ps);
	ck_assert_int_eq(got->with_ps, want->with_ps);
	ck_assert_int_eq(got->low_ps, want->low_ps);
	ck_assert_int_eq(got->occ_dur_ps, want->occ_dur_ps);
	for (size_t k = 0; k < m->n_ops; k++) {
		ck_assert_int_eq(got->op_ps[k], want->op_ps[k]);
	}
	free(want->op_ps);
	free(want);
	free(got->op_ps);
	free(got);
	free(kinds);
	tc_op_sums_finish(&sums);
	tc_model_destroy(m);
}
END_TEST

START_TEST(usage_runs_far_apart) {
	/* Runs at the model's far ends: sums past INT64_MAX saturate, sums
	 * under it are exact, and a run longer than INT64_MAX (its gap
	 * saturates) wraps nothing. */
	const int64_t far = TC_MAX_ABS_PS;
	const uint32_t k = TC_KIND_BIT(TC_OP_KERNEL), c = TC_KIND_BIT(TC_OP_COLLECTIVE);
	struct tc_ivals r = { 0 };
	tc_runs_reserve(&r, 4);
	const int64_t lo[] = { -far, -far / 2, far / 2, far };
	const int64_t hi[] = { -far / 2 - 10, far / 2 - 5, far, far + TC_MAX_DUR_PS };
	const uint32_t kd[] = { k, k | c, c, k };
	for (int i = 0; i < 4; i++) {
		r.lo[i] = lo[i];
		r.hi[i] = hi[i];
		r.kinds[i] = kd[i];
	}
	r.n = 4;
	struct tc_device_util u = { .busy_ps = 7, .comm_ps = -far };
	tc_usage_add_runs(&u, &r);
	ck_assert_int_eq(u.busy_ps, INT64_MAX);
	ck_assert_int_eq(u.kernel_ps, far / 2 - 10 + far - 5 + TC_MAX_DUR_PS);
	ck_assert_int_eq(u.comm_ps, far - 5 + far / 2 - far);
	ck_assert_int_eq(u.overlap_ps, far - 5);
	r.lo[0] = -far;
	r.hi[0] = far + TC_MAX_DUR_PS;
	r.kinds[0] = k | c;
	r.n = 1;
	u = (struct tc_device_util){ .busy_ps = -3 };
	tc_usage_add_runs(&u, &r);
	ck_assert_int_eq(u.busy_ps, INT64_MAX - 3);
	ck_assert_int_eq(u.overlap_ps, INT64_MAX);
	tc_ivals_finish(&r);
}
END_TEST

START_TEST(self_time_and_host_scope) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "host"), TC_DEV_CPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "main"), TC_TRACK_HOST_THREAD, 1);
	uint32_t outer = tc_model_op(m, tc_model_intern(m, "outer"), 0, TC_OP_HOST_OP);
	uint32_t inner = tc_model_op(m, tc_model_intern(m, "inner"), 0, TC_OP_HOST_OP);
	uint32_t step = tc_model_op(m, tc_model_intern(m, "ProfilerStep#3"), 0, TC_OP_STEP);
	tc_model_add_event(m, t, outer, 0, 100, 0);
	tc_model_add_event(m, t, inner, 10, 30, 0);
	tc_model_add_event(m, t, inner, 60, 60, 0); /* runs past its parent: clipped */
	uint32_t e = tc_model_add_event(m, t, step, 200, 50, 0);
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, m->key.step, 3);
	tc_model_set_event_args(m, e, tc_model_args_end(m, a));
	tc_model_finalize(m);
	struct tc_summary s;
	tc_analyze_summary(m, &s);
	ck_assert_uint_eq(s.n_devices, 0);
	ck_assert_str_eq(s.ops_scope, "host");
	const struct tc_op_summary *o = NULL;
	for (size_t i = 0; i < s.n_ops; i++) {
		if (s.ops[i].name == tc_model_intern(m, "outer")) {
			o = &s.ops[i];
		}
	}
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->self_ps, 100 - 30 - 40);
	ck_assert_uint_eq(s.n_steps, 1);
	ck_assert_int_eq(s.steps[0].num, 3);
	ck_assert_str_eq(s.steps_source, "host");
	tc_summary_finish(&s);
	tc_model_destroy(m);
}
END_TEST

START_TEST(diff_normalize_names) {
	static const struct {
		const char *in, *out;
		uint32_t used;
	} cases[] = {
		{ "fusion.123", "fusion.N", TC_NORM_NUMBER },
		{ "fusion.12.3", "fusion.N.N", TC_NORM_NUMBER },
		{ "ProfilerStep#1010", "ProfilerStep#N", TC_NORM_NUMBER },
		{ "triton_poi_fused_add_7", "triton_poi_fused_add_N", TC_NORM_NUMBER },
		{ "all-reduce-start.4", "all-reduce-start.N", TC_NORM_NUMBER },
		{ "void k<float, 128>(float*)", "void k<...>(float*)", TC_NORM_TEMPLATE },
		{ "void k<a<b>, c>(x<y>)", "void k<...>(x<...>)", TC_NORM_TEMPLATE },
		{ "op at 0x7f3a12ef done", "op at 0x? done", TC_NORM_HEX },
		{ "sm90_xmma_gemm_bf16bf16_bf16f32", "sm90_xmma_gemm_bf16bf16_bf16f32", 0 },
		{ "conv2", "conv2", 0 },
		{ "operator<<", "operator<<", 0 },
		{ "a<b", "a<b", 0 },
		{ "1234", "1234", 0 },
		{ "x..5", "x..N", TC_NORM_NUMBER },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		uint32_t used = tc_diff_normalize(cases[i].in, buf, sizeof(buf));
		ck_assert_str_eq(buf, cases[i].out);
		ck_assert_uint_eq(used, cases[i].used);
	}
	/* A buffer too small is cut, never overrun. */
	char small[6];
	tc_diff_normalize("fusion.123", small, sizeof(small));
	ck_assert_uint_eq(strlen(small), 5);
}
END_TEST

/* Sides built by hand, as a stored summary would give them: the diff
 * needs no model. */
START_TEST(diff_sides_without_model) {
	struct tc_diff_side b = { .has_steps = true, .n_steps = 2, .step_mean_ps = 100,
		.step_total_ps = 200 };
	struct tc_diff_side t = { .has_steps = true, .n_steps = 4, .step_mean_ps = 130,
		.step_total_ps = 520 };
	char f1[] = "fusion.1", f7[] = "fusion.7", gone[] = "gone", added[] = "new";
	struct tc_diff_op bo[] = {
		{ .name = f1, .scope = TC_DIFF_DEVICE, .count = 2, .total_ps = 40 },
		{ .name = gone, .scope = TC_DIFF_DEVICE, .count = 2, .total_ps = 10 },
	};
	struct tc_diff_op to[] = {
		{ .name = f7, .scope = TC_DIFF_DEVICE, .count = 4, .total_ps = 120 },
		{ .name = added, .scope = TC_DIFF_HOST, .count = 8, .total_ps = 8 },
	};
	b.ops = bo;
	b.n_ops = 2;
	t.ops = to;
	t.n_ops = 2;
	struct tc_diff d;
	tc_diff_compute(&b, &t, false, &d);
	ck_assert_uint_eq(d.n_ops, 3);
	ck_assert_str_eq(d.ops[0].key, "fusion.N");
	ck_assert_uint_eq(d.ops[0].n_names, 2);
	ck_assert(d.ops[0].base.time_ps == 20 && d.ops[0].test.time_ps == 30);
	ck_assert(d.ops[0].base.calls == 1 && d.ops[0].test.calls == 1);
	ck_assert_uint_eq(d.norm_used, TC_NORM_NUMBER);
	struct tc_diff_gate g;
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_diff_gate(&d, "step", 25, &g, &err));
	ck_assert(g.failed && g.change_pct > 29.9 && g.change_pct < 30.1);
	ck_assert(tc_diff_gate(&d, "op:fusion.3", 60, &g, &err));
	ck_assert(!g.failed && g.change_pct > 49.9 && g.change_pct < 50.1);
	ck_assert(!tc_diff_gate(&d, "op:nothing", 60, &g, &err));
	tc_diff_finish(&d);
	tc_diff_compute(&b, &t, true, &d);
	ck_assert_uint_eq(d.n_ops, 4);
	tc_diff_finish(&d);
}
END_TEST

/* The wait for a late rank in a step: the waits inside the step, at most
 * the step's collective time (a wait hidden behind compute still delays
 * the collectives after it). */
START_TEST(straggler_step_wait) {
	struct tc_ivals w = { 0 };
	tc_ivals_push(&w, 10, 20);
	tc_ivals_push(&w, 30, 40);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 0, 35, 12), 12);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 0, 35, 20), 15);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 15, 100, 100), 15);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 40, 100, 50), 0);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 0, 100, 0), 0);
	ck_assert_int_eq(tc_straggler_step_wait(&w, 0, 100, -5), 0);
	tc_ivals_finish(&w);
}
END_TEST

/* One counted-step rule: warm-up and partial steps are left out unless
 * no other is left, the same from the steps alone (tc_step_times, a
 * digest's) as from a breakdown's count. */
START_TEST(step_counted_rule) {
	struct tc_step s[3] = { { .warmup = true }, { .num = 1 }, { .num = 2, .partial = true } };
	struct tc_analysis a = { .steps = s, .n_steps = 3, .n_steps_counted = 1 };
	ck_assert_uint_eq(tc_steps_full(s, 3), 1);
	struct tc_step_times t;
	tc_step_times_from(&a, &t);
	for (size_t i = 0; i < 3; i++) {
		ck_assert(t.counted[i] == (i == 1));
		ck_assert(tc_step_counted_in(&a, &s[i]) == (i == 1));
	}
	tc_step_times_finish(&t);
	/* Nothing but warm-up and partial steps: every one counts. */
	s[1].warmup = true;
	a.n_steps_counted = 3;
	ck_assert_uint_eq(tc_steps_full(s, 3), 0);
	tc_step_times_from(&a, &t);
	for (size_t i = 0; i < 3; i++) {
		ck_assert(t.counted[i]);
		ck_assert(tc_step_counted_in(&a, &s[i]));
	}
	tc_step_times_finish(&t);
}
END_TEST

/* A device's wait for the late rank: per step, summed over the counted
 * steps only. */
START_TEST(straggler_wait_counted) {
	struct tc_ivals w = { 0 };
	tc_ivals_push(&w, 5, 25);
	int64_t start[] = { 0, 10, 20 }, end[] = { 10, 20, 30 }, num[] = { 0, 1, 2 };
	bool counted[] = { false, true, true };
	struct tc_step_times t = { .start = start, .end = end, .num = num, .counted = counted,
		.n = 3 };
	int64_t coll[] = { 10, 4, 10 }, per[3];
	ck_assert_int_eq(tc_straggler_wait(&w, &t, coll, per), 9);
	ck_assert_int_eq(per[0], 5);
	ck_assert_int_eq(per[1], 4);
	ck_assert_int_eq(per[2], 5);
	ck_assert_int_eq(tc_straggler_wait(&w, &t, coll, NULL), 9);
	tc_ivals_finish(&w);
}
END_TEST

static void add_alloc(struct tc_model *m, int64_t ts, int64_t bytes, uint64_t addr,
		uint32_t device, uint32_t track, int64_t total) {
	struct tc_alloc a = {
		.ts = ts, .bytes = bytes, .total = total, .addr = addr, .device = device,
		.track = track, .op = TC_NONE, .shape = TC_NONE, .dtype = TC_NONE,
	};
	tc_model_add_alloc(m, &a);
}

static const struct tc_mem_op *mem_op(const struct tc_model *m, const struct tc_mem_view *v,
		const char *name) {
	for (size_t i = 0; i < v->n_ops; i++) {
		if (strcmp(tc_model_str(m, v->ops[i].name), name) == 0) {
			return &v->ops[i];
		}
	}
	return NULL;
}

/*
 * A 2021-era trace (no allocator totals), records out of order: pairing
 * by address, the start from a free of a buffer allocated before the
 * trace, attribution to the innermost op over [start, end), an address
 * reused without a free kept live, and live-at-peak summing to the peak.
 */
START_TEST(memview_pairs_without_totals) {
	struct tc_model *m = tc_model_create();
	uint32_t cpu = tc_model_add_device(m, tc_model_intern(m, "host"), TC_DEV_CPU);
	uint32_t gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t th = tc_model_add_track(m, cpu, tc_model_intern(m, "thread"),
		TC_TRACK_HOST_THREAD, 1);
	uint32_t lin = tc_model_op(m, tc_model_intern(m, "aten::linear"), 0, TC_OP_HOST_OP);
	uint32_t mm = tc_model_op(m, tc_model_intern(m, "aten::mm"), 0, TC_OP_HOST_OP);
	uint32_t step = tc_model_op(m, tc_model_intern(m, "ProfilerStep#1"), 0, TC_OP_STEP);
	tc_model_add_event(m, th, step, 0, 1000, 0);
	tc_model_add_event(m, th, lin, 100, 200, 0);
	tc_model_add_event(m, th, mm, 150, 50, 0);
	add_alloc(m, 160, 64, 0xa0, gpu, th, -1);   /* in mm, in linear */
	add_alloc(m, 50, -100, 0xf0, gpu, th, -1);  /* allocated before the trace */
	add_alloc(m, 120, 32, 0xb0, gpu, th, -1);   /* linear's self */
	add_alloc(m, 200, 16, 0xc0, gpu, th, -1);   /* at mm's end: linear's */
	add_alloc(m, 400, -64, 0xa0, gpu, th, -1);  /* in the step only */
	add_alloc(m, 500, 8, 0xb0, gpu, th, -1);    /* 0xb0 again, no free seen */
	add_alloc(m, 600, -16, 0xc0, gpu, th, -1);
	tc_model_finalize(m);

	struct tc_mem_view v;
	tc_memview_build(m, &v);
	ck_assert_uint_eq(v.records, 7);
	ck_assert_uint_eq(v.attributed, 3);
	const struct tc_mem_op *o = mem_op(m, &v, "aten::mm");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->self_increase, 64);
	ck_assert_uint_eq(o->self_allocs, 1);
	ck_assert_uint_eq(o->calls, 1);
	o = mem_op(m, &v, "aten::linear");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->self_alloc_bytes, 48);
	ck_assert_uint_eq(o->self_allocs, 2);
	ck_assert_int_eq(o->alloc_bytes, 112);
	ck_assert_uint_eq(o->allocs, 3);
	ck_assert_ptr_null(mem_op(m, &v, "ProfilerStep#1"));

	ck_assert_uint_eq(v.n_devs, 1);
	const struct tc_mem_device *d = &v.devs[0];
	ck_assert_uint_eq(d->device, gpu);
	ck_assert_uint_eq(d->allocs, 4);
	ck_assert_uint_eq(d->frees, 3);
	ck_assert_uint_eq(d->paired, 2);
	ck_assert_uint_eq(d->before_start, 1);
	ck_assert_uint_eq(d->reused, 1);
	ck_assert_uint_eq(d->never_freed, 2);
	ck_assert(!d->baseline_total);
	ck_assert_int_eq(d->baseline, 100);
	/* 100 - 100 + 32 + 64 + 16 = 112 at t=200. */
	ck_assert_int_eq(d->peak_bytes, 112);
	ck_assert_int_eq(d->peak_ps, 200);
	ck_assert_int_eq(d->end_bytes, 40);
	int64_t live = 0;
	for (size_t i = 0; i < d->n_holders; i++) {
		live += d->holders[i].bytes;
	}
	ck_assert_int_eq(live, d->peak_bytes);
	ck_assert_uint_eq(d->n_holders, 2);
	ck_assert_str_eq(tc_model_str(m, d->holders[0].name), "aten::mm");
	ck_assert_int_eq(d->holders[0].bytes, 64);
	ck_assert_str_eq(tc_model_str(m, d->holders[1].name), "aten::linear");
	ck_assert_int_eq(d->holders[1].bytes, 48);
	ck_assert_int_eq(d->holders[1].oldest_ps, 80);
	ck_assert_int_eq(d->holders[1].newest_ps, 0);
	ck_assert_uint_eq(d->n_top, 3);
	ck_assert_int_eq(d->top[0].bytes, 64);
	ck_assert_int_eq(d->top[0].free_ps, 400);
	tc_mem_view_finish(&v);
	tc_model_destroy(m);
}
END_TEST

/* With the trace's own totals the start is what they imply, and a merge
 * of two files keeps each one's records on its devices and threads. */
START_TEST(memview_totals_and_merge) {
	struct tc_model *m = tc_model_create();
	struct tc_model *b = tc_model_create();
	uint32_t g0 = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	add_alloc(m, 10, 100, 1, g0, TC_NONE, 1100);
	add_alloc(m, 20, -100, 1, g0, TC_NONE, 1000);
	uint32_t g1 = tc_model_add_device(b, tc_model_intern(b, "GPU 1"), TC_DEV_GPU);
	add_alloc(b, 5, 7, 2, g1, TC_NONE, -1);
	tc_model_merge(m, b);
	tc_model_finalize(m);
	ck_assert_uint_eq(m->n_allocs, 3);
	struct tc_mem_view v;
	tc_memview_build(m, &v);
	ck_assert_uint_eq(v.n_devs, 2);
	ck_assert(v.devs[0].baseline_total);
	ck_assert_int_eq(v.devs[0].baseline, 1000);
	ck_assert_int_eq(v.devs[0].peak_bytes, 1100);
	ck_assert_int_eq(v.devs[0].total_at_peak, 1100);
	ck_assert_uint_eq(v.devs[1].device, 1);
	ck_assert_int_eq(v.devs[1].peak_bytes, 7);
	ck_assert_uint_eq(v.attributed, 0);
	tc_mem_view_finish(&v);
	tc_model_destroy(b);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, self_time_and_host_scope);
	tcase_add_test(tc, markers_none);
	tcase_add_test(tc, markers_outer_merge);
	tcase_add_test(tc, step_counted_runs);
	tcase_add_test(tc, usage_runs_far_apart);
	tcase_add_test(tc, usage_launches_per_device);
	tcase_add_loop_test(tc, summary_rows_from_usage_sums, 0, 4);
	tcase_add_loop_test(tc, devwork_from_usage_sums, 0, 4);
	tcase_add_test(tc, fill_from_usage_sums);
	tcase_add_test(tc, usage_gaps_merge);
	tcase_add_test(tc, usage_stream_busy);
	tcase_add_test(tc, diff_normalize_names);
	tcase_add_test(tc, diff_sides_without_model);
	tcase_add_test(tc, straggler_step_wait);
	tcase_add_test(tc, step_counted_rule);
	tcase_add_test(tc, straggler_wait_counted);
	tcase_add_test(tc, memview_pairs_without_totals);
	tcase_add_test(tc, memview_totals_and_merge);
	tcase_add_test(tc, pass_table_order);
	tcase_add_test(tc, step_at_near_search);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
