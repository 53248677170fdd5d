/*
 * Interval unions over a finalized model's tracks (plain, per op kind, run
 * lists and gaps): the base of every busy, idle, overlap and breakdown
 * figure.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "util/num.h"
#include "util/pair.h"
#include "util/prefault.h"
#include "util/xalloc.h"

#define gap tc_ivals_gap

/*
 * Whether a list being filled at n hints the helper to fault in the
 * stretch ahead (tc_prefault_next, every 2^16 intervals). At 0 only when
 * its storage was just allocated: a list emptied and filled again (a
 * step's runs, a track's scratch union) has its pages, and hinting them
 * anyway walked gigabytes of page tables per analysis on the other core.
 */
static inline bool hint_due(size_t n, bool fresh) {
	return (n & ((1u << 16) - 1)) == 0 && (n || fresh);
}

void tc_ivals_push(struct tc_ivals *v, int64_t lo, int64_t hi) {
	if (hi <= lo) {
		return;
	}
	if (v->n && lo <= v->hi[v->n - 1]) {
		if (hi > v->hi[v->n - 1]) {
			v->hi[v->n - 1] = hi;
		}
		return;
	}
	size_t was = v->cap;
	if (v->n == v->cap) {
		size_t cap = v->cap;
		TC_GROW(v->lo, cap, v->n + 1);
		cap = v->cap;
		TC_GROW(v->hi, cap, v->n + 1);
		v->cap = cap;
	}
	if (hint_due(v->n, v->cap != was)) {
		tc_prefault_next(v->lo, sizeof(*v->lo), v->n, 1u << 16, v->cap);
		tc_prefault_next(v->hi, sizeof(*v->hi), v->n, 1u << 16, v->cap);
	}
	v->lo[v->n] = lo;
	v->hi[v->n] = hi;
	v->n++;
}

void tc_ivals_finish(struct tc_ivals *v) {
	if (!v) {
		return;
	}
	free(v->lo);
	free(v->hi);
	free(v->kinds);
	memset(v, 0, sizeof(*v));
}

/* A min-heap of track cursors keyed by the start of the track's next
 * contributing event, then its index (the tracks' ranges are disjoint, so
 * the merge is the (start, index) order); the key lives in the cursor, as
 * comparing through m->ev.start misses the cache on every step. */
static bool cursor_before(const struct tc_track_cursor *a, const struct tc_track_cursor *b) {
	if (a->key != b->key) {
		return a->key < b->key;
	}
	return a->key2 < b->key2 || (a->key2 == b->key2 && a->i < b->i);
}

static void sift_down(struct tc_track_cursor *h, size_t n, size_t k) {
	struct tc_track_cursor c = h[k];
	for (;;) {
		size_t s = 2 * k + 1;
		if (s >= n) {
			break;
		}
		if (s + 1 < n && cursor_before(&h[s + 1], &h[s])) {
			s++;
		}
		if (!cursor_before(&h[s], &c)) {
			break;
		}
		h[k] = h[s];
		k = s;
	}
	h[k] = c;
}

/* Move c to its next event with a positive duration that keep accepts:
 * filtered unions skip most events without touching the heap. */
static bool next_kept(const struct tc_model *m, struct tc_track_cursor *c,
		bool (*keep)(const struct tc_model *m, size_t ev, void *ctx), void *ctx) {
	/* Merging many tracks reads as many streams of each column, more
	 * than the hardware prefetcher follows: ask for the next lines. */
	__builtin_prefetch(&m->ev.start[c->i + 16]);
	__builtin_prefetch(&m->ev.dur[c->i + 16]);
	__builtin_prefetch(&m->ev.op[c->i + 32]);
	for (; c->i < c->end; c->i++) {
		if (m->ev.dur[c->i] > 0 && (!keep || keep(m, c->i, ctx))) {
			c->key = m->ev.start[c->i];
			return true;
		}
	}
	return false;
}

void tc_track_merge_init(struct tc_track_merge *g, const struct tc_model *m,
		const uint32_t *tracks, size_t nt,
		bool (*keep)(const struct tc_model *m, size_t ev, void *ctx), void *ctx) {
	*g = (struct tc_track_merge){ .keep = keep, .ctx = ctx };
	g->h = tc_xmalloc((nt ? nt : 1) * sizeof(*g->h));
	for (size_t t = 0; t < nt; t++) {
		const struct tc_track *tr = &m->tracks[tracks[t]];
		struct tc_track_cursor c = { 0, 0, tr->first, (size_t)tr->first + tr->count,
			tracks[t] };
		if (next_kept(m, &c, keep, ctx)) {
			g->h[g->n++] = c;
		}
	}
	tc_track_merge_start(g);
}

void tc_track_merge_start(struct tc_track_merge *g) {
	for (size_t k = g->n / 2; k-- > 0;) {
		sift_down(g->h, g->n, k);
	}
}

size_t tc_track_merge_next(struct tc_track_merge *g, const struct tc_model *m,
		uint32_t *track) {
	if (!g->n) {
		free(g->h);
		g->h = NULL;
		return SIZE_MAX;
	}
	struct tc_track_cursor *top = &g->h[0];
	size_t i = top->i++;
	if (track) {
		*track = top->track;
	}
	g->key = top->key;
	g->key2 = top->key2;
	if (!(g->advance ? g->advance(m, top, g->ctx) : next_kept(m, top, g->keep, g->ctx))) {
		*top = g->h[--g->n];
	}
	if (g->n) {
		sift_down(g->h, g->n, 0);
	}
	return i;
}

/* The track with the most events: unioned straight into the output, so
 * the per-track scratch list only ever holds the smaller tracks. */
static size_t largest_track(const struct tc_model *m, const uint32_t *tracks, size_t nt) {
	size_t best = 0;
	for (size_t t = 1; t < nt; t++) {
		if (m->tracks[tracks[t]].count > m->tracks[tracks[best]].count) {
			best = t;
		}
	}
	return best;
}

