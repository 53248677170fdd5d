/*
 * Check suite for export: the cutting rules (window, steps, devices, top
 * ops) and the Chrome and Perfetto writers on small models.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "analysis/annotate.h"
#include "analysis/cut.h"
#include "model/annotation.h"
#include "model/selection.h"
#include "output/chrome_write.h"
#include "output/jsonw.h"
#include "output/perfetto_write.h"
#include "perfetto_trace_min.pb-c.h"
#include "tc_test.h"
#include "util/gzout.h"

#define S(m, s) tc_model_intern((m), (s))

typedef void writer_fn(FILE *f, const struct tc_model *m, const struct tc_chrome_opts *o,
	struct tc_chrome_stats *st);

/* m (with sel, or everything) written by write into memory. */
static char *write_mem(writer_fn *write, const struct tc_model *m,
		const struct tc_selection *sel, const struct tc_annotation *ann,
		struct tc_chrome_stats *st, size_t *len) {
	struct tc_selection all;
	if (!sel) {
		tc_selection_init(&all, m);
		sel = &all;
	}
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct tc_chrome_opts o = { .sel = sel, .ann = ann, .generator = "test" };
	struct tc_chrome_stats local;
	write(f, m, &o, st ? st : &local);
	fclose(f);
	if (sel == &all) {
		tc_selection_finish(&all);
	}
	return buf;
}

/* The Chrome export of m as a string. */
static char *export_str(const struct tc_model *m, const struct tc_selection *sel,
		const struct tc_annotation *ann, struct tc_chrome_stats *st) {
	size_t len;
	return write_mem(tc_write_chrome, m, sel, ann, st, &len);
}

/* A GPU stream with a kernel, a host thread launching it, a counter. */
static struct tc_model *tiny(void) {
	struct tc_model *m = tc_model_create();
	uint32_t gpu = tc_model_add_device(m, S(m, "GPU 0"), TC_DEV_GPU);
	uint32_t cpu = tc_model_add_device(m, S(m, "python (pid 1)"), TC_DEV_CPU);
	uint32_t st = tc_model_add_track(m, gpu, S(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t th = tc_model_add_track(m, cpu, S(m, "main"), TC_TRACK_HOST_THREAD, 1);
	m->tracks[th].sort = 3;
	uint32_t k = tc_model_op(m, S(m, "gemm"), S(m, "kernel"), TC_OP_KERNEL);
	m->ops[k].flops = 1000;
	uint32_t l = tc_model_op(m, S(m, "cudaLaunchKernel"), 0, TC_OP_RUNTIME);
	uint32_t mk = tc_model_op(m, S(m, "mark"), 0, TC_OP_OTHER);
	uint32_t el = tc_model_add_event(m, th, l, 0, 1500000, 0);
	uint32_t ek = tc_model_add_event(m, st, k, 2000000, 3000001, 0);
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, S(m, "grid"), -4);
	tc_model_arg_str(m, S(m, "q\"k"), S(m, "a\nb"));
	tc_model_arg_double(m, S(m, "occ"), 0.1);
	tc_model_arg_double(m, S(m, "bad"), NAN);
	tc_model_arg_bool(m, S(m, "ok"), true);
	tc_model_arg_int(m, S(m, "grid"), 5); /* a repeated key is written once */
	tc_model_set_event_args(m, ek, tc_model_args_end(m, a));
	tc_model_add_event(m, st, mk, 9000000, 0, TC_EV_INSTANT);
	uint32_t c = tc_model_counter(m, gpu, S(m, "mem"), S(m, "bytes"), S(m, "alloc"));
	tc_model_add_sample(m, c, 1000000, 10);
	tc_model_add_sample(m, c, 5000000, 20.5);
	tc_model_add_flow(m, el, ek, TC_FLOW_LAUNCH, 77);
	tc_model_finalize(m);
	return m;
}

static const char tiny_json[] =
	"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
	"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"GPU 0\",\"tracectl_kind\":\"gpu\"}},\n"
	"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":0}},\n"
	"{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"python (pid 1)\",\"tracectl_kind\":\"cpu\"}},\n"
	"{\"ph\":\"M\",\"pid\":2,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":1}},\n"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"stream 7\",\"tracectl_kind\":\"stream\"}},\n"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":0}},\n"
	"{\"ph\":\"M\",\"pid\":2,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"main\",\"tracectl_kind\":\"host_thread\"}},\n"
	"{\"ph\":\"M\",\"pid\":2,\"tid\":1,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":3}},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3.000001,\"name\":\"gemm\",\"cat\":\"kernel\","
	"\"args\":{\"grid\":-4,\"q\\\"k\":\"a\\nb\",\"occ\":0.1,\"bad\":null,\"ok\":true,"
	"\"op_kind\":\"kernel\",\"flops\":1000}},\n"
	"{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":9,\"s\":\"t\",\"name\":\"mark\",\"cat\":\"other\","
	"\"args\":{\"op_kind\":\"other\"}},\n"
	"{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":0,\"dur\":1.5,\"name\":\"cudaLaunchKernel\","
	"\"cat\":\"cuda_runtime\",\"args\":{\"op_kind\":\"runtime\"}},\n"
	"{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"mem (alloc)\",\"args\":{\"value\":10}},\n"
	"{\"ph\":\"C\",\"pid\":1,\"ts\":5,\"name\":\"mem (alloc)\",\"args\":{\"value\":20.5}},\n"
	"{\"ph\":\"s\",\"id\":1,\"pid\":2,\"tid\":1,\"ts\":0,\"name\":\"launch\",\"cat\":\"flow\"},\n"
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":2,\"name\":\"launch\",\"cat\":\"flow\","
	"\"bp\":\"e\"}\n"
	"],\n"
	"\"otherData\":{\"generator\":\"test\",\"time_note\":\"ts and dur are microseconds; "
	"ts 0 is the trace start, whose absolute time in ns is ts_zero_ns = origin_ns + "
	"ts_zero_ps / 1000\",\"origin_ns\":0,\"origin_epoch\":false,\"ts_zero_ps\":0,"
	"\"ts_zero_ns\":0,\"sources\":[],\"events_in_trace\":3,\"written\":{\"slices\":2,"
	"\"instants\":1,\"counter_samples\":2,\"flows\":1,\"annotation_marks\":0},\"cuts\":[],"
	"\"aggregated_events\":0,\"warnings\":[]}}\n";

