/*
 * The summary pass behind `summarize`: span, per-device busy time, op
 * statistics by total time and explicit steps.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "analysis/markers.h"
#include "analysis/passes.h"
#include "analysis/summary.h"
#include "util/num.h"
#include "util/select.h"
#include "util/xalloc.h"

struct op_key_table {
	uint32_t *slots; /* row + 1 */
	size_t nslots;
};

static uint32_t key_hash(uint32_t name, uint32_t cat, uint8_t kind) {
	uint64_t k = (uint64_t)name * 0x9E3779B97F4A7C15ull ^
		(uint64_t)cat * 0xC2B2AE3D27D4EB4Full ^ kind;
	return (uint32_t)(k ^ (k >> 31));
}

int tc_op_summary_cmp(const void *pa, const void *pb) {
	const struct tc_op_summary *a = pa, *b = pb;
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	if (a->count != b->count) {
		return a->count > b->count ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}


/* Durations gathered at most this many at a time (32 MiB): a pass over the
 * events per batch of rows keeps the memory flat on huge traces. */
#define PCT_BATCH ((size_t)1 << 22)

/* p50/p99 of each row: bucket the durations of a batch of rows, then
 * select in each bucket. A row larger than a batch is a batch alone. */
static void op_percentiles(const struct tc_model *m,
		bool (*track_ok)(const struct tc_model *m, uint32_t track, void *ctx), void *ctx,
		struct tc_op_summary *rows, size_t w, const uint32_t *row_of,
		const uint32_t *new_index) {
	size_t total = 0;
	for (size_t r = 0; r < w; r++) {
		total += rows[r].count;
	}
	size_t cap = total < PCT_BATCH ? total : PCT_BATCH;
	int64_t *durs = NULL;
	size_t dcap = 0;
	size_t *startp = tc_xmalloc((w + 1) * sizeof(*startp));
	for (size_t r0 = 0, r1; r0 < w; r0 = r1) {
		size_t n = rows[r0].count;
		for (r1 = r0 + 1; r1 < w && n + rows[r1].count <= cap; r1++) {
			n += rows[r1].count;
		}
		TC_GROW(durs, dcap, n ? n : 1);
		startp[r0] = 0;
		for (size_t r = r0; r < r1; r++) {
			startp[r + 1] = startp[r] + rows[r].count;
		}
		/* startp[r] becomes the fill position; each ends at its row's end. */
		for (size_t t = 0; t < m->n_tracks; t++) {
			const struct tc_track *tr = &m->tracks[t];
			if (!tr->count || !track_ok(m, (uint32_t)t, ctx)) {
				continue;
			}
			for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
				uint32_t r = new_index[row_of[m->ev.op[i]]];
				if (r >= r0 && r < r1) {
					durs[startp[r]++] = m->ev.dur[i];
				}
			}
		}
		for (size_t r = r0; r < r1; r++) {
			size_t c = rows[r].count;
			rows[r].p50_ps = tc_percentile_i64(durs + startp[r] - c, c, 50);
			rows[r].p99_ps = tc_percentile_i64(durs + startp[r] - c, c, 99);
		}
	}
	free(startp);
	free(durs);
}

/* The per-event sums in a row of their own, 40 bytes: the rows' other
 * fields would spread them over twice the cache. */
struct op_acc {
	struct tc_op_acc a;
	int64_t self;
};

/* tc_op_acc_event, and the self time. */
static inline void acc_event(struct op_acc *r, int64_t d) {
	tc_op_acc_event(&r->a, d);
	r->self = tc_sat_add(r->self, d);
}

/* An event's FLOPs and bytes (< 0: unknown) into its row. */
static inline void row_costs(struct tc_op_summary *row, double f, double b) {
	if (f >= 0) {
		row->flops = (row->flops < 0 ? 0 : row->flops) + (double)f;
	}
	if (b >= 0) {
		row->bytes = (row->bytes < 0 ? 0 : row->bytes) + (double)b;
	}
}

/* Rows by (name, category, kind): the same op on several devices or
 * planes is one row. row_of[op] maps an op to its row; rows are made in
 * the ops' order. */
struct op_rows {
	uint32_t *row_of;
	struct tc_op_summary *rows;
	size_t n;
};