void tc_ivals_union_tracks(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		bool (*keep)(const struct tc_model *m, size_t ev, void *ctx), void *ctx,
		struct tc_ivals *out) {
	out->n = 0;
	if (nt <= 64) {
		/* Few tracks: each track is in start order, so union it linearly
		 * and merge the per-track unions (see tc_ivals_union_per_kind). */
		struct tc_ivals local = { 0 };
		size_t first = largest_track(m, tracks, nt);
		for (size_t k = 0; k < nt; k++) {
			size_t t = k == 0 ? first : k == first ? 0 : k;
			struct tc_ivals *dst = k == 0 ? out : &local;
			const struct tc_track *tr = &m->tracks[tracks[t]];
			dst->n = 0;
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				if (m->ev.dur[i] > 0 && (!keep || keep(m, i, ctx))) {
					tc_ivals_push(dst, m->ev.start[i], m->ev.start[i] + m->ev.dur[i]);
				}
			}
			if (k > 0) {
				tc_ivals_merge_into(out, &local);
			}
		}
		tc_ivals_finish(&local);
		return;
	}
	struct tc_track_merge g;
	tc_track_merge_init(&g, m, tracks, nt, keep, ctx);
	for (size_t i; (i = tc_track_merge_next(&g, m, NULL)) != SIZE_MAX;) {
		tc_ivals_push(out, m->ev.start[i], m->ev.start[i] + m->ev.dur[i]);
	}
}

/* Per-kind unions being built from intervals by rising start: each kind's
 * last interval waits in locals until one starts past it, since most nest
 * in it or touch it (hosts' call stacks). */
struct kind_pend {
	int64_t lo[TC_OP_KIND_COUNT], hi[TC_OP_KIND_COUNT];
	uint32_t open;
};

/* tc_ivals_push in line where it only appends (room, no hint due, no
 * join): the per-kind unions push about one interval in three events. */
static inline __attribute__((always_inline)) void push_append(struct tc_ivals *v, int64_t lo,
		int64_t hi) {
	size_t n = v->n;
	if (n && n < v->cap && (n & ((1u << 16) - 1)) && hi > lo && lo > v->hi[n - 1]) {
		v->lo[n] = lo;
		v->hi[n] = hi;
		v->n = n + 1;
		return;
	}
	tc_ivals_push(v, lo, hi);
}

static inline __attribute__((always_inline)) void pend_add(struct kind_pend *p,
		struct tc_ivals out[TC_OP_KIND_COUNT], int k, int64_t lo, int64_t hi) {
	if (((p->open >> k) & 1u) && lo <= p->hi[k]) {
		p->hi[k] = hi > p->hi[k] ? hi : p->hi[k];
		return;
	}
	if ((p->open >> k) & 1u) {
		push_append(&out[k], p->lo[k], p->hi[k]);
	}
	p->lo[k] = lo;
	p->hi[k] = hi;
	p->open |= 1u << k;
}

static void pend_flush(struct kind_pend *p, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	for (; p->open; p->open &= p->open - 1) {
		int k = __builtin_ctz(p->open);
		tc_ivals_push(&out[k], p->lo[k], p->hi[k]);
	}
}

/* Distribute events [from, to) of one track (sorted by start) into
 * per-kind unions. */
static void track_per_kind(const struct tc_model *m, size_t from, size_t to, uint32_t kinds,
		struct tc_ivals out[TC_OP_KIND_COUNT]) {
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	const uint32_t *op = m->ev.op;
	struct kind_pend p = { .open = 0 };
	for (size_t i = from; i < to; i++) {
		uint8_t k = m->op_kind[op[i]];
		if (dur[i] > 0 && ((kinds >> k) & 1u)) {
			pend_add(&p, out, k, start[i], start[i] + dur[i]);
		}
	}
	pend_flush(&p, out);
}

/*
 * Runs are built from intervals by rising start, each of one kind: every
 * kind holds at most one open interval (its later ones start after the
 * earlier start), so the covering set changes only where an interval
 * opens and where the open one ending first ends. The state lives in a
 * struct tc_runs_scan.
 */
_Static_assert(TC_OP_KIND_COUNT <= 32, "a run's kinds are a uint32_t");

void tc_runs_reserve(struct tc_ivals *v, size_t need) {
	size_t was = v->cap;
	tc_ivals_reserve(v, need);
	/* kinds has the room lo and hi have. */
	if (!v->kinds || v->cap != was) {
		v->kinds = tc_xrealloc(v->kinds, (v->cap ? v->cap : 1) * sizeof(*v->kinds));
	}
}

/* runs_emit's rare part: room for a run, and the pages ahead touched on
 * the helper thread. */
static __attribute__((noinline)) void runs_room(struct tc_ivals *v) {
	size_t was = v->cap;
	bool had = v->kinds;
	if (v->n == v->cap || !v->kinds) {
		tc_runs_reserve(v, v->n + 1);
	}
	if (hint_due(v->n, v->cap != was || !had)) {
		tc_prefault_next(v->lo, sizeof(*v->lo), v->n, 1u << 16, v->cap);
		tc_prefault_next(v->hi, sizeof(*v->hi), v->n, 1u << 16, v->cap);
		tc_prefault_next(v->kinds, sizeof(*v->kinds), v->n, 1u << 16, v->cap);
	}
}

/* Appends [lo, hi) covered by kinds, joined to the last run when it
 * touches it with the same kinds: runs stay maximal. In line: the scan
 * emits a run or two per event. */
static inline __attribute__((always_inline)) void runs_emit(struct tc_ivals *v, int64_t lo,
		int64_t hi, uint32_t kinds) {
	if (hi <= lo) {
		return;
	}
	size_t n = v->n;
	if (n && v->hi[n - 1] == lo && v->kinds[n - 1] == kinds) {
		v->hi[n - 1] = hi;
		return;
	}
	if (__builtin_expect(n == v->cap || !v->kinds || (n & ((1u << 16) - 1)) == 0, 0)) {
		runs_room(v);
	}
	v->lo[n] = lo;
	v->hi[n] = hi;
	v->kinds[n] = kinds;
	v->n = n + 1;
}

void tc_kind_sums_reset(struct tc_kind_sums *s) {
	if (s->n) {
		memset(s->kinds, 0, s->cap * sizeof(*s->kinds));
		memset(s->len, 0, s->cap * sizeof(*s->len));
		s->n = 0;
	}
}