/* JSON strings are exact: controls, DEL and C1 as \u00XX, printable UTF-8 raw,
 * each byte of invalid UTF-8 as U+FFFD; nothing escaped twice. */
START_TEST(json_escape_controls) {
	static const char in[] = "a\033[2J\177\302\233\302\240\r\n\t\"\\\377\302µ計";
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	tc_json_escape(f, in, sizeof(in) - 1);
	fclose(f);
	ck_assert_str_eq(mem, "a\\u001b[2J\\u007f\\u009b\302\240\\r\\n\\t\\\"\\\\\\ufffd\\ufffdµ計");
	free(mem);
}
END_TEST

START_TEST(tiny_exact) {
	struct tc_model *m = tiny();
	char *out = export_str(m, NULL, NULL, NULL);
	ck_assert_str_eq(out, tiny_json);
	free(out);
	tc_model_destroy(m);
}
END_TEST

/* A model with one device, "TPU 0", and its ops line *t. */
static struct tc_model *tpu_line(int64_t origin_ns, uint32_t *t) {
	struct tc_model *m = tc_model_create();
	m->origin_ns = origin_ns;
	uint32_t d = tc_model_add_device(m, S(m, "TPU 0"), TC_DEV_TPU);
	*t = tc_model_add_track(m, d, S(m, "XLA Ops"), TC_TRACK_OPS, 1);
	return m;
}

/* Times far from zero keep every picosecond; ts 0 is the first event. */
START_TEST(exact_times) {
	uint32_t t;
	struct tc_model *m = tpu_line(1741722099081044120, &t);
	uint32_t op = tc_model_op(m, S(m, "fusion"), 0, TC_OP_KERNEL);
	tc_model_add_event(m, t, op, 482851900001, 7, 0);
	tc_model_add_event(m, t, op, 482851900001 + 123456789012345678, 1000000000000, 0);
	tc_model_finalize(m);
	char *out = export_str(m, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"ts\":0,\"dur\":0.000007,"));
	ck_assert_ptr_nonnull(strstr(out, "\"ts\":123456789012.345678,\"dur\":1000000,"));
	ck_assert_ptr_nonnull(strstr(out, "\"ts_zero_ps\":482851900001,"
		"\"ts_zero_ns\":1741722099563896020.001,"));
	free(out);
	tc_model_destroy(m);
}
END_TEST