static void op_rows_make(const struct tc_model *m, struct op_rows *or) {
	uint32_t *row_of = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*row_of));
	struct tc_op_summary *rows = NULL;
	size_t n = 0, cap = 0;
	struct op_key_table kt = { .nslots = 64 };
	while (kt.nslots < m->n_ops * 2) {
		kt.nslots *= 2;
	}
	kt.slots = tc_xcalloc(kt.nslots, sizeof(*kt.slots));
	for (size_t o = 0; o < m->n_ops; o++) {
		const struct tc_op *op = &m->ops[o];
		size_t i = key_hash(op->name, op->category, op->kind) & (kt.nslots - 1);
		while (kt.slots[i]) {
			const struct tc_op_summary *r = &rows[kt.slots[i] - 1];
			if (r->name == op->name && r->category == op->category && r->kind == op->kind) {
				break;
			}
			i = (i + 1) & (kt.nslots - 1);
		}
		if (!kt.slots[i]) {
			TC_GROW(rows, cap, n + 1);
			rows[n] = (struct tc_op_summary){
				.name = op->name, .category = op->category, .kind = op->kind,
				.device = TC_NONE, .min_ps = INT64_MAX, .p50_ps = -1, .p99_ps = -1,
				.flops = -1, .bytes = -1,
			};
			kt.slots[i] = (uint32_t)++n;
		}
		row_of[o] = kt.slots[i] - 1;
	}
	free(kt.slots);
	or->row_of = row_of;
	or->rows = rows;
	or->n = n;
}

/* The sums of lines into rows (acc, and the costs into rows), line by
 * line; the stack is the walk's scratch. */
struct op_walk {
	const uint32_t *row_of;
	struct tc_op_summary *rows;
	struct op_acc *acc;
	const struct tc_costs *costs; /* every event's cost key (borrowed) */
	uint64_t *n_ev;          /* per cost key: its events on the line, 0 between */
	uint32_t *touched;       /* the keys with n_ev, in first-seen order */
	bool any_cost;           /* some key has a cost */
	int64_t *stack_end;
	uint32_t *stack_row;
	size_t scap, scap2;
	/* Per track: its slices' union, as track_busy sums it, where the
	 * walk took it on the way (NULL: not wanted; -1: not taken). */
	int64_t *busy;
};

static void op_walk_init(struct op_walk *w, const struct tc_model *m, const struct op_rows *or,
		struct tc_op_summary *rows) {
	memset(w, 0, sizeof(*w));
	w->row_of = or->row_of;
	w->rows = rows;
	w->acc = tc_xmalloc((or->n ? or->n : 1) * sizeof(*w->acc));
	for (size_t r = 0; r < or->n; r++) {
		w->acc[r] = (struct op_acc){ .a.min = INT64_MAX };
	}
	w->costs = tc_model_costs(m);
	w->n_ev = tc_xcalloc(w->costs->n ? w->costs->n : 1, sizeof(*w->n_ev));
	w->touched = tc_xmalloc((w->costs->n ? w->costs->n : 1) * sizeof(*w->touched));
	for (size_t k = 0; k < w->costs->n; k++) {
		w->any_cost |= w->costs->cost[k].flops >= 0 || w->costs->cost[k].bytes >= 0;
	}
}

static void op_walk_finish(struct op_walk *w) {
	free(w->acc);
	free(w->n_ev);
	free(w->touched);
	free(w->stack_end);
	free(w->stack_row);
}

/* Whether adding count x cost for the cost keys touched[0..nt) gives each
 * row what adding event by event does: every row's sum, before and after,
 * an integer a double holds exactly (bounded by the largest row's and
 * all the keys' together), so no addition rounds. */
static bool flat_costs_exact(const struct op_walk *w, size_t nt) {
	unsigned __int128 fl = 0, by = 0;
	double rf = 0, rb = 0;
	for (size_t j = 0; j < nt; j++) {
		uint32_t k = w->touched[j];
		const struct tc_op_cost *c = &w->costs->cost[k];
		const struct tc_op_summary *row = &w->rows[w->row_of[w->costs->op[k]]];
		if (c->flops < 0 && c->bytes < 0) {
			continue;
		}
		fl += c->flops > 0 ? (unsigned __int128)w->n_ev[k] * (uint64_t)c->flops : 0;
		by += c->bytes > 0 ? (unsigned __int128)w->n_ev[k] * (uint64_t)c->bytes : 0;
		if (row->flops > (double)TC_DOUBLE_EXACT_MAX || row->bytes > (double)TC_DOUBLE_EXACT_MAX ||
				(row->flops > 0 && row->flops != (double)(uint64_t)row->flops) ||
				(row->bytes > 0 && row->bytes != (double)(uint64_t)row->bytes)) {
			return false;
		}
		rf = row->flops > rf ? row->flops : rf;
		rb = row->bytes > rb ? row->bytes : rb;
	}
	return fl <= TC_DOUBLE_EXACT_MAX - (uint64_t)rf && by <= TC_DOUBLE_EXACT_MAX - (uint64_t)rb;
}

