/*
 * Check suite for the bottleneck rules: each fires where its evidence is
 * and stays silent below its threshold.
 */
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/host_evidence.h"
#include "rules_fixture.h"
#include "tc_test.h"

/*
 * Rule tests on small models built with the model API (rules_fixture.h):
 * every rule has a fixture that fires it and one just below its threshold
 * that stays silent; a finding's texts, slots and spread. What the rules
 * read (steps, the breakdown, roofline classes) is check_attribution.c's.
 */

START_TEST(rule_communication) {
	enum tc_severity sev;
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 500 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 400 * US, 300 * US);
	ck_assert(fires(&f, "communication", &sev));
	ck_assert_int_eq(sev, TC_SEV_HIGH); /* 20 % exposed */
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 100 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 100 * US, 600 * US);
	ck_assert(fires(&f, "communication", &sev));
	ck_assert_int_eq(sev, TC_SEV_CRITICAL); /* 60 %: over half the step */
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 500 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 400 * US, 129 * US); /* 2.9 % */
	ck_assert(!fires(&f, "communication", NULL));
}
END_TEST

/* A host-side collective is the transfer itself only where the device
 * runs no collectives (gloo); with NCCL kernels it is host dispatch. */
START_TEST(host_collectives) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 300 * US);
	ev(&f, f.thread, "gloo:all_reduce", TC_OP_COLLECTIVE, 300 * US, 600 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_int_eq(a.cat_total_ps[TC_BD_COLLECTIVE], 600 * US);
	ck_assert_int_eq(a.cat_total_ps[TC_BD_HOST], 0);
	const struct tc_finding *c = find(&a, "communication");
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(strstr(c->text, "host-side collective calls"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 300 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 900 * US, 50 * US);
	ev(&f, f.thread, "nccl:all_reduce", TC_OP_COLLECTIVE, 300 * US, 600 * US);
	analyze(&f, &a);
	ck_assert_int_eq(a.cat_total_ps[TC_BD_COLLECTIVE], 50 * US);
	ck_assert_int_eq(a.cat_total_ps[TC_BD_HOST], 600 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(rule_input_bound) {
	enum tc_severity sev;
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 100 * US, 900 * US);
	ev(&f, f.thread, "DataLoader.next", TC_OP_DATALOAD, 0, 100 * US);
	ck_assert(fires(&f, "input-bound", &sev));
	ck_assert_int_eq(sev, TC_SEV_MEDIUM);
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 49 * US, 951 * US);
	ev(&f, f.thread, "DataLoader.next", TC_OP_DATALOAD, 0, 100 * US); /* 4.9 % exposed */
	ck_assert(!fires(&f, "input-bound", NULL));
}
END_TEST

START_TEST(rule_transfer_bound) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 100 * US, 900 * US);
	uint32_t e = ev(&f, f.stream2, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 0, 100 * US);
	ev_arg_int(&f, e, f.m->key.bytes, 1 << 20);
	ck_assert(fires(&f, "transfer-bound", NULL));
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 40 * US, 960 * US);
	ev(&f, f.stream2, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 0, 100 * US); /* 4 % exposed */
	ck_assert(!fires(&f, "transfer-bound", NULL));
}
END_TEST

START_TEST(rule_pageable_copies) {
	struct fx f = fx_new();
	uint32_t e = ev(&f, f.stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 0, 10 * US);
	uint32_t a0 = tc_model_args_begin(f.m);
	tc_model_arg_str(f.m, f.m->key.memory_kind, tc_model_intern(f.m, "pageable"));
	tc_model_set_event_args(f.m, e, tc_model_args_end(f.m, a0));
	ck_assert(fires(&f, "pageable-copies", NULL));
	f = fx_new();
	e = ev(&f, f.stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 0, 10 * US);
	a0 = tc_model_args_begin(f.m);
	tc_model_arg_str(f.m, f.m->key.memory_kind, tc_model_intern(f.m, "pinned"));
	tc_model_set_event_args(f.m, e, tc_model_args_end(f.m, a0));
	ck_assert(!fires(&f, "pageable-copies", NULL));
}
END_TEST

/* Two kernels with a 200 us gap; the second is launched at launch_at. */
static void launch_fixture(struct fx *f, int64_t launch_at) {
	step(f, 1, 0, 400 * US);
	uint32_t r1 = ev(f, f->thread, "cudaLaunchKernel", TC_OP_RUNTIME, 0, 2 * US);
	uint32_t k1 = ev(f, f->stream, "k1", TC_OP_KERNEL, 5 * US, 95 * US);
	uint32_t r2 = ev(f, f->thread, "cudaLaunchKernel", TC_OP_RUNTIME, launch_at, 2 * US);
	uint32_t k2 = ev(f, f->stream, "k2", TC_OP_KERNEL, 300 * US, 100 * US);
	tc_model_add_flow(f->m, r1, k1, TC_FLOW_LAUNCH, 1);
	tc_model_add_flow(f->m, r2, k2, TC_FLOW_LAUNCH, 2);
}

