/* A job's analysis composed from its ranks' own results (job.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/intervals.h"
#include "analysis/job.h"
#include "analysis/passes.h"
#include "analysis/ranks.h"
#include "analysis/straggler.h"
#include "model/coll_table.h"
#include "model/rank.h"
#include "util/num.h"
#include "util/xalloc.h"

struct tc_model *tc_job_skeleton(const struct tc_job_ranks *jr) {
	struct tc_model *m = jr->skeleton(jr->ctx);
	uint32_t base = 0;
	for (size_t k = 0; k < jr->n; k++) {
		const struct tc_job_rank *r = &jr->v[k];
		uint32_t h = TC_NONE;
		for (size_t i = 0; i < m->n_hosts && h == TC_NONE; i++) {
			h = m->hosts[i].source == k ? (uint32_t)i : TC_NONE;
		}
		/* A file naming no host stands for one, as in a merged model. */
		if (h == TC_NONE) {
			const char *slash = strrchr(r->input, '/');
			h = tc_model_add_host(m, tc_model_intern(m, slash ? slash + 1 : r->input),
				(uint32_t)k);
			if (r->number >= 0 && r->number <= INT32_MAX) {
				m->hosts[h].rank = (int32_t)r->number;
				m->hosts[h].rank_from = TC_RANK_READER;
			}
			for (size_t d = base; d < base + r->n_devices; d++) {
				m->devices[d].host = m->devices[d].host == TC_NONE ? h : m->devices[d].host;
			}
		}
		m->hosts[h].world_size = r->world_size;
		base += (uint32_t)r->n_devices;
	}
	tc_model_assign_ranks(m);
	return m;
}

/* ---- each rank's own analysis on the job's clock ---- */