/* A flat line's costs (cost keys touched[0..nt), n_ev events each) into
 * their rows: per key where that is exact, else event by event in order. */
static void flat_costs(struct op_walk *w, const struct tc_model *m, size_t t, size_t nt) {
	const struct tc_costs *cs = w->costs;
	if (flat_costs_exact(w, nt)) {
		for (size_t j = 0; j < nt; j++) {
			uint32_t k = w->touched[j];
			const struct tc_op_cost *c = &cs->cost[k];
			struct tc_op_summary *row = &w->rows[w->row_of[cs->op[k]]];
			if (c->flops < 0 && c->bytes < 0) {
				continue;
			}
			/* n_ev x a cost: at most 2^53 (flat_costs_exact) */
			row_costs(row, c->flops >= 0 ? c->flops * (int64_t)w->n_ev[k] : -1,
				c->bytes >= 0 ? c->bytes * (int64_t)w->n_ev[k] : -1);
		}
	} else {
		const struct tc_track *tr = &m->tracks[t];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			const struct tc_op_cost *c = &cs->cost[cs->key[i]];
			row_costs(&w->rows[w->row_of[m->ev.op[i]]], c->flops, c->bytes);
		}
	}
	for (size_t j = 0; j < nt; j++) {
		w->n_ev[w->touched[j]] = 0;
	}
}

/* A track's busy time as its slices come in start order: the union's
 * length (touching slices join), each run added as it closes. */
struct busy_sum {
	int64_t busy, lo, hi;
	bool open;
};

static inline void busy_add(struct busy_sum *b, int64_t s, int64_t e) {
	if (b->open && s <= b->hi) {
		b->hi = e > b->hi ? e : b->hi;
		return;
	}
	b->busy = b->open ? tc_sat_add(b->busy, b->hi - b->lo) : b->busy;
	b->lo = s;
	b->hi = e;
	b->open = true;
}

static inline int64_t busy_total(const struct busy_sum *b) {
	return b->open ? tc_sat_add(b->busy, b->hi - b->lo) : b->busy;
}

/* A nested track without per-event costs (Perfetto's host lines): an
 * event's parent is the last event pushed at the level above its depth,
 * which finalize set by the same stack (pop ends <= start, push d > 0),
 * so one slot per level replaces the pops and their mispredicts. Depths
 * stop at UINT16_MAX: such a track takes the stack walk. */
static void op_walk_nested(struct op_walk *w, const struct tc_model *m, size_t t) {
	const struct tc_track *tr = &m->tracks[t];
	const int64_t *start = m->ev.start, *durs = m->ev.dur;
	const uint32_t *evop = m->ev.op, *key = w->costs->key;
	const struct tc_op_cost *cost = w->costs->cost;
	const uint16_t *depth = m->ev.depth;
	const uint32_t *row_of = w->row_of;
	struct op_acc *acc = w->acc;
	struct tc_op_summary *rows = w->rows;
	size_t levels = (size_t)tr->max_depth + 1;
	TC_GROW(w->stack_end, w->scap, levels);
	TC_GROW(w->stack_row, w->scap2, levels);
	int64_t *lend = w->stack_end;
	uint32_t *lrow = w->stack_row;
	const bool any_cost = w->any_cost;
	/* track_busy's union, while the columns are read anyway. */
	struct busy_sum busy = { 0 };
	for (size_t i = tr->first, end = i + tr->count; i < end; i++) {
		int64_t s = start[i], d = durs[i], e = s + d;
		uint32_t row = row_of[evop[i]];
		acc_event(&acc[row], d);
		/* Event by event, in order, as the stack walk adds them. */
		if (any_cost) {
			row_costs(&rows[row], cost[key[i]].flops, cost[key[i]].bytes);
		}
		/* Self time: a child's time (clipped to its parent) leaves the
		 * parent's row. */
		size_t dep = depth[i];
		if (dep > 0) {
			int64_t pe = lend[dep - 1];
			struct op_acc *pr = &acc[lrow[dep - 1]];
			pr->self = tc_sat_add(pr->self, -((e < pe ? e : pe) - s));
		}
		if (d > 0) {
			lend[dep] = e;
			lrow[dep] = row;
			busy_add(&busy, s, e);
		}
	}
	if (w->busy) {
		w->busy[t] = busy_total(&busy);
	}
}

