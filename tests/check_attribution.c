/*
 * Check suite for the analysis the bottleneck rules read: steps and their
 * attribution to categories (the breakdown), roofline classes, device
 * utilisation and the op table, on small models built with the model API
 * (rules_fixture.h); and the analysis's contract over every project
 * fixture and real trace, with the figures real traces must give
 * (GOLD.md). The rules themselves are check_rules.c's.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/intervals.h"
#include "analysis/summary.h"
#include "ingest/ingest.h"
#include "model/classify.h"
#include "output/analysis_write.h"
#include "output/summary_write.h"
#include "rules_fixture.h"
#include "tc_test.h"

START_TEST(ivals_length_in) {
	struct tc_ivals o = { 0 };
	tc_ivals_push(&o, 0, 10);
	tc_ivals_push(&o, 20, 30);
	tc_ivals_push(&o, 40, 90);
	tc_ivals_push(&o, 200, 300);
	ck_assert_uint_eq(o.n, 4);
	ck_assert_int_eq(tc_ivals_length(&o), 10 + 10 + 50 + 100);
	ck_assert_int_eq(tc_ivals_length_in(&o, 15, 250), 10 + 50 + 50);
	ck_assert_int_eq(tc_ivals_length_in(&o, 95, 195), 0);
	ck_assert_int_eq(tc_ivals_gap_end(&o, 10), 20);   /* a gap starts at an end */
	ck_assert_int_eq(tc_ivals_gap_end(&o, 95), 200);
	ck_assert_int_eq(tc_ivals_gap_end(&o, 45), 45);   /* inside: no gap */
	ck_assert_int_eq(tc_ivals_gap_end(&o, 20), 20);
	ck_assert_int_eq(tc_ivals_gap_end(&o, -5), 0);
	ck_assert_int_eq(tc_ivals_gap_end(&o, 300), INT64_MAX);
	tc_ivals_finish(&o);
}
END_TEST

