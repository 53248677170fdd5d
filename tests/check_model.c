/*
 * Check suite for the model: interning, ops, args, tracks, finalizing,
 * merging and subsetting, on models built in the test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/memcurve.h"
#include "model/model.h"
#include "model/rank.h"
#include "util/xalloc.h"
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
	tc_model_set_event_args(m, e2, tc_model_args_end(m, a));
	ck_assert_uint_eq(tc_model_args_end(m, tc_model_args_begin(m)), TC_NONE);
	/* Negative duration is clamped and flagged. */
	uint32_t e3 = tc_model_add_event(m, t, op, 40, -4, 0);
	tc_model_finalize(m);
	ck_assert_int_eq(tc_model_event_flops(m, e1), 1000);
	ck_assert_int_eq(tc_model_event_flops(m, e2), 5);
	ck_assert_int_eq(tc_model_event_bytes_accessed(m, e2), 64);
	double v;
	ck_assert(tc_model_arg_num(m, tc_model_event_args(m, e2), tc_model_intern(m, "note"), &v));
	ck_assert(v == 12.5);
	ck_assert(!tc_model_arg_num(m, tc_model_event_args(m, e1), m->key.flops, &v));
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
	tc_model_set_event_args(b, e, tc_model_args_end(b, ar));
	tc_model_warn(b, 2, "w");
	/* Finalized models have no track column; merge brings both back. */
	tc_model_finalize(a);
	tc_model_finalize(b);
	tc_model_merge(a, b);
	tc_model_destroy(b);
	tc_model_finalize(a);
	ck_assert_uint_eq(a->ev.n, 2);
	ck_assert_uint_eq(tc_model_event_track(a, 0), ta);
	ck_assert_uint_eq(tc_model_event_track(a, 1), 1);
	ck_assert_uint_eq(a->tracks[1].device, 1);
	ck_assert_uint_eq(a->n_devices, 2);
	ck_assert_str_eq(tc_model_str(a, a->devices[1].name), "other dev");
	/* b's origin is 2000 ns later: 2,000,000 ps. */
	ck_assert_int_eq(a->ev.start[1], 2000000);
	ck_assert_str_eq(tc_model_str(a, a->ops[a->ev.op[1]].name), "y");
	struct tc_arg arg;
	ck_assert(tc_model_arg_find(a, tc_model_event_args(a, 1), tc_model_intern(a, "k"), &arg));
	ck_assert_str_eq(tc_model_str(a, arg.v.s), "v");
	ck_assert_uint_eq(a->n_warnings, 1);
	ck_assert_uint_eq(a->warnings[0].count, 2);
	tc_model_destroy(a);
}
END_TEST

/* The packed kind column stays each op's kind, as ops are added past
 * every growth and as a merge adds another model's. */
START_TEST(op_kinds_packed) {
	struct tc_model *a = tc_model_create(), *b = tc_model_create();
	char name[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		tc_model_op(a, tc_model_intern(a, name), 0, (enum tc_op_kind)(i % TC_OP_KIND_COUNT));
		tc_model_op(b, tc_model_intern(b, name), 1, (enum tc_op_kind)(i * 7 % TC_OP_KIND_COUNT));
	}
	tc_model_finalize(a);
	tc_model_finalize(b);
	tc_model_merge(a, b);
	tc_model_destroy(b);
	ck_assert_uint_eq(a->n_ops, 2000);
	for (size_t o = 0; o < a->n_ops; o++) {
		ck_assert_uint_eq(a->op_kind[o], a->ops[o].kind);
	}
	tc_model_destroy(a);
}
END_TEST

/* Every arg type round-trips through the packed encoding, at the edges. */
START_TEST(args_encoding) {
	struct tc_model *m = tc_model_create();
	const uint32_t big = (1u << 28) + 5, huge = UINT32_MAX - 1;
	struct tc_arg want[] = {
		{ .key = 1, .type = TC_ARG_INT, .v.i = 0 },
		{ .key = 2, .type = TC_ARG_INT, .v.i = -1 },
		{ .key = 3, .type = TC_ARG_INT, .v.i = INT64_MIN },
		{ .key = 4, .type = TC_ARG_INT, .v.i = INT64_MAX },
		{ .key = 5, .type = TC_ARG_INT, .v.i = -300 },
		{ .key = 6, .type = TC_ARG_UINT, .v.u = 0 },
		{ .key = 7, .type = TC_ARG_UINT, .v.u = UINT64_MAX },
		{ .key = 8, .type = TC_ARG_DOUBLE, .v.d = NAN },
		{ .key = 9, .type = TC_ARG_DOUBLE, .v.d = -0.0 },
		{ .key = 10, .type = TC_ARG_DOUBLE, .v.d = 1e300 },
		{ .key = 11, .type = TC_ARG_DOUBLE, .v.d = -INFINITY },
		{ .key = big, .type = TC_ARG_STR, .v.s = huge },
		{ .key = huge, .type = TC_ARG_STR, .v.s = 0 },
		{ .key = 12, .type = TC_ARG_BOOL, .v.i = 1 },
		{ .key = 13, .type = TC_ARG_BOOL, .v.i = 0 },
		{ .key = UINT32_MAX - 2, .type = TC_ARG_BOOL, .v.i = 1 },
	};
	size_t n = sizeof(want) / sizeof(want[0]);
	ck_assert_uint_eq(tc_model_args_end(m, tc_model_args_begin(m)), TC_NONE);
	uint32_t first = tc_model_args_begin(m);
	for (size_t i = 0; i < n; i++) {
		tc_model_arg_add(m, &want[i]);
	}
	first = tc_model_args_end(m, first);
	ck_assert_uint_ne(first, TC_NONE);
	/* A second list right after: the first one's walk stops at its end. */
	uint32_t b = tc_model_args_begin(m);
	tc_model_arg_int(m, 1, 42);
	uint32_t second = tc_model_args_end(m, b);
	ck_assert_uint_ne(second, first);
	/* One list is no list. */
	ck_assert_uint_eq(tc_model_args_end(m, tc_model_args_begin(m)), TC_NONE);

	size_t i = 0;
	for (uint32_t p = first; p != TC_NONE; i++) {
		struct tc_arg a;
		ck_assert_uint_lt(i, n);
		p = tc_model_arg_next(m, p, &a);
		ck_assert_uint_eq(a.key, want[i].key);
		ck_assert_uint_eq(a.type, want[i].type);
		if (want[i].type == TC_ARG_DOUBLE) {
			ck_assert(memcmp(&a.v.d, &want[i].v.d, sizeof(double)) == 0 ||
				(isnan(a.v.d) && isnan(want[i].v.d)));
			ck_assert_int_eq(signbit(a.v.d), signbit(want[i].v.d));
		} else if (want[i].type == TC_ARG_STR) {
			ck_assert_uint_eq(a.v.s, want[i].v.s);
		} else {
			ck_assert(a.v.u == want[i].v.u);
		}
		/* The last record's successor is the list's end. */
		ck_assert((p == TC_NONE) == (i == n - 1));
	}
	ck_assert_uint_eq(i, n);
	struct tc_arg a;
	ck_assert(tc_model_arg_find(m, first, 3, &a));
	ck_assert(a.type == TC_ARG_INT && a.v.i == INT64_MIN);
	ck_assert(tc_model_arg_find(m, first, big, &a));
	ck_assert(a.type == TC_ARG_STR && a.v.s == huge);
	ck_assert(tc_model_arg_find(m, first, UINT32_MAX - 2, &a));
	ck_assert(a.type == TC_ARG_BOOL && a.v.i == 1);
	ck_assert(!tc_model_arg_find(m, first, 14, &a)); /* past the end: in the next list */
	ck_assert(!tc_model_arg_find(m, TC_NONE, 1, &a));
	/* Two keys in one walk: each one's first, either order, one absent. */
	struct tc_arg two[2];
	ck_assert_uint_eq(tc_model_arg_find2(m, first, 12, 3, two), 3);
	ck_assert(two[0].type == TC_ARG_BOOL && two[0].v.i == 1);
	ck_assert(two[1].type == TC_ARG_INT && two[1].v.i == INT64_MIN);
	ck_assert_uint_eq(tc_model_arg_find2(m, first, 14, big, two), 2);
	ck_assert(two[1].v.s == huge);
	ck_assert_uint_eq(tc_model_arg_find2(m, first, 14, 15, two), 0);
	ck_assert_uint_eq(tc_model_arg_find2(m, TC_NONE, 1, 2, two), 0);
	/* A key twice in a list: the first counts, as for tc_model_arg_find. */
	uint32_t dup = tc_model_args_begin(m);
	tc_model_arg_int(m, 5, 1);
	tc_model_arg_int(m, 5, 2);
	tc_model_arg_int(m, 6, 3);
	dup = tc_model_args_end(m, dup);
	ck_assert_uint_eq(tc_model_arg_find2(m, dup, 5, 6, two), 3);
	ck_assert(two[0].v.i == 1 && two[1].v.i == 3);
	ck_assert(tc_model_arg_find(m, second, 1, &a));
	ck_assert_int_eq(a.v.i, 42);
	ck_assert(tc_model_arg_next(m, second, &a) == TC_NONE);
	int64_t v;
	ck_assert(tc_model_arg_i64(m, first, 7, &v));
	ck_assert_int_eq(v, -1); /* UINT64_MAX's bits, as before */
	ck_assert(tc_model_arg_i64(m, first, 12, &v) && v == 1);
	ck_assert(tc_model_arg_i64(m, first, 13, &v) && v == 0);
	double d;
	ck_assert(!tc_model_arg_num(m, first, 8, &d) || isnan(d));
	ck_assert(tc_model_arg_num(m, first, 5, &d) && d == -300);

	/* Small args take a few bytes, not 16. */
	size_t before = m->n_argb;
	b = tc_model_args_begin(m);
	tc_model_arg_int(m, 20, 7);
	tc_model_arg_str(m, 21, 1000);
	tc_model_arg_bool(m, 22, true);
	ck_assert_uint_ne(tc_model_args_end(m, b), TC_NONE);
	/* headers of keys < 1024 take 2 bytes; 7 and a bool's value take 1 and
	 * 0 bytes, string id 1000 takes 2 */
	ck_assert_uint_eq(m->n_argb - before, (2 + 1) + (2 + 2) + 2);

	/* A list begun and never ended is closed by the next begin. */
	b = tc_model_args_begin(m);
	tc_model_arg_int(m, 30, 1);
	uint32_t c = tc_model_args_begin(m);
	tc_model_arg_int(m, 31, 2);
	c = tc_model_args_end(m, c);
	ck_assert(tc_model_arg_next(m, b, &a) == TC_NONE);
	ck_assert(!tc_model_arg_find(m, b, 31, &a));
	ck_assert(tc_model_arg_find(m, c, 31, &a) && a.v.i == 2);
	tc_model_destroy(m);
}
END_TEST

