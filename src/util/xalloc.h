#ifndef TC_UTIL_XALLOC_H
#define TC_UTIL_XALLOC_H

/*
 * Allocation that cannot fail: on exhaustion tracectl prints one line and exits
 * with TC_EXIT_LIMIT (jq's jv_alloc does the same). Threading allocation
 * failures through every call would cost more than it saves.
 */

#include <stddef.h>
#include <stdlib.h>

/* Arrays of 1 MiB or more are faulted in at once where the prefault helper
 * runs (util/prefault.h): tc_xmalloc's ahead of the writer, tc_xcalloc's
 * before it returns. Allocate big zeroed arrays only at the size used. */
void *tc_xmalloc(size_t n);
void *tc_xcalloc(size_t count, size_t n);
/* n zeroed bytes at a multiple of TC_CACHE_LINE, for structs whose parts
 * two threads write (each part _Alignas(TC_CACHE_LINE), so no line holds
 * two threads' fields); free with free. */
#define TC_CACHE_LINE 64
void *tc_xcalloc_lines(size_t n);
void *tc_xrealloc(void *p, size_t n);
char *tc_xstrdup(const char *s);
/* Tune the allocator for a program that lives for one big trace; call once,
 * first thing in main. */
void tc_malloc_tune(void);
/* Between these, freed big blocks stay with the process for the next
 * request (one thread allocating the same sizes rank after rank: fresh
 * pages cost more there than the work); after, they go back again and
 * the heap is trimmed. Not nested; no other thread may allocate. */
void tc_malloc_reuse_begin(void);
void tc_malloc_reuse_end(void);

/*
 * Grow the array p of elem-sized items so that it holds at least need items.
 * *cap is updated and the (possibly moved) array returned; growth is
 * geometric so appends are amortised O(1).
 */
void *tc_grow(void *p, size_t *cap, size_t need, size_t elem);

/* The capacity check is inline: appends in hot loops rarely need to grow.
 * ptr, cap and need are evaluated more than once. */
#define TC_GROW(ptr, cap, need) \
	((ptr) = (need) <= (cap) ? (ptr) : tc_grow((ptr), &(cap), (need), sizeof(*(ptr))))

/* qsort that accepts (NULL, 0): C leaves qsort(NULL, 0, ...) undefined and
 * UBSan reports it, while empty arrays are routine here. */
static inline void tc_sort(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *)) {
	if (n > 1) {
		qsort(base, n, size, cmp);
	}
}

/*
 * The same order for arrays made of a few already-sorted runs (e.g. events
 * gathered track by track): a natural merge sort, O(n log runs) and stable.
 * Falls back to tc_sort when the runs are short (unsorted input).
 */
void tc_sort_runs(void *base, size_t n, size_t size,
	int (*cmp)(const void *, const void *));

#endif
