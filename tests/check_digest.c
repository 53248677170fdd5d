/*
 * Check suite for digests: duration sketches, merge order and grouping,
 * collective tables, what a digest read from a file may hold, and where a
 * job names a rank in findings of digests old and new.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/coll_gather.h"
#include "analysis/passes.h"
#include "digest/colltable.h"
#include "digest/msg.h"
#include "digest/view.h"
#include "model/findings.h"
#include "model/model.h"
#include "model/rank.h"
#include "tc_test.h"
#include "util/arena.h"
#include "util/select.h"
#include "util/xalloc.h"

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

/* d's message packed, d finished, and the bytes unpacked again; *bytes
 * (free it after the message) holds them. */
static Tracectl__Digest *repacked(struct tc_digest *d, uint8_t **bytes) {
	size_t n;
	*bytes = packed(d, &n);
	tc_digest_finish(d);
	Tracectl__Digest *msg = tracectl__digest__unpack(NULL, n, *bytes);
	ck_assert_ptr_nonnull(msg);
	return msg;
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


/* ---- collective occurrence tables ---- */

/* a and b hold the same occurrences, b's starts shift later than a's. */
static void same_table(const struct tc_coll_table *a, const struct tc_coll_table *b,
		int64_t shift, const char *what) {
	ck_assert_msg(a->seq_all == b->seq_all, "%s: seq_all", what);
	ck_assert_msg(a->strings.n == b->strings.n, "%s: %zu strings, %zu", what, a->strings.n,
		b->strings.n);
	for (size_t i = 0; i < a->strings.n; i++) {
		ck_assert_str_eq(tc_coll_table_str(a, (uint32_t)i), tc_coll_table_str(b, (uint32_t)i));
	}
	ck_assert_msg(a->n == b->n, "%s: %zu occurrences, %zu", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct tc_coll_occ *x = &a->v[i], *y = &b->v[i];
		ck_assert_msg(x->group == y->group && x->name == y->name && x->index == y->index &&
			x->start_ps + shift == y->start_ps && x->dur_ps == y->dur_ps &&
			x->group_size == y->group_size && memcmp(&x->bytes, &y->bytes,
			sizeof(x->bytes)) == 0, "%s: occurrence %zu differs", what, i);
	}
}

/* built (initialised, empty) from the trace at path; the table a digest
 * of it holds, unpacked, must equal it. */
static void table_roundtrip(const char *path, struct tc_coll_table *built) {
	struct tc_model *m = tc_test_load(path);
	tc_coll_table_build(m, tc_coll_table_host(m), built);
	struct tc_digest d;
	tc_digest_init(&d);
	tc_digest_add_rank(&d, m, path);
	int64_t first, last;
	tc_model_span(m, &first, &last);
	tc_model_destroy(m);
	uint8_t *b;
	Tracectl__Digest *msg = repacked(&d, &b);
	ck_assert_uint_eq(msg->n_ranks, 1);
	ck_assert_ptr_nonnull(msg->ranks[0]->collectives);
	struct tc_coll_table read;
	tc_coll_table_init(&read);
	ck_assert(tc_coll_table_unpack(msg->ranks[0]->collectives, first, &read));
	same_table(built, &read, 0, path);
	tc_coll_table_finish(&read);
	tracectl__digest__free_unpacked(msg, NULL);
	free(b);
}

/* A generated 4-rank Kineto job (NCCL kernels with Seq, bytes from In msg
 * nelems and dtype, two buckets a step over 5 steps, skewed clocks): each
 * rank's digest holds its trace's table, and the job's matching, which
 * builds each rank's table on its sub-model of the merged job, sees the
 * same table but for the clock the merge puts the rank on, which
 * tc_digest_job_clock gives from the digests (given in another order). */
START_TEST(coll_table_generated) {
	char dir[] = "/tmp/tc-colltab-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' --ranks 4 --steps 5 --slow-rank 2 "
		"--slow-step 3 --skew-ms 20", tc_test_src("bench/gen_ranks.py"), dir);
	ck_assert_int_eq(system(cmd), 0);
	struct tc_coll_table file[4];
	for (int r = 0; r < 4; r++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/rank_%d.pt.trace.json", dir, r);
		tc_coll_table_init(&file[r]);
		table_roundtrip(path, &file[r]);
		ck_assert_uint_eq(file[r].n, 10);
		ck_assert(file[r].seq_all);
	}
	/* The four ranks' digests, placed on the job's clock, put each
	 * rank's collectives where the merged job has them. */
	struct tc_digest d;
	tc_digest_init(&d);
	for (int r = 3; r >= 0; r--) {
		char path[512];
		snprintf(path, sizeof(path), "%s/rank_%d.pt.trace.json", dir, r);
		struct tc_model *m = tc_test_load(path);
		tc_digest_add_rank(&d, m, path);
		tc_model_destroy(m);
	}
	uint8_t *b;
	Tracectl__Digest *msg = repacked(&d, &b);
	ck_assert_uint_eq(msg->n_ranks, 4);
	int64_t clock[4];
	tc_digest_job_clock(msg->ranks, 4, clock);
	struct tc_model *job = tc_test_load(dir);
	int64_t job_first, job_last;
	tc_model_span(job, &job_first, &job_last);
	uint8_t keep[8];
	ck_assert_uint_eq(job->n_hosts, 4);
	for (size_t h = 0; h < job->n_hosts; h++) {
		int32_t rank = job->hosts[h].rank;
		ck_assert(rank >= 0 && rank < 4);
		for (size_t i = 0; i < job->n_hosts; i++) {
			keep[i] = job->hosts[i].rank == rank;
		}
		struct tc_model *sub = tc_model_subset(job, keep);
		struct tc_coll_table t;
		tc_coll_table_init(&t);
		tc_coll_table_build(sub, (uint32_t)h, &t);
		ck_assert_uint_eq(t.n, 10);
		same_table(&t, &file[rank], file[rank].v[0].start_ps - t.v[0].start_ps, "sub-model");
		size_t k = 0;
		while (k < 4 && msg->ranks[k]->number != rank) {
			k++;
		}
		ck_assert_uint_lt(k, 4);
		ck_assert_int_eq(file[rank].v[0].start_ps + clock[k], t.v[0].start_ps - job_first);
		tc_coll_table_finish(&t);
		tc_model_destroy(sub);
	}
	tc_model_destroy(job);
	tracectl__digest__free_unpacked(msg, NULL);
	free(b);
	for (int r = 0; r < 4; r++) {
		tc_coll_table_finish(&file[r]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* HTA's sampled ranks: collectives without Seq, numbered in time order. */
START_TEST(coll_table_hta) {
	const char *rel[] = { "json/hta/trace_filter__sampled_rank-0.json.gz",
		"json/hta/trace_filter__sampled_rank-1.json.gz" };
	for (size_t i = 0; i < 2; i++) {
		struct tc_coll_table t;
		tc_coll_table_init(&t);
		table_roundtrip(tc_test_trace(rel[i]), &t);
		ck_assert_uint_gt(t.n, 0);
		ck_assert(!t.seq_all);
		tc_coll_table_finish(&t);
	}
}
END_TEST

/* A table survives packing whatever its values; a malformed one (columns
 * of other lengths, a name past the strings) is refused. */
START_TEST(coll_table_pack) {
	struct tc_arena a;
	tc_arena_init(&a, 4096);
	struct tc_coll_table t, u;
	tc_coll_table_init(&t);
	uint32_t name = tc_intern(&t.strings, "ncclAllReduce");
	/* Differences that wrap, a lower index, sizes repeated and not whole. */
	const struct tc_coll_occ occ[] = {
		{ .name = name, .index = 7, .start_ps = -5, .dur_ps = 3, .bytes = -1 },
		{ .name = name, .index = 3, .start_ps = INT64_MAX - 1, .dur_ps = 6, .bytes = 1.5,
			.group_size = -1 },
		{ .group = name, .index = UINT64_MAX, .start_ps = INT64_MIN, .dur_ps = 0,
			.bytes = -1, .group_size = 8 },
	};
	for (size_t i = 0; i < 3; i++) {
		tc_coll_table_add(&t, &occ[i]);
	}
	Tracectl__CollTable *msg = tc_coll_table_pack(&a, &t, 0);
	ck_assert_uint_eq(msg->n_byte_values, 2);
	tc_coll_table_init(&u);
	ck_assert(tc_coll_table_unpack(msg, 0, &u));
	same_table(&t, &u, 0, "extremes");
	tc_coll_table_finish(&u);
	/* Times in whole us keep a unit of 1 us. */
	for (size_t i = 0; i < t.n; i++) {
		t.v[i].start_ps = 1000000 * (int64_t)i - 3000000;
		t.v[i].dur_ps = 2000000;
	}
	Tracectl__CollTable *us = tc_coll_table_pack(&a, &t, -5000000);
	ck_assert_uint_eq(us->unit_ps, 1000000);
	tc_coll_table_init(&u);
	ck_assert(tc_coll_table_unpack(us, -5000000, &u));
	same_table(&t, &u, 0, "whole us");
	tc_coll_table_finish(&u);
	/* A column the same for every occurrence is written once. */
	struct tc_coll_table same;
	tc_coll_table_init(&same);
	for (size_t i = 0; i < 3; i++) {
		tc_coll_table_add(&same, &(struct tc_coll_occ){ .name = name, .index = i + 1,
			.start_ps = 10 * (int64_t)i, .dur_ps = 4 + (int64_t)i, .bytes = 64,
			.group_size = 8 });
	}
	tc_intern(&same.strings, "ncclAllReduce");
	Tracectl__CollTable *once = tc_coll_table_pack(&a, &same, 0);
	ck_assert_uint_eq(once->n_name, 1);
	ck_assert_uint_eq(once->n_index, 1);
	ck_assert_uint_eq(once->n_group_size, 1);
	ck_assert_uint_eq(once->n_start_ps, 3);
	tc_coll_table_init(&u);
	ck_assert(tc_coll_table_unpack(once, 0, &u));
	same_table(&same, &u, 0, "columns once");
	tc_coll_table_finish(&u);
	tc_coll_table_finish(&same);
	msg->n_group_size = 2; /* neither one nor every occurrence's */
	tc_coll_table_init(&u);
	ck_assert(!tc_coll_table_unpack(msg, 0, &u));
	tc_coll_table_finish(&u);
	msg->n_group_size = 3;
	msg->name[0] = 2;
	tc_coll_table_init(&u);
	ck_assert(!tc_coll_table_unpack(msg, 0, &u));
	tc_coll_table_finish(&u);
	msg->name[0] = name;
	msg->n_dur_ps = 0;
	tc_coll_table_init(&u);
	ck_assert(!tc_coll_table_unpack(msg, 0, &u));
	tc_coll_table_finish(&u);
	tc_coll_table_finish(&t);
	/* Finishing again (a zeroed table) is quiet. */
	tc_coll_table_finish(&t);
	tc_arena_finish(&a);
}
END_TEST

/* d holds rank 0 of the DDP fixture, valid as written; it is returned. */
static Tracectl__Rank *valid_rank(struct tc_digest *d) {
	const char *path = tc_test_src("fixtures/real/torch_ddp_rank0.kineto.json.gz");
	struct tc_model *m = tc_test_load(path);
	tc_digest_init(d);
	tc_digest_add_rank(d, m, path);
	tc_model_destroy(m);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_digest_rank_valid(d->msg->ranks[0], &err));
	return d->msg->ranks[0];
}

/* A rank read from a file that names a device, track, counter, string or
 * kind it does not hold is refused before any command indexes by it (a
 * two-rank digest mutated at random crashed the writers before). */
START_TEST(rank_indexes_checked) {
	struct tc_digest d;
	Tracectl__Rank *r = valid_rank(&d);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert_ptr_nonnull(r->result);
	ck_assert_uint_gt(r->result->n_sum_devices, 0);
	uint32_t dev = r->result->sum_devices[0]->device;
	r->result->sum_devices[0]->device = (uint32_t)r->n_devices;
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 0': a summary device out of "
		"range");
	r->result->sum_devices[0]->device = dev;
	ck_assert_uint_gt(r->result->n_findings, 0);
	r->result->findings[0]->device = -2;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->result->findings[0]->device = -1;
	ck_assert_ptr_nonnull(r->steps);
	r->steps->bd_device = (int32_t)r->n_devices;
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->steps->bd_device = -1;
	ck_assert(tc_digest_rank_valid(r, &err));
	/* Enumerations index tables too: an op kind past the last. */
	ck_assert_uint_gt(r->n_ops, 0);
	r->ops[0]->kind = 127;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 0': an op's kind out of range");
	tc_digest_finish(&d);
}
END_TEST

/* Results read from a digest keep none of its strings: a lean rank's bulk
 * is freed once read, and `report` read its steps' source after (the
 * digest's memory overwritten here, as freed memory may be). */
START_TEST(result_strings_kept) {
	struct tc_digest d;
	Tracectl__Rank *r = valid_rank(&d);
	struct tc_model *skel = tc_digest_skeleton(&r, 1);
	struct tc_analysis a, st;
	tc_digest_result(skel, r, 0, &a);
	tc_digest_steps(skel, r, &st);
	ck_assert_ptr_nonnull(st.steps_source);
	ck_assert_ptr_nonnull(a.summary.ops_scope);
	ck_assert_uint_gt(a.n_findings, 0);
	char *src = tc_xstrdup(st.steps_source), *scope = tc_xstrdup(a.summary.ops_scope);
	char *kind = tc_xstrdup(a.findings[0].kind);
	char *digest_strs[] = { r->steps->source, r->result->ops_scope, r->result->findings[0]->kind };
	for (size_t i = 0; i < 3; i++) {
		memset(digest_strs[i], 'x', strlen(digest_strs[i]));
	}
	ck_assert_str_eq(st.steps_source, src);
	ck_assert_str_eq(a.summary.ops_scope, scope);
	ck_assert_str_eq(a.findings[0].kind, kind);
	free(src);
	free(scope);
	free(kind);
	tc_analysis_finish(&a);
	tc_analysis_finish(&st);
	tc_model_destroy(skel);
	tc_digest_finish(&d);
}
END_TEST

/* Fields only a job's rank in memory holds, and times a job would
 * overflow on, are refused in a rank read from a file (aside_at read
 * another rank's bytes, or any memory, from the job's temporary file;
 * INT64_MAX clocks printed a negative span). */
START_TEST(rank_memory_only_and_times_refused) {
	struct tc_digest d;
	Tracectl__Rank *r = valid_rank(&d);
	struct tc_error err;
	tc_error_init(&err);
	r->aside_len = 1000;
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 0': holds aside_at and "
		"aside_len, a field only held in memory");
	r->aside_len = 0;
	int64_t lean = 5;
	r->steps->n_lean_start_ps = 1;
	r->steps->lean_start_ps = &lean;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->steps->n_lean_start_ps = 0;
	r->result->sum_steps_counted = 3;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->result->sum_steps_counted = 0;
	r->collectives_packed.len = 1;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->collectives_packed.len = 0;
	/* Times: the limit itself passes, one past it does not. */
	int64_t first = r->first_ps;
	r->first_ps = TC_DIGEST_TIME_MAX;
	ck_assert(tc_digest_rank_valid(r, &err));
	r->first_ps = INT64_MAX;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 0': the clock out of range");
	r->first_ps = first;
	int64_t lo = r->result->first_ps;
	r->result->first_ps = r->result->last_ps + 1;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->result->first_ps = lo;
	ck_assert(tc_digest_rank_valid(r, &err));
	Tracectl__Result *res = r->result;
	r->result = NULL;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 0' holds no summary");
	r->result = res;
	tc_digest_finish(&d);
}
END_TEST

