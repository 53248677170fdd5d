/*
 * The compact column form of a digest's steps (StepCols), and its
 * expansion back into Step and SumStep messages; an encoding only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "digest/colltable.h"
#include "digest/msg.h"
#include "util/intern.h"
#include "util/num.h"
#include "util/pbwire.h"
#include "util/xalloc.h"

/*
 * What `digest` writes more compactly than the messages the rest of
 * tracectl reads (docs/digest.md): steps and marked steps as columns
 * (StepCols) in place of Step and SumStep messages. Only an encoding:
 * expanding gives back the messages field for field. Version 3's exposed
 * collective time as runs over the collectives' union is read back into
 * bounds.
 */

/* An entry protobuf-c would pack to nothing (it writes no -0.0 either). */
static bool xfer_empty(const Tracectl__Xfer *x) {
	return !x->count && !x->with_bytes && !x->dur_ps && !x->bytes_dur_ps && !x->pageable &&
		!x->pinned && x->bytes == 0 && x->bytes_pageable == 0;
}

/* The columns being written: names through an intern table. */
struct cols {
	Tracectl__StepCols *c;
	struct tc_arena *a;
	struct tc_intern names;
	struct tc_arena scratch;
	uint64_t unit;
	int64_t prev_start, prev_num;
};

static void cols_begin(struct cols *w, struct tc_arena *a, size_t n, bool full) {
	Tracectl__StepCols *c = w->c = tc_arena_alloc(a, sizeof(*c));
	tracectl__step_cols__init(c);
	w->a = a;
	tc_arena_init(&w->scratch, 1 << 14);
	tc_intern_init(&w->names, &w->scratch);
	w->unit = 0;
	w->prev_start = w->prev_num = 0;
	size_t m = n ? n : 1;
	c->name = tc_arena_alloc(a, m * sizeof(*c->name));
	c->num = tc_arena_alloc(a, m * sizeof(*c->num));
	c->start = tc_arena_alloc(a, m * sizeof(*c->start));
	c->dur = tc_arena_alloc(a, m * sizeof(*c->dur));
	c->device = tc_arena_alloc(a, m * sizeof(*c->device));
	if (full) {
		c->marker_start = tc_arena_alloc(a, m * sizeof(*c->marker_start));
		c->marker_dur = tc_arena_alloc(a, m * sizeof(*c->marker_dur));
		c->flags = tc_arena_alloc(a, m * sizeof(*c->flags));
		c->busy = tc_arena_alloc(a, m * sizeof(*c->busy));
	}
}

static int64_t diff(int64_t v, int64_t prev) {
	return (int64_t)((uint64_t)v - (uint64_t)prev);
}

static int64_t timed(struct cols *w, int64_t v) {
	w->unit = tc_gcd(w->unit, tc_magnitude(v));
	return v;
}

/* A step's name, number, start, duration and device. */
static void cols_add(struct cols *w, const char *name, int64_t num, int64_t start,
		int64_t dur, int32_t device) {
	Tracectl__StepCols *c = w->c;
	size_t i = c->n_start;
	char digits[24];
	int nd = snprintf(digits, sizeof(digits), "%" PRId64, num);
	size_t len = strlen(name);
	bool numbered = nd > 0 && len > (size_t)nd &&
		memcmp(name + len - (size_t)nd, digits, (size_t)nd) == 0;
	uint32_t id = tc_intern_n(&w->names, name, numbered ? len - (size_t)nd : len);
	c->name[i] = 2 * id + numbered;
	c->num[i] = diff(num, w->prev_num);
	c->start[i] = timed(w, diff(start, w->prev_start));
	c->dur[i] = timed(w, dur);
	c->device[i] = device;
	w->prev_num = num;
	w->prev_start = start;
	c->n_name = c->n_num = c->n_start = c->n_dur = c->n_device = i + 1;
}

/* Divide the times by their unit, keep one device entry where every step
 * has the same, and take the names. */
