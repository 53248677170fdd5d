/*
 * Check suite for the interval sets the analysis passes stand on
 * (analysis/intervals.h): unions of a model's tracks, per kind and in
 * runs, merges, covers and the parts left outside runs, each against a
 * brute-force oracle of covered cells.
 */
#include <stdint.h>
#include <string.h>
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

	struct tc_ivals u = { 0 }, v = { 0 };
	uint32_t tr[] = { s1 };
	tc_ivals_union_tracks(m, tr, 1, NULL, NULL, &u);
	uint32_t tr2[] = { s2 };
	tc_ivals_union_tracks(m, tr2, 1, NULL, NULL, &v);
	struct tc_ivals both[2] = { u, v };
	struct tc_cover cov = { 0 };
	tc_cover_add(&cov, both, 2, INT64_MIN, INT64_MAX);
	ck_assert_int_eq(tc_cover_len_both(&cov, 1, 2), 50);
	tc_cover_finish(&cov);
	tc_ivals_merge_into(&u, &v);
	ck_assert_int_eq(tc_ivals_length(&u), 250);
	ck_assert_int_eq(tc_ivals_length_in(&u, 100, 250), 100);
	tc_ivals_finish(&u);
	tc_ivals_finish(&v);
	tc_model_destroy(m);
}
END_TEST

/* Brute-force oracle: mark covered unit cells of [0, LIMIT). */
#define LIMIT 4000

static bool keep_kernels(const struct tc_model *m, size_t ev, void *ctx) {
	(void)ctx;
	return m->ops[m->ev.op[ev]].kind == TC_OP_KERNEL;
}

static void check_ivals_cover(const struct tc_ivals *v, const bool *cover) {
	bool got[LIMIT] = { false };
	for (size_t k = 0; k < v->n; k++) {
		ck_assert(k == 0 || v->lo[k] > v->hi[k - 1]); /* disjoint, sorted, not touching */
		for (int64_t x = v->lo[k]; x < v->hi[k]; x++) {
			got[x] = true;
		}
	}
	for (int x = 0; x < LIMIT; x++) {
		ck_assert_msg(got[x] == cover[x], "cell %d", x);
	}
}

/* A run list against the cells each kind covers: sorted, no empty run,
 * touching runs differ in kinds, and every cell has its kinds. */
static void check_runs(const struct tc_ivals *r, const bool *kern, const bool *copy) {
	static uint32_t got[LIMIT];
	memset(got, 0, sizeof(got));
	for (size_t k = 0; k < r->n; k++) {
		ck_assert(r->lo[k] < r->hi[k] && r->kinds[k] != 0);
		ck_assert(k == 0 || r->lo[k] > r->hi[k - 1] ||
			(r->lo[k] == r->hi[k - 1] && r->kinds[k] != r->kinds[k - 1]));
		for (int64_t y = r->lo[k]; y < r->hi[k]; y++) {
			got[y] = r->kinds[k];
		}
	}
	for (int y = 0; y < LIMIT; y++) {
		uint32_t want = (kern[y] ? TC_KIND_BIT(TC_OP_KERNEL) : 0) |
			(copy && copy[y] ? TC_KIND_BIT(TC_OP_MEMCPY_H2D) : 0);
		ck_assert_msg(got[y] == want, "cell %d: %u != %u", y, got[y], want);
	}
}

/* The runs read in pieces: each piece inside its cuts, and the pieces
 * together the runs tc_kind_runs gives. */
static void check_runs_pieces(const struct tc_model *m, const uint32_t *tr, size_t n,
		const struct tc_ivals *whole, unsigned *x) {
	struct tc_runs_scan sc;
	tc_runs_scan_init(&sc, m, tr, n, UINT32_MAX);
	struct tc_ivals piece = { 0 }, joined = { 0 };
	int64_t from = INT64_MIN;
	for (int64_t cut = 0;; cut += 1 + (int64_t)(*x >> 8) % 500) {
		*x = *x * 1103515245u + 12345u;
		int64_t to = cut < LIMIT ? cut : INT64_MAX;
		piece.n = 0;
		tc_runs_scan_to(&sc, to, &piece);
		for (size_t k = 0; k < piece.n; k++) {
			ck_assert(piece.lo[k] >= from && piece.hi[k] <= to);
			tc_runs_reserve(&joined, joined.n + 1);
			bool join = joined.n && joined.hi[joined.n - 1] == piece.lo[k] &&
				joined.kinds[joined.n - 1] == piece.kinds[k];
			if (join) {
				joined.hi[joined.n - 1] = piece.hi[k];
			} else {
				joined.lo[joined.n] = piece.lo[k];
				joined.hi[joined.n] = piece.hi[k];
				joined.kinds[joined.n++] = piece.kinds[k];
			}
		}
		from = to;
		if (to == INT64_MAX) {
			break;
		}
	}
	ck_assert_uint_eq(joined.n, whole->n);
	for (size_t k = 0; k < whole->n; k++) {
		ck_assert(joined.lo[k] == whole->lo[k] && joined.hi[k] == whole->hi[k] &&
			joined.kinds[k] == whole->kinds[k]);
	}
	tc_runs_scan_finish(&sc);
	tc_ivals_finish(&piece);
	tc_ivals_finish(&joined);
}