/* The memory view's devices and times are checked like the rest (the
 * writers index devices and subtract times by them). */
START_TEST(rank_memory_view_checked) {
	const char *path = tc_test_src("fixtures/json/memory_leak.json");
	struct tc_model *m = tc_test_load(path);
	struct tc_digest d;
	tc_digest_init(&d);
	tc_digest_add_rank(&d, m, path);
	tc_model_destroy(m);
	Tracectl__Rank *r = d.msg->ranks[0];
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_digest_rank_valid(r, &err));
	ck_assert_ptr_nonnull(r->mem_view);
	ck_assert_uint_eq(r->mem_view->n_allocators, 1);
	ck_assert_uint_gt(r->mem_view->n_ops, 0);
	Tracectl__MemAllocator *a = r->mem_view->allocators[0];
	ck_assert_uint_gt(a->n_holders, 0);
	a->device = (int32_t)r->n_devices;
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'memory_leak.json': an allocator's "
		"device out of range");
	a->device = 0;
	r->mem_view->ops[0]->device = -2;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->mem_view->ops[0]->device = 0;
	a->peak_ps = INT64_MIN;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'memory_leak.json': a time of the "
		"memory view out of range");
	a->peak_ps = 0;
	uint32_t op = a->holders[0]->op;
	a->holders[0]->op = (uint32_t)r->mem_view->n_strings + 1;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'memory_leak.json': a name of the "
		"memory view out of range");
	a->holders[0]->op = op;
	ck_assert_ptr_nonnull(r->mem_top);
	r->mem_top->device = 7;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_valid(r, &err));
	r->mem_top->device = 0;
	ck_assert(tc_digest_rank_valid(r, &err));
	tc_digest_finish(&d);
}
END_TEST

