/* A bump allocator: many small allocations, all freed at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/xalloc.h"

struct tc_arena_block {
	struct tc_arena_block *next;
	char *end;
	char *next_free;
	/* data follows, max_align_t aligned */
	_Alignas(max_align_t) char space[];
};

void tc_arena_init(struct tc_arena *a, size_t block_size) {
	a->head = NULL;
	a->block_size = block_size ? block_size : 64 * 1024;
	a->total = 0;
}

void tc_arena_finish(struct tc_arena *a) {
	if (!a) {
		return;
	}
	struct tc_arena_block *b = a->head;
	while (b) {
		struct tc_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->total = 0;
}

void tc_arena_reset(struct tc_arena *a) {
	struct tc_arena_block *b = a->head;
	if (!b) {
		return;
	}
	for (struct tc_arena_block *n = b->next; n;) {
		struct tc_arena_block *next = n->next;
		free(n);
		n = next;
	}
	b->next = NULL;
	b->next_free = b->space;
	a->total = 0;
}

static struct tc_arena_block *new_block(struct tc_arena *a, size_t n) {
	size_t size = n > a->block_size ? n : a->block_size;
	struct tc_arena_block *b = tc_xmalloc(sizeof(*b) + size);
	b->next_free = b->space;
	b->end = b->space + size;
	return b;
}

void *tc_arena_alloc(struct tc_arena *a, size_t n) {
	n = (n + 7) & ~(size_t)7;
	struct tc_arena_block *b = a->head;
	if (!b || (size_t)(b->end - b->next_free) < n) {
		b = new_block(a, n);
		if (n > a->block_size / 2 && a->head) {
			/* A large request gets its own block behind the current one so
			 * the current block's free space is not wasted. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->next_free;
	b->next_free += n;
	a->total += n;
	return p;
}

void *tc_arena_calloc(struct tc_arena *a, size_t n) {
	void *p = tc_arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

char *tc_arena_strndup(struct tc_arena *a, const char *s, size_t n) {
	char *p = tc_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *tc_arena_strdup(struct tc_arena *a, const char *s) {
	return tc_arena_strndup(a, s, strlen(s));
}

char *tc_arena_vstrfmt(struct tc_arena *a, const char *fmt, va_list ap) {
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		n = 0;
	}
	char *p = tc_arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *tc_arena_strfmt(struct tc_arena *a, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	char *p = tc_arena_vstrfmt(a, fmt, ap);
	va_end(ap);
	return p;
}
