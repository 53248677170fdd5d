/*
 * What both trace writers lay out before the events: the devices and
 * tracks with kept events, each track's thread id, the kept counter
 * samples and allocator records, and each event's args.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/export_plan.h"
#include "util/xalloc.h"

bool tc_export_sample_kept(const struct tc_model *m, const struct tc_selection *sel, size_t i) {
	const struct tc_counter *c = &m->counters[m->samples.counter[i]];
	return m->samples.ts[i] >= sel->sample_lo && m->samples.ts[i] <= sel->sample_hi &&
		tc_selection_device(sel, m, c->device);
}

bool tc_export_alloc_kept(const struct tc_model *m, const struct tc_selection *sel, size_t i) {
	const struct tc_alloc *a = &m->allocs[i];
	return a->ts >= sel->sample_lo && a->ts <= sel->sample_hi &&
		tc_selection_device(sel, m, a->device);
}

void tc_export_samples(const struct tc_model *m, const struct tc_selection *sel,
		void (*fn)(void *ctx, uint32_t counter, int64_t ts_ps, double v), void *ctx,
		uint64_t *nonfinite) {
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ctr = &m->counters[c];
		for (size_t i = ctr->first; i < ctr->first + ctr->count; i++) {
			if (!tc_export_sample_kept(m, sel, i)) {
				continue;
			}
			if (!isfinite(m->samples.value[i])) {
				(*nonfinite)++;
				continue;
			}
			fn(ctx, (uint32_t)c, m->samples.ts[i], m->samples.value[i]);
		}
	}
}

struct curve_emit {
	const struct tc_model *m;
	const struct tc_selection *sel;
	size_t curve;
	void (*fn)(void *ctx, size_t curve, int64_t ts_ps, double v);
	void *ctx;
	bool any;     /* set_used only: a point is kept */
};

static void curve_emit(void *ctx, size_t rec, int64_t ts, double v) {
	struct curve_emit *e = ctx;
	if (tc_export_alloc_kept(e->m, e->sel, rec)) {
		if (e->fn) {
			e->fn(e->ctx, e->curve, ts, v);
		}
		e->any = true;
	}
}

void tc_export_curve_samples(const struct tc_model *m, const struct tc_selection *sel,
		const struct tc_export_plan *p,
		void (*fn)(void *ctx, size_t curve, int64_t ts_ps, double v), void *ctx) {
	for (size_t k = 0; k < p->n_curves; k++) {
		struct curve_emit e = { m, sel, k, fn, ctx, false };
		if (p->curve_used[k]) {
			tc_mem_curve_walk(m, &p->curves[k], curve_emit, &e);
		}
	}
}

/* The curves, which have a kept point, and their devices. */
static void plan_curves(struct tc_export_plan *p, const struct tc_model *m,
		const struct tc_selection *sel) {
	p->n_curves = tc_mem_curves(m, &p->curves);
	p->curve_used = tc_xcalloc(p->n_curves ? p->n_curves : 1, 1);
	for (size_t k = 0; k < p->n_curves; k++) {
		struct curve_emit e = { .m = m, .sel = sel };
		tc_mem_curve_walk(m, &p->curves[k], curve_emit, &e);
		if (e.any) {
			p->curve_used[k] = 1;
			p->pid_used[tc_export_dev(m, p->curves[k].device)] = 1;
		}
	}
}

void tc_export_plan_init(struct tc_export_plan *p, const struct tc_model *m,
		const struct tc_selection *sel, const struct tc_annotation *ann) {
	size_t nt = m->n_tracks ? m->n_tracks : 1;
	p->tid = tc_xmalloc(nt * sizeof(*p->tid));
	p->track_used = tc_xcalloc(nt, 1);
	p->pid_used = tc_xcalloc(m->n_devices + 2, 1);
	p->alloc_tid = tc_xcalloc(m->n_devices + 1, sizeof(*p->alloc_tid));
	uint32_t *next = tc_xcalloc(m->n_devices + 1, sizeof(*next));
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		uint32_t d = tc_export_dev(m, tr->device);
		p->tid[t] = ++next[d];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (tc_selection_has(sel, i)) {
				p->track_used[t] = 1;
				p->pid_used[d] = 1;
				break;
			}
		}
	}
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ctr = &m->counters[c];
		for (size_t i = ctr->first; i < ctr->first + ctr->count; i++) {
			if (tc_export_sample_kept(m, sel, i)) {
				p->pid_used[tc_export_dev(m, ctr->device)] = 1;
				break;
			}
		}
	}
	free(next);
	plan_curves(p, m, sel);
	if (ann) {
		for (size_t s = 0; s < ann->n_series; s++) {
			uint32_t d = ann->series[s].device;
			if (d != TC_NONE && d < m->n_devices) {
				p->pid_used[d] = 1;
			}
		}
	}
}

void tc_export_plan_allocs(struct tc_export_plan *p, const struct tc_model *m,
		const struct tc_selection *sel) {
	/* A record goes on the thread that asked for it when that thread's
	 * device is kept, so that thread and both devices get their names;
	 * the others on a thread of their device after its tracks. */
	for (size_t i = 0; i < m->n_allocs; i++) {
		if (!tc_export_alloc_kept(m, sel, i)) {
			continue;
		}
		const struct tc_alloc *a = &m->allocs[i];
		uint32_t d = tc_export_dev(m, a->device);
		p->pid_used[d] = 1;
		if (a->track < m->n_tracks && tc_selection_device(sel, m, m->tracks[a->track].device)) {
			p->track_used[a->track] = 1;
			p->pid_used[tc_export_dev(m, m->tracks[a->track].device)] = 1;
		} else if (!p->alloc_tid[d]) {
			p->alloc_tid[d] = 1;
			for (size_t t = 0; t < m->n_tracks; t++) {
				p->alloc_tid[d] += tc_export_dev(m, m->tracks[t].device) == d;
			}
		}
	}
}

void tc_export_plan_finish(struct tc_export_plan *p) {
	free(p->tid);
	free(p->track_used);
	free(p->pid_used);
	free(p->alloc_tid);
	free(p->curves);
	free(p->curve_used);
}

void tc_export_args_begin(struct tc_export_args *k, const struct tc_model *m) {
	if (!k->stamp || ++k->now == 0) {
		if (!k->stamp) {
			k->n_stamp = m->strings.n;
			k->stamp = tc_xmalloc((k->n_stamp ? k->n_stamp : 1) * sizeof(*k->stamp));
		}
		memset(k->stamp, 0, k->n_stamp * sizeof(*k->stamp));
		k->now = 1;
	}
	k->op_kind = k->flops = k->bytes = false;
}

/* Was key written for this event already? Marks it written. */
static bool key_seen(struct tc_export_args *k, uint32_t key) {
	if (key >= k->n_stamp) {
		return false; /* not an interned id: nothing to compare with */
	}
	if (k->stamp[key] == k->now) {
		return true;
	}
	k->stamp[key] = k->now;
	return false;
}

bool tc_export_args_next(struct tc_export_args *k, const struct tc_model *m, uint32_t *p,
		struct tc_arg *a) {
	while (*p != TC_NONE) {
		*p = tc_model_arg_next(m, *p, a);
		if (key_seen(k, a->key)) {
			continue;
		}
		k->op_kind |= strcmp(tc_model_str(m, a->key), "op_kind") == 0;
		k->flops |= a->key == m->key.flops;
		k->bytes |= a->key == m->key.bytes_accessed;
		return true;
	}
	return false;
}

void tc_export_args_finish(struct tc_export_args *k) {
	free(k->stamp);
}