/* Unknown fields, at the top and inside a rank, are stripped in place:
 * what is left packs to the digest without them. */
START_TEST(unknown_fields_stripped) {
	struct tc_digest d;
	tc_digest_init(&d);
	int64_t v[] = { 5, 7, 9 };
	rank_digest(&d, 3, v, 3);
	size_t n;
	uint8_t *want = packed(&d, &n);
	/* The rank again with field 99 (8 bytes) inside, then field 50. */
	size_t rn = tracectl__rank__get_packed_size(d.msg->ranks[0]);
	uint8_t *b = tc_xmalloc(n + rn + 64);
	memcpy(b, want, n);
	size_t k = n;
	b[k++] = 0x1a;                          /* field 3, length-delimited */
	b[k++] = (uint8_t)(rn + 11);
	ck_assert_uint_lt(rn + 11, 128);
	k += tracectl__rank__pack(d.msg->ranks[0], b + k);
	b[k++] = 0x9a;                          /* field 99, length-delimited */
	b[k++] = 0x06;
	b[k++] = 8;
	memset(b + k, 0xee, 8);
	k += 8;
	b[k++] = 0x92;                          /* field 50, length-delimited */
	b[k++] = 0x03;
	b[k++] = 2;
	b[k++] = 1;
	b[k++] = 2;
	ck_assert(tc_digest_strip_unknown(b, &k, &tracectl__digest__descriptor));
	ck_assert_uint_eq(k, n + 2 + rn);
	ck_assert_mem_eq(b, want, n);
	ck_assert_mem_eq(b + n + 2, want + n - rn, rn);
	ck_assert_uint_eq(b[n + 1], rn);
	/* A truncated message is malformed, not read past its end. */
	k = n - 1;
	memcpy(b, want, n);
	ck_assert(!tc_digest_strip_unknown(b, &k, &tracectl__digest__descriptor));
	free(b);
	free(want);
	tc_digest_finish(&d);
}
END_TEST

