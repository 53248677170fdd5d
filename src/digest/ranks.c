/*
 * A set of digest ranks behind a plain interface (digest/ranks.h): the
 * commands and the job composer (job.h) read ranks through it, and only
 * this file and the other digest views know the digest's messages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "analysis/steps.h"
#include "digest/colltable.h"
#include "digest/msg.h"
#include "digest/ranks.h"
#include "digest/view.h"
#include "util/xalloc.h"

struct tc_rank_set {
	Tracectl__Rank **v;
	size_t n, cap;
	/* As a job's ranks (tc_rank_set_job). */
	const struct tc_spill *aside;
	struct tc_job_rank *facts;
	struct tc_job_ranks jr;
};

struct tc_rank_set *tc_rank_set_create(void) {
	return tc_xcalloc(1, sizeof(struct tc_rank_set));
}

void tc_rank_set_destroy(struct tc_rank_set *s) {
	if (!s) {
		return;
	}
	free(s->v);
	free(s->facts);
	free(s);
}

size_t tc_rank_set_n(const struct tc_rank_set *s) {
	return s ? s->n : 0;
}

static void push(struct tc_rank_set *s, Tracectl__Rank *r) {
	TC_GROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = r;
}

bool tc_rank_set_add_digest(struct tc_rank_set *s, const struct tc_digest *d,
		struct tc_error *err) {
	size_t n = tc_digest_n_ranks(d);
	for (size_t r = 0; r < n; r++) {
		if (!tc_digest_rank_valid(d->msg->ranks[r], err)) {
			return false;
		}
	}
	for (size_t r = 0; r < n; r++) {
		push(s, d->msg->ranks[r]);
	}
	return true;
}

void tc_rank_set_add_rank(struct tc_rank_set *s, const struct tc_digest *d, size_t i) {
	push(s, d->msg->ranks[i]);
}

void tc_rank_set_add_msg(struct tc_rank_set *s, Tracectl__Rank *r) {
	push(s, r);
}

void tc_rank_set_add_from(struct tc_rank_set *s, const struct tc_rank_set *o, size_t k) {
	push(s, o->v[k]);
}

void tc_rank_set_keep(struct tc_rank_set *s, const bool *keep) {
	size_t w = 0;
	for (size_t k = 0; k < s->n; k++) {
		if (keep[k]) {
			s->v[w++] = s->v[k];
		}
	}
	s->n = w;
}

void tc_rank_set_take_last(struct tc_rank_set *s, size_t k) {
	s->v[k] = s->v[--s->n];
}

void tc_rank_set_sort(struct tc_rank_set *s) {
	tc_sort(s->v, s->n, sizeof(*s->v), tc_digest_rank_cmp);
}

/* A rank's identity as its trace gave it: a digest made from the trace
 * holds the same name, input size, event count and span. */
static int cmp_same_trace(const void *pa, const void *pb) {
	const Tracectl__Rank *a = *(Tracectl__Rank *const *)pa, *b = *(Tracectl__Rank *const *)pb;
	if (a->input_size != b->input_size) {
		return a->input_size < b->input_size ? -1 : 1;
	}
	if (a->event_count != b->event_count) {
		return a->event_count < b->event_count ? -1 : 1;
	}
	if (a->span_ps != b->span_ps) {
		return a->span_ps < b->span_ps ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

static int cmp_ptr(const void *pa, const void *pb) {
	uintptr_t a = (uintptr_t)*(void *const *)pa, b = (uintptr_t)*(void *const *)pb;
	return (a > b) - (a < b);
}

size_t tc_rank_set_drop_digested(struct tc_rank_set *s, const struct tc_rank_set *digested) {
	size_t nd = tc_rank_set_n(digested);
	if (!nd || s->n <= nd) {
		return 0;
	}
	Tracectl__Rank **dig = tc_xmalloc(nd * sizeof(*dig));
	memcpy(dig, digested->v, nd * sizeof(*dig));
	tc_sort(dig, nd, sizeof(*dig), cmp_ptr);
	Tracectl__Rank **made = tc_xmalloc(s->n * sizeof(*made));
	size_t nm = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!bsearch(&s->v[i], dig, nd, sizeof(*dig), cmp_ptr)) {
			made[nm++] = s->v[i];
		}
	}
	tc_sort(made, nm, sizeof(*made), cmp_same_trace);
	size_t w = 0, dropped = 0;
	for (size_t i = 0; i < s->n; i++) {
		Tracectl__Rank *r = s->v[i];
		bool is_digest = bsearch(&r, dig, nd, sizeof(*dig), cmp_ptr) != NULL;
		if (is_digest && bsearch(&r, made, nm, sizeof(*made), cmp_same_trace)) {
			dropped++;
			continue;
		}
		s->v[w++] = r;
	}
	s->n = w;
	free(made);
	free(dig);
	return dropped;
}