/* a + b wrapped, not undefined: a digest's times are input. */
static inline int64_t wrap_add(int64_t a, int64_t b) {
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

#define SHIFT(x) ((x) = wrap_add((x), dt))

static void shift_summary(struct tc_summary *s, int64_t dt) {
	if (s->n_events || s->span_from_samples) {
		SHIFT(s->first_ps);
		SHIFT(s->last_ps);
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		SHIFT(s->devices[i].first_ps);
		SHIFT(s->devices[i].last_ps);
	}
	for (size_t i = 0; s->steps && i < s->n_steps; i++) {
		SHIFT(s->steps[i].start_ps);
	}
	for (size_t i = 0; i < s->n_counters; i++) {
		SHIFT(s->counters[i].first_ps);
		SHIFT(s->counters[i].last_ps);
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		SHIFT(s->threads[i].first_ps);
		SHIFT(s->threads[i].last_ps);
	}
}

static void shift(struct tc_analysis *a, int64_t dt) {
	for (size_t i = 0; i < a->n_steps; i++) {
		SHIFT(a->steps[i].start_ps);
		SHIFT(a->steps[i].marker_start_ps);
	}
	if (a->n_steps || a->window_hi_ps > a->window_lo_ps) {
		SHIFT(a->window_lo_ps);
		SHIFT(a->window_hi_ps);
	}
	for (size_t i = 0; i < a->n_util; i++) {
		SHIFT(a->util[i].first_ps);
		SHIFT(a->util[i].last_ps);
	}
	for (size_t i = 0; i < a->n_mem; i++) {
		if (a->mem[i].samples) {
			SHIFT(a->mem[i].peak_ts_ps);
		}
	}
	if (a->compile.n_events) {
		SHIFT(a->compile.first_ps);
		SHIFT(a->compile.last_ps);
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		struct tc_finding *f = &a->findings[i];
		if (f->window_hi_ps > f->window_lo_ps || f->window_lo_ps) {
			SHIFT(f->window_lo_ps);
			SHIFT(f->window_hi_ps);
		}
	}
	shift_summary(&a->summary, dt);
}

#undef SHIFT

size_t tc_job_breakdown_rank(const struct tc_job_ranks *jr) {
	const struct tc_job_rank *v = jr->v;
	for (size_t k = 0; k < jr->n; k++) {
		if (strcmp(v[k].steps_source, "device markers") == 0) {
			return k;
		}
	}
	size_t best = SIZE_MAX;
	for (size_t k = 0; k < jr->n; k++) {
		if (strcmp(v[k].steps_source, "host markers") == 0 &&
				(best == SIZE_MAX || v[k].n_steps_all > v[best].n_steps_all)) {
			best = k;
		}
	}
	return best == SIZE_MAX ? 0 : best;
}

/* ---- the summary ---- */

static int cmp_op_key(const void *pa, const void *pb) {
	const struct tc_op_summary *a = pa, *b = pb;
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	if (a->category != b->category) {
		return a->category < b->category ? -1 : 1;
	}
	return (a->kind > b->kind) - (a->kind < b->kind);
}

static int cmp_step_start(const void *pa, const void *pb) {
	const struct tc_step_summary *a = pa, *b = pb;
	if (a->start_ps != b->start_ps) {
		return a->start_ps < b->start_ps ? -1 : 1;
	}
	if (a->num != b->num) {
		return a->num < b->num ? -1 : 1;
	}
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	return (a->dur_ps > b->dur_ps) - (a->dur_ps < b->dur_ps);
}

static double add_known(double a, double b) {
	return a < 0 || b < 0 ? -1 : a + b;
}

/* The ranks' op rows, appended, summed by name, category and kind. */
static void summary_ops_finish(struct tc_summary *s) {
	struct tc_op_summary *v = s->ops;
	size_t m = s->n_ops;
	tc_sort(v, m, sizeof(*v), cmp_op_key);
	size_t out = 0;
	for (size_t i = 0; i < m; i++) {
		if (out && cmp_op_key(&v[out - 1], &v[i]) == 0) {
			struct tc_op_summary *o = &v[out - 1];
			o->count += v[i].count;
			o->total_ps = tc_sat_add(o->total_ps, v[i].total_ps);
			o->self_ps = tc_sat_add(o->self_ps, v[i].self_ps);
			o->min_ps = v[i].min_ps < o->min_ps ? v[i].min_ps : o->min_ps;
			o->max_ps = v[i].max_ps > o->max_ps ? v[i].max_ps : o->max_ps;
			o->flops = add_known(o->flops, v[i].flops);
			o->bytes = add_known(o->bytes, v[i].bytes);
			o->p50_ps = o->p99_ps = -1;
		} else {
			v[out++] = v[i];
		}
	}
	tc_sort(v, out, sizeof(*v), tc_op_summary_cmp);
	s->n_ops = out;
}

#define APPEND(v, n, cap, src, m) do { \
	TC_GROW(v, cap, (n) + (m)); \
	if (m) { \
		memcpy((v) + (n), src, (m) * sizeof(*(v))); \
	} \
	(n) += (m); \
} while (0)

/* The job's summary, rank by rank. */
struct summary_acc {
	struct tc_summary s;
	size_t cap_dev, cap_ops, cap_cnt, cap_thr;
	bool any, samples_only;
	/* Device step lines win over host markers, and of several devices'
	 * the first one's are listed, as in one model. A rank that only
	 * counted its steps makes the job count them too. */
	struct step_set {
		struct tc_step_summary *v;
		size_t n, cap;
		uint64_t count;
		int64_t sum, min, max;
		bool counted;
	} host, dev;
	bool have_dev;
};

static void steps_add(struct step_set *t, const struct tc_summary *x) {
	if (!x->n_steps) {
		return;
	}
	t->min = !t->count || x->steps_min_ps < t->min ? x->steps_min_ps : t->min;
	t->max = !t->count || x->steps_max_ps > t->max ? x->steps_max_ps : t->max;
	t->count += x->n_steps;
	t->sum = tc_sat_add(t->sum, x->steps_sum_ps);
	if (x->steps) {
		APPEND(t->v, t->n, t->cap, x->steps, x->n_steps);
	} else {
		t->counted = true;
	}
}