/* Merge re-encodes src's lists with dst's string ids (which may need more
 * bytes) and points events, ops and devices at the copies. */
START_TEST(args_merge_remap) {
	struct tc_model *a = tc_model_create(), *b = tc_model_create();
	char buf[32];
	/* dst interns many strings first, so src's small ids become large. */
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "filler %d", i);
		tc_model_intern(a, buf);
	}
	uint32_t da = tc_model_add_device(a, tc_model_intern(a, "dev a"), TC_DEV_GPU);
	uint32_t ta = tc_model_add_track(a, da, tc_model_intern(a, "s"), TC_TRACK_STREAM, 1);
	uint32_t ea = tc_model_add_event(a, ta, tc_model_op(a, tc_model_intern(a, "x"), 0,
		TC_OP_KERNEL), 0, 10, 0);
	uint32_t l = tc_model_args_begin(a);
	tc_model_arg_str(a, tc_model_intern(a, "ka"), tc_model_intern(a, "va"));
	tc_model_set_event_args(a, ea, tc_model_args_end(a, l));

	uint32_t db = tc_model_add_device(b, tc_model_intern(b, "dev b"), TC_DEV_GPU);
	l = tc_model_args_begin(b);
	tc_model_arg_str(b, tc_model_intern(b, "vendor_note"), tc_model_intern(b, "fast"));
	b->devices[db].args = tc_model_args_end(b, l);
	uint32_t tb = tc_model_add_track(b, db, tc_model_intern(b, "s"), TC_TRACK_STREAM, 1);
	uint32_t ob = tc_model_add_op(b, tc_model_intern(b, "y"), 0, TC_OP_KERNEL);
	l = tc_model_args_begin(b);
	tc_model_arg_int(b, tc_model_intern(b, "layer"), -3);
	b->ops[ob].args = tc_model_args_end(b, l);
	for (int i = 0; i < 50; i++) {
		uint32_t e = tc_model_add_event(b, tb, ob, i * 100, 10, 0);
		if (i % 3 == 0) {
			continue; /* some without args */
		}
		snprintf(buf, sizeof(buf), "v%d", i);
		l = tc_model_args_begin(b);
		tc_model_arg_int(b, tc_model_intern(b, "i"), i);
		tc_model_arg_str(b, tc_model_intern(b, "name"), tc_model_intern(b, buf));
		tc_model_arg_double(b, tc_model_intern(b, "half"), i / 2.0);
		tc_model_arg_bool(b, tc_model_intern(b, "odd"), i % 2);
		tc_model_set_event_args(b, e, tc_model_args_end(b, l));
	}
	tc_model_merge(a, b);
	tc_model_destroy(b);

	struct tc_arg r;
	ck_assert(tc_model_arg_find(a, tc_model_event_args(a, ea), tc_model_intern(a, "ka"), &r));
	ck_assert_str_eq(tc_model_str(a, r.v.s), "va");
	ck_assert(tc_model_arg_find(a, a->devices[1].args, tc_model_intern(a, "vendor_note"), &r));
	ck_assert_str_eq(tc_model_str(a, r.v.s), "fast");
	ck_assert_uint_gt(r.key, 20000);
	ck_assert(tc_model_arg_find(a, a->ops[a->ev.op[1]].args, tc_model_intern(a, "layer"), &r));
	ck_assert_int_eq(r.v.i, -3);
	for (int i = 0; i < 50; i++) {
		uint32_t first = tc_model_event_args(a, 1 + i);
		if (i % 3 == 0) {
			ck_assert_uint_eq(first, TC_NONE);
			continue;
		}
		snprintf(buf, sizeof(buf), "v%d", i);
		const char *keys[] = { "i", "name", "half", "odd" };
		int k = 0;
		for (uint32_t p = first; p != TC_NONE; k++) {
			p = tc_model_arg_next(a, p, &r);
			ck_assert_int_lt(k, 4);
			ck_assert_str_eq(tc_model_str(a, r.key), keys[k]);
		}
		ck_assert_int_eq(k, 4);
		int64_t v;
		ck_assert(tc_model_arg_i64(a, first, tc_model_intern(a, "i"), &v) && v == i);
		ck_assert(tc_model_arg_find(a, first, tc_model_intern(a, "name"), &r));
		ck_assert_str_eq(tc_model_str(a, r.v.s), buf);
		ck_assert(tc_model_arg_find(a, first, tc_model_intern(a, "half"), &r));
		ck_assert(r.type == TC_ARG_DOUBLE && r.v.d == i / 2.0);
		ck_assert(tc_model_arg_find(a, first, tc_model_intern(a, "odd"), &r));
		ck_assert(r.type == TC_ARG_BOOL && r.v.i == i % 2);
	}
	tc_model_destroy(a);
}
END_TEST

/* Past max_arg_bytes nothing more is stored and the model says so. */
START_TEST(args_cap) {
	struct tc_model *m = tc_model_create();
	m->max_arg_bytes = 64;
	uint32_t l = tc_model_args_begin(m);
	for (int i = 0; i < 100; i++) {
		tc_model_arg_int(m, 1, i);
	}
	l = tc_model_args_end(m, l);
	ck_assert(m->over_arg_bytes);
	ck_assert_uint_le(m->n_argb, 64);
	/* What was stored is still a well-formed list. */
	int n = 0;
	for (uint32_t p = l; p != TC_NONE; n++) {
		struct tc_arg a;
		p = tc_model_arg_next(m, p, &a);
		ck_assert_int_eq(a.v.i, n);
	}
	ck_assert_int_gt(n, 10);
	tc_model_destroy(m);
}
END_TEST

