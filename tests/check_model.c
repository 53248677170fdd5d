#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "tc_test.h"

START_TEST(finalize_sorts_and_nests) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "/device:GPU:0"), TC_DEV_GPU);
	uint32_t t0 = tc_model_add_track(m, d, tc_model_intern(m, "a"), TC_TRACK_STREAM, 1);
	uint32_t t1 = tc_model_add_track(m, d, tc_model_intern(m, "b"), TC_TRACK_STREAM, 2);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	ck_assert_uint_eq(tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL), op);
	/* Interleaved, unsorted: child before parent, equal starts. */
	uint32_t child = tc_model_add_event(m, t0, op, 20, 5, 0);
	tc_model_add_event(m, t1, op, 5, 1, 0);
	uint32_t parent = tc_model_add_event(m, t0, op, 10, 30, 0);
	tc_model_add_event(m, t0, op, 10, 2, 0);
	tc_model_add_event(m, t0, op, 0, 3, 0);
	tc_model_add_flow(m, parent, child, TC_FLOW_GENERIC, 7);
	tc_model_finalize(m);
	ck_assert_uint_eq(m->tracks[t0].first, 0);
	ck_assert_uint_eq(m->tracks[t0].count, 4);
	ck_assert_uint_eq(m->tracks[t1].first, 4);
	int64_t starts[] = { 0, 10, 10, 20, 5 };
	int64_t durs[] = { 3, 30, 2, 5, 1 };
	uint16_t depths[] = { 0, 0, 1, 1, 0 };
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(m->ev.start[i], starts[i]);
		ck_assert_int_eq(m->ev.dur[i], durs[i]);
		ck_assert_uint_eq(m->ev.depth[i], depths[i]);
	}
	ck_assert_uint_eq(m->tracks[t0].max_depth, 1);
	/* The flow follows its events through the sort. */
	ck_assert_uint_eq(m->flows[0].from, 1);
	ck_assert_uint_eq(m->flows[0].to, 3);
	tc_model_destroy(m);
}
END_TEST

START_TEST(args_and_costs) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "TPU:0"), TC_DEV_TPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "XLA Ops"), TC_TRACK_OPS, 1);
	uint32_t op = tc_model_add_op(m, tc_model_intern(m, "fusion"), 0, TC_OP_KERNEL);
	m->ops[op].flops = 1000;
	m->ops[op].bytes = 64;
	uint32_t e1 = tc_model_add_event(m, t, op, 0, 10, 0);
	uint32_t e2 = tc_model_add_event(m, t, op, 20, 10, 0);
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, m->key.flops, 5);
	tc_model_arg_str(m, tc_model_intern(m, "note"), tc_model_intern(m, "12.5"));
	m->ev.args[e2] = tc_model_args_end(m, a);
	ck_assert_uint_eq(tc_model_args_end(m, tc_model_args_begin(m)), TC_NONE);
	/* Negative duration is clamped and flagged. */
	uint32_t e3 = tc_model_add_event(m, t, op, 40, -4, 0);
	tc_model_finalize(m);
	ck_assert_int_eq(tc_model_event_flops(m, e1), 1000);
	ck_assert_int_eq(tc_model_event_flops(m, e2), 5);
	ck_assert_int_eq(tc_model_event_bytes_accessed(m, e2), 64);
	double v;
	ck_assert(tc_model_arg_num(m, m->ev.args[e2], tc_model_intern(m, "note"), &v));
	ck_assert(v == 12.5);
	ck_assert(!tc_model_arg_num(m, m->ev.args[e1], m->key.flops, &v));
	ck_assert_int_eq(m->ev.dur[e3], 0);
	ck_assert(m->ev.flags[e3] & TC_EV_CLAMPED);
	tc_model_destroy(m);
}
END_TEST

START_TEST(merge_models) {
	struct tc_model *a = tc_model_create(), *b = tc_model_create();
	a->origin_ns = 1000;
	b->origin_ns = 3000;
	tc_model_add_source(a, "a.pb", "xplane", "none", 1, 1);
	tc_model_add_source(b, "b.pb", "xplane", "none", 1, 1);
	uint32_t da = tc_model_add_device(a, tc_model_intern(a, "dev"), TC_DEV_GPU);
	uint32_t db = tc_model_add_device(b, tc_model_intern(b, "other dev"), TC_DEV_GPU);
	uint32_t ta = tc_model_add_track(a, da, tc_model_intern(a, "s"), TC_TRACK_STREAM, 1);
	uint32_t tb = tc_model_add_track(b, db, tc_model_intern(b, "s"), TC_TRACK_STREAM, 1);
	tc_model_add_event(a, ta, tc_model_op(a, tc_model_intern(a, "x"), 0, TC_OP_KERNEL), 0, 10, 0);
	uint32_t e = tc_model_add_event(b, tb, tc_model_op(b, tc_model_intern(b, "y"), 0, TC_OP_KERNEL), 0, 10, 0);
	uint32_t ar = tc_model_args_begin(b);
	tc_model_arg_str(b, tc_model_intern(b, "k"), tc_model_intern(b, "v"));
	b->ev.args[e] = tc_model_args_end(b, ar);
	tc_model_warn(b, 2, "w");
	tc_model_merge(a, b);
	tc_model_destroy(b);
	tc_model_finalize(a);
	ck_assert_uint_eq(a->ev.n, 2);
	ck_assert_uint_eq(a->n_devices, 2);
	ck_assert_str_eq(tc_model_str(a, a->devices[1].name), "other dev");
	/* b's origin is 2000 ns later: 2,000,000 ps. */
	ck_assert_int_eq(a->ev.start[1], 2000000);
	ck_assert_str_eq(tc_model_str(a, a->ops[a->ev.op[1]].name), "y");
	struct tc_arg arg;
	ck_assert(tc_model_arg_find(a, a->ev.args[1], tc_model_intern(a, "k"), &arg));
	ck_assert_str_eq(tc_model_str(a, arg.v.s), "v");
	ck_assert_uint_eq(a->n_warnings, 1);
	ck_assert_uint_eq(a->warnings[0].count, 2);
	tc_model_destroy(a);
}
END_TEST

