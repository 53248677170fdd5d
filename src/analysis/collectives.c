/*
 * Collectives matched across ranks: the k-th instance of each collective
 * in each process group, on every rank that ran it. Its arrival skew,
 * each rank's wait and transfer time, and its bandwidth (NCCL's algbw
 * and busbw) say who the others waited for.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/passes.h"
#include "model/coll_table.h"
#include "util/xalloc.h"

/* One rank's run of a collective, keyed for matching (names are ids in
 * the job's string table); the rest stays in its rank's table, so the
 * keys sorted and copied here stay small. */
struct occ {
	uint32_t group, name;
	uint64_t index;
	uint32_t rank;          /* index into tc_ranks.v */
	uint32_t at;            /* index into that rank's table */
};

/* o's occurrence in its rank's table: times on that rank's clock. */
static inline const struct tc_coll_occ *occ_of(const struct tc_coll_table *tab,
		const struct occ *o) {
	return &tab[o->rank].v[o->at];
}

static inline int64_t occ_start(const struct tc_coll_table *tab, const struct occ *o) {
	return occ_of(tab, o)->start_ps;
}

static inline int64_t occ_end(const struct tc_coll_table *tab, const struct occ *o) {
	const struct tc_coll_occ *c = occ_of(tab, o);
	return c->start_ps + c->dur_ps;
}

static int cmp_occ(const void *pa, const void *pb) {
	const struct occ *a = pa, *b = pb;
	if (a->group != b->group) {
		return a->group < b->group ? -1 : 1;
	}
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	if (a->index != b->index) {
		return a->index < b->index ? -1 : 1;
	}
	if (a->rank != b->rank) {
		return a->rank < b->rank ? -1 : 1;
	}
	return a->at < b->at ? -1 : a->at > b->at;
}

/* NCCL's bus bandwidth factor for a collective name (nccl-tests
 * PERFORMANCE.md): all-reduce 2(n-1)/n, all-gather, reduce-scatter and
 * all-to-all (n-1)/n, broadcast, reduce and point-to-point 1. */
static double bus_factor(const char *name, size_t n) {
	char s[64];
	size_t k = 0;
	for (; *name && k < sizeof(s) - 1; name++) {
		char c = *name >= 'A' && *name <= 'Z' ? (char)(*name - 'A' + 'a') : *name;
		if (c != '-' && c != '_' && c != ' ') {
			s[k++] = c;
		}
	}
	s[k] = 0;
	double nn = (double)n;
	if (n < 2) {
		return 1;
	}
	if (strstr(s, "allreduce")) {
		return 2 * (nn - 1) / nn;
	}
	if (strstr(s, "allgather") || strstr(s, "reducescatter") || strstr(s, "alltoall")) {
		return (nn - 1) / nn;
	}
	return 1;
}