/* A step built with every field set, from i and a few awkward values. */
static Tracectl__Step *odd_step(struct tc_arena *a, size_t i) {
	static const char *names[] = { "ProfilerStep#", "train_step", "step 007", "" };
	Tracectl__Step *s = tc_arena_alloc(a, sizeof(*s));
	tracectl__step__init(s);
	s->num = i == 3 ? INT64_MIN : i == 4 ? 7 : (int64_t)i * 3 - 2;
	s->name = i % 4 == 0 ? tc_arena_strfmt(a, "%s%lld", names[0], (long long)s->num) :
		(char *)names[i % 4];
	s->start_ps = i == 5 ? INT64_MAX : (int64_t)i * 1000000 - 4000000;
	s->dur_ps = (int64_t)(i % 3) * 2000000;
	s->marker_start_ps = s->start_ps - 1000000;
	s->marker_dur_ps = i == 6 ? INT64_MIN : 3000000;
	s->warmup = i == 1;
	s->partial = i == 2 || i == 7;
	s->busy_ps = (int64_t)i * 1000000;
	s->device = i == 8 ? -1 : (int32_t)(i % 2);
	s->n_cat_ps = 3;
	s->cat_ps = tc_arena_alloc(a, 3 * sizeof(*s->cat_ps));
	for (size_t k = 0; k < 3; k++) {
		s->cat_ps[k] = (int64_t)(i + k) * 1000000 * (k == 1 ? -1 : 1);
	}
	s->n_xfer = 3;
	s->xfer = tc_arena_alloc(a, 3 * sizeof(*s->xfer));
	for (size_t k = 0; k < 3; k++) {
		Tracectl__Xfer *x = s->xfer[k] = tc_arena_alloc(a, sizeof(*x));
		tracectl__xfer__init(x);
		if ((i + k) % 4 == 0) {
			x->count = i + 1;
			x->bytes = 1.5 * (double)i;
			x->dur_ps = 7;
		}
		if (i == 9 && k == 2) {
			x->bytes_pageable = 2.5;
		}
	}
	return s;
}