static Tracectl__StepCols *cols_end(struct cols *w) {
	Tracectl__StepCols *c = w->c;
	uint64_t u = w->unit && w->unit <= (uint64_t)INT64_MAX ? w->unit : 1;
	c->unit_ps = u;
	int64_t *lists[] = { c->start, c->dur, c->marker_start, c->marker_dur, c->busy, c->cat };
	size_t lens[] = { c->n_start, c->n_dur, c->n_marker_start, c->n_marker_dur, c->n_busy,
		c->n_cat };
	for (size_t l = 0; l < sizeof(lists) / sizeof(*lists); l++) {
		for (size_t i = 0; i < lens[l]; i++) {
			lists[l][i] /= (int64_t)u;
		}
	}
	bool same = true;
	for (size_t i = 1; i < c->n_device && same; i++) {
		same = c->device[i] == c->device[0];
	}
	if (same && c->n_device > 1) {
		c->n_device = 1;
	}
	bool flagged = false;
	for (size_t i = 0; i < c->n_flags && !flagged; i++) {
		flagged = c->flags[i] != 0;
	}
	if (!flagged) {
		c->n_flags = 0;
	}
	/* Each number's difference in its name entry where all fit: a byte
	 * a step for numbered steps. */
	uint64_t nn = 2 * (uint64_t)w->names.n;
	bool fit = c->n_name > 0;
	for (size_t i = 0; i < c->n_num && fit; i++) {
		fit = tc_pb_zigzag_enc(c->num[i]) <= (UINT32_MAX - (nn - 1)) / nn;
	}
	if (fit) {
		for (size_t i = 0; i < c->n_num; i++) {
			c->name[i] = (uint32_t)(tc_pb_zigzag_enc(c->num[i]) * nn + c->name[i]);
		}
		c->n_num = 0;
	}
	c->n_names = w->names.n;
	c->names = tc_arena_alloc(w->a, (c->n_names ? c->n_names : 1) * sizeof(*c->names));
	for (size_t i = 0; i < c->n_names; i++) {
		c->names[i] = tc_arena_strndup(w->a, tc_intern_str(&w->names, (uint32_t)i),
			tc_intern_len(&w->names, (uint32_t)i));
	}
	tc_intern_finish(&w->names);
	tc_arena_finish(&w->scratch);
	return c;
}

/* Steps.steps as columns, where every step has the same number of
 * categories and transfer entries (what `digest` writes). */
static void steps_to_cols(Tracectl__Steps *st, struct tc_arena *a) {
	size_t n = st->n_steps;
	if (!n) {
		return;
	}
	size_t n_cat = st->steps[0]->n_cat_ps, n_xfer = st->steps[0]->n_xfer;
	for (size_t i = 0; i < n; i++) {
		if (st->steps[i]->n_cat_ps != n_cat || st->steps[i]->n_xfer != n_xfer) {
			return;
		}
	}
	struct cols w;
	cols_begin(&w, a, n, true);
	Tracectl__StepCols *c = w.c;
	c->cats_per_step = (uint32_t)n_cat;
	c->cat = tc_arena_alloc(a, (n * n_cat + 1) * sizeof(*c->cat));
	c->xfers_per_step = (uint32_t)n_xfer;
	size_t n_x = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < n_xfer; k++) {
			n_x += !xfer_empty(st->steps[i]->xfer[k]);
		}
	}
	c->xfer_at = tc_arena_alloc(a, (n_x ? n_x : 1) * sizeof(*c->xfer_at));
	c->xfer = tc_arena_alloc(a, (n_x ? n_x : 1) * sizeof(*c->xfer));
	size_t next = 0;
	for (size_t i = 0; i < n; i++) {
		const Tracectl__Step *s = st->steps[i];
		cols_add(&w, s->name, s->num, s->start_ps, s->dur_ps, s->device);
		c->marker_start[i] = timed(&w, diff(s->marker_start_ps, s->start_ps));
		c->marker_dur[i] = timed(&w, s->marker_dur_ps);
		c->flags[i] = (s->warmup ? 1u : 0u) | (s->partial ? 2u : 0u);
		c->busy[i] = timed(&w, s->busy_ps);
		for (size_t k = 0; k < n_cat; k++) {
			c->cat[i * n_cat + k] = timed(&w, s->cat_ps[k]);
		}
		for (size_t k = 0; k < n_xfer; k++) {
			if (!xfer_empty(s->xfer[k])) {
				size_t at = i * n_xfer + k;
				c->xfer_at[c->n_xfer_at] = (uint32_t)(at - next);
				c->xfer[c->n_xfer_at++] = s->xfer[k];
				next = at + 1;
			}
		}
	}
	c->n_marker_start = c->n_marker_dur = c->n_flags = c->n_busy = n;
	c->n_cat = n * n_cat;
	c->n_xfer = c->n_xfer_at;
	st->cols = cols_end(&w);
	st->n_steps = 0;
}