/* Track t's events into w's rows. Costs are summed event by event, in the
 * lines' order: doubles. */
static void op_walk_track(struct op_walk *w, const struct tc_model *m, size_t t) {
	const struct tc_track *tr = &m->tracks[t];
	const int64_t *start = m->ev.start, *durs = m->ev.dur;
	const uint32_t *evop = m->ev.op, *key = w->costs->key;
	const struct tc_op_cost *cost = w->costs->cost;
	const uint32_t *row_of = w->row_of;
	struct op_acc *acc = w->acc;
	struct tc_op_summary *rows = w->rows;
	size_t top = 0;
	/* No event on a flat line encloses another: self time is all. */
	bool flat = tr->max_depth == 0;
	/* Costs counted per key and added per key once (the loop below
	 * without its stack) pay where keys repeat: most device lines, and
	 * half the op table's time there. A line with few events a key (many
	 * ops, many lines) adds them per event. */
	if (flat && tc_costs_per_key(w->costs, tr->count)) {
		size_t nt = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint32_t k = key[i];
			acc_event(&acc[row_of[evop[i]]], durs[i]);
			if (!w->n_ev[k]++) {
				w->touched[nt++] = k;
			}
		}
		flat_costs(w, m, t, nt);
		return;
	}
	if (!flat && !m->event_costs && m->ev.depth && tr->max_depth < UINT16_MAX) {
		op_walk_nested(w, m, t);
		return;
	}
	for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
		int64_t s = start[i], d = durs[i], e = s + d;
		uint32_t row = row_of[evop[i]];
		acc_event(&acc[row], d);
		row_costs(&rows[row], cost[key[i]].flops, cost[key[i]].bytes);
		if (flat) {
			continue;
		}
		/* Self time: a child's time (clipped to its parent) leaves the
		 * parent's row. */
		while (top > 0 && w->stack_end[top - 1] <= s) {
			top--;
		}
		if (top > 0) {
			int64_t pe = w->stack_end[top - 1];
			struct op_acc *pr = &acc[w->stack_row[top - 1]];
			pr->self = tc_sat_add(pr->self, -((e < pe ? e : pe) - s));
		}
		if (d > 0) {
			TC_GROW(w->stack_end, w->scap, top + 1);
			TC_GROW(w->stack_row, w->scap2, top + 1);
			w->stack_end[top] = e;
			w->stack_row[top] = row;
			top++;
		}
	}
}

/* Row r's sums from the walk. */
static void op_walk_row(const struct op_walk *w, size_t r, struct tc_op_summary *out) {
	out->count = w->acc[r].a.count;
	out->total_ps = w->acc[r].a.total;
	out->self_ps = w->acc[r].self;
	out->min_ps = w->acc[r].a.min;
	out->max_ps = w->acc[r].a.max;
}

/* The costs of pre's lines into w's rows: each cost key's events there
 * (its op's count where the keys are the ops, else counted from the key
 * column) times its cost, a double product (past 2^53 it rounds, but
 * stays past 2^53). Added in another order than the walk's, so kept only
 * where every sum stays exact (rows_exact). */
static void pre_costs(struct op_walk *w, const struct tc_model *m, const struct tc_op_sums *pre) {
	const struct tc_costs *cs = w->costs;
	size_t nt = 0;
	if (cs->key == m->ev.op) {
		for (size_t o = 0; o < m->n_ops; o++) {
			if (pre->op[o].count) {
				w->n_ev[o] = pre->op[o].count;
				w->touched[nt++] = (uint32_t)o;
			}
		}
	} else {
		for (size_t t = 0; t < m->n_tracks; t++) {
			const struct tc_track *tr = &m->tracks[t];
			for (size_t i = tr->first; pre->done[t] && i < (size_t)tr->first + tr->count; i++) {
				if (!w->n_ev[cs->key[i]]++) {
					w->touched[nt++] = cs->key[i];
				}
			}
		}
	}
	for (size_t j = 0; j < nt; j++) {
		uint32_t k = w->touched[j];
		const struct tc_op_cost *c = &cs->cost[k];
		double n = (double)w->n_ev[k];
		row_costs(&w->rows[w->row_of[cs->op[k]]],
			c->flops >= 0 ? (double)c->flops * n : -1, c->bytes >= 0 ? (double)c->bytes * n : -1);
		w->n_ev[k] = 0;
	}
}

