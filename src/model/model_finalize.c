/*
 * Finalize: events grouped by track and sorted by start within each track
 * (in runs, moved as whole blocks where they are already in order), nesting
 * depths, samples sorted per counter. Readers append in any order; every
 * analysis reads the finalized layout (model.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/model_private.h"
#include "util/num.h"
#include "util/prefault.h"
#include "util/xalloc.h"

struct sort_rec {
	int64_t start;
	int64_t dur;
	uint32_t idx;
};

/* Start, then longer first (parents before children), then input order. */
static inline bool rec_before(const struct sort_rec *a, const struct sort_rec *b) {
	if (a->start != b->start) {
		return a->start < b->start;
	}
	if (a->dur != b->dur) {
		return a->dur > b->dur;
	}
	return a->idx < b->idx;
}

#define SORT_MINRUN 32

/*
 * Insertion sort while the records moved stay within a budget: tracks out
 * of order are nearly in order (Kineto-style writers emit a parent after
 * its children, so each parent moves back over its subtree). Returns how
 * far v is sorted; n when all of it.
 */
static size_t insert_sorted(struct sort_rec *v, size_t n, size_t budget) {
	size_t moved = 0, k;
	for (k = 1; k < n; k++) {
		if (!rec_before(&v[k], &v[k - 1])) {
			continue;
		}
		struct sort_rec x = v[k];
		/* A few places back, then bisect: an event that encloses
		 * much (a training step) moves far. */
		size_t m = k - 1, lo = 0;
		for (int step = 0; step < 8 && m > 0; step++, m--) {
			if (!rec_before(&x, &v[m - 1])) {
				lo = m;
				break;
			}
		}
		if (lo != m) {
			size_t hi = m;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (rec_before(&x, &v[mid])) {
					hi = mid;
				} else {
					lo = mid + 1;
				}
			}
			m = lo;
		}
		moved += k - m;
		if (moved > budget) {
			break;
		}
		memmove(v + m + 1, v + m, (k - m) * sizeof(*v));
		v[m] = x;
	}
	return k;
}

/*
 * Sort one track's records, comparisons in line: insertion while that is
 * cheap, else a natural merge sort whose runs shorter than SORT_MINRUN are
 * extended by insertion, O(n log(n / runs)). Not tc_sort_runs: its
 * comparison callback is slower per record (bench/README, tried and dropped).
 */
static void sort_recs(struct sort_rec *v, size_t n) {
	if (insert_sorted(v, n, 8 * n + 4096) >= n) {
		return;
	}
	size_t *run = NULL, cap = 0, nrun = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !rec_before(&v[j], &v[j - 1])) {
			j++;
		}
		if (j - i < SORT_MINRUN && j < n) {
			j = i + SORT_MINRUN < n ? i + SORT_MINRUN : n;
			insert_sorted(v + i, j - i, SIZE_MAX);
		}
		TC_GROW(run, cap, nrun + 2);
		run[nrun++] = i;
		i = j;
	}
	if (nrun <= 1) {
		free(run);
		return;
	}
	run[nrun] = n;
	struct sort_rec *tmp = tc_xmalloc(n * sizeof(*tmp));
	struct sort_rec *src = v, *dst = tmp;
	while (nrun > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nrun; r += 2) {
			size_t a = run[r], ae = run[r + 1];
			size_t b = ae, be = r + 1 < nrun ? run[r + 2] : ae;
			struct sort_rec *o = dst + a;
			while (a < ae && b < be) {
				*o++ = rec_before(&src[b], &src[a]) ? src[b++] : src[a++];
			}
			memcpy(o, src + a, (ae - a) * sizeof(*o));
			o += ae - a;
			memcpy(o, src + b, (be - b) * sizeof(*o));
			run[out++] = run[r];
		}
		run[out] = n;
		nrun = out;
		struct sort_rec *t = src;
		src = dst;
		dst = t;
	}
	if (src != v) {
		memcpy(v, src, n * sizeof(*v));
	}
	free(tmp);
	free(run);
}

/* The ends of the events enclosing the current one on a track: the stack's
 * storage, kept from track to track. */
struct nest {
	int64_t *end;
	size_t cap;
};

/* True when events are already grouped by track in track order (readers
 * that emit line by line): then finalize moves no event, and this sets the
 * track ranges. The track column is walked event by event, or the runs
 * that stand for it run by run. */