/* A step line (steps 0..3, 100 ps each, 10 ps apart) over an op line. */
static struct tc_model *stepped(void) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, S(m, "/device:GPU:0"), TC_DEV_GPU);
	uint32_t d2 = tc_model_add_device(m, S(m, "/device:GPU:1"), TC_DEV_GPU);
	uint32_t steps = tc_model_add_track(m, d, S(m, "Steps"), TC_TRACK_STEPS, 1);
	uint32_t ops = tc_model_add_track(m, d, S(m, "XLA Ops"), TC_TRACK_OPS, 2);
	uint32_t ops2 = tc_model_add_track(m, d2, S(m, "XLA Ops"), TC_TRACK_OPS, 2);
	uint32_t sop = tc_model_op(m, S(m, "train_step"), 0, TC_OP_STEP);
	uint32_t big = tc_model_op(m, S(m, "big"), 0, TC_OP_KERNEL);
	uint32_t small = tc_model_op(m, S(m, "small"), 0, TC_OP_KERNEL);
	uint32_t fus = tc_model_op(m, S(m, "fusion"), 0, TC_OP_KERNEL);
	for (int k = 0; k < 4; k++) {
		int64_t t0 = k * 110;
		uint32_t e = tc_model_add_event(m, steps, sop, t0, 100, 0);
		uint32_t a = tc_model_args_begin(m);
		tc_model_arg_int(m, m->key.step, 10 + k);
		tc_model_set_event_args(m, e, tc_model_args_end(m, a));
		/* fusion [t0, t0+90) encloses big (50) and small (5); small alone
		 * after. */
		tc_model_add_event(m, ops, fus, t0, 90, 0);
		tc_model_add_event(m, ops, big, t0, 50, 0);
		tc_model_add_event(m, ops, small, t0 + 60, 5, 0);
		tc_model_add_event(m, ops, small, t0 + 95, 2, 0);
		tc_model_add_event(m, ops2, small, t0, 1, 0);
	}
	tc_model_finalize(m);
	return m;
}

static size_t kept_of_op(const struct tc_model *m, const struct tc_selection *s,
		const char *name) {
	size_t n = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (tc_selection_has(s, i) && strcmp(tc_model_str(m, m->ops[m->ev.op[i]].name),
				name) == 0) {
			n++;
		}
	}
	return n;
}

START_TEST(cut_steps_window_device) {
	struct tc_model *m = stepped();
	struct tc_selection s;
	struct tc_error err;
	tc_error_init(&err);
	tc_selection_init(&s, m);
	ck_assert_uint_eq(s.n_kept, 24);
	/* Steps 11..12 span [110, 320]. */
	ck_assert(tc_cut_steps(m, &s, 11, 12, "--steps 11:12", &err));
	ck_assert_uint_eq(s.n_kept, 12);
	ck_assert_int_eq(s.notes[0].lo_ps, 110);
	ck_assert_int_eq(s.notes[0].hi_ps, 320);
	ck_assert_uint_eq(s.notes[0].dropped, 12);
	ck_assert(tc_cut_devices(m, &s, (const char *const[]){ "GPU:1" }, 1, "--device GPU:1",
		&err));
	ck_assert_uint_eq(s.n_kept, 2);
	ck_assert_uint_eq(s.notes[1].dropped, 10);
	ck_assert(!tc_selection_device(&s, m, 0));
	tc_selection_finish(&s);

	tc_selection_init(&s, m);
	ck_assert(!tc_cut_steps(m, &s, 20, 30, "--steps 20:30", &err));
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	ck_assert_str_eq(err.msg,
		"--steps 20:30: no step in that range (the trace has steps 10 to 13)");
	tc_error_init(&err);
	ck_assert(!tc_cut_devices(m, &s, (const char *const[]){ "TPU" }, 1, "--device TPU",
		&err));
	ck_assert_int_eq(err.code, TC_EXIT_USAGE);
	/* Window [0, 100]: step 10's events and GPU:1's first. */
	tc_cut_window(m, &s, 0, 100, "--window 0:100ps");
	ck_assert_uint_eq(s.n_kept, 6);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}
END_TEST

static struct tc_model *gpu_and_host(uint32_t *gpu, uint32_t *cpu) {
	struct tc_model *m = tc_model_create();
	*gpu = tc_model_add_device(m, S(m, "GPU 0"), TC_DEV_GPU);
	*cpu = tc_model_add_device(m, S(m, "host"), TC_DEV_CPU);
	return m;
}

/* Finalize m, cut it to --steps 1, check the window and the events kept,
 * and destroy it. */
static void cut_step_1(struct tc_model *m, int64_t lo, int64_t hi, size_t kept) {
	tc_model_finalize(m);
	struct tc_selection s;
	struct tc_error err;
	tc_error_init(&err);
	tc_selection_init(&s, m);
	ck_assert(tc_cut_steps(m, &s, 1, 1, "--steps 1", &err));
	ck_assert_int_eq(s.notes[0].lo_ps, lo);
	ck_assert_int_eq(s.notes[0].hi_ps, hi);
	ck_assert_uint_eq(s.n_kept, kept);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}

