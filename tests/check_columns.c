/*
 * Check suite for the event columns the model keeps compact while reading
 * (model/model.h): the track column as runs and the args as a bitmap,
 * each turning into a plain column when events stop suiting it. Every
 * shape is checked event by event against a plain shadow copy, before
 * and after finalize. Also the cost column (tc_model_costs), checked
 * event by event against a search of each event's args.
 */
#include <pthread.h>
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

/* Event i's costs by searching its args, as analyses did before the
 * column: its first number of each key, else its op's. */
static void searched_costs(const struct tc_model *m, size_t i, int64_t *f, int64_t *b) {
	uint32_t a = tc_model_event_args(m, i);
	if (!tc_model_arg_i64(m, a, m->key.flops, f)) {
		*f = m->ops[m->ev.op[i]].flops;
	}
	if (!tc_model_arg_i64(m, a, m->key.bytes_accessed, b)) {
		*b = m->ops[m->ev.op[i]].bytes;
	}
}

/* The events' args, by variant: none, no costs, one or both costs (ints,
 * uints, negative, a number in a string, a double), a string that is no
 * number (the op's cost holds), a key twice (the first holds). */
static void cost_args(struct tc_model *m, uint32_t e, unsigned v, unsigned x) {
	if (v == 0) {
		return;
	}
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, m->key.correlation, x);
	int64_t f = 100 + (int64_t)(x % 3) * 10;
	switch (v) {
	case 2:
		tc_model_arg_int(m, m->key.flops, f);
		break;
	case 3:
		tc_model_arg_uint(m, m->key.bytes_accessed, 64);
		break;
	case 4:
		tc_model_arg_int(m, m->key.flops, f);
		tc_model_arg_int(m, m->key.bytes_accessed, 32);
		break;
	case 5:
		tc_model_arg_int(m, m->key.bytes_accessed, -5);
		tc_model_arg_int(m, m->key.flops, -1);
		break;
	case 6:
		tc_model_arg_str(m, m->key.flops, tc_model_intern(m, "12"));
		tc_model_arg_double(m, m->key.bytes_accessed, 3.0);
		break;
	case 7:
		tc_model_arg_str(m, m->key.flops, tc_model_intern(m, "many"));
		break;
	case 8:
		tc_model_arg_uint(m, m->key.flops, 9);
		tc_model_arg_uint(m, m->key.flops, 10);
		break;
	}
	tc_model_set_event_args(m, e, tc_model_args_end(m, a));
}

static void *costs_thread(void *m) {
	return (void *)tc_model_costs(m);
}

/* Per-event costs from the column equal the arg search's on every event:
 * ops with both costs, one or none, events with their own or not. */
START_TEST(cost_column) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t[2] = {
		tc_model_add_track(m, d, tc_model_intern(m, "stream 1"), TC_TRACK_STREAM, 1),
		tc_model_add_track(m, d, tc_model_intern(m, "stream 2"), TC_TRACK_STREAM, 2),
	};
	static const int64_t op_costs[][2] = { { 100, 200 }, { -1, -1 }, { 50, -1 }, { -1, 8 } };
	uint32_t ops[4];
	for (int o = 0; o < 4; o++) {
		ops[o] = tc_model_add_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
		m->ops[ops[o]].flops = op_costs[o][0];
		m->ops[ops[o]].bytes = op_costs[o][1];
	}
	unsigned x = 5;
	for (int i = 0; i < 3000; i++) {
		x = x * 1103515245u + 12345u;
		uint32_t e = tc_model_add_event(m, t[(x >> 3) & 1], ops[(x >> 8) % 4],
			(int64_t)(3000 - i) * 10, 5, 0);
		cost_args(m, e, (x >> 12) % 9, x >> 20);
	}
	ck_assert(m->event_costs);
	tc_model_finalize(m);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, costs_thread, m), 0);
	const struct tc_costs *c = tc_model_costs(m);
	void *other;
	pthread_join(th, &other);
	ck_assert_ptr_eq(other, c);
	/* Costs repeat: a few keys past the ops', not one an event. */
	ck_assert_uint_gt(c->n, m->n_ops);
	ck_assert_uint_lt(c->n, m->n_ops + 100);
	for (size_t i = 0; i < m->ev.n; i++) {
		int64_t f, b, ef, eb;
		searched_costs(m, i, &f, &b);
		uint32_t k = c->key[i];
		ck_assert_uint_lt(k, c->n);
		ck_assert_uint_eq(c->op[k], m->ev.op[i]);
		ck_assert_int_eq(c->cost[k].flops, f);
		ck_assert_int_eq(c->cost[k].bytes, b);
		tc_model_event_costs(m, i, &ef, &eb);
		ck_assert(ef == f && eb == b);
		ck_assert_int_eq(tc_model_event_flops(m, i), f);
		ck_assert_int_eq(tc_model_event_bytes_accessed(m, i), b);
	}
	/* Keys below n_ops are the ops'; those past them are distinct and
	 * differ from their op's costs. */
	for (size_t k = 0; k < c->n; k++) {
		const struct tc_op_cost *v = &c->cost[k];
		if (k < m->n_ops) {
			ck_assert_uint_eq(c->op[k], k);
			ck_assert(v->flops == m->ops[k].flops && v->bytes == m->ops[k].bytes);
			continue;
		}
		const struct tc_op *op = &m->ops[c->op[k]];
		ck_assert(v->flops != op->flops || v->bytes != op->bytes);
		for (size_t j = m->n_ops; j < k; j++) {
			ck_assert(c->op[j] != c->op[k] || c->cost[j].flops != v->flops ||
				c->cost[j].bytes != v->bytes);
		}
	}
	/* Made again, the same. */
	size_t n_keys = c->n;
	tc_model_costs_drop(m);
	c = tc_model_costs(m);
	ck_assert_uint_eq(c->n, n_keys);
	tc_model_destroy(m);

	/* Without costs of events' own the keys are the ops. */
	m = tc_model_create();
	d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	t[0] = tc_model_add_track(m, d, tc_model_intern(m, "stream 1"), TC_TRACK_STREAM, 1);
	ops[0] = tc_model_add_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	m->ops[ops[0]].flops = 7;
	for (int i = 0; i < 10; i++) {
		uint32_t e = tc_model_add_event(m, t[0], ops[0], i * 10, 5, 0);
		cost_args(m, e, i % 2, (unsigned)i);
	}
	ck_assert(!m->event_costs);
	tc_model_finalize(m);
	c = tc_model_costs(m);
	ck_assert_ptr_eq(c->key, m->ev.op);
	ck_assert_uint_eq(c->n, m->n_ops);
	ck_assert(c->cost[ops[0]].flops == 7 && c->cost[ops[0]].bytes == -1);
	tc_model_destroy(m);
}
END_TEST