static bool events_grouped(struct tc_model *m) {
	const struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	size_t steps = e->track ? n : e->n_runs;
	uint32_t cur = TC_NONE;
	for (size_t t = 0; t < nt; t++) {
		m->tracks[t].count = 0;
	}
	for (size_t k = 0; k < steps; k++) {
		uint32_t t = e->track ? e->track[k] : e->runs[k].track;
		size_t i = e->track ? k : e->runs[k].first;
		if (t == cur) {
			continue;
		}
		if (t >= nt || (cur != TC_NONE && cur > t)) {
			return false;
		}
		if (cur != TC_NONE) {
			m->tracks[cur].count = (uint32_t)(i - m->tracks[cur].first);
		}
		cur = t;
		m->tracks[t].first = (uint32_t)i;
	}
	if (cur != TC_NONE) {
		m->tracks[cur].count = (uint32_t)(n - m->tracks[cur].first);
	}
	/* Empty tracks start where the previous track ends, as in the general
	 * path. */
	size_t pos = 0;
	for (size_t t = 0; t < nt; t++) {
		if (m->tracks[t].count) {
			pos = (size_t)m->tracks[t].first + m->tracks[t].count;
		} else {
			m->tracks[t].first = (uint32_t)pos;
		}
	}
	return true;
}

static void drop_track_column(struct tc_events *e) {
	free(e->track);
	e->track = NULL;
	free(e->runs);
	e->runs = NULL;
	e->n_runs = e->cap_runs = 0;
}

/*
 * Grouping events by track is a stable counting sort done as a scatter: each
 * column is read once in order and written to one sequential stream per
 * track. (A gather through a permutation reads every cache line once per
 * track when tracks interleave.) Each column goes into a fresh buffer and
 * its old buffer takes the next column of the same width, so nothing is
 * copied back.
 *
 * Writers that buffer per thread (the Perfetto SDK's chunks) leave runs of
 * hundreds of events on one track. Then each run moves as one memcpy, and
 * the runs, not the track column, say where: that column's memory takes op
 * instead of a fresh buffer. Faulting in fresh pages is most of the cost.
 */
struct group_run {
	uint32_t bucket;        /* track + 1; 0 = invalid track */
	uint32_t len;
};

struct group {
	struct tc_model *m;
	const uint32_t *track;  /* the old track column */
	const size_t *starts;   /* bucket b's first slot; bucket 0 = invalid track */
	const struct group_run *runs; /* the track column as runs, or NULL */
	size_t n_runs;
};

/* Runs worth a memcpy each: at least this long on average. */
#define GROUP_RUN_MIN 16

#define SCATTER(dst, src, cur) do { \
	memcpy((cur), g->starts, (nt + 1) * sizeof(*(cur))); \
	if (g->runs) { \
		size_t i_ = 0; \
		for (size_t r_ = 0; r_ < g->n_runs; r_++) { \
			size_t b_ = g->runs[r_].bucket, l_ = g->runs[r_].len; \
			memcpy((dst) + (cur)[b_], (src) + i_, l_ * sizeof(*(src))); \
			(cur)[b_] += l_; \
			i_ += l_; \
		} \
	} else { \
		for (size_t i_ = 0; i_ < n; i_++) { \
			uint32_t t_ = g->track[i_]; \
			(dst)[(cur)[t_ < nt ? t_ + 1 : 0]++] = (src)[i_]; \
		} \
	} \
} while (0)

/* Two columns of one width: a into `into` or a fresh buffer, b into a's
 * old one; b's old one is left in *spare. Fresh buffers hold n: the
 * capacity past it would only be faulted in. */
#define SCATTER_PAIR(a, b, type, cur, into, spare) do { \
	type *fresh_ = (into) ? (type *)(void *)(into) : \
		tc_xmalloc((n ? n : 1) * sizeof(type)); \
	SCATTER(fresh_, (a), (cur)); \
	type *old_ = (a); \
	(a) = fresh_; \
	SCATTER(old_, (b), (cur)); \
	*(spare) = (b); \
	(b) = old_; \
} while (0)

/* Depths of track t's events, in order; false (depths unset) if they are
 * not in order: start, then longer first. The columns are read into locals
 * and the stack kept in them: a store to the stack could otherwise be a
 * store to start or dur, and reload them (about half the cost per event). */
