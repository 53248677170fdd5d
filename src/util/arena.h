#ifndef TC_UTIL_ARENA_H
#define TC_UTIL_ARENA_H

/*
 * Bump allocator shaped like git's mem-pool: many small allocations, one
 * discard. Memory from an arena is never freed on its own; everything goes
 * with tc_arena_finish(). Allocations are 8-byte aligned.
 */

#include <stdarg.h>
#include <stddef.h>

struct tc_arena_block;

struct tc_arena {
	struct tc_arena_block *head;
	size_t block_size;
	size_t total; /* bytes handed out, for statistics */
};

void tc_arena_init(struct tc_arena *a, size_t block_size);
void tc_arena_finish(struct tc_arena *a);
/* Discard everything but keep one block, for scratch reused in a loop. */
void tc_arena_reset(struct tc_arena *a);
void *tc_arena_alloc(struct tc_arena *a, size_t n);
void *tc_arena_calloc(struct tc_arena *a, size_t n);
char *tc_arena_strndup(struct tc_arena *a, const char *s, size_t n);
char *tc_arena_strdup(struct tc_arena *a, const char *s);
char *tc_arena_strfmt(struct tc_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *tc_arena_vstrfmt(struct tc_arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