START_TEST(breakdown_sums_to_step) {
	struct fx f = fx_new();
	step(&f, 1, 0, 1 * MS);
	step(&f, 2, 1 * MS, 1 * MS);
	/* Step 1: kernel 0-400us, collective 300-600us (100 hidden), H2D copy
	 * 550-650 (50 hidden), data loader on host 0-100 (hidden under the
	 * kernel) and 700-800, launch call 800-850, compile 850-900. Launch
	 * calls under the kernel (100-150) and the collective (350-360) add
	 * nothing; one under the exposed copy (610-630) is copy time: the
	 * copy outranks the call the host waits in. */
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 400 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 300 * US, 300 * US);
	ev(&f, f.stream, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 550 * US, 100 * US);
	ev(&f, f.thread, "DataLoader.next", TC_OP_DATALOAD, 0, 100 * US);
	ev(&f, f.thread, "DataLoader.next", TC_OP_DATALOAD, 700 * US, 100 * US);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 100 * US, 50 * US);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 350 * US, 10 * US);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 610 * US, 20 * US);
	ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 800 * US, 50 * US);
	ev(&f, f.thread, "compile", TC_OP_COMPILE, 850 * US, 50 * US);
	/* Step 2: a kernel crossing nothing, a D2H copy and a D2D copy. */
	ev(&f, f.stream, "relu", TC_OP_KERNEL, 1 * MS, 100 * US);
	ev(&f, f.stream, "Memcpy DtoH", TC_OP_MEMCPY_D2H, 1 * MS + 200 * US, 100 * US);
	ev(&f, f.stream2, "Memcpy DtoD", TC_OP_MEMCPY_D2D, 1 * MS + 250 * US, 100 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_str_eq(a.steps_source, "host markers");
	ck_assert_uint_eq(a.bd_device, f.gpu);
	for (size_t i = 0; i < a.n_steps; i++) {
		int64_t sum = 0;
		for (int c = 0; c < TC_BD_COUNT; c++) {
			ck_assert_int_ge(a.steps[i].cat_ps[c], 0);
			sum += a.steps[i].cat_ps[c];
		}
		ck_assert_int_eq(sum, a.steps[i].dur_ps);
	}
	const struct tc_step *s = &a.steps[0];
	ck_assert_int_eq(s->cat_ps[TC_BD_COMPUTE], 400 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_COLLECTIVE], 200 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_H2D], 50 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_INPUT], 100 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_LAUNCH], 50 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_COMPILE], 50 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_IDLE], 150 * US);
	ck_assert_int_eq(s->busy_ps, 650 * US);
	ck_assert_uint_eq(s->xfer[TC_XFER_H2D].count, 1);
	s = &a.steps[1];
	ck_assert_int_eq(s->cat_ps[TC_BD_COMPUTE], 100 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_D2H], 100 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_D2D], 50 * US);
	ck_assert_int_eq(s->cat_ps[TC_BD_IDLE], 750 * US);
	/* Step 2 has far less device work than step 1: partial, not counted. */
	ck_assert(a.steps[1].partial);
	ck_assert_uint_eq(a.n_steps_counted, 1);
	ck_assert_int_eq(a.step_total_ps, MS);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(steps_explicit_range_warmup) {
	struct fx f = fx_new();
	/* Host markers 0..4; device step line with 3 steps wins. */
	for (int i = 0; i < 5; i++) {
		step(&f, 10 + i, i * MS, MS);
	}
	int64_t dur[] = { 5 * MS, MS, MS + 10 * US, MS - 10 * US };
	int64_t t = 0;
	for (int i = 0; i < 4; i++) {
		uint32_t e = ev(&f, f.dev_steps, "step", TC_OP_STEP, t, dur[i]);
		ev_arg_int(&f, e, f.m->key.step, 100 + i);
		ev(&f, f.stream, "k", TC_OP_KERNEL, t, dur[i] / 2);
		t += dur[i];
	}
	tc_model_finalize(f.m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(f.m, &o, TC_AN_FINDINGS, &a);
	ck_assert_str_eq(a.steps_source, "device markers");
	ck_assert_uint_eq(a.n_steps, 4);
	ck_assert_int_eq(a.steps[0].num, 100);
	ck_assert(a.steps[0].warmup);
	ck_assert(!a.steps[1].warmup);
	ck_assert(!a.steps[3].partial);
	ck_assert_uint_eq(a.n_steps_counted, 3);
	ck_assert_int_eq(a.step_total_ps, 3 * MS);
	tc_analysis_finish(&a);

	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_analysis_opts_steps(&o, "101:102", &err));
	tc_analyze(f.m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_uint_eq(a.n_steps_all, 4);
	ck_assert_int_eq(a.steps[0].num, 101);
	tc_analysis_finish(&a);
	ck_assert(!tc_analysis_opts_steps(&o, "5:3", &err));
	ck_assert(tc_analysis_opts_steps(&o, ":3", &err));
	ck_assert(!tc_analysis_opts_threshold(&o, "nope=3", &err));
	tc_error_init(&err);
	ck_assert(tc_analysis_opts_threshold(&o, "input.high=30", &err));
	ck_assert(o.th[TC_TH_INPUT_HIGH] == 30);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(steps_nested_markers) {
	/* Markers under a python frame count; a marker inside a marker does not. */
	struct fx f = fx_new();
	ev(&f, f.thread, "<module>", TC_OP_PYTHON, 0, 10 * MS);
	step(&f, 1, 1 * MS, 2 * MS);
	step(&f, 2, 3 * MS, 2 * MS);
	step(&f, 9, 3 * MS + 10 * US, MS);
	ev(&f, f.stream, "k", TC_OP_KERNEL, MS, 10 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_str_eq(a.steps_source, "host markers");
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_int_eq(a.steps[1].num, 2);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(steps_host_rank_device) {
	/* Two ranks: the markers' rank decides the breakdown device, even when
	 * the other rank's device is busier. */
	struct tc_model *m = tc_model_create();
	uint32_t h0 = tc_model_add_host(m, tc_model_intern(m, "rank 0"), TC_NONE);
	uint32_t c0 = tc_model_add_device(m, tc_model_intern(m, "cpu0"), TC_DEV_CPU);
	uint32_t g0 = tc_model_add_device(m, tc_model_intern(m, "gpu0"), TC_DEV_GPU);
	uint32_t h1 = tc_model_add_host(m, tc_model_intern(m, "rank 1"), TC_NONE);
	uint32_t c1 = tc_model_add_device(m, tc_model_intern(m, "cpu1"), TC_DEV_CPU);
	uint32_t g1 = tc_model_add_device(m, tc_model_intern(m, "gpu1"), TC_DEV_GPU);
	ck_assert_uint_eq(m->devices[g0].host, h0);
	ck_assert_uint_eq(m->devices[g1].host, h1);
	uint32_t t0 = tc_model_add_track(m, c0, tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, 1);
	uint32_t t1 = tc_model_add_track(m, c1, tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, 2);
	uint32_t s0 = tc_model_add_track(m, g0, tc_model_intern(m, "s"), TC_TRACK_STREAM, 7);
	uint32_t s1 = tc_model_add_track(m, g1, tc_model_intern(m, "s"), TC_TRACK_STREAM, 7);
	uint32_t st = tc_model_op(m, tc_model_intern(m, "ProfilerStep"), 0, TC_OP_STEP);
	uint32_t k = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	tc_model_add_event(m, t0, st, 0, MS, 0);
	tc_model_add_event(m, t1, st, 0, MS, 0);
	tc_model_add_event(m, t1, st, MS, MS, 0);
	tc_model_add_event(m, s0, k, 0, 900 * US, 0);
	tc_model_add_event(m, s1, k, 0, 100 * US, 0);
	tc_model_finalize(m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.steps_device, c1);
	ck_assert_uint_eq(a.bd_device, g1);
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_int_eq(a.steps[0].cat_ps[TC_BD_COMPUTE], 100 * US);
	tc_analysis_finish(&a);
	o.device = "gpu0";
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_uint_eq(a.bd_device, g0);
	ck_assert_int_eq(a.steps[0].cat_ps[TC_BD_COMPUTE], 900 * US);
	tc_analysis_finish(&a);
	/* Exact name, then a unique part of one in any case; several
	 * candidates select nothing and are all reported. */
	ck_assert_uint_eq(tc_analysis_find_device(m, "cpu1"), c1);
	ck_assert_uint_eq(tc_analysis_find_device(m, "GPU0"), g0);
	ck_assert_uint_eq(tc_analysis_find_device(m, "rank 1: gpu1"), g1);
	ck_assert_uint_eq(tc_analysis_find_device(m, "tpu"), TC_NONE);
	struct tc_device_match dm;
	tc_analysis_match_device(m, "cpu", &dm);
	ck_assert_int_eq(dm.status, TC_DEVICE_MATCH_AMBIGUOUS);
	ck_assert_uint_eq(dm.device, TC_NONE);
	ck_assert_uint_eq(dm.n_candidates, 2);
	ck_assert_uint_eq(dm.candidates[0], c0);
	ck_assert_uint_eq(dm.candidates[1], c1);
	tc_analysis_device_match_finish(&dm);
	tc_analysis_match_device(m, "gpu1", &dm);
	ck_assert_int_eq(dm.status, TC_DEVICE_MATCH_EXACT);
	tc_analysis_device_match_finish(&dm);
	tc_analysis_match_device(m, "PU1", &dm);
	ck_assert_int_eq(dm.status, TC_DEVICE_MATCH_AMBIGUOUS);
	tc_analysis_device_match_finish(&dm);
	tc_analysis_match_device(m, "Gpu1", &dm);
	ck_assert_int_eq(dm.status, TC_DEVICE_MATCH_UNIQUE);
	ck_assert_uint_eq(dm.device, g1);
	tc_analysis_device_match_finish(&dm);
	/* ops --device: rows and shares over that device alone. */
	struct tc_op_table t;
	o.device = "gpu1";
	ck_assert(tc_test_op_table(m, &o, "name", &t));
	ck_assert_uint_eq(t.device, g1);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_int_eq(t.rows[0].total_ps, 100 * US);
	ck_assert_int_eq(t.busy_ps, 100 * US);
	ck_assert(t.rows[0].share == 1.0);
	tc_op_table_finish(&t);
	o.device = NULL;
	ck_assert(tc_test_op_table(m, &o, "name", &t));
	ck_assert_uint_eq(t.device, TC_NONE);
	ck_assert_int_eq(t.rows[0].total_ps, 1000 * US);
	ck_assert_int_eq(t.busy_ps, 1000 * US);
	tc_op_table_finish(&t);
	tc_model_destroy(m);
}
END_TEST

START_TEST(steps_inferred) {
	/* Device modules repeated: they become the steps. */
	struct fx f = fx_new();
	uint32_t mods = tc_model_add_track(f.m, f.gpu, tc_model_intern(f.m, "XLA Modules"),
		TC_TRACK_MODULES, 3);
	uint32_t ops = tc_model_add_track(f.m, f.gpu, tc_model_intern(f.m, "XLA Ops"),
		TC_TRACK_OPS, 4);
	for (int i = 0; i < 3; i++) {
		ev(&f, mods, "jit_train_step", TC_OP_MODULE, i * MS, 800 * US);
		ev(&f, ops, "fusion", TC_OP_KERNEL, i * MS, 700 * US);
	}
	ev(&f, mods, "jit_init", TC_OP_MODULE, 3 * MS, 100 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert(a.steps_inferred);
	ck_assert_uint_eq(a.n_steps, 3);
	ck_assert_ptr_nonnull(strstr(a.steps_source, "inferred"));
	ck_assert_int_eq(a.steps[2].start_ps, 2 * MS);
	ck_assert_int_eq(a.steps[1].cat_ps[TC_BD_COMPUTE], 700 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);

	/* Host annotations repeated. */
	f = fx_new();
	for (int i = 0; i < 4; i++) {
		ev(&f, f.thread, "train_step", TC_OP_ANNOTATION, i * MS, 900 * US);
		ev(&f, f.thread, "log", TC_OP_ANNOTATION, i * MS + 950 * US, 10 * US);
	}
	ev(&f, f.stream, "k", TC_OP_KERNEL, 0, 10 * US);
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_steps, 4);
	ck_assert_str_eq(tc_model_str(f.m, a.steps[0].name), "train_step");
	ck_assert_ptr_nonnull(strstr(a.steps_source, "annotations"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);

	/* Nothing repeated: one step over the trace's device work; the host
	 * time around it (profiler start-up and tear-down) is left out. */
	f = fx_new();
	ev(&f, f.stream, "k", TC_OP_KERNEL, 5 * US, 10 * US);
	ev(&f, f.thread, "main", TC_OP_ANNOTATION, 0, 40 * US);
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_steps, 1);
	ck_assert_int_eq(a.steps[0].start_ps, 5 * US);
	ck_assert_int_eq(a.steps[0].dur_ps, 10 * US);
	ck_assert_int_eq(a.trimmed_before_ps, 5 * US);
	ck_assert_int_eq(a.trimmed_after_ps, 25 * US);
	ck_assert_ptr_nonnull(strstr(a.steps_source, "whole trace"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(roofline_classes) {
	struct fx f = fx_new();
	roofline_ops(&f, 600 * US, 400 * US, 1000000);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_str_eq(a.ops.peak_source, "trace");
	ck_assert(a.ops.ridge == 100);
	for (size_t i = 0; i < a.ops.n; i++) {
		const struct tc_op_row *r = &a.ops.rows[i];
		const char *n = tc_model_str(f.m, r->name);
		if (strcmp(n, "elementwise") == 0) {
			ck_assert_int_eq(r->bound, TC_BOUND_MEMORY);
			ck_assert(r->intensity == 1);
		} else {
			ck_assert_int_eq(r->bound, TC_BOUND_COMPUTE);
		}
	}
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);

	double fl, bw;
	ck_assert(tc_peaks_lookup("NVIDIA H100 80GB HBM3", &fl, &bw));
	ck_assert(fl == 989e12);
	ck_assert(tc_peaks_lookup("TPU v5 lite", &fl, &bw));
	ck_assert(!tc_peaks_lookup("GeForce GT 710", &fl, &bw));
	/* Table and override. */
	f = fx_new();
	f.m->devices[f.gpu].model = tc_model_intern(f.m, "A100-SXM4-80GB");
	tc_model_finalize(f.m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	ck_assert_str_eq(tc_device_peaks(f.m, f.gpu, o.peak_flops, o.peak_bw, &fl, &bw), "table");
	ck_assert(fl == 312e12);
	o.peak_bw = 1e12;
	ck_assert_str_eq(tc_device_peaks(f.m, f.gpu, o.peak_flops, o.peak_bw, &fl, &bw), "override");
	ck_assert(bw == 1e12);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(transfer_stats) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	uint32_t e = ev(&f, f.stream2, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 0, 100 * US);
	uint32_t a0 = tc_model_args_begin(f.m);
	tc_model_arg_int(f.m, f.m->key.bytes, 1000000);
	tc_model_arg_str(f.m, f.m->key.memory_kind, tc_model_intern(f.m, "pageable"));
	tc_model_set_event_args(f.m, e, tc_model_args_end(f.m, a0));
	e = ev(&f, f.stream2, "Memcpy HtoD", TC_OP_MEMCPY_H2D, 200 * US, 100 * US);
	ev_arg_int(&f, e, f.m->key.bytes, 3000000);
	ev(&f, f.stream2, "Memcpy DtoH", TC_OP_MEMCPY_D2H, 400 * US, 100 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	const struct tc_xfer_stats *x = &a.xfer[TC_XFER_H2D];
	ck_assert_uint_eq(x->count, 2);
	ck_assert(x->bytes == 4000000);
	ck_assert_int_eq(x->bytes_dur_ps, 200 * US);
	ck_assert_uint_eq(x->n_pageable, 1);
	ck_assert_uint_eq(a.xfer[TC_XFER_D2H].count, 1);
	ck_assert_uint_eq(a.xfer[TC_XFER_D2H].n_bytes_known, 0);
	ck_assert_uint_eq(a.steps[0].xfer[TC_XFER_H2D].count, 2);
	ck_assert_ptr_nonnull(find(&a, "pageable-copies"));
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(async_copy_halves) {
	/* XLA async copies: copy-start issues one copy, copy-done waits for it.
	 * One copy is counted; both halves' time is copy time. */
	ck_assert(tc_classify_async_done("copy-done", 9));
	ck_assert(tc_classify_async_done("copy-done.12", 12));
	ck_assert(tc_classify_async_done("all-reduce-done.3", 17));
	ck_assert(!tc_classify_async_done("copy-start.1", 12));
	ck_assert(!tc_classify_async_done("-done", 5));
	ck_assert(!tc_classify_async_done("done.1", 6));
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "copy-start.1", TC_OP_MEMCPY_D2D, 0, 1 * US);
	uint32_t d = ev(&f, f.stream, "copy-done.1", TC_OP_MEMCPY_D2D, 300 * US, 50 * US);
	f.m->ops[f.m->ev.op[d]].flags |= TC_OPF_ASYNC_DONE;
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.xfer[TC_XFER_D2D].count, 1);
	ck_assert_int_eq(a.xfer[TC_XFER_D2D].dur_ps, 51 * US);
	ck_assert_uint_eq(a.steps[0].xfer[TC_XFER_D2D].count, 1);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/* Host markers end no earlier than the device work launched inside them
 * (TensorBoard's PyTorch plugin): the next step starts after that. */
START_TEST(steps_host_aligned) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	step(&f, 2, MS, MS);
	uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 500 * US, 5 * US);
	uint32_t k = ev(&f, f.stream, "gemm", TC_OP_KERNEL, 900 * US, 400 * US);
	tc_model_add_flow(f.m, r, k, TC_FLOW_LAUNCH, 1);
	uint32_t r2 = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 1500 * US, 5 * US);
	uint32_t k2 = ev(&f, f.stream, "gemm", TC_OP_KERNEL, 1600 * US, 100 * US);
	tc_model_add_flow(f.m, r2, k2, TC_FLOW_LAUNCH, 2);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_int_eq(a.steps[0].start_ps, 0);
	ck_assert_int_eq(a.steps[0].dur_ps, 1300 * US);
	ck_assert_int_eq(a.steps[1].start_ps, 1300 * US);
	ck_assert_int_eq(a.steps[1].dur_ps, 700 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(kernel_wait_gaps) {
	/* Both launched up front: a 10 us gap is kernel wait, a 50 us one other. */
	struct fx f = fx_new();
	uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, 0, 1 * US);
	uint32_t k1 = ev(&f, f.stream, "k1", TC_OP_KERNEL, 5 * US, 95 * US);
	uint32_t k2 = ev(&f, f.stream, "k2", TC_OP_KERNEL, 110 * US, 90 * US);
	uint32_t k3 = ev(&f, f.stream, "k3", TC_OP_KERNEL, 250 * US, 50 * US);
	tc_model_add_flow(f.m, r, k1, TC_FLOW_LAUNCH, 1);
	tc_model_add_flow(f.m, r, k2, TC_FLOW_LAUNCH, 2);
	tc_model_add_flow(f.m, r, k3, TC_FLOW_LAUNCH, 3);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_int_eq(a.util[0].idle_host_wait_ps, 0);
	ck_assert_int_eq(a.util[0].idle_kernel_wait_ps, 10 * US);
	ck_assert_int_eq(a.util[0].idle_ps, 60 * US);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(util_overlap_and_ranking) {
	struct fx f = fx_new();
	step(&f, 1, 0, MS);
	ev(&f, f.stream, "gemm", TC_OP_KERNEL, 0, 600 * US);
	ev(&f, f.stream, "tiny", TC_OP_KERNEL, 600 * US, 5 * US);
	ev(&f, f.stream2, "ncclAllReduce", TC_OP_COLLECTIVE, 500 * US, 400 * US);
	struct tc_analysis a;
	analyze(&f, &a);
	ck_assert_uint_eq(a.n_util, 1);
	ck_assert_int_eq(a.util[0].compute_ps, 605 * US);
	ck_assert_int_eq(a.util[0].comm_ps, 400 * US);
	ck_assert_int_eq(a.util[0].overlap_ps, 105 * US);
	ck_assert_uint_eq(a.util[0].n_short_kernels, 1);
	ck_assert_uint_eq(a.n_streams, 2);
	for (size_t i = 1; i < a.n_findings; i++) {
		ck_assert_int_ge(a.findings[i - 1].severity, a.findings[i].severity);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

START_TEST(op_table_grouping) {
	struct fx f = fx_new();
	ev(&f, f.stream, "a", TC_OP_KERNEL, 0, 10 * US);
	ev(&f, f.stream, "a", TC_OP_KERNEL, 20 * US, 30 * US);
	ev(&f, f.stream2, "b", TC_OP_MEMCPY_H2D, 0, 5 * US);
	tc_model_finalize(f.m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_op_table t;
	ck_assert(tc_test_op_table(f.m, &o, "name", &t));
	ck_assert_uint_eq(t.n, 2);
	ck_assert_int_eq(t.rows[0].p50_ps, 10 * US);
	ck_assert_int_eq(t.busy_ps, 40 * US);
	tc_op_table_finish(&t);
	ck_assert(tc_test_op_table(f.m, &o, "kind", &t));
	ck_assert_uint_eq(t.n, 2);
	ck_assert_str_eq(t.rows[0].label, "kernel");
	tc_op_table_finish(&t);
	ck_assert(tc_test_op_table(f.m, &o, "device", &t));
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.rows[0].count, 3);
	tc_op_table_finish(&t);
	ck_assert(!tc_test_op_table(f.m, &o, "colour", &t));
	tc_model_destroy(f.m);
}
END_TEST

/* ---- commands that keep only the args analyses read back ----
 *
 * summarize, bottlenecks, steps, ops and info ingest with known_args_only:
 * their output must be the one a model with every arg gives. Every real
 * trace and project fixture is read both ways and the outputs compared. */

/* What the analysis commands print for m, as one string; threads as
 * tc_analysis_opts has it (2: every pass that can takes a second thread). */
static char *analysis_outputs(const struct tc_model *m, unsigned threads) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert(f != NULL);
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	ao.threads = threads;
	struct tc_analysis an;
	tc_analyze(m, &ao, TC_AN_FINDINGS, &an);
	struct tc_summary s;
	tc_analyze_summary(m, &s);
	struct tc_summary_opts so = { .top = 50, .analysis = &an, .findings = 20 };
	tc_write_summary_json(f, m, &s, &so);
	tc_write_summary_text(f, m, &s, &so);
	struct tc_bottlenecks_opts bo = { 0 };
	tc_write_bottlenecks_json(f, m, &an, &bo);
	tc_write_steps_json(f, m, &an);
	const char *by[] = { "name", "category", "kind", "device" };
	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		struct tc_op_table t;
		ck_assert(tc_test_op_table(m, &ao, by[i], &t));
		tc_write_ops_json(f, m, &t, 0);
		tc_op_table_finish(&t);
	}
	tc_write_info_json(f, m);
	tc_summary_finish(&s);
	tc_analysis_finish(&an);
	fclose(f);
	return buf;
}

/* Inputs an each_input function checked (each counts its own). */
static size_t inputs_checked;

static void known_args_same(const char *path) {
	struct tc_model *m[2];
	struct tc_error err[2];
	for (int lean = 0; lean < 2; lean++) {
		struct tc_ingest_opts o;
		tc_ingest_opts_default(&o);
		o.threads = 1;
		o.known_args_only = lean;
		tc_error_init(&err[lean]);
		m[lean] = tc_ingest(&path, 1, &o, &err[lean]);
	}
	/* Refused inputs (the bad/ files) are refused alike. */
	ck_assert_msg(!m[0] == !m[1], "%s: read one way only", path);
	if (!m[0]) {
		ck_assert_str_eq(err[0].msg, err[1].msg);
		return;
	}
	ck_assert_msg(m[1]->n_argb <= m[0]->n_argb, "%s", path);
	char *full = analysis_outputs(m[0], 1), *lean = analysis_outputs(m[1], 1);
	ck_assert_msg(strcmp(full, lean) == 0, "%s: output differs with known args only", path);
	free(full);
	free(lean);
	tc_model_destroy(m[0]);
	tc_model_destroy(m[1]);
	inputs_checked++;
}

static bool is_trace_name(const char *n) {
	size_t l = strlen(n);
	static const char *skip[] = { ".md", ".textproto", ".py", ".build" };
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		size_t k = strlen(skip[i]);
		if (l >= k && strcmp(n + l - k, skip[i]) == 0) {
			return false;
		}
	}
	return n[0] != '.' && strcmp(n, "meson.build") != 0;
}

static void walk_inputs(const char *dir, int depth, void (*fn)(const char *path));

/* fn over the project's fixtures (i 0) or the real traces (i 1, in the
 * traces part); at least min inputs must have been checked. */
static void each_input(int i, void (*fn)(const char *path), size_t min) {
	inputs_checked = 0;
	if (i == 0) {
		walk_inputs(tc_test_build("fixtures"), 0, fn);
		walk_inputs(tc_test_src("fixtures/json"), 0, fn);
	} else {
		walk_inputs(tc_test_trace("."), 0, fn);
	}
	ck_assert_uint_ge(inputs_checked, min);
}

/* The passes' second threads split work whose results must not depend on
 * the split: the output with them is the output without. */
static void threads_same(const char *path) {
	struct tc_error err;
	struct tc_model *m = tc_test_try_load(path, &err);
	if (!m) {
		return;
	}
	char *one = analysis_outputs(m, 1), *two = analysis_outputs(m, 2);
	ck_assert_msg(strcmp(one, two) == 0, "%s: output differs with a second thread", path);
	free(one);
	free(two);
	tc_model_destroy(m);
	inputs_checked++;
}

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(threads_same_output) {
	each_input(_i, threads_same, _i ? 30 : 10);
}
END_TEST

/* One device, no collective: the usage pass walks its streams on a thread
 * of their own while the runs are read (struct tc_usage_each). Its streams
 * (nested and flat, launched and not, instants, copies) and the counts
 * from them come out as on one thread. */
START_TEST(usage_streams_aside) {
	struct fx f = fx_new();
	uint32_t copies = tc_model_add_track(f.m, f.gpu, tc_model_intern(f.m, "stream 9"),
		TC_TRACK_STREAM, 10);
	for (int s = 0; s < 4; s++) {
		step(&f, s + 1, s * MS, MS);
	}
	unsigned x = 7;
	int64_t t = 0;
	for (int i = 0; i < 600; i++) {
		x = x * 1103515245u + 12345u;
		int64_t d = (int64_t)(x >> 20 & 63) * US / 8;
		uint32_t k = ev(&f, f.stream, (x >> 8) & 1 ? "gemm" : "relu", TC_OP_KERNEL, t, d);
		if ((x >> 9) & 1) {
			uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME, t - 20 * US,
				5 * US);
			tc_model_add_flow(f.m, r, k, TC_FLOW_LAUNCH, (uint64_t)i + 1);
		}
		/* Nested on the second stream, an instant now and then. */
		ev(&f, f.stream2, "outer", TC_OP_KERNEL, t, d + 2 * US);
		ev(&f, f.stream2, "inner", TC_OP_KERNEL, t + US, (x >> 10) & 1 ? 0 : US / 2);
		if ((x >> 11) & 3) {
			ev(&f, copies, "Memcpy HtoD", TC_OP_MEMCPY_H2D, t + US, 3 * US);
		}
		t += d + (int64_t)(x >> 13 & 7) * US;
	}
	tc_model_finalize(f.m);
	char *one = analysis_outputs(f.m, 1), *two = analysis_outputs(f.m, 2);
	ck_assert_msg(strcmp(one, two) == 0, "output differs with a second thread");
	free(one);
	free(two);
	tc_model_destroy(f.m);
}
END_TEST

/* One device, many steps over few events: its runs are listed whole and
 * two threads attribute half the steps each, where one thread reads them
 * step by step. Steps that hold host work, runtime calls, idle time or
 * nothing at all, and kernels that cross step ends, come out alike. */
START_TEST(breakdown_steps_two_threads) {
	struct fx f = fx_new();
	const int n_steps = 100;
	unsigned x = 3;
	for (int s = 0; s < n_steps; s++) {
		int64_t at = s * MS;
		step(&f, s + 1, at, MS);
		x = x * 1103515245u + 12345u;
		if (s % 7 == 3) {
			continue; /* no device work */
		}
		int64_t t = at + (int64_t)(x >> 12 & 15) * 10 * US;
		for (int k = 0; k < 1 + (int)(x >> 20 & 7); k++) {
			x = x * 1103515245u + 12345u;
			int64_t d = (int64_t)(x >> 8 & 63) * 5 * US;
			uint32_t kern = ev(&f, f.stream, (x >> 14) & 1 ? "gemm" : "relu", TC_OP_KERNEL,
				t, d);
			if ((x >> 15) & 1) {
				uint32_t r = ev(&f, f.thread, "cudaLaunchKernel", TC_OP_RUNTIME,
					t - 30 * US, 10 * US);
				tc_model_add_flow(f.m, r, kern, TC_FLOW_LAUNCH, (uint64_t)(s * 16 + k + 1));
			} else {
				ev(&f, f.thread, "aten::add", TC_OP_HOST_OP, t + d, 20 * US);
			}
			t += d + (int64_t)(x >> 17 & 7) * 20 * US;
		}
	}
	tc_model_finalize(f.m);
	char *one = analysis_outputs(f.m, 1), *two = analysis_outputs(f.m, 2);
	/* Not ck_assert_str_eq: Check cannot carry outputs this long. */
	ck_assert_msg(strcmp(one, two) == 0, "output differs with a second thread");
	ck_assert_ptr_nonnull(strstr(one, "\"steps\""));
	free(one);
	free(two);
	struct tc_analysis a;
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.threads = 2;
	tc_analyze(f.m, &o, TC_AN_BREAKDOWN, &a);
	ck_assert_uint_eq(a.n_steps, (size_t)n_steps);
	tc_analysis_finish(&a);
	tc_model_destroy(f.m);
}
END_TEST

/*
 * The attribution's contract on a real input: every device's every step is
 * split exactly (the categories sum to the step's duration), and one
 * device's findings never explain more than its counted step time.
 */
static void invariants(const char *path) {
	struct tc_error err;
	struct tc_model *m = tc_test_try_load(path, &err);
	if (!m) {
		return;
	}
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	for (size_t i = 0; i < a.n_steps; i++) {
		int64_t sum = 0;
		for (int c = 0; c < TC_BD_COUNT; c++) {
			ck_assert_msg(a.steps[i].cat_ps[c] >= 0, "%s: step %zu negative", path, i);
			sum += a.steps[i].cat_ps[c];
		}
		ck_assert_msg(sum == a.steps[i].dur_ps, "%s: step %zu sums to %lld of %lld", path, i,
			(long long)sum, (long long)a.steps[i].dur_ps);
	}
	for (size_t k = 0; k < a.n_attr; k++) {
		const struct tc_dev_attr *at = &a.attr[k];
		for (size_t i = 0; i < a.n_steps; i++) {
			int64_t sum = 0;
			for (int c = 0; c < TC_BD_COUNT; c++) {
				ck_assert(at->step_cat[i * TC_BD_COUNT + c] >= 0);
				sum += at->step_cat[i * TC_BD_COUNT + c];
			}
			ck_assert_msg(sum == a.steps[i].dur_ps, "%s: device %u step %zu", path,
				at->device, i);
		}
		int64_t total = 0, explained = 0;
		for (int c = 0; c < TC_BD_COUNT; c++) {
			total += at->cat_ps[c];
		}
		ck_assert_int_eq(total, at->step_ps);
		for (size_t f = 0; f < a.n_findings; f++) {
			explained += a.findings[f].device == at->device ? a.findings[f].explained_ps : 0;
		}
		ck_assert_msg(explained <= at->step_ps, "%s: findings on device %u explain %lld of "
			"%lld", path, at->device, (long long)explained, (long long)at->step_ps);
	}
	for (size_t f = 1; f < a.n_findings; f++) {
		ck_assert(a.findings[f - 1].explained_ps >= a.findings[f].explained_ps);
	}
	tc_analysis_finish(&a);
	tc_model_destroy(m);
	inputs_checked++;
}

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(attribution_invariants) {
	each_input(_i, invariants, _i ? 30 : 10);
}
END_TEST

static void walk_inputs(const char *dir, int depth, void (*fn)(const char *path)) {
	DIR *d = opendir(dir);
	if (!d) {
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_trace_name(e->d_name)) {
			continue;
		}
		char path[4096];
		int pn = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (pn < 0 || (size_t)pn >= sizeof(path)) {
			continue;
		}
		DIR *sub = depth < 4 ? opendir(path) : NULL;
		if (sub) {
			closedir(sub);
			walk_inputs(path, depth + 1, fn);
		} else {
			fn(path);
		}
	}
	closedir(d);
}

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(known_args_only_same_output) {
	each_input(_i, known_args_same, _i ? 40 : 10);
	fprintf(stderr, "known args only: %zu inputs compared\n", inputs_checked);
}
END_TEST

/* ---- real traces (the traces part: tc_test_run skips it when
 * ../shared/traces is absent) ---- */

static void near(double got, double want, double rel, const char *what) {
	double d = got - want;
	d = d < 0 ? -d : d;
	/* Plus 1e-6 absolute (1 ns when in ms): TraceLens's float noise on a
	 * near-zero idle time is larger than any relative bar. */
	double tol = rel * (want < 0 ? -want : want) + 1e-6;
	ck_assert_msg(d <= tol, "%s: got %.9f, want %.9f", what, got, want);
}

/* TraceLens gpu_timeline (GOLD.md), ms: computation, busy, total. The
 * qwen trace is measured inside its ProfilerStep (a GPU step marker); the
 * others cover the whole GPU timeline. */
static const struct {
	const char *file;
	double comp, busy, total;
	bool in_step;
} tracelens[] = {
	{ "json/tracelens/h100-qwen1.5-0.5b-chat.json.gz", 31.903115234375, 31.905483154296874,
		34.8924189453125, true },
	{ "json/tracelens/h100-falconsai_nsfw.json.gz", 1.225308837890625, 1.225308837890625,
		7.559843994140625, false },
	{ "json/tracelens/h100-bert-small.json.gz", 0.30719775390625, 0.309437744140625,
		3.907824951171875, false },
	{ "json/tracelens/mi210-gpu_only.json.gz", 5.3433701171875, 5.3433701171875,
		5.9795029296875, false },
	{ "json/tracelens/mi300-torch_compile_triton.json.gz", 12.54902099609375,
		12.54902099609375, 12.5490322265625, false },
};

START_TEST(gold_tracelens_gpu_timeline) {
	struct tc_model *m = load(tracelens[_i].file);
	double comp, busy, total;
	if (tracelens[_i].in_step) {
		/* TraceLens measured inside Kineto's GPU-side ProfilerStep#6, the
		 * span of the GPU work the step launched. The steps are the host
		 * ProfilerStep#6 extended to that work (as TBP does), so they hold
		 * the GPU span. */
		struct tc_analysis_opts o;
		tc_analysis_opts_init(&o);
		struct tc_analysis a;
		tc_analyze(m, &o, TC_AN_FINDINGS, &a);
		ck_assert_str_eq(a.steps_source, "host markers");
		ck_assert_uint_eq(a.n_steps, 1);
		ck_assert_int_eq(a.steps[0].num, 6);
		int64_t lo = -1, hi = -1;
		uint32_t gpu = TC_NONE;
		for (size_t t = 0; t < m->n_tracks; t++) {
			const struct tc_track *tr = &m->tracks[t];
			if (tr->device >= m->n_devices || m->devices[tr->device].kind == TC_DEV_CPU) {
				continue;
			}
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				if (m->ops[m->ev.op[i]].kind == TC_OP_STEP && m->ev.dur[i] > 0) {
					ck_assert_int_eq(lo, -1);
					lo = m->ev.start[i];
					hi = lo + m->ev.dur[i];
					gpu = tr->device;
				}
			}
		}
		ck_assert_int_ge(lo, 0);
		/* To the last GPU op's end: the marker's own end rounds up. */
		ck_assert_int_le(a.steps[0].start_ps, lo);
		ck_assert_int_ge(a.steps[0].start_ps + a.steps[0].dur_ps, hi - US);
		tc_analysis_finish(&a);
		struct tc_device_tracks dt;
		tc_device_tracks_init(&dt, m);
		size_t nt;
		uint32_t *tr = tc_device_work_tracks(m, &dt, gpu, &nt);
		tc_device_tracks_finish(&dt);
		struct tc_ivals all = { 0 }, cv = { 0 };
		tc_ivals_union_tracks(m, tr, nt, NULL, NULL, &all);
		tc_ivals_union_kinds(m, tr, nt, TC_KINDS_DEVICE_COMPUTE, &cv);
		free(tr);
		comp = (double)tc_ivals_length_in(&cv, lo, hi) / 1e9;
		busy = (double)tc_ivals_length_in(&all, lo, hi) / 1e9;
		total = (double)(hi - lo) / 1e9;
		tc_ivals_finish(&all);
		tc_ivals_finish(&cv);
	} else {
		struct tc_summary s;
		tc_analyze_summary(m, &s);
		const struct tc_device_summary *d = NULL;
		for (size_t i = 0; i < s.n_devices; i++) {
			if (m->devices[s.devices[i].device].kind != TC_DEV_CPU) {
				ck_assert_ptr_null(d);
				d = &s.devices[i];
			}
		}
		ck_assert_ptr_nonnull(d);
		comp = (double)d->computation_ps / 1e9;
		busy = (double)d->busy_ps / 1e9;
		total = (double)d->span_ps / 1e9;
		tc_summary_finish(&s);
	}
	near(comp, tracelens[_i].comp, 1e-3, "computation ms");
	near(busy, tracelens[_i].busy, 1e-3, "busy ms");
	near(total, tracelens[_i].total, 1e-3, "total ms");
	near(total - busy, tracelens[_i].total - tracelens[_i].busy, 1e-3, "idle ms");
	tc_model_destroy(m);
}
END_TEST

START_TEST(trace_hta_steps) {
	/* GOLD.md: base has iterations 1009-1010; ProfilerStep#1010 is 122,149 us. */
	struct tc_model *m = load("json/hta/trace_compare__base__base.json.gz");
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert_str_eq(a.steps_source, "host markers");
	ck_assert_uint_eq(a.n_steps, 2);
	ck_assert_int_eq(a.steps[0].num, 1009);
	ck_assert_int_eq(a.steps[1].num, 1010);
	ck_assert_int_eq(a.steps[1].marker_dur_ps, 122149LL * US);
	/* Aligned as TBP does: step 1009's device work runs past its marker,
	 * so 1010 starts where that work ends and is 5.021 ms shorter. */
	ck_assert_int_gt(a.steps[0].dur_ps, a.steps[0].marker_dur_ps);
	ck_assert_int_eq(a.steps[1].start_ps, a.steps[0].start_ps + a.steps[0].dur_ps);
	ck_assert_int_eq(a.steps[1].dur_ps, 117128LL * US);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

START_TEST(trace_tpu_roofline) {
	struct tc_model *m = load("xplane/xprof-tpu_inference_2.xplane.pb");
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_op_table t;
	ck_assert(tc_test_op_table(m, &o, "name", &t));
	/* Plane stats: 918 TFLOP/s, ~1638 GB/s. */
	ck_assert_str_eq(t.peak_source, "trace");
	near(t.ridge, 918e12 / 1638e9, 2e-3, "ridge");
	size_t classified = 0, copies = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tc_op_row *r = &t.rows[i];
		const char *name = tc_model_str(m, r->name);
		/* XLA async copy halves are copies (copy-done waits for one), the
		 * all-reduce is communication: neither sits on the roofline. */
		if (strncmp(name, "copy-start", 10) == 0 || strncmp(name, "copy-done", 9) == 0) {
			ck_assert_int_eq(r->kind, TC_OP_MEMCPY_D2D);
			ck_assert_int_eq(r->bound, TC_BOUND_UNKNOWN);
			copies++;
		} else if (strcmp(name, "all-reduce") == 0) {
			ck_assert_int_eq(r->kind, TC_OP_COLLECTIVE);
			ck_assert_int_eq(r->bound, TC_BOUND_UNKNOWN);
		} else if (r->bytes > 0 && r->flops >= 0) {
			ck_assert_int_eq(r->kind, TC_OP_KERNEL);
			ck_assert_int_ne(r->bound, TC_BOUND_UNKNOWN);
			ck_assert_int_eq(r->bound, r->intensity < t.ridge ? TC_BOUND_MEMORY :
				TC_BOUND_COMPUTE);
			classified++;
		}
	}
	ck_assert_uint_eq(copies, 12);
	ck_assert_uint_gt(classified, 0);
	tc_op_table_finish(&t);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	ck_assert(a.steps_inferred);
	ck_assert_uint_gt(a.n_steps, 1);
	/* The device waits on its async copies ~97 % of the time: a transfer
	 * finding, not a memory-bound or unoptimized copy-done. */
	ck_assert_ptr_nonnull(find(&a, "transfer-bound"));
	ck_assert_ptr_null(find(&a, "memory-bound"));
	ck_assert_ptr_null(find(&a, "unoptimized-op"));
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}
END_TEST

static void rank_slots_clean(const char *path) {
	struct tc_model *m = tc_test_try_load(path, &(struct tc_error){ 0 });
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.rank_slots = true;
	struct tc_analysis a;
	if (m) {
		tc_analyze(m, &o, TC_AN_FINDINGS, &a);
		no_control_bytes(&a, path);
		tc_analysis_finish(&a);
		tc_model_destroy(m);
		inputs_checked++;
	}
}

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(finding_strings_printable) {
	each_input(_i, rank_slots_clean, _i ? 30 : 10);
}
END_TEST

int main(void) {
	Suite *s = suite_create("attribution");
	TCase *tc = tcase_create("analysis");
	tcase_add_test(tc, ivals_length_in);
	tcase_add_test(tc, breakdown_sums_to_step);
	tcase_add_test(tc, steps_explicit_range_warmup);
	tcase_add_test(tc, steps_nested_markers);
	tcase_add_test(tc, steps_host_rank_device);
	tcase_add_test(tc, steps_inferred);
	tcase_add_test(tc, steps_host_aligned);
	tcase_add_test(tc, roofline_classes);
	tcase_add_test(tc, transfer_stats);
	tcase_add_test(tc, util_overlap_and_ranking);
	tcase_add_test(tc, kernel_wait_gaps);
	tcase_add_test(tc, op_table_grouping);
	tcase_add_test(tc, async_copy_halves);
	tcase_add_test(tc, usage_streams_aside);
	tcase_add_test(tc, breakdown_steps_two_threads);
	tcase_add_loop_test(tc, known_args_only_same_output, 0, 1);
	tcase_add_loop_test(tc, attribution_invariants, 0, 1);
	tcase_add_loop_test(tc, threads_same_output, 0, 1);
	tcase_add_loop_test(tc, finding_strings_printable, 0, 1);
	suite_add_tcase(s, tc);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_add_loop_test(tt, gold_tracelens_gpu_timeline, 0,
		(int)(sizeof(tracelens) / sizeof(tracelens[0])));
	tcase_add_test(tt, trace_hta_steps);
	tcase_add_test(tt, trace_tpu_roofline);
	tcase_add_loop_test(tt, known_args_only_same_output, 1, 2);
	tcase_add_loop_test(tt, attribution_invariants, 1, 2);
	tcase_add_loop_test(tt, threads_same_output, 1, 2);
	tcase_add_loop_test(tt, finding_strings_printable, 1, 2);
	suite_add_tcase(s, tt);
	return tc_test_run(s);
}