/* Whether every row's costs are under 2^53: then every partial sum, in
 * any order, was an integer a double holds, so the sums are those of the
 * walk event by event. */
static bool rows_exact(const struct tc_op_summary *rows, size_t n) {
	for (size_t r = 0; r < n; r++) {
		if (rows[r].flops >= (double)TC_DOUBLE_EXACT_MAX ||
				rows[r].bytes >= (double)TC_DOUBLE_EXACT_MAX) {
			return false;
		}
	}
	return true;
}

/* tc_analyze_ops, with the sums of pre (NULL: none) taken for the lines
 * it has done (pre_costs adds their costs); busy (NULL: none): per track,
 * set as struct op_walk says. */
static struct tc_op_summary *analyze_ops(const struct tc_model *m,
		bool (*track_ok)(const struct tc_model *m, uint32_t track, void *ctx), void *ctx,
		bool percentiles, const struct tc_op_sums *pre, int64_t *busy, size_t *n_out) {
	struct op_rows or;
	op_rows_make(m, &or);
	uint32_t *row_of = or.row_of;
	struct tc_op_summary *rows = or.rows;
	size_t n = or.n;
	struct op_walk w;
	op_walk_init(&w, m, &or, rows);
	w.busy = busy;
	for (size_t o = 0; pre && o < m->n_ops; o++) {
		struct op_acc *r = &w.acc[row_of[o]];
		tc_op_acc_merge(&r->a, &pre->op[o]);
		r->self = tc_sat_add(r->self, pre->op[o].total);
	}
	bool costs_pre = pre && w.any_cost;
	if (costs_pre) {
		pre_costs(&w, m, pre);
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tr->count || (pre && pre->done[t]) || !track_ok(m, (uint32_t)t, ctx)) {
			continue;
		}
		op_walk_track(&w, m, t);
	}
	for (size_t r = 0; r < n; r++) {
		op_walk_row(&w, r, &rows[r]);
	}
	op_walk_finish(&w);
	if (costs_pre && !rows_exact(rows, n)) {
		/* Sums past 2^53 depend on their order: the walk's, then. */
		free(rows);
		free(row_of);
		return analyze_ops(m, track_ok, ctx, percentiles, NULL, busy, n_out);
	}

	/* Drop ops with no events in scope. */
	size_t k = 0;
	uint32_t *new_index = tc_xmalloc((n ? n : 1) * sizeof(*new_index));
	for (size_t i = 0; i < n; i++) {
		if (rows[i].count) {
			new_index[i] = (uint32_t)k;
			rows[k++] = rows[i];
		} else {
			new_index[i] = TC_NONE;
		}
	}
	if (percentiles && k) {
		op_percentiles(m, track_ok, ctx, rows, k, row_of, new_index);
	}
	free(new_index);
	free(row_of);
	tc_sort(rows, k, sizeof(*rows), tc_op_summary_cmp);
	*n_out = k;
	return rows;
}

