/*
 * Device work by category: each device event's category from the host op
 * that launched it (analysis/launcher.h: launch flow -> runtime call -> its
 * innermost enclosing framework op) or else its own name, summed per
 * category with the GEMM and convolution facts the compute rules read.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/devwork.h"
#include "analysis/launcher.h"
#include "analysis/passes.h"
#include "util/num.h"
#include "util/u64map.h"
#include "util/xalloc.h"

struct scan {
	const struct tc_model *m;
	uint32_t *launcher;        /* per event: its launching framework op event, TC_NONE;
	                            * NULL: no launch flows, none known */
	uint8_t *own;              /* per op: its category from its name, 0 not yet */
	uint8_t *fp32;             /* per op: 1 FP32 math by name, 2 not, 0 not yet */
	struct tc_u64map pair;     /* (launcher, op) -> category */
	const struct tc_costs *costs; /* every event's cost key (borrowed) */
	struct op_acc *acc;        /* per cost key: a flat line's sums (scan_flat), zero between */
	uint32_t *touched;         /* the keys with sums in acc, in first-seen order */
};

/* One cost key's events (one op's, with one cost) on one flat line: counts
 * and durations, and those of the short ones (<= TC_TINY_GEMM_PS), which
 * the tiny-GEMM fact splits. */
struct op_acc {
	uint64_t count, short_count;
	int64_t total_ps, min_ps, max_ps;
	uint64_t short_ps; /* <= total_ps, which is checked for saturation */
};

static __attribute__((noinline)) void own_cat_find(struct scan *s, uint32_t o) {
	const struct tc_model *m = s->m;
	const char *name = tc_model_str(m, m->ops[o].name);
	const char *cat = m->ops[o].category ? tc_model_str(m, m->ops[o].category) : NULL;
	s->own[o] = (uint8_t)tc_devcat_of_kernel(name, strlen(name), cat, cat ? strlen(cat) : 0,
		(enum tc_op_kind)m->ops[o].kind);
}

/* Op o's category by its name, found once per op. */
static inline enum tc_devcat own_cat(struct scan *s, uint32_t o) {
	if (__builtin_expect(!s->own[o], 0)) {
		own_cat_find(s, o);
	}
	return (enum tc_devcat)s->own[o];
}

/* Event i's category (its op o); *launched: whether its launching op is
 * known. */
static enum tc_devcat event_cat(struct scan *s, size_t i, uint32_t o, bool *launched) {
	const struct tc_model *m = s->m;
	uint32_t le = s->launcher ? s->launcher[i] : TC_NONE;
	*launched = le != TC_NONE;
	if (le == TC_NONE) {
		return own_cat(s, o);
	}
	uint32_t l = m->ev.op[le];
	uint64_t key = (uint64_t)l << 32 | o;
	const uint32_t *c = tc_u64map_find(&s->pair, key);
	if (c) {
		return (enum tc_devcat)*c;
	}
	const char *ln = tc_model_str(m, m->ops[l].name);
	const char *name = tc_model_str(m, m->ops[o].name);
	const char *cat = m->ops[o].category ? tc_model_str(m, m->ops[o].category) : NULL;
	enum tc_devcat dc = tc_devcat_of(ln, strlen(ln), name, strlen(name), cat,
		cat ? strlen(cat) : 0, (enum tc_op_kind)m->ops[o].kind);
	tc_u64map_put(&s->pair, key, (uint32_t)dc);
	return dc;
}

/* a + d for a duration d >= 0, saturating: tc_sat_add's result with one
 * test fewer, per event. */
static inline int64_t add_dur(int64_t a, int64_t d) {
	return a > INT64_MAX - d ? INT64_MAX : a + d;
}

static void add_cost(double *sum, int64_t v) {
	if (v >= 0) {
		*sum = (*sum < 0 ? 0 : *sum) + (double)v;
	}
}

/* Whether op o's name says FP32 math, found once per op. */
static bool fp32_op(struct scan *s, uint32_t o) {
	if (!s->fp32[o]) {
		const char *name = tc_model_str(s->m, s->m->ops[o].name);
		s->fp32[o] = tc_devcat_fp32_math(name, strlen(name)) ? 1 : 2;
	}
	return s->fp32[o] == 1;
}