/* A list of one number in one call is the list begin, arg, end make: the
 * same bytes, the same closing of an open list, the same drops. */
START_TEST(args_one) {
	struct tc_model *m = tc_model_create();
	const int64_t ints[] = {
		0, 1, -1, 63, -64, 300, -300, (int64_t)1 << 40, INT64_MIN, INT64_MAX,
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		for (uint32_t key = 1; key < 300; key += 37) {
			uint32_t b = tc_model_args_begin(m);
			tc_model_arg_int(m, key, ints[i]);
			b = tc_model_args_end(m, b);
			size_t len = m->n_argb - b;
			uint32_t one = tc_model_args_one_int(m, key, ints[i]);
			ck_assert_uint_eq(one, b + len);
			ck_assert_uint_eq(m->n_argb - one, len);
			ck_assert(memcmp(m->argb + b, m->argb + one, len) == 0);
			struct tc_arg a;
			ck_assert(tc_model_arg_next(m, one, &a) == TC_NONE);
			ck_assert(a.key == key && a.type == TC_ARG_INT && a.v.i == ints[i]);
			uint64_t u = (uint64_t)ints[i];
			one = tc_model_args_one_uint(m, key, u);
			ck_assert(tc_model_arg_next(m, one, &a) == TC_NONE);
			ck_assert(a.key == key && a.type == TC_ARG_UINT && a.v.u == u);
		}
	}
	/* An open list is closed first: it ends before the new one. */
	uint32_t open = tc_model_args_begin(m);
	tc_model_arg_int(m, 7, 1);
	uint32_t one = tc_model_args_one_int(m, 8, 2);
	struct tc_arg a;
	ck_assert(tc_model_arg_next(m, open, &a) == TC_NONE && a.key == 7);
	ck_assert(!tc_model_arg_find(m, open, 8, &a));
	ck_assert(tc_model_arg_find(m, one, 8, &a) && a.v.i == 2);
	/* ... and the next begin does not reopen the one-number list. */
	uint32_t b = tc_model_args_begin(m);
	tc_model_arg_int(m, 9, 3);
	b = tc_model_args_end(m, b);
	ck_assert(tc_model_arg_next(m, one, &a) == TC_NONE);
	ck_assert(tc_model_arg_next(m, b, &a) == TC_NONE && a.v.i == 3);
	/* Keys that flag the model flag it here too. */
	tc_model_destroy(m);
	m = tc_model_create();
	ck_assert(!m->event_costs && !m->copy_args);
	ck_assert_uint_ne(tc_model_args_one_uint(m, m->key.flops, 10), TC_NONE);
	ck_assert(m->event_costs && !m->copy_args);
	ck_assert_uint_ne(tc_model_args_one_int(m, m->key.bytes, 10), TC_NONE);
	ck_assert(m->copy_args && !m->fill_args);
	/* A key the model does not keep: no list, no bytes. */
	m->known_args_only = true;
	size_t n = m->n_argb;
	ck_assert_uint_eq(tc_model_args_one_int(m, tc_model_intern(m, "custom"), 1), TC_NONE);
	ck_assert_uint_eq(m->n_argb, n);
	ck_assert_uint_ne(tc_model_args_one_int(m, m->key.correlation, 1), TC_NONE);
	/* Past the cap: none, flagged. */
	m->max_arg_bytes = m->n_argb + 4;
	ck_assert_uint_eq(tc_model_args_one_int(m, m->key.correlation, 1), TC_NONE);
	ck_assert(m->over_arg_bytes);
	tc_model_destroy(m);
}
END_TEST

START_TEST(args_known_only) {
	struct tc_model *m = tc_model_create();
	m->known_args_only = true;
	uint32_t custom = tc_model_intern(m, "kernel details");
	ck_assert(!tc_model_keeps_arg(m, custom));
	ck_assert(tc_model_keeps_arg(m, m->key.step));
	ck_assert(tc_model_keeps_arg(m, m->key.memory_kind));
	/* Written for export only: nothing reads them back. */
	ck_assert(!tc_model_keeps_arg(m, m->key.tf_op));
	ck_assert(!tc_model_keeps_arg(m, m->key.collective));
	/* Only the well-known keys are kept, in order. */
	uint32_t l = tc_model_args_begin(m);
	tc_model_arg_str(m, custom, custom);
	tc_model_arg_int(m, m->key.step, 7);
	tc_model_arg_double(m, custom, 1.5);
	tc_model_arg_int(m, m->key.flops, 100);
	tc_model_arg_bool(m, custom, true);
	l = tc_model_args_end(m, l);
	struct tc_arg a;
	uint32_t p = tc_model_arg_next(m, l, &a);
	ck_assert_uint_eq(a.key, m->key.step);
	ck_assert_int_eq(a.v.i, 7);
	p = tc_model_arg_next(m, p, &a);
	ck_assert_uint_eq(a.key, m->key.flops);
	ck_assert_uint_eq(p, TC_NONE);
	ck_assert(m->event_costs);
	/* A list of none but other keys is no list. */
	l = tc_model_args_begin(m);
	tc_model_arg_uint(m, custom, 3);
	ck_assert_uint_eq(tc_model_args_end(m, l), TC_NONE);
	/* A model with every arg merged in keeps only the known ones too. */
	struct tc_model *src = tc_model_create();
	uint32_t sc = tc_model_intern(src, "stream_id");
	uint32_t dev = tc_model_add_device(src, tc_model_intern(src, "d"), TC_DEV_GPU);
	uint32_t tr = tc_model_add_track(src, dev, tc_model_intern(src, "t"), TC_TRACK_STREAM, 0);
	uint32_t op = tc_model_op(src, tc_model_intern(src, "k"), 0, TC_OP_KERNEL);
	uint32_t ev = tc_model_add_event(src, tr, op, 0, 10, 0);
	l = tc_model_args_begin(src);
	tc_model_arg_int(src, sc, 1);
	tc_model_arg_int(src, src->key.correlation, 42);
	tc_model_set_event_args(src, ev, tc_model_args_end(src, l));
	tc_model_merge(m, src);
	tc_model_destroy(src);
	ck_assert_uint_eq(m->ev.n, 1);
	p = tc_model_arg_next(m, tc_model_event_args(m, 0), &a);
	ck_assert_uint_eq(a.key, m->key.correlation);
	ck_assert_int_eq(a.v.i, 42);
	ck_assert_uint_eq(p, TC_NONE);
	tc_model_destroy(m);
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
	/* An invalid counter's sample first: the bucket gathers from anywhere. */
	tc_model_add_sample(m, 9, 4, 99);
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
	ck_assert_uint_eq(sm->n, 20);
	ck_assert_uint_eq(sm->counter[16], 5);
	ck_assert_int_eq(sm->ts[16], 2);
	ck_assert_uint_eq(sm->counter[17], 5);
	ck_assert_int_eq(sm->ts[17], 9);
	ck_assert_uint_eq(sm->counter[18], 7);
	ck_assert_uint_eq(sm->counter[19], 9);
	ck_assert(sm->value[19] == 99);
	tc_model_destroy(m);
}
END_TEST

/* Counters fed by several sorted runs match a stable sort: equal times
 * keep input order. */
struct ref_sample {
	int64_t ts;
	double v;
};

static int cmp_ref(const void *pa, const void *pb) {
	const struct ref_sample *a = pa, *b = pb;
	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}
	return a->v < b->v ? -1 : a->v > b->v; /* v is the input position */
}