static void sum_steps_to_cols(Tracectl__Result *o, struct tc_arena *a) {
	size_t n = o->n_sum_steps;
	if (!n) {
		return;
	}
	struct cols w;
	cols_begin(&w, a, n, false);
	for (size_t i = 0; i < n; i++) {
		const Tracectl__SumStep *s = o->sum_steps[i];
		cols_add(&w, s->name, s->num, s->start_ps, s->dur_ps, s->device);
	}
	o->sum_cols = cols_end(&w);
	o->n_sum_steps = 0;
}

/* ---- exposed collective time over the collectives' union ---- */

/* The pieces of the union of the table's occurrences (tc_coll_table_union),
 * times from the trace's first event, all multiples of unit. False when
 * the table is malformed. */
struct pieces {
	int64_t *lo, *hi;
	size_t n;
	uint64_t unit;
};

static bool pieces_of(const Tracectl__CollTable *msg, struct pieces *p) {
	struct tc_coll_table t;
	tc_coll_table_init(&t);
	bool ok = msg && tc_coll_table_unpack(msg, 0, &t);
	if (!ok) {
		t.n = 0;
	}
	p->n = tc_coll_table_union(&t, &p->lo, &p->hi);
	p->unit = ok && msg->unit_ps ? msg->unit_ps : 1;
	tc_coll_table_finish(&t);
	return ok;
}

static void pieces_finish(struct pieces *p) {
	free(p->lo);
	free(p->hi);
}

/* Each exposed time's step_ps in their unit. Where it has them, the
 * intervals are left out: a job reads only step_ps (digests of version 3
 * kept runs over the collectives as well). */
static void exposed_compact(Tracectl__Rank *r) {
	for (size_t i = 0; i < r->n_exposed; i++) {
		Tracectl__Exposed *e = r->exposed[i];
		uint64_t g = 0;
		for (size_t k = 0; k < e->n_step_ps; k++) {
			g = tc_gcd(g, tc_magnitude(e->step_ps[k]));
		}
		if (g > 1 && g <= (uint64_t)INT64_MAX && !e->step_unit_ps) {
			for (size_t k = 0; k < e->n_step_ps; k++) {
				e->step_ps[k] /= (int64_t)g;
			}
			e->step_unit_ps = g;
		}
		if (e->n_step_ps) {
			e->n_bounds = 0;
			e->n_runs = 0;
		}
	}
}

void tc_digest_rank_compact(Tracectl__Rank *r, struct tc_arena *a) {
	if (r->steps && !r->steps->cols) {
		steps_to_cols(r->steps, a);
	}
	if (r->result && !r->result->sum_cols) {
		sum_steps_to_cols(r->result, a);
	}
	exposed_compact(r);
}

/* ---- reading ---- */

#define BAD(what) tc_error_set(err, TC_EXIT_INPUT, \
	"malformed digest: rank '%s': %s", r->name, what)

/* Step i's name, number, start, duration and device from the columns. */
struct step_head {
	const char *name;
	int64_t num, start, dur;
	int32_t device;
};

static bool cols_ok(const Tracectl__Rank *r, const Tracectl__StepCols *c,
		struct tc_error *err) {
	size_t n = c->n_start;
	if (c->n_name != n || (c->n_num != n && c->n_num) || c->n_dur != n ||
			(c->n_device != n && c->n_device != 1 && n)) {
		return BAD("steps' columns of different lengths");
	}
	if (n && (!c->n_names || c->n_names > UINT32_MAX / 2)) {
		return BAD("a step's name out of range");
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t code = c->n_num ? c->name[i] : c->name[i] % (2 * (uint32_t)c->n_names);
		if (code / 2 >= c->n_names) {
			return BAD("a step's name out of range");
		}
	}
	return true;
}

/* A Step's or SumStep's fields that the columns share. */
#define SET_HEAD(s, h) ((s)->num = (h).num, (s)->name = (char *)(h).name, \
	(s)->start_ps = (h).start, (s)->dur_ps = (h).dur, (s)->device = (h).device)