/* An event's FP32, layout and tiny-GEMM facts (op o, category c, duration
 * d; free: d off the roofline, else 0). One event counts in one of them. */
static void facts(struct scan *s, struct tc_devwork *w, uint32_t o, enum tc_devcat c, int64_t d,
		int64_t free) {
	const struct tc_model *m = s->m;
	/* Without launchers c is o's own category already. */
	if (c == TC_DEVCAT_LAYOUT || (s->launcher && own_cat(s, o) == TC_DEVCAT_LAYOUT)) {
		w->layout_ps = add_dur(w->layout_ps, d);
		w->layout_free_ps = add_dur(w->layout_free_ps, free);
		w->layout_count++;
		return;
	}
	if (c != TC_DEVCAT_GEMM && c != TC_DEVCAT_CONV_FWD && c != TC_DEVCAT_CONV_BWD) {
		return;
	}
	/* A launch-sized FP32 GEMM gains little from tensor cores: batching
	 * it is the fix, so it counts as tiny. */
	bool tiny = m->op_kind[o] == TC_OP_KERNEL && d <= TC_TINY_GEMM_PS;
	if (!tiny && fp32_op(s, o)) {
		w->fp32_ps = add_dur(w->fp32_ps, d);
		w->fp32_free_ps = add_dur(w->fp32_free_ps, free);
		w->fp32_count++;
	} else if (c == TC_DEVCAT_GEMM && tiny) {
		w->tiny_gemm_ps = add_dur(w->tiny_gemm_ps, d);
		w->tiny_gemm_free_ps = add_dur(w->tiny_gemm_free_ps, free);
		w->tiny_gemm_count++;
	}
}

/* One line's events into w; stack_* are the walk's scratch for self time.
 * The sums go to a copy of w on the stack, stored back at the end: no
 * store to it may alias the model's columns, so the loop keeps its
 * pointers in registers. */
static void scan_track(struct scan *s, size_t t, struct tc_devwork *w, int64_t **stack_end,
		uint8_t **stack_cat, size_t *cap, size_t *cap2) {
	const struct tc_model *m = s->m;
	const struct tc_track *tr = &m->tracks[t];
	const int64_t *start = m->ev.start, *dur = m->ev.dur;
	const uint32_t *op = m->ev.op, *key = s->costs->key;
	const struct tc_op_cost *cost = s->costs->cost;
	const bool nested = tr->max_depth != 0;
	struct tc_devwork lw = *w;
	size_t top = 0;
	for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
		bool launched;
		uint32_t o = op[i];
		enum tc_devcat c = event_cat(s, i, o, &launched);
		int64_t st = start[i], d = dur[i], e = st + d;
		struct tc_devcat_acc *a = &lw.cat[c];
		a->count++;
		a->total_ps = add_dur(a->total_ps, d);
		a->self_ps = add_dur(a->self_ps, d);
		if (launched) {
			a->launched_ps = add_dur(a->launched_ps, d);
		}
		a->min_ps = d < a->min_ps ? d : a->min_ps;
		a->max_ps = d > a->max_ps ? d : a->max_ps;
		int64_t fl = cost[key[i]].flops, by = cost[key[i]].bytes;
		add_cost(&a->flops, fl);
		add_cost(&a->bytes, by);
		facts(s, &lw, o, c, d, fl >= 0 && by > 0 ? 0 : d);
		if (!nested) {
			continue;
		}
		/* A child's time (clipped to its parent) leaves the parent's self. */
		while (top > 0 && (*stack_end)[top - 1] <= st) {
			top--;
		}
		if (top > 0) {
			int64_t pe = (*stack_end)[top - 1];
			struct tc_devcat_acc *p = &lw.cat[(*stack_cat)[top - 1]];
			p->self_ps = tc_sat_add(p->self_ps, -((e < pe ? e : pe) - st));
		}
		if (d > 0) {
			TC_GROW(*stack_end, *cap, top + 1);
			TC_GROW(*stack_cat, *cap2, top + 1);
			(*stack_end)[top] = e;
			(*stack_cat)[top] = (uint8_t)c;
			top++;
		}
	}
	*w = lw;
}

/* Whether the per-key sums in s->acc of a flat line's cost keys
 * (touched[0..nt)) add into w as the per-event scan would: no duration sum
 * saturated, and each category's FLOPs and bytes (count x the key's, on
 * top of what w holds) stay integers a double holds exactly, so the order
 * of the per-event additions cannot matter. */