static void same_steps(const Tracectl__Step *a, const Tracectl__Step *b) {
	ck_assert_int_eq(a->num, b->num);
	ck_assert_str_eq(a->name, b->name);
	ck_assert_int_eq(a->start_ps, b->start_ps);
	ck_assert_int_eq(a->dur_ps, b->dur_ps);
	ck_assert_int_eq(a->marker_start_ps, b->marker_start_ps);
	ck_assert_int_eq(a->marker_dur_ps, b->marker_dur_ps);
	ck_assert_int_eq(a->warmup, b->warmup);
	ck_assert_int_eq(a->partial, b->partial);
	ck_assert_int_eq(a->busy_ps, b->busy_ps);
	ck_assert_int_eq(a->device, b->device);
	ck_assert_uint_eq(a->n_cat_ps, b->n_cat_ps);
	for (size_t k = 0; k < a->n_cat_ps; k++) {
		ck_assert_int_eq(a->cat_ps[k], b->cat_ps[k]);
	}
	ck_assert_uint_eq(a->n_xfer, b->n_xfer);
	for (size_t k = 0; k < a->n_xfer; k++) {
		const Tracectl__Xfer *x = a->xfer[k], *y = b->xfer[k];
		ck_assert_uint_eq(x->count, y->count);
		ck_assert(x->bytes == y->bytes);
		ck_assert(x->bytes_pageable == y->bytes_pageable);
		ck_assert_int_eq(x->dur_ps, y->dur_ps);
	}
}

/* Steps and marked steps written as columns come back field for field,
 * through the protobuf bytes, and columns that do not add up are refused. */