/* Host markers numbered differently do not widen a device step window. */
START_TEST(cut_steps_device_markers_win) {
	uint32_t gpu, cpu;
	struct tc_model *m = gpu_and_host(&gpu, &cpu);
	uint32_t gs = tc_model_add_track(m, gpu, S(m, "Steps"), TC_TRACK_STEPS, 1);
	uint32_t hs = tc_model_add_track(m, cpu, S(m, "main"), TC_TRACK_HOST_THREAD, 2);
	/* Named apart: device markers that copy the host's would lose. */
	uint32_t sop = tc_model_op(m, S(m, "step"), 0, TC_OP_STEP);
	uint32_t hop = tc_model_op(m, S(m, "host_step"), 0, TC_OP_STEP);
	for (int k = 0; k < 3; k++) {
		tc_model_add_event(m, gs, sop, k * 100, 90, 0);
		tc_model_add_event(m, hs, hop, 1000 + k * 100, 90, 0);
	}
	cut_step_1(m, 100, 190, 1);
}
END_TEST

/*
 * Host markers end before the device work they launched: --steps cuts at
 * the aligned bounds 'steps' shows, so the last step's kernel stays.
 */
START_TEST(cut_steps_keeps_device_tail) {
	uint32_t gpu, cpu;
	struct tc_model *m = gpu_and_host(&gpu, &cpu);
	uint32_t hs = tc_model_add_track(m, cpu, S(m, "main"), TC_TRACK_HOST_THREAD, 1);
	uint32_t ks = tc_model_add_track(m, gpu, S(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t sop = tc_model_op(m, S(m, "ProfilerStep#1"), 0, TC_OP_STEP);
	uint32_t lop = tc_model_op(m, S(m, "cudaLaunchKernel"), 0, TC_OP_RUNTIME);
	uint32_t kop = tc_model_op(m, S(m, "gemm"), 0, TC_OP_KERNEL);
	/* Step k: marker [k*100, k*100+50), a launch at +10, its kernel
	 * [k*100+60, k*100+90): it runs wholly past the marker. */
	for (int k = 0; k < 3; k++) {
		uint32_t e = tc_model_add_event(m, hs, sop, k * 100, 50, 0);
		uint32_t a = tc_model_args_begin(m);
		tc_model_arg_int(m, m->key.step, k);
		tc_model_set_event_args(m, e, tc_model_args_end(m, a));
		uint32_t l = tc_model_add_event(m, hs, lop, k * 100 + 10, 5, 0);
		uint32_t kk = tc_model_add_event(m, ks, kop, k * 100 + 60, 30, 0);
		tc_model_add_flow(m, l, kk, TC_FLOW_LAUNCH, (uint64_t)k + 1);
	}
	/* The step's marker, its launch and the kernel. */
	cut_step_1(m, 100, 190, 3);
}
END_TEST

START_TEST(cut_min_dur_top_ops) {
	struct tc_model *m = stepped();
	struct tc_selection s;
	tc_selection_init(&s, m);
	tc_cut_min_dur(m, &s, 5, "--min-dur 5ps");
	ck_assert_uint_eq(s.n_kept, 16); /* the 2 ps and 1 ps smalls go */
	tc_selection_finish(&s);

	/* Top 1 op by device time is fusion (4 x 90); top 2 adds big. */
	tc_selection_init(&s, m);
	tc_cut_top_ops(m, &s, 1, "--top-ops 1");
	ck_assert_uint_eq(kept_of_op(m, &s, "fusion"), 4);
	ck_assert_uint_eq(kept_of_op(m, &s, "big"), 0);
	ck_assert_uint_eq(kept_of_op(m, &s, "small"), 0);
	/* Steps enclose the fusions: kept as context. */
	ck_assert_uint_eq(kept_of_op(m, &s, "train_step"), 4);
	ck_assert_uint_eq(s.notes[0].dropped, 24 - 8);
	tc_selection_finish(&s);

	tc_selection_init(&s, m);
	tc_cut_window(m, &s, 0, 100, "w");
	tc_cut_top_ops(m, &s, 2, "--top-ops 2");
	ck_assert_uint_eq(kept_of_op(m, &s, "big"), 1);
	ck_assert_uint_eq(kept_of_op(m, &s, "fusion"), 1);
	ck_assert_uint_eq(kept_of_op(m, &s, "small"), 0);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}
END_TEST

START_TEST(cut_max_events_keeps_parents) {
	struct tc_model *m = stepped();
	struct tc_selection s;
	tc_selection_init(&s, m);
	tc_cut_max_events(m, &s, 10, "--max-events 10");
	ck_assert_uint_eq(s.n_kept, 10);
	/* Longest first: 4 steps (100), 4 fusions (90), then 2 bigs (50). */
	ck_assert_uint_eq(kept_of_op(m, &s, "train_step"), 4);
	ck_assert_uint_eq(kept_of_op(m, &s, "fusion"), 4);
	ck_assert_uint_eq(kept_of_op(m, &s, "big"), 2);
	ck_assert_uint_eq(s.notes[0].dropped, 14);
	ck_assert_int_eq(s.notes[0].lo_ps, 50);
	/* Every kept nested event has its parent. */
	for (size_t i = 0; i < m->ev.n; i++) {
		if (tc_selection_has(&s, i) && m->ev.depth[i] > 0) {
			size_t j = i;
			while (m->ev.depth[j] >= m->ev.depth[i]) {
				j--;
			}
			ck_assert(tc_selection_has(&s, j));
		}
	}
	char *out = export_str(m, &s, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"cuts\":[{\"rule\":\"--max-events 10\","
		"\"dropped_events\":14,\"threshold_us\":0.00005}]"));
	free(out);
	tc_selection_finish(&s);

	/* A cap of 1 on a nested child cannot take the child without its
	 * parent: the longest top-level event is kept. */
	tc_selection_init(&s, m);
	tc_cut_max_events(m, &s, 1, "--max-events 1");
	ck_assert_uint_eq(s.n_kept, 1);
	ck_assert_uint_eq(kept_of_op(m, &s, "train_step"), 1);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}
END_TEST

static const struct tc_ann_point *series_point(const struct tc_annotation *ann,
		const char *name, uint32_t device, size_t nth) {
	for (size_t k = 0; k < ann->n_points; k++) {
		const struct tc_ann_series *se = &ann->series[ann->points[k].series];
		if (strcmp(se->name, name) == 0 && se->device == device && nth-- == 0) {
			return &ann->points[k];
		}
	}
	return NULL;
}

START_TEST(annotate_steps) {
	struct tc_model *m = stepped();
	struct tc_selection s;
	tc_selection_init(&s, m);
	struct tc_annotation ann;
	tc_annotation_init(&ann);
	tc_annotate(m, &s, NULL, NULL, 0, &ann);
	ck_assert_str_eq(ann.tracks[0], "steps");
	size_t steps = 0;
	for (size_t k = 0; k < ann.n_marks; k++) {
		steps += ann.marks[k].track == 0;
	}
	ck_assert_uint_eq(steps, 4);
	ck_assert_str_eq(ann.marks[1].name, "step 11");
	ck_assert_int_eq(ann.marks[1].start_ps, 110);
	ck_assert_int_eq(ann.marks[1].dur_ps, 100);
	/* Per step on GPU:0: ops cover [0,90) ∪ [95,97) of [0,100) = 92 %; the
	 * breakdown has it as compute, the rest idle. GPU:1 is busy 1 %. */
	const struct tc_ann_point *p = series_point(&ann, "step device busy", 0, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->ts_ps, 110);
	ck_assert(fabs(p->value - 92.0) < 1e-9);
	p = series_point(&ann, "step device busy", 1, 0);
	ck_assert(p && fabs(p->value - 1.0) < 1e-9);
	p = series_point(&ann, "step breakdown: compute", 0, 0);
	ck_assert(p && fabs(p->value - 92.0) < 1e-9);
	p = series_point(&ann, "step breakdown: idle", 0, 0);
	ck_assert(p && fabs(p->value - 8.0) < 1e-9);
	struct tc_chrome_stats st;
	char *out = export_str(m, &s, &ann, &st);
	ck_assert_uint_eq(st.marks, ann.n_marks);
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"tracectl annotations\""));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":4,\"tid\":1,\"ts\":0.00011,"
		"\"dur\":0.0001,\"name\":\"step 11\""));
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"step breakdown: idle [%]\","
		"\"args\":{\"value\":8}"));
	free(out);
	tc_annotation_finish(&ann);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}
