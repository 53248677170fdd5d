/*
 * Allocator records as live bytes over time: the pairing step memory by op
 * walks them with, the rule for the bytes live when the trace starts, and
 * the allocated-memory curves of devices the trace gives no counter for.
 */
#include <stdlib.h>
#include "model/memcurve.h"
#include "util/xalloc.h"

enum tc_alloc_seen tc_alloc_run_add(struct tc_alloc_run *s, const struct tc_alloc *a, size_t r,
		uint32_t *alloc_rec) {
	enum tc_alloc_seen seen;
	uint32_t *at = tc_u64map_find(&s->live, a->addr);
	if (!s->records++) {
		s->peak_rec = s->top_rec = r;
		s->top_cum = a->bytes;
	}
	if (a->bytes > 0) {
		seen = at && *at != TC_NONE ? TC_AS_REUSE : TC_AS_ALLOC;
		tc_u64map_put(&s->live, a->addr, (uint32_t)r);
	} else if (at && *at != TC_NONE) {
		seen = TC_AS_PAIRED;
		*alloc_rec = *at;
		*at = TC_NONE;
	} else {
		seen = TC_AS_EARLY;
		s->early_frees -= a->bytes;
	}
	s->cum += a->bytes;
	if (a->total >= 0 && !s->have_total) {
		s->have_total = true;
		s->total_base = a->total - s->cum;
	}
	if (s->cum > s->max_cum) {
		s->max_cum = s->cum;
		s->peak_rec = r;
	}
	if (s->cum > s->top_cum) {
		s->top_cum = s->cum;
		s->top_rec = r;
	}
	return seen;
}

int64_t tc_alloc_run_baseline(const struct tc_alloc_run *s) {
	return s->have_total ? s->total_base : s->early_frees;
}

void tc_alloc_run_finish(struct tc_alloc_run *s) {
	tc_u64map_finish(&s->live);
}

static int cmp_curve(const void *pa, const void *pb) {
	const struct tc_mem_curve *a = pa, *b = pb;
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	return a->group < b->group ? -1 : a->group > b->group;
}

/* Devices with a memory.allocated counter of their own: their records
 * draw no curve (the trace's counter is the curve). */
static uint8_t *counted_devices(const struct tc_model *m) {
	uint8_t *has = tc_xcalloc(m->n_devices + 1, 1);
	uint32_t alloc = tc_intern_find(&m->strings, "memory.allocated", 16);
	for (size_t c = 0; c < m->n_counters && alloc != TC_NONE; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if (ct->name == alloc && ct->count) {
			has[ct->device < m->n_devices ? ct->device : m->n_devices] = 1;
		}
	}
	return has;
}

size_t tc_mem_curves(const struct tc_model *m, struct tc_mem_curve **out) {
	*out = NULL;
	if (!m->n_allocs) {
		return 0;
	}
	uint8_t *has = counted_devices(m);
	struct tc_mem_curve *v = NULL;
	struct tc_alloc_run *run = NULL;
	size_t n = 0, cap = 0, cap_run = 0, last = SIZE_MAX;
	for (size_t r = 0; r < m->n_allocs; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		if (has[a->device < m->n_devices ? a->device : m->n_devices]) {
			continue;
		}
		size_t k = last;
		if (k >= n || v[k].device != a->device || v[k].group != a->group) {
			for (k = 0; k < n && (v[k].device != a->device || v[k].group != a->group); k++) {
			}
			if (k == n) {
				TC_GROW(v, cap, n + 1);
				TC_GROW(run, cap_run, n + 1);
				v[n] = (struct tc_mem_curve){ .device = a->device, .group = a->group };
				run[n] = (struct tc_alloc_run){ 0 };
				n++;
			}
			last = k;
		}
		uint32_t paired;
		tc_alloc_run_add(&run[k], a, r, &paired);
	}
	for (size_t k = 0; k < n; k++) {
		struct tc_mem_curve *c = &v[k];
		c->records = run[k].records;
		c->baseline = tc_alloc_run_baseline(&run[k]);
		c->peak_bytes = c->baseline + run[k].top_cum;
		c->peak_ps = m->allocs[run[k].top_rec].ts;
		tc_alloc_run_finish(&run[k]);
	}
	free(run);
	free(has);
	if (n > 1) {
		qsort(v, n, sizeof(*v), cmp_curve);
	}
	*out = v;
	return n;
}

void tc_mem_curve_walk(const struct tc_model *m, const struct tc_mem_curve *c,
		void (*fn)(void *ctx, size_t rec, int64_t ts_ps, double bytes), void *ctx) {
	int64_t cum = c->baseline;
	for (size_t r = 0; r < m->n_allocs; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		if (a->device == c->device && a->group == c->group) {
			cum += a->bytes;
			fn(ctx, r, a->ts, (double)cum);
		}
	}
}