void tc_kind_sums_finish(struct tc_kind_sums *s) {
	free(s->kinds);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

void tc_kind_sums_grow(struct tc_kind_sums *s) {
	struct tc_kind_sums w = { .cap = s->cap ? 2 * s->cap : 16 };
	w.kinds = tc_xcalloc(w.cap, sizeof(*w.kinds));
	w.len = tc_xcalloc(w.cap, sizeof(*w.len));
	for (size_t i = 0; i < s->cap; i++) {
		if (s->kinds[i]) {
			tc_kind_sums_add(&w, s->kinds[i], s->len[i]);
		}
	}
	tc_kind_sums_finish(s);
	*s = w;
}

/* A run to where the scan puts them. */
static inline __attribute__((always_inline)) void runs_put(struct tc_runs_scan *b, int64_t lo,
		int64_t hi, uint32_t kinds) {
	if (b->sums) {
		if (hi > lo) {
			tc_kind_sums_add(b->sums, kinds, (uint64_t)hi - (uint64_t)lo);
		}
	} else {
		runs_emit(b->out, lo, hi, kinds);
	}
}

static void runs_min(struct tc_runs_scan *b) {
	b->min_hi = INT64_MAX;
	for (uint32_t o = b->open; o; o &= o - 1) {
		int k = __builtin_ctz(o);
		if (b->hi[k] < b->min_hi) {
			b->min_hi = b->hi[k];
			b->min_k = k;
		}
	}
}

/* Ends the open kinds that end by s (INT64_MAX: all), first ending first. */
static inline __attribute__((always_inline)) void runs_close_to(struct tc_runs_scan *b,
		int64_t s) {
	while (b->open && b->min_hi <= s) {
		runs_put(b, b->t, b->min_hi, b->open);
		b->t = b->min_hi;
		b->open &= ~(1u << b->min_k);
		runs_min(b);
	}
}

/* Adds [lo, hi) of kind k; returns whether it ends a gap (pushed to
 * b->gaps, its event left for the caller to add). */
static inline __attribute__((always_inline)) bool runs_add(struct tc_runs_scan *b, int64_t lo,
		int64_t hi, int k) {
	uint32_t bit = 1u << k;
	/* One kind open, its end min_hi: the usual cases on streams of one
	 * kind (lean: 81 % of events, tpu: all) need no search of the open
	 * kinds. */
	if (b->open && !(b->open & (b->open - 1))) {
		if (lo < b->min_hi && b->open == bit) {
			if (hi > b->min_hi) {
				b->hi[k] = hi;
				b->min_hi = hi;
			}
			return false;
		}
		if (b->min_hi <= lo) {
			/* It ends before this starts: a run, then maybe a gap. */
			runs_put(b, b->t, b->min_hi, b->open);
			bool gap = b->gaps && lo > b->min_hi;
			if (gap) {
				tc_ivals_push(&b->gaps->iv, b->min_hi, lo);
			}
			b->t = lo;
			b->open = bit;
			b->hi[k] = hi;
			b->min_hi = hi;
			b->min_k = k;
			return gap;
		}
	}
	if (b->min_hi <= lo) {
		runs_close_to(b, lo);
	}
	if (b->open & bit) {
		if (hi > b->hi[k]) {
			b->hi[k] = hi;
			if (k == b->min_k) {
				runs_min(b);
			}
		}
		return false;
	}
	bool gap = false;
	if (b->open) {
		runs_put(b, b->t, lo, b->open);
	} else if (b->gaps && b->t != INT64_MIN && lo > b->t) {
		/* A busy stretch starts: t is where the last one ended. */
		tc_ivals_push(&b->gaps->iv, b->t, lo);
		gap = true;
	}
	b->t = lo;
	b->open |= bit;
	b->hi[k] = hi;
	if (hi < b->min_hi) {
		b->min_hi = hi;
		b->min_k = k;
	}
	return gap;
}

void tc_gaps_finish(struct tc_gaps *g) {
	tc_ivals_finish(&g->iv);
	free(g->ev);
	memset(g, 0, sizeof(*g));
}

/* The event ending the gap just pushed to g. */
static __attribute__((noinline)) void gap_event(struct tc_gaps *g, size_t i) {
	TC_GROW(g->ev, g->cap_ev, g->iv.n);
	g->ev[g->iv.n - 1] = (uint32_t)i;
}


/* Every kind (all) spares the skip its look-up of the op. */
#define TAKEN(i) (dur[i] > 0 && (all || ((kinds >> m->op_kind[op[i]]) & 1u)))

/* Of cursors c[0..na), the one with the lowest key (the first of equal
 * ones), and the next lowest key into *lim: how far it may run ahead. */
static inline __attribute__((always_inline)) size_t cursor_lowest(
		const struct tc_scan_cursor *c, size_t na, int64_t *lim) {
	size_t b = 0;
	int64_t l = INT64_MAX;
	for (size_t a = 1; a < na; a++) {
		int64_t k = c[a].key;
		if (k < c[b].key) {
			l = c[b].key;
			b = a;
		} else {
			l = k < l ? k : l;
		}
	}
	*lim = l;
	return b;
}

/* Cursor b on to event i (its end: dropped, the last moving into its
 * place). */
static inline __attribute__((always_inline)) void cursor_move(struct tc_scan_cursor *c,
		size_t *na, size_t b, size_t i, const int64_t *start) {
	if (i == c[b].end) {
		c[b] = c[--*na];
	} else {
		c[b].i = i;
		c[b].key = start[i];
	}
}

/* Cursors on the first taken event of each of tracks; returns how many. */
static size_t scan_cursors(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_scan_cursor c[TC_RUNS_SCAN_TRACKS]) {
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	const uint32_t *op = m->ev.op;
	const bool all = kinds == UINT32_MAX;
	size_t na = 0;
	for (size_t t = 0; t < nt; t++) {
		const struct tc_track *tr = &m->tracks[tracks[t]];
		size_t i = tr->first, end = (size_t)tr->first + tr->count;
		while (i < end && !TAKEN(i)) {
			i++;
		}
		if (i < end) {
			c[na].key = start[i];
			c[na].i = i;
			c[na].end = end;
			na++;
		}
	}
	return na;
}

/*
 * The cursors' events that start before t_end, merged by start, into rb's
 * runs: the cursor with the lowest start runs ahead up to the next
 * cursor's start, so the scan over cursors is paid per run of a track, not
 * per event. A cursor steps over the events no run takes (instants, kinds
 * not asked for) before it sets its key, so they never cut a run short.
 */
static inline __attribute__((always_inline)) void scan_events_of(const struct tc_model *m,
		uint32_t kinds, const bool all, struct tc_scan_cursor *c, size_t *n_cursors,
		int64_t t_end, struct tc_runs_scan *rb) {
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	const uint32_t *op = m->ev.op;
	const int64_t cap = t_end == INT64_MAX ? INT64_MAX : t_end - 1;
	size_t na = *n_cursors;
	while (na > 0) {
		int64_t lim;
		size_t b = cursor_lowest(c, na, &lim);
		if (c[b].key > cap) {
			break;
		}
		lim = lim < cap ? lim : cap;
		size_t i = c[b].i, end = c[b].end;
		do {
			if (__builtin_expect(runs_add(rb, start[i], start[i] + dur[i],
					m->op_kind[op[i]]), 0)) {
				/* Of the events starting the stretch, the first by
				 * index: the other cursors' next ones tie it. */
				size_t first = i;
				for (size_t a = 0; a < na; a++) {
					if (a != b && c[a].key == start[i] && c[a].i < first) {
						first = c[a].i;
					}
				}
				gap_event(rb->gaps, first);
			}
			i++;
			while (i < end && !TAKEN(i)) {
				i++;
			}
		} while (i < end && start[i] <= lim);
		cursor_move(c, &na, b, i, start);
	}
	*n_cursors = na;
}

/* Made twice: with every kind asked for (the usage pass) known when
 * compiled, the loop drops the kind test and keeps its columns in
 * registers, about a sixth of its time. */
static void scan_events(const struct tc_model *m, uint32_t kinds, struct tc_scan_cursor *c,
		size_t *n_cursors, int64_t t_end, struct tc_runs_scan *rb) {
	if (kinds == UINT32_MAX) {
		scan_events_of(m, kinds, true, c, n_cursors, t_end, rb);
	} else {
		scan_events_of(m, kinds, false, c, n_cursors, t_end, rb);
	}
}
#undef TAKEN

void tc_ivals_union_per_kind(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		struct tc_ivals out[TC_OP_KIND_COUNT]) {
	tc_ivals_union_per_kind_of(m, tracks, nt, UINT32_MAX, out);
}

/* The first event of track t starting at or after time (binary search). */
static size_t track_lower_bound(const struct tc_model *m, uint32_t t, int64_t time) {
	size_t a = m->tracks[t].first;
	return tc_model_first_start_from(m, a, a + m->tracks[t].count, time);
}

/* Up to this many tracks, union_per_kind_few merges their events by
 * start as it reads them; with more, picking the lowest cursor per event
 * costs more than unions per track merged (bench/README, tried and
 * dropped). */
#define UNION_CURSORS 4

/*
 * union_per_kind_few for a handful of tracks, events [from[j], to[j]) of
 * each: their events merged by start (the lowest cursor runs ahead to the
 * next one's start, as scan_events does), each added to its kind's union
 * as it comes. No per-track lists are made and merged into out again and
 * again.
 */
static void union_per_kind_cursors(const struct tc_model *m, const size_t *from,
		const size_t *to, size_t nt, uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	const uint32_t *op = m->ev.op;
	struct kind_pend p = { .open = 0 };
	struct tc_scan_cursor c[UNION_CURSORS];
	size_t na = 0;
	for (size_t j = 0; j < nt; j++) {
		if (from[j] < to[j]) {
			c[na++] = (struct tc_scan_cursor){ start[from[j]], from[j], to[j] };
		}
	}
	while (na > 0) {
		int64_t lim;
		size_t b = cursor_lowest(c, na, &lim);
		size_t i = c[b].i, end = c[b].end;
		do {
			uint8_t k = m->op_kind[op[i]];
			if (dur[i] > 0 && ((kinds >> k) & 1u)) {
				pend_add(&p, out, k, start[i], start[i] + dur[i]);
			}
			i++;
		} while (i < end && start[i] <= lim);
		cursor_move(c, &na, b, i, start);
	}
	pend_flush(&p, out);
}

/* tc_ivals_union_per_kind_of's few-tracks way over the events starting
 * in [t0, t1): union each track linearly (nested events collapse in
 * place) and merge the much shorter per-track unions; cheaper than a
 * heap step per event. */
static void union_per_kind_few(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, int64_t t0, int64_t t1, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	size_t from[64], to[64], first = 0;
	for (size_t j = 0; j < nt; j++) {
		from[j] = t0 == INT64_MIN ? m->tracks[tracks[j]].first :
			track_lower_bound(m, tracks[j], t0);
		to[j] = t1 == INT64_MAX ? (size_t)m->tracks[tracks[j]].first +
			m->tracks[tracks[j]].count : track_lower_bound(m, tracks[j], t1);
		/* The track with the most events goes straight into out, so
		 * the scratch lists only ever hold the smaller ones. */
		first = to[j] - from[j] > to[first] - from[first] ? j : first;
	}
	if (nt <= UNION_CURSORS) {
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			out[k].n = 0;
		}
		union_per_kind_cursors(m, from, to, nt, kinds, out);
		return;
	}
	struct tc_ivals local[TC_OP_KIND_COUNT] = { 0 };
	for (size_t j = 0; j < nt; j++) {
		size_t t = j == 0 ? first : j == first ? 0 : j;
		struct tc_ivals *dst = j == 0 ? out : local;
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			dst[k].n = 0;
		}
		track_per_kind(m, from[t], to[t], kinds, dst);
		for (int k = 0; j > 0 && k < TC_OP_KIND_COUNT; k++) {
			tc_ivals_merge_into(&out[k], &local[k]);
		}
	}
	tc_ivals_finish_per_kind(local);
}

