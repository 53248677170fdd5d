/*
 * A model of several ranks: each rank analysed alone on a sub-model of
 * its hosts (tc_rank_parts_analyze), and the job's rank table, matched
 * collectives and wait for the late rank composed from those results by
 * the composer a job of digests uses too (tc_ranks_compose).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/coll_gather.h"
#include "analysis/passes.h"
#include "analysis/ranks.h"
#include "analysis/straggler.h"
#include "model/rank.h"
#include "util/num.h"
#include "util/xalloc.h"

static int cmp_i64(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

static int cmp_rank(const void *pa, const void *pb) {
	const struct tc_rank_result *a = pa, *b = pb;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

void tc_rank_fill(struct tc_rank_result *rr, const struct tc_analysis *a) {
	rr->device = a->bd_device;
	rr->steps_source = a->steps_source;
	rr->n_steps = a->n_steps_counted;
	rr->slowest_num = -1;
	size_t n_full = tc_steps_full(a->steps, a->n_steps);
	for (size_t i = 0; i < a->n_steps; i++) {
		if (tc_step_counted(&a->steps[i], n_full) && a->steps[i].dur_ps > rr->slowest_ps) {
			rr->slowest_ps = a->steps[i].dur_ps;
			rr->slowest_num = a->steps[i].num;
		}
	}
	int64_t n = a->n_steps_counted ? (int64_t)a->n_steps_counted : 1;
	rr->step_ps = a->step_total_ps / n;
	rr->compute_ps = a->cat_total_ps[TC_BD_COMPUTE] / n;
	rr->comm_ps = a->cat_total_ps[TC_BD_COLLECTIVE] / n;
	rr->idle_ps = a->cat_total_ps[TC_BD_IDLE] / n;
}

/*
 * The job's attribution of a device of another rank than the breakdown
 * device's was measured against that rank's steps on another clock: take
 * the rank's own instead. Per-step rows carry over when both count the
 * same steps.
 */
static void own_attr(struct tc_analysis *job, const struct tc_analysis *pr, int32_t rank,
		const struct tc_model *m) {
	for (size_t k = 0; k < job->n_attr; k++) {
		struct tc_dev_attr *at = &job->attr[k];
		if (tc_model_device_rank(m, at->device) != rank ||
				tc_model_device_rank(m, job->bd_device) == rank) {
			continue;
		}
		const struct tc_dev_attr *own = NULL;
		for (size_t j = 0; j < pr->n_attr && !own; j++) {
			own = pr->attr[j].device == at->device ? &pr->attr[j] : NULL;
		}
		if (!own) {
			continue;
		}
		at->step_ps = own->step_ps;
		at->busy_ps = own->busy_ps;
		memcpy(at->cat_ps, own->cat_ps, sizeof(at->cat_ps));
		free(at->step_cat);
		at->step_cat = NULL;
		if (pr->n_steps == job->n_steps && job->n_steps) {
			at->step_cat = tc_xmalloc(job->n_steps * TC_BD_COUNT * sizeof(*at->step_cat));
			memcpy(at->step_cat, own->step_cat,
				job->n_steps * TC_BD_COUNT * sizeof(*at->step_cat));
		}
	}
}

/* A model's ranks as the composer reads them (tc_rank_source). */
struct model_ranks {
	const struct tc_model *m;
	const struct tc_rank_parts *p;
};

static void model_steps(void *ctx, size_t k, struct tc_step_times *t) {
	const struct model_ranks *mr = ctx;
	tc_step_times_analysis_get(mr->p->per, k, t);
}

/*
 * The waits of rank k's devices for the late rank (waits), on the steps
 * their attribution was measured on: the job's for the breakdown device's
 * rank, the rank's own for the others (own_attr), from their collective
 * time per step.
 */
static void model_wait(void *ctx, size_t k, int32_t rank, const struct tc_ivals *waits,
		struct tc_analysis *job) {
	const struct model_ranks *mr = ctx;
	int32_t bd_rank = tc_model_device_rank(mr->m, job->bd_device);
	const struct tc_analysis *a = rank == bd_rank ? job : &mr->p->per[k];
	for (size_t j = 0; j < job->n_attr; j++) {
		struct tc_dev_attr *at = &job->attr[j];
		if (tc_model_device_rank(mr->m, at->device) != rank) {
			continue;
		}
		const struct tc_dev_attr *own = NULL;
		for (size_t i = 0; i < a->n_attr && !own; i++) {
			own = a->attr[i].device == at->device ? &a->attr[i] : NULL;
		}
		if (!a->n_steps || !own || !own->step_cat) {
			continue;
		}
		if (at->step_cat) {
			at->step_wait = tc_xcalloc(a->n_steps, sizeof(*at->step_wait));
		}
		struct tc_step_times st;
		tc_step_times_from(a, &st);
		int64_t *coll = tc_xmalloc(a->n_steps * sizeof(*coll));
		for (size_t i = 0; i < a->n_steps; i++) {
			coll[i] = own->step_cat[i * TC_BD_COUNT + TC_BD_COLLECTIVE];
		}
		at->wait_ps = tc_sat_add(at->wait_ps, tc_straggler_wait(waits, &st, coll,
			at->step_wait));
		free(coll);
		tc_step_times_finish(&st);
	}
}