const char *tc_rank_set_name(const struct tc_rank_set *s, size_t k) {
	return s->v[k]->name;
}

const char *tc_rank_set_input(const struct tc_rank_set *s, size_t k) {
	return s->v[k]->input;
}

bool tc_rank_set_has_result(const struct tc_rank_set *s, size_t k) {
	return s->v[k]->result != NULL;
}

bool tc_rank_set_has_memview(const struct tc_rank_set *s, size_t k) {
	return s->v[k]->mem_view != NULL;
}

bool tc_rank_set_in_digest(const struct tc_rank_set *s, size_t k, const struct tc_digest *d) {
	for (size_t i = 0; i < tc_digest_n_ranks(d); i++) {
		if (d->msg->ranks[i] == s->v[k]) {
			return true;
		}
	}
	return false;
}

struct tc_model *tc_rank_set_skeleton(const struct tc_rank_set *s) {
	return tc_digest_skeleton(s->v, s->n);
}

struct tc_model *tc_rank_set_skeleton_of(const struct tc_rank_set *s, size_t k) {
	return tc_digest_skeleton(&s->v[k], 1);
}

void tc_rank_set_op_table(const struct tc_model *skel, const struct tc_rank_set *s,
		const char *by, struct tc_op_table *t) {
	tc_digest_op_table(skel, s->v, s->n, by, t);
}

void tc_rank_set_result(struct tc_model *skel, const struct tc_rank_set *s, size_t k,
		struct tc_analysis *a) {
	tc_digest_result(skel, s->v[k], 0, a);
}

void tc_rank_set_steps(struct tc_model *skel, const struct tc_rank_set *s, size_t k,
		struct tc_analysis *a) {
	tc_digest_steps(skel, s->v[k], a);
}

void tc_rank_set_check_measure(struct tc_check *c, size_t idx, struct tc_model *skel,
		const struct tc_rank_set *s, size_t k) {
	tc_digest_check_measure(c, idx, s->v[k]->name, skel, s->v[k]);
}

void tc_rank_set_diff_side(const struct tc_rank_set *s, const char *label,
		struct tc_diff_side *side) {
	tc_digest_diff_side(s->v, s->n, label, side);
}

/* ---- a job's ranks ---- */

static struct tc_model *job_skeleton(void *ctx) {
	return tc_rank_set_skeleton(ctx);
}

static void job_clock(void *ctx, int64_t *clock) {
	const struct tc_rank_set *s = ctx;
	tc_digest_job_clock(s->v, s->n, clock);
}

static void job_result(void *ctx, struct tc_model *skel, size_t k, uint32_t base,
		struct tc_analysis *a) {
	const struct tc_rank_set *s = ctx;
	struct tc_digest_bulk b;
	tc_digest_rank_load(s->aside, s->v[k], &b);
	tc_digest_result(skel, s->v[k], base, a);
	tc_digest_rank_unload(&b);
}

static void job_steps(void *ctx, struct tc_model *skel, size_t k, uint32_t base,
		struct tc_analysis *a) {
	const struct tc_rank_set *s = ctx;
	struct tc_digest_bulk b;
	tc_digest_rank_load(s->aside, s->v[k], &b);
	tc_digest_steps_at(skel, s->v[k], base, a);
	tc_digest_rank_unload(&b);
}

/* Rank r's exposed collective time on its device dev, NULL none. */
static const Tracectl__Exposed *exposed_entry(const Tracectl__Rank *r, uint32_t dev) {
	for (size_t i = 0; i < r->n_exposed; i++) {
		const Tracectl__Exposed *e = r->exposed[i];
		if (e->device >= 0 && (uint32_t)e->device == dev) {
			return e;
		}
	}
	return NULL;
}

/* e's intervals on the job's clock (none without e): digests of version
 * 2 kept all of them, later ones none or only those inside the rank's
 * collectives. */
static void exposed_of(const Tracectl__Exposed *e, int64_t dt, struct tc_ivals *out) {
	out->n = 0;
	uint64_t unit = e && e->unit_ps ? e->unit_ps : 1;
	uint64_t at = (uint64_t)dt;
	for (size_t j = 0; e && j + 1 < e->n_bounds; j += 2) {
		uint64_t lo = at + (uint64_t)e->bounds[j] * unit;
		uint64_t hi = lo + (uint64_t)e->bounds[j + 1] * unit;
		if ((int64_t)lo < (int64_t)hi) {
			tc_ivals_push(out, (int64_t)lo, (int64_t)hi);
		}
		at = hi;
	}
}