/*
 * Per-kind unions of many tracks: each track unioned linearly, and the
 * per-track unions merged as a binary counter counts (a list merged only
 * with one from as many tracks), so O(events log tracks) at worst, and
 * tracks that overlap collapse in the first merges. Far cheaper than a
 * heap step per event when the tracks run side by side (64 streams of a
 * device: bench/README). out[0..) is the bottom of the stack of lists.
 */
static void union_per_kind_tree(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	size_t depth = 1;
	while (((size_t)1 << (depth - 1)) < nt) {
		depth++;
	}
	struct tc_ivals *lv = tc_xcalloc(depth * TC_OP_KIND_COUNT, sizeof(*lv));
	unsigned char rank[8 * sizeof(size_t) + 1];
	size_t top = 0;
	for (size_t j = 0; j < nt; j++) {
		struct tc_ivals *dst = top ? lv + top * TC_OP_KIND_COUNT : out;
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			dst[k].n = 0;
		}
		const struct tc_track *tr = &m->tracks[tracks[j]];
		track_per_kind(m, tr->first, (size_t)tr->first + tr->count, kinds, dst);
		rank[top++] = 0;
		/* Equal ranks merged down; at the end, everything. */
		while (top > 1 && (rank[top - 1] == rank[top - 2] || j + 1 == nt)) {
			struct tc_ivals *a = top > 2 ? lv + (top - 2) * TC_OP_KIND_COUNT : out;
			struct tc_ivals *b = lv + (top - 1) * TC_OP_KIND_COUNT;
			for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
				tc_ivals_merge_into(&a[k], &b[k]);
			}
			top--;
			rank[top - 1]++;
		}
	}
	for (size_t k = TC_OP_KIND_COUNT; k < depth * TC_OP_KIND_COUNT; k++) {
		tc_ivals_finish(&lv[k]);
	}
	free(lv);
}

