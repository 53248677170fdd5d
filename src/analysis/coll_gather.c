/*
 * A rank's collective occurrences from its model, keyed as cross-rank
 * matching reads them (analysis/collectives.c): group, name, and the Seq
 * Kineto records or else the occurrence's number in (group, name).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/coll_gather.h"
#include "model/rank.h"
#include "util/xalloc.h"

static bool has_prefix_ci(const char *s, const char *p) {
	for (; *p; s++, p++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		if (c != *p) {
			return false;
		}
	}
	return true;
}

/* Bytes per element of a Kineto dtype name; 0 unknown. */
static double dtype_size(const char *t) {
	static const struct {
		const char *name;
		double size;
	} v[] = {
		{ "double", 8 }, { "float64", 8 }, { "long", 8 }, { "int64", 8 },
		{ "bfloat16", 2 }, { "half", 2 }, { "float16", 2 }, { "short", 2 },
		{ "float", 4 }, { "int", 4 }, { "float32", 4 }, { "int32", 4 },
		{ "byte", 1 }, { "char", 1 }, { "bool", 1 }, { "uint8", 1 }, { "int8", 1 },
		{ "float8", 1 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (has_prefix_ci(t, v[i].name) && strlen(t) == strlen(v[i].name)) {
			return v[i].size;
		}
	}
	return 0;
}

uint32_t tc_coll_table_host(const struct tc_model *m) {
	for (size_t h = 0; h < m->n_hosts; h++) {
		if (m->hosts[h].rank >= 0) {
			return (uint32_t)h;
		}
	}
	return 0;
}

/* The device of rank with the most device collectives, TC_NONE none. */
static uint32_t busiest_device(const struct tc_model *m, int32_t rank) {
	uint64_t *per_dev = tc_xcalloc(m->n_devices + 1, sizeof(*per_dev));
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->device >= m->n_devices || tc_model_device_rank(m, tr->device) != rank ||
				!tc_track_kind_is_device_work((enum tc_track_kind)tr->kind)) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			const struct tc_op *op = &m->ops[m->ev.op[i]];
			per_dev[tr->device] += op->kind == TC_OP_COLLECTIVE &&
				!(op->flags & TC_OPF_ASYNC_DONE);
		}
	}
	uint32_t dev = TC_NONE;
	for (size_t d = 0; d < m->n_devices; d++) {
		if (per_dev[d] && (dev == TC_NONE || per_dev[d] > per_dev[dev])) {
			dev = (uint32_t)d;
		}
	}
	free(per_dev);
	return dev;
}

static uint32_t table_str(struct tc_coll_table *t, const struct tc_model *m, uint32_t id) {
	return tc_intern_n(&t->strings, tc_model_str(m, id), tc_intern_len(&m->strings, id));
}

/* Event i's occurrence, its names interned into t. */
static struct tc_coll_occ occurrence(const struct tc_model *m, size_t i,
		struct tc_coll_table *t) {
	const struct tc_op *op = &m->ops[m->ev.op[i]];
	uint32_t args = tc_model_event_args(m, i);
	struct tc_arg a;
	struct tc_coll_occ o = { .start_ps = m->ev.start[i], .dur_ps = m->ev.dur[i], .bytes = -1,
		.index = UINT64_MAX };
	uint32_t name = op->name, group = 0;
	if (tc_model_arg_find(m, args, m->key.coll_name, &a) && a.type == TC_ARG_STR) {
		name = a.v.s;
	}
	if (tc_model_arg_find(m, args, m->key.pg_name, &a) && a.type == TC_ARG_STR) {
		group = a.v.s;
	} else if (tc_model_arg_find(m, args, m->key.pg_ranks, &a) && a.type == TC_ARG_STR) {
		group = a.v.s;
	}
	o.name = table_str(t, m, name);
	o.group = table_str(t, m, group);
	int64_t seq;
	bool has_seq = tc_model_arg_i64(m, args, m->key.seq, &seq);
	if (has_seq && seq >= 0) {
		o.index = (uint64_t)seq;
	}
	t->seq_all &= has_seq;
	double ne;
	if (tc_model_arg_num(m, args, m->key.in_nelems, &ne) && ne >= 0 &&
			tc_model_arg_find(m, args, m->key.dtype, &a) && a.type == TC_ARG_STR &&
			dtype_size(tc_model_str(m, a.v.s)) > 0) {
		o.bytes = ne * dtype_size(tc_model_str(m, a.v.s));
	} else if (tc_model_arg_num(m, args, m->key.bytes, &ne) && ne >= 0) {
		o.bytes = ne;
	}
	if (!tc_model_arg_i64(m, args, m->key.group_size, &o.group_size)) {
		o.group_size = 0;
	}
	return o;
}

/* An occurrence and where it was found, for a stable time order. */
struct at {
	struct tc_coll_occ o;
	size_t pos;
};

static int cmp_time(const void *pa, const void *pb) {
	const struct at *a = pa, *b = pb;
	if (a->o.group != b->o.group) {
		return a->o.group < b->o.group ? -1 : 1;
	}
	if (a->o.name != b->o.name) {
		return a->o.name < b->o.name ? -1 : 1;
	}
	if (a->o.start_ps != b->o.start_ps) {
		return a->o.start_ps < b->o.start_ps ? -1 : 1;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Without Seq on every occurrence, each (group, name)'s are numbered in
 * time order, ties in the order found (tracks, then events). */
static void number_by_time(struct tc_coll_table *t) {
	if (!t->n) {
		return;
	}
	struct at *v = tc_xmalloc(t->n * sizeof(*v));
	for (size_t i = 0; i < t->n; i++) {
		v[i] = (struct at){ t->v[i], i };
	}
	tc_sort(v, t->n, sizeof(*v), cmp_time);
	uint64_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		bool same = i > 0 && v[i].o.group == v[i - 1].o.group &&
			v[i].o.name == v[i - 1].o.name;
		k = same ? k + 1 : 0;
		t->v[i] = v[i].o;
		t->v[i].index = k;
	}
	free(v);
}

void tc_coll_table_build(const struct tc_model *m, uint32_t h, struct tc_coll_table *t) {
	int32_t rank = h < m->n_hosts ? m->hosts[h].rank : -1;
	uint32_t dev = busiest_device(m, rank);
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		bool on_dev = dev != TC_NONE && tr->device == dev &&
			tc_track_kind_is_device_work((enum tc_track_kind)tr->kind);
		bool on_host = dev == TC_NONE && tr->device < m->n_devices &&
			m->devices[tr->device].host == h && m->devices[tr->device].kind == TC_DEV_CPU;
		if (!on_dev && !on_host) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			const struct tc_op *op = &m->ops[m->ev.op[i]];
			if (on_dev ? op->kind != TC_OP_COLLECTIVE || (op->flags & TC_OPF_ASYNC_DONE) :
					!has_prefix_ci(tc_model_str(m, op->name), "gloo:")) {
				continue;
			}
			struct tc_coll_occ o = occurrence(m, i, t);
			tc_coll_table_add(t, &o);
		}
	}
	bool seq = t->n > 0;
	for (size_t i = 0; i < t->n; i++) {
		seq &= t->v[i].index != UINT64_MAX;
	}
	if (!seq) {
		number_by_time(t);
	}
	/* A job keeps every rank's table until matching: no spare room. */
	if (t->cap > t->n && t->n) {
		t->v = tc_xrealloc(t->v, t->n * sizeof(*t->v));
		t->cap = t->n;
	}
}
