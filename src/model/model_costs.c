/*
 * Events' FLOPs and bytes accessed: resolved once per model into a packed
 * cost-key column (struct tc_costs, model.h), so the per-event walks read
 * a column instead of searching every event's args; and the per-event
 * look-ups, which read that column too.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/model_private.h"
#include "util/xalloc.h"

/* The column and table tc_model_costs hands out, with the arrays it owns. */
struct costs_made {
	struct tc_costs pub;
	uint32_t *key;           /* NULL where pub.key is ev.op */
	struct tc_op_cost *cost;
	uint32_t *op;
	size_t cap;
};

/* Made on first use, under lock: the passes on both analysis threads ask. */
struct tc_costs_cache {
	pthread_mutex_t lock;
	_Atomic(struct costs_made *) made;
};

void tc_model_costs_init(struct tc_model *m) {
	m->costs_cache = tc_xcalloc(1, sizeof(*m->costs_cache));
	pthread_mutex_init(&m->costs_cache->lock, NULL);
	atomic_init(&m->costs_cache->made, NULL);
}

static void made_free(struct costs_made *c) {
	if (c) {
		free(c->key);
		free(c->cost);
		free(c->op);
		free(c);
	}
}

void tc_model_costs_drop(struct tc_model *m) {
	if (m->costs_cache) {
		made_free(atomic_exchange(&m->costs_cache->made, NULL));
	}
}

void tc_model_costs_finish(struct tc_model *m) {
	if (m->costs_cache) {
		tc_model_costs_drop(m);
		pthread_mutex_destroy(&m->costs_cache->lock);
		free(m->costs_cache);
		m->costs_cache = NULL;
	}
}

/* tc_model_arg_value_i64 with its integer cases in line. */
static inline bool arg_i64(const struct tc_model *m, const struct tc_arg *a, int64_t *v) {
	if (a->type == TC_ARG_INT || a->type == TC_ARG_BOOL) {
		*v = a->v.i;
		return true;
	}
	if (a->type == TC_ARG_UINT) {
		*v = (int64_t)a->v.u;
		return true;
	}
	return tc_model_arg_value_i64(m, a, v);
}

/* The arg search the column resolves once: the list at args (TC_NONE:
 * none) overrides *flops and *bytes with its first number of each key. */
static void costs_search(const struct tc_model *m, uint32_t args, int64_t *flops,
		int64_t *bytes) {
	if (args == TC_NONE) {
		return;
	}
	struct tc_arg a[2];
	unsigned found = tc_model_arg_find2(m, args, m->key.flops, m->key.bytes_accessed, a);
	int64_t v;
	if ((found & 1) && arg_i64(m, &a[0], &v)) {
		*flops = v;
	}
	if ((found & 2) && arg_i64(m, &a[1], &v)) {
		*bytes = v;
	}
}

/* The distinct (op, flops, bytes) keys past the ops', by hash: slots hold
 * key + 1 (0 empty). */
struct dedup {
	uint32_t *slot;
	size_t cap, n; /* cap a power of two, at most half full */
};

static size_t dedup_hash(uint32_t op, int64_t f, int64_t b, size_t cap) {
	uint64_t h = (uint64_t)op * 0x9e3779b97f4a7c15ull ^ (uint64_t)f;
	h = (h ^ h >> 29) * 0xbf58476d1ce4e5b9ull ^ (uint64_t)b;
	h = (h ^ h >> 32) * 0x94d049bb133111ebull;
	return (size_t)(h ^ h >> 31) & (cap - 1);
}

static void dedup_grow(struct dedup *d, const struct costs_made *c) {
	size_t cap = d->cap ? d->cap * 2 : 256;
	uint32_t *slot = tc_xcalloc(cap, sizeof(*slot));
	for (size_t i = 0; i < d->cap; i++) {
		uint32_t k = d->slot[i];
		if (k) {
			const struct tc_op_cost *v = &c->cost[k - 1];
			size_t j = dedup_hash(c->op[k - 1], v->flops, v->bytes, cap);
			while (slot[j]) {
				j = (j + 1) & (cap - 1);
			}
			slot[j] = k;
		}
	}
	free(d->slot);
	d->slot = slot;
	d->cap = cap;
}

