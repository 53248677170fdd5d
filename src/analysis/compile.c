/* The compile pass: time under compilation and the modules recompiled. */
#include <stdlib.h>
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "util/xalloc.h"

/*
 * The compile pass: time under compilation (the union of compile events)
 * and the modules compiled more than once.
 */

static int cmp_key_dur(const void *pa, const void *pb) {
	const struct tc_key_dur *a = pa, *b = pb;
	return a->key < b->key ? -1 : a->key > b->key;
}

struct tc_compile_entry *tc_group_key_dur(struct tc_key_dur *v, size_t n, size_t *n_groups) {
	tc_sort(v, n, sizeof(*v), cmp_key_dur);
	struct tc_compile_entry *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t tot = 0;
		while (j < n && v[j].key == v[i].key) {
			tot += v[j].dur;
			j++;
		}
		TC_GROW(g, cap, ng + 1);
		g[ng++] = (struct tc_compile_entry){ .name = v[i].key, .count = j - i, .total_ps = tot };
		i = j;
	}
	*n_groups = ng;
	return g;
}

/* A top-level compile event of one track, for the containment sweep;
 * caller: the op of the innermost call around it on its track that is
 * neither a compile nor a Python frame, TC_NONE for none. */
struct root {
	uint32_t device;
	int64_t start, end;
	size_t ev;
	uint32_t caller;
};

/* Open calls of one track, innermost last. */
struct callers {
	int64_t *end;
	uint32_t *op;
	size_t n, cap;
};

static uint32_t caller_at(struct callers *cs, int64_t start, int64_t end) {
	while (cs->n && cs->end[cs->n - 1] <= start) {
		cs->n--;
	}
	return cs->n && cs->end[cs->n - 1] >= end ? cs->op[cs->n - 1] : TC_NONE;
}

static void caller_push(struct callers *cs, int64_t end, uint32_t op) {
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 16;
		cs->end = tc_xrealloc(cs->end, cs->cap * sizeof(*cs->end));
		cs->op = tc_xrealloc(cs->op, cs->cap * sizeof(*cs->op));
	}
	cs->end[cs->n] = end;
	cs->op[cs->n++] = op;
}

