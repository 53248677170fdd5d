/* tc_model_merge: moving one model's contents into another. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/model_private.h"
#include "util/num.h"
#include "util/prefault.h"
#include "util/xalloc.h"

/* ---- merge ---- */

static uint32_t remap_str(const uint32_t *map, uint32_t id) {
	return id == TC_NONE ? TC_NONE : map[id];
}

static uint32_t off(uint32_t idx, size_t base) {
	return idx == TC_NONE ? TC_NONE : idx + (uint32_t)base;
}

/* A src arg list's offset → its copy's in dst. */
struct list_map {
	uint32_t *from, *to;
	size_t n, cap;
};

/*
 * Copy src's arg lists into dst, re-encoded: keys and string values take
 * dst's string ids, which can change the records' lengths, so each list's
 * new offset is recorded (lists are contiguous and walked in order; the
 * offsets come out sorted for arg_map).
 */
static void merge_args(struct tc_model *dst, struct tc_model *src, const uint32_t *smap,
		struct list_map *lm) {
	tc_model_args_close(dst);
	tc_model_args_close(src);
	size_t cap_to = 0;
	bool start = true;
	for (uint32_t pos = 0; pos < src->n_argb;) {
		if (start) {
			TC_GROW(lm->from, lm->cap, lm->n + 1);
			TC_GROW(lm->to, cap_to, lm->n + 1);
			lm->from[lm->n] = pos;
			lm->to[lm->n++] = tc_model_args_begin(dst);
		}
		struct tc_arg a;
		pos = tc_model_arg_decode(src, pos, &a, &start);
		a.key = smap[a.key];
		if (a.type == TC_ARG_STR) {
			a.v.s = smap[a.v.s];
		}
		tc_model_arg_add(dst, &a);
		if (start && dst->over_arg_bytes) {
			lm->to[lm->n - 1] = TC_NONE;
		}
	}
	tc_model_args_close(dst);
}

static uint32_t arg_map(const struct list_map *lm, uint32_t first) {
	if (first == TC_NONE) {
		return TC_NONE;
	}
	size_t lo = 0, hi = lm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lm->from[mid] < first) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < lm->n && lm->from[lo] == first ? lm->to[lo] : TC_NONE;
}

/* Where src's rows land in dst: the first index of each table before the
 * merge, src's strings as dst's, its arg lists' new places and the shift of
 * its timeline onto dst's. */
struct bases {
	size_t src, host, dev, track, op, ev, ctr;
	const uint32_t *smap;
	struct list_map *lm;
	int64_t shift;
};

/* The picoseconds that put src's timeline on dst's, 0 when their clocks
 * cannot be aligned (with a warning). */
static int64_t merge_shift(struct tc_model *dst, const struct tc_model *src) {
	if (dst->n_sources == 0 && dst->ev.n == 0) {
		dst->origin_ns = src->origin_ns;
		dst->origin_epoch = src->origin_epoch;
	} else if (dst->origin_epoch == src->origin_epoch) {
		int64_t d = src->origin_ns - dst->origin_ns;
		if (d > INT64_MAX / 1000 || d < INT64_MIN / 1000) {
			tc_model_warn(dst, 1, "inputs' time bases are too far apart to align; each starts at 0");
		} else {
			return d * 1000;
		}
	} else {
		tc_model_warn(dst, 1, "inputs use different clocks; their timelines are aligned at their origins");
	}
	return 0;
}

static void merge_places(struct tc_model *dst, const struct tc_model *src,
		const struct bases *b) {
	for (size_t i = 0; i < src->n_sources; i++) {
		struct tc_source s = src->sources[i];
		s.path = b->smap[s.path];
		s.format = b->smap[s.format];
		s.compression = b->smap[s.compression];
		s.writer = s.writer ? b->smap[s.writer] : 0;
		s.host = off(s.host, b->host);
		TC_GROW(dst->sources, dst->cap_sources, dst->n_sources + 1);
		dst->sources[dst->n_sources++] = s;
	}
	for (size_t i = 0; i < src->n_hosts; i++) {
		struct tc_host h = src->hosts[i];
		h.name = b->smap[h.name];
		h.source = off(h.source, b->src);
		TC_GROW(dst->hosts, dst->cap_hosts, dst->n_hosts + 1);
		dst->hosts[dst->n_hosts++] = h;
	}
}

static void merge_devices(struct tc_model *dst, const struct tc_model *src,
		const struct bases *b) {
	for (size_t i = 0; i < src->n_devices; i++) {
		struct tc_device d = src->devices[i];
		d.name = b->smap[d.name];
		d.model = b->smap[d.model];
		d.vendor = b->smap[d.vendor];
		d.host = off(d.host, b->host);
		d.args = arg_map(b->lm, d.args);
		TC_GROW(dst->devices, dst->cap_devices, dst->n_devices + 1);
		dst->devices[dst->n_devices++] = d;
	}
	for (size_t i = 0; i < src->n_tracks; i++) {
		struct tc_track t = src->tracks[i];
		t.name = b->smap[t.name];
		t.device = off(t.device, b->dev);
		t.parent = off(t.parent, b->track);
		TC_GROW(dst->tracks, dst->cap_tracks, dst->n_tracks + 1);
		dst->tracks[dst->n_tracks++] = t;
	}
}

