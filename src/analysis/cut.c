/*
 * Cutting a model down for `export`: rules (window, steps, devices, minimum
 * duration, top ops, event cap) that narrow a selection, keeping or
 * dropping whole events and counting what each rule dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/cut.h"
#include "analysis/passes.h"
#include "util/xalloc.h"

static bool overlaps(const struct tc_model *m, size_t i, int64_t lo, int64_t hi) {
	int64_t s = m->ev.start[i], d = m->ev.dur[i];
	if (d == 0) {
		return s >= lo && s <= hi;
	}
	return s < hi && s + d > lo;
}

static void window(const struct tc_model *m, struct tc_selection *s,
		int64_t lo, int64_t hi, const char *rule) {
	uint64_t dropped = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (tc_selection_has(s, i) && !overlaps(m, i, lo, hi)) {
			tc_selection_set(s, i, false);
			dropped++;
		}
	}
	if (lo > s->sample_lo) {
		s->sample_lo = lo;
	}
	if (hi < s->sample_hi) {
		s->sample_hi = hi;
	}
	struct tc_selection_note *n = tc_selection_note(s, rule, dropped);
	n->lo_ps = lo;
	n->hi_ps = hi;
}

void tc_cut_window(const struct tc_model *m, struct tc_selection *s,
		int64_t lo_ps, int64_t hi_ps, const char *rule) {
	window(m, s, lo_ps, hi_ps, rule);
}

/*
 * The steps as the steps pass makes them (analysis/steps.c): device step
 * lines before host markers, and host markers aligned to the device work
 * they launched, so a step's device tail past its marker is kept and the
 * cut matches the bounds 'tracectl steps' prints.
 */
bool tc_cut_steps_marked(const struct tc_model *m, struct tc_selection *s,
		const char *marker, int64_t first, int64_t last, const char *rule,
		struct tc_error *err) {
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.step_marker = marker;
	o.threads = 1;
	struct tc_analysis a;
	memset(&a, 0, sizeof(a));
	bool found = tc_pass_steps_from(m, &o, NULL, NULL, true, &a) && a.n_steps;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	int64_t min_num = INT64_MAX, max_num = INT64_MIN;
	for (size_t i = 0; found && i < a.n_steps; i++) {
		const struct tc_step *st = &a.steps[i];
		min_num = st->num < min_num ? st->num : min_num;
		max_num = st->num > max_num ? st->num : max_num;
		if (st->num >= first && st->num <= last) {
			lo = st->start_ps < lo ? st->start_ps : lo;
			hi = st->start_ps + st->dur_ps > hi ? st->start_ps + st->dur_ps : hi;
		}
	}
	tc_analysis_finish(&a);
	if (!found) {
		return tc_error_set(err, TC_EXIT_USAGE, marker ?
			"%s: no event matches the marker" : "%s: the trace has no step markers",
			rule);
	}
	if (lo > hi) {
		return tc_error_set(err, TC_EXIT_USAGE,
			"%s: no step in that range (the trace has steps %lld to %lld)",
			rule, (long long)min_num, (long long)max_num);
	}
	window(m, s, lo, hi, rule);
	return true;
}

bool tc_cut_steps(const struct tc_model *m, struct tc_selection *s,
		int64_t first, int64_t last, const char *rule, struct tc_error *err) {
	return tc_cut_steps_marked(m, s, NULL, first, last, rule, err);
}

bool tc_cut_devices(const struct tc_model *m, struct tc_selection *s,
		const char *const *patterns, size_t n, const char *rule, struct tc_error *err) {
	uint8_t *ok = tc_xcalloc(m->n_devices + 1, 1);
	for (size_t p = 0; p < n; p++) {
		/* A filter, not a choice: an ambiguous pattern keeps every
		 * device it matches. */
		struct tc_device_match dm;
		tc_analysis_match_device(m, patterns[p], &dm);
		for (size_t k = 0; k < dm.n_candidates; k++) {
			ok[dm.candidates[k]] = 1;
		}
		bool any = dm.n_candidates > 0;
		tc_analysis_device_match_finish(&dm);
		if (!any) {
			free(ok);
			return tc_error_set(err, TC_EXIT_USAGE,
				"--device '%s' matches no device (run 'tracectl info' to list them)",
				patterns[p]);
		}
	}
	uint64_t dropped = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		uint32_t d = tr->device < m->n_devices ? tr->device : (uint32_t)m->n_devices;
		if (ok[d]) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (tc_selection_has(s, i)) {
				tc_selection_set(s, i, false);
				dropped++;
			}
		}
	}
	for (size_t d = 0; d <= m->n_devices; d++) {
		s->device_ok[d] &= ok[d];
	}
	free(ok);
	tc_selection_note(s, rule, dropped);
	return true;
}