START_TEST(counters_many_runs) {
	static const size_t runs[] = { 2, 3, 16, 63, 64, 65, 100 };
	uint64_t seed = 12345;
	for (size_t t = 0; t < sizeof(runs) / sizeof(runs[0]); t++) {
		struct tc_model *m = tc_model_create();
		uint32_t c = tc_model_counter(m, TC_NONE, tc_model_intern(m, "c"), 0, 0);
		uint32_t other = tc_model_counter(m, TC_NONE, tc_model_intern(m, "o"), 0, 0);
		struct ref_sample *ref = NULL;
		size_t n = 0, cap = 0;
		for (size_t r = 0; r < runs[t]; r++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t len = 1 + (seed >> 33) % 40;
			int64_t ts = (int64_t)((seed >> 20) % 50);
			for (size_t k = 0; k < len; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				ts += (int64_t)((seed >> 40) % 3); /* ties within and across runs */
				TC_GROW(ref, cap, n + 1);
				ref[n] = (struct ref_sample){ ts, (double)n };
				tc_model_add_sample(m, c, ts, (double)n);
				n++;
				tc_model_add_sample(m, other, 1, 0); /* interleaved: not sorted */
			}
			/* Each run ends above the next one's start, so runs stay apart. */
			TC_GROW(ref, cap, n + 1);
			ref[n] = (struct ref_sample){ 1000, (double)n };
			tc_model_add_sample(m, c, 1000, (double)n);
			n++;
		}
		tc_model_finalize(m);
		qsort(ref, n, sizeof(*ref), cmp_ref);
		ck_assert_uint_eq(m->counters[c].count, n);
		for (size_t i = 0; i < n; i++) {
			size_t k = m->counters[c].first + i;
			ck_assert_int_eq(m->samples.ts[k], ref[i].ts);
			ck_assert_msg(m->samples.value[k] == ref[i].v, "runs %zu, sample %zu", runs[t], i);
		}
		free(ref);
		tc_model_destroy(m);
	}
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
	/* An op's own list with costs (as the xplane reader keeps the
	 * metadata's) leaves the flag unset, and merge copies it so. */
	m = tc_model_create();
	b = tc_model_create();
	a = tc_model_args_begin(b);
	tc_model_arg_int(b, b->key.flops, 8);
	uint32_t op = tc_model_add_op(b, tc_model_intern(b, "fusion"), 0, TC_OP_KERNEL);
	b->ops[op].args = tc_model_args_end(b, a);
	b->event_costs = false;
	tc_model_merge(m, b);
	ck_assert(!m->event_costs);
	tc_model_destroy(b);
	tc_model_destroy(m);
}
END_TEST

/* One walk of an event's args gives what the two look-ups give: its own
 * number when it has one that fits, else its op's. */
START_TEST(event_costs_both) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU:0"), TC_DEV_GPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "Stream #1"), TC_TRACK_STREAM, 1);
	uint32_t op = tc_model_add_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	m->ops[op].flops = 100;
	m->ops[op].bytes = 200;
	uint32_t note = tc_model_intern(m, "note");
	for (int i = 0; i < 6; i++) {
		uint32_t e = tc_model_add_event(m, t, op, i * 10, 5, 0);
		uint32_t a = tc_model_args_begin(m);
		tc_model_arg_int(m, note, i);
		if (i == 1) {
			tc_model_arg_int(m, m->key.bytes_accessed, 7);
		} else if (i == 2) {
			tc_model_arg_str(m, m->key.flops, tc_model_intern(m, "12"));
			tc_model_arg_double(m, m->key.bytes_accessed, 3.0);
		} else if (i == 3) {
			tc_model_arg_str(m, m->key.flops, tc_model_intern(m, "many"));
			tc_model_arg_double(m, m->key.bytes_accessed, 1e300);
		} else if (i == 4) {
			tc_model_arg_uint(m, m->key.flops, 9);
			tc_model_arg_uint(m, m->key.flops, 10);
		}
		tc_model_set_event_args(m, e, tc_model_args_end(m, a));
	}
	tc_model_finalize(m);
	static const int64_t want[][2] = {
		{ 100, 200 }, { 100, 7 }, { 12, 3 }, { 100, 200 }, { 9, 200 }, { 100, 200 },
	};
	for (size_t i = 0; i < m->ev.n; i++) {
		int64_t f, b;
		tc_model_event_costs(m, i, &f, &b);
		ck_assert_int_eq(f, want[i][0]);
		ck_assert_int_eq(b, want[i][1]);
		ck_assert_int_eq(f, tc_model_event_flops(m, i));
		ck_assert_int_eq(b, tc_model_event_bytes_accessed(m, i));
	}
	const struct tc_costs *c = tc_model_costs(m);
	ck_assert_int_eq(c->cost[op].flops, 100);
	ck_assert_int_eq(c->cost[op].bytes, 200);
	tc_model_destroy(m);
}
END_TEST

START_TEST(fill_args_flag) {
	struct tc_model *m = tc_model_create();
	uint32_t a = tc_model_args_begin(m);
	tc_model_arg_int(m, m->key.correlation, 1);
	tc_model_args_end(m, a);
	ck_assert(!m->fill_args);
	ck_assert(!m->copy_args);
	struct tc_model *b = tc_model_create();
	a = tc_model_args_begin(b);
	tc_model_arg_double(b, b->key.occupancy, 50);
	tc_model_args_end(b, a);
	ck_assert(b->fill_args);
	ck_assert(!b->copy_args);
	/* A copy's memory kind alone sets copy_args. */
	a = tc_model_args_begin(b);
	tc_model_arg_str(b, b->key.memory_kind, tc_model_intern(b, "pinned"));
	tc_model_args_end(b, a);
	ck_assert(b->copy_args);
	tc_model_merge(m, b);
	ck_assert(m->fill_args);
	ck_assert(m->copy_args);
	tc_model_destroy(b);
	tc_model_destroy(m);
}
END_TEST

/* A model with one device, nt host-thread tracks t0.. (ids in t) and op x
 * (*op). */
static struct tc_model *threads_model(int nt, uint32_t *t, uint32_t *op) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "dev"), TC_DEV_CPU);
	for (int i = 0; i < nt; i++) {
		char name[16];
		snprintf(name, sizeof(name), "t%d", i);
		t[i] = tc_model_add_track(m, d, tc_model_intern(m, name), TC_TRACK_HOST_THREAD, i);
	}
	*op = tc_model_op(m, tc_model_intern(m, "x"), 0, TC_OP_HOST_OP);
	return m;
}

/* Big enough (over 1 M events) for finalize's two-thread reordering: the
 * result must equal the one-thread result, column for column, with flows
 * remapped and an event on an invalid track kept. */
static struct tc_model *interleaved(size_t n) {
	uint32_t t[3], op;
	struct tc_model *m = threads_model(3, t, &op);
	uint32_t d = m->tracks[t[0]].device;
	for (size_t i = 0; i < n; i++) {
		/* Chunks of 7 per track, a parent after its children now and then. */
		uint32_t tr = t[(i / 7) % 3];
		int64_t start = (int64_t)(i / 21) * 100 + (int64_t)(i % 7 == 6 ? 0 : i % 7 + 1);
		uint32_t e = tc_model_add_event(m, tr, op, start, i % 7 == 6 ? 50 : 1, (uint8_t)(i & 1));
		if (i % 1000 == 0) {
			uint32_t a = tc_model_args_begin(m);
			tc_model_arg_int(m, m->key.step, (int64_t)i);
			tc_model_set_event_args(m, e, tc_model_args_end(m, a));
		}
	}
	uint32_t bad = tc_model_add_event(m, t[0], op, 5, 1, 0);
	tc_model_track_column(m)[bad] = 99;
	/* Flows from the events with args to the invalid-track one: finalize
	 * must follow them through the grouping and the per-track sorts. */
	for (size_t i = 0; i < n; i += 1000) {
		tc_model_add_flow(m, (uint32_t)i, bad, TC_FLOW_GENERIC, 1000000 + i);
	}
	/* Enough samples for finalize to sort them on a thread of their own:
	 * two counters interleaved, each in a few sorted runs. */
	uint32_t c[2] = {
		tc_model_counter(m, d, tc_model_intern(m, "c0"), 0, 0),
		tc_model_counter(m, d, tc_model_intern(m, "c1"), 0, 0),
	};
	for (size_t i = 0; i < ((size_t)3 << 17); i++) {
		tc_model_add_sample(m, c[i & 1], (int64_t)(i % 100000), (double)i);
	}
	tc_model_add_flow(m, 0, (uint32_t)n - 1, TC_FLOW_GENERIC, 1);
	return m;
}