static int cmp_u32(const void *pa, const void *pb) {
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

struct tc_op_row *tc_device_op_rows(const struct tc_model *m, uint32_t only, size_t *n_out) {
	struct op_rows or;
	op_rows_make(m, &or);
	/* The rows' pristine copies stay in or.rows; a device's sums go to
	 * work, and only the rows its events touch are reset and read. */
	struct tc_op_summary *work = tc_xmalloc((or.n ? or.n : 1) * sizeof(*work));
	struct op_walk w;
	op_walk_init(&w, m, &or, work);
	uint8_t *seen = tc_xcalloc(or.n ? or.n : 1, 1);
	uint32_t *touched = tc_xmalloc((or.n ? or.n : 1) * sizeof(*touched));
	struct tc_op_summary *ds = tc_xmalloc((or.n ? or.n : 1) * sizeof(*ds));
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	struct tc_op_row *out = NULL;
	size_t n = 0, cap = 0;
	for (size_t d = 0; d < m->n_devices; d++) {
		if (only != TC_NONE && d != only) {
			continue;
		}
		size_t nt, nn = 0;
		const uint32_t *all = tc_device_tracks_of(&dt, m, d, &nt);
		for (size_t i = 0; i < nt; i++) {
			const struct tc_track *tr = &m->tracks[all[i]];
			if (!tr->count || !tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
				continue;
			}
			for (size_t e = tr->first; e < (size_t)tr->first + tr->count; e++) {
				uint32_t r = or.row_of[m->ev.op[e]];
				if (!seen[r]) {
					seen[r] = 1;
					touched[nn++] = r;
					work[r] = or.rows[r];
					w.acc[r] = (struct op_acc){ .a.min = INT64_MAX };
				}
			}
		}
		if (!nn) {
			continue;
		}
		for (size_t i = 0; i < nt; i++) {
			const struct tc_track *tr = &m->tracks[all[i]];
			if (tr->count && tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
				op_walk_track(&w, m, all[i]);
			}
		}
		/* In the rows' order, as tc_analyze_ops has them before its sort:
		 * the sort then sees the same list and sums come out the same. */
		tc_sort(touched, nn, sizeof(*touched), cmp_u32);
		for (size_t i = 0; i < nn; i++) {
			ds[i] = work[touched[i]];
			op_walk_row(&w, touched[i], &ds[i]);
			seen[touched[i]] = 0;
		}
		tc_sort(ds, nn, sizeof(*ds), tc_op_summary_cmp);
		TC_GROW(out, cap, n + 1);
		out[n] = tc_op_row_sum(ds, nn);
		out[n].name = m->devices[d].name;
		out[n].device = (uint32_t)d;
		n++;
	}
	tc_device_tracks_finish(&dt);
	free(ds);
	free(touched);
	free(seen);
	op_walk_finish(&w);
	free(work);
	free(or.rows);
	free(or.row_of);
	*n_out = n;
	return out;
}

struct tc_op_summary *tc_analyze_ops(const struct tc_model *m,
		bool (*track_ok)(const struct tc_model *m, uint32_t track, void *ctx), void *ctx,
		bool percentiles, size_t *n_out) {
	return analyze_ops(m, track_ok, ctx, percentiles, NULL, NULL, n_out);
}

static bool device_work_track(const struct tc_model *m, uint32_t t, void *ctx) {
	return tc_track_kind_is_device_work((enum tc_track_kind)m->tracks[t].kind);
}

static bool any_track(const struct tc_model *m, uint32_t t, void *ctx) {
	return m->tracks[t].kind != TC_TRACK_DERIVED;
}

/* collect_steps' accumulator for tc_markers_outer. */
struct marked {
	struct tc_summary *s;
	const struct tc_model *m;
	uint32_t device;
	bool list;
	size_t cap;
};

static void marked_step(void *ctx, uint32_t ev, int64_t start_ps, int64_t dur_ps, int64_t num) {
	struct marked *k = ctx;
	struct tc_summary *s = k->s;
	s->steps_sum_ps += dur_ps;
	s->steps_min_ps = dur_ps < s->steps_min_ps ? dur_ps : s->steps_min_ps;
	s->steps_max_ps = dur_ps > s->steps_max_ps ? dur_ps : s->steps_max_ps;
	if (k->list) {
		TC_GROW(s->steps, k->cap, s->n_steps + 1);
		s->steps[s->n_steps] = (struct tc_step_summary){
			.num = num == INT64_MIN ? (int64_t)s->n_steps : num,
			.name = k->m->ops[k->m->ev.op[ev]].name,
			.device = k->device,
			.start_ps = start_ps,
			.dur_ps = dur_ps,
		};
	}
	s->n_steps++;
}

/* walk false: only the source, where tc_pass_summary_marked replaces the
 * steps with the steps pass's (the same markers, walked there). */
static void collect_steps(const struct tc_model *m, const struct tc_markers *mk, bool list,
		bool walk, struct tc_summary *s) {
	s->steps_min_ps = INT64_MAX;
	bool *take = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*take));
	uint32_t dev;
	size_t host;
	if (!tc_markers_choose(m, mk, take, &dev, &host)) {
		free(take);
		return;
	}
	s->steps_source = dev != TC_NONE ? "device" : "host";
	if (!walk) {
		free(take);
		return;
	}
	/* The steps the steps pass would make of them: a marker inside
	 * another (or another thread's) is a phase, not a step. */
	struct marked k = { .s = s, .m = m, .device = dev, .list = list };
	tc_markers_outer(m, mk, take, marked_step, &k);
	free(take);
}

