/* An open-addressing map from uint64 keys to uint32 values. */
#include <stdlib.h>
#include <string.h>
#include "util/u64map.h"
#include "util/xalloc.h"

uint32_t *tc_u64map_put(struct tc_u64map *m, uint64_t key, uint32_t val) {
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct tc_u64map_slot *old = m->v;
		size_t ocap = m->cap;
		m->v = tc_xcalloc(ncap, sizeof(*m->v));
		m->cap = ncap;
		m->n = 0;
		for (size_t i = 0; i < ocap; i++) {
			if (old[i].used) {
				tc_u64map_put(m, old[i].key, old[i].val);
			}
		}
		free(old);
	}
	for (size_t i = tc_u64map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct tc_u64map_slot *e = &m->v[i];
		if (!e->used) {
			*e = (struct tc_u64map_slot){ .key = key, .val = val, .used = 1 };
			m->n++;
			return &e->val;
		}
		if (e->key == key) {
			e->val = val;
			return &e->val;
		}
	}
}

void tc_u64map_reset(struct tc_u64map *m) {
	if (m->n) {
		memset(m->v, 0, m->cap * sizeof(*m->v));
		m->n = 0;
	}
}

void tc_u64map_finish(struct tc_u64map *m) {
	free(m->v);
	*m = (struct tc_u64map){ 0 };
}