/* r's spread of mean step time and its slowest rank, from r->v. */
static void spread(struct tc_ranks *r) {
	int64_t *t = tc_xmalloc((r->n ? r->n : 1) * sizeof(*t));
	for (size_t k = 0; k < r->n; k++) {
		t[k] = r->v[k].step_ps;
		if (r->v[k].step_ps > r->v[r->slowest].step_ps) {
			r->slowest = k;
		}
	}
	qsort(t, r->n, sizeof(*t), cmp_i64);
	if (r->n) {
		r->step_min_ps = t[0];
		r->step_max_ps = t[r->n - 1];
		r->step_median_ps = r->n % 2 ? t[r->n / 2] : (t[r->n / 2 - 1] + t[r->n / 2]) / 2;
	}
	free(t);
}

struct tc_ivals *tc_ranks_compose(struct tc_ranks *r, struct tc_coll_rows *rows,
		const struct tc_intern *names, const struct tc_rank_source *src,
		const struct tc_analysis_opts *o, struct tc_analysis *job) {
	spread(r);
	struct tc_ivals *waits = job ? tc_xcalloc(r->n, sizeof(*waits)) : NULL;
	struct tc_step_source steps = { src->steps, src->ctx };
	tc_pass_collectives(rows, names, r, &steps, waits);
	tc_coll_rows_destroy(rows);
	/* Only for the straggler finding, which the rules make only then. */
	bool due = job && tc_straggler_due_pct(r, o) >= 0;
	for (size_t k = 0; due && k < r->n; k++) {
		if (waits[k].n) {
			src->wait(src->ctx, k, r->v[k].rank, &waits[k], job);
		}
	}
	for (size_t k = 0; waits && !due && k < r->n; k++) {
		tc_ivals_finish(&waits[k]);
	}
	if (!due) {
		free(waits);
		waits = NULL;
	}
	return waits;
}

void tc_rank_parts_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_rank_parts *p) {
	memset(p, 0, sizeof(*p));
	if (tc_model_n_ranks(m) < 2) {
		return;
	}
	p->v = tc_xcalloc(m->n_hosts, sizeof(*p->v));
	for (size_t h = 0; h < m->n_hosts; h++) {
		const struct tc_host *ho = &m->hosts[h];
		p->world_size = ho->world_size > p->world_size ? ho->world_size : p->world_size;
		bool seen = false;
		for (size_t k = 0; k < p->n && !seen; k++) {
			seen = p->v[k].rank == ho->rank;
		}
		if (ho->rank >= 0 && !seen) {
			p->v[p->n++] = (struct tc_rank_result){ .rank = ho->rank, .host = (uint32_t)h,
				.device = TC_NONE, .slowest_num = -1 };
		}
	}
	qsort(p->v, p->n, sizeof(*p->v), cmp_rank);
	/* Each rank on its own devices and clock; --device names one device
	 * of the job, not one per rank. */
	struct tc_analysis_opts ro = *o;
	ro.device = NULL;
	ro.threads = 1;
	p->per = tc_xcalloc(p->n, sizeof(*p->per));
	p->rows = tc_coll_rows_create(p->n);
	uint8_t *keep = tc_xcalloc(m->n_hosts, 1);
	for (size_t k = 0; k < p->n; k++) {
		for (size_t h = 0; h < m->n_hosts; h++) {
			keep[h] = m->hosts[h].rank == p->v[k].rank;
		}
		struct tc_model *sub = tc_model_subset(m, keep);
		tc_analyze(sub, &ro, TC_AN_BREAKDOWN, &p->per[k]);
		tc_rank_fill(&p->v[k], &p->per[k]);
		/* A sub-model keeps m's times (and origin), so the table and the
		 * rank's steps are on the clock the merged model gives it. */
		struct tc_coll_table tab;
		tc_coll_table_init(&tab);
		tc_coll_table_build(sub, p->v[k].host, &tab);
		/* The table's names as m's ids (a sub-model interns m's strings
		 * in order, so every one is there): instances are named and
		 * ordered by them as before. */
		uint32_t *ids = tc_xmalloc((tab.strings.n ? tab.strings.n : 1) * sizeof(*ids));
		for (size_t i = 0; i < tab.strings.n; i++) {
			ids[i] = tc_intern_find(&m->strings, tab.strings.v[i].s, tab.strings.v[i].len);
		}
		tc_coll_rows_add(p->rows, k, &tab, ids);
		free(ids);
		tc_coll_table_finish(&tab);
		/* Steps and results name devices and ops by m's ids; only the
		 * sub-model's own memory goes. */
		tc_model_destroy(sub);
	}
	free(keep);
}

void tc_rank_parts_finish(struct tc_rank_parts *p) {
	for (size_t k = 0; p->per && k < p->n; k++) {
		tc_analysis_finish(&p->per[k]);
	}
	free(p->per);
	free(p->v);
	tc_coll_rows_destroy(p->rows);
	memset(p, 0, sizeof(*p));
}

void tc_pass_ranks(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_rank_parts *p, struct tc_analysis *job) {
	struct tc_ranks *r = &job->ranks;
	memset(r, 0, sizeof(*r));
	if (!p->n) {
		return;
	}
	r->v = p->v;
	r->n = p->n;
	r->world_size = p->world_size;
	p->v = NULL;
	for (size_t k = 0; k < r->n; k++) {
		own_attr(job, &p->per[k], r->v[k].rank, m);
	}
	struct model_ranks mr = { m, p };
	struct tc_rank_source src = { model_steps, model_wait, &mr };
	struct tc_ivals *waits = tc_ranks_compose(r, p->rows, &m->strings, &src, o, job);
	p->rows = NULL;
	for (size_t k = 0; waits && k < r->n; k++) {
		tc_ivals_finish(&waits[k]);
	}
	free(waits);
}
