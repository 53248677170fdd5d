/*
 * The built-in step markers (op kind TC_OP_STEP), gathered per track in one
 * pass and merged across chosen tracks in time order, for the steps pass
 * and the summary.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/markers.h"
#include "util/pair.h"
#include "util/xalloc.h"

/* The markers of tracks [t0, t1) among events [i0, i1): their events
 * into *ev (malloc'd) and each track's first index in it into first[t],
 * but for t0 where skip_first (the track the other part starts). */
struct marker_part {
	const struct tc_model *m;
	const uint8_t *step; /* per op: a step marker's */
	size_t t0, t1, i0, i1;
	bool skip_first;
	size_t *first;
	uint32_t *ev;
	size_t n;
};

static void *marker_part_run(void *p) {
	struct marker_part *h = p;
	const struct tc_model *m = h->m;
	const uint32_t *op = m->ev.op;
	const uint8_t *step = h->step;
	/* In locals: stores through h would make the loop reload them. */
	uint32_t *ev = h->ev;
	size_t n = h->n, cap = 0;
	for (size_t t = h->t0; t < h->t1; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (t != h->t0 || !h->skip_first) {
			h->first[t] = n;
		}
		size_t i = tr->first > h->i0 ? tr->first : h->i0;
		size_t end = (size_t)tr->first + tr->count;
		end = end < h->i1 ? end : h->i1;
		for (; i < end; i++) {
			if (step[op[i]]) {
				TC_GROW(ev, cap, n + 1);
				ev[n++] = (uint32_t)i;
			}
		}
	}
	h->ev = ev;
	h->n = n;
	return NULL;
}

static int64_t step_num(const struct tc_model *m, uint32_t ev) {
	int64_t num;
	return tc_model_arg_i64(m, tc_model_event_args(m, ev), m->key.step, &num) ? num : INT64_MIN;
}

void tc_markers_init(struct tc_markers *mk, const struct tc_model *m, bool two) {
	memset(mk, 0, sizeof(*mk));
	mk->first = tc_xmalloc((m->n_tracks + 1) * sizeof(*mk->first));
	/* A byte per op: the events' op column is read, not each op record. */
	uint8_t *step = tc_xmalloc(m->n_ops ? m->n_ops : 1);
	bool any = false;
	for (size_t o = 0; o < m->n_ops; o++) {
		step[o] = m->ops[o].kind == TC_OP_STEP;
		any |= step[o];
	}
	/* With two, a second thread takes the events after half of them,
	 * from within a track: one line can hold most of a trace. That needs
	 * the tracks' events in track order, as finalize lays them. */
	struct marker_part h[2] = {
		{ m, step, 0, m->n_tracks, 0, SIZE_MAX, false, mk->first, NULL, 0 },
		{ m, step, m->n_tracks, m->n_tracks, 0, SIZE_MAX, false, mk->first, NULL, 0 },
	};
	/* No op marks steps: every track's list is empty, its events unread. */
	if (!any) {
		two = false;
		h[0].i1 = 0;
	}
	for (size_t t = 1; two && t < m->n_tracks; t++) {
		two = m->tracks[t].first >= (size_t)m->tracks[t - 1].first + m->tracks[t - 1].count;
	}
	uint64_t before = 0;
	for (size_t t = 0; two && t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (2 * (before + tr->count) >= m->ev.n) {
			size_t mid = tr->first + (size_t)(m->ev.n / 2 - before);
			h[0].t1 = t + 1;
			h[0].i1 = mid;
			h[1] = (struct marker_part){ m, step, t, m->n_tracks, mid, SIZE_MAX, true,
				mk->first, NULL, 0 };
			break;
		}
		before += tr->count;
	}
	size_t split = h[1].t0;
	tc_run_pair(marker_part_run, &h[0], &h[1], split < m->n_tracks);
	free(step);
	/* The second part's after the first's. */
	mk->n = h[0].n + h[1].n;
	mk->ev = h[0].ev;
	if (h[1].n) {
		mk->ev = tc_xrealloc(mk->ev, mk->n * sizeof(*mk->ev));
		memcpy(mk->ev + h[0].n, h[1].ev, h[1].n * sizeof(*mk->ev));
	}
	free(h[1].ev);
	for (size_t t = split + h[1].skip_first; t < m->n_tracks; t++) {
		mk->first[t] += h[0].n;
	}
	mk->first[m->n_tracks] = mk->n;
	mk->start = tc_xmalloc((mk->n ? mk->n : 1) * sizeof(*mk->start));
	mk->dur = tc_xmalloc((mk->n ? mk->n : 1) * sizeof(*mk->dur));
	mk->num = tc_xmalloc((mk->n ? mk->n : 1) * sizeof(*mk->num));
	for (size_t p = 0; p < mk->n; p++) {
		mk->start[p] = m->ev.start[mk->ev[p]];
		mk->dur[p] = m->ev.dur[mk->ev[p]];
		mk->num[p] = step_num(m, mk->ev[p]);
	}
}