static void summary_add(struct summary_acc *acc, const struct tc_summary *x) {
	struct tc_summary *s = &acc->s;
	if (x->n_events || x->span_from_samples) {
		s->first_ps = !acc->any || x->first_ps < s->first_ps ? x->first_ps : s->first_ps;
		s->last_ps = !acc->any || x->last_ps > s->last_ps ? x->last_ps : s->last_ps;
		acc->samples_only = (acc->any ? acc->samples_only : true) && x->span_from_samples;
		acc->any = true;
	}
	s->n_events += x->n_events;
	s->n_aggregated += x->n_aggregated;
	s->ops_busy_ps = tc_sat_add(s->ops_busy_ps, x->ops_busy_ps);
	if (x->ops_scope && (!s->ops_scope || strcmp(x->ops_scope, "device") == 0)) {
		s->ops_scope = x->ops_scope;
	}
	if (x->steps_source && !s->steps_source) {
		s->steps_source = x->steps_source;
	}
	APPEND(s->devices, s->n_devices, acc->cap_dev, x->devices, x->n_devices);
	APPEND(s->ops, s->n_ops, acc->cap_ops, x->ops, x->n_ops);
	APPEND(s->counters, s->n_counters, acc->cap_cnt, x->counters, x->n_counters);
	APPEND(s->threads, s->n_threads, acc->cap_thr, x->threads, x->n_threads);
	if (x->steps_source && strcmp(x->steps_source, "device") == 0) {
		if (!acc->have_dev) {
			steps_add(&acc->dev, x);
			acc->have_dev = true;
		}
	} else if (x->n_steps > acc->host.count) {
		/* One rank's host markers, the rank with the most, as the steps
		 * pass takes them (tc_job_breakdown_rank): ranks repeat steps. */
		free(acc->host.v);
		memset(&acc->host, 0, sizeof(acc->host));
		steps_add(&acc->host, x);
	}
}

static void summary_finish(struct summary_acc *acc, const struct tc_analysis_opts *o) {
	struct tc_summary *s = &acc->s;
	s->span_from_samples = acc->any && acc->samples_only;
	struct step_set *t = acc->have_dev ? &acc->dev : &acc->host;
	free(acc->have_dev ? acc->host.v : acc->dev.v);
	if (acc->have_dev) {
		s->steps_source = "device";
	}
	if (t->counted) {
		free(t->v);
		s->n_steps = t->count;
		s->steps_sum_ps = t->sum;
		s->steps_min_ps = t->count ? t->min : INT64_MAX;
		s->steps_max_ps = t->count ? t->max : 0;
	} else {
		s->steps = t->v;
		s->n_steps = t->n;
		tc_sort(s->steps, s->n_steps, sizeof(*s->steps), cmp_step_start);
		tc_summary_step_totals(s);
	}
	s->step_marker = o->step_marker;
	summary_ops_finish(s);
}

/* ---- copies, memory, compilation ---- */

static int cmp_centry_name(const void *pa, const void *pb) {
	const struct tc_compile_entry *a = pa, *b = pb;
	return (a->name > b->name) - (a->name < b->name);
}

/* Compilation summed over the ranks: events and their unions (each rank
 * compiles on its own host), names by how often they were compiled. */
static void compile_add(struct tc_compile_stats *c, size_t *cap,
		const struct tc_compile_stats *x) {
	if (x->n_events) {
		c->first_ps = !c->n_events || x->first_ps < c->first_ps ? x->first_ps : c->first_ps;
		c->last_ps = !c->n_events || x->last_ps > c->last_ps ? x->last_ps : c->last_ps;
	}
	c->n_events += x->n_events;
	c->union_ps = tc_sat_add(c->union_ps, x->union_ps);
	APPEND(c->recompiled, c->n_recompiled, *cap, x->recompiled, x->n_recompiled);
}

