/*
 * How well a device's kernels fill it, for the small-batch rule: over the
 * counted steps, kernel time, the part carrying Kineto's blocks per SM and
 * the part under a threshold of them, short-kernel time, and occupancy.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include "analysis/fill.h"
#include "analysis/passes.h"
#include "util/pair.h"
#include "util/xalloc.h"

/* Sums of the kernels among events [*i, end) starting before lim, which
 * fill_measure takes; *i ends past them. args: the kernels may carry
 * blocks per SM and occupancy (inlined twice, so the loop without them
 * keeps its sums in registers). */
struct fill_walk {
	const struct tc_model *m;
	const uint8_t *is_kern;
	int64_t short_ps;
	double blocks_th;
	uint32_t k_blocks, k_occ;
	int64_t *op_ps;
	int64_t kern, with, low, shrt, occ_dur;
	double occ;
};

static inline size_t fill_range(struct fill_walk *w, size_t i, size_t end, int64_t lim,
		bool args) {
	const struct tc_model *m = w->m;
	const uint32_t *ops = m->ev.op;
	const int64_t *start = m->ev.start, *durs = m->ev.dur;
	const uint8_t *is_kern = w->is_kern;
	int64_t *op_ps = w->op_ps;
	const int64_t short_ps = w->short_ps;
	int64_t kern = 0, with = 0, lowt = 0, shortt = 0, occ_dur = 0;
	double occ = 0;
	if (!args) {
		/* Masks, not a branch: kernels and other ops interleave (NCCL
		 * kernels among compute ones), and a non-kernel adds 0. */
		for (; i < end && start[i] < lim; i++) {
			uint32_t op = ops[i];
			int64_t dur = durs[i], kd = dur & -(int64_t)is_kern[op];
			int64_t sd = kd & -(int64_t)(dur < short_ps);
			kern += kd;
			shortt += sd;
			op_ps[op] += sd;
		}
		w->kern += kern;
		w->shrt += shortt;
		return i;
	}
	for (; i < end && start[i] < lim; i++) {
		uint32_t op = ops[i];
		int64_t dur = durs[i];
		if (!is_kern[op]) {
			continue;
		}
		kern += dur;
		bool low = false;
		if (args) {
			struct tc_arg ka[2];
			unsigned have = tc_model_arg_find2(m, tc_model_event_args(m, i),
				w->k_blocks, w->k_occ, ka);
			double v;
			if ((have & 1) && tc_model_arg_value_num(m, &ka[0], &v)) {
				with += dur;
				low = v < w->blocks_th;
				lowt += low ? dur : 0;
			}
			if ((have & 2) && tc_model_arg_value_num(m, &ka[1], &v)) {
				occ += v * (double)dur;
				occ_dur += dur;
			}
		}
		shortt += dur < short_ps ? dur : 0;
		op_ps[op] += low || dur < short_ps ? dur : 0;
	}
	w->kern += kern;
	w->with += with;
	w->low += lowt;
	w->shrt += shortt;
	w->occ += occ;
	w->occ_dur += occ_dur;
	return i;
}

/* fill_measure over several devices, from a shared counter. */
struct fill_job {
	const struct tc_model *m;
	const struct tc_analysis *a;
	const struct tc_op_sums *sums; /* the usage pass's, or NULL */
	int64_t short_ps;
	double blocks_th;
	const uint32_t *dev;
	const uint32_t *track_kinds;
	struct tc_fill *fl;
	size_t n;
	atomic_size_t next;
};

/* Events [i, end) of a line that do not count, out of w's sums: where
 * the usage pass's op sums stand for the line's events, the counted ones
 * are those less these (the same integer sums). */
static void fill_less(struct fill_walk *w, size_t i, size_t end) {
	const uint32_t *ops = w->m->ev.op;
	const int64_t *durs = w->m->ev.dur;
	for (; i < end; i++) {
		int64_t dur = durs[i], kd = dur & -(int64_t)w->is_kern[ops[i]];
		int64_t sd = kd & -(int64_t)(dur < w->short_ps);
		w->kern -= kd;
		w->shrt -= sd;
		w->op_ps[ops[i]] -= sd;
	}
}

/* Whether the usage pass's op sums stand for device d's lines they
 * summed: kernels' args unread, the sums' short bound the fill's, no sum
 * saturated, and every line summed one of work[0..nt), d's. */
