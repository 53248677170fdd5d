/*
 * Collectives matched across ranks: the k-th instance of each collective
 * in each process group, on every rank that ran it. Its arrival skew,
 * each rank's wait and transfer time, and its bandwidth (NCCL's algbw
 * and busbw) say who the others waited for.
 *
 * Each rank's occurrences are kept sorted by key in a spill (util/spill.h)
 * and matched by merging the ranks' runs, a few rows of each at a time,
 * so memory does not grow with the job's occurrences (64 ranks of 64,000
 * collectives are 200 MB of rows).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/passes.h"
#include "model/coll_table.h"
#include "util/num.h"
#include "util/spill.h"
#include "util/xalloc.h"

/* One rank's run of a collective as matching keeps it: names are ids in
 * the job's string table, times on the rank's own clock. */
struct row {
	uint32_t group, name;
	uint64_t index;
	int64_t start, dur;
	double bytes;
	int64_t group_size;
};

/* Each rank's rows, sorted by key, one row per key: where they are. */
struct rank_rows {
	uint64_t at;
	size_t n;
};

struct tc_coll_rows {
	struct tc_spill spill;
	size_t n;               /* ranks */
	struct rank_rows *occ;  /* keyed by Seq or occurrence */
	bool seq_all;
};

static inline int64_t row_end(const struct row *w) {
	return w->start + w->dur;
}

static int cmp_key(const struct row *a, const struct row *b) {
	if (a->group != b->group) {
		return a->group < b->group ? -1 : 1;
	}
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	return a->index < b->index ? -1 : a->index > b->index;
}

/* A row and its place in its rank's table, which breaks ties. */
struct row_at {
	struct row w;
	size_t at;
};

static int cmp_row_at(const void *pa, const void *pb) {
	const struct row_at *a = pa, *b = pb;
	int c = cmp_key(&a->w, &b->w);
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

struct tc_coll_rows *tc_coll_rows_create(size_t n_ranks) {
	struct tc_coll_rows *c = tc_xcalloc(1, sizeof(*c));
	tc_spill_init(&c->spill);
	c->n = n_ranks;
	c->occ = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*c->occ));
	c->seq_all = true;
	return c;
}

void tc_coll_rows_destroy(struct tc_coll_rows *c) {
	if (!c) {
		return;
	}
	tc_spill_finish(&c->spill);
	free(c->occ);
	free(c);
}

/* v[0..n) sorted by key and set aside as rank k's rows of rr. */
static void put_rows(struct tc_coll_rows *c, struct rank_rows *rr, size_t k,
		struct row_at *v, size_t n) {
	/* A table is in time order: each (group, name) already by index. */
	tc_sort_runs(v, n, sizeof(*v), cmp_row_at);
	struct row *w = tc_xmalloc((n ? n : 1) * sizeof(*w));
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		/* A rank holds an instance once: of a key it repeats (a Seq
		 * given twice, a damaged digest) its first occurrence counts. */
		if (u && cmp_key(&w[u - 1], &v[i].w) == 0) {
			continue;
		}
		w[u++] = v[i].w;
	}
	rr[k].at = tc_spill_write(&c->spill, w, u * sizeof(*w));
	rr[k].n = u;
	free(w);
}

void tc_coll_rows_add(struct tc_coll_rows *c, size_t k, const struct tc_coll_table *t,
		const uint32_t *ids) {
	c->seq_all &= t->seq_all;
	struct row_at *v = tc_xmalloc((t->n ? t->n : 1) * sizeof(*v));
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_coll_occ *o = &t->v[i];
		v[i] = (struct row_at){ { .group = ids[o->group], .name = ids[o->name],
			.index = o->index, .start = o->start_ps, .dur = o->dur_ps, .bytes = o->bytes,
			.group_size = o->group_size }, i };
	}
	put_rows(c, c->occ, k, v, t->n);
	free(v);
}