static void compile_finish(struct tc_compile_stats *c) {
	tc_sort(c->recompiled, c->n_recompiled, sizeof(*c->recompiled), cmp_centry_name);
	size_t out = 0;
	for (size_t i = 0; i < c->n_recompiled; i++) {
		if (out && c->recompiled[out - 1].name == c->recompiled[i].name) {
			c->recompiled[out - 1].count += c->recompiled[i].count;
			c->recompiled[out - 1].total_ps = tc_sat_add(c->recompiled[out - 1].total_ps,
				c->recompiled[i].total_ps);
		} else {
			c->recompiled[out++] = c->recompiled[i];
		}
	}
	c->n_recompiled = out;
	tc_sort(c->recompiled, out, sizeof(*c->recompiled), tc_compile_entry_cmp);
}

/* What the job keeps of a rank once its own analysis is merged: its
 * findings and how many devices it attributes. */
struct kept {
	struct tc_finding *findings;
	size_t n_findings;
	size_t n_attr;
};

/* What composing reads of the ranks after each one's own analysis, one
 * rank's bulk read back at a time (digest.h). */
struct job {
	struct tc_model *skel;
	const struct tc_job_ranks *jr;
	size_t n;
	const uint32_t *base;           /* rank k's first device in skel */
	const int64_t *dt;              /* rank k's time 0 on the job's clock */
	const struct kept *kp;
};

/* Rank k's steps' times on the job's clock (as its own analysis in
 * tc_job_compose had them). */
static void job_steps(const struct job *j, size_t k, struct tc_step_times *t) {
	struct tc_analysis a;
	j->jr->steps(j->jr->ctx, j->skel, k, j->base[k], &a);
	for (size_t i = 0; i < a.n_steps; i++) {
		a.steps[i].start_ps = wrap_add(a.steps[i].start_ps, j->dt[k]);
	}
	tc_step_times_from(&a, t);
	tc_analysis_finish(&a);
}

static void job_steps_get(void *ctx, size_t k, struct tc_step_times *t) {
	job_steps(ctx, k, t);
}

/* ---- collectives and the wait for the late rank ---- */

/*
 * Of each of rank k's attributed devices' collective time (the job's
 * attributions hold the ranks' one after another), the part it spent
 * waiting for the late rank (waits), over its counted steps, from the
 * exposed collective time its digest keeps per step.
 */
static void job_wait(void *ctx, size_t k, int32_t rank, const struct tc_ivals *waits,
		struct tc_analysis *a) {
	const struct job *j = ctx;
	size_t at = 0;
	for (size_t i = 0; i < k; i++) {
		at += j->kp[i].n_attr;
	}
	struct tc_step_times st;
	job_steps(j, k, &st);
	size_t nd = j->kp[k].n_attr;
	uint32_t *dev = tc_xmalloc((nd ? nd : 1) * sizeof(*dev));
	for (size_t d = 0; d < nd; d++) {
		/* A device of another rank is none of this one's. */
		uint32_t x = a->attr[at + d].device;
		dev[d] = x >= j->base[k] ? x - j->base[k] : UINT32_MAX;
	}
	int64_t *ex = tc_xmalloc((st.n && nd ? st.n * nd : 1) * sizeof(*ex));
	j->jr->exposed(j->jr->ctx, k, j->dt[k], &st, dev, nd, ex);
	for (size_t d = 0; d < nd; d++, at++) {
		struct tc_dev_attr *t = &a->attr[at];
		t->wait_ps = tc_sat_add(t->wait_ps, tc_straggler_wait(waits, &st, ex + d * st.n,
			NULL));
	}
	free(ex);
	free(dev);
	tc_step_times_finish(&st);
}

/* The rank table and the collectives; each rank's waits for the late one
 * (n lists, malloc'd) when the straggler finding is due, else NULL. */