static bool sums_fit(const struct fill_job *j, const uint32_t *work, size_t nt) {
	const struct tc_model *m = j->m;
	const struct tc_op_sums *s = j->sums;
	if (!s || m->fill_args || s->under != j->short_ps) {
		return false;
	}
	for (size_t o = 0; o < m->n_ops; o++) {
		if (s->op[o].total == INT64_MAX) {
			return false;
		}
	}
	size_t summed = 0, in_work = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		summed += s->done[t];
	}
	for (size_t t = 0; t < nt; t++) {
		in_work += s->done[work[t]];
	}
	return summed == in_work;
}

/* track_kinds: per model track, the op kinds the usage pass found on it
 * (0 unknown): lines without kernels are not walked. */
static void fill_measure(const struct fill_job *j, uint32_t d, struct tc_fill *fl) {
	const struct tc_model *m = j->m;
	const uint32_t *track_kinds = j->track_kinds;
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	size_t nt = 0;
	uint32_t *work = tc_device_work_tracks(m, &dt, d, &nt);
	tc_device_tracks_finish(&dt);
	/* A byte per op: the op records would crowd the cache. */
	uint8_t *is_kern = tc_xmalloc(m->n_ops ? m->n_ops : 1);
	for (size_t o = 0; o < m->n_ops; o++) {
		is_kern[o] = m->ops[o].kind == TC_OP_KERNEL;
	}
	struct fill_walk w = { .m = m, .is_kern = is_kern,
		.short_ps = j->short_ps, .blocks_th = j->blocks_th,
		.k_blocks = m->key.blocks_per_sm, .k_occ = m->key.occupancy, .op_ps = fl->op_ps };
	/* The lines the usage pass summed: their kernels' sums less the
	 * events outside the counted steps, mostly few. */
	const bool sums = sums_fit(j, work, nt);
	for (size_t t = 0; t < nt; t++) {
		uint32_t tk = track_kinds[work[t]];
		if (tk && !(tk & TC_KIND_BIT(TC_OP_KERNEL))) {
			continue;
		}
		const struct tc_track *tr = &m->tracks[work[t]];
		size_t at = 0, i = tr->first, end = (size_t)tr->first + tr->count;
		int64_t lim;
		if (sums && j->sums->done[work[t]]) {
			size_t from = i;
			while (tc_step_counted_run(j->a, &at, m->ev.start, &i, end, &lim)) {
				fill_less(&w, from, i);
				i = from = tc_model_first_start_from(m, i, end, lim);
			}
			fill_less(&w, from, end);
			continue;
		}
		while (tc_step_counted_run(j->a, &at, m->ev.start, &i, end, &lim)) {
			i = m->fill_args ? fill_range(&w, i, end, lim, true) :
				fill_range(&w, i, end, lim, false);
		}
	}
	for (size_t o = 0; sums && o < m->n_ops; o++) {
		const struct tc_op_acc *s = &j->sums->op[o];
		if (is_kern[o] && s->count) {
			w.kern += s->total;
			w.shrt += (int64_t)s->under_ps;
			w.op_ps[o] += (int64_t)s->under_ps;
		}
	}
	free(is_kern);
	fl->kern_ps += w.kern;
	fl->with_ps += w.with;
	fl->low_ps += w.low;
	fl->short_ps += w.shrt;
	fl->occ_ps += w.occ;
	fl->occ_dur_ps += w.occ_dur;
	free(work);
}

static void *fill_worker(void *p) {
	struct fill_job *j = p;
	size_t k;
	while ((k = atomic_fetch_add(&j->next, 1)) < j->n) {
		/* Summed on the stack: the slots share cache lines. */
		struct tc_fill fl = j->fl[k];
		fill_measure(j, j->dev[k], &fl);
		j->fl[k] = fl;
	}
	return NULL;
}

struct tc_fill *tc_fill_measure(const struct tc_model *m, const struct tc_analysis *a,
		const uint32_t *dev, size_t n, const uint32_t *track_kinds, int64_t short_ps,
		double blocks_th, const struct tc_op_sums *sums, bool threaded) {
	struct fill_job job = { .m = m, .a = a, .sums = sums, .short_ps = short_ps,
		.blocks_th = blocks_th,
		.dev = dev, .track_kinds = track_kinds, .n = n,
		.fl = tc_xcalloc(n ? n : 1, sizeof(*job.fl)) };
	for (size_t k = 0; k < n; k++) {
		job.fl[k].op_ps = tc_xcalloc(m->n_ops ? m->n_ops : 1, sizeof(int64_t));
	}
	atomic_init(&job.next, 0);
	tc_run_pair(fill_worker, &job, &job, threaded);
	return job.fl;
}
