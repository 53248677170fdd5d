#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/xalloc.h"

static void oom(size_t n) {
	fprintf(stderr, "tracectl: error: out of memory (asked for %zu bytes)\n", n);
	exit(TC_EXIT_LIMIT);
}

void *tc_xmalloc(size_t n) {
	void *p = malloc(n ? n : 1);
	if (!p) {
		oom(n);
	}
	return p;
}

void *tc_xcalloc(size_t count, size_t n) {
	void *p = calloc(count ? count : 1, n ? n : 1);
	if (!p) {
		oom(count * n);
	}
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