static struct tc_ivals *ranks_and_collectives(const struct job *j,
		const struct tc_analysis_opts *o, struct tc_analysis *a) {
	/* One table unpacked at a time, set aside sorted for matching. */
	struct tc_coll_rows *rows = tc_coll_rows_create(j->n);
	for (size_t k = 0; k < j->n; k++) {
		struct tc_coll_table tab;
		tc_coll_table_init(&tab);
		if (!j->jr->collectives(j->jr->ctx, k, j->dt[k], &tab)) {
			/* A malformed table matches nothing. */
			tc_coll_table_finish(&tab);
			tc_coll_table_init(&tab);
		}
		const struct tc_intern *st = &tab.strings;
		uint32_t *ids = tc_xmalloc((st->n ? st->n : 1) * sizeof(*ids));
		for (size_t i = 0; i < st->n; i++) {
			ids[i] = tc_model_intern_n(j->skel, st->v[i].s, st->v[i].len);
		}
		tc_coll_rows_add(rows, k, &tab, ids);
		free(ids);
		tc_coll_table_finish(&tab);
	}
	struct tc_rank_source src = { job_steps_get, job_wait, (void *)j };
	return tc_ranks_compose(&a->ranks, rows, &j->skel->strings, &src, o, a);
}

/* ---- findings ---- */

/* launch-bound and host-bound are one rule's two verdicts. */
static const char *kind_group(const char *kind) {
	return strcmp(kind, "launch-bound") == 0 ? "host-bound" : kind;
}

/*
 * The job's communication finding, on device f->device of rank k: the
 * steps of that rank where its collective time less its wait for the
 * late rank is largest, and their window, as one model's rule picks
 * them from the device's own steps.
 */
static void comm_steps(struct tc_finding *f, const struct tc_step_times *p,
		const struct job *j, size_t k, const struct tc_ivals *wait) {
	f->n_steps = 0;
	if (!p->n) {
		return;
	}
	f->window_lo_ps = p->start[0];
	f->window_hi_ps = p->end[p->n - 1];
	int64_t *v = tc_xmalloc(p->n * sizeof(*v));
	uint32_t dev = f->device - j->base[k];
	j->jr->exposed(j->jr->ctx, k, j->dt[k], p, &dev, 1, v);
	for (size_t i = 0; wait && i < p->n; i++) {
		v[i] -= tc_straggler_step_wait(wait, p->start[i], p->end[i], v[i]);
	}
	while (f->n_steps < TC_FINDING_MAX_ITEMS) {
		int64_t best = 0;
		size_t bi = SIZE_MAX;
		for (size_t i = 0; i < p->n; i++) {
			if (v[i] > best) {
				best = v[i];
				bi = i;
			}
		}
		if (bi == SIZE_MAX) {
			break;
		}
		v[bi] = 0;
		f->steps[f->n_steps++] = p->num[bi];
	}
	free(v);
}

