#ifndef TC_UTIL_U64MAP_H
#define TC_UTIL_U64MAP_H

/*
 * An open-addressing map from uint64 keys to uint32 values (ids, indexes),
 * for the readers' lookup tables. The map owns its slots; a zeroed map is
 * empty and needs no init. Pointers returned by find and put stay valid
 * until the next put or clear. Slots may be walked in place (used != 0) when
 * the order of the walk does not matter.
 */

#include <stddef.h>
#include <stdint.h>

struct tc_u64map_slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct tc_u64map {
	struct tc_u64map_slot *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

static inline size_t tc_u64map_hash(uint64_t k, size_t cap) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

/* The value of key, or NULL. Inline: readers look up on every event. */
static inline uint32_t *tc_u64map_find(const struct tc_u64map *m, uint64_t key) {
	if (!m->cap) {
		return NULL;
	}
	for (size_t i = tc_u64map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct tc_u64map_slot *e = &m->v[i];
		if (!e->used) {
			return NULL;
		}
		if (e->key == key) {
			return &e->val;
		}
	}
}

/* Sets key to val (a repeated key replaces the value); returns its value. */
uint32_t *tc_u64map_put(struct tc_u64map *m, uint64_t key, uint32_t val);
/* Empties the map, keeping its slots. */
void tc_u64map_reset(struct tc_u64map *m);
void tc_u64map_finish(struct tc_u64map *m);

#endif