START_TEST(event_track_after_finalize) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "dev"), TC_DEV_CPU);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "x"), 0, TC_OP_HOST_OP);
	uint32_t t[5];
	for (int i = 0; i < 5; i++) {
		t[i] = tc_model_add_track(m, d, tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, i);
	}
	/* Tracks 0, 2 and 4 hold events (interleaved); 1 and 3 are empty. */
	for (uint32_t i = 0; i < 12; i++) {
		uint32_t tr = t[(i % 3) * 2];
		tc_model_add_event(m, tr, op, 100 - (int64_t)i, 1, 0);
	}
	tc_model_finalize(m);
	ck_assert(m->ev.track == NULL);
	for (size_t i = 0; i < m->ev.n; i++) {
		uint32_t tr = tc_model_event_track(m, i);
		ck_assert_uint_eq(tr % 2, 0);
		ck_assert(i >= m->tracks[tr].first && i < (size_t)m->tracks[tr].first + m->tracks[tr].count);
	}
	ck_assert_uint_eq(m->tracks[1].count, 0);
	ck_assert_uint_eq(m->tracks[3].count, 0);
	/* An event added after finalize brings the column back, and the next
	 * finalize places it. */
	tc_model_add_event(m, t[3], op, 7, 1, 0);
	ck_assert(m->ev.track != NULL);
	tc_model_finalize(m);
	ck_assert_uint_eq(m->tracks[3].count, 1);
	ck_assert_uint_eq(tc_model_event_track(m, m->tracks[3].first), t[3]);
	size_t per[5] = { 0 };
	for (size_t i = 0; i < m->ev.n; i++) {
		per[tc_model_event_track(m, i)]++;
	}
	ck_assert_uint_eq(per[0], 4);
	ck_assert_uint_eq(per[2], 4);
	ck_assert_uint_eq(per[3], 1);
	ck_assert_uint_eq(per[4], 4);
	tc_model_destroy(m);
}
END_TEST

/* Finalize keeps each track's end, and the span comes from the tracks:
 * both equal a scan of every event (lead events on no track included). */
static void ck_ends(const struct tc_model *m) {
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < m->ev.n; i++) {
		lo = m->ev.start[i] < lo ? m->ev.start[i] : lo;
		hi = tc_model_end(m, i) > hi ? tc_model_end(m, i) : hi;
	}
	int64_t a, b;
	tc_model_span(m, &a, &b);
	ck_assert_int_eq(a, m->ev.n ? lo : 0);
	ck_assert_int_eq(b, m->ev.n ? hi : 0);
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		int64_t end = INT64_MIN;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			end = tc_model_end(m, i) > end ? tc_model_end(m, i) : end;
		}
		if (tr->count) {
			ck_assert_int_eq(tr->end, end);
		}
	}
}

/* Two finalized models of the same events agree on every track's range and
 * nesting depth. */
static void ck_same_tracks(const struct tc_model *a, const struct tc_model *b) {
	ck_assert_uint_eq(a->n_tracks, b->n_tracks);
	for (size_t t = 0; t < a->n_tracks; t++) {
		ck_assert_uint_eq(a->tracks[t].first, b->tracks[t].first);
		ck_assert_uint_eq(a->tracks[t].count, b->tracks[t].count);
		ck_assert_uint_eq(a->tracks[t].max_depth, b->tracks[t].max_depth);
	}
}

/* The grouped path (no event moves) and the grouping path agree: the same
 * nested events in order, reversed, and grouped by track but each track
 * reversed (only its sort is left). A flow links two events by content. */
enum order { IN_ORDER, REVERSED, TRACKS_REVERSED };

static struct tc_model *nested(enum order order) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "dev"), TC_DEV_CPU);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "x"), 0, TC_OP_HOST_OP);
	uint32_t t[4];
	for (int i = 0; i < 4; i++) {
		t[i] = tc_model_add_track(m, d, tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, i);
	}
	/* Track 1 stays empty; nesting up to depth 3 with equal starts and an
	 * instant. */
	static const int64_t ev[][3] = {
		{ 0, 0, 100 }, { 0, 0, 50 }, { 0, 10, 20 }, { 0, 12, 2 }, { 0, 12, 0 }, { 0, 60, 10 },
		{ 2, 5, 5 }, { 2, 10, 5 }, { 2, 10, 1 },
		{ 3, 0, 1000 }, { 3, 1, 1 }, { 3, 999, 1 },
	};
	size_t n = sizeof(ev) / sizeof(ev[0]);
	uint32_t from = TC_NONE, to = TC_NONE;
	for (size_t k = 0; k < n; k++) {
		size_t i = order == REVERSED ? n - 1 - k : k;
		if (order == TRACKS_REVERSED) {
			/* k's place in its track's run, counted from the run's end */
			size_t lo = k, hi = k;
			while (lo > 0 && ev[lo - 1][0] == ev[k][0]) {
				lo--;
			}
			while (hi + 1 < n && ev[hi + 1][0] == ev[k][0]) {
				hi++;
			}
			i = hi - (k - lo);
		}
		uint32_t e = tc_model_add_event(m, t[ev[i][0]], op, ev[i][1], ev[i][2], 0);
		from = ev[i][1] == 60 ? e : from;
		to = ev[i][1] == 999 ? e : to;
	}
	tc_model_add_flow(m, from, to, TC_FLOW_GENERIC, 1);
	tc_model_finalize(m);
	ck_ends(m);
	ck_assert_int_eq(m->ev.start[m->flows[0].from], 60);
	ck_assert_int_eq(m->ev.start[m->flows[0].to], 999);
	return m;
}

START_TEST(finalize_in_order_path) {
	struct tc_model *a = nested(IN_ORDER);
	for (enum order o = REVERSED; o <= TRACKS_REVERSED; o++) {
		struct tc_model *b = nested(o);
		ck_assert_uint_eq(a->ev.n, b->ev.n);
		ck_same_tracks(a, b);
		ck_assert(memcmp(a->ev.start, b->ev.start, a->ev.n * sizeof(int64_t)) == 0);
		ck_assert(memcmp(a->ev.dur, b->ev.dur, a->ev.n * sizeof(int64_t)) == 0);
		ck_assert(memcmp(a->ev.depth, b->ev.depth, a->ev.n * sizeof(uint16_t)) == 0);
		ck_assert_uint_eq(a->flows[0].from, b->flows[0].from);
		ck_assert_uint_eq(a->flows[0].to, b->flows[0].to);
		tc_model_destroy(b);
	}
	static const uint16_t want[] = { 0, 1, 2, 3, 4, 1, 0, 0, 1, 0, 1, 1 };
	for (size_t i = 0; i < a->ev.n; i++) {
		ck_assert_uint_eq(a->ev.depth[i], want[i]);
	}
	ck_assert_uint_eq(a->tracks[0].max_depth, 4);
	ck_assert_uint_eq(a->tracks[1].count, 0);
	ck_assert_uint_eq(a->tracks[1].first, 6);
	tc_model_destroy(a);
}
END_TEST

/* Tracks of nested events (parent, child, grandchild, sibling: depths 0 1
 * 2 2), in chunks of 5 across 4 tracks or grouped; the last track is
 * written backwards, so it is sorted after the depth pass gives up on it. */
static struct tc_model *nested_tracks(size_t n, bool grouped) {
	uint32_t t[4], op;
	struct tc_model *m = threads_model(4, t, &op);
	static const int64_t dur[4] = { 50, 20, 1, 1 };
	size_t per = n / 4, c[4] = { 0 };
	for (size_t i = 0; i < 4 * per; i++) {
		size_t k = grouped ? i / per : (i / 5) % 4;
		size_t p = k == 3 ? per - 1 - c[k]++ : c[k]++;
		tc_model_add_event(m, t[k], op, (int64_t)(p / 4) * 100 + (int64_t)(p % 4),
			dur[p % 4], 0);
	}
	return m;
}

/* An event as added, for the reference order. */
struct ev_ref {
	int64_t start, dur;
	uint32_t idx, op;
};