END_TEST

/* Write text through a gzip FILE at level; read it back with zlib. */
static void gzip_round_trip(const char *text, size_t n, int level, bool chrome,
		struct tc_model *m) {
	char path[] = "/tmp/tc-check-export-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *dst = fdopen(fd, "wb");
	struct tc_error err;
	tc_error_init(&err);
	struct tc_gzout *g = tc_gzout_open(dst, path, level, &err);
	ck_assert_ptr_nonnull(g);
	struct tc_selection s;
	if (chrome) {
		tc_selection_init(&s, m);
		struct tc_chrome_opts o = { .sel = &s, .generator = "test" };
		struct tc_chrome_stats st;
		tc_write_chrome(tc_gzout_file(g), m, &o, &st);
		tc_selection_finish(&s);
	} else {
		ck_assert_uint_eq(fwrite(text, 1, n, tc_gzout_file(g)), n);
	}
	uint64_t in = 0, out = 0;
	ck_assert(tc_gzout_close(g, &in, &out, &err));
	ck_assert_uint_eq(in, n);
	ck_assert_uint_gt(out, 0);
	fclose(dst);
	gzFile z = gzopen(path, "rb");
	ck_assert_ptr_nonnull(z);
	char *back = calloc(1, n + 100);
	int got = gzread(z, back, (unsigned)(n + 100));
	gzclose(z);
	unlink(path);
	ck_assert_int_eq(got, (int)n);
	ck_assert(memcmp(back, text, n) == 0);
	free(back);
}