/* Each of p's steps' exposed collective time on e's device (v, p->n
 * entries): as the digest keeps it per step, or from its intervals when
 * it kept none per step (version 2). */
static void exposed_steps(const Tracectl__Exposed *e, int64_t dt, const struct tc_step_times *p,
		int64_t *v) {
	if (e && e->n_step_ps == p->n) {
		uint64_t unit = e->step_unit_ps ? e->step_unit_ps : 1;
		for (size_t i = 0; i < p->n; i++) {
			v[i] = (int64_t)((uint64_t)e->step_ps[i] * unit);
		}
		return;
	}
	struct tc_ivals ex = { 0 };
	exposed_of(e, dt, &ex);
	for (size_t i = 0; i < p->n; i++) {
		v[i] = tc_ivals_length_in(&ex, p->start[i], p->end[i]);
	}
	tc_ivals_finish(&ex);
}

static void job_exposed(void *ctx, size_t k, int64_t dt, const struct tc_step_times *p,
		const uint32_t *dev, size_t n_dev, int64_t *v) {
	const struct tc_rank_set *s = ctx;
	struct tc_digest_bulk b;
	tc_digest_rank_load(s->aside, s->v[k], &b);
	for (size_t d = 0; d < n_dev; d++) {
		exposed_steps(exposed_entry(s->v[k], dev[d]), dt, p, v + d * p->n);
	}
	tc_digest_rank_unload(&b);
}

/* Every occurrence within TC_DIGEST_TIME_MAX of the rank's first event
 * (base), as a digest's other times: matching across ranks subtracts
 * clock offsets from them and sums the waits. */
static bool table_in_range(const struct tc_coll_table *t, int64_t base) {
	for (size_t i = 0; i < t->n; i++) {
		int64_t at = (int64_t)((uint64_t)t->v[i].start_ps - (uint64_t)base);
		int64_t dur = t->v[i].dur_ps;
		if (at < -TC_DIGEST_TIME_MAX || at > TC_DIGEST_TIME_MAX || dur < 0 ||
				dur > TC_DIGEST_TIME_MAX) {
			return false;
		}
	}
	return true;
}

static bool job_collectives(void *ctx, size_t k, int64_t dt, struct tc_coll_table *t) {
	const struct tc_rank_set *s = ctx;
	Tracectl__Rank *rk = s->v[k];
	struct tc_digest_bulk b;
	tc_digest_rank_load(s->aside, rk, &b);
	const Tracectl__CollTable *msg = rk->collectives;
	/* A job's rank in memory keeps its table packed. */
	if (!msg && rk->collectives_packed.len) {
		ProtobufCAllocator alloc;
		tc_digest_allocator(&b.arena, &alloc);
		msg = tracectl__coll_table__unpack(&alloc, rk->collectives_packed.len,
			rk->collectives_packed.data);
	}
	bool ok = !msg || (tc_coll_table_unpack(msg, dt, t) && table_in_range(t, dt));
	tc_digest_rank_unload(&b);
	return ok;
}

static void job_op_table(void *ctx, const struct tc_model *skel, const char *by,
		struct tc_op_table *t) {
	tc_rank_set_op_table(skel, ctx, by, t);
}

const struct tc_job_ranks *tc_rank_set_job(struct tc_rank_set *s,
		const struct tc_spill *aside) {
	tc_rank_set_sort(s);
	s->aside = aside;
	free(s->facts);
	s->facts = tc_xcalloc(s->n ? s->n : 1, sizeof(*s->facts));
	for (size_t k = 0; k < s->n; k++) {
		const Tracectl__Rank *r = s->v[k];
		s->facts[k] = (struct tc_job_rank){ .name = r->name, .input = r->input,
			.number = r->number, .world_size = r->world_size, .n_devices = r->n_devices,
			.first_ps = r->first_ps, .span_ps = r->span_ps, .event_count = r->event_count,
			.steps_source = r->steps && r->steps->source ? r->steps->source : "",
			.n_steps_all = r->steps ? r->steps->n_all : 0,
			.n_util = r->result ? r->result->n_util : 0, .n_mem = r->n_mem };
	}
	s->jr = (struct tc_job_ranks){ .v = s->facts, .n = s->n, .ctx = s,
		.skeleton = job_skeleton, .clock = job_clock, .result = job_result,
		.steps = job_steps, .exposed = job_exposed, .collectives = job_collectives,
		.op_table = job_op_table };
	return &s->jr;
}