static bool track_depths(struct tc_model *m, size_t t, struct nest *st) {
	struct tc_events *e = &m->ev;
	struct tc_track *tr = &m->tracks[t];
	size_t lo = tr->first, hi = lo + tr->count;
	const int64_t *start = e->start, *dur = e->dur;
	uint16_t *depth = e->depth;
	int64_t *stack = st->end;
	size_t top = 0, cap = st->cap;
	uint16_t maxd = 0;
	int64_t end = INT64_MIN, ps = INT64_MIN, pd = 0;
	bool sorted = true;
	for (size_t i = lo; i < hi; i++) {
		int64_t s = start[i], d = dur[i];
		/* Starts are within +-2^62: INT64_MIN is before the first. */
		if (ps > s || (ps == s && pd < d)) {
			sorted = false;
			break;
		}
		ps = s;
		pd = d;
		while (top > 0 && stack[top - 1] <= s) {
			top--;
		}
		uint16_t dep = top > UINT16_MAX ? UINT16_MAX : (uint16_t)top;
		/* An instant never encloses anything. */
		if (d > 0) {
			if (top == cap) {
				TC_GROW(stack, cap, top + 1);
			}
			stack[top++] = s + d;
		}
		depth[i] = dep;
		maxd = dep > maxd ? dep : maxd;
		end = s + d > end ? s + d : end;
	}
	st->end = stack;
	st->cap = cap;
	if (!sorted) {
		return false;
	}
	tr->max_depth = maxd;
	tr->end = hi > lo ? end : 0;
	return true;
}

/* Both threads take tracks from one counter: tracks are independent. */
struct depth_job {
	struct tc_model *m;
	bool *unsorted;
	atomic_size_t next;
};

static void *depth_worker(void *arg) {
	struct depth_job *j = arg;
	struct nest st = { 0 };
	size_t t;
	while ((t = atomic_fetch_add(&j->next, 1)) < j->m->n_tracks) {
		j->unsorted[t] = !track_depths(j->m, t, &st);
	}
	free(st.end);
	return NULL;
}

/*
 * Depths of every track, which must be grouped; marks the tracks out of
 * order instead. lead: the events on no track, before track 0's. The depth
 * column takes the track column's memory, which grouping no longer needs,
 * or else spare's (a column grouping left over; freed otherwise): their
 * pages are in already, where a fresh column would fault its own.
 */
static void set_depths(struct tc_model *m, size_t lead, bool *unsorted, bool second_thread,
		void *spare) {
	struct tc_events *e = &m->ev;
	size_t n = e->n;
	free(e->depth);
	if (e->track) {
		free(spare);
		spare = e->track;
		e->track = NULL;
	}
	e->depth = spare ? tc_xrealloc(spare, (n ? n : 1) * sizeof(*e->depth)) :
		tc_xmalloc((n ? n : 1) * sizeof(*e->depth));
	memset(e->depth, 0, lead * sizeof(*e->depth)); /* on no stack */
	struct depth_job j = { .m = m, .unsorted = unsorted };
	atomic_init(&j.next, 0);
	pthread_t th;
	bool threaded = second_thread && n >= ((size_t)1 << 20) && m->n_tracks > 1 &&
		pthread_create(&th, NULL, depth_worker, &j) == 0;
	depth_worker(&j);
	if (threaded) {
		pthread_join(th, NULL);
	}
}

/* The time columns; run beside group_rest. */
static void *group_times(void *arg) {
	struct group *g = arg;
	struct tc_model *m = g->m;
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	size_t *cur = tc_xmalloc((nt + 1) * sizeof(*cur));
	void *spare;
	SCATTER_PAIR(e->start, e->dur, int64_t, cur, NULL, &spare);
	free(spare);
	free(cur);
	return NULL;
}

/* The other columns; with flows, where each event went (*inv). A buffer
 * left over for the depths goes in *spare. */