void tc_markers_finish(struct tc_markers *mk) {
	if (!mk) {
		return;
	}
	free(mk->ev);
	free(mk->start);
	free(mk->dur);
	free(mk->num);
	free(mk->first);
	memset(mk, 0, sizeof(*mk));
}

static int cmp_u32(const void *pa, const void *pb) {
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

bool tc_markers_copy_host(const struct tc_model *m, const struct tc_markers *mk, uint32_t dev) {
	uint32_t *names = NULL;
	size_t n = 0, cap = 0, on_dev = 0, shared = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		for (size_t p = mk->first[t]; tc_model_on_host(m, m->tracks[t].device) &&
				p < mk->first[t + 1]; p++) {
			TC_GROW(names, cap, n + 1);
			names[n++] = m->ops[m->ev.op[mk->ev[p]]].name;
		}
	}
	tc_sort(names, n, sizeof(*names), cmp_u32);
	for (size_t t = 0; t < m->n_tracks && n; t++) {
		for (size_t p = mk->first[t]; m->tracks[t].device == dev && p < mk->first[t + 1];
				p++) {
			uint32_t name = m->ops[m->ev.op[mk->ev[p]]].name;
			on_dev++;
			shared += bsearch(&name, names, n, sizeof(*names), cmp_u32) != NULL;
		}
	}
	free(names);
	return on_dev && 2 * shared > on_dev;
}

size_t tc_markers_host(const struct tc_model *m, const struct tc_markers *mk) {
	uint64_t *count = tc_xcalloc(m->n_devices + 1, sizeof(*count));
	for (size_t t = 0; t < m->n_tracks; t++) {
		uint32_t d = m->tracks[t].device;
		if (!tc_model_on_host(m, d)) {
			continue;
		}
		uint64_t c = 0;
		for (size_t p = mk->first[t]; p < mk->first[t + 1]; p++) {
			c += mk->dur[p] > 0;
		}
		count[d < m->n_devices ? d : m->n_devices] += c;
	}
	size_t best = SIZE_MAX;
	for (size_t d = 0; d <= m->n_devices; d++) {
		if (count[d] && (best == SIZE_MAX || count[d] > count[best])) {
			best = d;
		}
	}
	free(count);
	return best;
}

bool tc_markers_choose(const struct tc_model *m, const struct tc_markers *mk, bool *take,
		uint32_t *dev_out, size_t *host_out) {
	uint32_t dev = TC_NONE;
	for (size_t t = 0; t < m->n_tracks; t++) {
		uint32_t d = m->tracks[t].device;
		for (size_t p = mk->first[t]; d < dev && !tc_model_on_host(m, d) &&
				p < mk->first[t + 1]; p++) {
			dev = mk->dur[p] > 0 ? d : dev;
		}
	}
	size_t host = tc_markers_host(m, mk);
	if (dev == TC_NONE && host == SIZE_MAX) {
		return false;
	}
	if (dev != TC_NONE && host != SIZE_MAX && tc_markers_copy_host(m, mk, dev)) {
		dev = TC_NONE;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		uint32_t d = m->tracks[t].device;
		take[t] = dev != TC_NONE ? d == dev :
			tc_model_on_host(m, d) && (d < m->n_devices ? d : m->n_devices) == host;
	}
	*dev_out = dev;
	*host_out = host;
	return true;
}

/* Up to this many tracks with markers, tc_markers_outer scans their
 * cursors for the lowest instead of keeping a heap: a host's few threads
 * (perfetto-plain: 8) cost a sift and a callback per marker there. */
#define OUTER_SCAN 16

/* Whether marker p cannot be a step once a step ended at skip_end: an
 * instant, or one ending by then (enclosed). Both merges step over it. */
static inline bool marker_skipped(const struct tc_markers *mk, size_t p, int64_t skip_end) {
	return mk->dur[p] <= 0 || mk->start[p] + mk->dur[p] <= skip_end;
}

/* Whether marker p comes before marker q: the merge's order. */
static inline bool marker_before(const struct tc_markers *mk, size_t p, size_t q) {
	if (mk->start[p] != mk->start[q]) {
		return mk->start[p] < mk->start[q];
	}
	return mk->dur[p] > mk->dur[q] || (mk->dur[p] == mk->dur[q] && p < q);
}

/* tc_markers_outer over the nc cursors [cur[c], end[c]) (in track order):
 * each round moves every cursor past what cannot be a step (instants,
 * markers ending by the last step's end), takes the lowest head, and
 * every cursor's markers tied with it. */