/* A full disk under gzip output: the error names the output, as the
 * plain path's does (both compressors). */
START_TEST(gzip_full_disk_names_path) {
	/* A 16-byte memory stream stands for a full disk: writes past it fail. */
	static char room[16];
	FILE *dst = fmemopen(room, sizeof(room), "wb");
	ck_assert_ptr_nonnull(dst);
	const int levels[] = { TC_GZOUT_FAST, 6 };
	for (size_t k = 0; k < 2; k++) {
		struct tc_error err;
		tc_error_init(&err);
		struct tc_gzout *g = tc_gzout_open(dst, "out/trace.json.gz", levels[k], &err);
		ck_assert_ptr_nonnull(g);
		/* Enough that the compressed stream outgrows stdio's buffer. */
		for (unsigned i = 0; i < 200000; i++) {
			fprintf(tc_gzout_file(g), "%u,", i * 2654435761u);
		}
		ck_assert(!tc_gzout_close(g, NULL, NULL, &err));
		ck_assert_int_eq(err.code, TC_EXIT_OUTPUT);
		ck_assert_str_eq(err.path, "out/trace.json.gz");
		char line[1200];
		tc_error_format(&err, line, sizeof(line));
		ck_assert_msg(strncmp(line, "out/trace.json.gz: cannot write compressed output: ",
			51) == 0, "%s", line);
		clearerr(dst);
	}
	fclose(dst);
}
END_TEST

/* Both compressors (ISA-L's fast level where built in, zlib's 6): an export,
 * and 5 MB of text that crosses many 64 KiB chunks. */
START_TEST(gzip_same_bytes) {
	static const int levels[] = { TC_GZOUT_FAST, 6 };
	struct tc_model *m = stepped();
	char *plain = export_str(m, NULL, NULL, NULL);
	size_t big_n = 5u << 20;
	char *big = malloc(big_n);
	uint64_t x = 1;
	for (size_t i = 0; i < big_n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		big[i] = (char)('a' + (x >> 60) % 8 + (i / 100000) % 4);
	}
	for (size_t k = 0; k < 2; k++) {
		gzip_round_trip(plain, strlen(plain), levels[k], true, m);
		gzip_round_trip(big, big_n, levels[k], false, NULL);
	}
	free(big);
	free(plain);
	tc_model_destroy(m);
}
END_TEST

/* The Perfetto export of m. */
static unsigned char *perfetto_bytes(const struct tc_model *m, const struct tc_selection *sel,
		const struct tc_annotation *ann, struct tc_chrome_stats *st, size_t *len) {
	return (unsigned char *)write_mem(tc_write_perfetto, m, sel, ann, st, len);
}

typedef Perfetto__Protos__TracePacket Packet;

/* The interned event name iid of name in trace t (0 if none). */
static uint64_t name_iid(const Perfetto__Protos__Trace *t, const char *name) {
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__InternedData *in = t->packet[i]->interned_data;
		for (size_t k = 0; in && k < in->n_event_names; k++) {
			if (strcmp(in->event_names[k]->name, name) == 0) {
				return in->event_names[k]->iid;
			}
		}
	}
	return 0;
}

/* The index of the first track event from packet i on with the name iid,
 * type and track given (0: any), or n_packet. */
static size_t find_event(const Perfetto__Protos__Trace *t, size_t i, uint64_t name,
		int type, uint64_t track) {
	for (; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackEvent *e = t->packet[i]->track_event;
		if (t->packet[i]->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT &&
				(!name || (e->name_field_case ==
				PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID && e->name_iid == name)) &&
				(!type || (int)e->type == type) && (!track || e->track_uuid == track)) {
			break;
		}
	}
	return i;
}

/* The packet of the first event named name and its index. */
static const Packet *event_named(const Perfetto__Protos__Trace *t, const char *name,
		size_t *at) {
	*at = find_event(t, 0, name_iid(t, name), 0, 0);
	return *at < t->n_packet ? t->packet[*at] : NULL;
}

/* The next SLICE_END on track after packet i. */
static const Packet *end_after(const Perfetto__Protos__Trace *t, size_t i, uint64_t track) {
	i = find_event(t, i + 1, 0, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, track);
	return i < t->n_packet ? t->packet[i] : NULL;
}

/* Descriptor names are bytes in the schema. */
static bool bin_is(ProtobufCBinaryData b, const char *s) {
	return b.len == strlen(s) && memcmp(b.data, s, b.len) == 0;
}