static void group_rest(struct group *g, uint32_t **inv, void **spare) {
	struct tc_model *m = g->m;
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	size_t *cur = tc_xmalloc((nt + 1) * sizeof(*cur));
	/* Routed by runs, the track column is free: op goes into it, and
	 * args' old buffer is left for the depths. */
	uint32_t *into = NULL;
	if (g->runs) {
		into = e->track;
		e->track = NULL;
	}
	SCATTER_PAIR(e->op, e->args, uint32_t, cur, into, spare);
	uint8_t *z = tc_xmalloc((n ? n : 1) * sizeof(*z));
	SCATTER(z, e->flags, cur);
	free(e->flags);
	e->flags = z;
	*inv = NULL;
	if (m->n_flows) {
		*inv = tc_xmalloc(n * sizeof(**inv));
		memcpy(cur, g->starts, (nt + 1) * sizeof(*cur));
		if (g->runs) {
			for (size_t r = 0, i = 0; r < g->n_runs; r++) {
				size_t b = g->runs[r].bucket;
				for (size_t k = 0; k < g->runs[r].len; k++) {
					(*inv)[i++] = (uint32_t)cur[b]++;
				}
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				uint32_t t = g->track[i];
				(*inv)[i] = (uint32_t)cur[t < nt ? t + 1 : 0]++;
			}
		}
	}
	free(cur);
}

#define PERMUTE_RANGE(col, type) do { \
	type *tmp_ = (type *)scratch; \
	for (size_t k_ = 0; k_ < cnt; k_++) { \
		tmp_[k_] = (col)[rec[k_].idx]; \
	} \
	memcpy((col) + lo, tmp_, cnt * sizeof(type)); \
} while (0)

/* Sort one track's grouped events (start, then longer first, then input
 * order); *g2f (grouped → final index, for flows) is made on first use. */
static void sort_track(struct tc_model *m, size_t t, uint32_t **g2f) {
	struct tc_events *e = &m->ev;
	size_t lo = m->tracks[t].first, cnt = m->tracks[t].count;
	struct sort_rec *rec = tc_xmalloc(cnt * sizeof(*rec));
	for (size_t k = 0; k < cnt; k++) {
		rec[k] = (struct sort_rec){ e->start[lo + k], e->dur[lo + k], (uint32_t)(lo + k) };
	}
	sort_recs(rec, cnt);
	for (size_t k = 0; k < cnt; k++) { /* the records carry these two */
		e->start[lo + k] = rec[k].start;
		e->dur[lo + k] = rec[k].dur;
	}
	uint32_t *scratch = tc_xmalloc(cnt * sizeof(*scratch));
	PERMUTE_RANGE(e->op, uint32_t);
	PERMUTE_RANGE(e->args, uint32_t);
	PERMUTE_RANGE(e->flags, uint8_t);
	free(scratch);
	if (m->n_flows) {
		if (!*g2f) {
			*g2f = tc_xmalloc(e->n * sizeof(**g2f));
			for (size_t i = 0; i < e->n; i++) {
				(*g2f)[i] = (uint32_t)i;
			}
		}
		for (size_t k = 0; k < cnt; k++) {
			(*g2f)[rec[k].idx] = (uint32_t)(lo + k);
		}
	}
	free(rec);
}

/* Group interleaved tracks' events (the scatter above); *inv gets where
 * each event went when there are flows to follow. */
static void group_events(struct tc_model *m, bool second_thread, bool *unsorted,
		uint32_t **inv) {
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	/* Bucket t + 1 holds track t; bucket 0 events on an invalid track (a
	 * reader bug), kept first so they are at least visible. */
	size_t *starts = tc_xcalloc(nt + 2, sizeof(*starts));
	struct group_run *runs = NULL;
	size_t n_runs = 0, cap_runs = 0, most_runs = n / GROUP_RUN_MIN;
	for (size_t i = 0; i < n;) {
		uint32_t t = e->track[i];
		size_t j = i + 1;
		while (j < n && e->track[j] == t && j - i < UINT32_MAX) {
			j++;
		}
		uint32_t b = t < nt ? t + 1 : 0;
		starts[b] += j - i;
		if (n_runs < most_runs) {
			TC_GROW(runs, cap_runs, n_runs + 1);
			runs[n_runs] = (struct group_run){ b, (uint32_t)(j - i) };
		}
		n_runs++;
		i = j;
	}
	if (n_runs > most_runs) {
		free(runs);
		runs = NULL;
		n_runs = 0;
	}
	size_t pos = 0;
	for (size_t b = 0; b <= nt; b++) {
		size_t c = starts[b];
		starts[b] = pos;
		pos += c;
	}
	starts[nt + 1] = n;
	for (size_t t = 0; t < nt; t++) {
		m->tracks[t].first = (uint32_t)starts[t + 1];
		m->tracks[t].count = (uint32_t)(starts[t + 2] - starts[t + 1]);
	}
	struct group g = { m, e->track, starts, runs, n_runs };
	pthread_t th;
	bool threaded = second_thread && n >= ((size_t)1 << 20) &&
		pthread_create(&th, NULL, group_times, &g) == 0;
	if (!threaded) {
		group_times(&g);
	}
	void *spare;
	group_rest(&g, inv, &spare);
	if (threaded) {
		pthread_join(th, NULL);
	}
	set_depths(m, starts[1], unsorted, second_thread, spare);
	free(starts);
	free(runs);
	/* The fresh columns hold n; the old ones more. */
	if (n) {
		e->cap = n;
	}
}