static int cmp_i64(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

struct span {
	int64_t lo, hi;
};

static int cmp_span(const void *pa, const void *pb) {
	const struct span *a = pa, *b = pb;
	if (a->lo != b->lo) {
		return a->lo < b->lo ? -1 : 1;
	}
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* Each rank's wait for r->straggler: from its own start of an instance
 * that rank reached last to that arrival, clipped to its own end. */
static void straggler_waits(const struct tc_coll_table *tab, const struct tc_ranks *r,
		const struct occ *v, const size_t (*runs)[2], size_t n_runs, struct tc_ivals *waits) {
	for (size_t k = 0; k < r->n; k++) {
		struct span *sp = NULL;
		size_t ns = 0, cap = 0;
		const struct tc_rank_result *rr = &r->v[k];
		for (size_t q = 0; q < n_runs && k != r->straggler; q++) {
			const struct tc_coll_instance *c = &r->coll[q];
			if (c->last != r->straggler) {
				continue;
			}
			for (size_t i = runs[q][0]; i < runs[q][1]; i++) {
				if (v[i].rank != k) {
					continue;
				}
				int64_t lo = occ_start(tab, &v[i]), hi = occ_end(tab, &v[i]);
				int64_t arrive = c->last_start_ps + rr->clock_offset_ps;
				TC_GROW(sp, cap, ns + 1);
				sp[ns++] = (struct span){ lo, arrive < hi ? arrive : hi };
			}
		}
		tc_sort(sp, ns, sizeof(*sp), cmp_span);
		waits[k].n = 0;
		for (size_t i = 0; i < ns; i++) {
			tc_ivals_push(&waits[k], sp[i].lo, sp[i].hi);
		}
		free(sp);
	}
}

/* Instances from v's keys (v sorted by cmp_occ): fills r's collectives.
 * Returns how many of them the ranks leave within tol of each other
 * (aligned ends), 0 when no instance is held by two ranks. */
static size_t instances(const struct tc_coll_table *tab, struct tc_ranks *r,
		const struct tc_step_times *per_rank, const struct occ *v, size_t n, int64_t tol,
		struct tc_ivals *waits) {
	/* Runs of one instance held by two or more ranks. */
	size_t cap_coll = 0;
	size_t (*runs)[2] = NULL;
	size_t n_runs = 0, cap_runs = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].group == v[i].group && v[j].name == v[i].name &&
				v[j].index == v[i].index) {
			j++;
		}
		if (j - i >= 2) {
			TC_GROW(runs, cap_runs, n_runs + 1);
			runs[n_runs][0] = i;
			runs[n_runs++][1] = j;
		}
		i = j;
	}
	if (n_runs == 0) {
		free(runs);
		return 0;
	}
	size_t together = 0;
	/* Clocks: every rank leaves a collective together, so the end of the
	 * earliest instance that all ranks ran is one moment on every clock. */
	size_t ref = SIZE_MAX;
	int64_t ref_end = 0;
	for (size_t q = 0; q < n_runs; q++) {
		if (runs[q][1] - runs[q][0] != r->n) {
			continue;
		}
		int64_t e = occ_end(tab, &v[runs[q][0]]);
		if (ref == SIZE_MAX || e < ref_end) {
			ref = q;
			ref_end = e;
		}
	}
	if (ref != SIZE_MAX) {
		for (size_t i = runs[ref][0]; i < runs[ref][1]; i++) {
			r->v[v[i].rank].clock_offset_ps = occ_end(tab, &v[i]) - ref_end;
		}
		r->alignment = "the end of the first collective every rank ran";
	}
	int64_t *tr = tc_xmalloc(r->n * sizeof(*tr));
	int64_t *spread = tc_xmalloc(n_runs * sizeof(*spread));
	for (size_t q = 0; q < n_runs; q++) {
		TC_GROW(r->coll, cap_coll, r->n_coll + 1);
		struct tc_coll_instance *c = &r->coll[r->n_coll++];
		const struct occ *o = &v[runs[q][0]];
		*c = (struct tc_coll_instance){ .name = o->name, .group = o->group, .index = o->index,
			.n_ranks = runs[q][1] - runs[q][0], .last_step = -1, .bytes = -1, .algbw = -1,
			.busbw = -1 };
		int64_t first = INT64_MAX, last = INT64_MIN;
		for (size_t i = runs[q][0]; i < runs[q][1]; i++) {
			int64_t s = occ_start(tab, &v[i]) - r->v[v[i].rank].clock_offset_ps;
			first = s < first ? s : first;
			if (s > last) {
				last = s;
				c->last = v[i].rank;
			}
			if (occ_of(tab, &v[i])->bytes >= 0) {
				c->bytes = occ_of(tab, &v[i])->bytes;
			}
		}
		c->first_start_ps = first;
		c->last_start_ps = last;
		c->skew_ps = last - first;
		size_t nt = 0;
		int64_t end_lo = INT64_MAX, end_hi = INT64_MIN;
		for (size_t i = runs[q][0]; i < runs[q][1]; i++) {
			struct tc_rank_result *rr = &r->v[v[i].rank];
			int64_t s = occ_start(tab, &v[i]) - rr->clock_offset_ps;
			int64_t e = occ_end(tab, &v[i]) - rr->clock_offset_ps;
			int64_t t = e > last ? e - last : 0;
			end_lo = e < end_lo ? e : end_lo;
			end_hi = e > end_hi ? e : end_hi;
			rr->wait_ps += last - s;
			rr->transfer_ps += t;
			c->wait_ps += last - s;
			tr[nt++] = t;
		}
		tc_sort(tr, nt, sizeof(*tr), cmp_i64);
		c->transfer_ps = tr[nt / 2];
		spread[q] = end_hi - end_lo;
		together += spread[q] <= tol;
		struct tc_rank_result *lr = &r->v[c->last];
		lr->n_last++;
		lr->caused_ps += c->wait_ps;
		r->skew_total_ps += c->skew_ps;
		/* The step on the last rank's own clock: its analysis ran on the
		 * model its table came from, whose times the table keeps. */
		const struct tc_step_times *pa = &per_rank[c->last];
		for (size_t i = runs[q][0]; i < runs[q][1]; i++) {
			if (v[i].rank == c->last) {
				size_t s = tc_step_times_at(pa, occ_start(tab, &v[i]));
				c->last_step = s < pa->n ? pa->num[s] : -1;
			}
		}
		int64_t group_size = occ_of(tab, o)->group_size;
		size_t gs = group_size > 1 ? (size_t)group_size : c->n_ranks;
		if (c->bytes >= 0 && c->transfer_ps > 0) {
			c->algbw = c->bytes / ((double)c->transfer_ps / 1e12);
			const char *name = tc_coll_table_str(&tab[o->rank], occ_of(tab, o)->name);
			c->busbw = c->algbw * bus_factor(name, gs);
		}
	}
	tc_sort(spread, n_runs, sizeof(*spread), cmp_i64);
	r->end_spread_ps = spread[n_runs / 2];
	for (size_t q = 0; q < n_runs; q++) {
		spread[q] = r->coll[q].transfer_ps;
	}
	tc_sort(spread, n_runs, sizeof(*spread), cmp_i64);
	r->lined_up = r->end_spread_ps <= spread[n_runs / 2];
	for (size_t k = 1; k < r->n; k++) {
		if (r->v[k].caused_ps > r->v[r->straggler].caused_ps) {
			r->straggler = k;
		}
	}
	if (waits) {
		straggler_waits(tab, r, v, (const size_t (*)[2])runs, n_runs, waits);
	}
	free(spread);
	free(tr);
	free(runs);
	return together ? together : 1;
}