/* The runs read in pieces, every other piece summed by kinds
 * (tc_runs_scan_sum_to) instead: the listed pieces' time and the sums
 * together are the whole runs' time by kinds. */
static void check_runs_sums(const struct tc_model *m, const uint32_t *tr, size_t n,
		const struct tc_ivals *whole, unsigned *x) {
	struct tc_runs_scan sc;
	tc_runs_scan_init(&sc, m, tr, n, UINT32_MAX);
	struct tc_kind_sums ks = { 0 };
	struct tc_ivals piece = { 0 };
	bool sum = (*x >> 3) & 1;
	for (int64_t cut = 0;; cut += 1 + (int64_t)(*x >> 8) % 500) {
		*x = *x * 1103515245u + 12345u;
		int64_t to = cut < LIMIT ? cut : INT64_MAX;
		if (sum) {
			tc_runs_scan_sum_to(&sc, to, &ks);
		} else {
			piece.n = 0;
			tc_runs_scan_to(&sc, to, &piece);
			for (size_t k = 0; k < piece.n; k++) {
				tc_kind_sums_add(&ks, piece.kinds[k], (uint64_t)(piece.hi[k] - piece.lo[k]));
			}
		}
		sum = !sum;
		if (to == INT64_MAX) {
			break;
		}
	}
	struct tc_kind_sums want = { 0 };
	for (size_t k = 0; k < whole->n; k++) {
		tc_kind_sums_add(&want, whole->kinds[k], (uint64_t)(whole->hi[k] - whole->lo[k]));
	}
	ck_assert_uint_eq(ks.n, want.n);
	for (size_t i = 0; i < want.cap; i++) {
		if (!want.kinds[i]) {
			continue;
		}
		size_t j = 0;
		while (j < ks.cap && ks.kinds[j] != want.kinds[i]) {
			j++;
		}
		ck_assert(j < ks.cap);
		ck_assert_uint_eq(ks.len[j], want.len[i]);
	}
	tc_runs_scan_finish(&sc);
	tc_kind_sums_finish(&ks);
	tc_kind_sums_finish(&want);
	tc_ivals_finish(&piece);
}

START_TEST(kind_sums_grow) {
	/* Sums by kinds past several growths of the table, added in an order
	 * that revisits every key, and empty again after a clear. */
	struct tc_kind_sums ks = { 0 };
	for (int round = 0; round < 3; round++) {
		for (uint32_t k = 1; k <= 300; k++) {
			tc_kind_sums_add(&ks, k * 2654435761u | 1u, k);
		}
	}
	ck_assert_uint_eq(ks.n, 300);
	ck_assert_uint_gt(ks.cap, 2 * ks.n);
	for (uint32_t k = 1; k <= 300; k++) {
		size_t j = 0;
		while (j < ks.cap && ks.kinds[j] != (k * 2654435761u | 1u)) {
			j++;
		}
		ck_assert(j < ks.cap);
		ck_assert_uint_eq(ks.len[j], 3 * k);
	}
	tc_kind_sums_reset(&ks);
	ck_assert_uint_eq(ks.n, 0);
	for (size_t j = 0; j < ks.cap; j++) {
		ck_assert_uint_eq(ks.kinds[j], 0);
	}
	tc_kind_sums_finish(&ks);
}
END_TEST

/* tc_kind_runs_gaps' gaps are the idle stretches between busy ones, and
 * each one's event the first by index of those with a duration starting
 * where it ends. */