static void cols_head(struct tc_arena *a, const Tracectl__StepCols *c, size_t i,
		struct step_head *h) {
	uint64_t u = c->unit_ps ? c->unit_ps : 1;
	/* Without a num column each name entry carries the difference. */
	uint32_t nn = 2 * (uint32_t)c->n_names, code = c->n_num ? c->name[i] : c->name[i] % nn;
	int64_t d = c->n_num ? c->num[i] : tc_pb_zigzag(c->name[i] / nn);
	h->num = (int64_t)((uint64_t)h->num + (uint64_t)d);
	h->start = (int64_t)((uint64_t)h->start + (uint64_t)c->start[i] * u);
	h->dur = (int64_t)((uint64_t)c->dur[i] * u);
	h->device = c->device[c->n_device == 1 ? 0 : i];
	const char *base = c->names[code / 2];
	h->name = code & 1 ? tc_arena_strfmt(a, "%s%" PRId64, base, h->num) : base;
}

static bool steps_from_cols(const Tracectl__Rank *r, Tracectl__Steps *st,
		struct tc_arena *a, struct tc_error *err) {
	const Tracectl__StepCols *c = st->cols;
	if (!cols_ok(r, c, err)) {
		return false;
	}
	size_t n = c->n_start;
	if (c->n_marker_start != n || c->n_marker_dur != n || c->n_busy != n ||
			(c->n_flags != n && c->n_flags) || c->cats_per_step > 64 ||
			c->n_cat != n * c->cats_per_step || c->xfers_per_step > 64 || c->n_xfer_at != c->n_xfer) {
		return BAD("steps' columns of different lengths");
	}
	uint64_t u = c->unit_ps ? c->unit_ps : 1;
	/* Entries no step names share one empty Xfer: readers only read. */
	Tracectl__Xfer *empty = tc_arena_alloc(a, sizeof(*empty));
	tracectl__xfer__init(empty);
	Tracectl__Step **v = tc_arena_alloc(a, (n ? n : 1) * sizeof(*v));
	Tracectl__Step *cells = tc_arena_alloc(a, (n ? n : 1) * sizeof(*cells));
	struct step_head h = { 0 };
	size_t x = 0, next = 0;
	for (size_t i = 0; i < n; i++) {
		Tracectl__Step *s = v[i] = &cells[i];
		tracectl__step__init(s);
		cols_head(a, c, i, &h);
		SET_HEAD(s, h);
		s->marker_start_ps = (int64_t)((uint64_t)h.start + (uint64_t)c->marker_start[i] * u);
		s->marker_dur_ps = (int64_t)((uint64_t)c->marker_dur[i] * u);
		uint32_t f = c->n_flags ? c->flags[i] : 0;
		s->warmup = (f & 1u) != 0;
		s->partial = (f & 2u) != 0;
		s->busy_ps = (int64_t)((uint64_t)c->busy[i] * u);
		s->n_cat_ps = c->cats_per_step;
		s->cat_ps = tc_arena_alloc(a, (c->cats_per_step ? c->cats_per_step : 1) * sizeof(*s->cat_ps));
		for (size_t k = 0; k < c->cats_per_step; k++) {
			s->cat_ps[k] = (int64_t)((uint64_t)c->cat[i * c->cats_per_step + k] * u);
		}
		s->n_xfer = c->xfers_per_step;
		s->xfer = tc_arena_alloc(a, (c->xfers_per_step ? c->xfers_per_step : 1) * sizeof(*s->xfer));
		for (size_t k = 0; k < c->xfers_per_step; k++) {
			size_t at = i * c->xfers_per_step + k;
			if (x < c->n_xfer_at && next + c->xfer_at[x] == at) {
				s->xfer[k] = c->xfer[x++];
				next = at + 1;
			} else {
				s->xfer[k] = empty;
			}
		}
	}
	if (x != c->n_xfer_at) {
		return BAD("a step's transfers out of range");
	}
	st->n_steps = n;
	st->steps = v;
	return true;
}