START_TEST(rule_launch_bound) {
	/* The host-wait measures on two long kernels and a late launch. */
	struct fx f = fx_new();
	launch_fixture(&f, 250 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_util, 1);
	ck_assert_int_eq(a.util[0].idle_host_wait_ps, 200 * US);
	ck_assert_uint_eq(a.util[0].n_launches, 2);
	ck_assert_int_eq(a.util[0].launch_delay_p50_ps, 5 * US);
	ck_assert_uint_eq(a.n_streams, 1);
	ck_assert_int_eq(a.streams[0].idle_host_wait_ps, 200 * US);
	/* Long kernels: whatever the device waits on, it is not launches. */
	ck_assert_ptr_null(find(&a, "launch-bound"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);

	/* Short kernels, each launched while the device waits, Python between
	 * the launches: the host's per-op dispatch is the step. */
	f = fx_new();
	step(&f, 1, 0, 200 * US);
	for (int i = 0; i < 10; i++) {
		int64_t t = i * 20 * US;
		ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, t, 12 * US);
		uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, t + 12 * US, 3 * US);
		uint32_t k = ev(&f, f.stream, "k", TC_OP_KERNEL, t + 15 * US, 4 * US);
		tc_model_add_flow(f.m, r, k, TC_FLOW_LAUNCH, (uint64_t)i + 1);
	}
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "launch-bound");
	ck_assert_ptr_nonnull(fd);
	ck_assert_ptr_eq(fd, &a.findings[0]);
	ck_assert_ptr_null(find(&a, "host-bound"));
	ck_assert_ptr_null(find(&a, "idle-device"));
	/* Launch and host time, one finding: 150 of the 200 us. */
	ck_assert_int_eq(fd->explained_ps, 150 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);

	/* The same kernels queued ms ahead while a data loader holds the host:
	 * a long launch delay is the host running ahead, not launch overhead. */
	f = fx_new();
	step(&f, 1, 0, 3 * MS);
	ev(&f, f.thread, "enumerate(DataLoader)", TC_OP_DATALOAD, 0, 1200 * US);
	for (int i = 0; i < 10; i++) {
		uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME,
			1200 * US + i * 3 * US, 3 * US);
		uint32_t k = ev(&f, f.stream, "k", TC_OP_KERNEL, 2 * MS + i * 100 * US, 100 * US);
		tc_model_add_flow(f.m, r, k, TC_FLOW_LAUNCH, (uint64_t)i + 1);
	}
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 1230 * US, MS / 2);
	analyze(&f, &a);
	ck_assert_ptr_nonnull(a.n_findings ? &a.findings[0] : NULL);
	ck_assert_str_eq(a.findings[0].kind, "input-bound");
	ck_assert_ptr_null(find(&a, "launch-bound"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* Host synchronisation: the host blocked in sync calls while the device
 * idles; just under sync.moderate it stays silent. */
START_TEST(rule_sync_bound) {
	enum tc_severity sev;
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 800 * US);
	ev(&f, f.thread, "cudaStreamSynchronize", TC_OP_SYNC, 100 * US, 800 * US); /* 10 % idle */
	ev(&f, f.stream, "gemm2", TC_OP_KERNEL, 900 * US, 100 * US);
	ck_assert(fires(&f, "sync-bound", &sev));
	ck_assert_int_eq(sev, TC_SEV_MEDIUM);
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 971 * US);
	ev(&f, f.thread, "aten::item", TC_OP_SYNC, 100 * US, 900 * US); /* 2.9 % idle */
	ck_assert(!fires(&f, "sync-bound", NULL));
}
END_TEST

/* A sync call's shadow: the device idle after it counts as sync until the
 * device's next op, and never longer than the device worked during the
 * call; nested sync calls are one wait. */
START_TEST(sync_shadow) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 200 * US);
	/* Waits 150 us on the gemm; the next op comes 100 us after: all 100. */
	ev(&f, f.thread, "aten::item", TC_OP_SYNC, 50 * US, 150 * US);
	ev(&f, f.thread, "cudaStreamSynchronize", TC_OP_SYNC, 60 * US, 140 * US);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 300 * US, 100 * US);
	/* Waits 50 us on the second; the next op comes 300 us after: 50. */
	ev(&f, f.thread, "cudaDeviceSynchronize", TC_OP_SYNC, 350 * US, 50 * US);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 700 * US, 300 * US);
	/* Returns with the device still busy: no idle follows it. */
	ev(&f, f.thread, "cudaStreamSynchronize", TC_OP_SYNC, 720 * US, 40 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_int_eq(a.attr[0].cat_ps[TC_BD_SYNC], 150 * US);
	ck_assert_int_eq(a.attr[0].cat_ps[TC_BD_IDLE], 250 * US);
	const struct tc_finding *k = find(&a, "sync-bound");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->explained_ps, 150 * US);
	ck_assert_msg(strstr(k->text, "3.0 sync calls per step") != NULL, "%s", k->text);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* A finding's ops rank by self time in the counted steps: the frame that
 * encloses everything comes after the op doing the work; an op of the
 * warm-up step, or inside the data loader, is not listed. */
START_TEST(ops_by_self_time) {
	struct fx f = fx_new();
	step(&f, 0, 0, 3 * MS);
	ev(&f, f.thread, "compile_pass", TC_OP_HOST_OP, 100 * US, 2 * MS);
	ev(&f, f.stream, "k", TC_OP_KERNEL, 2900 * US, 50 * US);
	for (int s = 1; s <= 3; s++) {
		int64_t t = (int64_t)s * MS;
		step(&f, s, 2 * MS + t, MS);
		ev(&f, f.thread, "$train.py:10 step", TC_OP_PYTHON, 2 * MS + t, 900 * US);
		ev(&f, f.thread, "$train.py:20 augment", TC_OP_PYTHON, 2 * MS + t + 10 * US, 600 * US);
		ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 2 * MS + t + 700 * US, 100 * US);
		/* The loader's collate is input time, not host work. */
		ev(&f, f.thread, "enumerate(DataLoader)", TC_OP_DATALOAD, 2 * MS + t + 800 * US,
			140 * US);
		ev(&f, f.thread, "aten::cat", TC_OP_HOST_OP, 2 * MS + t + 810 * US, 120 * US);
		ev(&f, f.stream, "k", TC_OP_KERNEL, 2 * MS + t + 950 * US, 40 * US);
	}
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *k = find(&a, "host-bound");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_ge(k->n_ops, 3);
	ck_assert_str_eq(tc_model_str(f.m, k->ops[0]), "$train.py:20 augment");
	ck_assert_str_eq(tc_model_str(f.m, k->ops[1]), "$train.py:10 step");
	ck_assert_str_eq(tc_model_str(f.m, k->ops[2]), "aten::add");
	for (size_t i = 0; i < k->n_ops; i++) {
		ck_assert_str_ne(tc_model_str(f.m, k->ops[i]), "compile_pass");
		ck_assert_str_ne(tc_model_str(f.m, k->ops[i]), "aten::cat");
	}
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* Allocator calls filling the host time a launch/host finding explains:
 * the finding says so and advises to stop allocating. */
