#ifndef TC_ANALYSIS_INTERVALS_H
#define TC_ANALYSIS_INTERVALS_H

/*
 * Interval unions over tracks of a finalized model. The building block for
 * busy/idle, overlap and breakdown maths: every "time in X" number is the
 * length of a union or of an intersection of unions, never a sum of
 * durations (which double-counts concurrency).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "util/num.h"

struct tc_ivals {
	int64_t *lo, *hi; /* disjoint, sorted, half-open [lo, hi) */
	/* NULL: a plain list. Else a run list (tc_kind_runs): runs may touch,
	 * and kinds[i] holds the op kinds covering run i (bit 1 << kind). Run
	 * lists are read like plain ones (lengths, gaps) but never merged. */
	uint32_t *kinds;
	size_t n, cap;
};

/* Union of the events of tracks[0..nt) into out (cleared first). keep
 * decides which events count (NULL: all). Instants add nothing. */
void tc_ivals_union_tracks(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	bool (*keep)(const struct tc_model *m, size_t ev, void *ctx), void *ctx,
	struct tc_ivals *out);
/* Union of the events whose op kind is in kind_mask (bit 1 << enum tc_op_kind). */
void tc_ivals_union_kinds(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	uint32_t kind_mask, struct tc_ivals *out);
#define TC_KIND_BIT(k) (1u << (k))
/* Device compute: everything on a device line that is not a copy, a
 * collective, a sync wait or a marker (TraceLens counts memsets as
 * computation too). */
#define TC_KINDS_DEVICE_COMPUTE (TC_KIND_BIT(TC_OP_KERNEL) | TC_KIND_BIT(TC_OP_MEMSET) | \
	TC_KIND_BIT(TC_OP_OTHER) | TC_KIND_BIT(TC_OP_HOST_OP) | TC_KIND_BIT(TC_OP_OVERHEAD))
/* Copies, every direction. */
#define TC_KINDS_COPY (TC_KIND_BIT(TC_OP_MEMCPY_H2D) | TC_KIND_BIT(TC_OP_MEMCPY_D2H) | \
	TC_KIND_BIT(TC_OP_MEMCPY_D2D) | TC_KIND_BIT(TC_OP_MEMCPY_OTHER))
int64_t tc_ivals_length(const struct tc_ivals *v);
/* a = a ∪ b, in a's storage. */
void tc_ivals_merge_into(struct tc_ivals *a, const struct tc_ivals *b);
void tc_ivals_push(struct tc_ivals *v, int64_t lo, int64_t hi);
/* Room for need intervals, lo and hi alike. */
void tc_ivals_reserve(struct tc_ivals *v, size_t need);
/* Length of v ∩ [lo, hi) (binary search; v unchanged). */
int64_t tc_ivals_length_in(const struct tc_ivals *v, int64_t lo, int64_t hi);
/* Where the gap of v at t ends: t when an interval holds t (no gap), else
 * the next interval's start, INT64_MAX when none follows (binary search). */
int64_t tc_ivals_gap_end(const struct tc_ivals *v, int64_t t);

/* Unions for every op kind in one pass over the events of tracks:
 * out[k] = union of the events whose op kind is k (cleared first). Cheaper
 * than one filtered union per kind when several kinds are needed. */
void tc_ivals_union_per_kind(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	struct tc_ivals out[TC_OP_KIND_COUNT]);
/* The same for the kinds in kinds only (bit 1 << kind); the others' lists
 * are left empty. */
void tc_ivals_union_per_kind_of(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]);
/* Where to cut tracks in two for two threads: tracks[0..k) hold about
 * half the events (k >= 1); nt when there are fewer than two tracks. */
size_t tc_tracks_split(const struct tc_model *m, const uint32_t *tracks, size_t nt);
/* tc_ivals_union_per_kind_of on two threads, for many events. */
void tc_ivals_union_per_kind_two(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	uint32_t kinds, struct tc_ivals out[TC_OP_KIND_COUNT]);
void tc_ivals_finish_per_kind(struct tc_ivals per_kind[TC_OP_KIND_COUNT]);
/*
 * The same unions as one run list (cleared first): the time covered by
 * any event whose kind is in kinds, cut wherever the set of covering
 * kinds changes, each run with that set. Runs hold every per-kind union
 * at once: no per-kind list is built, and a cover over runs merges none.
 */
void tc_kind_runs(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	uint32_t kinds, struct tc_ivals *out);
/*
 * The gaps between runs' busy stretches (from the end of one to the start
 * of the next, none before the first), and for each the event that ends
 * it: of the events (with a duration) starting where it ends, the first
 * by index.
 */
struct tc_gaps {
	struct tc_ivals iv;
	uint32_t *ev; /* per gap */
	size_t cap_ev;
};
void tc_gaps_finish(struct tc_gaps *g);
/* The same as tc_kind_runs, and the gaps into gaps (emptied first). */
void tc_kind_runs_gaps(const struct tc_model *m, const uint32_t *tracks, size_t nt,
	uint32_t kinds, struct tc_ivals *out, struct tc_gaps *gaps);