static int cmp_ev_ref(const void *pa, const void *pb) {
	const struct ev_ref *a = pa, *b = pb;
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->dur != b->dur) {
		return a->dur > b->dur ? -1 : 1;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* A track's sort equals qsort's on the orders that take each of its paths:
 * nearly sorted (insertion), parents after their children (insertion over
 * subtrees), reversed and shuffled (merges). Starts repeat, so the ties
 * (longer first, then input order) count; op tells events apart. */
START_TEST(finalize_sort_orders) {
	const size_t n = 50000;
	struct ev_ref *ref = malloc(n * sizeof(*ref));
	ck_assert_ptr_nonnull(ref);
	for (int order = 0; order < 4; order++) {
		uint32_t t[1], op0;
		struct tc_model *m = threads_model(1, t, &op0);
		uint32_t ops[64];
		for (int k = 0; k < 64; k++) {
			char name[8];
			snprintf(name, sizeof(name), "o%d", k);
			ops[k] = tc_model_op(m, tc_model_intern(m, name), 0, TC_OP_HOST_OP);
		}
		uint64_t x = 88172645463325252ull;
		for (size_t i = 0; i < n; i++) {
			size_t p;
			switch (order) {
			case 0: p = i % 1000 == 999 ? i - 500 : i; break;
			case 1: p = i % 3 == 2 ? i - 2 : i + 1; break; /* parent at i - 2 */
			case 2: p = n - 1 - i; break;
			default:
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				p = (size_t)(x % n);
			}
			ref[i] = (struct ev_ref){
				.start = (int64_t)(p / 2) * 10,
				.dur = order == 1 && i % 3 == 2 ? 25 : (int64_t)(p % 2) + 1,
				.idx = (uint32_t)i, .op = ops[(i * 7) % 64],
			};
			tc_model_add_event(m, t[0], ref[i].op, ref[i].start, ref[i].dur, 0);
		}
		tc_model_finalize(m);
		qsort(ref, n, sizeof(*ref), cmp_ev_ref);
		ck_assert_uint_eq(m->tracks[t[0]].count, n);
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_eq(m->ev.start[i], ref[i].start);
			ck_assert_int_eq(m->ev.dur[i], ref[i].dur);
			ck_assert_uint_eq(m->ev.op[i], ref[i].op);
		}
		tc_model_destroy(m);
	}
	free(ref);
}
END_TEST

/* Depths set by two threads, on both paths, are the serial ones. */
START_TEST(finalize_depths_two_threads) {
	size_t n = 4 * 263145; /* over 1 << 20; a track a multiple of 5 */
	for (int grouped = 0; grouped <= 1; grouped++) {
		struct tc_model *a = nested_tracks(n, grouped), *b = nested_tracks(n, grouped);
		tc_model_finalize_mt(a, false);
		tc_model_finalize_mt(b, true);
		ck_same_tracks(a, b);
		ck_assert(memcmp(a->ev.start, b->ev.start, a->ev.n * sizeof(int64_t)) == 0);
		ck_assert(memcmp(a->ev.depth, b->ev.depth, a->ev.n * sizeof(uint16_t)) == 0);
		ck_assert(b->ev.track == NULL);
		static const uint16_t want[4] = { 0, 1, 2, 2 };
		for (uint32_t t = 0; t < b->n_tracks; t++) {
			const struct tc_track *tr = &b->tracks[t];
			ck_assert_uint_eq(tr->count, n / 4);
			ck_assert_uint_eq(tr->max_depth, 2);
			for (size_t i = 0; i < tr->count; i++) {
				ck_assert_uint_eq(b->ev.depth[tr->first + i], want[i % 4]);
			}
		}
		tc_model_destroy(a);
		tc_model_destroy(b);
	}
}
END_TEST

START_TEST(finalize_two_threads) {
	size_t n = ((size_t)1 << 20) + 4321;
	struct tc_model *a = interleaved(n), *b = interleaved(n);
	tc_model_finalize_mt(a, false);
	tc_model_finalize_mt(b, true);
	ck_ends(a);
	ck_ends(b);
	ck_assert_uint_eq(a->ev.n, b->ev.n);
	size_t k = a->ev.n;
	ck_assert(memcmp(a->ev.start, b->ev.start, k * sizeof(int64_t)) == 0);
	ck_assert(memcmp(a->ev.dur, b->ev.dur, k * sizeof(int64_t)) == 0);
	ck_assert(memcmp(a->ev.op, b->ev.op, k * sizeof(uint32_t)) == 0);
	/* Finalize drops the track column; the ranges say the same. */
	ck_assert(a->ev.track == NULL && b->ev.track == NULL);
	ck_same_tracks(a, b);
	for (size_t i = 0; i < k; i++) {
		ck_assert_uint_eq(tc_model_event_args(a, i), tc_model_event_args(b, i));
	}
	ck_assert(memcmp(a->ev.flags, b->ev.flags, k) == 0);
	ck_assert(memcmp(a->ev.depth, b->ev.depth, k * sizeof(uint16_t)) == 0);
	ck_assert_uint_eq(a->n_flows, b->n_flows);
	for (size_t i = 0; i < b->n_flows; i++) {
		ck_assert_uint_eq(a->flows[i].from, b->flows[i].from);
		ck_assert_uint_eq(a->flows[i].to, b->flows[i].to);
		if (b->flows[i].id < 1000000) {
			continue;
		}
		/* Still the event that carries its number, and the invalid one. */
		struct tc_arg arg;
		ck_assert(tc_model_arg_find(b, tc_model_event_args(b, b->flows[i].from),
			b->key.step, &arg));
		ck_assert_int_eq(arg.v.i, (int64_t)(b->flows[i].id - 1000000));
		ck_assert_uint_eq(b->flows[i].to, 0);
	}
	ck_assert_uint_eq(a->samples.n, b->samples.n);
	ck_assert(memcmp(a->samples.ts, b->samples.ts, a->samples.n * sizeof(int64_t)) == 0);
	ck_assert(memcmp(a->samples.value, b->samples.value, a->samples.n * sizeof(double)) == 0);
	for (size_t c = 0; c < a->n_counters; c++) {
		ck_assert_uint_eq(a->counters[c].first, b->counters[c].first);
		ck_assert_uint_eq(a->counters[c].count, b->counters[c].count);
		for (size_t i = 1; i < b->counters[c].count; i++) {
			size_t at = b->counters[c].first + i;
			ck_assert_int_le(b->samples.ts[at - 1], b->samples.ts[at]);
		}
	}
	/* The invalid-track event comes first; tracks are sorted by start. */
	ck_assert_uint_eq(tc_model_event_track(b, 0), TC_NONE);
	ck_assert_uint_eq(b->tracks[0].first, 1);
	for (uint32_t t = 0; t < b->n_tracks; t++) {
		const struct tc_track *tr = &b->tracks[t];
		for (size_t i = tr->first + 1; i < (size_t)tr->first + tr->count; i++) {
			ck_assert_uint_eq(tc_model_event_track(b, i), t);
			ck_assert(b->ev.start[i - 1] <= b->ev.start[i]);
		}
	}
	tc_model_destroy(a);
	tc_model_destroy(b);
}
END_TEST

/* Per track k of 3, event j: the same events added in chunks of c per
 * track, with one on an invalid track among track 0's and two flows. Step
 * args number the events with args, to compare them by content. */
static struct tc_model *chunked(size_t per, size_t c) {
	uint32_t t[3], op;
	struct tc_model *m = threads_model(3, t, &op);
	size_t at[3] = { 0 };
	uint32_t from = TC_NONE, to = TC_NONE, bad = TC_NONE;
	while (at[0] < per || at[1] < per || at[2] < per) {
		for (size_t k = 0; k < 3; k++) {
			for (size_t q = 0; q < c && at[k] < per; q++) {
				size_t j = at[k]++;
				/* A parent after its two children: every track is sorted. */
				int64_t start = (int64_t)(j / 3) * 100 + (int64_t)(j % 3 == 2 ? 0 : j % 3 + 1);
				uint32_t e = tc_model_add_event(m, t[k], op, start, j % 3 == 2 ? 50 : 1,
					(uint8_t)(j & 1));
				if (j % 1000 == 0) {
					uint32_t a = tc_model_args_begin(m);
					tc_model_arg_int(m, m->key.step, (int64_t)(k * per + j));
					tc_model_set_event_args(m, e, tc_model_args_end(m, a));
				}
				from = k == 1 && j == per / 2 ? e : from;
				to = k == 2 && j == per - 1 ? e : to;
				if (k == 0 && j == 10) {
					/* It ends last: the span must look at it. */
					bad = tc_model_add_event(m, t[0], op, 5, (int64_t)per * 100, 0);
					tc_model_track_column(m)[bad] = 99;
				}
			}
		}
	}
	tc_model_add_flow(m, from, to, TC_FLOW_GENERIC, 1);
	tc_model_add_flow(m, from, bad, TC_FLOW_GENERIC, 2);
	return m;
}