static void check_gaps(const struct tc_model *m, const uint32_t *tr, size_t n,
		const bool *busy) {
	struct tc_ivals runs = { 0 };
	struct tc_gaps g = { 0 };
	tc_kind_runs_gaps(m, tr, n, UINT32_MAX, &runs, &g);
	int first = 0, last = LIMIT;
	while (first < LIMIT && !busy[first]) {
		first++;
	}
	while (last > first && !busy[last - 1]) {
		last--;
	}
	size_t j = 0;
	for (int y = first; y < last; y++) {
		if (busy[y]) {
			continue;
		}
		int e = y;
		while (!busy[e]) {
			e++;
		}
		ck_assert_uint_lt(j, g.iv.n);
		ck_assert_int_eq(g.iv.lo[j], y);
		ck_assert_int_eq(g.iv.hi[j], e);
		size_t want = SIZE_MAX;
		for (size_t t = 0; t < n; t++) {
			const struct tc_track *k = &m->tracks[tr[t]];
			for (size_t i = k->first; i < (size_t)k->first + k->count; i++) {
				if (m->ev.start[i] == e && m->ev.dur[i] > 0 && i < want) {
					want = i;
				}
			}
		}
		ck_assert_uint_eq(g.ev[j], want);
		j++;
		y = e;
	}
	ck_assert_uint_eq(j, g.iv.n);
	tc_ivals_finish(&runs);
	tc_gaps_finish(&g);
}

/* A cover over a run list and over the per-kind lists it stands for give
 * the same parts. */
static void check_runs_cover(const struct tc_ivals *runs,
		const struct tc_ivals per[TC_OP_KIND_COUNT], int64_t lo, int64_t hi) {
	struct tc_cover a = { 0 }, b = { 0 };
	tc_cover_add(&a, runs, 1, lo, hi);
	tc_cover_add(&b, per, TC_OP_KIND_COUNT, lo, hi);
	ck_assert_uint_eq(a.n, b.n);
	for (size_t p = 0; p < a.n; p++) {
		size_t q = 0;
		while (q < b.n && b.v[q].bits != a.v[p].bits) {
			q++;
		}
		ck_assert(q < b.n);
		ck_assert_int_eq(a.v[p].len, b.v[q].len);
	}
	tc_cover_finish(&a);
	tc_cover_finish(&b);
}

START_TEST(union_many_tracks) {
	/* Up to 64 tracks the unions merge per-track unions one by one, over
	 * 64 as a binary counter (per kind) or through a heap of cursors (one
	 * list); runs over 8 tracks come from per-kind unions, or, with gaps,
	 * from the heap: every track count must give the brute-force union. */
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t k = tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL);
	uint32_t c = tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D);
	enum { NT = 100, PER = 6 };
	uint32_t tr[NT];
	static struct { int64_t at, dur; bool is_k; } ev[NT][PER];
	int nev[NT];
	unsigned x = 7;
	for (int t = 0; t < NT; t++) {
		tr[t] = tc_model_add_track(m, d, tc_model_intern(m, "s"), TC_TRACK_STREAM, t);
		int64_t at = 0;
		nev[t] = 0;
		for (int e = 0; e < PER; e++) {
			x = x * 1103515245u + 12345u;
			at += (x >> 8) % 300;
			int64_t dur = (x >> 20) % 60;
			bool is_k = (x >> 4) & 1;
			if (at + dur >= LIMIT) {
				break;
			}
			tc_model_add_event(m, tr[t], is_k ? k : c, at, dur, 0);
			ev[t][nev[t]].at = at;
			ev[t][nev[t]].dur = dur;
			ev[t][nev[t]++].is_k = is_k;
		}
	}
	tc_model_finalize(m);
	static bool all[LIMIT], kern[LIMIT], copy[LIMIT];
	static const size_t counts[] = { 1, 2, 3, 5, 7, 8, 16, 33, 64, 65, NT };
	for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
		size_t n = counts[ci];
		memset(all, 0, sizeof(all));
		memset(kern, 0, sizeof(kern));
		memset(copy, 0, sizeof(copy));
		for (size_t t = 0; t < n; t++) {
			for (int e = 0; e < nev[t]; e++) {
				for (int64_t y = ev[t][e].at; y < ev[t][e].at + ev[t][e].dur; y++) {
					all[y] = true;
					(ev[t][e].is_k ? kern : copy)[y] = true;
				}
			}
		}
		struct tc_ivals u = { 0 };
		tc_ivals_union_tracks(m, tr, n, NULL, NULL, &u);
		check_ivals_cover(&u, all);
		tc_ivals_union_tracks(m, tr, n, keep_kernels, NULL, &u);
		check_ivals_cover(&u, kern);
		struct tc_ivals per[TC_OP_KIND_COUNT] = { 0 };
		tc_ivals_union_per_kind(m, tr, n, per);
		check_ivals_cover(&per[TC_OP_KERNEL], kern);
		check_ivals_cover(&per[TC_OP_MEMCPY_H2D], copy);
		/* The same unions as runs: whole, in pieces, of some kinds, and
		 * covered with other lists. */
		struct tc_ivals runs = { 0 };
		tc_kind_runs(m, tr, n, UINT32_MAX, &runs);
		check_runs(&runs, kern, copy);
		check_runs_pieces(m, tr, n, &runs, &x);
		check_runs_sums(m, tr, n, &runs, &x);
		check_gaps(m, tr, n, all);
		for (int w = 0; w < 4; w++) {
			x = x * 1103515245u + 12345u;
			int64_t lo = w == 0 ? INT64_MIN : (int64_t)(x >> 8) % LIMIT;
			int64_t hi = w == 0 ? INT64_MAX : lo + (int64_t)(x >> 18) % LIMIT;
			check_runs_cover(&runs, per, lo, hi);
		}
		tc_kind_runs(m, tr, n, TC_KIND_BIT(TC_OP_KERNEL), &runs);
		check_runs(&runs, kern, NULL);
		tc_ivals_union_per_kind_two(m, tr, n, UINT32_MAX, per);
		check_ivals_cover(&per[TC_OP_KERNEL], kern);
		check_ivals_cover(&per[TC_OP_MEMCPY_H2D], copy);
		tc_ivals_finish(&runs);
		tc_ivals_finish_per_kind(per);
		tc_ivals_finish(&u);
	}
	tc_model_destroy(m);
}
END_TEST