START_TEST(alloc_in_step) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	for (int i = 0; i < 10; i++) {
		int64_t t = i * 100 * US;
		ev(&f, f.thread, "cudaMalloc", TC_OP_RUNTIME, t, 60 * US);
		ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, t + 60 * US, 5 * US);
		ev(&f, f.stream, "k", TC_OP_KERNEL, t + 70 * US, 5 * US);
	}
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_ge(a.n_findings, 1);
	const struct tc_finding *k = &a.findings[0];
	ck_assert_str_eq(k->kind, "launch-bound");
	ck_assert_msg(strstr(k->text, "10.0 device memory allocator calls per step") != NULL, "%s",
		k->text);
	ck_assert_str_eq(k->suggestion, tc_advice(TC_ADV_ALLOC, &a.runtime));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	/* The same launches without the allocations: launch advice. */
	f = fx_new();
	step(&f, 1, 0, MS);
	for (int i = 0; i < 10; i++) {
		int64_t t = i * 100 * US;
		ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, t + 60 * US, 5 * US);
		ev(&f, f.stream, "k", TC_OP_KERNEL, t + 70 * US, 5 * US);
	}
	analyze(&f, &a);
	k = find(&a, "launch-bound");
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_null(strstr(k->text, "allocator"));
	ck_assert_str_eq(k->suggestion, tc_advice(TC_ADV_LAUNCH, &a.runtime));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* One-off host calls (tc_host_evidence_stalls, a.startup): which calls
 * count and in what order, ties included: ops with calls of 1 ms or more
 * among many short ones, a lone call, equal idle times and starts, a
 * slow call recurring in two steps, ops slow throughout or of median 0,
 * calls before the steps. */
START_TEST(one_off_calls) {
	struct fx f = fx_new();
	struct tc_model *m = f.m;
	uint32_t t2 = tc_model_add_track(m, f.cpu, tc_model_intern(m, "thread 2"),
		TC_TRACK_HOST_THREAD, 2);
	/* Before the steps: lone creations of equal length at one time on
	 * two threads, and the first launch, slow against the rest. */
	ev(&f, f.thread, "cudaStreamCreate", TC_OP_RUNTIME, 0, 2 * MS);
	ev(&f, t2, "cudaEventCreate", TC_OP_RUNTIME, 0, 2 * MS);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 3 * MS, 4 * MS);
	ev(&f, f.thread, "cudaFree", TC_OP_RUNTIME, 8 * MS, 500 * US); /* under 1 ms */
	uint64_t flow = 1;
	for (int s = 0; s < 4; s++) {
		int64_t t0 = 10 * MS + s * 10 * MS;
		step(&f, s + 1, t0, 10 * MS);
		for (int i = 0; i < 20; i++) {
			int64_t t = t0 + i * 200 * US;
			uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, t, 5 * US);
			uint32_t k = ev(&f, f.stream, "k", TC_OP_KERNEL, t + 10 * US, 100 * US);
			tc_model_add_flow(m, r, k, TC_FLOW_LAUNCH, flow++);
			ev(&f, t2, "cudaMemcpyAsync", TC_OP_RUNTIME, t, 10 * US);
		}
		/* A slow copy in step 3, lone calls at one time on both
		 * threads in step 2, an event query slow in two steps. */
		if (s == 2) {
			ev(&f, t2, "cudaMemcpyAsync", TC_OP_RUNTIME, t0 + 4 * MS, 3 * MS);
		}
		if (s == 1) {
			ev(&f, t2, "cudaOccupancyMaxActiveBlocks", TC_OP_RUNTIME, t0 + 5 * MS, 3 * MS);
			ev(&f, f.thread, "cudaFuncGetAttributes", TC_OP_RUNTIME, t0 + 5 * MS, 3 * MS);
		}
		if (s >= 2) {
			ev(&f, t2, "cudaEventQuery", TC_OP_RUNTIME, t0 + 8 * MS, 1500 * US);
			ev(&f, t2, "cudaEventQuery", TC_OP_RUNTIME, t0 + 7 * MS, 5 * US);
		}
		/* Not one-offs: every call slow; a median of 0. */
		ev(&f, f.thread, "cudaStreamWaitEvent", TC_OP_RUNTIME, t0 + 9 * MS, MS);
		ev(&f, t2, "cudaGetLastError", TC_OP_RUNTIME, t0 + 9 * MS, s == 3 ? MS : 0);
	}
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.bd_device, f.gpu);
	struct tc_stall st[8];
	size_t n = tc_host_evidence_stalls(m, &a, a.bd_device, TC_OP_RUNTIME, st, 8);
	/* Equal idle and start: by op (the order ops were made in). */
	const char *want[] = { "cudaOccupancyMaxActiveBlocks", "cudaFuncGetAttributes",
		"cudaMemcpyAsync" };
	const int64_t want_start[] = { 25 * MS, 25 * MS, 34 * MS };
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(tc_model_str(m, m->ops[st[i].op].name), want[i]);
		ck_assert_int_eq(st[i].start_ps, want_start[i]);
		ck_assert_int_eq(st[i].idle_ps, 3 * MS);
		ck_assert(st[i].startup == (i == 2));
	}
	/* The cap keeps the order's head. */
	ck_assert_uint_eq(tc_host_evidence_stalls(m, &a, a.bd_device, TC_OP_RUNTIME, st, 1), 1);
	ck_assert_str_eq(tc_model_str(m, m->ops[st[0].op].name), want[0]);
	const char *su[] = { "cudaLaunchKernel", "cudaStreamCreate", "cudaEventCreate" };
	ck_assert_uint_eq(a.startup.n_calls, 3);
	ck_assert_int_eq(a.startup.total_ps, 8 * MS);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_str_eq(a.startup.name[i], su[i]);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

/* Each device's findings never explain more than its step time, and every
 * device's attribution sums exactly to it. */