static size_t outer_scan(const struct tc_markers *mk, size_t *cur, const size_t *end, size_t nc,
		tc_marker_emit_fn emit, void *ctx) {
	int64_t skip_end = INT64_MIN;
	size_t n = 0;
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t c = 0; c < nc; c++) {
			size_t p = cur[c];
			while (p < end[c] && marker_skipped(mk, p, skip_end)) {
				p++;
			}
			cur[c] = p;
			if (p < end[c] && (best == SIZE_MAX || marker_before(mk, p, best))) {
				best = p;
			}
		}
		if (best == SIZE_MAX) {
			return n;
		}
		int64_t s = mk->start[best], d = mk->dur[best];
		uint32_t ev = mk->ev[best];
		int64_t num = mk->num[best];
		/* Ties in position order: best is the first; a lower number wins. */
		for (size_t c = 0; c < nc; c++) {
			size_t p = cur[c];
			for (; p < end[c] && mk->start[p] == s && mk->dur[p] == d; p++) {
				if (mk->num[p] < num) {
					ev = mk->ev[p];
					num = mk->num[p];
				}
			}
			cur[c] = p;
		}
		emit(ctx, ev, s, d, num);
		n++;
		skip_end = s + d;
	}
}

/*
 * The outermost markers in time order; of ties (the same start and
 * length), the one with the least step number.
 */
size_t tc_markers_outer(const struct tc_model *m, const struct tc_markers *mk, const bool *take,
		tc_marker_emit_fn emit, void *ctx) {
	size_t at[OUTER_SCAN], stop[OUTER_SCAN], nc = 0;
	for (size_t t = 0; t < m->n_tracks && nc <= OUTER_SCAN; t++) {
		if (take[t] && mk->first[t + 1] > mk->first[t]) {
			if (nc < OUTER_SCAN) {
				at[nc] = mk->first[t];
				stop[nc] = mk->first[t + 1];
			}
			nc++;
		}
	}
	if (nc <= OUTER_SCAN) {
		return outer_scan(mk, at, stop, nc, emit, ctx);
	}
	struct tc_marker_merge g;
	tc_marker_merge_init(&g, m, mk, take);
	int64_t key[2];
	size_t n = 0;
	for (size_t p; (p = tc_marker_merge_next(&g, key)) != SIZE_MAX;) {
		int64_t end = key[0] - key[1];
		if (end <= g.skip_end) {
			continue; /* the ties that follow are enclosed too */
		}
		uint32_t ev = mk->ev[p];
		int64_t num = mk->num[p];
		while (tc_marker_merge_peek(&g, key)) {
			size_t p2 = tc_marker_merge_next(&g, key);
			if (mk->num[p2] < num) {
				ev = mk->ev[p2];
				num = mk->num[p2];
			}
		}
		emit(ctx, ev, key[0], -key[1], num);
		n++;
		/* What ends by then is enclosed: the cursors step over it. */
		g.skip_end = end;
	}
	return n;
}

/* tc_track_merge's advance over one track's markers: to the next one of
 * positive length (instants are no steps) that ends after skip_end. */
static bool advance(const struct tc_model *m, struct tc_track_cursor *c, void *ctx) {
	(void)m;
	const struct tc_marker_merge *g = ctx;
	const struct tc_markers *mk = g->mk;
	while (c->i < c->end && marker_skipped(mk, c->i, g->skip_end)) {
		c->i++;
	}
	if (c->i == c->end) {
		return false;
	}
	c->key = mk->start[c->i];
	c->key2 = -mk->dur[c->i];
	return true;
}

void tc_marker_merge_init(struct tc_marker_merge *g, const struct tc_model *m,
		const struct tc_markers *mk, const bool *take) {
	*g = (struct tc_marker_merge){ .m = m, .mk = mk, .skip_end = INT64_MIN };
	size_t nt = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		nt += take[t] && mk->first[t + 1] > mk->first[t];
	}
	g->g.h = tc_xmalloc((nt ? nt : 1) * sizeof(*g->g.h));
	g->g.advance = advance;
	g->g.ctx = g;
	for (size_t t = 0; t < m->n_tracks; t++) {
		struct tc_track_cursor c = { .i = mk->first[t], .end = mk->first[t + 1],
			.track = (uint32_t)t };
		if (take[t] && advance(m, &c, g)) {
			g->g.h[g->g.n++] = c;
		}
	}
	tc_track_merge_start(&g->g);
}

size_t tc_marker_merge_next(struct tc_marker_merge *g, int64_t key[2]) {
	size_t i = tc_track_merge_next(&g->g, g->m, NULL);
	key[0] = g->g.key;
	key[1] = g->g.key2;
	return i;
}

bool tc_marker_merge_peek(const struct tc_marker_merge *g, const int64_t key[2]) {
	return g->g.n && g->g.h[0].key == key[0] && g->g.h[0].key2 == key[1];
}