static bool flat_exact(struct scan *s, const struct tc_devwork *w, size_t nt) {
	unsigned __int128 fl[TC_DEVCAT_COUNT] = { 0 }, by[TC_DEVCAT_COUNT] = { 0 };
	for (size_t j = 0; j < nt; j++) {
		uint32_t k = s->touched[j];
		const struct op_acc *p = &s->acc[k];
		const struct tc_op_cost *v = &s->costs->cost[k];
		if (p->total_ps == INT64_MAX) {
			return false;
		}
		enum tc_devcat c = own_cat(s, s->costs->op[k]);
		fl[c] += v->flops > 0 ? (unsigned __int128)p->count * (uint64_t)v->flops : 0;
		by[c] += v->bytes > 0 ? (unsigned __int128)p->count * (uint64_t)v->bytes : 0;
	}
	for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
		double f = w->cat[c].flops < 0 ? 0 : w->cat[c].flops;
		double b = w->cat[c].bytes < 0 ? 0 : w->cat[c].bytes;
		if (f > (double)TC_DOUBLE_EXACT_MAX || b > (double)TC_DOUBLE_EXACT_MAX || f != (double)(uint64_t)f ||
				b != (double)(uint64_t)b || fl[c] > TC_DOUBLE_EXACT_MAX - (uint64_t)f ||
				by[c] > TC_DOUBLE_EXACT_MAX - (uint64_t)b) {
			return false;
		}
	}
	return true;
}

/* Cost key k's sums p (its op's category c) into w, as its events one by
 * one. */
static void flat_add(struct scan *s, struct tc_devwork *w, uint32_t k, enum tc_devcat c,
		const struct op_acc *p) {
	const struct tc_model *m = s->m;
	struct tc_devcat_acc *a = &w->cat[c];
	uint32_t o = s->costs->op[k];
	int64_t fl = s->costs->cost[k].flops, by = s->costs->cost[k].bytes, d = p->total_ps;
	a->count += p->count;
	a->total_ps = add_dur(a->total_ps, d);
	a->self_ps = add_dur(a->self_ps, d);
	a->min_ps = p->min_ps < a->min_ps ? p->min_ps : a->min_ps;
	a->max_ps = p->max_ps > a->max_ps ? p->max_ps : a->max_ps;
	if (fl >= 0) {
		a->flops = (a->flops < 0 ? 0 : a->flops) + (double)((uint64_t)fl * p->count);
	}
	if (by >= 0) {
		a->bytes = (a->bytes < 0 ? 0 : a->bytes) + (double)((uint64_t)by * p->count);
	}
	bool free = !(fl >= 0 && by > 0);
	if (c == TC_DEVCAT_LAYOUT) {
		w->layout_ps = add_dur(w->layout_ps, d);
		w->layout_free_ps = add_dur(w->layout_free_ps, free ? d : 0);
		w->layout_count += p->count;
		return;
	}
	if (c != TC_DEVCAT_GEMM && c != TC_DEVCAT_CONV_FWD && c != TC_DEVCAT_CONV_BWD) {
		return;
	}
	/* Tiny: a kernel's short events (facts()). */
	bool kern = m->op_kind[o] == TC_OP_KERNEL;
	uint64_t tn = kern ? p->short_count : 0;
	int64_t tps = kern ? (int64_t)p->short_ps : 0;
	if (fp32_op(s, o) && p->count > tn) {
		w->fp32_ps = add_dur(w->fp32_ps, d - tps);
		w->fp32_free_ps = add_dur(w->fp32_free_ps, free ? d - tps : 0);
		w->fp32_count += p->count - tn;
	}
	if (c == TC_DEVCAT_GEMM && tn) {
		w->tiny_gemm_ps = add_dur(w->tiny_gemm_ps, tps);
		w->tiny_gemm_free_ps = add_dur(w->tiny_gemm_free_ps, free ? tps : 0);
		w->tiny_gemm_count += tn;
	}
}

/*
 * A flat line without launchers: each event's sums depend on its cost key
 * (its op and costs) and duration only, so they are summed per key and
 * added per key. Returns false, w as it was, where that could differ from
 * scan_track by a bit (saturated or inexact sums): scan_track then.
 */