START_TEST(counters_sorted) {
	struct tc_model *m = tc_model_create();
	uint32_t c1 = tc_model_counter(m, TC_NONE, tc_model_intern(m, "mem"), 0, 0);
	uint32_t c2 = tc_model_counter(m, TC_NONE, tc_model_intern(m, "q"), 0, 0);
	ck_assert_uint_eq(tc_model_counter(m, TC_NONE, tc_model_intern(m, "mem"), 0, 0), c1);
	tc_model_add_sample(m, c2, 5, 1);
	tc_model_add_sample(m, c1, 9, 2);
	tc_model_add_sample(m, c1, 3, 3);
	tc_model_warn(m, 1, "a %d", 1);
	tc_model_warn(m, 1, "a %d", 1);
	tc_model_finalize(m);
	ck_assert_uint_eq(m->counters[c1].count, 2);
	ck_assert_int_eq(m->samples.ts[m->counters[c1].first], 3);
	ck_assert_uint_eq(m->counters[c2].count, 1);
	ck_assert_uint_eq(m->n_warnings, 1);
	ck_assert_uint_eq(m->warnings[0].count, 2);
	tc_model_destroy(m);
}
END_TEST

/* Several sorted runs per counter (one per thread), ties kept in input
 * order, and samples of an invalid counter last. */
START_TEST(counters_merge_runs) {
	struct tc_model *m = tc_model_create();
	uint32_t c1 = tc_model_counter(m, TC_NONE, tc_model_intern(m, "a"), 0, 0);
	uint32_t c2 = tc_model_counter(m, TC_NONE, tc_model_intern(m, "b"), 0, 0);
	static const int64_t ts[] = { 10, 20, 30, 5, 20, 40, 1, 35 };
	for (int i = 0; i < 8; i++) {
		tc_model_add_sample(m, c1, ts[i], i);
		tc_model_add_sample(m, c2, 100 - ts[i], i);
	}
	tc_model_add_sample(m, 7, 3, 100);
	tc_model_add_sample(m, 5, 9, 101);
	tc_model_add_sample(m, 5, 2, 102);
	tc_model_finalize(m);
	static const int64_t want_ts[] = { 1, 5, 10, 20, 20, 30, 35, 40 };
	static const double want_v[] = { 6, 3, 0, 1, 4, 2, 7, 5 };
	const struct tc_samples *sm = &m->samples;
	ck_assert_uint_eq(m->counters[c1].count, 8);
	for (size_t i = 0; i < 8; i++) {
		size_t k = m->counters[c1].first + i;
		ck_assert_int_eq(sm->ts[k], want_ts[i]);
		ck_assert(sm->value[k] == want_v[i]);
		ck_assert_uint_eq(sm->counter[k], c1);
	}
	for (size_t i = 1; i < 8; i++) {
		size_t k = m->counters[c2].first + i;
		ck_assert_int_le(sm->ts[k - 1], sm->ts[k]);
	}
	ck_assert_uint_eq(sm->n, 19);
	ck_assert_uint_eq(sm->counter[16], 5);
	ck_assert_int_eq(sm->ts[16], 2);
	ck_assert_uint_eq(sm->counter[17], 5);
	ck_assert_int_eq(sm->ts[17], 9);
	ck_assert_uint_eq(sm->counter[18], 7);
	tc_model_destroy(m);
}
END_TEST

START_TEST(event_costs_flag) {
	struct tc_model *m = tc_model_create();
	ck_assert(!m->event_costs);
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, tc_model_intern(m, "other"), 1);
	tc_model_args_end(m, a);
	ck_assert(!m->event_costs);
	struct tc_model *b = tc_model_create();
	a = tc_model_args_begin(b);
	tc_model_arg_double(b, b->key.bytes_accessed, 8);
	tc_model_args_end(b, a);
	ck_assert(b->event_costs);
	tc_model_merge(m, b);
	ck_assert(m->event_costs);
	tc_model_destroy(b);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, finalize_sorts_and_nests);
	tcase_add_test(tc, args_and_costs);
	tcase_add_test(tc, merge_models);
	tcase_add_test(tc, counters_sorted);
	tcase_add_test(tc, counters_merge_runs);
	tcase_add_test(tc, event_costs_flag);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