/* Room for need runs. */
void tc_runs_reserve(struct tc_ivals *v, size_t need);

void tc_ivals_finish(struct tc_ivals *v);

/* The events with a positive duration (and that keep accepts; NULL: all)
 * of several tracks in (start, index) order, merged without a list:
 * tc_track_merge_next returns the next event's index and sets *track (if
 * not NULL) to its track; SIZE_MAX, with g freed, at the end. */
struct tc_track_cursor {
	int64_t key, key2; /* order: key, key2, then i (key2 0 for events) */
	size_t i, end;
	uint32_t track;
};
struct tc_track_merge {
	struct tc_track_cursor *h;
	size_t n;
	bool (*keep)(const struct tc_model *m, size_t ev, void *ctx);
	void *ctx;
	/* Other sequences than events (NULL: events): moves c to its next
	 * element from c->i on, sets its keys, false at c->end. */
	bool (*advance)(const struct tc_model *m, struct tc_track_cursor *c, void *ctx);
	int64_t key, key2; /* the keys of the element last returned */
};
void tc_track_merge_init(struct tc_track_merge *g, const struct tc_model *m,
	const uint32_t *tracks, size_t nt,
	bool (*keep)(const struct tc_model *m, size_t ev, void *ctx), void *ctx);
/* For other sequences: g's h[0..n) hold cursors advance placed on their
 * first elements, and advance and ctx are set; orders them for _next. */
void tc_track_merge_start(struct tc_track_merge *g);
size_t tc_track_merge_next(struct tc_track_merge *g, const struct tc_model *m,
	uint32_t *track);

/*
 * Run time summed by the kinds covering it: all that a reader which only
 * sums runs by their kinds takes from them (tc_usage_sums_run and a
 * category per kinds are linear in a run's length), without a list of
 * runs to write and read back. An open-addressed table keyed by kinds.
 */
struct tc_kind_sums {
	uint32_t *kinds; /* 0: a free slot (a run always has a kind) */
	uint64_t *len;
	size_t cap, n;   /* cap: a power of two, over twice n */
};
void tc_kind_sums_reset(struct tc_kind_sums *s);
void tc_kind_sums_finish(struct tc_kind_sums *s);
/* The table's rare part: room for one more kinds. */
void tc_kind_sums_grow(struct tc_kind_sums *s);
static inline void tc_kind_sums_add(struct tc_kind_sums *s, uint32_t kinds, uint64_t len) {
	if (__builtin_expect(2 * (s->n + 1) > s->cap, 0)) {
		tc_kind_sums_grow(s);
	}
	size_t mask = s->cap - 1, h = ((kinds * 0x9E3779B1u) >> 16) & mask;
	while (s->kinds[h] != kinds) {
		if (!s->kinds[h]) {
			s->kinds[h] = kinds;
			s->n++;
			break;
		}
		h = (h + 1) & mask;
	}
	s->len[h] += len;
}

/*
 * tc_kind_runs in pieces, for a reader that takes the runs once in time
 * order: no list of them all is built. Each tc_runs_scan_to appends to out
 * the runs before t not given yet, the last one cut at t; t rises from
 * call to call, and INT64_MAX gives the rest. tc_runs_scan_sum_to takes
 * them the same way but adds them to sums. The fields are the scan's.
 */
#define TC_RUNS_SCAN_TRACKS 8 /* merged by cursors; more through a heap */
struct tc_runs_scan {
	const struct tc_model *m;
	uint32_t kinds;
	size_t na;                      /* track cursors left, by next start */
	struct tc_scan_cursor { int64_t key; size_t i, end; } c[TC_RUNS_SCAN_TRACKS];
	/* More tracks than cursors: their per-kind unions (u, built by the
	 * first _to; u_pos, u_open: each kind's next interval, the kinds with
	 * some left) stand for the events, which give the same runs; with
	 * gaps asked for, the events merged by g (heap). */
	const uint32_t *tracks;
	size_t nt;
	bool heap, many;
	struct tc_track_merge g;
	struct tc_ivals *u;
	size_t u_pos[TC_OP_KIND_COUNT];
	uint32_t u_open;
	struct tc_ivals *out;           /* where the runs go, */
	struct tc_kind_sums *sums;      /* or, where set, their sums */
	/* NULL, or where the gaps between busy stretches go (set it after
	 * tc_runs_scan_init; tc_kind_runs_gaps' list) */
	struct tc_gaps *gaps;
	int64_t hi[TC_OP_KIND_COUNT];   /* each open kind's end so far */
	uint32_t open;                  /* the kinds covering t */
	int64_t t;                      /* start of the run being built */
	int64_t min_hi;                 /* the least end of the open kinds */
	int min_k;
};
void tc_runs_scan_init(struct tc_runs_scan *s, const struct tc_model *m,
	const uint32_t *tracks, size_t nt, uint32_t kinds);