void tc_cut_min_dur(const struct tc_model *m, struct tc_selection *s, int64_t min_ps,
		const char *rule) {
	uint64_t dropped = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (m->ev.dur[i] < min_ps && tc_selection_has(s, i)) {
			tc_selection_set(s, i, false);
			dropped++;
		}
	}
	tc_selection_note(s, rule, dropped)->lo_ps = min_ps;
}

/* Parent of each event on its track (TC_NONE for top-level events). */
static uint32_t *parents(const struct tc_model *m) {
	uint32_t *parent = tc_xmalloc((m->ev.n ? m->ev.n : 1) * sizeof(*parent));
	uint32_t *stack = NULL;
	size_t cap = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		TC_GROW(stack, cap, (size_t)tr->max_depth + 1);
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint16_t d = m->ev.depth[i];
			parent[i] = d > 0 ? stack[d - 1] : TC_NONE;
			if (m->ev.dur[i] > 0) {
				stack[d] = (uint32_t)i;
			}
		}
	}
	free(stack);
	return parent;
}

/*
 * Close `mark` over nesting: every marked event's ancestors on its track get
 * marked too, if the selection still holds them. One pass in event order
 * suffices: parents precede children, so a marked parent already had its
 * own ancestors marked when it was visited.
 */
static void mark_ancestors(const struct tc_model *m, const struct tc_selection *s,
		uint8_t *mark) {
	uint32_t *parent = parents(m);
	for (size_t i = 0; i < m->ev.n; i++) {
		if (!mark[i]) {
			continue;
		}
		for (uint32_t j = parent[i]; j != TC_NONE; j = parent[j]) {
			if (!tc_selection_has(s, j)) {
				continue;
			}
			if (mark[j]) {
				break;
			}
			mark[j] = 1;
		}
	}
	free(parent);
}

/* Apply mark as the new selection; returns how many events left it. */
static uint64_t apply_mark(const struct tc_model *m, struct tc_selection *s,
		const uint8_t *mark) {
	uint64_t dropped = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (!mark[i] && tc_selection_has(s, i)) {
			tc_selection_set(s, i, false);
			dropped++;
		}
	}
	return dropped;
}

struct op_total {
	uint32_t op;
	int64_t total;
};

static const struct tc_model *sort_model;

static int cmp_op_key(const void *pa, const void *pb) {
	const struct tc_op *a = &sort_model->ops[((const struct op_total *)pa)->op];
	const struct tc_op *b = &sort_model->ops[((const struct op_total *)pb)->op];
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	if (a->category != b->category) {
		return a->category < b->category ? -1 : 1;
	}
	return (a->kind > b->kind) - (a->kind < b->kind);
}

static int cmp_total_desc(const void *pa, const void *pb) {
	const struct op_total *a = pa, *b = pb;
	if (a->total != b->total) {
		return a->total > b->total ? -1 : 1;
	}
	return (a->op > b->op) - (a->op < b->op);
}

struct span {
	int64_t lo, hi;
};