static const Perfetto__Protos__TrackDescriptor *descriptor(const Perfetto__Protos__Trace *t,
		uint64_t uuid) {
	for (size_t i = 0; i < t->n_packet; i++) {
		if (t->packet[i]->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR &&
				t->packet[i]->track_descriptor->uuid == uuid) {
			return t->packet[i]->track_descriptor;
		}
	}
	return NULL;
}

/* tiny() as Perfetto, decoded with protobuf-c: descriptors, interned names,
 * times in ns, args, a flow and a counter. */
START_TEST(perfetto_tiny) {
	struct tc_model *m = tiny();
	size_t len;
	struct tc_chrome_stats st;
	unsigned char *buf = perfetto_bytes(m, NULL, NULL, &st, &len);
	ck_assert_uint_eq(st.slices, 2);
	ck_assert_uint_eq(st.instants, 1);
	ck_assert_uint_eq(st.samples, 2);
	ck_assert_uint_eq(st.flows, 1);
	Perfetto__Protos__Trace *t = perfetto__protos__trace__unpack(NULL, len, buf);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->packet[0]->sequence_flags, 1); /* state cleared */
	size_t gi, li, mi;
	const Packet *g = event_named(t, "gemm", &gi);
	const Packet *l = event_named(t, "cudaLaunchKernel", &li);
	const Packet *mk = event_named(t, "mark", &mi);
	ck_assert(g && l && mk);
	ck_assert_uint_eq(g->timestamp, 2000);
	ck_assert_uint_eq(end_after(t, gi, g->track_event->track_uuid)->timestamp, 5000);
	ck_assert_uint_eq(g->sequence_flags, 2); /* needs the interning */
	ck_assert_int_eq(mk->track_event->type, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT);
	/* The stream keeps its name under the GPU process; the host thread is
	 * a thread of the CPU process with its sort index. */
	const Perfetto__Protos__TrackDescriptor *gs = descriptor(t, g->track_event->track_uuid);
	ck_assert(bin_is(gs->name, "stream 7"));
	ck_assert(bin_is(descriptor(t, gs->parent_uuid)->process->process_name, "GPU 0"));
	const Perfetto__Protos__TrackDescriptor *lt = descriptor(t, l->track_event->track_uuid);
	ck_assert(bin_is(lt->thread->thread_name, "main"));
	ck_assert_int_eq(lt->thread->pid, 2);
	ck_assert_int_eq(lt->sibling_order_rank, 3);
	/* The kernel is written first but is the later end: both ends carry the
	 * id in flow_ids (viewers order the ends by time). */
	ck_assert_uint_eq(l->track_event->n_flow_ids, 1);
	ck_assert_uint_eq(g->track_event->n_flow_ids, 1);
	ck_assert_uint_eq(l->track_event->flow_ids[0], g->track_event->flow_ids[0]);
	/* grid once (the first), the string arg, op_kind, flops. */
	const Perfetto__Protos__TrackEvent *ge = g->track_event;
	size_t n_int = 0, n_sval = 0;
	for (size_t k = 0; k < ge->n_debug_annotations; k++) {
		n_int += ge->debug_annotations[k]->value_case ==
			PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
		n_sval += ge->debug_annotations[k]->value_case ==
			PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
	}
	ck_assert_uint_eq(ge->n_debug_annotations, 7);
	ck_assert_uint_eq(n_int, 2);
	ck_assert_uint_eq(n_sval, 2);
	/* Counter samples on a counter track named with its group. */
	size_t n_counter = 0;
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TrackEvent *e = t->packet[i]->track_event;
		if (t->packet[i]->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT &&
				e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER) {
			const Perfetto__Protos__TrackDescriptor *cd = descriptor(t, e->track_uuid);
			ck_assert(bin_is(cd->name, "mem (alloc)"));
			ck_assert(bin_is(cd->counter->unit_name, "bytes"));
			n_counter++;
		}
	}
	ck_assert_uint_eq(n_counter, 2);
	perfetto__protos__trace__free_unpacked(t, NULL);
	free(buf);
	tc_model_destroy(m);
}
END_TEST

/* Slices that overlap without nesting cannot share a track: the second
 * goes on an extra one, and the trace reads back with both whole. An ops
 * line not named as device work is marked for the reader. */
