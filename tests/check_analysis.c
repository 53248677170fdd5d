#include <stdlib.h>
#include "analysis/intervals.h"
#include "analysis/summary.h"
#include "tc_test.h"

START_TEST(union_across_streams) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t s1 = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t s2 = tc_model_add_track(m, d, tc_model_intern(m, "stream 8"), TC_TRACK_STREAM, 8);
	uint32_t an = tc_model_add_track(m, d, tc_model_intern(m, "ann"), TC_TRACK_ANNOTATION, 9);
	uint32_t k = tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL);
	uint32_t c = tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D);
	uint32_t a = tc_model_op(m, tc_model_intern(m, "region"), 0, TC_OP_ANNOTATION);
	tc_model_add_event(m, s1, k, 0, 100, 0);
	tc_model_add_event(m, s1, k, 200, 100, 0);
	tc_model_add_event(m, s2, c, 50, 100, 0);   /* overlaps [0,100) */
	tc_model_add_event(m, s2, c, 400, 0, TC_EV_INSTANT);
	tc_model_add_event(m, an, a, 0, 1000, 0);   /* annotation: not busy */
	tc_model_finalize(m);

	struct tc_summary s;
	tc_analyze_summary(m, &s);
	ck_assert_uint_eq(s.n_devices, 1);
	/* busy = [0,150) ∪ [200,300) = 250; span = 0..400 (the instant ends it). */
	ck_assert_int_eq(s.devices[0].busy_ps, 250);
	ck_assert_int_eq(s.devices[0].first_ps, 0);
	ck_assert_int_eq(s.devices[0].last_ps, 400);
	ck_assert_uint_eq(s.devices[0].n_events, 4);
	ck_assert_str_eq(s.ops_scope, "device");
	ck_assert_uint_eq(s.n_ops, 2);
	ck_assert_str_eq(tc_model_str(m, s.ops[0].name), "gemm");
	ck_assert_int_eq(s.ops[0].total_ps, 200);
	ck_assert_uint_eq(s.ops[1].count, 2);
	ck_assert_int_eq(s.ops[1].min_ps, 0);
	tc_summary_finish(&s);

	struct tc_ivals u = { 0 }, v = { 0 }, w = { 0 };
	uint32_t tr[] = { s1 };
	tc_ivals_union_tracks(m, tr, 1, NULL, NULL, &u);
	uint32_t tr2[] = { s2 };
	tc_ivals_union_tracks(m, tr2, 1, NULL, NULL, &v);
	ck_assert_int_eq(tc_ivals_overlap(&u, &v), 50);
	tc_ivals_merge(&u, &v, &w);
	ck_assert_int_eq(tc_ivals_length(&w), 250);
	tc_ivals_clip(&w, 100, 250);
	ck_assert_int_eq(tc_ivals_length(&w), 100);
	tc_ivals_finish(&u);
	tc_ivals_finish(&v);
	tc_ivals_finish(&w);
	tc_model_destroy(m);
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
	m->ev.args[e] = tc_model_args_end(m, a);
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

int main(void) {
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, union_across_streams);
	tcase_add_test(tc, self_time_and_host_scope);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
