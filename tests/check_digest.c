#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/digest.h"
#include "util/select.h"
#include "util/xalloc.h"
#include "tc_test.h"

/* Deterministic durations: a log-uniform spread from 1 us to 10 ms, ps. */
static int64_t *durations(size_t n, uint64_t seed) {
	int64_t *v = tc_xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		double u = (double)(seed >> 11) / 9007199254740992.0;
		v[i] = (int64_t)(1e6 * pow(1e4, u));
	}
	return v;
}

START_TEST(sketch_exact_percentiles) {
	struct tc_arena a;
	tc_arena_init(&a, 4096);
	int64_t v[] = { 700, 100, 300, 300, 900, 100, 500 };
	size_t n = sizeof(v) / sizeof(v[0]);
	int64_t w[sizeof(v) / sizeof(v[0])];
	memcpy(w, v, sizeof(v));
	Tracectl__Sketch *s = tc_sketch_build(&a, v, n);
	ck_assert(!s->bucketed);
	ck_assert_uint_eq(s->n_values, 5);
	for (double p = 1; p <= 100; p += 7) {
		int64_t want = tc_percentile_i64(w, n, p);
		ck_assert_int_eq(tc_sketch_percentile(s, n, p, 100, 900), want);
	}
	tc_arena_finish(&a);
}
END_TEST

/* Past the exact limit, a percentile is within alpha of the exact one. */
START_TEST(sketch_bucket_error) {
	struct tc_arena a;
	tc_arena_init(&a, 4096);
	size_t n = 20000;
	int64_t *v = durations(n, 7), *w = tc_xmalloc(n * sizeof(*w));
	memcpy(w, v, n * sizeof(*w));
	Tracectl__Sketch *s = tc_sketch_build(&a, v, n);
	ck_assert(s->bucketed);
	const double ps[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 100 };
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = (double)tc_percentile_i64(w, n, ps[i]);
		double got = (double)tc_sketch_percentile(s, n, ps[i], v[0], v[n - 1]);
		ck_assert_msg(fabs(got - want) <= TC_SKETCH_ALPHA * want + 1,
			"p%g: %g against %g", ps[i], got, want);
	}
	free(v);
	free(w);
	tc_arena_finish(&a);
}
END_TEST

/* A one-rank digest with one op whose durations are v[0..n). */
static void rank_digest(struct tc_digest *d, int number, int64_t *v, size_t n) {
	Tracectl__Digest *msg = tc_digest_new_msg(d);
	Tracectl__Rank *r = tc_arena_calloc(&d->arena, sizeof(*r));
	tracectl__rank__init(r);
	r->name = tc_arena_strfmt(&d->arena, "rank %d", number);
	r->number = number;
	r->input = tc_arena_strfmt(&d->arena, "r%d.json", number);
	r->n_strings = 2;
	r->strings = tc_arena_calloc(&d->arena, 2 * sizeof(char *));
	r->strings[0] = tc_arena_strdup(&d->arena, "");
	r->strings[1] = tc_arena_strdup(&d->arena, "gemm");
	Tracectl__OpStat *o = tc_arena_calloc(&d->arena, sizeof(*o));
	tracectl__op_stat__init(o);
	o->name = 1;
	o->count = n;
	o->min_ps = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		o->total_ps += v[i];
		o->self_ps += v[i];
		o->min_ps = v[i] < o->min_ps ? v[i] : o->min_ps;
		o->max_ps = v[i] > o->max_ps ? v[i] : o->max_ps;
	}
	o->flops = -1;
	o->bytes = -1;
	o->sketch = tc_sketch_build(&d->arena, v, n);
	r->n_ops = 1;
	r->ops = tc_arena_calloc(&d->arena, sizeof(*r->ops));
	r->ops[0] = o;
	msg->n_ranks = 1;
	msg->ranks = tc_arena_calloc(&d->arena, sizeof(*msg->ranks));
	msg->ranks[0] = r;
}

static uint8_t *packed(const struct tc_digest *d, size_t *n) {
	*n = tracectl__digest__get_packed_size(d->msg);
	uint8_t *b = tc_xmalloc(*n);
	tracectl__digest__pack(d->msg, b);
	return b;
}

/* Merge digests in[order[0..n)] into out. */
static void merge(struct tc_digest *const *in, const size_t *order, size_t n,
		struct tc_digest *out) {
	struct tc_digest *v[8];
	for (size_t i = 0; i < n; i++) {
		v[i] = in[order[i]];
	}
	struct tc_error err;
	tc_error_init(&err);
	tc_digest_init(out);
	ck_assert(tc_digest_merge(v, NULL, n, out, &err));
}

/* Four ranks of 100 distinct durations each: pairs stay exact, the whole
 * job becomes buckets; every order and grouping packs to the same bytes. */
START_TEST(merge_order_and_grouping) {
	struct tc_digest d[4], *p[4];
	for (int i = 0; i < 4; i++) {
		int64_t *v = durations(100, (uint64_t)i + 1);
		tc_digest_init(&d[i]);
		rank_digest(&d[i], i, v, 100);
		p[i] = &d[i];
		free(v);
	}
	struct tc_digest flat, rev, ab, cd, abcd, bc, bca, bcad;
	merge(p, (size_t[]){ 0, 1, 2, 3 }, 4, &flat);
	merge(p, (size_t[]){ 3, 1, 0, 2 }, 4, &rev);
	merge(p, (size_t[]){ 1, 0 }, 2, &ab);
	merge(p, (size_t[]){ 2, 3 }, 2, &cd);
	ck_assert(!ab.msg->job_ops[0]->sketch->bucketed);
	merge((struct tc_digest *[]){ &cd, &ab }, (size_t[]){ 0, 1 }, 2, &abcd);
	merge(p, (size_t[]){ 2, 1 }, 2, &bc);
	merge((struct tc_digest *[]){ &bc, p[0] }, (size_t[]){ 1, 0 }, 2, &bca);
	merge((struct tc_digest *[]){ p[3], &bca }, (size_t[]){ 0, 1 }, 2, &bcad);
	ck_assert(flat.msg->job_ops[0]->sketch->bucketed);
	ck_assert_uint_eq(flat.msg->job_ops[0]->count, 400);
	size_t n0, n;
	uint8_t *b0 = packed(&flat, &n0);
	struct tc_digest *others[] = { &rev, &abcd, &bcad };
	for (size_t i = 0; i < 3; i++) {
		uint8_t *b = packed(others[i], &n);
		ck_assert_uint_eq(n, n0);
		ck_assert(memcmp(b, b0, n) == 0);
		free(b);
	}
	free(b0);
	/* A rank given twice is an error naming it. */
	struct tc_digest twice;
	struct tc_error err;
	tc_error_init(&err);
	tc_digest_init(&twice);
	ck_assert(!tc_digest_merge((struct tc_digest *[]){ &ab, p[1] },
		(const char *[]){ "ab.tcd", "b.tcd" }, 2, &twice, &err));
	ck_assert_str_eq(err.msg, "rank 1 is given twice (in 'ab.tcd' and 'b.tcd')");
	tc_digest_finish(&twice);
	struct tc_digest *all[] = { &flat, &rev, &ab, &cd, &abcd, &bc, &bca, &bcad };
	for (size_t i = 0; i < 8; i++) {
		tc_digest_finish(all[i]);
	}
	for (int i = 0; i < 4; i++) {
		tc_digest_finish(&d[i]);
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("digest");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sketch_exact_percentiles);
	tcase_add_test(tc, sketch_bucket_error);
	tcase_add_test(tc, merge_order_and_grouping);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