static void findings(const struct job *j, struct kept *pa, const struct tc_ivals *waits,
		const struct tc_analysis_opts *o, struct tc_analysis *a) {
	const struct tc_ranks *r = &a->ranks;
	size_t n = j->n;
	size_t total = 0;
	for (size_t k = 0; k < n; k++) {
		total += pa[k].n_findings;
	}
	/* Per kind: the rank's finding that explains the most, and the
	 * devices measured and over the band across all ranks. */
	struct pick {
		const char *group;
		size_t k, i;
		uint32_t measured, over;
	} *pk = tc_xcalloc(total ? total : 1, sizeof(*pk));
	size_t np = 0;
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < pa[k].n_findings; i++) {
			const struct tc_finding *f = &pa[k].findings[i];
			if (strcmp(f->kind, "communication") == 0 || strcmp(f->kind, "straggler") == 0) {
				continue;
			}
			const char *g = kind_group(f->kind);
			size_t p = 0;
			while (p < np && strcmp(pk[p].group, g) != 0) {
				p++;
			}
			if (p == np) {
				pk[np++] = (struct pick){ .group = g, .k = k, .i = i };
			} else if (tc_finding_cmp(f, &pa[pk[p].k].findings[pk[p].i]) < 0) {
				pk[p].k = k;
				pk[p].i = i;
			}
			pk[p].over += f->n_over;
		}
	}
	/* Devices measured: every rank's, whether its cause fired or not. */
	uint32_t measured = 0;
	for (size_t k = 0; k < n; k++) {
		measured += pa[k].n_attr ? (uint32_t)pa[k].n_attr : 1;
	}
	a->findings = tc_xcalloc(np ? np : 1, sizeof(*a->findings));
	for (size_t p = 0; p < np; p++) {
		struct tc_finding *src = &pa[pk[p].k].findings[pk[p].i];
		struct tc_finding *f = &a->findings[a->n_findings++];
		*f = *src;
		/* Its rank, and the cause's spread over the job's devices:
		 * output/ words them (tc_finding_wording). */
		f->has_rank = true;
		f->rank = r->v[pk[p].k].rank;
		f->n_measured = src->n_measured || src->has_spread ? measured : 0;
		f->n_over = src->n_measured || src->has_spread ? pk[p].over : 0;
		src->text = NULL;
		src->suggestion = NULL;
	}
	free(pk);
	tc_pass_rules_job(j->skel, o, a);
	for (size_t i = 0; i < a->n_findings; i++) {
		struct tc_finding *f = &a->findings[i];
		if (strcmp(f->kind, "communication") != 0 || f->device == TC_NONE) {
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			if (f->device < j->base[k] ||
					f->device >= j->base[k] + j->jr->v[k].n_devices) {
				continue;
			}
			struct tc_step_times st;
			job_steps(j, k, &st);
			comm_steps(f, &st, j, k, waits ? &waits[k] : NULL);
			tc_step_times_finish(&st);
		}
	}
}

/* ---- the job ---- */

/* The steps and their breakdown of the breakdown rank's own analysis p
 * (its steps taken by the caller). */
static void take_steps(struct tc_analysis *a, const struct tc_analysis *p) {
	a->n_steps = p->n_steps;
	a->steps = p->steps; /* taken below */
	a->n_steps_all = p->n_steps_all;
	a->steps_source = p->steps_source;
	a->steps_inferred = p->steps_inferred;
	a->steps_device = p->steps_device;
	a->bd_device = p->bd_device;
	a->n_steps_counted = p->n_steps_counted;
	a->step_total_ps = p->step_total_ps;
	memcpy(a->cat_total_ps, p->cat_total_ps, sizeof(a->cat_total_ps));
	a->window_lo_ps = p->window_lo_ps;
	a->window_hi_ps = p->window_hi_ps;
	a->trimmed_before_ps = p->trimmed_before_ps;
	a->trimmed_after_ps = p->trimmed_after_ps;
	a->startup = p->startup;
}

/* Rank k's row of the rank table before its own analysis fills it: its
 * host (k itself without one) and the largest world size. */
static void rank_row(const struct tc_model *skel, size_t k, struct tc_ranks *r) {
	uint32_t h = skel->sources[k].host;
	for (size_t i = 0; i < skel->n_hosts && h == TC_NONE; i++) {
		h = skel->hosts[i].source == k ? (uint32_t)i : TC_NONE;
	}
	r->v[k] = (struct tc_rank_result){ .rank = h != TC_NONE ? skel->hosts[h].rank :
		(int32_t)k, .host = h, .device = TC_NONE, .slowest_num = -1 };
	if (h != TC_NONE && skel->hosts[h].world_size > r->world_size) {
		r->world_size = skel->hosts[h].world_size;
	}
}