static bool scan_flat(struct scan *s, size_t t, struct tc_devwork *w) {
	const struct tc_model *m = s->m;
	const struct tc_track *tr = &m->tracks[t];
	const int64_t *dur = m->ev.dur;
	const uint32_t *key = s->costs->key;
	struct op_acc *acc = s->acc;
	size_t nt = 0;
	for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
		uint32_t k = key[i];
		int64_t d = dur[i];
		struct op_acc *p = &acc[k];
		if (__builtin_expect(!p->count, 0)) {
			s->touched[nt++] = k;
			p->min_ps = INT64_MAX;
		}
		p->count++;
		p->total_ps = add_dur(p->total_ps, d);
		p->min_ps = d < p->min_ps ? d : p->min_ps;
		p->max_ps = d > p->max_ps ? d : p->max_ps;
		bool sh = d <= TC_TINY_GEMM_PS;
		p->short_count += sh;
		p->short_ps += sh ? (uint64_t)d : 0;
	}
	bool ok = flat_exact(s, w, nt);
	for (size_t j = 0; j < nt; j++) {
		uint32_t k = s->touched[j];
		if (ok) {
			flat_add(s, w, k, own_cat(s, s->costs->op[k]), &acc[k]);
		}
		memset(&acc[k], 0, sizeof(acc[k]));
	}
	return ok;
}

void tc_devwork_init(struct tc_devwork *w) {
	memset(w, 0, sizeof(*w));
	for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
		w->cat[c].min_ps = INT64_MAX;
		w->cat[c].flops = w->cat[c].bytes = -1;
	}
}

void tc_devwork_add(struct tc_devwork *w, enum tc_devcat c, const struct tc_devcat_acc *b) {
	struct tc_devcat_acc *a = &w->cat[c];
	a->count += b->count;
	a->total_ps = tc_sat_add(a->total_ps, b->total_ps);
	a->self_ps = tc_sat_add(a->self_ps, b->self_ps);
	a->launched_ps = tc_sat_add(a->launched_ps, b->launched_ps);
	a->min_ps = b->min_ps < a->min_ps ? b->min_ps : a->min_ps;
	a->max_ps = b->max_ps > a->max_ps ? b->max_ps : a->max_ps;
	if (b->flops >= 0) {
		a->flops = (a->flops < 0 ? 0 : a->flops) + b->flops;
	}
	if (b->bytes >= 0) {
		a->bytes = (a->bytes < 0 ? 0 : a->bytes) + b->bytes;
	}
}

uint32_t tc_devwork_only_device(const struct tc_model *m) {
	uint32_t d = TC_NONE;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->count && tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
			if (d != TC_NONE && tr->device != d) {
				return TC_NONE;
			}
			d = tr->device;
		}
	}
	return d;
}

/* s's per-key sums and their list, made on first use. */
static void scan_acc(struct scan *s) {
	if (!s->acc) {
		size_t nk = s->costs->n ? s->costs->n : 1;
		s->acc = tc_xcalloc(nk, sizeof(*s->acc));
		s->touched = tc_xmalloc(nk * sizeof(*s->touched));
	}
}

/* The lines of device only (TC_NONE: every device) into w, but those
 * skip marks (NULL: none). */
static void scan_lines(struct scan *s, uint32_t only, const bool *skip, struct tc_devwork *w) {
	const struct tc_model *m = s->m;
	int64_t *stack_end = NULL;
	uint8_t *stack_cat = NULL;
	size_t cap = 0, cap2 = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tr->count || (only != TC_NONE && tr->device != only) ||
				!tc_track_kind_is_device_work((enum tc_track_kind)tr->kind) ||
				(skip && skip[t])) {
			continue;
		}
		if (!s->launcher && tr->max_depth == 0 && tc_costs_per_key(s->costs, tr->count)) {
			scan_acc(s);
			if (scan_flat(s, t, w)) {
				continue;
			}
		}
		scan_track(s, t, w, &stack_end, &stack_cat, &cap, &cap2);
	}
	free(stack_end);
	free(stack_cat);
}

/* Whether pre's lines are all in the scan of device only and its sums
 * are the events' costs' (no launchers, the ops the cost keys). */
