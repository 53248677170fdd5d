/* String interning: dense uint32 ids for byte strings kept in an arena. */
#include <stdlib.h>
#include <string.h>
#include "util/intern.h"
#include "util/xalloc.h"

/* FNV-1a: short names dominate; good enough and branch-free. */
uint32_t tc_hash(const void *p, size_t n) {
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

/*
 * The table's own hash: eight bytes a step, as interned stat values (op
 * paths, shapes) run to tens of bytes and are looked up once per event.
 * tc_hash stays FNV-1a: its values are visible in outputs.
 */
static inline uint64_t load64(const unsigned char *s) {
	uint64_t v;
	memcpy(&v, s, 8);
	return v;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
	h ^= v * 0x9E3779B97F4A7C15ull;
	h = (h << 27 | h >> 37) * 0xC2B2AE3D27D4EB4Full;
	return h;
}

static uint32_t str_hash(const void *p, size_t n) {
	const unsigned char *s = p;
	uint64_t h = 0x243F6A8885A308D3ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		h = mix(h, load64(s + i));
	}
	if (i < n) {
		uint64_t v = 0;
		memcpy(&v, s + i, n - i);
		h = mix(h, v);
	}
	h ^= h >> 32;
	h *= 0xD6E8FEB86659FD93ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static void rehash(struct tc_intern *t, size_t nslots) {
	free(t->slots);
	t->slots = tc_xcalloc(nslots, sizeof(*t->slots));
	t->nslots = nslots;
	for (size_t id = 0; id < t->n; id++) {
		size_t i = t->v[id].hash & (nslots - 1);
		while (t->slots[i]) {
			i = (i + 1) & (nslots - 1);
		}
		t->slots[i] = (uint32_t)id + 1;
	}
}

void tc_intern_init(struct tc_intern *t, struct tc_arena *arena) {
	memset(t, 0, sizeof(*t));
	t->arena = arena;
	rehash(t, 1024);
	tc_intern_n(t, "", 0);
}

void tc_intern_finish(struct tc_intern *t) {
	if (!t) {
		return;
	}
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

uint32_t tc_intern_find(const struct tc_intern *t, const char *s, size_t len) {
	uint32_t h = str_hash(s, len);
	size_t i = h & (t->nslots - 1);
	while (t->slots[i]) {
		const struct tc_intern_entry *e = &t->v[t->slots[i] - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) {
			return t->slots[i] - 1;
		}
		i = (i + 1) & (t->nslots - 1);
	}
	return UINT32_MAX;
}

uint32_t tc_intern_n(struct tc_intern *t, const char *s, size_t len) {
	uint32_t h = str_hash(s, len);
	size_t i = h & (t->nslots - 1);
	while (t->slots[i]) {
		const struct tc_intern_entry *e = &t->v[t->slots[i] - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) {
			return t->slots[i] - 1;
		}
		i = (i + 1) & (t->nslots - 1);
	}
	if (len > UINT32_MAX - 1) {
		len = UINT32_MAX - 1; /* callers cap strings far below this */
	}
	TC_GROW(t->v, t->cap, t->n + 1);
	uint32_t id = (uint32_t)t->n++;
	t->v[id].s = tc_arena_strndup(t->arena, s, len);
	t->v[id].len = (uint32_t)len;
	t->v[id].hash = h;
	t->slots[i] = id + 1;
	if (t->n * 2 > t->nslots) {
		rehash(t, t->nslots * 2);
	}
	return id;
}

uint32_t tc_intern(struct tc_intern *t, const char *s) {
	return tc_intern_n(t, s, strlen(s));
}