START_TEST(perfetto_overlap_round_trip) {
	uint32_t t;
	struct tc_model *m = tpu_line(1000, &t);
	/* op, start, dur: b overlaps a without nesting; c fits in a's time
	 * (a's lane); the last a lasts 1.4 ns, written as 1 ns. */
	static const int64_t evs[][3] = {
		{ 0, 0, 10000 }, { 1, 5000, 10000 }, { 2, 6000, 1000 }, { 0, 20000, 1400 },
	};
	uint32_t ops[3];
	for (int k = 0; k < 3; k++) {
		char name[2] = { (char)('a' + k), 0 };
		ops[k] = tc_model_op(m, S(m, name), 0, TC_OP_KERNEL);
	}
	for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
		tc_model_add_event(m, t, ops[evs[k][0]], evs[k][1], evs[k][2], 0);
	}
	tc_model_finalize(m);
	size_t len;
	unsigned char *buf = perfetto_bytes(m, NULL, NULL, NULL, &len);
	Perfetto__Protos__Trace *pt = perfetto__protos__trace__unpack(NULL, len, buf);
	ck_assert_ptr_nonnull(pt);
	size_t ai, bi, ci;
	const Packet *pa = event_named(pt, "a", &ai), *pb = event_named(pt, "b", &bi);
	const Packet *pc = event_named(pt, "c", &ci);
	ck_assert_uint_eq(pa->timestamp, 1000);
	ck_assert_uint_ne(pa->track_event->track_uuid, pb->track_event->track_uuid);
	ck_assert_uint_eq(pa->track_event->track_uuid, pc->track_event->track_uuid);
	ck_assert(bin_is(descriptor(pt, pa->track_event->track_uuid)->name, "XLA Ops (stream)"));
	perfetto__protos__trace__free_unpacked(pt, NULL);
	const char *path = tc_test_tmpfile(buf, len);
	struct tc_model *back = tc_test_load(path);
	unlink(path);
	ck_assert_uint_eq(back->ev.n, 4);
	ck_assert_uint_eq(back->n_warnings, 0);
	int64_t total[3] = { 0 };
	for (size_t i = 0; i < back->ev.n; i++) {
		const char *name = tc_model_str(back, tc_model_event_op(back, i)->name);
		total[name[0] - 'a'] += back->ev.dur[i];
		ck_assert(tc_track_kind_is_device_work(
			(enum tc_track_kind)tc_test_track_of(back, i)->kind));
	}
	ck_assert_int_eq(total[0], 11000);
	ck_assert_int_eq(total[1], 10000);
	ck_assert_int_eq(total[2], 1000);
	free(buf);
	tc_model_destroy(back);
	tc_model_destroy(m);
}
END_TEST

/* --annotate's marks and counters come out too; marks overlapping on one
 * track are split over lanes, and every packet decodes. */
START_TEST(perfetto_annotate) {
	struct tc_annotation ann;
	tc_annotation_init(&ann);
	struct tc_model *m = stepped();
	struct tc_selection s;
	tc_selection_init(&s, m);
	tc_annotate(m, &s, NULL, NULL, 0, &ann);
	uint32_t extra = tc_annotation_track(&ann, "overlaps");
	tc_annotation_mark(&ann, extra, 0, 100, "x", "why", "info");
	tc_annotation_mark(&ann, extra, 50, 100, "y", NULL, NULL);
	struct tc_chrome_stats st;
	size_t len;
	unsigned char *buf = perfetto_bytes(m, &s, &ann, &st, &len);
	ck_assert_uint_eq(st.marks, ann.n_marks);
	Perfetto__Protos__Trace *t = perfetto__protos__trace__unpack(NULL, len, buf);
	ck_assert_ptr_nonnull(t);
	size_t named = 0, threads_named_overlaps = 0;
	for (size_t i = 0; i < t->n_packet; i++) {
		const Packet *p = t->packet[i];
		if (p->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT &&
				p->track_event->name_field_case ==
				PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME) {
			named++;
		}
		if (p->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR &&
				p->track_descriptor->thread &&
				bin_is(p->track_descriptor->thread->thread_name, "overlaps")) {
			threads_named_overlaps++;
		}
	}
	ck_assert_uint_eq(named, ann.n_marks);
	ck_assert_uint_eq(threads_named_overlaps, 2);
	perfetto__protos__trace__free_unpacked(t, NULL);
	free(buf);
	tc_annotation_finish(&ann);
	tc_selection_finish(&s);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, tiny_exact);
	tcase_add_test(tc, json_escape_controls);
	tcase_add_test(tc, exact_times);
	tcase_add_test(tc, cut_steps_window_device);
	tcase_add_test(tc, cut_steps_device_markers_win);
	tcase_add_test(tc, cut_steps_keeps_device_tail);
	tcase_add_test(tc, cut_min_dur_top_ops);
	tcase_add_test(tc, cut_max_events_keeps_parents);
	tcase_add_test(tc, annotate_steps);
	tcase_add_test(tc, gzip_same_bytes);
	tcase_add_test(tc, gzip_full_disk_names_path);
	tcase_add_test(tc, perfetto_tiny);
	tcase_add_test(tc, perfetto_overlap_round_trip);
	tcase_add_test(tc, perfetto_annotate);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