void tc_pass_summary_marked(const struct tc_model *m, const struct tc_analysis *a, bool list,
		struct tc_summary *s) {
	if (!a->step_marker && (a->steps_inferred || !s->steps_source)) {
		return; /* no markers: the summary says so, whatever the analysis inferred */
	}
	free(s->steps);
	s->steps = NULL;
	s->n_steps = 0;
	s->step_marker = a->step_marker;
	s->steps_source = NULL;
	tc_summary_step_totals(s);
	if (a->steps_inferred) {
		return; /* nothing matched: the analysis fell back to the whole trace */
	}
	s->steps = tc_xcalloc(a->n_steps ? a->n_steps : 1, sizeof(*s->steps));
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct tc_step *st = &a->steps[i];
		s->steps[i] = (struct tc_step_summary){ .num = st->num, .name = st->name,
			.device = st->device, .start_ps = st->start_ps, .dur_ps = st->dur_ps };
	}
	s->n_steps = a->n_steps;
	tc_summary_step_totals(s);
	if (!list) {
		free(s->steps);
		s->steps = NULL;
	}
	bool on_device = a->steps_device < m->n_devices &&
		m->devices[a->steps_device].kind != TC_DEV_CPU;
	s->steps_source = on_device ? "device" : "host";
}

static void collect_counters(const struct tc_model *m, struct tc_summary *s) {
	s->counters = tc_xcalloc(m->n_counters ? m->n_counters : 1, sizeof(*s->counters));
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if (!ct->count) {
			continue;
		}
		struct tc_counter_summary *cs = &s->counters[s->n_counters++];
		*cs = (struct tc_counter_summary){ .counter = (uint32_t)c, .samples = ct->count,
			.min = m->samples.value[ct->first], .max = m->samples.value[ct->first],
			/* Finalized: a counter's samples are sorted by time. */
			.first_ps = m->samples.ts[ct->first],
			.last_ps = m->samples.ts[ct->first + ct->count - 1] };
		double sum = 0;
		for (size_t i = ct->first; i < ct->first + ct->count; i++) {
			double v = m->samples.value[i];
			cs->min = v < cs->min ? v : cs->min;
			cs->max = v > cs->max ? v : cs->max;
			sum += v;
		}
		cs->mean = sum / (double)ct->count;
	}
	/* A counter-only trace still spans time: its samples'. */
	if (!m->ev.n && s->n_counters) {
		s->first_ps = INT64_MAX;
		s->last_ps = INT64_MIN;
		for (size_t i = 0; i < s->n_counters; i++) {
			const struct tc_counter_summary *cs = &s->counters[i];
			s->first_ps = cs->first_ps < s->first_ps ? cs->first_ps : s->first_ps;
			s->last_ps = cs->last_ps > s->last_ps ? cs->last_ps : s->last_ps;
		}
		s->span_from_samples = true;
	}
}

static int cmp_thread(const void *pa, const void *pb) {
	const struct tc_thread_summary *a = pa, *b = pb;
	if (a->busy_ps != b->busy_ps) {
		return a->busy_ps > b->busy_ps ? -1 : 1;
	}
	return a->track < b->track ? -1 : a->track > b->track;
}

/* Length of the union of track tr's slices, as tc_ivals_union_tracks
 * would list them (touching slices join), summed as they close: the
 * track is in start order, so no list is needed. */
static int64_t track_busy(const struct tc_model *m, const struct tc_track *tr) {
	struct busy_sum b = { 0 };
	for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
		if (m->ev.dur[i] > 0) {
			busy_add(&b, m->ev.start[i], m->ev.start[i] + m->ev.dur[i]);
		}
	}
	return busy_total(&b);
}

/* Host threads of a trace without device activity, by busy time (busy[t]
 * where the op walk took it, else summed here). */
static void collect_threads(const struct tc_model *m, const int64_t *busy,
		struct tc_summary *s) {
	s->threads = tc_xcalloc(m->n_tracks ? m->n_tracks : 1, sizeof(*s->threads));
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tr->count || tr->kind == TC_TRACK_DERIVED) {
			continue;
		}
		s->threads[s->n_threads++] = (struct tc_thread_summary){ .track = (uint32_t)t,
			.n_events = tr->count, .first_ps = m->ev.start[tr->first],
			.last_ps = tr->end,
			.busy_ps = busy[t] >= 0 ? busy[t] : track_busy(m, tr) };
	}
	tc_sort(s->threads, s->n_threads, sizeof(*s->threads), cmp_thread);
}

