/*
 * Allocation that exits on failure (TC_EXIT_LIMIT), allocator tuning,
 * geometric array growth, and a merge sort for presorted runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "util/error.h"
#include "util/prefault.h"
#include "util/xalloc.h"

#define PREFAULT_MIN ((size_t)1 << 20)

static void oom(size_t n) {
	fprintf(stderr, "tracectl: error: out of memory (asked for %zu bytes)\n", n);
	exit(TC_EXIT_LIMIT);
}

void tc_malloc_tune(void) {
#ifdef M_MMAP_THRESHOLD
	/* Keep big arrays (columns, sort scratch) in their own mappings, given
	 * back when freed. glibc otherwise raises the threshold after the first
	 * big free and serves later ones from a heap that does not shrink
	 * (a quarter more peak memory, bench/README). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void tc_malloc_reuse_begin(void) {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 16 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
}

void tc_malloc_reuse_end(void) {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	malloc_trim(0);
	tc_malloc_tune();
#endif
}

void *tc_xmalloc(size_t n) {
	void *p = malloc(n ? n : 1);
	if (!p) {
		oom(n);
	}
	/* Big malloc'd arrays here are filled whole (sort scratch, columns
	 * being permuted, per-event tables): fault them in ahead. */
	if (n >= PREFAULT_MIN) {
		tc_prefault_hint(p, n);
	}
	return p;
}

void *tc_xcalloc(size_t count, size_t n) {
	void *p = calloc(count ? count : 1, n ? n : 1);
	if (!p) {
		oom(count * n);
	}
	/* Big zeroed arrays are mostly read before they are written (hash
	 * slots, sums): each fresh page would fault twice, mapping the zero
	 * page, then copying it, and the copy flushes the other threads' TLB
	 * entries (an interprocessor interrupt, dear on a VM). One populating
	 * pass maps them writable at once (wide shape: analysis 0.257 ->
	 * 0.187 s CPU, bench/README). calloc's check leaves no overflow. */
	if (count * n >= PREFAULT_MIN) {
		tc_prefault_now(p, count * n);
	}
	return p;
}

void *tc_xcalloc_lines(size_t n) {
	size_t size = (n + TC_CACHE_LINE - 1) / TC_CACHE_LINE * TC_CACHE_LINE;
	void *p = aligned_alloc(TC_CACHE_LINE, size ? size : TC_CACHE_LINE);
	if (!p) {
		oom(n);
	}
	memset(p, 0, size ? size : TC_CACHE_LINE);
	return p;
}

void *tc_xrealloc(void *p, size_t n) {
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		oom(n);
	}
	return q;
}

char *tc_xstrdup(const char *s) {
	size_t n = strlen(s) + 1;
	char *p = tc_xmalloc(n);
	memcpy(p, s, n);
	return p;
}

void *tc_grow(void *p, size_t *cap, size_t need, size_t elem) {
	if (need <= *cap) {
		return p;
	}
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		c = c < ((size_t)1 << 20) ? c * 2 : c + c / 2;
	}
	if (c > (size_t)-1 / elem) {
		oom((size_t)-1);
	}
	*cap = c;
	return tc_xrealloc(p, c * elem);
}

/* One element: memcpy of a size known only at run time is a call per
 * element, words of a known size are moves. */
static inline void copy_elem(char *o, const char *s, size_t size) {
	if (size % 8 == 0 && size <= 64) {
		for (size_t k = 0; k < size; k += 8) {
			memcpy(o + k, s + k, 8);
		}
	} else {
		memcpy(o, s, size);
	}
}

void tc_sort_runs(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *)) {
	if (n < 2) {
		return;
	}
	char *v = base;
	/* Run starts, then n as the last bound; many short runs (unsorted
	 * input) go to tc_sort instead. */
	size_t *run = NULL, cap = 0, nrun = 0;
	TC_GROW(run, cap, 2);
	run[nrun++] = 0;
	for (size_t i = 1; i < n; i++) {
		if (cmp(v + (i - 1) * size, v + i * size) > 0) {
			if (nrun >= 64 && nrun >= n / 16) {
				free(run);
				tc_sort(base, n, size, cmp);
				return;
			}
			TC_GROW(run, cap, nrun + 2);
			run[nrun++] = i;
		}
	}
	run[nrun] = n;
	if (nrun == 1) {
		free(run);
		return;
	}
	char *tmp = tc_xmalloc(n * size);
	char *src = v, *dst = tmp;
	while (nrun > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nrun; r += 2) {
			size_t a = run[r], ae = run[r + 1];
			size_t b = ae, be = r + 1 < nrun ? run[r + 2] : ae;
			char *o = dst + a * size;
			/* Ties take from the left run: stable. */
			while (a < ae && b < be) {
				size_t j = cmp(src + b * size, src + a * size) < 0 ? b++ : a++;
				copy_elem(o, src + j * size, size);
				o += size;
			}
			memcpy(o, src + a * size, (ae - a) * size);
			o += (ae - a) * size;
			memcpy(o, src + b * size, (be - b) * size);
			run[out++] = run[r];
		}
		run[out] = n;
		nrun = out;
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != v) {
		memcpy(v, src, n * size);
	}
	free(tmp);
	free(run);
}