/* Where input event x ended up: through the grouping (inv), then its
 * track's sort (g2f); either may be the identity (NULL). */
static uint32_t final_index(uint32_t x, size_t n, const uint32_t *inv, const uint32_t *g2f) {
	if (x >= n) {
		return TC_NONE;
	}
	x = inv ? inv[x] : x;
	return g2f ? g2f[x] : x;
}

/* Sort events by track, then start (longer first), and set the track
 * ranges and the depths. Grouping moves whole tracks; only a track out of
 * order is sorted, in its own range. */
static void sort_events(struct tc_model *m, bool second_thread) {
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	bool *unsorted = tc_xcalloc(nt ? nt : 1, sizeof(*unsorted));
	uint32_t *inv = NULL, *g2f = NULL;
	if (events_grouped(m)) {
		set_depths(m, 0, unsorted, second_thread, NULL);
	} else {
		/* Grouping reads the track column and moves the args'. */
		tc_model_restore_track_column(m);
		tc_model_args_dense(e);
		group_events(m, second_thread, unsorted, &inv);
	}
	drop_track_column(e);
	struct nest st = { 0 };
	for (size_t t = 0; t < nt; t++) {
		if (unsorted[t]) {
			tc_model_args_dense(e);
			sort_track(m, t, &g2f);
			track_depths(m, t, &st);
		}
	}
	free(st.end);
	/* Flows hold input indexes. */
	for (size_t i = 0; i < m->n_flows; i++) {
		struct tc_flow *f = &m->flows[i];
		f->from = final_index(f->from, n, inv, g2f);
		f->to = final_index(f->to, n, inv, g2f);
	}
	free(g2f);
	free(inv);
	free(unsorted);
	tc_model_args_pack(e); /* sparse again where few events have args */
}

struct sample_rec {
	uint32_t counter;
	int64_t ts;
	double value;
	size_t idx;
};