/* Rank k's rows of rr, malloc'd. */
static struct row *load(const struct tc_coll_rows *c, const struct rank_rows *rr, size_t k) {
	struct row *w = tc_xmalloc((rr[k].n ? rr[k].n : 1) * sizeof(*w));
	tc_spill_read(&c->spill, rr[k].at, w, rr[k].n * sizeof(*w));
	return w;
}

/* ---- merging the ranks' rows ---- */

/* Rows read from a rank at a time: 64 ranks hold 1.5 MB of them. */
#define CURSOR_ROWS 512

struct cursor {
	struct row buf[CURSOR_ROWS];
	size_t have, at;
	uint64_t next;          /* in the spill */
	size_t left;            /* rows not yet read */
};

struct merge {
	const struct tc_coll_rows *c;
	struct cursor *cur;
	uint32_t *heap;         /* ranks by (their row's key, rank) */
	size_t nh;
};

static bool cursor_fill(const struct tc_coll_rows *c, struct cursor *u) {
	if (u->at < u->have) {
		return true;
	}
	if (!u->left) {
		return false;
	}
	size_t m = u->left < CURSOR_ROWS ? u->left : CURSOR_ROWS;
	tc_spill_read(&c->spill, u->next, u->buf, m * sizeof(*u->buf));
	u->next += m * sizeof(*u->buf);
	u->left -= m;
	u->have = m;
	u->at = 0;
	return true;
}

static bool heap_less(const struct merge *m, uint32_t a, uint32_t b) {
	int c = cmp_key(&m->cur[a].buf[m->cur[a].at], &m->cur[b].buf[m->cur[b].at]);
	return c ? c < 0 : a < b;
}