void tc_ivals_union_per_kind_of(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
		out[k].n = 0;
	}
	if (nt <= 64) {
		union_per_kind_few(m, tracks, nt, kinds, INT64_MIN, INT64_MAX, out);
		return;
	}
	union_per_kind_tree(m, tracks, nt, kinds, out);
}

static bool keep_kind(const struct tc_model *m, size_t ev, void *ctx);

void tc_runs_scan_init(struct tc_runs_scan *s, const struct tc_model *m,
		const uint32_t *tracks, size_t nt, uint32_t kinds) {
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->kinds = kinds;
	s->min_hi = INT64_MAX;
	s->t = INT64_MIN;
	if (nt <= TC_RUNS_SCAN_TRACKS) {
		s->na = scan_cursors(m, tracks, nt, kinds, s->c);
		return;
	}
	s->many = true;
	s->tracks = tracks;
	s->nt = nt;
}

/* A scan of many tracks, on its first _to: per-kind unions, or, for the
 * gaps' events, the heap. */
static void runs_scan_start(struct tc_runs_scan *s) {
	s->many = false;
	if (s->gaps) {
		s->heap = true;
		tc_track_merge_init(&s->g, s->m, s->tracks, s->nt,
			s->kinds == UINT32_MAX ? NULL : keep_kind, &s->kinds);
		return;
	}
	s->u = tc_xcalloc(TC_OP_KIND_COUNT, sizeof(*s->u));
	union_per_kind_tree(s->m, s->tracks, s->nt, s->kinds, s->u);
	for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
		s->u_open |= s->u[k].n ? 1u << k : 0;
	}
}

/* The unions' intervals starting before t into the runs, by start: the
 * kind with the lowest next start runs ahead to the next kind's. A kind's
 * union covers what its events do, so the runs are the events'. */
static void scan_unions(struct tc_runs_scan *s, int64_t t) {
	while (s->u_open) {
		int b = -1;
		int64_t lo = t, lim = INT64_MAX;
		for (uint32_t o = s->u_open; o; o &= o - 1) {
			int k = __builtin_ctz(o);
			int64_t key = s->u[k].lo[s->u_pos[k]];
			if (key < lo) {
				lim = b < 0 ? lim : lo;
				lo = key;
				b = k;
			} else {
				lim = key < lim ? key : lim;
			}
		}
		if (b < 0) {
			return;
		}
		const struct tc_ivals *v = &s->u[b];
		size_t i = s->u_pos[b];
		lim = lim < t - 1 ? lim : t - 1;
		do {
			runs_add(s, v->lo[i], v->hi[i], b);
			i++;
		} while (i < v->n && v->lo[i] <= lim);
		s->u_pos[b] = i;
		if (i == v->n) {
			s->u_open &= ~(1u << b);
		}
	}
}

/* tc_runs_scan_to and _sum_to, s->out or s->sums set. */
static inline __attribute__((always_inline)) void runs_scan_to(struct tc_runs_scan *s, int64_t t) {
	const struct tc_model *m = s->m;
	if (s->many) {
		runs_scan_start(s);
	}
	if (s->u) {
		scan_unions(s, t);
	} else if (s->heap) {
		/* Never asked past the last event: g keeps its heap for _finish. */
		while (s->g.n && s->g.h[0].key < t) {
			/* By (start, index): the first to end a gap is its event. */
			size_t i = tc_track_merge_next(&s->g, m, NULL);
			if (runs_add(s, m->ev.start[i], m->ev.start[i] + m->ev.dur[i],
					m->op_kind[m->ev.op[i]])) {
				gap_event(s->gaps, i);
			}
		}
	} else {
		scan_events(m, s->kinds, s->c, &s->na, t, s);
	}
	runs_close_to(s, t);
	/* The run going on at t: its part before t now, the rest later. */
	if (s->open && s->t < t) {
		runs_put(s, s->t, t, s->open);
		s->t = t;
	}
}

void tc_runs_scan_to(struct tc_runs_scan *s, int64_t t, struct tc_ivals *out) {
	s->out = out;
	s->sums = NULL;
	runs_scan_to(s, t);
}

void tc_runs_scan_sum_to(struct tc_runs_scan *s, int64_t t, struct tc_kind_sums *sums) {
	s->out = NULL;
	s->sums = sums;
	runs_scan_to(s, t);
}

void tc_runs_scan_finish(struct tc_runs_scan *s) {
	if (s->heap) {
		free(s->g.h);
	}
	if (s->u) {
		tc_ivals_finish_per_kind(s->u);
		free(s->u);
	}
}

void tc_kind_runs_gaps(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_ivals *out, struct tc_gaps *gaps) {
	if (gaps) {
		gaps->iv.n = 0;
	}
	out->n = 0;
	struct tc_runs_scan s;
	tc_runs_scan_init(&s, m, tracks, nt, kinds);
	s.gaps = gaps;
	tc_runs_scan_to(&s, INT64_MAX, out);
	tc_runs_scan_finish(&s);
}

void tc_kind_runs(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_ivals *out) {
	tc_kind_runs_gaps(m, tracks, nt, kinds, out, NULL);
}

