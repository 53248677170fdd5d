#ifndef TC_UTIL_INTERN_H
#define TC_UTIL_INTERN_H

/*
 * String interning: each distinct byte string gets a dense uint32 id, id 0 is
 * always "". The bytes live in the arena given at init; the table borrows it.
 * Strings returned by tc_intern_str() stay valid until that arena is finished.
 * Strings may contain any bytes except NUL is allowed too: lengths are kept.
 */

#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"

struct tc_intern_entry {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct tc_intern {
	struct tc_arena *arena;
	struct tc_intern_entry *v; /* by id */
	size_t n, cap;
	uint32_t *slots; /* open addressing: id + 1, 0 = empty */
	size_t nslots;
};

void tc_intern_init(struct tc_intern *t, struct tc_arena *arena);
void tc_intern_finish(struct tc_intern *t);
uint32_t tc_intern_n(struct tc_intern *t, const char *s, size_t len);
uint32_t tc_intern(struct tc_intern *t, const char *s);
/* Look up without adding; returns UINT32_MAX when absent. */
uint32_t tc_intern_find(const struct tc_intern *t, const char *s, size_t len);

static inline const char *tc_intern_str(const struct tc_intern *t, uint32_t id) {
	return id < t->n ? t->v[id].s : "";
}

static inline uint32_t tc_intern_len(const struct tc_intern *t, uint32_t id) {
	return id < t->n ? t->v[id].len : 0;
}

uint32_t tc_hash(const void *p, size_t n);

#endif