START_TEST(step_columns_roundtrip) {
	struct tc_arena a;
	tc_arena_init(&a, 1 << 12);
	enum { N = 10 };
	Tracectl__Rank r;
	tracectl__rank__init(&r);
	r.name = (char *)"rank 1";
	Tracectl__Steps st;
	tracectl__steps__init(&st);
	Tracectl__Result res;
	tracectl__result__init(&res);
	r.steps = &st;
	r.result = &res;
	Tracectl__Step *want[N];
	Tracectl__SumStep *sum[N];
	for (size_t i = 0; i < N; i++) {
		want[i] = odd_step(&a, i);
		sum[i] = tc_arena_alloc(&a, sizeof(*sum[i]));
		tracectl__sum_step__init(sum[i]);
		sum[i]->num = want[i]->num;
		sum[i]->name = want[i]->name;
		sum[i]->start_ps = (int64_t)((uint64_t)want[i]->start_ps + 1); /* unit 1 ps */
		sum[i]->dur_ps = want[i]->dur_ps;
		sum[i]->device = i == 3 ? 2 : 0;
	}
	st.n_steps = N;
	st.steps = tc_arena_alloc(&a, N * sizeof(*st.steps));
	memcpy(st.steps, want, sizeof(want));
	res.n_sum_steps = N;
	res.sum_steps = tc_arena_alloc(&a, N * sizeof(*res.sum_steps));
	memcpy(res.sum_steps, sum, sizeof(sum));
	tc_digest_rank_compact(&r, &a);
	ck_assert_ptr_nonnull(st.cols);
	ck_assert_ptr_nonnull(res.sum_cols);
	ck_assert_uint_eq(st.n_steps, 0);
	ck_assert_uint_eq(res.n_sum_steps, 0);
	ck_assert_uint_eq(st.cols->unit_ps, 1); /* INT64_MAX and MIN are odd */
	ck_assert_uint_eq(st.cols->n_names, 4);
	uint8_t *bytes = tc_xmalloc(tracectl__rank__get_packed_size(&r));
	size_t len = tracectl__rank__pack(&r, bytes);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&a, &alloc);
	Tracectl__Rank *back = tracectl__rank__unpack(&alloc, len, bytes);
	ck_assert_ptr_nonnull(back);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_digest_rank_expand(back, &a, &err));
	ck_assert_uint_eq(back->steps->n_steps, N);
	ck_assert_uint_eq(back->result->n_sum_steps, N);
	for (size_t i = 0; i < N; i++) {
		same_steps(want[i], back->steps->steps[i]);
		const Tracectl__SumStep *x = sum[i], *y = back->result->sum_steps[i];
		ck_assert_int_eq(x->num, y->num);
		ck_assert_str_eq(x->name, y->name);
		ck_assert_int_eq(x->start_ps, y->start_ps);
		ck_assert_int_eq(x->dur_ps, y->dur_ps);
		ck_assert_int_eq(x->device, y->device);
	}
	/* Numbers that step by little ride in the name entries. */
	Tracectl__Result seq;
	tracectl__result__init(&seq);
	Tracectl__Rank rs;
	tracectl__rank__init(&rs);
	rs.name = (char *)"rank 2";
	rs.result = &seq;
	seq.n_sum_steps = 5;
	seq.sum_steps = tc_arena_alloc(&a, 5 * sizeof(*seq.sum_steps));
	for (size_t i = 0; i < 5; i++) {
		Tracectl__SumStep *x = seq.sum_steps[i] = tc_arena_alloc(&a, sizeof(*x));
		tracectl__sum_step__init(x);
		x->num = i == 4 ? -2 : 40 + (int64_t)i;
		x->name = i == 2 ? (char *)"warm-up" : tc_arena_strfmt(&a, "ProfilerStep#%lld",
			(long long)x->num);
		x->start_ps = 1000 * (int64_t)i;
		x->dur_ps = 900;
		x->device = -1;
	}
	tc_digest_rank_compact(&rs, &a);
	ck_assert_uint_eq(seq.sum_cols->n_num, 0);
	ck_assert_uint_eq(seq.sum_cols->n_device, 1);
	ck_assert_uint_eq(seq.sum_cols->unit_ps, 100);
	ck_assert(tc_digest_rank_expand(&rs, &a, &err));
	ck_assert_uint_eq(seq.n_sum_steps, 5);
	for (size_t i = 0; i < 5; i++) {
		const Tracectl__SumStep *x = seq.sum_steps[i];
		ck_assert_int_eq(x->num, i == 4 ? -2 : 40 + (int64_t)i);
		ck_assert_str_eq(x->name, i == 2 ? "warm-up" : i == 4 ? "ProfilerStep#-2" :
			tc_arena_strfmt(&a, "ProfilerStep#%d", 40 + (int)i));
		ck_assert_int_eq(x->start_ps, 1000 * (int64_t)i);
		ck_assert_int_eq(x->dur_ps, 900);
		ck_assert_int_eq(x->device, -1);
	}
	/* Malformed: a name past the dictionary, a column short. */
	back = tracectl__rank__unpack(&alloc, len, bytes);
	back->result->sum_cols->name[2] = 2 * (uint32_t)back->result->sum_cols->n_names;
	ck_assert(!tc_digest_rank_expand(back, &a, &err));
	ck_assert_str_eq(err.msg, "malformed digest: rank 'rank 1': a step's name out of range");
	back = tracectl__rank__unpack(&alloc, len, bytes);
	back->steps->cols->n_cat--;
	tc_error_init(&err);
	ck_assert(!tc_digest_rank_expand(back, &a, &err));
	ck_assert_str_eq(err.msg,
		"malformed digest: rank 'rank 1': steps' columns of different lengths");
	free(bytes);
	tc_arena_finish(&a);
}
END_TEST

/* e's intervals as absolute [lo, hi) pairs into v; their number. */
static size_t exposed_ivals(const Tracectl__Exposed *e, int64_t *v) {
	uint64_t at = 0, u = e->unit_ps ? e->unit_ps : 1;
	for (size_t j = 0; j + 1 < e->n_bounds; j += 2) {
		v[j] = (int64_t)(at + (uint64_t)e->bounds[j] * u);
		at = (uint64_t)v[j] + (uint64_t)e->bounds[j + 1] * u;
		v[j + 1] = (int64_t)at;
	}
	return e->n_bounds / 2;
}

/* Exposed time inside the collectives is written as runs over their union
 * (whole pieces, empty pieces, pieces with intervals) and read back the
 * same; time outside them keeps its bounds. */