/* Grouping moves long runs of a track whole (chunks of 100 here) and short
 * ones an event at a time (chunks of 1): both give the same model, on one
 * thread and on two. */
START_TEST(finalize_runs) {
	size_t per = 350000; /* 3 tracks: over 1 << 20 events, for two threads */
	for (int threads = 0; threads <= 1; threads++) {
		struct tc_model *a = chunked(per, 1), *b = chunked(per, 100);
		tc_model_finalize_mt(a, threads);
		tc_model_finalize_mt(b, threads);
		ck_ends(a);
		ck_ends(b);
		size_t k = a->ev.n;
		ck_assert_uint_eq(k, b->ev.n);
		ck_same_tracks(a, b);
		ck_assert_uint_eq(tc_model_event_track(b, 0), TC_NONE);
		ck_assert(memcmp(a->ev.start, b->ev.start, k * sizeof(int64_t)) == 0);
		ck_assert(memcmp(a->ev.dur, b->ev.dur, k * sizeof(int64_t)) == 0);
		ck_assert(memcmp(a->ev.op, b->ev.op, k * sizeof(uint32_t)) == 0);
		ck_assert(memcmp(a->ev.flags, b->ev.flags, k) == 0);
		ck_assert(memcmp(a->ev.depth, b->ev.depth, k * sizeof(uint16_t)) == 0);
		size_t with_args = 0;
		for (size_t i = 0; i < k; i++) {
			ck_assert_int_eq(tc_model_event_args(a, i) == TC_NONE,
				tc_model_event_args(b, i) == TC_NONE);
			if (tc_model_event_args(a, i) == TC_NONE) {
				continue;
			}
			struct tc_arg x, y;
			ck_assert(tc_model_arg_find(a, tc_model_event_args(a, i), a->key.step, &x));
			ck_assert(tc_model_arg_find(b, tc_model_event_args(b, i), b->key.step, &y));
			ck_assert_int_eq(x.v.i, y.v.i);
			with_args++;
		}
		ck_assert_uint_eq(with_args, 3 * (per / 1000)); /* j % 1000 == 0 */
		ck_assert_uint_eq(a->n_flows, 2);
		for (size_t i = 0; i < 2; i++) {
			ck_assert_uint_eq(a->flows[i].from, b->flows[i].from);
			ck_assert_uint_eq(a->flows[i].to, b->flows[i].to);
		}
		ck_assert_uint_eq(b->flows[1].to, 0); /* the invalid-track event */
		ck_assert_uint_eq(tc_model_event_track(b, b->flows[0].to), 2);
		tc_model_destroy(a);
		tc_model_destroy(b);
	}
}
END_TEST

/* Devices with the same tc_host_tracks_keys key get the same host lines: their
 * host's own threads, or every thread where that host has none or holds
 * them all. */
