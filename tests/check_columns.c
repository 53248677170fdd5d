/*
 * Check suite for the event columns the model keeps compact while reading
 * (model/model.h): the track column as runs and the args as a bitmap,
 * each turning into a plain column when events stop suiting it. Every
 * shape is checked event by event against a plain shadow copy, before
 * and after finalize.
 */
#include <stdint.h>
#include <stdlib.h>
#include "model/model.h"
#include "tc_test.h"
#include "util/xalloc.h"

#define N_TRACKS 8

enum shape {
	LONG_RUNS,    /* runs of hundreds of events, args on 1 in 100 */
	SHORT_RUNS,   /* the track changes every 1-3 events */
	DENSE_ARGS,   /* args on every other event */
	OUT_OF_ORDER, /* sparse args, then an early event's set again */
	EVENT_CAP,    /* max_events reached: the last event is written again */
	N_SHAPES
};

struct shadow {
	uint32_t *track, *args;
	int64_t *start;
	size_t n;
};

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void) {
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

/* Events added as shape s says; sh holds what each slot must read. */
static struct tc_model *build(enum shape s, struct shadow *sh) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t[N_TRACKS];
	for (int k = 0; k < N_TRACKS; k++) {
		t[k] = tc_model_add_track(m, d, tc_model_intern(m, "stream"), TC_TRACK_STREAM, k);
	}
	uint32_t op = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	size_t n = 60000, cap = 5000;
	if (s == EVENT_CAP) {
		m->max_events = cap;
	}
	sh->track = tc_xcalloc(n, sizeof(*sh->track));
	sh->args = tc_xcalloc(n, sizeof(*sh->args));
	sh->start = tc_xcalloc(n, sizeof(*sh->start));
	sh->n = 0;
	uint32_t cur = 0;
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		if (left == 0) {
			cur = t[next_rand() % N_TRACKS];
			left = s == SHORT_RUNS ? 1 + next_rand() % 3 : 200 + next_rand() % 1800;
		}
		left--;
		int64_t start = (int64_t)i * 10;
		uint32_t e = tc_model_add_event(m, cur, op, start, 5, 0);
		bool with = s == DENSE_ARGS ? i % 2 == 0 : s == EVENT_CAP ? i % 7 == 0 :
			next_rand() % 100 == 0;
		uint32_t a = TC_NONE;
		if (with) {
			a = tc_model_args_one_int(m, m->key.step, (int64_t)i);
			tc_model_set_event_args(m, e, a);
		}
		ck_assert_uint_lt(e, n);
		sh->track[e] = cur;
		sh->args[e] = a;
		sh->start[e] = start;
		sh->n = e + 1 > sh->n ? e + 1 : sh->n;
	}
	if (s == OUT_OF_ORDER) {
		/* An early event that had none: a value set again in place keeps
		 * the args sparse, a new one behind the last does not. */
		size_t e = 7;
		while (sh->args[e] != TC_NONE) {
			e++;
		}
		uint32_t a = tc_model_args_one_int(m, m->key.step, -7);
		tc_model_set_event_args(m, e, a);
		sh->args[e] = a;
	}
	return m;
}

/* Each event's track and args by the accessors, and the track by runs. */
static void ck_reads(const struct tc_model *m, const struct shadow *sh) {
	ck_assert_uint_eq(m->ev.n, sh->n);
	for (size_t i = 0; i < sh->n; i++) {
		ck_assert_uint_eq(tc_model_event_track(m, i), sh->track[i]);
		ck_assert_uint_eq(tc_model_event_args(m, i), sh->args[i]);
	}
	for (size_t i = 0; i < sh->n;) {
		size_t end;
		uint32_t tr = tc_model_track_run(m, i, &end);
		ck_assert_uint_gt(end, i);
		ck_assert_uint_le(end, sh->n);
		for (; i < end; i++) {
			ck_assert_uint_eq(sh->track[i], tr);
		}
	}
}

START_TEST(compact_columns) {
	enum shape s = (enum shape)_i;
	struct shadow sh;
	struct tc_model *m = build(s, &sh);
	/* The form each shape must end up in while reading: a shape that
	 * stays in the plain columns would pass the reads without testing the
	 * compact forms. */
	bool runs = s != SHORT_RUNS, sparse = s == LONG_RUNS || s == SHORT_RUNS || s == EVENT_CAP;
	ck_assert_msg((m->ev.track == NULL) == runs, "shape %d: track column %s", _i,
		m->ev.track ? "made" : "kept as runs");
	ck_assert_msg((m->ev.args == NULL) == sparse, "shape %d: args %s", _i,
		m->ev.args ? "dense" : "sparse");
	if (s == EVENT_CAP) {
		ck_assert(m->over_max_events);
		ck_assert_uint_eq(sh.n, 5000);
	}
	ck_reads(m, &sh);

	/* Finalize groups the events by track: each one is found again by its
	 * start, which is unique. */
	tc_model_finalize(m);
	ck_assert(m->ev.track == NULL);
	ck_assert_msg((m->ev.args == NULL) == (s != DENSE_ARGS), "shape %d: args after finalize %s",
		_i, m->ev.args ? "dense" : "sparse");
	ck_assert_uint_eq(m->ev.n, sh.n);
	size_t *at = tc_xmalloc(60000 * sizeof(*at));
	for (size_t i = 0; i < sh.n; i++) {
		at[sh.start[i] / 10] = i;
	}
	for (size_t j = 0; j < m->ev.n; j++) {
		size_t i = at[m->ev.start[j] / 10];
		ck_assert_int_eq(sh.start[i], m->ev.start[j]);
		ck_assert_uint_eq(tc_model_event_track(m, j), sh.track[i]);
		ck_assert_uint_eq(tc_model_event_args(m, j), sh.args[i]);
	}
	free(at);
	free(sh.track);
	free(sh.args);
	free(sh.start);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("columns");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, compact_columns, 0, N_SHAPES);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