START_TEST(exposed_runs_roundtrip) {
	struct tc_arena a;
	tc_arena_init(&a, 1 << 12);
	struct tc_coll_table t;
	tc_coll_table_init(&t);
	uint32_t name = tc_intern(&t.strings, "all-reduce");
	/* Pieces [0,10) [20,30) [40,50) [60,70) [80,100): the last two
	 * occurrences overlap into one. */
	const int64_t occ[][2] = { { 0, 10 }, { 20, 10 }, { 40, 10 }, { 60, 10 }, { 80, 15 },
		{ 90, 10 } };
	for (size_t i = 0; i < 6; i++) {
		tc_coll_table_add(&t, &(struct tc_coll_occ){ .name = name, .index = i,
			.start_ps = occ[i][0] * 1000, .dur_ps = occ[i][1] * 1000, .bytes = -1 });
	}
	Tracectl__Rank r;
	tracectl__rank__init(&r);
	r.name = (char *)"rank 0";
	r.collectives = tc_coll_table_pack(&a, &t, 0);
	/* Device 0 as version 3 wrote it, runs over the pieces: 0 and 1
	 * whole, 2 none, 3 two intervals, 4 whole. Device 1 as version 2
	 * wrote it: bounds and no step_ps. */
	const int64_t in[] = { 0, 10, 20, 30, 62, 64, 66, 70, 80, 100 };
	const int64_t out[] = { 5, 8, 12, 15 };
	uint64_t runs[] = { 2 << 2 | 1, 1 << 2 | 0, 2 << 2 | 2, 2, 2, 2, 4, 1 << 2 | 1 };
	Tracectl__Exposed e[2], *ep[2] = { &e[0], &e[1] };
	for (int k = 0; k < 2; k++) {
		tracectl__exposed__init(&e[k]);
		e[k].device = k;
		e[k].unit_ps = 1000;
	}
	e[0].n_runs = 8;
	e[0].runs = runs;
	e[0].n_step_ps = 2;
	e[0].step_ps = tc_arena_alloc(&a, 2 * sizeof(int64_t));
	e[0].step_ps[0] = 3000000;
	e[0].step_ps[1] = 6000000;
	e[1].n_bounds = 4;
	e[1].bounds = tc_arena_alloc(&a, 4 * sizeof(int64_t));
	for (size_t j = 0, prev = 0; j < 4; j += 2) {
		e[1].bounds[j] = out[j] - (int64_t)prev;
		e[1].bounds[j + 1] = out[j + 1] - out[j];
		prev = (size_t)out[j + 1];
	}
	r.n_exposed = 2;
	r.exposed = ep;
	uint8_t *bytes = tc_xmalloc(tracectl__rank__get_packed_size(&r));
	size_t len = tracectl__rank__pack(&r, bytes);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&a, &alloc);
	Tracectl__Rank *back = tracectl__rank__unpack(&alloc, len, bytes);
	struct tc_error err;
	tc_error_init(&err);
	ck_assert(tc_digest_rank_expand(back, &a, &err));
	const int64_t *lists[2] = { in, out };
	size_t lens[2] = { 10, 4 };
	for (int k = 0; k < 2; k++) {
		int64_t v[10];
		ck_assert_uint_eq(exposed_ivals(back->exposed[k], v), lens[k] / 2);
		for (size_t j = 0; j < lens[k]; j++) {
			ck_assert_int_eq(v[j], lists[k][j] * 1000);
		}
	}
	/* Written again, a device keeps its time per step only, in one unit;
	 * one without (version 2) keeps its intervals. */
	tc_digest_rank_compact(back, &a);
	ck_assert_uint_eq(back->exposed[0]->n_bounds, 0);
	ck_assert_uint_eq(back->exposed[0]->n_runs, 0);
	ck_assert_uint_eq(back->exposed[0]->step_unit_ps, 3000000);
	ck_assert_int_eq(back->exposed[0]->step_ps[1], 2);
	ck_assert_uint_eq(back->exposed[1]->n_bounds, 4);
	/* Runs past the last piece are refused. */
	back = tracectl__rank__unpack(&alloc, len, bytes);
	back->exposed[0]->runs[0] = 9 << 2 | 1;
	ck_assert(!tc_digest_rank_expand(back, &a, &err));
	ck_assert_str_eq(err.msg,
		"malformed digest: rank 'rank 0': exposed collective time out of range");
	free(bytes);
	tc_coll_table_finish(&t);
	tc_arena_finish(&a);
}
END_TEST

/* A rank that holds one collective key twice (a Seq given twice, a
 * damaged digest) takes part in that instance once: no instance has more
 * ranks than the job (one had 3 of 2, past the end of a per-rank array). */