/* By process, then start, longer first: a phase follows its root. */
static int cmp_root(const void *pa, const void *pb) {
	const struct root *a = pa, *b = pb;
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->end != b->end) {
		return a->end > b->end ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

int tc_compile_entry_cmp(const void *pa, const void *pb) {
	const struct tc_compile_entry *a = pa, *b = pb;
	if (a->count != b->count) {
		return a->count > b->count ? -1 : 1;
	}
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

/* By total time, the longest compilation first. */
static int cmp_ctime(const void *pa, const void *pb) {
	const struct tc_compile_entry *a = pa, *b = pb;
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

bool tc_track_dispatches(const struct tc_model *m, uint32_t t) {
	const uint32_t dispatch = TC_KIND_BIT(TC_OP_HOST_OP) | TC_KIND_BIT(TC_OP_RUNTIME) |
		TC_KIND_BIT(TC_OP_SYNC);
	const struct tc_track *x = &m->tracks[t];
	for (size_t i = x->first; i < (size_t)x->first + x->count; i++) {
		if (TC_KIND_BIT(m->op_kind[m->ev.op[i]]) & dispatch) {
			return true;
		}
	}
	return false;
}

void tc_pass_compile(const struct tc_model *m, struct tc_compile_stats *c) {
	/* Without a compile op no event is one: skip both walks of them. */
	bool any = false;
	for (size_t o = 0; o < m->n_ops && !any; o++) {
		any = m->ops[o].kind == TC_OP_COMPILE;
	}
	uint32_t *tracks = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*tracks));
	size_t nt = 0;
	bool dispatch = false;
	for (size_t t = 0; t < m->n_tracks && any && !dispatch; t++) {
		dispatch = tc_model_on_host(m, m->tracks[t].device) &&
			tc_track_dispatches(m, (uint32_t)t);
	}
	for (size_t t = 0; t < m->n_tracks && any; t++) {
		/* Where some host thread dispatches, a host thread that does
		 * not is no compilation the device waits on. */
		if (m->tracks[t].kind != TC_TRACK_DERIVED && !(dispatch &&
				tc_model_on_host(m, m->tracks[t].device) &&
				!tc_track_dispatches(m, (uint32_t)t))) {
			tracks[nt++] = (uint32_t)t;
		}
	}
	struct tc_ivals u = { 0 };
	tc_ivals_union_kinds(m, tracks, nt, TC_KIND_BIT(TC_OP_COMPILE), &u);
	c->union_ps = tc_ivals_length(&u);
	if (u.n) {
		c->first_ps = u.lo[0];
		c->last_ps = u.hi[u.n - 1];
	}
	tc_ivals_finish(&u);
	/* Count top-level compile events only: a compile nested in a compile
	 * is a phase of it, also on another thread of the same process (XLA's
	 * autotuner compiles candidate kernels on worker threads inside one
	 * program's compilation). Keyed by their module name when they carry
	 * one. */
	struct root *cand = NULL;
	size_t nc = 0, ccap = 0;
	struct callers cs = { 0 };
	for (size_t k = 0; k < nt; k++) {
		const struct tc_track *tr = &m->tracks[tracks[k]];
		int64_t cur_end = INT64_MIN;
		cs.n = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			enum tc_op_kind kind = m->op_kind[m->ev.op[i]];
			if (kind != TC_OP_COMPILE) {
				if (kind != TC_OP_PYTHON && m->ev.dur[i] > 0) {
					caller_at(&cs, m->ev.start[i], m->ev.start[i]);
					caller_push(&cs, tc_model_end(m, i), m->ev.op[i]);
				}
				continue;
			}
			if (m->ev.start[i] < cur_end) {
				continue;
			}
			cur_end = tc_model_end(m, i);
			TC_GROW(cand, ccap, nc + 1);
			cand[nc++] = (struct root){ .device = tr->device, .start = m->ev.start[i],
				.end = cur_end, .ev = i,
				.caller = caller_at(&cs, m->ev.start[i], cur_end) };
		}
	}
	free(cs.end);
	free(cs.op);
	tc_sort(cand, nc, sizeof(*cand), cmp_root);
	/* The program a compilation is of: its module arg, else the call it
	 * was made in (JAX's "PjitFunction(f)"). Only a program compiled
	 * twice is recompiled: four backend_compile events of four calls
	 * are four compilations. Without either, what was compiled is
	 * unknown; it is a compilation, never a recompilation. */
	struct tc_key_dur *keys = tc_xmalloc((nc ? nc : 1) * sizeof(*keys));
	struct tc_key_dur *ids = tc_xmalloc((nc ? nc : 1) * sizeof(*ids));
	size_t nk = 0, ni = 0;
	for (size_t j = 0; j < nc;) {
		const struct root *r = &cand[j];
		size_t i = r->ev;
		struct tc_arg mod;
		uint32_t id = 0;
		if (tc_model_arg_find(m, tc_model_event_args(m, i), m->key.hlo_module, &mod) &&
				mod.type == TC_ARG_STR) {
			id = mod.v.s;
		} else if (r->caller != TC_NONE) {
			id = m->ops[r->caller].name;
		}
		keys[nk++] = (struct tc_key_dur){ id ? id : m->ops[m->ev.op[i]].name,
			m->ev.dur[i] };
		if (id) {
			ids[ni++] = keys[nk - 1];
		}
		for (j++; j < nc && cand[j].device == r->device && cand[j].end <= r->end; j++) {
		}
	}
	free(cand);
	free(tracks);
	c->n_events = nk;
	size_t ng, nig;
	struct tc_compile_entry *g = tc_group_key_dur(keys, nk, &ng);
	struct tc_compile_entry *gi = tc_group_key_dur(ids, ni, &nig);
	c->recompiled = tc_xmalloc((nig ? nig : 1) * sizeof(*c->recompiled));
	for (size_t i = 0; i < nig; i++) {
		if (gi[i].count > 1) {
			c->recompiled[c->n_recompiled++] = gi[i];
		}
	}
	free(gi);
	free(ids);
	free(keys);
	tc_sort(c->recompiled, c->n_recompiled, sizeof(*c->recompiled), tc_compile_entry_cmp);
	tc_sort(g, ng, sizeof(*g), cmp_ctime);
	c->programs = g;
	c->n_programs = ng;
}