static int cmp_sample(const void *pa, const void *pb) {
	const struct sample_rec *a = pa, *b = pb;
	if (a->counter != b->counter) {
		return a->counter < b->counter ? -1 : 1;
	}
	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sort the samples of the invalid-counter bucket: counter, ts, input order
 * (the counting sort kept input order, so position stands for it). */
static void sort_bucket(struct tc_samples *s, size_t lo, size_t hi) {
	size_t n = hi - lo;
	struct sample_rec *r = tc_xmalloc(n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r[i] = (struct sample_rec){ s->counter[lo + i], s->ts[lo + i], s->value[lo + i], i };
	}
	tc_sort(r, n, sizeof(*r), cmp_sample);
	for (size_t i = 0; i < n; i++) {
		s->counter[lo + i] = r[i].counter;
		s->ts[lo + i] = r[i].ts;
		s->value[lo + i] = r[i].value;
	}
	free(r);
}

struct ts_val {
	int64_t ts;
	double value;
};

/*
 * Stable natural merge sort of one counter's samples by time. Readers give
 * a few sorted runs (one per thread or line feeding the counter), so this
 * costs n log(runs); stability keeps input order on equal times.
 */
static void merge_runs(int64_t *ts, double *value, size_t n, struct ts_val **buf, size_t *cap) {
	size_t run = 1;
	while (run < n && ts[run - 1] <= ts[run]) {
		run++;
	}
	if (run >= n) {
		return; /* one run already: the usual case */
	}
	TC_GROW(*buf, *cap, 2 * n);
	struct ts_val *a = *buf, *b = *buf + n;
	for (size_t i = 0; i < n; i++) {
		a[i] = (struct ts_val){ ts[i], value[i] };
	}
	for (;;) {
		size_t lo = 0;
		while (lo < n) {
			size_t mid = lo + 1;
			while (mid < n && a[mid - 1].ts <= a[mid].ts) {
				mid++;
			}
			if (mid == n) {
				if (lo == 0) {
					goto done;
				}
				memcpy(b + lo, a + lo, (n - lo) * sizeof(*a));
				break;
			}
			size_t hi = mid + 1;
			while (hi < n && a[hi - 1].ts <= a[hi].ts) {
				hi++;
			}
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				b[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
			}
			while (i < mid) {
				b[k++] = a[i++];
			}
			while (j < hi) {
				b[k++] = a[j++];
			}
			lo = hi;
		}
		struct ts_val *t = a;
		a = b;
		b = t;
	}
done:
	for (size_t i = 0; i < n; i++) {
		ts[i] = a[i].ts;
		value[i] = a[i].value;
	}
}

/*
 * Samples are sorted by counter, then time, in two steps: a stable counting
 * sort by counter (sample_scatter), then a merge of each counter's runs
 * (sample_merge), which two threads may share bucket by bucket.
 */
struct sample_sort {
	struct tc_model *m;
	size_t *ends;          /* end of bucket b (counter b; nc: invalid ones) */
	atomic_size_t next;    /* next bucket to merge */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool ready;            /* scattered: merging may start */
};

static void sample_scatter(struct sample_sort *j) {
	struct tc_model *m = j->m;
	struct tc_samples *s = &m->samples;
	bool sorted = true;
	for (size_t i = 1; i < s->n && sorted; i++) {
		sorted = s->counter[i - 1] < s->counter[i] ||
			(s->counter[i - 1] == s->counter[i] && s->ts[i - 1] <= s->ts[i]);
	}
	if (!sorted) {
		/* Readers interleave counters (one memory record gives several) but
		 * keep each counter's samples in time order: a stable counting sort
		 * by counter, then a sort of only the buckets that need it. Bucket
		 * nc holds samples of invalid counters. */
		size_t n = s->n, nc = m->n_counters;
		size_t *cnt = tc_xcalloc(nc + 2, sizeof(*cnt));
		for (size_t i = 0; i < n; i++) {
			cnt[(s->counter[i] < nc ? s->counter[i] : nc) + 1]++;
		}
		for (size_t b = 0; b <= nc; b++) {
			cnt[b + 1] += cnt[b];
		}
		/* One column at a time through bucket cursors restarted at the
		 * bucket starts: no destination array and no copy back. The new
		 * ts column is the one fresh buffer, the old one takes the
		 * values, and counters are rewritten as runs. */
		size_t *cur = tc_xmalloc((nc + 1) * sizeof(*cur));
		int64_t *ts = tc_xmalloc(n * sizeof(*ts)); /* n: see SCATTER_PAIR */
		memcpy(cur, cnt, (nc + 1) * sizeof(*cur));
		for (size_t i = 0; i < n; i++) {
			ts[cur[s->counter[i] < nc ? s->counter[i] : nc]++] = s->ts[i];
		}
		_Static_assert(sizeof(double) == sizeof(int64_t), "values take the old ts buffer");
		double *value = (double *)(void *)s->ts;
		memcpy(cur, cnt, (nc + 1) * sizeof(*cur));
		for (size_t i = 0; i < n; i++) {
			value[cur[s->counter[i] < nc ? s->counter[i] : nc]++] = s->value[i];
		}
		free(s->value);
		s->ts = ts;
		s->value = value;
		s->cap = n;
		/* Invalid counters keep their values, in input order: sort_bucket
		 * orders by them. */
		size_t n_bad = cur[nc] - cnt[nc], k = 0;
		uint32_t *bad = n_bad ? tc_xmalloc(n_bad * sizeof(*bad)) : NULL;
		for (size_t i = 0; i < n && k < n_bad; i++) {
			if (s->counter[i] >= nc) {
				bad[k++] = s->counter[i];
			}
		}
		for (size_t c = 0; c < nc; c++) {
			for (size_t i = cnt[c]; i < cur[c]; i++) {
				s->counter[i] = (uint32_t)c;
			}
		}
		if (n_bad) {
			memcpy(s->counter + cnt[nc], bad, n_bad * sizeof(*bad));
		}
		free(bad);
		memcpy(cnt, cur, (nc + 1) * sizeof(*cnt));
		free(cur);
		j->ends = cnt;
	}
	pthread_mutex_lock(&j->lock);
	j->ready = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->lock);
}