void tc_runs_scan_to(struct tc_runs_scan *s, int64_t t, struct tc_ivals *out);
void tc_runs_scan_sum_to(struct tc_runs_scan *s, int64_t t, struct tc_kind_sums *sums);
void tc_runs_scan_finish(struct tc_runs_scan *s);

/*
 * Covered time split by which lists cover it, for several unions and
 * intersections in one sweep and no further lists: part k is the time
 * covered by exactly the lists whose bits are set in v[k].bits (bit i for
 * lists[i]); uncovered time has no part. A run list at lists[i] stands
 * for the lists of its kinds: its run j sets bits kinds[j] << i.
 */
struct tc_cover_part {
	uint64_t bits;
	int64_t len;
};
struct tc_cover {
	struct tc_cover_part *v;
	size_t n, cap, last;
	/* Where each part was last found, by a hash of its bits: an index
	 * counts only while it is below n and its part has those bits, so
	 * setting n to 0 empties the cover. */
	uint32_t seen[64];
	/* Per list index, where its search found the first interval last
	 * time: checked against the list before use, so any value is safe,
	 * and a cover added step after step seldom searches. */
	size_t hint[64];
	/* The list tc_cover_const_but last found varying: tried first, as
	 * steps of one device mostly fail on the same list. */
	size_t varied;
};
/* Add [lo, hi)'s covered time by lists[0..nl) (nl <= 64, a run list's
 * kinds shifted by its index kept under bit 64) to c's parts. */
void tc_cover_add(struct tc_cover *c, const struct tc_ivals *lists, size_t nl,
	int64_t lo, int64_t hi);
/*
 * Whether every list of lists[0..nl) but lists[dense] is constant over
 * [lo, hi): each misses it or covers it whole. Then *bits holds those
 * covering it (as tc_cover_add sets them), *first the index of dense's
 * first interval ending after lo, and [lo, hi)'s parts are dense's
 * intervals or runs with *bits added, and the rest with *bits alone: a
 * caller sums them without a cover. Moves c's hints as tc_cover_add does.
 */
bool tc_cover_const_but(struct tc_cover *c, const struct tc_ivals *lists, size_t nl,
	size_t dense, int64_t lo, int64_t hi, uint64_t *bits, size_t *first);
/*
 * The intervals of plain list v within [lo, hi), clipped to it, into out
 * (cleared first), less what lies under runs (a run list) whose kinds meet
 * mask, touching runs counted as one stretch, at their ends: those wholly
 * under such a stretch are left out, a head or tail under one is cut off
 * (the middle stays whole, so out has no more intervals than v). Returns
 * how many were left out or cut.
 */
size_t tc_ivals_trim_under(const struct tc_ivals *v, const struct tc_ivals *runs, uint32_t mask,
	int64_t lo, int64_t hi, struct tc_ivals *out);
/* Time covered by any list in mask; by some list in a and some in b. */
int64_t tc_cover_len(const struct tc_cover *c, uint64_t mask);
int64_t tc_cover_len_both(const struct tc_cover *c, uint64_t a, uint64_t b);
void tc_cover_finish(struct tc_cover *c);

/* b - a for a <= b, saturated: model times span up to 2^62 either side of
 * the origin, so a difference can exceed INT64_MAX. */
static inline int64_t tc_ivals_gap(int64_t a, int64_t b) {
	uint64_t d = (uint64_t)b - (uint64_t)a;
	return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* Length of a union of intervals added by rising start (one track's
 * events), no list built. */
struct tc_busy_acc {
	int64_t sum, lo, hi;
};
#define TC_BUSY_ACC_INIT { 0, 0, INT64_MIN }
static inline void tc_busy_acc_add(struct tc_busy_acc *b, int64_t start, int64_t dur) {
	if (dur <= 0) {
		return;
	}
	if (start > b->hi) {
		b->sum = b->hi > b->lo ? tc_sat_add(b->sum, tc_ivals_gap(b->lo, b->hi)) : b->sum;
		b->lo = start;
		b->hi = start + dur;
	} else if (start + dur > b->hi) {
		b->hi = start + dur;
	}
}
static inline int64_t tc_busy_acc_len(const struct tc_busy_acc *b) {
	return b->hi > b->lo ? tc_sat_add(b->sum, tc_ivals_gap(b->lo, b->hi)) : b->sum;
}


/* Device-work tracks of device d among dt's (tc_device_tracks_init: built
 * once for a loop over devices); returns a malloc'd array and its length. */
uint32_t *tc_device_work_tracks(const struct tc_model *m, const struct tc_device_tracks *dt,
	uint32_t d, size_t *n);

#endif