START_TEST(findings_disjoint) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 300 * US);
	ev(&f, f.stream, "nccl:all_reduce", TC_OP_COLLECTIVE, 300 * US, 200 * US);
	ev(&f, f.stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 500 * US, 100 * US);
	ev(&f, f.thread, "enumerate(DataLoader)", TC_OP_DATALOAD, 550 * US, 150 * US);
	ev(&f, f.thread, "cudaDeviceSynchronize", TC_OP_SYNC, 700 * US, 100 * US);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 800 * US, 150 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_attr, 1);
	int64_t sum = 0;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		sum += a.attr[0].cat_ps[c];
	}
	ck_assert_int_eq(sum, a.attr[0].step_ps);
	/* The call waited on an idle device: the aten::add after it is the
	 * host's own time, not the sync's. */
	ck_assert_int_eq(a.attr[0].cat_ps[TC_BD_SYNC], 100 * US);
	ck_assert_int_eq(a.attr[0].cat_ps[TC_BD_HOST], 150 * US);
	ck_assert_int_eq(a.attr[0].cat_ps[TC_BD_INPUT], 150 * US); /* over the copy */
	int64_t explained = 0;
	for (size_t i = 0; i < a.n_findings; i++) {
		explained += a.findings[i].device == f.gpu ? a.findings[i].explained_ps : 0;
		/* Ranked by the time they explain. */
		ck_assert(i == 0 || a.findings[i - 1].explained_ps >= a.findings[i].explained_ps);
	}
	ck_assert_int_le(explained, a.attr[0].step_ps);
	ck_assert_ptr_nonnull(find(&a, "communication"));
	ck_assert_ptr_nonnull(find(&a, "sync-bound"));
	ck_assert_ptr_nonnull(find(&a, "input-bound"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(rule_host_bound) {
	enum tc_severity sev;
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 900 * US);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 850 * US, 150 * US); /* 10 % exposed */
	ck_assert(fires(&f, "host-bound", &sev));
	ck_assert_int_eq(sev, TC_SEV_MEDIUM);
	f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 980 * US);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 850 * US, 129 * US); /* 0 % */
	ev(&f, f.thread, "aten::mul", TC_OP_HOST_OP, 980 * US, 20 * US);  /* 2 % */
	ck_assert(!fires(&f, "host-bound", NULL));
}
END_TEST

START_TEST(rule_idle_device) {
	/* Idle with nothing on the trace to explain it. */
	struct fx f = fx_new();
	ev(&f, f.stream, "k1", TC_OP_KERNEL, 0, 30 * US);
	ev(&f, f.stream, "k2", TC_OP_KERNEL, 90 * US, 10 * US); /* 60 % unexplained */
	ck_assert(fires(&f, "idle-device", NULL));
	/* The same idle time explained by host work: host-bound, not idle. */
	f = fx_new();
	ev(&f, f.stream, "k1", TC_OP_KERNEL, 0, 30 * US);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 30 * US, 60 * US);
	ev(&f, f.stream, "k2", TC_OP_KERNEL, 90 * US, 10 * US);
	ck_assert(!fires(&f, "idle-device", NULL));
	/* Just under idle.moderate (10 %). */
	f = fx_new();
	ev(&f, f.stream, "k1", TC_OP_KERNEL, 0, 81 * US);
	ev(&f, f.stream, "k2", TC_OP_KERNEL, 90 * US, 10 * US); /* 9 % */
	ck_assert(!fires(&f, "idle-device", NULL));
}
END_TEST

static void memory_fixture(struct fx *f, double peak) {
	f->m->devices[f->gpu].memory_bytes = 1000;
	uint32_t c = tc_model_counter(f->m, f->gpu, tc_model_intern(f->m, "memory.allocated"),
		tc_model_intern(f->m, "bytes"), 0);
	tc_model_add_sample(f->m, c, 0, 100);
	tc_model_add_sample(f->m, c, 5 * US, peak);
	tc_model_add_sample(f->m, c, 9 * US, 200);
	ev(f, f->stream, "k", TC_OP_KERNEL, 0, 10 * US);
}

