/*
 * Events' FLOPs and bytes accessed: resolved once per model into a packed
 * cost-key column (struct tc_costs, model.h), so the per-event walks read
 * a column instead of searching every event's args; the notes readers
 * leave as events take their lists (struct tc_cost_notes), which spare
 * that search where each op's events set alike costs; and the per-event
 * look-ups, which read the column too.
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
	m->cn.list = TC_NONE;
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
	free(m->cn.op);
	m->cn.op = NULL;
	if (m->costs_cache) {
		tc_model_costs_drop(m);
		pthread_mutex_destroy(&m->costs_cache->lock);
		free(m->costs_cache);
		m->costs_cache = NULL;
	}
}

void tc_model_costs_unnoted(struct tc_model *m) {
	m->cn.off = true;
}

/* Event i takes list args (m->event_costs): the costs the list sets are
 * noted for i's op, where the list is the one built last and i had none
 * (a list set again might drop costs noted). */
void tc_model_note_costs(struct tc_model *m, size_t i, uint32_t args) {
	struct tc_cost_notes *cn = &m->cn;
	if (cn->off) {
		return;
	}
	bool had = tc_model_event_args(m, i) != TC_NONE;
	if (args == TC_NONE && !had) {
		return;
	}
	if (args != cn->list || cn->seen != cn->set || had) {
		cn->off = true;
		return;
	}
	if (!cn->set) {
		return;
	}
	uint32_t o = m->ev.op[i];
	if (o >= cn->cap) {
		size_t cap = cn->cap;
		TC_GROW(cn->op, cn->cap, (size_t)o + 1);
		memset(cn->op + cap, 0, (cn->cap - cap) * sizeof(*cn->op));
	}
	struct tc_cost_seen *s = &cn->op[o];
	int64_t f = cn->set & 1 ? cn->flops : 0, b = cn->set & 2 ? cn->bytes : 0;
	if (!s->n) {
		*s = (struct tc_cost_seen){ f, b, 0, cn->set };
	} else if (s->set != cn->set || s->flops != f || s->bytes != b || s->n == UINT32_MAX) {
		cn->off = true; /* they vary: the search keys them */
		return;
	}
	s->n++;
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

/* Key k into d's slots, where it is not. */
static void dedup_slot(struct dedup *d, const struct costs_made *c, uint32_t k) {
	const struct tc_op_cost *v = &c->cost[k];
	size_t j = dedup_hash(c->op[k], v->flops, v->bytes, d->cap);
	while (d->slot[j]) {
		j = (j + 1) & (d->cap - 1);
	}
	d->slot[j] = k + 1;
}

static void dedup_grow(struct dedup *d, const struct costs_made *c) {
	struct dedup g = { tc_xcalloc(d->cap ? d->cap * 2 : 256, sizeof(*g.slot)),
		d->cap ? d->cap * 2 : 256, d->n };
	for (size_t i = 0; i < d->cap; i++) {
		if (d->slot[i]) {
			dedup_slot(&g, c, d->slot[i] - 1);
		}
	}
	free(d->slot);
	*d = g;
}

/* Key k into d, as op_key would have put it there. */
static void dedup_put(struct dedup *d, const struct costs_made *c, uint32_t k) {
	if (2 * (d->n + 1) > d->cap) {
		dedup_grow(d, c);
	}
	dedup_slot(d, c, k);
	d->n++;
}

/* A new key (op, f, b) at the end of c's table. */
static uint32_t key_add(struct costs_made *c, uint32_t op, int64_t f, int64_t b) {
	uint32_t k = (uint32_t)c->pub.n;
	size_t cap = c->cap;
	TC_GROW(c->cost, c->cap, c->pub.n + 1);
	if (c->cap != cap) {
		c->op = tc_xrealloc(c->op, c->cap * sizeof(*c->op));
	}
	c->cost[k] = (struct tc_op_cost){ f, b };
	c->op[k] = op;
	c->pub.n++;
	return k;
}

/* The key of (op, f, b): op's own where the costs are its, else the one
 * in d, added to c's table and d where new. */
static uint32_t op_key(struct dedup *d, struct costs_made *c, uint32_t op, int64_t f, int64_t b) {
	if (f == c->cost[op].flops && b == c->cost[op].bytes) {
		return op;
	}
	if (2 * (d->n + 1) > d->cap) {
		dedup_grow(d, c);
	}
	size_t j = dedup_hash(op, f, b, d->cap);
	for (; d->slot[j]; j = (j + 1) & (d->cap - 1)) {
		uint32_t h = d->slot[j] - 1;
		if (c->op[h] == op && c->cost[h].flops == f && c->cost[h].bytes == b) {
			return h;
		}
	}
	uint32_t k = key_add(c, op, f, b);
	d->slot[j] = k + 1;
	d->n++;
	return k;
}

/* Per op: what its events' args set last (tc_model_arg_costs' bits and
 * values) and the key that gave: ops' costs hardly vary between their
 * events, so most events read this and hash nothing. An op's keys go
 * into the dedup table only once its events' costs vary (hashed): until
 * then its one key is in the memo. */
struct memo {
	int64_t flops, bytes;
	uint32_t key;
	uint8_t set;
	bool hashed;
};

/* Each event's key: its op's where its args set neither cost, else that
 * of its (op, flops, bytes). */
static void keys_make(const struct tc_model *m, struct costs_made *c) {
	size_t n = m->ev.n;
	c->key = tc_xmalloc((n ? n : 1) * sizeof(*c->key));
	struct memo *memo = tc_xcalloc(m->n_ops ? m->n_ops : 1, sizeof(*memo));
	struct dedup d = { 0 };
	const uint32_t *op = m->ev.op;
	for (size_t i = 0; i < n; i++) {
		uint32_t o = op[i];
		int64_t f = 0, b = 0;
		unsigned set = tc_model_arg_costs(m, tc_model_event_args(m, i), &f, &b);
		struct memo *mo = &memo[o];
		if (!set) {
			c->key[i] = o;
			continue;
		}
		if (set != mo->set || ((set & 1) && f != mo->flops) || ((set & 2) && b != mo->bytes)) {
			int64_t kf = set & 1 ? f : c->cost[o].flops;
			int64_t kb = set & 2 ? b : c->cost[o].bytes;
			if (!mo->set && (kf != c->cost[o].flops || kb != c->cost[o].bytes)) {
				/* The op's first costs of its own: no key of it can be
				 * in the table yet. */
				mo->key = key_add(c, o, kf, kb);
			} else {
				if (mo->set && !mo->hashed) {
					/* Its costs vary: from now on by the table. */
					if (mo->key != o) {
						dedup_put(&d, c, mo->key);
					}
					mo->hashed = true;
				}
				mo->key = op_key(&d, c, o, kf, kb);
			}
			mo->flops = f;
			mo->bytes = b;
			mo->set = (uint8_t)set;
		}
		c->key[i] = mo->key;
	}
	free(d.slot);
	free(memo);
}

/*
 * The keys without a search, from the notes (struct tc_cost_notes): an
 * op whose every event was noted, all alike, has its key take the costs
 * they set; one with none noted keeps its own. False where the notes
 * cannot tell (some event unnoted, an op's costs varying, or some but not
 * all of an op's events noted): then keys_make searches.
 */
static bool keys_from_notes(const struct tc_model *m, struct costs_made *c) {
	const struct tc_cost_notes *cn = &m->cn;
	if (cn->off) {
		return false;
	}
	size_t nn = cn->cap < m->n_ops ? cn->cap : m->n_ops;
	uint32_t *count = tc_xcalloc(nn ? nn : 1, sizeof(*count));
	const uint32_t *op = m->ev.op;
	for (size_t i = 0; i < m->ev.n; i++) {
		if (op[i] < nn) {
			count[op[i]]++;
		}
	}
	bool all = true;
	for (size_t o = 0; o < nn && all; o++) {
		all = !cn->op[o].n || cn->op[o].n == count[o];
	}
	for (size_t o = 0; o < nn && all; o++) {
		const struct tc_cost_seen *s = &cn->op[o];
		if (s->n) {
			c->cost[o].flops = s->set & 1 ? s->flops : c->cost[o].flops;
			c->cost[o].bytes = s->set & 2 ? s->bytes : c->cost[o].bytes;
		}
	}
	free(count);
	return all;
}

/* The table's first n_ops keys: the ops' own costs. */
static struct costs_made *costs_of_ops(const struct tc_model *m) {
	struct costs_made *c = tc_xcalloc(1, sizeof(*c));
	c->cap = m->n_ops ? m->n_ops : 1;
	c->cost = tc_xmalloc(c->cap * sizeof(*c->cost));
	c->op = tc_xmalloc(c->cap * sizeof(*c->op));
	for (size_t o = 0; o < m->n_ops; o++) {
		c->cost[o] = (struct tc_op_cost){ m->ops[o].flops, m->ops[o].bytes };
		c->op[o] = (uint32_t)o;
	}
	c->pub.n = m->n_ops;
	return c;
}

#ifdef TC_SELF_CHECKS
/* Test builds (-Dself_checks=true) check the notes against the search,
 * event by event. */
static void notes_check(const struct tc_model *m, const struct costs_made *c) {
	struct costs_made *s = costs_of_ops(m);
	keys_make(m, s);
	for (size_t i = 0; i < m->ev.n; i++) {
		const struct tc_op_cost *a = &c->cost[m->ev.op[i]], *b = &s->cost[s->key[i]];
		assert(a->flops == b->flops && a->bytes == b->bytes);
	}
	made_free(s);
}
#endif

static struct costs_made *costs_make(const struct tc_model *m) {
	struct costs_made *c = costs_of_ops(m);
	if (m->event_costs && !keys_from_notes(m, c)) {
		keys_make(m, c);
	}
#ifdef TC_SELF_CHECKS
	else if (m->event_costs) {
		notes_check(m, c);
	}
#endif
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
	int64_t f = 0, b = 0;
	uint32_t args = m->event_costs ? tc_model_event_args(m, i) : TC_NONE;
	unsigned set = tc_model_arg_costs(m, args, &f, &b);
	*flops = set & 1 ? f : op->flops;
	*bytes = set & 2 ? b : op->bytes;
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
