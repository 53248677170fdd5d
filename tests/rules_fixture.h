#ifndef TC_TESTS_RULES_FIXTURE_H
#define TC_TESTS_RULES_FIXTURE_H

/*
 * Small models built with the model API, for the suites of the bottleneck
 * rules (check_rules.c) and of the analysis they read
 * (check_attribution.c): a host thread and a GPU with two streams and a
 * steps track, events and steps on them, the analysis with its findings,
 * and the checks both suites make of a finding. Header only: each suite
 * is one program.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "analysis/analyze.h"
#include "tc_test.h"

#define US 1000000LL /* ps per microsecond */
#define MS (1000 * US)

struct fx {
	struct tc_model *m;
	uint32_t gpu, cpu, stream, stream2, thread, dev_steps;
};

static inline struct fx fx_new(void) {
	struct fx f;
	f.m = tc_model_create();
	struct tc_model *m = f.m;
	tc_model_add_host(m, tc_model_intern(m, "node0"), TC_NONE);
	f.cpu = tc_model_add_device(m, tc_model_intern(m, "python (pid 1)"), TC_DEV_CPU);
	f.gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	f.thread = tc_model_add_track(m, f.cpu, tc_model_intern(m, "thread 1"), TC_TRACK_HOST_THREAD, 1);
	f.stream = tc_model_add_track(m, f.gpu, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	f.stream2 = tc_model_add_track(m, f.gpu, tc_model_intern(m, "stream 8"), TC_TRACK_STREAM, 8);
	f.dev_steps = tc_model_add_track(m, f.gpu, tc_model_intern(m, "Steps"), TC_TRACK_STEPS, 9);
	return f;
}

static inline uint32_t ev(struct fx *f, uint32_t track, const char *name, enum tc_op_kind kind,
		int64_t start, int64_t dur) {
	uint32_t op = tc_model_op(f->m, tc_model_intern(f->m, name), 0, kind);
	return tc_model_add_event(f->m, track, op, start, dur, 0);
}

static inline void ev_arg_int(struct fx *f, uint32_t e, uint32_t key, int64_t v) {
	uint32_t a = tc_model_args_begin(f->m);
	tc_model_arg_int(f->m, key, v);
	tc_model_set_event_args(f->m, e, tc_model_args_end(f->m, a));
}

static inline void step(struct fx *f, int64_t num, int64_t start, int64_t dur) {
	uint32_t e = ev(f, f->thread, "ProfilerStep", TC_OP_STEP, start, dur);
	ev_arg_int(f, e, f->m->key.step, num);
}

static inline void analyze(struct fx *f, struct tc_analysis *a) {
	tc_model_finalize(f->m);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	tc_analyze(f->m, &o, TC_AN_FINDINGS, a);
}

static inline const struct tc_finding *find(const struct tc_analysis *a, const char *kind) {
	for (size_t i = 0; i < a->n_findings; i++) {
		if (strcmp(a->findings[i].kind, kind) == 0) {
			return &a->findings[i];
		}
	}
	return NULL;
}

/* Build, analyze, and report whether the rule fired. */
static inline bool fires(struct fx *f, const char *kind, enum tc_severity *sev) {
	struct tc_analysis a;
	analyze(f, &a);
	const struct tc_finding *fd = find(&a, kind);
	if (fd && sev) {
		*sev = (enum tc_severity)fd->severity;
	}
	if (fd) {
		ck_assert_ptr_nonnull(fd->text);
		ck_assert_ptr_nonnull(fd->suggestion);
	}
	bool r = fd != NULL;
	tc_analysis_finish(&a);
	tc_model_destroy(f->m);
	return r;
}

/* Roofline: device peaks 100 TFLOP/s, 1 TB/s, ridge 100 FLOP/B. */
static inline void roofline_ops(struct fx *f, int64_t mem_ps, int64_t comp_ps, int64_t mem_flops) {
	f->m->devices[f->gpu].peak_flops = 100e12;
	f->m->devices[f->gpu].peak_bw = 1e12;
	uint32_t e = ev(f, f->stream, "elementwise", TC_OP_KERNEL, 0, mem_ps);
	uint32_t o = f->m->ev.op[e];
	f->m->ops[o].flops = mem_flops;
	f->m->ops[o].bytes = mem_flops;
	e = ev(f, f->stream, "matmul", TC_OP_KERNEL, mem_ps, comp_ps);
	o = f->m->ev.op[e];
	/* 50 GFLOP per call at intensity 5000: efficient and compute-bound. */
	f->m->ops[o].flops = 50000000000LL;
	f->m->ops[o].bytes = 10000000;
}

/* A real trace that does not read, an unrecognised format included, is a
 * failure: a sniffer regression must not pass as a skip. */
static inline struct tc_model *load(const char *rel) {
	return tc_test_load_trace(rel);
}

/* No finding string holds a byte under 0x20: a rank's slots and spread
 * are fields (tc_finding.slot, spread_at), not marks in its text. */
static inline void no_control_bytes(const struct tc_analysis *a, const char *what) {
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *f = &a->findings[i];
		const char *strs[] = { f->text, f->suggestion };
		for (size_t k = 0; k < 2; k++) {
			for (const char *p = strs[k]; p && *p; p++) {
				ck_assert_msg((unsigned char)*p >= 0x20, "%s: %s: byte 0x%02x in '%s'",
					what, f->kind, (unsigned char)*p, strs[k]);
			}
		}
		for (size_t k = 0; k < f->n_slots; k++) {
			ck_assert_uint_le(f->slot[k], strlen(f->text));
		}
		ck_assert(!f->has_spread || f->spread_at + f->spread_len <= strlen(f->text));
	}
}

#endif