static int cmp_span(const void *pa, const void *pb) {
	const struct span *a = pa, *b = pb;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Mark events of non-work tracks of each device that enclose a marked work
 * event of the same device. */
static void mark_enclosing(const struct tc_model *m, const struct tc_selection *s,
		const uint8_t *is_work, uint8_t *mark) {
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	/* d == n_devices: the tracks of no known device. */
	for (size_t d = 0; d <= m->n_devices; d++) {
		size_t ndt;
		const uint32_t *dtr = tc_device_tracks_of(&dt, m, d, &ndt);
		struct span *sp = NULL;
		size_t n = 0, cap = 0;
		for (size_t k = 0; k < ndt; k++) {
			uint32_t t = dtr[k];
			const struct tc_track *tr = &m->tracks[t];
			if (!is_work[t]) {
				continue;
			}
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				if (mark[i]) {
					TC_GROW(sp, cap, n + 1);
					sp[n++] = (struct span){ m->ev.start[i], tc_model_end(m, i) };
				}
			}
		}
		if (n == 0) {
			continue;
		}
		tc_sort(sp, n, sizeof(*sp), cmp_span);
		/* sp[k].hi becomes the least end among spans k..n-1. */
		for (size_t k = n - 1; k-- > 0;) {
			if (sp[k + 1].hi < sp[k].hi) {
				sp[k].hi = sp[k + 1].hi;
			}
		}
		for (size_t k = 0; k < ndt; k++) {
			uint32_t t = dtr[k];
			const struct tc_track *tr = &m->tracks[t];
			if (is_work[t]) {
				continue;
			}
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				if (mark[i] || !tc_selection_has(s, i) || m->ev.dur[i] == 0) {
					continue;
				}
				/* First span starting at or after the event's start. */
				int64_t a = m->ev.start[i];
				size_t lo = 0, hi = n;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (sp[mid].lo < a) {
						lo = mid + 1;
					} else {
						hi = mid;
					}
				}
				if (lo < n && sp[lo].hi <= tc_model_end(m, i)) {
					mark[i] = 1;
				}
			}
		}
		free(sp);
	}
	tc_device_tracks_finish(&dt);
}

void tc_cut_top_ops(const struct tc_model *m, struct tc_selection *s, size_t n,
		const char *rule) {
	uint8_t *is_work = tc_xcalloc(m->n_tracks ? m->n_tracks : 1, 1);
	bool any_work = false;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count && !any_work; i++) {
			any_work = tc_selection_has(s, i);
		}
		is_work[t] = 1;
	}
	if (!any_work) {
		/* Host-only trace: rank ops over every track but derived ones. */
		for (size_t t = 0; t < m->n_tracks; t++) {
			is_work[t] = m->tracks[t].kind != TC_TRACK_DERIVED;
		}
	}

	/* Totals per op, then summed over ops sharing (name, category, kind). */
	struct op_total *tot = tc_xcalloc(m->n_ops ? m->n_ops : 1, sizeof(*tot));
	for (size_t o = 0; o < m->n_ops; o++) {
		tot[o].op = (uint32_t)o;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!is_work[t]) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (tc_selection_has(s, i)) {
				tot[m->ev.op[i]].total += m->ev.dur[i] + 1; /* +1: instants rank */
			}
		}
	}
	sort_model = m;
	tc_sort(tot, m->n_ops, sizeof(*tot), cmp_op_key);
	uint32_t *row_of = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*row_of));
	struct op_total *rows = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*rows));
	size_t n_rows = 0;
	for (size_t k = 0; k < m->n_ops; k++) {
		if (n_rows == 0 || cmp_op_key(&tot[k], &tot[k - 1]) != 0) {
			rows[n_rows] = (struct op_total){ (uint32_t)n_rows, 0 };
			n_rows++;
		}
		rows[n_rows - 1].total += tot[k].total;
		row_of[tot[k].op] = (uint32_t)(n_rows - 1);
	}
	tc_sort(rows, n_rows, sizeof(*rows), cmp_total_desc);
	uint8_t *row_top = tc_xcalloc(n_rows ? n_rows : 1, 1);
	for (size_t k = 0; k < n && k < n_rows && rows[k].total > 0; k++) {
		row_top[rows[k].op] = 1;
	}

	uint8_t *mark = tc_xcalloc(m->ev.n ? m->ev.n : 1, 1);
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!is_work[t]) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (tc_selection_has(s, i) && row_top[row_of[m->ev.op[i]]]) {
				mark[i] = 1;
			}
		}
	}
	/* The launches of kept work (flows into it) explain where it came from. */
	for (size_t f = 0; f < m->n_flows; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->from < m->ev.n && fl->to < m->ev.n && mark[fl->to] &&
				tc_selection_has(s, fl->from)) {
			mark[fl->from] = 1;
		}
	}
	mark_enclosing(m, s, is_work, mark);
	mark_ancestors(m, s, mark);
	tc_selection_note(s, rule, apply_mark(m, s, mark));
	free(mark);
	free(row_top);
	free(rows);
	free(row_of);
	free(tot);
	free(is_work);
}