/* The key of (op, f, b), added to c's table if new. */
static uint32_t dedup_key(struct dedup *d, struct costs_made *c, uint32_t op, int64_t f,
		int64_t b) {
	if (2 * (d->n + 1) > d->cap) {
		dedup_grow(d, c);
	}
	size_t j = dedup_hash(op, f, b, d->cap);
	for (; d->slot[j]; j = (j + 1) & (d->cap - 1)) {
		uint32_t k = d->slot[j] - 1;
		if (c->op[k] == op && c->cost[k].flops == f && c->cost[k].bytes == b) {
			return k;
		}
	}
	uint32_t k = (uint32_t)c->pub.n;
	TC_GROW(c->cost, c->cap, c->pub.n + 1);
	c->op = tc_xrealloc(c->op, c->cap * sizeof(*c->op));
	c->cost[k] = (struct tc_op_cost){ f, b };
	c->op[k] = op;
	c->pub.n++;
	d->slot[j] = k + 1;
	d->n++;
	return k;
}

/* Each event's key: its op's where its args override neither cost, else
 * that of its (op, flops, bytes). Ops' costs hardly vary between their
 * events, so the key each op got last is tried before the hash. */
static void keys_make(const struct tc_model *m, struct costs_made *c) {
	size_t n = m->ev.n;
	c->key = tc_xmalloc((n ? n : 1) * sizeof(*c->key));
	uint32_t *last = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*last));
	for (size_t o = 0; o < m->n_ops; o++) {
		last[o] = (uint32_t)o;
	}
	struct dedup d = { 0 };
	const uint32_t *op = m->ev.op;
	for (size_t i = 0; i < n; i++) {
		uint32_t o = op[i], args = tc_model_event_args(m, i);
		if (args == TC_NONE) {
			c->key[i] = o;
			continue;
		}
		int64_t f = m->ops[o].flops, b = m->ops[o].bytes;
		costs_search(m, args, &f, &b);
		uint32_t k = last[o];
		if (c->cost[k].flops != f || c->cost[k].bytes != b) {
			k = f == m->ops[o].flops && b == m->ops[o].bytes ? o : dedup_key(&d, c, o, f, b);
			last[o] = k;
		}
		c->key[i] = k;
	}
	free(d.slot);
	free(last);
}

static struct costs_made *costs_make(const struct tc_model *m) {
	struct costs_made *c = tc_xcalloc(1, sizeof(*c));
	c->cap = m->n_ops ? m->n_ops : 1;
	c->cost = tc_xmalloc(c->cap * sizeof(*c->cost));
	c->op = tc_xmalloc(c->cap * sizeof(*c->op));
	for (size_t o = 0; o < m->n_ops; o++) {
		c->cost[o] = (struct tc_op_cost){ m->ops[o].flops, m->ops[o].bytes };
		c->op[o] = (uint32_t)o;
	}
	c->pub.n = m->n_ops;
	if (m->event_costs) {
		keys_make(m, c);
	}
	c->pub.key = c->key ? c->key : m->ev.op;
	c->pub.cost = c->cost;
	c->pub.op = c->op;
	return c;
}

const struct tc_costs *tc_model_costs(const struct tc_model *m) {
	assert(m->finalized);
	struct tc_costs_cache *cc = m->costs_cache;
	struct costs_made *c = atomic_load_explicit(&cc->made, memory_order_acquire);
	if (!c) {
		pthread_mutex_lock(&cc->lock);
		c = atomic_load_explicit(&cc->made, memory_order_relaxed);
		if (!c) {
			c = costs_make(m);
			atomic_store_explicit(&cc->made, c, memory_order_release);
		}
		pthread_mutex_unlock(&cc->lock);
	}
	return &c->pub;
}

void tc_model_event_costs(const struct tc_model *m, size_t i, int64_t *flops, int64_t *bytes) {
	if (m->finalized) {
		const struct tc_costs *c = tc_model_costs(m);
		*flops = c->cost[c->key[i]].flops;
		*bytes = c->cost[c->key[i]].bytes;
		return;
	}
	const struct tc_op *op = &m->ops[m->ev.op[i]];
	*flops = op->flops;
	*bytes = op->bytes;
	costs_search(m, m->event_costs ? tc_model_event_args(m, i) : TC_NONE, flops, bytes);
}

int64_t tc_model_event_flops(const struct tc_model *m, size_t i) {
	int64_t f, b;
	tc_model_event_costs(m, i, &f, &b);
	return f;
}

int64_t tc_model_event_bytes_accessed(const struct tc_model *m, size_t i) {
	int64_t f, b;
	tc_model_event_costs(m, i, &f, &b);
	return b;
}