static void heap_down(struct merge *m, size_t i) {
	for (;;) {
		size_t l = 2 * i + 1, s = i;
		if (l < m->nh && heap_less(m, m->heap[l], m->heap[s])) {
			s = l;
		}
		if (l + 1 < m->nh && heap_less(m, m->heap[l + 1], m->heap[s])) {
			s = l + 1;
		}
		if (s == i) {
			return;
		}
		uint32_t t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static void heap_up(struct merge *m, size_t i) {
	while (i && heap_less(m, m->heap[i], m->heap[(i - 1) / 2])) {
		uint32_t t = m->heap[i];
		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void merge_open(struct merge *m, const struct tc_coll_rows *c, const struct rank_rows *rr) {
	m->c = c;
	m->cur = tc_xmalloc((c->n ? c->n : 1) * sizeof(*m->cur));
	m->heap = tc_xmalloc((c->n ? c->n : 1) * sizeof(*m->heap));
	m->nh = 0;
	for (size_t k = 0; k < c->n; k++) {
		struct cursor *u = &m->cur[k];
		u->have = u->at = 0;
		u->next = rr[k].at;
		u->left = rr[k].n;
		if (cursor_fill(c, u)) {
			m->heap[m->nh++] = (uint32_t)k;
			heap_up(m, m->nh - 1);
		}
	}
}

static void merge_close(struct merge *m) {
	free(m->cur);
	free(m->heap);
}

/* The next instance's rows, one per rank that holds its key, by rank:
 * into w and rank (room for every rank); how many, 0 at the end. */
static size_t merge_next(struct merge *m, struct row *w, uint32_t *rank) {
	size_t cnt = 0;
	while (m->nh) {
		uint32_t k = m->heap[0];
		struct cursor *u = &m->cur[k];
		if (cnt && cmp_key(&u->buf[u->at], &w[0]) != 0) {
			break;
		}
		w[cnt] = u->buf[u->at++];
		rank[cnt++] = k;
		if (!cursor_fill(m->c, u)) {
			m->heap[0] = m->heap[--m->nh];
		}
		heap_down(m, 0);
	}
	return cnt;
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
static void straggler_waits(const struct tc_coll_rows *c, const struct rank_rows *rr,
		const struct tc_ranks *r, struct tc_ivals *waits) {
	struct span **sp = tc_xcalloc(r->n, sizeof(*sp));
	size_t *ns = tc_xcalloc(r->n, sizeof(*ns)), *cap = tc_xcalloc(r->n, sizeof(*cap));
	struct row *w = tc_xmalloc(r->n * sizeof(*w));
	uint32_t *rank = tc_xmalloc(r->n * sizeof(*rank));
	struct merge m;
	merge_open(&m, c, rr);
	size_t cnt, q = 0;
	while ((cnt = merge_next(&m, w, rank))) {
		if (cnt < 2) {
			continue;
		}
		const struct tc_coll_instance *ci = &r->coll[q++];
		if (ci->last != r->straggler) {
			continue;
		}
		for (size_t i = 0; i < cnt; i++) {
			size_t k = rank[i];
			if (k == r->straggler) {
				continue;
			}
			int64_t lo = w[i].start, hi = row_end(&w[i]);
			int64_t arrive = ci->last_start_ps + r->v[k].clock_offset_ps;
			TC_GROW(sp[k], cap[k], ns[k] + 1);
			sp[k][ns[k]++] = (struct span){ lo, arrive < hi ? arrive : hi };
		}
	}
	merge_close(&m);
	for (size_t k = 0; k < r->n; k++) {
		tc_sort(sp[k], ns[k], sizeof(*sp[k]), cmp_span);
		waits[k].n = 0;
		for (size_t i = 0; i < ns[k]; i++) {
			tc_ivals_push(&waits[k], sp[k][i].lo, sp[k][i].hi);
		}
		free(sp[k]);
	}
	free(sp);
	free(ns);
	free(cap);
	free(w);
	free(rank);
}

/* Each instance's step on its last rank's own clock (last_own[q]: when
 * that rank started instance q; INT64_MIN none): its analysis ran on the
 * model its table came from, whose times the table keeps. Instances by
 * their last rank, so that each rank's steps are read once. */
static void last_steps(struct tc_ranks *r, const int64_t *last_own,
		const struct tc_step_source *steps) {
	size_t n = r->n_coll;
	size_t *from = tc_xcalloc(r->n + 1, sizeof(*from));
	size_t *by = tc_xmalloc((n ? n : 1) * sizeof(*by));
	for (size_t q = 0; q < n; q++) {
		from[r->coll[q].last + 1]++;
	}
	for (size_t k = 0; k < r->n; k++) {
		from[k + 1] += from[k];
	}
	for (size_t q = 0; q < n; q++) {
		by[from[r->coll[q].last]++] = q;
	}
	for (size_t k = 0, i = 0; k < r->n; k++) {
		if (i == n || r->coll[by[i]].last != k) {
			continue;
		}
		struct tc_step_times pa;
		steps->get(steps->ctx, k, &pa);
		for (; i < n && r->coll[by[i]].last == k; i++) {
			struct tc_coll_instance *ci = &r->coll[by[i]];
			size_t s = last_own[by[i]] == INT64_MIN ? SIZE_MAX :
				tc_step_times_at(&pa, last_own[by[i]]);
			ci->last_step = s < pa.n ? pa.num[s] : -1;
		}
		tc_step_times_finish(&pa);
	}
	free(from);
	free(by);
}

/* Clocks: every rank leaves a collective together, so the end of the
 * earliest instance that all ranks ran is one moment on every clock. Sets
 * r's clock offsets from it (when there is one); returns how many
 * instances two ranks or more ran. w and rank: room for r->n rows. */
static size_t align_clocks(const struct tc_coll_rows *c, const struct rank_rows *rr,
		struct tc_ranks *r, struct row *w, uint32_t *rank) {
	int64_t *ref_ends = tc_xmalloc((r->n ? r->n : 1) * sizeof(*ref_ends));
	bool have_ref = false;
	int64_t ref_end = 0;
	size_t n_runs = 0, cnt;
	struct merge m;
	merge_open(&m, c, rr);
	while ((cnt = merge_next(&m, w, rank))) {
		if (cnt < 2) {
			continue;
		}
		n_runs++;
		if (cnt == r->n && (!have_ref || row_end(&w[0]) < ref_end)) {
			have_ref = true;
			ref_end = row_end(&w[0]);
			for (size_t i = 0; i < cnt; i++) {
				ref_ends[rank[i]] = row_end(&w[i]);
			}
		}
	}
	merge_close(&m);
	if (have_ref) {
		for (size_t k = 0; k < r->n; k++) {
			r->v[k].clock_offset_ps = ref_ends[k] - ref_end;
		}
		r->alignment = "the end of the first collective every rank ran";
	}
	free(ref_ends);
	return n_runs;
}

/* One instance, the rows w[0..cnt) of ranks rank[], added to r on the
 * aligned clocks: who arrived last and the others' wait for it, its
 * transfer time and bandwidth. *spread: how far apart its ranks' ends
 * are; *last_own: the last rank's start on its own clock. tr: room for
 * cnt times. */
static void add_instance(struct tc_ranks *r, size_t *cap_coll, const struct tc_intern *names,
		const struct row *w, const uint32_t *rank, size_t cnt, int64_t *tr,
		int64_t *spread, int64_t *last_own) {
	TC_GROW(r->coll, *cap_coll, r->n_coll + 1);
	struct tc_coll_instance *ci = &r->coll[r->n_coll++];
	*ci = (struct tc_coll_instance){ .name = w[0].name, .group = w[0].group,
		.index = w[0].index, .n_ranks = cnt, .last_step = -1, .bytes = -1,
		.algbw = -1, .busbw = -1 };
	int64_t first = INT64_MAX, last = INT64_MIN;
	*last_own = INT64_MIN; /* none arrived after INT64_MIN: no step */
	for (size_t i = 0; i < cnt; i++) {
		int64_t s = w[i].start - r->v[rank[i]].clock_offset_ps;
		first = s < first ? s : first;
		if (s > last) {
			last = s;
			ci->last = rank[i];
			*last_own = w[i].start;
		}
		if (w[i].bytes >= 0) {
			ci->bytes = w[i].bytes;
		}
	}
	ci->first_start_ps = first;
	ci->last_start_ps = last;
	ci->skew_ps = last - first;
	int64_t end_lo = INT64_MAX, end_hi = INT64_MIN;
	for (size_t i = 0; i < cnt; i++) {
		struct tc_rank_result *res = &r->v[rank[i]];
		int64_t s = w[i].start - res->clock_offset_ps;
		int64_t e = row_end(&w[i]) - res->clock_offset_ps;
		int64_t t = e > last ? e - last : 0;
		end_lo = e < end_lo ? e : end_lo;
		end_hi = e > end_hi ? e : end_hi;
		/* Saturated: a digest's tables are input. */
		res->wait_ps = tc_sat_add(res->wait_ps, last - s);
		res->transfer_ps = tc_sat_add(res->transfer_ps, t);
		ci->wait_ps = tc_sat_add(ci->wait_ps, last - s);
		tr[i] = t;
	}
	tc_sort(tr, cnt, sizeof(*tr), cmp_i64);
	ci->transfer_ps = tr[cnt / 2];
	*spread = end_hi - end_lo;
	struct tc_rank_result *lr = &r->v[ci->last];
	lr->n_last++;
	lr->caused_ps = tc_sat_add(lr->caused_ps, ci->wait_ps);
	r->skew_total_ps = tc_sat_add(r->skew_total_ps, ci->skew_ps);
	size_t gs = w[0].group_size > 1 ? (size_t)w[0].group_size : ci->n_ranks;
	if (ci->bytes >= 0 && ci->transfer_ps > 0) {
		ci->algbw = ci->bytes / ((double)ci->transfer_ps / 1e12);
		ci->busbw = ci->algbw * bus_factor(tc_intern_str(names, w[0].name), gs);
	}
}

/* The ranks line up when the median spread of the instances' ends
 * (spread[0..n), sorted here) is within their median transfer time; the
 * straggler is the rank the others waited for the longest. */
static void judge(struct tc_ranks *r, int64_t *spread, size_t n) {
	tc_sort(spread, n, sizeof(*spread), cmp_i64);
	r->end_spread_ps = spread[n / 2];
	for (size_t q = 0; q < n; q++) {
		spread[q] = r->coll[q].transfer_ps;
	}
	tc_sort(spread, n, sizeof(*spread), cmp_i64);
	r->lined_up = r->end_spread_ps <= spread[n / 2];
	for (size_t k = 1; k < r->n; k++) {
		if (r->v[k].caused_ps > r->v[r->straggler].caused_ps) {
			r->straggler = k;
		}
	}
}

/* Instances from the rows of rr: fills r's collectives, each one's last
 * step from steps (NULL: a trial pairing, last steps left -1). Returns how
 * many of them the ranks leave within tol of each other (aligned ends), 0
 * when no instance is held by two ranks. */
static size_t instances(const struct tc_coll_rows *c, const struct rank_rows *rr,
		const struct tc_intern *names, struct tc_ranks *r,
		const struct tc_step_source *steps, int64_t tol, struct tc_ivals *waits) {
	struct row *w = tc_xmalloc((r->n ? r->n : 1) * sizeof(*w));
	uint32_t *rank = tc_xmalloc((r->n ? r->n : 1) * sizeof(*rank));
	size_t n_runs = align_clocks(c, rr, r, w, rank), cnt;
	if (n_runs == 0) {
		free(w);
		free(rank);
		return 0;
	}
	size_t together = 0, cap_coll = 0;
	int64_t *tr = tc_xmalloc(r->n * sizeof(*tr));
	int64_t *spread = tc_xmalloc(n_runs * sizeof(*spread));
	int64_t *last_own = tc_xmalloc(n_runs * sizeof(*last_own));
	struct merge m;
	merge_open(&m, c, rr);
	for (size_t q = 0; (cnt = merge_next(&m, w, rank));) {
		if (cnt < 2) {
			continue;
		}
		add_instance(r, &cap_coll, names, w, rank, cnt, tr, &spread[q], &last_own[q]);
		together += spread[q] <= tol;
		q++;
	}
	merge_close(&m);
	if (steps) {
		last_steps(r, last_own, steps);
	}
	free(last_own);
	judge(r, spread, n_runs);
	if (waits) {
		straggler_waits(c, rr, r, waits);
	}
	free(spread);
	free(tr);
	free(w);
	free(rank);
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

/*
 * Without Seq, an occurrence on one rank is not the same instance as the
 * k-th on another when a trace lost some (sampled or filtered traces).
 * Ranks leave a collective together, so instances can be told by their
 * ends instead: for each rank, the clock offset to the first rank that
 * makes the most ends of the same (group, name) coincide within a tenth of
 * the median duration; then each of the first rank's is paired with the
 * unpaired one ending nearest under that offset, within the same bound.
 * Two ranks' rows are in memory at a time. Fills out with the rows
 * renumbered (paired: the first rank's index; the rest: a key of their
 * own) and returns true when every rank pairs two or more.
 */
struct end_at {
	int64_t end;
	size_t pos;             /* in its rank's rows */
};

static int cmp_end(const void *pa, const void *pb) {
	const struct end_at *a = pa, *b = pb;
	if (a->end != b->end) {
		return a->end < b->end ? -1 : 1;
	}
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Offsets are tried from this many of the first rank's collectives of each
 * (group, name): enough to find the common one, and linear in the rest. */
#define OFFSET_PROBES 16

/* A rank's rows in blocks of one (group, name), each block's ends sorted;
 * the blocks own the rows (blocks_finish frees them). */
struct blocks {
	struct row *w;
	size_t n;
	struct end_at *ends;    /* block by block, by end */
	size_t *lo;             /* block b: ends[lo[b] .. lo[b + 1]) */
	size_t nb;
};

static void blocks_of(struct row *w, size_t n, struct blocks *b) {
	b->w = w;
	b->n = n;
	b->ends = tc_xmalloc((n ? n : 1) * sizeof(*b->ends));
	b->lo = tc_xmalloc((n + 1) * sizeof(*b->lo));
	b->nb = 0;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && w[hi].group == w[lo].group && w[hi].name == w[lo].name; hi++) {
			b->ends[hi] = (struct end_at){ row_end(&w[hi]), hi };
		}
		tc_sort(b->ends + lo, hi - lo, sizeof(*b->ends), cmp_end);
		b->lo[b->nb++] = lo;
	}
	b->lo[b->nb] = n;
}

static void blocks_finish(struct blocks *b) {
	free(b->w);
	free(b->ends);
	free(b->lo);
}

/* The block of b with (group, name) of a's block ba, from *from on (both
 * in key order); SIZE_MAX none. */
static size_t block_like(const struct blocks *a, size_t ba, const struct blocks *b,
		size_t *from) {
	const struct row *x = &a->w[a->lo[ba]];
	for (; *from < b->nb; (*from)++) {
		const struct row *y = &b->w[b->lo[*from]];
		if (y->group > x->group || (y->group == x->group && y->name > x->name)) {
			return SIZE_MAX;
		}
		if (y->group == x->group && y->name == x->name) {
			return *from;
		}
	}
	return SIZE_MAX;
}

/* Block b of b0's ends and block kb of bk's, false when kb is none. */
static bool block_ends(const struct blocks *b0, const struct blocks *bk, size_t kb, size_t b,
		const struct end_at **e0, size_t *n0, const struct end_at **ek, size_t *nk) {
	if (kb == SIZE_MAX) {
		return false;
	}
	*e0 = b0->ends + b0->lo[b];
	*n0 = b0->lo[b + 1] - b0->lo[b];
	*ek = bk->ends + bk->lo[kb];
	*nk = bk->lo[kb + 1] - bk->lo[kb];
	return true;
}

/* Rows w[0..n) of rank k renumbered from pair and set aside in out. */
static void put_renumbered(struct tc_coll_rows *c, struct rank_rows *out, size_t k,
		const struct row *w, const uint64_t *pair, size_t n) {
	struct row_at *v = tc_xmalloc((n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct row_at){ w[i], i };
		v[i].w.index = pair[i] != UINT64_MAX ? pair[i] :
			((uint64_t)1 << 62) + ((uint64_t)k << 32) + i;
	}
	put_rows(c, out, k, v, n);
	free(v);
}

static bool match_ends(struct tc_coll_rows *c, int64_t tol, struct rank_rows *out) {
	size_t total = 0;
	for (size_t k = 0; k < c->n; k++) {
		total += c->occ[k].n;
	}
	if (tol <= 0 || total == 0 || c->n < 2) {
		return false;
	}
	struct blocks b0;
	blocks_of(load(c, c->occ, 0), c->occ[0].n, &b0);
	uint64_t *pair0 = tc_xmalloc((b0.n ? b0.n : 1) * sizeof(*pair0));
	for (size_t i = 0; i < b0.n; i++) {
		pair0[i] = UINT64_MAX;
	}
	bool ok = true;
	for (size_t k = 1; k < c->n && ok; k++) {
		struct blocks bk;
		blocks_of(load(c, c->occ, k), c->occ[k].n, &bk);
		/* bk's block for each of b0's, SIZE_MAX none */
		size_t *like = tc_xmalloc((b0.nb ? b0.nb : 1) * sizeof(*like));
		for (size_t b = 0, from = 0; b < b0.nb; b++) {
			like[b] = block_like(&b0, b, &bk, &from);
		}
		int64_t *off = NULL;
		size_t no = 0, co = 0;
		const struct end_at *e0, *ek;
		size_t n0, nk;
		for (size_t b = 0; b < b0.nb; b++) {
			if (!block_ends(&b0, &bk, like[b], b, &e0, &n0, &ek, &nk)) {
				continue;
			}
			for (size_t i = 0; i < n0 && i < OFFSET_PROBES; i++) {
				for (size_t j = 0; j < nk; j++) {
					TC_GROW(off, co, no + 1);
					/* Wrapped: a digest's times are input. */
					off[no++] = (int64_t)((uint64_t)ek[j].end - (uint64_t)e0[i].end);
				}
			}
		}
		tc_sort(off, no, sizeof(*off), cmp_i64);
		/* The densest window of offsets 2 tol wide; its median. */
		size_t best = 0, at = 0;
		for (size_t a = 0, b = 0; b < no; b++) {
			/* Sorted, so the difference fits a uint64. */
			while ((uint64_t)off[b] - (uint64_t)off[a] > 2 * (uint64_t)tol) {
				a++;
			}
			if (b - a + 1 > best) {
				best = b - a + 1;
				at = a;
			}
		}
		int64_t delta = best ? off[at + best / 2] : 0;
		free(off);
		uint64_t *pair = tc_xmalloc((bk.n ? bk.n : 1) * sizeof(*pair));
		for (size_t i = 0; i < bk.n; i++) {
			pair[i] = UINT64_MAX;
		}
		size_t paired = 0;
		for (size_t b = 0; b < b0.nb && best >= 2; b++) {
			if (!block_ends(&b0, &bk, like[b], b, &e0, &n0, &ek, &nk)) {
				continue;
			}
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
					uint64_t idx = b0.w[e0[i].pos].index;
					pair[ek[pick].pos] = idx;
					pair0[e0[i].pos] = idx;
					paired++;
				}
			}
		}
		ok = paired >= 2;
		if (ok) {
			put_renumbered(c, out, k, bk.w, pair, bk.n);
		}
		free(pair);
		free(like);
		blocks_finish(&bk);
	}
	if (ok) {
		put_renumbered(c, out, 0, b0.w, pair0, b0.n);
	}
	free(pair0);
	blocks_finish(&b0);
	return ok;
}

void tc_pass_collectives(struct tc_coll_rows *c, const struct tc_intern *names,
		struct tc_ranks *r, const struct tc_step_source *steps, struct tc_ivals *waits) {
	/* Ends of one instance coincide within a tenth of the median
	 * collective duration (the first rank's). */
	int64_t tol = 0;
	if (c->n && c->occ[0].n) {
		struct row *w = load(c, c->occ, 0);
		size_t n0 = c->occ[0].n;
		int64_t *d = tc_xmalloc(n0 * sizeof(*d));
		for (size_t i = 0; i < n0; i++) {
			d[i] = w[i].dur;
		}
		tc_sort(d, n0, sizeof(*d), cmp_i64);
		tol = d[n0 / 2] / 10;
		free(d);
		free(w);
	}
	/* Without Seq, the pairing by ends where more instances end together
	 * than by occurrence (ties: occurrence). The pairing kept is made with
	 * the waits; only a pairing by occurrence that wins is made twice. */
	struct rank_rows *by_end = NULL;
	if (!c->seq_all) {
		by_end = tc_xcalloc(c->n ? c->n : 1, sizeof(*by_end));
		if (!match_ends(c, tol, by_end)) {
			free(by_end);
			by_end = NULL;
		}
	}
	const char *source = c->seq_all ? "Seq" : "occurrence";
	size_t together;
	if (by_end) {
		size_t occ = instances(c, c->occ, names, r, NULL, tol, NULL);
		reset(r);
		together = instances(c, by_end, names, r, steps, tol, waits);
		source = "end";
		if (together <= occ) {
			reset(r);
			for (size_t k = 0; waits && k < r->n; k++) {
				waits[k].n = 0; /* instances leaves them when it pairs none */
			}
			together = instances(c, c->occ, names, r, steps, tol, waits);
			source = "occurrence";
		}
	} else {
		together = instances(c, c->occ, names, r, steps, tol, waits);
	}
	if (together) {
		r->coll_source = source;
	}
	free(by_end);
}