START_TEST(union_two_halves_in_time) {
	/* tc_ivals_union_per_kind_two splits few tracks at the time that
	 * halves their events: long events from the first half cover many of
	 * the second's, on the same track and on others. Every kind's list
	 * must equal the one-thread union, for several track counts. */
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t ops[3] = {
		tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL),
		tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D),
		tc_model_op(m, tc_model_intern(m, "nccl"), 0, TC_OP_COLLECTIVE),
	};
	enum { NT = 5 };
	uint32_t tr[NT];
	unsigned x = 3;
	for (int t = 0; t < NT; t++) {
		tr[t] = tc_model_add_track(m, d, tc_model_intern(m, "s"), TC_TRACK_STREAM, t);
		int64_t at = 0;
		for (int e = 0; e < 400; e++) {
			x = x * 1103515245u + 12345u;
			/* Starts close together: some fall on the halving time. */
			at += (x >> 8) % 3;
			/* One in 100 runs long: over the halving time, often. */
			int64_t dur = (x >> 14) % 100 == 0 ? 60 : (int64_t)((x >> 20) % 3);
			tc_model_add_event(m, tr[t], ops[(x >> 4) % 3], at, dur, 0);
		}
	}
	tc_model_finalize(m);
	for (size_t n = 1; n <= NT; n++) {
		struct tc_ivals one[TC_OP_KIND_COUNT] = { 0 }, two[TC_OP_KIND_COUNT] = { 0 };
		tc_ivals_union_per_kind_of(m, tr, n, UINT32_MAX, one);
		tc_ivals_union_per_kind_two(m, tr, n, UINT32_MAX, two);
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			ck_assert_uint_eq(one[k].n, two[k].n);
			for (size_t i = 0; i < one[k].n; i++) {
				ck_assert_int_eq(one[k].lo[i], two[k].lo[i]);
				ck_assert_int_eq(one[k].hi[i], two[k].hi[i]);
			}
		}
		ck_assert_uint_gt(one[TC_OP_KERNEL].n, n == 1 ? 20 : 0);
		tc_ivals_finish_per_kind(one);
		tc_ivals_finish_per_kind(two);
	}
	tc_model_destroy(m);
}
END_TEST

/* Random sorted, disjoint, non-touching intervals in [0, LIMIT), and the
 * cells they cover. */
