/* tc_model_subset: a copy of the part of a model that some hosts hold. */
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/model_private.h"
#include "model/rank.h"
#include "util/xalloc.h"

struct tc_model *tc_model_subset(const struct tc_model *m, const uint8_t *keep_host) {
	struct tc_model *s = tc_model_create();
	/* Both models interned the well-known keys first, so interning m's
	 * strings in order gives every string its id in m: ops, arg lists
	 * and names copy unchanged. */
	for (size_t i = 0; i < m->strings.n; i++) {
		tc_intern_n(&s->strings, m->strings.v[i].s, m->strings.v[i].len);
	}
	s->origin_ns = m->origin_ns;
	s->origin_epoch = m->origin_epoch;
	s->event_costs = m->event_costs;
	/* m's lists are taken, not built here: nothing notes their costs. */
	tc_model_costs_unnoted(s);
	s->fill_args = m->fill_args;
	s->copy_args = m->copy_args;
	s->known_args_only = m->known_args_only;
	for (size_t i = 0; i < m->n_sources; i++) {
		TC_GROW(s->sources, s->cap_sources, s->n_sources + 1);
		s->sources[s->n_sources++] = m->sources[i];
	}
	for (size_t i = 0; i < m->n_hosts; i++) {
		TC_GROW(s->hosts, s->cap_hosts, s->n_hosts + 1);
		s->hosts[s->n_hosts++] = m->hosts[i];
		/* Hosts left out are no rank of this model. */
		if (!keep_host[i]) {
			s->hosts[i].rank = -1;
			s->hosts[i].rank_from = TC_RANK_NONE;
		}
	}
	/* Every device, so device ids match m's; only the kept ones get tracks. */
	for (size_t i = 0; i < m->n_devices; i++) {
		TC_GROW(s->devices, s->cap_devices, s->n_devices + 1);
		s->devices[s->n_devices++] = m->devices[i];
	}
	TC_GROW(s->argb, s->cap_argb, m->n_argb ? m->n_argb : 1);
	if (m->n_argb) {
		memcpy(s->argb, m->argb, m->n_argb);
	}
	s->n_argb = m->n_argb;
	for (size_t i = 0; i < m->n_ops; i++) {
		const struct tc_op *o = &m->ops[i];
		uint32_t id = tc_model_add_op(s, o->name, o->category, (enum tc_op_kind)o->kind);
		s->ops[id] = *o;
	}
	uint32_t *ev_map = tc_xmalloc((m->ev.n ? m->ev.n : 1) * sizeof(*ev_map));
	for (size_t i = 0; i < m->ev.n; i++) {
		ev_map[i] = TC_NONE;
	}
	uint32_t *tr_map = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*tr_map));
	for (size_t t = 0; t < m->n_tracks; t++) {
		tr_map[t] = TC_NONE;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		uint32_t h = tr->device < m->n_devices ? m->devices[tr->device].host : TC_NONE;
		if (h >= m->n_hosts || !keep_host[h]) {
			continue;
		}
		uint32_t nt = tc_model_add_track(s, tr->device, tr->name,
			(enum tc_track_kind)tr->kind, tr->src_id);
		s->tracks[nt].sort = tr->sort;
		tr_map[t] = nt;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint32_t e = tc_model_add_event(s, nt, m->ev.op[i], m->ev.start[i], m->ev.dur[i],
				m->ev.flags[i]);
			tc_model_set_event_args(s, e, tc_model_event_args(m, i));
			ev_map[i] = e;
		}
	}
	for (size_t i = 0; i < m->n_flows; i++) {
		const struct tc_flow *f = &m->flows[i];
		if (f->from < m->ev.n && f->to < m->ev.n && ev_map[f->from] != TC_NONE &&
				ev_map[f->to] != TC_NONE) {
			tc_model_add_flow(s, ev_map[f->from], ev_map[f->to], (enum tc_flow_kind)f->kind,
				f->id);
		}
	}
	free(ev_map);
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *k = &m->counters[c];
		uint32_t h = k->device < m->n_devices ? m->devices[k->device].host : TC_NONE;
		if (h >= m->n_hosts || !keep_host[h]) {
			continue;
		}
		uint32_t nc = tc_model_counter(s, k->device, k->name, k->unit, k->group);
		for (size_t i = k->first; i < k->first + k->count; i++) {
			tc_model_add_sample(s, nc, m->samples.ts[i], m->samples.value[i]);
		}
	}
	for (size_t i = 0; i < m->n_allocs; i++) {
		struct tc_alloc a = m->allocs[i];
		uint32_t h = a.device < m->n_devices ? m->devices[a.device].host : TC_NONE;
		if (h >= m->n_hosts || !keep_host[h]) {
			continue;
		}
		a.track = a.track < m->n_tracks ? tr_map[a.track] : TC_NONE;
		tc_model_add_alloc(s, &a);
	}
	free(tr_map);
	tc_model_finalize(s);
	return s;
}