void tc_job_compose(struct tc_model *skel, const struct tc_job_ranks *jr,
		const struct tc_analysis_opts *o, struct tc_analysis *a) {
	size_t n = jr->n;
	const struct tc_job_rank *v = jr->v;
	memset(a, 0, sizeof(*a));
	/* Rank after rank allocates and frees the same big arrays. */
	tc_malloc_reuse_begin();
	int64_t *clock = tc_xmalloc(n * sizeof(*clock));
	int64_t *dt = tc_xmalloc(n * sizeof(*dt));
	uint32_t *base = tc_xmalloc(n * sizeof(*base));
	jr->clock(jr->ctx, clock);
	size_t bd = tc_job_breakdown_rank(jr);
	struct kept *kp = tc_xcalloc(n, sizeof(*kp));
	struct job j = { .skel = skel, .jr = jr, .n = n, .base = base, .dt = dt, .kp = kp };
	struct summary_acc sum = { 0 };
	size_t cap_attr = 0, cap_util = 0, cap_str = 0, cap_mem = 0, cap_comp = 0;
	struct tc_ranks *r = &a->ranks;
	r->v = tc_xcalloc(n, sizeof(*r->v));
	r->n = n;
	uint32_t b = 0;
	/* One rank's own analysis at a time: merged into the job, then all
	 * but what the job reads later is freed. */
	for (size_t k = 0; k < n; k++) {
		base[k] = b;
		b += (uint32_t)v[k].n_devices;
		/* Its times count from its first event; the job's from the
		 * job's. */
		dt[k] = wrap_add(clock[k], v[k].first_ps);
		struct tc_analysis p;
		jr->result(jr->ctx, skel, k, base[k], &p);
		shift(&p, dt[k]);
		int64_t end = wrap_add(dt[k], v[k].span_ps);
		if (v[k].event_count && end > a->span_ps) {
			a->span_ps = end;
		}
		if (k == bd) {
			take_steps(a, &p);
		}
		/* Every rank's devices, each on its own steps. */
		for (size_t i = 0; i < p.n_attr; i++) {
			p.attr[i].step_cat = NULL;
			p.attr[i].step_wait = NULL;
		}
		APPEND(a->attr, a->n_attr, cap_attr, p.attr, p.n_attr);
		APPEND(a->util, a->n_util, cap_util, p.util, p.n_util);
		APPEND(a->streams, a->n_streams, cap_str, p.streams, p.n_streams);
		APPEND(a->mem, a->n_mem, cap_mem, p.mem, p.n_mem);
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			tc_xfer_stats_add(&a->xfer[d], &p.xfer[d]);
		}
		compile_add(&a->compile, &cap_comp, &p.compile);
		summary_add(&sum, &p.summary);
		/* Framework and runtime: the first rank's; what is in use: any's. */
		if (k == 0) {
			a->runtime = p.runtime;
		}
		a->runtime.evidence |= p.runtime.evidence;
		rank_row(skel, k, r);
		tc_rank_fill(&r->v[k], &p);
		kp[k].findings = p.findings;
		kp[k].n_findings = p.n_findings;
		kp[k].n_attr = p.n_attr;
		p.findings = NULL;
		p.n_findings = 0;
		if (k == bd) {
			p.steps = NULL;
		}
		tc_analysis_finish(&p);
	}
	/* Left out of the job's trace, which starts at 0. */
	if (a->n_steps) {
		a->trimmed_before_ps = a->window_lo_ps > 0 ? a->window_lo_ps : 0;
		a->trimmed_after_ps = a->span_ps > a->window_hi_ps ?
			tc_ivals_gap(a->window_hi_ps, a->span_ps) : 0;
	}
	a->step_marker = o->step_marker;
	summary_finish(&sum, o);
	a->summary = sum.s;
	compile_finish(&a->compile);
	jr->op_table(jr->ctx, skel, "name", &a->ops);
	struct tc_ivals *waits = ranks_and_collectives(&j, o, a);
	findings(&j, kp, waits, o, a);
	for (size_t k = 0; k < n; k++) {
		if (waits) {
			tc_ivals_finish(&waits[k]);
		}
		for (size_t i = 0; i < kp[k].n_findings; i++) {
			free(kp[k].findings[i].text);
			free(kp[k].findings[i].suggestion);
		}
		free(kp[k].findings);
	}
	free(waits);
	free(kp);
	free(clock);
	free(dt);
	free(base);
	tc_malloc_reuse_end();
}
