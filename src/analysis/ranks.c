/* Per-rank step attribution: each rank analysed on its own sub-model. */
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

/*
 * Of each attributed device's collective time, the part its rank spent
 * waiting for r->straggler (waits[k] for rank r->v[k]), on the steps its
 * attribution was measured on: the job's for the breakdown device's rank,
 * the rank's own for the others (own_attr). In each step it is the lesser
 * of the waits inside the step and the device's collective time there
 * (tc_straggler_step_wait).
 */
static void straggler_wait(const struct tc_model *m, const struct tc_ranks *r,
		const struct tc_ivals *waits, const struct tc_analysis *per, struct tc_analysis *job) {
	int32_t bd_rank = tc_model_device_rank(m, job->bd_device);
	for (size_t j = 0; j < job->n_attr; j++) {
		struct tc_dev_attr *at = &job->attr[j];
		int32_t rank = tc_model_device_rank(m, at->device);
		size_t k = 0;
		while (k < r->n && r->v[k].rank != rank) {
			k++;
		}
		if (k == r->n || waits[k].n == 0) {
			continue;
		}
		const struct tc_analysis *a = rank == bd_rank ? job : &per[k];
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
		at->wait_ps = tc_sat_add(at->wait_ps, tc_straggler_wait(&waits[k], &st, coll,
			at->step_wait));
		free(coll);
		tc_step_times_finish(&st);
	}
}

void tc_ranks_spread(struct tc_ranks *r) {
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

void tc_ranks_analyze(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_ranks *r) {
	tc_pass_ranks(m, o, r, NULL);
}

void tc_pass_ranks(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_ranks *r, struct tc_analysis *job) {
	memset(r, 0, sizeof(*r));
	if (tc_model_n_ranks(m) < 2) {
		return;
	}
	r->v = tc_xcalloc(m->n_hosts, sizeof(*r->v));
	for (size_t h = 0; h < m->n_hosts; h++) {
		const struct tc_host *ho = &m->hosts[h];
		r->world_size = ho->world_size > r->world_size ? ho->world_size : r->world_size;
		bool seen = false;
		for (size_t k = 0; k < r->n && !seen; k++) {
			seen = r->v[k].rank == ho->rank;
		}
		if (ho->rank >= 0 && !seen) {
			r->v[r->n++] = (struct tc_rank_result){ .rank = ho->rank, .host = (uint32_t)h,
				.device = TC_NONE, .slowest_num = -1 };
		}
	}
	qsort(r->v, r->n, sizeof(*r->v), cmp_rank);
	/* Each rank on its own devices and clock; --device names one device
	 * of the job, not one per rank. */
	struct tc_analysis_opts ro = *o;
	ro.device = NULL;
	ro.threads = 1;
	struct tc_analysis *per = tc_xcalloc(r->n, sizeof(*per));
	struct tc_coll_rows *rows = tc_coll_rows_create(r->n);
	uint8_t *keep = tc_xcalloc(m->n_hosts, 1);
	for (size_t k = 0; k < r->n; k++) {
		for (size_t h = 0; h < m->n_hosts; h++) {
			keep[h] = m->hosts[h].rank == r->v[k].rank;
		}
		struct tc_model *sub = tc_model_subset(m, keep);
		tc_analyze(sub, &ro, TC_AN_BREAKDOWN, &per[k]);
		tc_rank_fill(&r->v[k], &per[k]);
		if (job) {
			own_attr(job, &per[k], r->v[k].rank, m);
		}
		/* A sub-model keeps m's times (and origin), so the table and the
		 * rank's steps are on the clock the merged model gives it. */
		struct tc_coll_table tab;
		tc_coll_table_init(&tab);
		tc_coll_table_build(sub, r->v[k].host, &tab);
		/* The table's names as m's ids (a sub-model interns m's strings
		 * in order, so every one is there): instances are named and
		 * ordered by them as before. */
		uint32_t *ids = tc_xmalloc((tab.strings.n ? tab.strings.n : 1) * sizeof(*ids));
		for (size_t i = 0; i < tab.strings.n; i++) {
			ids[i] = tc_intern_find(&m->strings, tab.strings.v[i].s, tab.strings.v[i].len);
		}
		tc_coll_rows_add(rows, k, &tab, ids);
		free(ids);
		tc_coll_table_finish(&tab);
		/* Steps and results name devices and ops by m's ids; only the
		 * sub-model's own memory goes. */
		tc_model_destroy(sub);
	}
	free(keep);
	tc_ranks_spread(r);
	struct tc_ivals *waits = job ? tc_xcalloc(r->n, sizeof(*waits)) : NULL;
	/* Each rank's steps from its own analysis. */
	struct tc_step_source src = { tc_step_times_analysis_get, per };
	tc_pass_collectives(rows, &m->strings, r, &src, waits);
	tc_coll_rows_destroy(rows);
	/* Only for the straggler finding, which the rules make only then. */
	if (job && tc_straggler_due_pct(r, o) >= 0) {
		straggler_wait(m, r, waits, per, job);
	}
	for (size_t k = 0; waits && k < r->n; k++) {
		tc_ivals_finish(&waits[k]);
	}
	free(waits);
	for (size_t k = 0; k < r->n; k++) {
		tc_analysis_finish(&per[k]);
	}
	free(per);
}