size_t tc_tracks_split(const struct tc_model *m, const uint32_t *tracks, size_t nt) {
	if (nt < 2) {
		return nt;
	}
	uint64_t total = 0, left = 0;
	for (size_t t = 0; t < nt; t++) {
		total += m->tracks[tracks[t]].count;
	}
	size_t split = 0;
	while (split + 1 < nt && 2 * (left + m->tracks[tracks[split]].count) <= total) {
		left += m->tracks[tracks[split++]].count;
	}
	return split ? split : 1;
}

struct union_half {
	const struct tc_model *m;
	const uint32_t *tracks;
	size_t nt;
	uint32_t kinds;
	int64_t t0, t1; /* few tracks: the events starting in [t0, t1) */
	struct tc_ivals *out; /* TC_OP_KIND_COUNT lists */
};

static void *union_half_run(void *p) {
	struct union_half *h = p;
	if (h->nt <= 64) {
		union_per_kind_few(h->m, h->tracks, h->nt, h->kinds, h->t0, h->t1, h->out);
	} else {
		tc_ivals_union_per_kind_of(h->m, h->tracks, h->nt, h->kinds, h->out);
	}
	return NULL;
}

/* The least time before which half of tracks' events start. */
static int64_t events_mid_time(const struct tc_model *m, const uint32_t *tracks, size_t nt) {
	uint64_t total = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t j = 0; j < nt; j++) {
		const struct tc_track *tr = &m->tracks[tracks[j]];
		if (tr->count) {
			total += tr->count;
			lo = m->ev.start[tr->first] < lo ? m->ev.start[tr->first] : lo;
			int64_t last = m->ev.start[tr->first + tr->count - 1];
			hi = last > hi ? last : hi;
		}
	}
	while (lo < hi) {
		int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
		uint64_t before = 0;
		for (size_t j = 0; j < nt; j++) {
			before += track_lower_bound(m, tracks[j], mid) - m->tracks[tracks[j]].first;
		}
		if (2 * before >= total) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return lo;
}

void tc_ivals_union_per_kind_two(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]) {
	struct tc_ivals other[TC_OP_KIND_COUNT] = { 0 };
	for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
		out[k].n = 0;
	}
	if (nt <= 64) {
		/* Few tracks: each thread takes the events starting on its side
		 * of a time that halves them, so the halves cost alike however
		 * the tracks differ. The second half's unions start where the
		 * first's may still run: appended, not merged. */
		int64_t mid = events_mid_time(m, tracks, nt);
		struct union_half h[2] = {
			{ m, tracks, nt, kinds, INT64_MIN, mid, out },
			{ m, tracks, nt, kinds, mid, INT64_MAX, other },
		};
		tc_run_pair(union_half_run, &h[0], &h[1], true);
		for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
			/* The second half's intervals that reach the first half's
			 * last join it; the rest start after it: copied whole. */
			struct tc_ivals *a = &out[k];
			const struct tc_ivals *b = &other[k];
			size_t i = 0;
			for (; a->n && i < b->n && b->lo[i] <= a->hi[a->n - 1]; i++) {
				tc_ivals_push(a, b->lo[i], b->hi[i]);
			}
			tc_ivals_reserve(a, a->n + b->n - i);
			if (b->n > i) {
				memcpy(a->lo + a->n, b->lo + i, (b->n - i) * sizeof(*a->lo));
				memcpy(a->hi + a->n, b->hi + i, (b->n - i) * sizeof(*a->hi));
				a->n += b->n - i;
			}
		}
		tc_ivals_finish_per_kind(other);
		return;
	}
	/* Many tracks: the tracks in two halves, one per thread; then each
	 * kind's two unions merged. */
	size_t split = tc_tracks_split(m, tracks, nt);
	if (split == nt) {
		tc_ivals_union_per_kind_of(m, tracks, nt, kinds, out);
		return;
	}
	struct union_half h[2] = {
		{ m, tracks, split, kinds, INT64_MIN, INT64_MAX, out },
		{ m, tracks + split, nt - split, kinds, INT64_MIN, INT64_MAX, other },
	};
	tc_run_pair(union_half_run, &h[0], &h[1], true);
	for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
		tc_ivals_merge_into(&out[k], &other[k]);
	}
	tc_ivals_finish_per_kind(other);
}

void tc_ivals_finish_per_kind(struct tc_ivals per_kind[TC_OP_KIND_COUNT]) {
	for (int k = 0; k < TC_OP_KIND_COUNT; k++) {
		tc_ivals_finish(&per_kind[k]);
	}
}

int64_t tc_ivals_length(const struct tc_ivals *v) {
	int64_t s = 0;
	for (size_t i = 0; i < v->n; i++) {
		s = tc_sat_add(s, gap(v->lo[i], v->hi[i]));
	}
	return s;
}

void tc_ivals_reserve(struct tc_ivals *v, size_t need) {
	if (need <= v->cap) {
		return;
	}
	size_t cap = v->cap;
	TC_GROW(v->lo, cap, need);
	cap = v->cap;
	TC_GROW(v->hi, cap, need);
	v->cap = cap;
}

/*
 * a = a ∪ b without a third list: merged from the back into a's tail, by
 * falling end (an interval then overlaps only the pending one), then moved
 * down. Writes never overtake the unread part of a: each written interval
 * consumed at least one input and one more is pending.
 */
void tc_ivals_merge_into(struct tc_ivals *a, const struct tc_ivals *b) {
	if (b->n == 0) {
		return;
	}
	tc_ivals_reserve(a, a->n + b->n);
	size_t i = a->n, j = b->n, w = a->n + b->n;
	int64_t clo = 0, chi = 0;
	bool pending = false;
	while (i > 0 || j > 0) {
		int64_t lo, hi;
		if (j == 0 || (i > 0 && a->hi[i - 1] > b->hi[j - 1])) {
			i--;
			lo = a->lo[i];
			hi = a->hi[i];
		} else {
			j--;
			lo = b->lo[j];
			hi = b->hi[j];
		}
		if (pending && hi >= clo) {
			clo = lo < clo ? lo : clo;
			chi = hi > chi ? hi : chi;
			continue;
		}
		if (pending) {
			w--;
			a->lo[w] = clo;
			a->hi[w] = chi;
		}
		clo = lo;
		chi = hi;
		pending = true;
	}
	w--;
	a->lo[w] = clo;
	a->hi[w] = chi;
	a->n = a->n + b->n - w;
	memmove(a->lo, a->lo + w, a->n * sizeof(*a->lo));
	memmove(a->hi, a->hi + w, a->n * sizeof(*a->hi));
}