static void random_ivals(struct tc_ivals *v, bool *cover, unsigned *x, int gap) {
	v->n = 0;
	memset(cover, 0, LIMIT * sizeof(*cover));
	int64_t at = 0;
	for (;;) {
		*x = *x * 1103515245u + 12345u;
		at += 1 + (*x >> 8) % (unsigned)gap;
		int64_t len = 1 + (*x >> 20) % 90;
		if (at + len >= LIMIT) {
			break;
		}
		tc_ivals_push(v, at, at + len);
		for (int64_t y = at; y < at + len; y++) {
			cover[y] = true;
		}
		at += len;
	}
}

START_TEST(merge_into_and_cover) {
	/* tc_ivals_merge_into and tc_cover_add against per-cell brute force,
	 * on lists that interleave, nest and touch. */
	enum { NL = 5 };
	static bool cov[NL][LIMIT], want[LIMIT];
	struct tc_ivals l[NL] = { 0 }, u = { 0 };
	struct tc_cover c = { 0 };
	unsigned x = 99;
	for (int round = 0; round < 40; round++) {
		for (int k = 0; k < NL; k++) {
			random_ivals(&l[k], cov[k], &x, 40 + 200 * k);
		}
		/* Merge in place, the short list into the long one and back. */
		for (int k = 1; k < NL; k++) {
			u.n = 0;
			tc_ivals_merge_into(&u, &l[round % 2 ? 0 : k]);
			tc_ivals_merge_into(&u, &l[round % 2 ? k : 0]);
			for (int y = 0; y < LIMIT; y++) {
				want[y] = cov[0][y] || cov[k][y];
			}
			check_ivals_cover(&u, want);
		}
		/* One cover emptied and added to again, over new lists and
		 * windows that rise and fall: its search hints go stale. */
		for (int w = 0; w < 6; w++) {
			x = x * 1103515245u + 12345u;
			int64_t lo = (int64_t)(x >> 7) % LIMIT, hi = lo + (int64_t)(x >> 17) % LIMIT;
			if (round % 4 == 0 && w == 0) {
				lo = INT64_MIN;
				hi = INT64_MAX;
			}
			c.n = 0;
			tc_cover_add(&c, l, NL, lo, hi);
			int64_t by_bits[1 << NL] = { 0 };
			for (int64_t y = lo < 0 ? 0 : lo; y < LIMIT && y < hi; y++) {
				unsigned b = 0;
				for (int k = 0; k < NL; k++) {
					b |= cov[k][y] ? 1u << k : 0;
				}
				by_bits[b]++;
			}
			int64_t got[1 << NL] = { 0 };
			for (size_t p = 0; p < c.n; p++) {
				ck_assert(c.v[p].bits != 0 && c.v[p].bits < (1u << NL));
				got[c.v[p].bits] += c.v[p].len;
			}
			for (int b = 1; b < (1 << NL); b++) {
				ck_assert_msg(got[b] == by_bits[b], "round %d bits %d: %lld != %lld", round, b,
					(long long)got[b], (long long)by_bits[b]);
			}
			int64_t any = 0, both = 0;
			for (int b = 1; b < (1 << NL); b++) {
				any += (b & 6) ? by_bits[b] : 0;
				both += (b & 1) && (b & 8) ? by_bits[b] : 0;
			}
			ck_assert_int_eq(tc_cover_len(&c, 6), any);
			ck_assert_int_eq(tc_cover_len_both(&c, 1, 8), both);
		}
	}
	tc_cover_finish(&c);
	for (int k = 0; k < NL; k++) {
		tc_ivals_finish(&l[k]);
	}
	tc_ivals_finish(&u);
	/* Model times reach 2^62 either side of the origin: lengths saturate
	 * instead of overflowing (the sanitizer run checks the arithmetic). */
	const int64_t far = (int64_t)1 << 62;
	struct tc_ivals e[2] = { 0 };
	tc_ivals_push(&e[0], -far, -far + 10);
	tc_ivals_push(&e[1], far, far + 5);
	/* c was emptied whole by tc_cover_finish. */
	tc_cover_add(&c, e, 2, INT64_MIN, INT64_MAX);
	ck_assert_int_eq(tc_cover_len(&c, 3), 15);
	tc_ivals_push(&e[0], -1, far + 1000);
	c.n = 0;
	tc_cover_add(&c, e, 2, INT64_MIN, INT64_MAX);
	ck_assert_int_eq(tc_cover_len(&c, 1), 10 + far + 1001);
	ck_assert_int_eq(tc_cover_len_both(&c, 1, 2), 5);
	e[0].n = 0;
	tc_ivals_push(&e[0], -far, far + 1000);
	c.n = 0;
	tc_cover_add(&c, e, 2, INT64_MIN, INT64_MAX);
	ck_assert_int_eq(tc_cover_len(&c, 3), INT64_MAX);
	ck_assert_int_eq(tc_ivals_length(&e[0]), INT64_MAX);
	tc_cover_finish(&c);
	tc_ivals_finish(&e[0]);
	tc_ivals_finish(&e[1]);
}
END_TEST