START_TEST(rule_memory_pressure) {
	struct fx f = fx_new();
	memory_fixture(&f, 950);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_mem, 1);
	ck_assert(a.mem[0].peak_bytes == 950);
	ck_assert_int_eq(a.mem[0].peak_ts_ps, 5 * US);
	ck_assert_int_eq(a.mem[0].capacity_bytes, 1000);
	ck_assert_ptr_nonnull(find(&a, "memory-pressure"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	memory_fixture(&f, 899);
	ck_assert(!fires(&f, "memory-pressure", NULL));
	/* A serving engine's KV-cache pool fills memory by design, as its
	 * advice says: at most low (issue 48, class 9). */
	f = fx_new();
	memory_fixture(&f, 950);
	ev(&f, f.stream, "void vllm::rms_norm_kernel<float>", TC_OP_KERNEL, 0, 1 * US);
	enum tc_severity sev;
	ck_assert(fires(&f, "memory-pressure", &sev));
	ck_assert_int_eq(sev, TC_SEV_LOW);
}
END_TEST

#define GIB 1073741824.0

/* A device's caching allocator: reserved peaks at reserved, allocated
 * at allocated (both sampled by one [memory] record, as Kineto writes). */
static void frag_fixture(struct fx *f, double reserved, double allocated) {
	uint32_t bytes = tc_model_intern(f->m, "bytes");
	uint32_t r = tc_model_counter(f->m, f->gpu, tc_model_intern(f->m, "memory.reserved"),
		bytes, 0);
	uint32_t al = tc_model_counter(f->m, f->gpu, tc_model_intern(f->m, "memory.allocated"),
		bytes, 0);
	tc_model_add_sample(f->m, r, 0, reserved / 2);
	tc_model_add_sample(f->m, al, 0, allocated / 2);
	tc_model_add_sample(f->m, r, 5 * US, reserved);
	tc_model_add_sample(f->m, al, 5 * US, allocated / 4); /* freed at the reserved peak */
	tc_model_add_sample(f->m, r, 8 * US, reserved);
	tc_model_add_sample(f->m, al, 8 * US, allocated);
	step(f, 1, 0, 10 * US);
	ev(f, f->stream, "k", TC_OP_KERNEL, 0, 10 * US);
}

/* Reserved never in use at once: peak reserved vs peak allocated, not the
 * allocated value at the reserved peak (a transient free is caching). */
START_TEST(rule_fragmented_memory) {
	enum tc_severity sev;
	struct fx f = fx_new();
	frag_fixture(&f, 4 * GIB, 2.6 * GIB); /* 35 % */
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "fragmented-memory");
	ck_assert_ptr_nonnull(fd);
	ck_assert_int_eq(fd->severity, TC_SEV_MEDIUM);
	ck_assert_double_eq_tol(fd->value, 35, 1e-9);
	ck_assert_int_eq(fd->explained_ps, 0);
	ck_assert_uint_eq(fd->device, f.gpu);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	frag_fixture(&f, 4 * GIB, 1.6 * GIB); /* 60 % */
	ck_assert(fires(&f, "fragmented-memory", &sev));
	ck_assert_int_eq(sev, TC_SEV_HIGH);
	/* Just under fragmentation.share (30 %). */
	f = fx_new();
	frag_fixture(&f, 4 * GIB, 2.81 * GIB); /* 29.75 % */
	ck_assert(!fires(&f, "fragmented-memory", NULL));
	/* A small pool is not judged: just under 1 GiB, capacity unknown... */
	f = fx_new();
	frag_fixture(&f, 0.99 * GIB, 0.2 * GIB);
	ck_assert(!fires(&f, "fragmented-memory", NULL));
	/* ...unless it is 10 % of the device. */
	f = fx_new();
	f.m->devices[f.gpu].memory_bytes = (int64_t)(8 * GIB);
	frag_fixture(&f, 0.99 * GIB, 0.2 * GIB);
	ck_assert(fires(&f, "fragmented-memory", NULL));
	/* Host counters (XProf's stack reservation) are not a pool. */
	f = fx_new();
	uint32_t bytes = tc_model_intern(f.m, "bytes");
	tc_model_add_sample(f.m, tc_model_counter(f.m, f.cpu,
		tc_model_intern(f.m, "memory.reserved"), bytes, 0), 0, 8 * GIB);
	tc_model_add_sample(f.m, tc_model_counter(f.m, f.cpu,
		tc_model_intern(f.m, "memory.allocated"), bytes, 0), 0, 1 * GIB);
	ev(&f, f.stream, "k", TC_OP_KERNEL, 0, 10 * US);
	ck_assert(!fires(&f, "fragmented-memory", NULL));
}
END_TEST

static void kernel_args(struct fx *f, uint32_t e, double blocks, double occ) {
	uint32_t a = tc_model_args_begin(f->m);
	tc_model_arg_double(f->m, f->m->key.blocks_per_sm, blocks);
	tc_model_arg_double(f->m, f->m->key.occupancy, occ);
	tc_model_set_event_args(f->m, e, tc_model_args_end(f->m, a));
}

/* One step of step_ps from 0, the device busy 950 us in 50 kernels of
 * 19 us: the first n_low with 0.5 blocks per SM, the others with 4. */
static void small_batch_step(struct fx *f, int n_low, bool args, int64_t step_ps) {
	step(f, 1, 0, step_ps);
	for (int i = 0; i < 50; i++) {
		uint32_t e = ev(f, f->stream, i < n_low ? "small_gemm" : "big_gemm", TC_OP_KERNEL,
			i * 20 * US, 19 * US);
		if (args) {
			kernel_args(f, e, i < n_low ? 0.5 : 4, i < n_low ? 6 : 50);
		}
	}
}

static void small_batch_fixture(struct fx *f, int n_low, bool args) {
	small_batch_step(f, n_low, args, MS);
}

START_TEST(rule_small_batch) {
	enum tc_severity sev;
	struct fx f = fx_new();
	small_batch_fixture(&f, 30, true); /* 60 % of kernel time underfilled */
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "small-batch");
	ck_assert_ptr_nonnull(fd);
	ck_assert_int_eq(fd->severity, TC_SEV_MEDIUM);
	ck_assert_double_eq_tol(fd->value, 60, 1e-9);
	ck_assert_int_eq(fd->explained_ps, 0); /* evidence: the time is compute */
	ck_assert_uint_eq(fd->n_ops, 1);
	ck_assert_str_eq(tc_model_str(f.m, fd->ops[0]), "small_gemm");
	ck_assert_int_eq(a.attr[0].busy_ps, 950 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	small_batch_fixture(&f, 45, true); /* 90 % */
	ck_assert(fires(&f, "small-batch", &sev));
	ck_assert_int_eq(sev, TC_SEV_HIGH);
	/* Just under small-batch.share (50 %). */
	f = fx_new();
	small_batch_fixture(&f, 24, true); /* 48 % */
	ck_assert(!fires(&f, "small-batch", NULL));
	/* No occupancy args: 19 us kernels are not short... */
	f = fx_new();
	small_batch_fixture(&f, 0, false);
	ck_assert(!fires(&f, "small-batch", NULL));
	/* ...but 9 us ones carry it, at low severity... */
	f = fx_new();
	step(&f, 1, 0, MS);
	for (int i = 0; i < 100; i++) {
		ev(&f, f.stream, "tiny", TC_OP_KERNEL, i * 10 * US, 9 * US); /* 90 % busy */
	}
	ck_assert(fires(&f, "small-batch", &sev));
	ck_assert_int_eq(sev, TC_SEV_LOW);
	/* Only kernels count, on a line where other short ops run between
	 * them: all of the kernel time is short, none of the memsets'. */
	f = fx_new();
	step(&f, 1, 0, MS);
	for (int i = 0; i < 100; i++) {
		ev(&f, f.stream, "tiny", TC_OP_KERNEL, i * 10 * US, 8.5 * US);
		ev(&f, f.stream, "fill", TC_OP_MEMSET, i * 10 * US + 8.6 * US, 1 * US);
	}
	analyze(&f, &a);
	fd = find(&a, "small-batch");
	ck_assert_ptr_nonnull(fd);
	ck_assert_double_eq_tol(fd->value, 100, 1e-9);
	ck_assert_uint_eq(fd->n_ops, 1);
	ck_assert_str_eq(tc_model_str(f.m, fd->ops[0]), "tiny");
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	/* ...and the device must be busy: just under small-batch.busy (80 %). */
	f = fx_new();
	step(&f, 1, 0, MS);
	for (int i = 0; i < 100; i++) {
		ev(&f, f.stream, "tiny", TC_OP_KERNEL, i * 10 * US, 7.9 * US);
	}
	ck_assert(!fires(&f, "small-batch", NULL));
	/* A host cause at its moderate band takes precedence. */
	f = fx_new();
	small_batch_step(&f, 45, true, 1050 * US);
	ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, 1000 * US, 50 * US); /* 4.8 % host */
	ck_assert(!fires(&f, "small-batch", NULL));
}
END_TEST