void tc_pass_summary_base(const struct tc_model *m, struct tc_summary *s) {
	memset(s, 0, sizeof(*s));
	tc_model_span(m, &s->first_ps, &s->last_ps);
	s->n_events = m->ev.n;
	for (size_t i = 0; i < m->n_aggs; i++) {
		s->n_aggregated += (uint64_t)(m->aggs[i].count > 0 ? m->aggs[i].count : 0);
	}
	s->devices = tc_xcalloc(m->n_devices ? m->n_devices : 1, sizeof(*s->devices));
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	for (size_t d = 0; d < m->n_devices; d++) {
		size_t nt;
		uint32_t *tracks = tc_device_work_tracks(m, &dt, (uint32_t)d, &nt);
		struct tc_device_summary *ds = &s->devices[s->n_devices];
		*ds = (struct tc_device_summary){ .device = (uint32_t)d };
		for (size_t k = 0; k < nt; k++) {
			ds->n_events += m->tracks[tracks[k]].count;
		}
		if (nt == 0 || ds->n_events == 0) {
			free(tracks);
			continue;
		}
		ds->n_tracks = (uint32_t)nt;
		tc_model_tracks_span(m, tracks, nt, &ds->first_ps, &ds->last_ps);
		ds->span_ps = ds->last_ps - ds->first_ps;
		s->n_devices++;
		free(tracks);
	}
	tc_device_tracks_finish(&dt);
	collect_counters(m, s);
}

void tc_pass_summary_rows(const struct tc_model *m, const struct tc_op_sums *op_sums,
		struct tc_summary *s) {
	if (s->n_devices) {
		s->ops = analyze_ops(m, device_work_track, NULL, false, op_sums, NULL, &s->n_ops);
		s->ops_scope = "device";
	} else {
		/* The walk visits the threads' tracks: their busy time too. */
		int64_t *busy = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*busy));
		for (size_t t = 0; t < m->n_tracks; t++) {
			busy[t] = -1;
		}
		s->ops = analyze_ops(m, any_track, NULL, false, NULL, busy, &s->n_ops);
		/* Host-only: shares are of the summed self time. */
		int64_t self = 0;
		for (size_t i = 0; i < s->n_ops; i++) {
			self = tc_sat_add(self, s->ops[i].self_ps);
		}
		s->ops_busy_ps = self;
		s->ops_scope = "host";
		collect_threads(m, busy, s);
		free(busy);
	}
}

void tc_pass_summary_steps(const struct tc_model *m, const struct tc_markers *mk, bool list,
		struct tc_summary *s) {
	struct tc_markers own = { 0 };
	if (!mk) {
		tc_markers_init(&own, m, false);
	}
	collect_steps(m, mk ? mk : &own, list, true, s);
	tc_markers_finish(&own);
}

void tc_pass_summary_steps_source(const struct tc_model *m, const struct tc_markers *mk,
		struct tc_summary *s) {
	collect_steps(m, mk, false, false, s);
}

void tc_pass_summary_busy(const struct tc_model *m, const struct tc_usage *u,
		struct tc_summary *s) {
	struct tc_cover cov = { 0 };
	struct tc_ivals per_kind[TC_OP_KIND_COUNT] = { 0 };
	struct tc_device_tracks dt;
	bool have_dt = false;
	int64_t busy_total = 0;
	/* Both lists ascend by device: walk u->util alongside. */
	size_t k = 0;
	for (size_t j = 0; j < s->n_devices; j++) {
		struct tc_device_summary *ds = &s->devices[j];
		while (u && k < u->n_util && u->util[k].device < ds->device) {
			k++;
		}
		if (u && k < u->n_util && u->util[k].device == ds->device) {
			ds->busy_ps = u->util[k].busy_ps;
			ds->computation_ps = u->util[k].compute_ps;
		} else {
			if (!have_dt) {
				tc_device_tracks_init(&dt, m);
				have_dt = true;
			}
			size_t nt;
			uint32_t *tracks = tc_device_work_tracks(m, &dt, ds->device, &nt);
			tc_ivals_union_per_kind(m, tracks, nt, per_kind);
			cov.n = 0;
			tc_cover_add(&cov, per_kind, TC_OP_KIND_COUNT, INT64_MIN, INT64_MAX);
			ds->busy_ps = tc_cover_len(&cov, UINT64_MAX);
			ds->computation_ps = tc_cover_len(&cov, TC_KINDS_DEVICE_COMPUTE);
			free(tracks);
		}
		busy_total = tc_sat_add(busy_total, ds->busy_ps);
	}
	if (have_dt) {
		tc_device_tracks_finish(&dt);
	}
	tc_cover_finish(&cov);
	tc_ivals_finish_per_kind(per_kind);
	if (s->n_devices) {
		s->ops_busy_ps = busy_total;
	}
}

void tc_analyze_summary(const struct tc_model *m, struct tc_summary *s) {
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_SUMMARY, &a);
	*s = a.summary;
	memset(&a.summary, 0, sizeof(a.summary));
	tc_analysis_finish(&a);
}