START_TEST(host_tracks_key) {
	/* Hosts a and b, each with a CPU and a GPU device (cpu[h], gpu[h]). */
	struct tc_model *m = tc_model_create();
	uint32_t host[2], cpu[2], gpu[2];
	for (int h = 0; h < 2; h++) {
		host[h] = tc_model_add_host(m, tc_model_intern(m, h ? "b" : "a"), TC_NONE);
		cpu[h] = tc_model_add_device(m, tc_model_intern(m, "cpu"), TC_DEV_CPU);
		gpu[h] = tc_model_add_device(m, tc_model_intern(m, "gpu"), TC_DEV_GPU);
	}
	uint32_t ta = tc_model_add_track(m, cpu[0], tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, 1);
	tc_model_add_track(m, cpu[1], tc_model_intern(m, "c"), TC_TRACK_COUNTER, 2);
	tc_model_add_track(m, gpu[0], tc_model_intern(m, "s"), TC_TRACK_STREAM, 7);
	tc_model_finalize(m);
	/* b names only a counter: its threads are none of every host's. */
	size_t n;
	uint32_t *v = tc_host_tracks(m, gpu[1], &n);
	ck_assert_uint_eq(n, 0);
	free(v);
	uint32_t *key = tc_host_tracks_keys(m);
	ck_assert_uint_eq(tc_host_tracks_key_of(m, key, gpu[1]), host[1]);
	/* a holds every thread: the same lines as no host. */
	v = tc_host_tracks(m, gpu[0], &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[0], ta);
	free(v);
	ck_assert_uint_eq(tc_host_tracks_key_of(m, key, gpu[0]), TC_NONE);
	ck_assert_uint_eq(tc_host_tracks_key_of(m, key, TC_NONE), TC_NONE);
	free(key);
	/* A thread on b too: a's lines are a's alone. */
	tc_model_destroy(m);
	m = tc_model_create();
	for (int h = 0; h < 2; h++) {
		host[h] = tc_model_add_host(m, tc_model_intern(m, h ? "b" : "a"), TC_NONE);
		cpu[h] = tc_model_add_device(m, tc_model_intern(m, "cpu"), TC_DEV_CPU);
		gpu[h] = tc_model_add_device(m, tc_model_intern(m, "gpu"), TC_DEV_GPU);
		tc_model_add_track(m, cpu[h], tc_model_intern(m, "t"), TC_TRACK_HOST_THREAD, h);
	}
	tc_model_finalize(m);
	v = tc_host_tracks(m, gpu[0], &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(m->tracks[v[0]].device, cpu[0]);
	free(v);
	key = tc_host_tracks_keys(m);
	ck_assert_uint_eq(tc_host_tracks_key_of(m, key, gpu[0]), host[0]);
	ck_assert_uint_eq(tc_host_tracks_key_of(m, key, gpu[1]), host[1]);
	free(key);
	v = tc_host_tracks(m, TC_NONE, &n);
	ck_assert_uint_eq(n, 2);
	free(v);
	tc_model_destroy(m);
}
END_TEST

/* A host with its source, device (pid) and one event, for the rank tests. */
static void add_rank_host(struct tc_model *m, const char *path, const char *host,
		int64_t pid) {
	uint32_t src = tc_model_add_source(m, path, "json", "none", 1, 1);
	tc_model_add_host(m, tc_model_intern(m, host), src);
	uint32_t cpu = tc_model_add_device(m, tc_model_intern(m, "python3"), TC_DEV_CPU);
	m->devices[cpu].pid = pid;
	uint32_t gpu = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t = tc_model_add_track(m, gpu, tc_model_intern(m, "s"), TC_TRACK_STREAM, 7);
	tc_model_add_event(m, t, tc_model_op(m, tc_model_intern(m, path), 0, TC_OP_KERNEL),
		(int64_t)pid, 10, 0);
}

/* Ranks from the trace, host and file names, then file order; pids onto
 * GPUs; a missing rank warned by number; a subset keeps ids and times. */
START_TEST(ranks_assigned) {
	struct tc_model *m = tc_model_create();
	add_rank_host(m, "/r/a.json", "node-a", 10);
	m->hosts[0].rank = 4;
	m->hosts[0].rank_from = TC_RANK_READER;
	m->hosts[0].world_size = 6;
	add_rank_host(m, "/r/b.json", "rank 2", 11);
	add_rank_host(m, "/r/train_worker-005.json", "x", 12);
	add_rank_host(m, "/r/RANK_0.json", "y", 13);
	add_rank_host(m, "/r/rank1_host.json", "z", 14);
	tc_model_assign_ranks(m);
	const int32_t want[] = { 4, 2, 5, 0, 1 };
	for (size_t h = 0; h < 5; h++) {
		ck_assert_int_eq(m->hosts[h].rank, want[h]);
		ck_assert_int_eq(tc_model_device_rank(m, (uint32_t)(2 * h + 1)), want[h]);
		ck_assert_int_eq(m->devices[2 * h + 1].pid, 10 + (int64_t)h);
	}
	ck_assert_uint_eq(tc_model_n_ranks(m), 5);
	ck_assert_uint_eq(m->n_warnings, 1);
	ck_assert_str_eq(tc_model_str(m, m->warnings[0].msg), "world_size is 6 but 5 ranks "
		"were read: missing rank 3; collectives are matched over the ranks read");
	char buf[64];
	tc_model_device_label(m, 3, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rank 2: GPU 0");
	/* A world_size of 2^31 - 1 (it is input) is counted by gaps, at once. */
	struct tc_model *big = tc_model_create();
	add_rank_host(big, "/r/rank3.json", "a", 10);
	add_rank_host(big, "/r/rank0.json", "b", 11);
	big->hosts[0].world_size = INT32_MAX;
	tc_model_assign_ranks(big);
	ck_assert_uint_eq(big->n_warnings, 1);
	ck_assert_str_eq(tc_model_str(big, big->warnings[0].msg), "world_size is 2147483647 but 2 "
		"ranks were read: missing ranks 1, 2, 4, 5, 6, 7, 8, 9, ...; collectives are matched "
		"over the ranks read");
	tc_model_destroy(big);
	tc_model_finalize(m);
	uint8_t keep[5] = { 0, 0, 1, 0, 0 };
	struct tc_model *s = tc_model_subset(m, keep);
	ck_assert_uint_eq(s->n_devices, m->n_devices);
	ck_assert_uint_eq(s->ev.n, 1);
	ck_assert_int_eq(s->ev.start[0], 12);
	ck_assert_uint_eq(s->ev.op[0], m->ev.op[2]);
	ck_assert_uint_eq(s->tracks[0].device, 5);
	ck_assert_uint_eq(tc_model_n_ranks(s), 1);
	tc_model_destroy(s);
	tc_model_destroy(m);

	/* Nothing names a rank: the files' order; two claims of one rank too
	 * (with a warning). */
	const char *hosts[2][2] = { { "b", "c" }, { "rank 3", "rank 3" } };
	for (size_t k = 0; k < 2; k++) {
		m = tc_model_create();
		add_rank_host(m, "/r/host-b.xplane.pb", hosts[k][0], 1);
		add_rank_host(m, "/r/host-c.xplane.pb", hosts[k][1], 2);
		tc_model_assign_ranks(m);
		ck_assert_int_eq(m->hosts[0].rank, 0);
		ck_assert_int_eq(m->hosts[1].rank, 1);
		ck_assert_int_eq(m->hosts[1].rank_from, TC_RANK_ORDER);
		ck_assert_uint_eq(m->n_warnings, k);
		tc_model_destroy(m);
	}
}
END_TEST

static void curve_alloc(struct tc_model *m, int64_t ts, int64_t bytes, uint64_t addr,
		uint32_t device, int64_t total) {
	struct tc_alloc a = {
		.ts = ts, .bytes = bytes, .total = total, .addr = addr, .device = device,
		.track = TC_NONE, .op = TC_NONE, .shape = TC_NONE, .dtype = TC_NONE,
	};
	tc_model_add_alloc(m, &a);
}

struct points {
	int64_t ts[8];
	double v[8];
	size_t n;
};

static void curve_point(void *ctx, size_t rec, int64_t ts, double v) {
	struct points *p = ctx;
	(void)rec;
	ck_assert_uint_lt(p->n, 8);
	p->ts[p->n] = ts;
	p->v[p->n++] = v;
}

/*
 * The curves allocator records draw: the baseline from frees of buffers
 * the trace did not see allocated (or from the trace's own total), the
 * value after each record, its peak over those values; none for a device
 * with a memory.allocated counter of its own.
 */
START_TEST(memcurve_from_records) {
	struct tc_model *m = tc_model_create();
	uint32_t g0 = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t g1 = tc_model_add_device(m, tc_model_intern(m, "GPU 1"), TC_DEV_GPU);
	uint32_t g2 = tc_model_add_device(m, tc_model_intern(m, "GPU 2"), TC_DEV_GPU);
	uint32_t g3 = tc_model_add_device(m, tc_model_intern(m, "GPU 3"), TC_DEV_GPU);
	/* GPU 0, out of order: 100 B live at the start (0xf0 freed unseen). */
	curve_alloc(m, 160, 64, 0xa0, g0, -1);
	curve_alloc(m, 50, -100, 0xf0, g0, -1);
	curve_alloc(m, 120, 32, 0xb0, g0, -1);
	curve_alloc(m, 200, 16, 0xc0, g0, -1);
	curve_alloc(m, 400, -64, 0xa0, g0, -1);
	/* GPU 1 has a counter: the trace's, whatever its records say. */
	uint32_t c = tc_model_counter(m, g1, tc_model_intern(m, "memory.allocated"),
		tc_model_intern(m, "bytes"), 0);
	tc_model_add_sample(m, c, 10, 5);
	curve_alloc(m, 10, 1000, 0xa0, g1, -1);
	/* GPU 2 only frees: the peak is the highest value after a record, as
	 * a counter's (memview's allocator peak counts the start too). */
	curve_alloc(m, 10, -50, 0xd0, g2, -1);
	curve_alloc(m, 20, -30, 0xe0, g2, -1);
	/* GPU 3: the trace's total says 100 B were live before. */
	curve_alloc(m, 10, 10, 0xa0, g3, 110);
	curve_alloc(m, 20, -40, 0xf0, g3, -1);
	tc_model_finalize(m);

	struct tc_mem_curve *cv;
	ck_assert_uint_eq(tc_mem_curves(m, &cv), 3);
	ck_assert_uint_eq(cv[0].device, g0);
	ck_assert_uint_eq(cv[0].records, 5);
	ck_assert_int_eq(cv[0].baseline, 100);
	ck_assert_int_eq(cv[0].peak_bytes, 112);
	ck_assert_int_eq(cv[0].peak_ps, 200);
	struct points p = { .n = 0 };
	tc_mem_curve_walk(m, &cv[0], curve_point, &p);
	ck_assert_uint_eq(p.n, 5);
	const double want[] = { 0, 32, 96, 112, 48 };
	for (size_t i = 0; i < 5; i++) {
		ck_assert_double_eq(p.v[i], want[i]);
	}
	ck_assert_int_eq(p.ts[0], 50);
	ck_assert_uint_eq(cv[1].device, g2);
	ck_assert_int_eq(cv[1].baseline, 80);
	ck_assert_int_eq(cv[1].peak_bytes, 30);
	ck_assert_int_eq(cv[1].peak_ps, 10);
	ck_assert_uint_eq(cv[2].device, g3);
	ck_assert_int_eq(cv[2].baseline, 100);
	ck_assert_int_eq(cv[2].peak_bytes, 110);
	free(cv);
	tc_model_destroy(m);
}
END_TEST

int main(void) {
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, finalize_sorts_and_nests);
	tcase_add_test(tc, event_track_after_finalize);
	tcase_add_test(tc, finalize_in_order_path);
	tcase_add_test(tc, finalize_runs);
	tcase_add_test(tc, args_and_costs);
	tcase_add_test(tc, merge_models);
	tcase_add_test(tc, op_kinds_packed);
	tcase_add_test(tc, args_encoding);
	tcase_add_test(tc, args_merge_remap);
	tcase_add_test(tc, args_cap);
	tcase_add_test(tc, args_one);
	tcase_add_test(tc, args_known_only);
	tcase_add_test(tc, counters_sorted);
	tcase_add_test(tc, counters_merge_runs);
	tcase_add_test(tc, counters_many_runs);
	tcase_add_test(tc, event_costs_flag);
	tcase_add_test(tc, event_costs_both);
	tcase_add_test(tc, fill_args_flag);
	tcase_add_test(tc, finalize_two_threads);
	tcase_add_test(tc, finalize_depths_two_threads);
	tcase_add_test(tc, finalize_sort_orders);
	tcase_add_test(tc, ranks_assigned);
	tcase_add_test(tc, host_tracks_key);
	tcase_add_test(tc, memcurve_from_records);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