static bool sums_usable(const struct scan *s, uint32_t only, const struct tc_op_sums *pre) {
	const struct tc_model *m = s->m;
	if (!pre || s->launcher || s->costs->key != m->ev.op) {
		return false;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (pre->done[t] && only != TC_NONE && m->tracks[t].device != only) {
			return false;
		}
	}
	return true;
}

/* pre's sums into w as scan_flat adds a line's; false, w as it was, where
 * they would not be exact. */
static bool add_sums(struct scan *s, const struct tc_op_sums *pre, struct tc_devwork *w) {
	const struct tc_model *m = s->m;
	scan_acc(s);
	size_t nt = 0;
	for (size_t o = 0; o < m->n_ops; o++) {
		const struct tc_op_acc *a = &pre->op[o];
		if (a->count) {
			s->acc[o] = (struct op_acc){ a->count, a->short_count, a->total, a->min, a->max,
				a->short_ps };
			s->touched[nt++] = (uint32_t)o;
		}
	}
	bool ok = flat_exact(s, w, nt);
	for (size_t j = 0; j < nt; j++) {
		uint32_t k = s->touched[j];
		if (ok) {
			flat_add(s, w, k, own_cat(s, k), &s->acc[k]);
		}
		memset(&s->acc[k], 0, sizeof(s->acc[k]));
	}
	return ok;
}

bool tc_devwork_launched(const struct tc_model *m) {
	for (size_t f = 0; f < m->n_flows; f++) {
		if (m->flows[f].kind == TC_FLOW_LAUNCH) {
			return true;
		}
	}
	return false;
}

void tc_devwork_scan_sums(const struct tc_model *m, uint32_t only, const struct tc_op_sums *pre,
		struct tc_devwork *w) {
	tc_devwork_init(w);
	struct scan s = { .m = m, .costs = tc_model_costs(m) };
	s.own = tc_xcalloc(m->n_ops ? m->n_ops : 1, 1);
	s.fp32 = tc_xcalloc(m->n_ops ? m->n_ops : 1, 1);
	/* Without launch flows no event has a launcher: no column of them
	 * (4 bytes an event, fresh pages) and no host index to build. */
	if (tc_devwork_launched(m)) {
		s.launcher = tc_xmalloc((m->ev.n ? m->ev.n : 1) * sizeof(*s.launcher));
		tc_launcher_of_events(m, s.launcher);
	}
	if (sums_usable(&s, only, pre)) {
		/* The other lines first, then the sums: exact sums are the same
		 * in any order; where they would not be, all is walked again in
		 * line order, as without them. */
		scan_lines(&s, only, pre->done, w);
		if (!add_sums(&s, pre, w)) {
			tc_devwork_init(w);
			scan_lines(&s, only, NULL, w);
		}
	} else {
		scan_lines(&s, only, NULL, w);
	}
	free(s.own);
	free(s.fp32);
	free(s.launcher);
	free(s.acc);
	free(s.touched);
	tc_u64map_finish(&s.pair);
}

void tc_devwork_scan(const struct tc_model *m, uint32_t only, struct tc_devwork *w) {
	tc_devwork_scan_sums(m, only, NULL, w);
}

struct tc_op_row *tc_devwork_rows(const struct tc_devwork *w, size_t *n) {
	struct tc_op_row *rows = tc_xmalloc(TC_DEVCAT_COUNT * sizeof(*rows));
	*n = 0;
	for (int c = 0; c < TC_DEVCAT_COUNT; c++) {
		const struct tc_devcat_acc *a = &w->cat[c];
		if (!a->count) {
			continue;
		}
		rows[(*n)++] = (struct tc_op_row){
			.label = tc_devcat_name((enum tc_devcat)c), .device = TC_NONE,
			.kind = c == TC_DEVCAT_MEMCPY ? TC_OP_MEMCPY_OTHER : c == TC_DEVCAT_MEMSET ?
				TC_OP_MEMSET : c == TC_DEVCAT_COLLECTIVE ? TC_OP_COLLECTIVE : TC_OP_KERNEL,
			.count = a->count, .total_ps = a->total_ps, .self_ps = a->self_ps,
			.min_ps = a->min_ps, .max_ps = a->max_ps, .p50_ps = -1, .p99_ps = -1,
			.flops = a->flops, .bytes = a->bytes, .launched_ps = a->launched_ps,
		};
	}
	return rows;
}