/* The new findings explain no step time: the device's sum stays within it. */
START_TEST(findings_disjoint_evidence) {
	struct fx f = fx_new();
	small_batch_fixture(&f, 45, true);
	frag_fixture(&f, 4 * GIB, 1 * GIB);
	ev(&f, f.stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 990 * US, 10 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_ptr_nonnull(find(&a, "small-batch"));
	ck_assert_ptr_nonnull(find(&a, "fragmented-memory"));
	ck_assert_uint_eq(a.n_attr, 1);
	int64_t explained = 0;
	for (size_t i = 0; i < a.n_findings; i++) {
		explained += a.findings[i].device == f.gpu ? a.findings[i].explained_ps : 0;
		ck_assert(i == 0 || a.findings[i - 1].explained_ps >= a.findings[i].explained_ps);
	}
	ck_assert_int_le(explained, a.attr[0].step_ps);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* n compilations, each in a call named callers[i] (NULL: in none). */
static void compile_in(struct fx *f, int n, int64_t dur, const char *const *callers) {
	ev(f, f->stream, "k", TC_OP_KERNEL, 0, MS);
	for (int i = 0; i < n; i++) {
		if (callers && callers[i]) {
			ev(f, f->thread, callers[i], TC_OP_HOST_OP, i * 200 * US, dur + US);
		}
		ev(f, f->thread, "backend_compile", TC_OP_COMPILE, i * 200 * US, dur);
		/* A nested phase is not a second compilation. */
		ev(f, f->thread, "backend_compile", TC_OP_COMPILE, i * 200 * US, dur / 2);
	}
}

static void compile_fixture(struct fx *f, int n, int64_t dur) {
	static const char *const same[] = { "PjitFunction(step)", "PjitFunction(step)",
		"PjitFunction(step)" };
	compile_in(f, n, dur, same);
}

START_TEST(rule_compilation) {
	struct fx f = fx_new();
	compile_fixture(&f, 1, 100 * US); /* 10 % of the trace */
	ck_assert(fires(&f, "compilation", NULL));
	f = fx_new();
	compile_fixture(&f, 1, 49 * US);
	ck_assert(!fires(&f, "compilation", NULL));
}
END_TEST

START_TEST(rule_recompilation) {
	struct fx f = fx_new();
	compile_fixture(&f, 3, 10 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.compile.n_events, 3);
	ck_assert_uint_eq(a.compile.n_recompiled, 1);
	ck_assert_uint_eq(a.compile.recompiled[0].count, 3);
	ck_assert_ptr_nonnull(find(&a, "recompilation"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	compile_fixture(&f, 1, 10 * US);
	ck_assert(!fires(&f, "recompilation", NULL));
}
END_TEST

/* Recompilation is the same program compiled again: four compilations
 * made in four different calls are four programs (JAX's PjitFunction(f)
 * around each backend_compile), and compilations that name no program
 * are never taken for the same one. */
START_TEST(recompilation_needs_the_same_program) {
	static const char *const calls[] = { "PjitFunction(convert_element_type)",
		"PjitFunction(broadcast_in_dim)", "PjitFunction(_psum)", "PjitFunction(f)" };
	struct fx f = fx_new();
	compile_in(&f, 4, 10 * US, calls);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.compile.n_events, 4);
	ck_assert_uint_eq(a.compile.n_programs, 4);
	ck_assert_uint_eq(a.compile.n_recompiled, 0);
	ck_assert_ptr_null(find(&a, "recompilation"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	compile_in(&f, 3, 10 * US, NULL);
	analyze(&f, &a);
	ck_assert_uint_eq(a.compile.n_events, 3);
	ck_assert_uint_eq(a.compile.n_recompiled, 0);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* XLA's autotuner compiles candidates on worker threads inside one
 * program's compilation: phases, not compilations of their own. */
START_TEST(compile_phases_on_other_threads) {
	struct fx f = fx_new();
	uint32_t worker = tc_model_add_track(f.m, f.cpu, tc_model_intern(f.m, "thread 2"),
		TC_TRACK_HOST_THREAD, 2);
	ev(&f, f.stream, "k", TC_OP_KERNEL, 0, MS);
	ev(&f, f.thread, "backend_compile_and_load", TC_OP_COMPILE, 0, 500 * US);
	for (int i = 0; i < 4; i++) {
		ev(&f, worker, "CompileToBackendResult", TC_OP_COMPILE, (10 + 100 * i) * US, 50 * US);
	}
	/* Outside the program's compilation: one of its own. */
	ev(&f, worker, "CompileToBackendResult", TC_OP_COMPILE, 600 * US, 50 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.compile.n_events, 2);
	ck_assert_uint_eq(a.compile.n_recompiled, 0);
	ck_assert_uint_eq(a.compile.n_programs, 2);
	ck_assert_str_eq(tc_model_str(f.m, a.compile.programs[0].name), "backend_compile_and_load");
	ck_assert_int_eq(a.compile.union_ps, 550 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(rule_memory_bound) {
	struct fx f = fx_new();
	roofline_ops(&f, 600 * US, 400 * US, 1000000);
	ck_assert(fires(&f, "memory-bound", NULL));
	f = fx_new();
	roofline_ops(&f, 490 * US, 510 * US, 1000000);
	ck_assert(!fires(&f, "memory-bound", NULL));
}
END_TEST

/* The roofline findings name how fast the largest categories run against
 * the peak they are bound by (rules_compute.c). */
START_TEST(rule_bound_efficiency) {
	struct fx f = fx_new();
	roofline_ops(&f, 600 * US, 400 * US, 1000000);
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "memory-bound");
	ck_assert_ptr_nonnull(fd);
	ck_assert_msg(strstr(fd->text, "; by category: ") && strstr(fd->text, " of 1.00 TB/s ("),
		"%s", fd->text);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	roofline_ops(&f, 200 * US, 800 * US, 1000000);
	analyze(&f, &a);
	fd = find(&a, "compute-bound");
	ck_assert_ptr_nonnull(fd);
	ck_assert_msg(strstr(fd->text, "; by category: ") && strstr(fd->text, " runs ") &&
		strstr(fd->text, " of 100.00 TFLOP/s ("), "%s", fd->text);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(rule_compute_bound) {
	struct fx f = fx_new();
	roofline_ops(&f, 200 * US, 800 * US, 1000000);
	ck_assert(fires(&f, "compute-bound", NULL));
	f = fx_new();
	roofline_ops(&f, 310 * US, 690 * US, 1000000);
	ck_assert(!fires(&f, "compute-bound", NULL));
}
END_TEST

START_TEST(rule_unoptimized_op) {
	struct fx f = fx_new();
	/* elementwise: 1 MFLOP in 600 us against 1 TFLOP/s attainable. */
	roofline_ops(&f, 600 * US, 400 * US, 1000000);
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "unoptimized-op");
	ck_assert_ptr_nonnull(fd);
	ck_assert_str_eq(tc_model_str(f.m, fd->ops[0]), "elementwise");
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	/* 500 MFLOP in 600 us at intensity 1: 83 % of 1 TFLOP/s. */
	roofline_ops(&f, 600 * US, 400 * US, 500000000);
	ck_assert(!fires(&f, "unoptimized-op", NULL));
}
END_TEST

static void straggler_fixture(struct fx *f, int64_t fast_comm) {
	uint32_t g2 = tc_model_add_device(f->m, tc_model_intern(f->m, "GPU 1"), TC_DEV_GPU);
	uint32_t g3 = tc_model_add_device(f->m, tc_model_intern(f->m, "GPU 2"), TC_DEV_GPU);
	uint32_t s2 = tc_model_add_track(f->m, g2, tc_model_intern(f->m, "s"), TC_TRACK_STREAM, 7);
	uint32_t s3 = tc_model_add_track(f->m, g3, tc_model_intern(f->m, "s"), TC_TRACK_STREAM, 7);
	ev(f, f->stream, "ncclAllReduce", TC_OP_COLLECTIVE, 0, 400 * US);
	ev(f, s2, "ncclAllReduce", TC_OP_COLLECTIVE, 0, 420 * US);
	ev(f, s3, "ncclAllReduce", TC_OP_COLLECTIVE, 0, fast_comm);
}

START_TEST(rule_straggler) {
	struct fx f = fx_new();
	straggler_fixture(&f, 200 * US); /* 50 % below the median */
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_finding *fd = find(&a, "straggler");
	ck_assert_ptr_nonnull(fd);
	ck_assert_str_eq(tc_model_str(f.m, f.m->devices[fd->device].name), "GPU 2");
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
	f = fx_new();
	straggler_fixture(&f, 290 * US); /* 27.5 % */
	ck_assert(!fires(&f, "straggler", NULL));
}
END_TEST

/* ---- real traces (the traces part: tc_test_run skips it when
 * ../shared/traces is absent) ---- */

START_TEST(trace_launch_bound) {
	/* bert-small: 60 short kernels, the GPU idles between them. */
	struct tc_model *m = load("json/tracelens/h100-bert-small.json.gz");
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	const struct tc_finding *f = find(&a, "launch-bound");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(f->severity, TC_SEV_HIGH);
	ck_assert_uint_eq(a.n_util, 1);
	ck_assert_uint_gt(a.util[0].n_short_kernels, a.util[0].n_kernels / 2);
	ck_assert_int_gt(a.util[0].idle_host_wait_ps, a.util[0].idle_ps / 2);
	ck_assert_int_ge(a.util[0].launch_delay_p50_ps, 0);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

START_TEST(trace_nccl_communication) {
	struct tc_model *m = load("json/hta/nccl_parser_config__nccl_data.json.gz");
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.n_util, 1);
	ck_assert_int_gt(a.util[0].comm_ps, 0);
	ck_assert_int_gt(a.util[0].overlap_ps, 0);
	ck_assert_int_le(a.util[0].overlap_ps, a.util[0].comm_ps);
	ck_assert_int_gt(a.cat_total_ps[TC_BD_COLLECTIVE], 0);
	ck_assert_ptr_nonnull(find(&a, "communication"));
	/* GOLD.md: 21 ncclKernel events (15 AllReduce, 6 Broadcast). */
	struct tc_op_table t;
	ck_assert(tc_test_op_table(m, &o, "kind", &t));
	uint64_t n = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (t.rows[i].kind == TC_OP_COLLECTIVE) {
			n += t.rows[i].count;
		}
	}
	ck_assert_uint_eq(n, 21);
	tc_op_table_finish(&t);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

/* A rank's analysis for a job: the text is the one without slots, with
 * a slot at each device name and the cause's spread as a range. */
START_TEST(rank_slots_are_fields) {
	struct tc_analysis a[2];
	for (int slots = 0; slots < 2; slots++) {
		struct fx f = fx_new();
		uint32_t gpu1 = tc_model_add_device(f.m, tc_model_intern(f.m, "GPU 1"), TC_DEV_GPU);
		uint32_t s1 = tc_model_add_track(f.m, gpu1, tc_model_intern(f.m, "stream 7"),
			TC_TRACK_STREAM, 17);
		step(&f, 1, 0, MS);
		ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 500 * US);
		ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 400 * US, 300 * US);
		ev(&f, s1, "gemm", TC_OP_KERNEL, 0, 500 * US);
		ev(&f, s1, "ncclAllReduce", TC_OP_COLLECTIVE, 500 * US, 200 * US);
		tc_model_finalize(f.m);
		struct tc_analysis_opts o;
		tc_analysis_opts_init(&o);
		o.rank_slots = slots;
		tc_analyze(f.m, &o, TC_AN_FINDINGS, &a[slots]);
		no_control_bytes(&a[slots], "rank slots");
		tc_model_destroy(f.m);
	}
	const struct tc_finding *plain = find(&a[0], "communication");
	const struct tc_finding *fd = find(&a[1], "communication");
	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_nonnull(fd);
	ck_assert_str_eq(fd->text, plain->text);
	ck_assert(!plain->n_slots && !plain->has_spread);
	ck_assert_uint_eq(fd->n_slots, 1);
	ck_assert(strncmp(fd->text + fd->slot[0], "GPU 0 over", 10) == 0);
	ck_assert(fd->has_spread);
	ck_assert_uint_eq(fd->n_measured, 2);
	const char *clause = "; 2 of 2 devices at or above the moderate band";
	ck_assert_uint_eq(fd->spread_len, strlen(clause));
	ck_assert(strncmp(fd->text + fd->spread_at, clause, strlen(clause)) == 0);
	ck_assert(!fd->has_rank);
	/* Its figures, as numbers. */
	ck_assert_uint_ge(fd->n_figs, 2);
	ck_assert_str_eq(fd->figs[0].name, "step_time_share");
	ck_assert_str_eq(fd->figs[0].unit, "%");
	ck_assert(fd->figs[0].value > 19.9 && fd->figs[0].value < 20.1);
	tc_analysis_finish(&a[0]);
	tc_analysis_finish(&a[1]);
}
END_TEST

/* A cause measured on several devices whose finding is on another device
 * than the breakdown's: the text says so and keeps its whole spread
 * clause, which a rank's analysis for a job records as its spread. */
START_TEST(idle_device_spread_whole) {
	for (int slots = 0; slots < 2; slots++) {
		struct fx f = fx_new();
		uint32_t gpu1 = tc_model_add_device(f.m, tc_model_intern(f.m, "GPU 1"), TC_DEV_GPU);
		uint32_t s1 = tc_model_add_track(f.m, gpu1, tc_model_intern(f.m, "stream 7"),
			TC_TRACK_STREAM, 17);
		ev(&f, f.stream, "k", TC_OP_KERNEL, 0, 95 * US);
		ev(&f, s1, "k1", TC_OP_KERNEL, 0, 30 * US);
		ev(&f, s1, "k2", TC_OP_KERNEL, 90 * US, 10 * US); /* GPU 1: 60 % unexplained */
		tc_model_finalize(f.m);
		struct tc_analysis_opts o;
		tc_analysis_opts_init(&o);
		o.rank_slots = slots;
		struct tc_analysis a;
		tc_analyze(f.m, &o, TC_AN_FINDINGS, &a);
		const struct tc_finding *fd = find(&a, "idle-device");
		ck_assert_ptr_nonnull(fd);
		ck_assert_uint_eq(fd->device, gpu1);
		const char *tail = "; measured on the worst device, not the breakdown's GPU 0"
			"; 1 of 2 devices at or above the moderate band)";
		size_t n = strlen(fd->text), k = strlen(tail);
		ck_assert_msg(n >= k && strcmp(fd->text + n - k, tail) == 0, "%s", fd->text);
		if (slots) {
			const char *clause = "; 1 of 2 devices at or above the moderate band";
			ck_assert(fd->has_spread);
			ck_assert_uint_eq(fd->spread_at, n - 1 - strlen(clause));
			ck_assert_uint_eq(fd->spread_len, strlen(clause));
			ck_assert_uint_eq(fd->n_slots, 2);
			ck_assert(strncmp(fd->text + fd->slot[0], "GPU 1 is idle", 13) == 0);
			ck_assert(strncmp(fd->text + fd->slot[1], "GPU 0; 1 of 2", 13) == 0);
		}
		tc_analysis_finish(&a);
		tc_model_destroy(f.m);
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("rules");
	TCase *tr = tcase_create("rules");
	tcase_add_test(tr, rule_communication);
	tcase_add_test(tr, rule_compilation);
	tcase_add_test(tr, rule_compute_bound);
	tcase_add_test(tr, rule_bound_efficiency);
	tcase_add_test(tr, rule_host_bound);
	tcase_add_test(tr, rule_idle_device);
	tcase_add_test(tr, rule_input_bound);
	tcase_add_test(tr, rule_launch_bound);
	tcase_add_test(tr, one_off_calls);
	tcase_add_test(tr, rule_sync_bound);
	tcase_add_test(tr, findings_disjoint);
	tcase_add_test(tr, sync_shadow);
	tcase_add_test(tr, alloc_in_step);
	tcase_add_test(tr, ops_by_self_time);
	tcase_add_test(tr, findings_disjoint_evidence);
	tcase_add_test(tr, rule_fragmented_memory);
	tcase_add_test(tr, rule_small_batch);
	tcase_add_test(tr, rule_memory_bound);
	tcase_add_test(tr, rule_memory_pressure);
	tcase_add_test(tr, rule_pageable_copies);
	tcase_add_test(tr, rule_recompilation);
	tcase_add_test(tr, recompilation_needs_the_same_program);
	tcase_add_test(tr, compile_phases_on_other_threads);
	tcase_add_test(tr, host_collectives);
	tcase_add_test(tr, rule_straggler);
	tcase_add_test(tr, rule_transfer_bound);
	tcase_add_test(tr, rule_unoptimized_op);
	tcase_add_test(tr, rank_slots_are_fields);
	tcase_add_test(tr, idle_device_spread_whole);
	suite_add_tcase(s, tr);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_add_test(tt, trace_launch_bound);
	tcase_add_test(tt, trace_nccl_communication);
	suite_add_tcase(s, tt);
	return tc_test_run(s);
}