static bool sum_steps_from_cols(const Tracectl__Rank *r, Tracectl__Result *o,
		struct tc_arena *a, struct tc_error *err) {
	const Tracectl__StepCols *c = o->sum_cols;
	if (!cols_ok(r, c, err)) {
		return false;
	}
	size_t n = c->n_start;
	Tracectl__SumStep **v = tc_arena_alloc(a, (n ? n : 1) * sizeof(*v));
	Tracectl__SumStep *cells = tc_arena_alloc(a, (n ? n : 1) * sizeof(*cells));
	struct step_head h = { 0 };
	for (size_t i = 0; i < n; i++) {
		Tracectl__SumStep *s = v[i] = &cells[i];
		tracectl__sum_step__init(s);
		cols_head(a, c, i, &h);
		SET_HEAD(s, h);
	}
	o->n_sum_steps = n;
	o->sum_steps = v;
	return true;
}

/* e's runs as bounds (unit 1 ps) over the pieces. */
static bool exposed_from_runs(const Tracectl__Rank *r, Tracectl__Exposed *e,
		const struct pieces *p, struct tc_arena *a, struct tc_error *err) {
	uint64_t u = e->unit_ps ? e->unit_ps : 1;
	size_t cap = 16, n = 0;
	int64_t *b = tc_xmalloc(cap * sizeof(*b));
	uint64_t prev = 0;
	size_t q = 0;
	bool ok = true;
#define PUT(lo, hi) do { \
		TC_GROW(b, cap, n + 2); \
		b[n++] = (int64_t)((uint64_t)(lo) - prev); \
		b[n++] = (int64_t)((uint64_t)(hi) - (uint64_t)(lo)); \
		prev = (uint64_t)(hi); \
	} while (0)
	for (size_t i = 0; i < e->n_runs && ok; i++) {
		uint64_t count = e->runs[i] >> 2;
		unsigned code = (unsigned)(e->runs[i] & 3);
		if (code == 0 || code == 1) {
			ok = count <= p->n - q;
			for (uint64_t c = 0; ok && c < count; c++, q++) {
				if (code == 1) {
					PUT(p->lo[q], p->hi[q]);
				}
			}
		} else if (code == 2) {
			ok = q < p->n && count <= (e->n_runs - i - 1) / 2;
			uint64_t at = ok ? (uint64_t)p->lo[q] : 0;
			for (uint64_t c = 0; ok && c < count; c++) {
				uint64_t off = e->runs[++i], len = e->runs[++i];
				uint64_t room = (uint64_t)p->hi[q] - at;
				ok = off <= room / u && len <= (room - off * u) / u;
				if (ok) {
					uint64_t lo = at + off * u;
					at = lo + len * u;
					PUT(lo, at);
				}
			}
			q++;
		} else {
			ok = false;
		}
	}
#undef PUT
	if (ok) {
		e->n_bounds = n;
		e->bounds = tc_arena_alloc(a, (n ? n : 1) * sizeof(*e->bounds));
		memcpy(e->bounds, b, n * sizeof(*b));
		e->unit_ps = 1;
		e->n_runs = 0;
	}
	free(b);
	return ok || BAD("exposed collective time out of range");
}

static bool exposed_from_runs_all(Tracectl__Rank *r, struct tc_arena *a,
		struct tc_error *err) {
	struct pieces p;
	bool have = false, ok = true;
	for (size_t i = 0; i < r->n_exposed && ok; i++) {
		Tracectl__Exposed *e = r->exposed[i];
		if (!e->n_runs) {
			continue;
		}
		if (e->n_bounds) {
			ok = BAD("exposed collective time both as bounds and as runs");
			break;
		}
		if (!have) {
			have = true;
			if (!pieces_of(r->collectives, &p)) {
				ok = BAD("exposed collective time without a collective table");
				break;
			}
		}
		ok = exposed_from_runs(r, e, &p, a, err);
	}
	if (have) {
		pieces_finish(&p);
	}
	return ok;
}

bool tc_digest_rank_expand(Tracectl__Rank *r, struct tc_arena *a,
		struct tc_error *err) {
	if (r->steps && r->steps->cols) {
		if (r->steps->n_steps) {
			return BAD("steps both as messages and as columns");
		}
		if (!steps_from_cols(r, r->steps, a, err)) {
			return false;
		}
		r->steps->cols = NULL;
	}
	if (r->result && r->result->sum_cols) {
		if (r->result->n_sum_steps) {
			return BAD("marked steps both as messages and as columns");
		}
		if (!sum_steps_from_cols(r, r->result, a, err)) {
			return false;
		}
		r->result->sum_cols = NULL;
	}
	return exposed_from_runs_all(r, a, err);
}