START_TEST(cover_const_but) {
	/* tc_cover_const_but against cells: true exactly when every list
	 * but the dense one is all in or all out of the window, and then its
	 * bits and the dense list's time in the window give tc_cover_add's
	 * parts. Windows rise and fall over one cover, so hints go stale. */
	enum { NL = 4 };
	static bool cov[NL][LIMIT];
	struct tc_ivals l[NL] = { 0 };
	struct tc_cover c = { 0 };
	unsigned x = 7;
	int n_const = 0, n_not = 0;
	for (int round = 0; round < 60; round++) {
		random_ivals(&l[0], cov[0], &x, 30);
		for (int w = 0; w < 8; w++) {
			x = x * 1103515245u + 12345u;
			int64_t lo = (int64_t)(x >> 7) % (LIMIT - 1);
			int64_t hi = lo + 1 + (int64_t)(x >> 17) % (LIMIT - 1 - lo);
			/* Others: none, one interval over the window (or one that
			 * misses it), or random, which is seldom constant. */
			for (int k = 1; k < NL; k++) {
				x = x * 1103515245u + 12345u;
				unsigned how = (x >> 9) % 4;
				l[k].n = 0;
				memset(cov[k], 0, sizeof(cov[k]));
				int64_t a = how == 1 ? lo - (int64_t)((x >> 13) % 3) : hi + 1;
				int64_t b = how == 1 ? hi + (int64_t)((x >> 15) % 3) : hi + 5;
				if (how == 3) {
					random_ivals(&l[k], cov[k], &x, 200);
					continue;
				}
				if (how >= 1 && a >= 0 && b <= LIMIT) {
					tc_ivals_push(&l[k], a, b);
					for (int64_t y = a; y < b; y++) {
						cov[k][y] = true;
					}
				}
			}
			bool want = true;
			uint64_t want_bits = 0;
			for (int k = 1; k < NL; k++) {
				for (int64_t y = lo; y < hi; y++) {
					want &= cov[k][y] == cov[k][lo];
				}
				want_bits |= cov[k][lo] ? 1u << k : 0;
			}
			uint64_t bits = 99;
			size_t first = 99;
			bool got = tc_cover_const_but(&c, l, NL, 0, lo, hi, &bits, &first);
			ck_assert_msg(got == want, "round %d window %d", round, w);
			if (!got) {
				n_not++;
				continue;
			}
			n_const++;
			ck_assert_uint_eq(bits, want_bits);
			size_t f = 0;
			while (f < l[0].n && l[0].hi[f] <= lo) {
				f++;
			}
			ck_assert_uint_eq(first, f);
			int64_t in = 0;
			for (size_t i = first; i < l[0].n && l[0].lo[i] < hi; i++) {
				in += (l[0].hi[i] < hi ? l[0].hi[i] : hi) - (l[0].lo[i] > lo ? l[0].lo[i] : lo);
			}
			c.n = 0;
			tc_cover_add(&c, l, NL, lo, hi);
			int64_t got_in = 0, got_out = 0;
			for (size_t p = 0; p < c.n; p++) {
				ck_assert(c.v[p].bits == (bits | 1) || c.v[p].bits == bits);
				*(c.v[p].bits & 1 ? &got_in : &got_out) += c.v[p].len;
			}
			ck_assert_int_eq(got_in, in);
			ck_assert_int_eq(got_out, bits ? hi - lo - in : 0);
		}
	}
	/* Both outcomes were tried. */
	ck_assert_int_gt(n_const, 50);
	ck_assert_int_gt(n_not, 50);
	tc_cover_finish(&c);
	for (int k = 0; k < NL; k++) {
		tc_ivals_finish(&l[k]);
	}
}
END_TEST