START_TEST(coll_repeated_key) {
	struct tc_coll_table tab[2];
	uint32_t *ids[2];
	struct tc_coll_rows *rows = tc_coll_rows_create(2);
	for (size_t k = 0; k < 2; k++) {
		tc_coll_table_init(&tab[k]);
		uint32_t name = tc_intern(&tab[k].strings, "allreduce");
		/* rank 1 repeats Seq 0 a little later */
		size_t n = k ? 3 : 2;
		const uint64_t index[3] = { 0, k ? 0 : 1, 1 };
		for (size_t i = 0; i < n; i++) {
			struct tc_coll_occ o = { .name = name, .index = index[i],
				.start_ps = (int64_t)i * 1000000 + (int64_t)k * 100,
				.dur_ps = 500000, .bytes = -1 };
			tc_coll_table_add(&tab[k], &o);
		}
		tab[k].seq_all = true;
		ids[k] = tc_xmalloc(tab[k].strings.n * sizeof(*ids[k]));
		for (size_t i = 0; i < tab[k].strings.n; i++) {
			ids[k][i] = (uint32_t)i;
		}
	}
	struct tc_ranks r = { .n = 2 };
	r.v = tc_xcalloc(2, sizeof(*r.v));
	r.v[1].rank = 1;
	struct tc_analysis none[2] = { { 0 }, { 0 } };
	for (size_t k = 0; k < 2; k++) {
		tc_coll_rows_add(rows, k, &tab[k], ids[k]);
	}
	struct tc_step_source src = { tc_step_times_analysis_get, none };
	tc_pass_collectives(rows, &tab[0].strings, &r, &src, NULL);
	tc_coll_rows_destroy(rows);
	ck_assert_uint_eq(r.n_coll, 2);
	for (size_t i = 0; i < r.n_coll; i++) {
		ck_assert_uint_eq(r.coll[i].n_ranks, 2);
	}
	tc_ranks_finish(&r);
	for (size_t k = 0; k < 2; k++) {
		tc_coll_table_finish(&tab[k]);
		free(ids[k]);
	}
}
END_TEST

/* v's slots and spread as a digest written before they were fields held
 * them: marked in job_text (0x01 at a slot, 0x02 ... 0x03 around the
 * spread), the fields empty. True when it had any. */
static bool as_old_digest(Tracectl__FullFinding *v, struct tc_arena *a) {
	size_t n = strlen(v->text);
	char *jt = tc_arena_alloc(a, 2 * n + 8);
	size_t k = 0, s = 0;
	for (size_t i = 0; i <= n; i++) {
		for (; s < v->n_slots && v->slots[s] == i; s++) {
			jt[k++] = '\x01';
		}
		if (v->has_spread && v->spread_at == i) {
			jt[k++] = '\x02';
		}
		if (v->has_spread && v->spread_at + v->spread_len == i) {
			jt[k++] = '\x03';
		}
		if (i < n) {
			jt[k++] = v->text[i];
		}
	}
	jt[k] = 0;
	bool any = v->n_slots || v->has_spread;
	v->job_text = jt;
	v->n_slots = 0;
	v->has_spread = false;
	v->spread_at = v->spread_len = 0;
	return any;
}

/* A rank's findings read back from its digest carry the slots and spread
 * the analysis recorded, and a digest of the version before them (the
 * offsets as marker bytes in job_text) reads to the same fields. */
START_TEST(finding_slots_old_and_new) {
	struct tc_digest d;
	Tracectl__Rank *r = valid_rank(&d);
	ck_assert_ptr_nonnull(r->result);
	struct tc_model *skel = tc_digest_skeleton(&r, 1);
	struct tc_analysis now, old;
	tc_digest_result(skel, r, 0, &now);
	size_t marked = 0;
	for (size_t i = 0; i < r->result->n_findings; i++) {
		ck_assert_str_eq(r->result->findings[i]->job_text, "");
		marked += as_old_digest(r->result->findings[i], &d.arena);
	}
	ck_assert_uint_gt(marked, 0);
	tc_digest_result(skel, r, 0, &old);
	ck_assert_uint_eq(now.n_findings, old.n_findings);
	for (size_t i = 0; i < now.n_findings; i++) {
		const struct tc_finding *x = &now.findings[i], *y = &old.findings[i];
		ck_assert_str_eq(x->text, y->text);
		ck_assert_uint_eq(x->n_slots, y->n_slots);
		for (size_t k = 0; k < x->n_slots; k++) {
			ck_assert_uint_eq(x->slot[k], y->slot[k]);
		}
		ck_assert(x->has_spread == y->has_spread);
		ck_assert_uint_eq(x->spread_at, y->spread_at);
		ck_assert_uint_eq(x->spread_len, y->spread_len);
		ck_assert_uint_eq(x->n_figs, y->n_figs);
	}
	tc_analysis_finish(&now);
	tc_analysis_finish(&old);
	tc_model_destroy(skel);
	tc_digest_finish(&d);
}
END_TEST

int main(void) {
	Suite *s = suite_create("digest");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sketch_exact_percentiles);
	tcase_add_test(tc, sketch_bucket_error);
	tcase_add_test(tc, merge_order_and_grouping);
	tcase_add_test(tc, coll_table_generated);
	tcase_add_test(tc, coll_table_pack);
	tcase_add_test(tc, rank_indexes_checked);
	tcase_add_test(tc, result_strings_kept);
	tcase_add_test(tc, rank_memory_only_and_times_refused);
	tcase_add_test(tc, rank_memory_view_checked);
	tcase_add_test(tc, unknown_fields_stripped);
	tcase_add_test(tc, coll_repeated_key);
	tcase_add_test(tc, step_columns_roundtrip);
	tcase_add_test(tc, exposed_runs_roundtrip);
	tcase_add_test(tc, finding_slots_old_and_new);
	suite_add_tcase(s, tc);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_add_test(tt, coll_table_hta);
	suite_add_tcase(s, tt);
	return tc_test_run(s);
}