static int cmp_longest(const void *pa, const void *pb) {
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int64_t da = sort_model->ev.dur[a], db = sort_model->ev.dur[b];
	if (da != db) {
		return da > db ? -1 : 1;
	}
	return (a > b) - (a < b);
}

/* A log-scale bucket of a duration, monotonic in it: exact below 64 ps,
 * then 64 buckets per power of two (the top 6 bits after the leading one). */
static size_t dur_bucket(int64_t d) {
	uint64_t v = d < 0 ? 0 : (uint64_t)d;
	if (v < 64) {
		return (size_t)v;
	}
	unsigned e = 0;
	for (unsigned step = 32; step; step >>= 1) {
		if (v >> (e + step)) {
			e += step;
		}
	}
	return 64 + (size_t)(e - 6) * 64 + (size_t)((v >> (e - 6)) & 63);
}

#define DUR_BUCKETS (64 + 58 * 64)

/* Selected events with bucket in [lo, hi), longest first. */
static uint32_t *longest_first(const struct tc_model *m, const struct tc_selection *s,
		size_t lo, size_t hi, size_t cap, size_t *n_out) {
	uint32_t *order = tc_xmalloc((cap ? cap : 1) * sizeof(*order));
	size_t n = 0;
	for (size_t i = 0; i < m->ev.n; i++) {
		size_t b = dur_bucket(m->ev.dur[i]);
		if (b >= lo && b < hi && tc_selection_has(s, i)) {
			order[n++] = (uint32_t)i;
		}
	}
	sort_model = m;
	tc_sort(order, n, sizeof(*order), cmp_longest);
	*n_out = n;
	return order;
}

void tc_cut_max_events(const struct tc_model *m, struct tc_selection *s, size_t max,
		const char *rule) {
	if (s->n_kept <= max) {
		tc_selection_note(s, rule, 0);
		return;
	}
	/* Only the longest events can be kept: sort just the buckets that hold
	 * the top `max`, and the rest only if skipped events leave room. The two
	 * passes visit events in the same order as one sort of all. */
	size_t *count = tc_xcalloc(DUR_BUCKETS, sizeof(*count));
	for (size_t i = 0; i < m->ev.n; i++) {
		if (tc_selection_has(s, i)) {
			count[dur_bucket(m->ev.dur[i])]++;
		}
	}
	size_t cut = DUR_BUCKETS, above = 0;
	while (cut > 0 && above < max) {
		above += count[--cut];
	}
	free(count);
	uint32_t *parent = parents(m);
	uint8_t *mark = tc_xcalloc(m->ev.n, 1);
	size_t kept = 0;
	int64_t shortest = -1;
	for (int pass = 0; pass < 2 && kept < max; pass++) {
		size_t n;
		uint32_t *order = pass == 0 ? longest_first(m, s, cut, DUR_BUCKETS, above, &n) :
			longest_first(m, s, 0, cut, s->n_kept - above, &n);
		for (size_t k = 0; k < n && kept < max; k++) {
			uint32_t i = order[k];
			if (mark[i]) {
				continue;
			}
			/* The event plus its not-yet-kept ancestors must fit. */
			size_t need = 0;
			for (uint32_t j = i; j != TC_NONE && !mark[j]; j = parent[j]) {
				need += tc_selection_has(s, j);
			}
			if (kept + need > max) {
				continue;
			}
			for (uint32_t j = i; j != TC_NONE && !mark[j]; j = parent[j]) {
				if (tc_selection_has(s, j)) {
					mark[j] = 1;
				}
			}
			kept += need;
			shortest = m->ev.dur[i];
		}
		free(order);
	}
	tc_selection_note(s, rule, apply_mark(m, s, mark))->lo_ps = shortest;
	free(mark);
	free(parent);
}