static void cover_part(struct tc_cover *c, uint64_t bits, int64_t len) {
	if (c->n && c->v[c->last].bits == bits) {
		c->v[c->last].len = tc_sat_add(c->v[c->last].len, len);
		return;
	}
	uint32_t *seen = &c->seen[(bits * 0x9E3779B97F4A7C15ull) >> 58];
	size_t k = *seen;
	if (k >= c->n || c->v[k].bits != bits) {
		for (k = 0; k < c->n && c->v[k].bits != bits; k++) {
		}
		if (k == c->n) {
			TC_GROW(c->v, c->cap, c->n + 1);
			c->v[c->n++] = (struct tc_cover_part){ bits, 0 };
		}
		*seen = (uint32_t)k;
	}
	c->v[k].len = tc_sat_add(c->v[k].len, len);
	c->last = k;
}

static size_t first_ending_after(const struct tc_ivals *v, int64_t t);
static size_t first_ending_after_in(const struct tc_ivals *v, int64_t t, size_t a, size_t b);

/* first_ending_after, searching forward from h when the answer lies
 * there: doubling steps, then halving. */
static size_t first_ending_after_from(const struct tc_ivals *v, int64_t t, size_t h) {
	if (h > v->n || (h > 0 && v->hi[h - 1] > t)) {
		return first_ending_after(v, t);
	}
	if (h == v->n || v->hi[h] > t) {
		return h;
	}
	/* Every interval before a ends by t. */
	size_t a = h + 1, step = 1, p;
	while ((p = a + step - 1) < v->n && v->hi[p] <= t) {
		a = p + 1;
		step *= 2;
	}
	return first_ending_after_in(v, t, a, p < v->n ? p : v->n);
}

/* Whether list k, from its first interval ending after lo (i), misses
 * [lo, hi) or covers it whole. */
static inline bool const_over(const struct tc_ivals *v, size_t i, int64_t lo, int64_t hi) {
	return i == v->n || v->lo[i] >= hi || (v->lo[i] <= lo && v->hi[i] >= hi);
}

bool tc_cover_const_but(struct tc_cover *c, const struct tc_ivals *lists, size_t nl,
		size_t dense, int64_t lo, int64_t hi, uint64_t *bits, size_t *first) {
	size_t vk = c->varied;
	if (vk != dense && vk < nl && vk < 64) {
		size_t i = first_ending_after_from(&lists[vk], lo, c->hint[vk]);
		c->hint[vk] = i;
		if (!const_over(&lists[vk], i, lo, hi)) {
			return false;
		}
	}
	uint64_t b = 0;
	for (size_t k = 0; k < nl && k < 64; k++) {
		const struct tc_ivals *v = &lists[k];
		if (!v->n && k != dense) {
			/* Most kinds' lists are empty: constant, no search. */
			c->hint[k] = 0;
			continue;
		}
		size_t i = first_ending_after_from(v, lo, c->hint[k]);
		c->hint[k] = i;
		if (k == dense) {
			*first = i;
			continue;
		}
		if (!const_over(v, i, lo, hi)) {
			c->varied = k;
			return false;
		}
		if (i < v->n && v->lo[i] < hi) {
			b |= v->kinds ? (uint64_t)v->kinds[i] << k : (uint64_t)1 << k;
		}
	}
	*bits = b;
	return true;
}

size_t tc_ivals_trim_under(const struct tc_ivals *v, const struct tc_ivals *runs, uint32_t mask,
		int64_t lo, int64_t hi, struct tc_ivals *out) {
	size_t changed = 0;
	out->n = 0;
	size_t i = first_ending_after(v, lo);
	size_t r = first_ending_after(runs, lo), q = r;
	while (i < v->n && v->lo[i] < hi) {
		int64_t a = v->lo[i] > lo ? v->lo[i] : lo;
		while (r < runs->n && runs->hi[r] <= a) {
			r++;
		}
		if (r < runs->n && runs->lo[r] <= a && (runs->kinds[r] & mask)) {
			/* Under the stretch of touching mask runs from r on: every
			 * interval that ends (clipped) by its end is dropped, the
			 * next one's head is cut to it. */
			int64_t end = runs->hi[r];
			for (size_t j = r + 1; j < runs->n && runs->lo[j] == end &&
					(runs->kinds[j] & mask); j++) {
				end = runs->hi[j];
			}
			while (i < v->n && v->lo[i] < hi && (v->hi[i] < hi ? v->hi[i] : hi) <= end) {
				i++;
				changed++;
			}
			if (i == v->n || v->lo[i] >= hi) {
				break;
			}
			if (v->lo[i] >= end) {
				continue;
			}
			a = end;
		}
		bool cut = a != (v->lo[i] > lo ? v->lo[i] : lo);
		/* The tail: cut back to the start of the stretch of touching
		 * mask runs its last instant lies under (one that starts after
		 * a, as a lies under none). */
		int64_t b = v->hi[i] < hi ? v->hi[i] : hi;
		q = q > r ? q : r;
		while (q < runs->n && runs->hi[q] < b) {
			q++;
		}
		if (q < runs->n && runs->lo[q] < b && (runs->kinds[q] & mask)) {
			int64_t s = runs->lo[q];
			for (size_t j = q; j > 0 && s > a && runs->hi[j - 1] == s &&
					(runs->kinds[j - 1] & mask); j--) {
				s = runs->lo[j - 1];
			}
			b = s > a ? s : a;
			cut = true;
		}
		if (a < b) {
			tc_ivals_push(out, a, b);
		}
		changed += cut;
		i++;
	}
	return changed;
}