/* Events and aggregates; ops are already merged. */
static void merge_events(struct tc_model *dst, const struct tc_model *src,
		const struct bases *b) {
	tc_model_events_reserve(&dst->ev, dst->ev.n + src->ev.n);
	for (size_t i = 0; i < src->ev.n; i++) {
		size_t j = dst->ev.n++;
		int64_t st = tc_sat_add(src->ev.start[i], b->shift);
		if (st > TC_MAX_ABS_PS || st < -TC_MAX_ABS_PS) {
			st = st > 0 ? TC_MAX_ABS_PS : -TC_MAX_ABS_PS;
			dst->n_implausible++;
		}
		dst->ev.start[j] = st;
		dst->ev.dur[j] = src->ev.dur[i];
		dst->ev.op[j] = off(src->ev.op[i], b->op);
		dst->ev.track[j] = off(src->ev.track[i], b->track);
		tc_model_set_event_args(dst, j, arg_map(b->lm, tc_model_event_args(src, i)));
		dst->ev.flags[j] = src->ev.flags[i];
	}
	for (size_t i = 0; i < src->n_aggs; i++) {
		const struct tc_aggregate *a = &src->aggs[i];
		tc_model_add_aggregate(dst, off(a->track, b->track), off(a->op, b->op),
			a->count, a->dur_ps);
	}
}

/* Counters with their samples, and flows. */
static void merge_series(struct tc_model *dst, const struct tc_model *src,
		const struct bases *b) {
	for (size_t i = 0; i < src->n_counters; i++) {
		struct tc_counter c = src->counters[i];
		c.name = b->smap[c.name];
		c.unit = b->smap[c.unit];
		c.group = b->smap[c.group];
		c.device = off(c.device, b->dev);
		TC_GROW(dst->counters, dst->cap_counters, dst->n_counters + 1);
		dst->counters[dst->n_counters++] = c;
	}
	for (size_t i = 0; i < src->samples.n; i++) {
		tc_model_add_sample(dst, off(src->samples.counter[i], b->ctr),
			tc_sat_add(src->samples.ts[i], b->shift), src->samples.value[i]);
	}
	for (size_t i = 0; i < src->n_allocs; i++) {
		struct tc_alloc a = src->allocs[i];
		a.ts = tc_sat_add(a.ts, b->shift);
		a.device = off(a.device, b->dev);
		a.track = off(a.track, b->track);
		a.group = b->smap[a.group];
		a.op = remap_str(b->smap, a.op);
		a.shape = remap_str(b->smap, a.shape);
		a.dtype = remap_str(b->smap, a.dtype);
		tc_model_add_alloc(dst, &a);
	}
	for (size_t i = 0; i < src->n_flows; i++) {
		const struct tc_flow *f = &src->flows[i];
		tc_model_add_flow(dst, off(f->from, b->ev), off(f->to, b->ev),
			(enum tc_flow_kind)f->kind, f->id);
	}
}

/* Leaves src empty but valid. */
static void leave_empty(struct tc_model *src) {
	tc_model_events_finish(&src->ev);
	src->n_sources = src->n_hosts = src->n_devices = src->n_tracks = 0;
	src->n_argb = 0;
	src->n_aggs = src->n_counters = src->n_flows = src->n_warnings = 0;
	src->n_allocs = 0;
	src->samples.n = 0;
	src->n_ops = 0;
	tc_model_op_rehash(src, src->op_nslots);
}

void tc_model_merge(struct tc_model *dst, struct tc_model *src) {
	/* A finalized model has no track column: bring it back to copy it. */
	tc_model_restore_track_column(dst);
	tc_model_restore_track_column(src);
	uint32_t *smap = tc_xmalloc(src->strings.n * sizeof(*smap));
	for (size_t i = 0; i < src->strings.n; i++) {
		smap[i] = tc_intern_n(&dst->strings, src->strings.v[i].s, src->strings.v[i].len);
	}
	struct list_map lm = {0};
	int64_t shift = merge_shift(dst, src);
	struct bases b = {
		.src = dst->n_sources, .host = dst->n_hosts, .dev = dst->n_devices,
		.track = dst->n_tracks, .op = dst->n_ops, .ev = dst->ev.n,
		.ctr = dst->n_counters, .smap = smap, .lm = &lm,
		.shift = shift,
	};
	merge_places(dst, src, &b);
	/* The copied lists would set event_costs from ops' lists too: the
	 * flag is the inputs' own. */
	bool event_costs = dst->event_costs;
	merge_args(dst, src, smap, &lm);
	dst->over_arg_bytes = dst->over_arg_bytes || src->over_arg_bytes;
	dst->event_costs = event_costs || src->event_costs;
	/* src's lists are copied, not built here: nothing notes their costs. */
	tc_model_costs_unnoted(dst);
	dst->fill_args = dst->fill_args || src->fill_args;
	dst->copy_args = dst->copy_args || src->copy_args;
	merge_devices(dst, src, &b);
	for (size_t i = 0; i < src->n_ops; i++) {
		const struct tc_op *o = &src->ops[i];
		uint32_t id = tc_model_add_op(dst, smap[o->name], remap_str(smap, o->category),
			(enum tc_op_kind)o->kind);
		dst->ops[id].flags = o->flags;
		dst->ops[id].flops = o->flops;
		dst->ops[id].bytes = o->bytes;
		dst->ops[id].args = arg_map(&lm, o->args);
	}
	merge_events(dst, src, &b);
	merge_series(dst, src, &b);
	tc_model_warn_from(dst, src);
	free(smap);
	free(lm.from);
	free(lm.to);
	dst->n_implausible += src->n_implausible;
	dst->n_negative_dur += src->n_negative_dur;
	dst->finalized = false;

	leave_empty(src);
}