/* r's collective results back to none, for another matching. */
static void reset(struct tc_ranks *r) {
	free(r->coll);
	r->coll = NULL;
	r->n_coll = 0;
	r->alignment = NULL;
	r->skew_total_ps = r->end_spread_ps = 0;
	r->lined_up = false;
	r->straggler = 0;
	r->coll_source = NULL;
	for (size_t k = 0; k < r->n; k++) {
		struct tc_rank_result *rr = &r->v[k];
		rr->clock_offset_ps = rr->wait_ps = rr->caused_ps = rr->transfer_ps = 0;
		rr->n_last = 0;
	}
}

static int cmp_i64v(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/*
 * Without Seq, an occurrence on one rank is not the same instance as the
 * k-th on another when a trace lost some (sampled or filtered traces).
 * Ranks leave a collective together, so instances can be told by their
 * ends instead: for each rank, the clock offset to the first rank that
 * makes the most ends of the same (group, name) coincide within a tenth of
 * the median duration; then each of the first rank's is paired with the
 * unpaired one ending nearest under that offset, within the same bound.
 * Renumbers v's index (unpaired: a key of their own) and returns true when
 * every rank pairs two or more.
 */
struct end_at {
	int64_t end;
	size_t pos; /* in v */
	uint32_t rank;
};

static int cmp_rank_end(const void *pa, const void *pb) {
	const struct end_at *a = pa, *b = pb;
	if (a->rank != b->rank) {
		return a->rank < b->rank ? -1 : 1;
	}
	if (a->end != b->end) {
		return a->end < b->end ? -1 : 1;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Offsets are tried from this many of the first rank's collectives of each
 * (group, name): enough to find the common one, and linear in the rest. */
#define OFFSET_PROBES 16

/* Rank k's ends in a block of ends sorted by rank then end. */
static const struct end_at *rank_ends(const struct end_at *b, size_t nb, uint32_t k,
		size_t *n) {
	size_t lo = 0, hi = nb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid].rank < k) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	size_t e = lo;
	while (e < nb && b[e].rank == k) {
		e++;
	}
	*n = e - lo;
	return b + lo;
}

static bool match_ends(const struct tc_coll_table *tab, const struct tc_ranks *r,
		struct occ *v, size_t n, int64_t tol) {
	if (tol <= 0 || n == 0) {
		return false;
	}
	uint64_t *pair = tc_xmalloc(n * sizeof(*pair));
	for (size_t i = 0; i < n; i++) {
		pair[i] = UINT64_MAX;
	}
	/* Each block of one (group, name), sorted once by rank then end, so
	 * every rank's ends in it are one run. */
	struct end_at *ends = tc_xmalloc(n * sizeof(*ends));
	size_t *blk = NULL, nb = 0, cb = 0;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && v[hi].group == v[lo].group && v[hi].name == v[lo].name; hi++) {
			ends[hi] = (struct end_at){ occ_end(tab, &v[hi]), hi, v[hi].rank };
		}
		tc_sort(ends + lo, hi - lo, sizeof(*ends), cmp_rank_end);
		TC_GROW(blk, cb, nb + 2);
		blk[nb++] = lo;
		blk[nb] = hi;
	}
	bool ok = true;
	for (uint32_t k = 1; k < r->n && ok; k++) {
		int64_t *off = NULL;
		size_t no = 0, co = 0;
		for (size_t b = 0; b < nb; b++) {
			size_t n0, nk;
			const struct end_at *e0 = rank_ends(ends + blk[b], blk[b + 1] - blk[b], 0, &n0);
			const struct end_at *ek = rank_ends(ends + blk[b], blk[b + 1] - blk[b], k, &nk);
			for (size_t i = 0; i < n0 && i < OFFSET_PROBES; i++) {
				for (size_t j = 0; j < nk; j++) {
					TC_GROW(off, co, no + 1);
					off[no++] = ek[j].end - e0[i].end;
				}
			}
		}
		tc_sort(off, no, sizeof(*off), cmp_i64v);
		/* The densest window of offsets 2 tol wide; its median. */
		size_t best = 0, at = 0;
		for (size_t a = 0, b = 0; b < no; b++) {
			while (off[b] - off[a] > 2 * tol) {
				a++;
			}
			if (b - a + 1 > best) {
				best = b - a + 1;
				at = a;
			}
		}
		int64_t delta = best ? off[at + best / 2] : 0;
		free(off);
		size_t paired = 0;
		for (size_t b = 0; b < nb && best >= 2; b++) {
			size_t n0, nk;
			const struct end_at *e0 = rank_ends(ends + blk[b], blk[b + 1] - blk[b], 0, &n0);
			const struct end_at *ek = rank_ends(ends + blk[b], blk[b + 1] - blk[b], k, &nk);
			/* Both by end: the first of ek at or past each target only
			 * moves forward. */
			size_t a = 0;
			for (size_t i = 0; i < n0; i++) {
				/* The nearest unpaired end under the offset, within tol. */
				int64_t want = e0[i].end + delta;
				for (; a < nk && ek[a].end < want; a++) {
				}
				size_t pick = SIZE_MAX;
				int64_t gap = tol + 1;
				for (size_t j = a; j < nk && ek[j].end - want <= tol; j++) {
					if (pair[ek[j].pos] == UINT64_MAX && ek[j].end - want < gap) {
						gap = ek[j].end - want;
						pick = j;
					}
				}
				for (size_t j = a; j-- > 0 && want - ek[j].end <= tol;) {
					if (pair[ek[j].pos] == UINT64_MAX && want - ek[j].end < gap) {
						gap = want - ek[j].end;
						pick = j;
					}
				}
				if (pick != SIZE_MAX) {
					pair[ek[pick].pos] = v[e0[i].pos].index;
					pair[e0[i].pos] = v[e0[i].pos].index;
					paired++;
				}
			}
		}
		ok = paired >= 2;
	}
	/* Paired: the first rank's index; the rest: a key of their own. */
	for (size_t i = 0; i < n && ok; i++) {
		v[i].index = pair[i] != UINT64_MAX ? pair[i] : ((uint64_t)1 << 62) + i;
	}
	free(ends);
	free(blk);
	free(pair);
	return ok;
}