START_TEST(trim_under_cells) {
	/* tc_ivals_trim_under against cells: an interval of v (clipped to
	 * the window) loses its leading and trailing cells that lie under a
	 * run holding a kind of the mask, and is dropped when all do; cells
	 * under in its middle stay. Runs touch often, and kinds change from
	 * run to run. */
	static bool in_v[LIMIT];
	static int64_t run_at[LIMIT]; /* index of the run over a cell, -1 none */
	const uint32_t mask = 0x5;
	struct tc_ivals v = { 0 }, runs = { 0 }, out = { 0 };
	unsigned x = 11;
	int n_drop = 0, n_keep = 0, n_cut = 0, n_middle = 0;
	for (int round = 0; round < 80; round++) {
		random_ivals(&v, in_v, &x, 60);
		/* Runs: back to back stretches, some with gaps. */
		runs.n = 0;
		for (int64_t y = 0; y < LIMIT; y++) {
			run_at[y] = -1;
		}
		int64_t at = 0;
		while (at < LIMIT - 200) {
			x = x * 1103515245u + 12345u;
			at += (x >> 8) % 3 == 0 ? 1 + (int64_t)((x >> 12) % 40) : 0;
			int64_t len = 1 + (int64_t)((x >> 18) % 150);
			tc_runs_reserve(&runs, runs.n + 1);
			runs.lo[runs.n] = at;
			runs.hi[runs.n] = at + len;
			runs.kinds[runs.n] = 1u << ((x >> 25) % 4);
			for (int64_t y = at; y < at + len; y++) {
				run_at[y] = (int64_t)runs.n;
			}
			runs.n++;
			at += len;
		}
		for (int w = 0; w < 6; w++) {
			x = x * 1103515245u + 12345u;
			int64_t lo = (int64_t)(x >> 7) % (LIMIT - 1);
			int64_t hi = lo + 1 + (int64_t)(x >> 17) % (LIMIT - 1 - lo);
			size_t changed = tc_ivals_trim_under(&v, &runs, mask, lo, hi, &out);
			/* The kept cells of each interval, merged where they touch. */
			static bool want[LIMIT];
			memset(want, 0, sizeof(want));
			size_t want_changed = 0, want_n = 0;
			for (size_t i = 0; i < v.n; i++) {
				int64_t a = v.lo[i] > lo ? v.lo[i] : lo, b = v.hi[i] < hi ? v.hi[i] : hi;
				if (a >= b) {
					continue;
				}
#define UNDER(y) (run_at[y] >= 0 && (runs.kinds[run_at[y]] & mask))
				int64_t a2 = a, b2 = b;
				while (a2 < b && UNDER(a2)) {
					a2++;
				}
				while (b2 > a2 && UNDER(b2 - 1)) {
					b2--;
				}
				for (int64_t y = a2; y < b2; y++) {
					want[y] = true;
					n_middle += UNDER(y) ? 1 : 0;
				}
#undef UNDER
				*(a2 == b2 ? &n_drop : a2 != a || b2 != b ? &n_cut : &n_keep) += 1;
				want_changed += a2 != a || b2 != b;
				want_n += a2 < b2;
			}
			ck_assert_uint_eq(changed, want_changed);
			ck_assert_uint_eq(out.n, want_n);
			size_t k = 0;
			for (int64_t y = 0; y < LIMIT; y++) {
				bool got = k < out.n && out.lo[k] <= y && y < out.hi[k];
				ck_assert_msg(got == want[y], "round %d window %d cell %lld", round, w,
					(long long)y);
				k += k < out.n && y + 1 == out.hi[k];
			}
			ck_assert_uint_eq(k, out.n);
		}
	}
	ck_assert_int_gt(n_drop, 100);
	ck_assert_int_gt(n_keep, 100);
	ck_assert_int_gt(n_cut, 100);
	ck_assert_int_gt(n_middle, 100);
	tc_ivals_finish(&v);
	tc_ivals_finish(&runs);
	tc_ivals_finish(&out);
}
END_TEST

int main(void) {
	Suite *s = suite_create("intervals");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, union_across_streams);
	tcase_add_test(tc, union_many_tracks);
	tcase_add_test(tc, union_two_halves_in_time);
	tcase_add_test(tc, merge_into_and_cover);
	tcase_add_test(tc, cover_const_but);
	tcase_add_test(tc, trim_under_cells);
	tcase_add_test(tc, kind_sums_grow);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