void tc_cover_add(struct tc_cover *c, const struct tc_ivals *lists, size_t nl,
		int64_t lo, int64_t hi) {
	/* Cursors on the lists that reach into [lo, hi): at most 64. */
	const struct tc_ivals *l[64];
	size_t at[64];
	unsigned sh[64]; /* the list's index: its bit, or its kinds' shift */
	size_t na = 0;
	for (size_t k = 0; k < nl && k < 64; k++) {
		size_t i = first_ending_after_from(&lists[k], lo, c->hint[k]);
		c->hint[k] = i;
		if (i < lists[k].n && lists[k].lo[i] < hi) {
			l[na] = &lists[k];
			at[na] = i;
			sh[na++] = (unsigned)k;
		}
	}
	/* The bits interval i of cursor a's list stands for. */
#define BITS_AT(a, i) (l[a]->kinds ? (uint64_t)l[a]->kinds[i] << sh[a] : (uint64_t)1 << sh[a])
	/*
	 * Between two consecutive boundaries (interval starts and ends) the set
	 * of covering lists is fixed. The list with the nearest boundary runs
	 * ahead through all of its own boundaries before any other list's next
	 * one, adding to two parts only: most time is spent in one dense list
	 * (a device's ops) between sparse ones.
	 */
	/* Start at the first interval: lo may be INT64_MIN, and every
	 * difference below is then between two interval bounds (or zero). */
	int64_t t = hi;
	for (size_t a = 0; a < na; a++) {
		t = l[a]->lo[at[a]] < t ? l[a]->lo[at[a]] : t;
	}
	t = t > lo ? t : lo;
	while (na > 0 && t < hi) {
		size_t amin = 0;
		int64_t nb_min = INT64_MAX, until = hi;
		uint64_t others = 0;
		for (size_t a = 0; a < na; a++) {
			int64_t s = l[a]->lo[at[a]];
			int64_t nb = s <= t ? l[a]->hi[at[a]] : s;
			if (nb < nb_min) {
				if (a > 0) {
					until = nb_min < until ? nb_min : until;
				}
				nb_min = nb;
				amin = a;
			} else if (nb < until) {
				until = nb;
			}
		}
		for (size_t a = 0; a < na; a++) {
			if (a != amin && l[a]->lo[at[a]] <= t) {
				others |= BITS_AT(a, at[a]);
			}
		}
		/* Run list amin over [t, until): the others are fixed there. */
		const struct tc_ivals *r = l[amin];
		size_t i = at[amin];
		int64_t in = 0, out = 0;
		/* A run list's runs differ in kinds: each adds to its own part. */
		const uint32_t *rk = r->kinds;
		while (t < until && i < r->n) {
			int64_t rs = r->lo[i], re = r->hi[i];
			if (rs > t) {
				int64_t g = rs < until ? rs : until;
				out = others ? tc_sat_add(out, gap(t, g)) : 0;
				t = g;
				if (t >= until) {
					break;
				}
			}
			int64_t x = re < until ? re : until;
			if (rk) {
				cover_part(c, others | (uint64_t)rk[i] << sh[amin], gap(t, x));
			} else {
				in = tc_sat_add(in, gap(t, x));
			}
			t = x;
			if (t >= re) {
				i++;
			}
		}
		if (t < until) {
			/* With no other list covering it, until may be hi itself. */
			out = others ? tc_sat_add(out, gap(t, until)) : 0;
			t = until;
		}
		at[amin] = i;
		if (in) {
			cover_part(c, others | (uint64_t)1 << sh[amin], in);
		}
		if (out) {
			cover_part(c, others, out);
		}
		for (size_t a = 0; a < na;) {
			while (at[a] < l[a]->n && l[a]->hi[at[a]] <= t) {
				at[a]++;
			}
			if (at[a] == l[a]->n || l[a]->lo[at[a]] >= hi) {
				na--;
				l[a] = l[na];
				at[a] = at[na];
				sh[a] = sh[na];
			} else {
				a++;
			}
		}
	}
#undef BITS_AT
}

int64_t tc_cover_len(const struct tc_cover *c, uint64_t mask) {
	int64_t s = 0;
	for (size_t k = 0; k < c->n; k++) {
		if (c->v[k].bits & mask) {
			s = tc_sat_add(s, c->v[k].len);
		}
	}
	return s;
}

int64_t tc_cover_len_both(const struct tc_cover *c, uint64_t a, uint64_t b) {
	int64_t s = 0;
	for (size_t k = 0; k < c->n; k++) {
		if ((c->v[k].bits & a) && (c->v[k].bits & b)) {
			s = tc_sat_add(s, c->v[k].len);
		}
	}
	return s;
}

void tc_cover_finish(struct tc_cover *c) {
	free(c->v);
	memset(c, 0, sizeof(*c));
}

uint32_t *tc_device_work_tracks(const struct tc_model *m, const struct tc_device_tracks *dt,
		uint32_t d, size_t *n) {
	size_t nt;
	const uint32_t *all = tc_device_tracks_of(dt, m, d, &nt);
	uint32_t *v = tc_xmalloc((nt ? nt : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < nt; i++) {
		if (tc_track_kind_is_device_work((enum tc_track_kind)m->tracks[all[i]].kind)) {
			v[k++] = all[i];
		}
	}
	*n = k;
	return v;
}

/* First interval whose hi > t. */
static size_t first_ending_after(const struct tc_ivals *v, int64_t t) {
	return first_ending_after_in(v, t, 0, v->n);
}

/* The same, known to lie in [a, b]: b when no interval of [a, b) ends
 * after t. */
static size_t first_ending_after_in(const struct tc_ivals *v, int64_t t, size_t a, size_t b) {
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (v->hi[mid] <= t) {
			a = mid + 1;
		} else {
			b = mid;
		}
	}
	return a;
}

int64_t tc_ivals_length_in(const struct tc_ivals *v, int64_t lo, int64_t hi) {
	int64_t s = 0;
	for (size_t i = first_ending_after(v, lo); i < v->n && v->lo[i] < hi; i++) {
		int64_t a = v->lo[i] > lo ? v->lo[i] : lo;
		int64_t b = v->hi[i] < hi ? v->hi[i] : hi;
		if (b > a) {
			s = tc_sat_add(s, gap(a, b));
		}
	}
	return s;
}

int64_t tc_ivals_gap_end(const struct tc_ivals *v, int64_t t) {
	size_t i = first_ending_after(v, t);
	return i == v->n ? INT64_MAX : v->lo[i] <= t ? t : v->lo[i];
}

static bool keep_kind(const struct tc_model *m, size_t ev, void *ctx) {
	uint32_t mask = *(const uint32_t *)ctx;
	return (mask >> m->op_kind[m->ev.op[ev]]) & 1u;
}

void tc_ivals_union_kinds(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		uint32_t kind_mask, struct tc_ivals *out) {
	tc_ivals_union_tracks(m, tracks, nt, keep_kind, &kind_mask, out);
}