void tc_pass_collectives(const struct tc_coll_table *tab, const uint32_t *const *ids,
		struct tc_ranks *r, const struct tc_step_times *per_rank, struct tc_ivals *waits) {
	size_t n = 0;
	bool all_seq = true;
	for (size_t k = 0; k < r->n; k++) {
		n += tab[k].n;
		all_seq &= tab[k].seq_all;
	}
	/* Rank by rank, each in its table's order: sorting keeps that order
	 * among equal keys. */
	struct occ *v = tc_xmalloc((n ? n : 1) * sizeof(*v));
	n = 0;
	for (size_t k = 0; k < r->n; k++) {
		for (size_t i = 0; i < tab[k].n; i++) {
			const struct tc_coll_occ *o = &tab[k].v[i];
			v[n++] = (struct occ){ .group = ids[k][o->group], .name = ids[k][o->name],
				.index = o->index, .rank = (uint32_t)k, .at = (uint32_t)i };
		}
	}
	tc_sort(v, n, sizeof(*v), cmp_occ);
	/* A rank holds an instance once: of a key it repeats (a Seq given
	 * twice, a damaged digest) its first occurrence counts. */
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && v[u - 1].rank == v[i].rank && v[u - 1].group == v[i].group &&
				v[u - 1].name == v[i].name && v[u - 1].index == v[i].index) {
			continue;
		}
		v[u++] = v[i];
	}
	n = u;
	/* Ends of one instance coincide within a tenth of the median
	 * collective duration (the first rank's). */
	size_t n0 = 0;
	int64_t *d = tc_xmalloc((n ? n : 1) * sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		if (v[i].rank == 0) {
			d[n0++] = occ_of(tab, &v[i])->dur_ps;
		}
	}
	tc_sort(d, n0, sizeof(*d), cmp_i64v);
	int64_t tol = n0 ? d[n0 / 2] / 10 : 0;
	free(d);
	/* Without Seq, the pairing by ends where more instances end together
	 * than by occurrence (ties: occurrence). The pairing kept is made with
	 * the waits; only a pairing by occurrence that wins is made twice. */
	struct occ *by_end = NULL;
	if (!all_seq && n) {
		by_end = tc_xmalloc(n * sizeof(*by_end));
		memcpy(by_end, v, n * sizeof(*v));
		if (match_ends(tab, r, by_end, n, tol)) {
			tc_sort(by_end, n, sizeof(*by_end), cmp_occ);
		} else {
			free(by_end);
			by_end = NULL;
		}
	}
	const char *source = all_seq ? "Seq" : "occurrence";
	size_t together;
	if (by_end) {
		size_t occ = instances(tab, r, per_rank, v, n, tol, NULL);
		reset(r);
		together = instances(tab, r, per_rank, by_end, n, tol, waits);
		source = "end";
		if (together <= occ) {
			reset(r);
			for (size_t k = 0; waits && k < r->n; k++) {
				waits[k].n = 0; /* instances leaves them when it pairs none */
			}
			together = instances(tab, r, per_rank, v, n, tol, waits);
			source = "occurrence";
		}
	} else {
		together = instances(tab, r, per_rank, v, n, tol, waits);
	}
	if (together) {
		r->coll_source = source;
	}
	free(by_end);
	free(v);
}