/* The ways a model's events take costs, for cost_column_notes: */
enum notes_case {
	NOTES_ALIKE,     /* each op's events alike: no search */
	NOTES_SOME,      /* one op's events: some set costs, some not */
	NOTES_VARY,      /* one op's events set different costs */
	NOTES_STRING,    /* one event's flops is a number in a string */
	NOTES_OLD_LIST,  /* an event takes a list built before the last */
	NOTES_UNNOTED,   /* an event's op changes after it took its list */
	NOTES_CAP,       /* past the event cap, the last event is written again */
	NOTES_CASES
};

/* Op 0's events set flops 10 and bytes 20 (as int, uint, or after another
 * arg, a key twice: the first holds; one list taken by two events); op
 * 1's set none; op 2's set flops 7 only. Then the case's change. */
static struct tc_model *notes_model(enum notes_case v) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "stream 1"), TC_TRACK_STREAM, 1);
	uint32_t ops[3];
	for (int o = 0; o < 3; o++) {
		ops[o] = tc_model_add_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
		m->ops[ops[o]].flops = o == 1 ? 5 : -1;
		m->ops[ops[o]].bytes = 64;
	}
	uint32_t first = TC_NONE;
	for (int i = 0; i < 60; i++) {
		uint32_t o = ops[i % 3];
		uint32_t e = tc_model_add_event(m, t, o, (int64_t)i * 10, 5, 0);
		uint32_t a = tc_model_args_begin(m);
		tc_model_arg_int(m, m->key.correlation, i);
		if (o == ops[0]) {
			if (i % 2) {
				tc_model_arg_uint(m, m->key.flops, 10);
			} else {
				tc_model_arg_int(m, m->key.flops, 10);
			}
			tc_model_arg_int(m, m->key.bytes_accessed, v == NOTES_VARY && i == 30 ? 21 : 20);
			tc_model_arg_int(m, m->key.flops, 11);
		} else if (o == ops[2]) {
			if (v == NOTES_STRING && i == 29) {
				tc_model_arg_str(m, m->key.flops, tc_model_intern(m, "7"));
			} else if (!(v == NOTES_SOME && i == 29)) {
				tc_model_arg_int(m, m->key.flops, 7);
			}
		}
		a = tc_model_args_end(m, a);
		first = first == TC_NONE && o == ops[0] ? a : first;
		if (v == NOTES_OLD_LIST && i == 57) {
			a = first;
		}
		tc_model_set_event_args(m, e, a);
		if (i == 3) {
			/* A list taken by two events. */
			e = tc_model_add_event(m, t, o, (int64_t)i * 10 + 1, 1, 0);
			tc_model_set_event_args(m, e, a);
		}
	}
	/* These two keep each op's count of events, so only the mark sends
	 * them to the search. */
	if (v == NOTES_UNNOTED) {
		m->ev.op[0] = ops[1];
		m->ev.op[1] = ops[0];
		tc_model_costs_unnoted(m);
	}
	if (v == NOTES_CAP) {
		m->max_events = m->ev.n;
		tc_model_add_event(m, t, ops[2], 900, 5, 0); /* no args: the op's */
	}
	return m;
}

/* Where each op's events set alike costs (or none), the column is the
 * ops' own, no search of every event's args; wherever the notes cannot
 * tell, the search keys them. Either way every event's costs are those
 * its args set. */
START_TEST(cost_column_notes) {
	enum notes_case v = (enum notes_case)_i;
	struct tc_model *m = notes_model(v);
	ck_assert(m->event_costs);
	tc_model_finalize(m);
	const struct tc_costs *c = tc_model_costs(m);
	if (v == NOTES_ALIKE) {
		ck_assert_ptr_eq(c->key, m->ev.op);
		ck_assert_uint_eq(c->n, m->n_ops);
		ck_assert(c->cost[0].flops == 10 && c->cost[0].bytes == 20);
		ck_assert(c->cost[1].flops == 5 && c->cost[1].bytes == 64);
		ck_assert(c->cost[2].flops == 7 && c->cost[2].bytes == 64);
	} else {
		ck_assert_ptr_ne(c->key, m->ev.op);
	}
	for (size_t i = 0; i < m->ev.n; i++) {
		int64_t f, b;
		searched_costs(m, i, &f, &b);
		const struct tc_op_cost *k = &c->cost[c->key[i]];
		ck_assert_int_eq(k->flops, f);
		ck_assert_int_eq(k->bytes, b);
	}
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("columns");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, compact_columns, 0, N_SHAPES);
	tcase_add_test(tc, cost_column);
	tcase_add_loop_test(tc, cost_column_notes, 0, NOTES_CASES);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