/* Merge buckets until none is left; either thread may call it once ready. */
static void sample_merge(struct sample_sort *j) {
	struct tc_samples *s = &j->m->samples;
	size_t nc = j->m->n_counters;
	struct ts_val *tmp = NULL;
	size_t tmp_cap = 0;
	for (size_t b; j->ends && (b = atomic_fetch_add(&j->next, 1)) <= nc;) {
		size_t lo = b ? j->ends[b - 1] : 0, hi = j->ends[b];
		if (b == nc) {
			if (hi > lo) {
				sort_bucket(s, lo, hi);
			}
		} else {
			merge_runs(s->ts + lo, s->value + lo, hi - lo, &tmp, &tmp_cap);
		}
	}
	free(tmp);
}

/* Each counter's range of samples. */
static void sample_index(struct tc_model *m) {
	const struct tc_samples *s = &m->samples;
	for (size_t c = 0; c < m->n_counters; c++) {
		m->counters[c].first = 0;
		m->counters[c].count = 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		uint32_t c = s->counter[i];
		if (c >= m->n_counters) {
			continue;
		}
		if (m->counters[c].count == 0) {
			m->counters[c].first = i;
		}
		m->counters[c].count++;
	}
}

static void *sample_job(void *arg) {
	struct sample_sort *j = arg;
	sample_scatter(j);
	sample_merge(j);
	return NULL;
}

/* Allocator records by time, input order kept on ties (a free written
 * at the time of the next allocation stays before it): a merge sort, as
 * writers emit them nearly in order and qsort is not stable. */
static void sort_allocs(struct tc_model *m) {
	size_t n = m->n_allocs;
	struct tc_alloc *a = m->allocs;
	size_t i = 1;
	while (i < n && a[i - 1].ts <= a[i].ts) {
		i++;
	}
	if (i >= n) {
		return;
	}
	struct tc_alloc *tmp = tc_xmalloc(n * sizeof(*tmp));
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t x = lo, y = mid, k = lo;
			while (x < mid && y < hi) {
				tmp[k++] = a[y].ts < a[x].ts ? a[y++] : a[x++];
			}
			while (x < mid) {
				tmp[k++] = a[x++];
			}
			while (y < hi) {
				tmp[k++] = a[y++];
			}
		}
		struct tc_alloc *t = a;
		a = tmp;
		tmp = t;
	}
	m->allocs = a;
	m->cap_allocs = n;
	free(tmp);
}

void tc_model_finalize(struct tc_model *m) {
	tc_model_finalize_mt(m, false);
}

void tc_model_finalize_mt(struct tc_model *m, bool second_thread) {
	if (m->finalized) {
		return;
	}
	tc_model_costs_drop(m);
	if (m->n_implausible) {
		tc_model_warn(m, m->n_implausible, "events with a duration over 7 days or a time over "
			"53 days from the origin (corrupt) were clamped");
		m->n_implausible = 0;
	}
	if (m->n_negative_dur) {
		tc_model_warn(m, m->n_negative_dur, "events with a negative duration "
			"were clamped to 0");
		m->n_negative_dur = 0;
	}
	/* Samples and events share nothing: sort the samples beside, and
	 * help merge their buckets once the events are done. */
	struct sample_sort j = { .m = m };
	atomic_init(&j.next, 0);
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cv, NULL);
	pthread_t th;
	bool threaded = second_thread && m->samples.n >= ((size_t)1 << 18) &&
		pthread_create(&th, NULL, sample_job, &j) == 0;
	sort_events(m, second_thread);
	if (threaded) {
		pthread_mutex_lock(&j.lock);
		while (!j.ready) {
			pthread_cond_wait(&j.cv, &j.lock);
		}
		pthread_mutex_unlock(&j.lock);
		sample_merge(&j);
		pthread_join(th, NULL);
	} else {
		sample_job(&j);
	}
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.cv);
	free(j.ends);
	sample_index(m);
	sort_allocs(m);
	if (m->n_allocs) {
		/* The name of the curve the records draw where no counter does
		 * (model/memcurve.c), for the analysis, which cannot intern. */
		tc_model_intern(m, "memory.allocated");
	}
	m->finalized = true;
}
