/* A rank's collective occurrences (its digest form is digest/colltable.c). */
#include <stdlib.h>
#include <string.h>
#include "model/coll_table.h"
#include "util/num.h"
#include "util/xalloc.h"

void tc_coll_table_init(struct tc_coll_table *t) {
	memset(t, 0, sizeof(*t));
	tc_arena_init(&t->arena, 4096);
	tc_intern_init(&t->strings, &t->arena);
	t->seq_all = true;
}

void tc_coll_table_finish(struct tc_coll_table *t) {
	if (!t->strings.arena) {
		return;
	}
	tc_intern_finish(&t->strings);
	tc_arena_finish(&t->arena);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void tc_coll_table_add(struct tc_coll_table *t, const struct tc_coll_occ *o) {
	TC_GROW(t->v, t->cap, t->n + 1);
	t->v[t->n++] = *o;
}

static int cmp_span(const void *pa, const void *pb) {
	const int64_t *a = pa, *b = pb;
	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

size_t tc_coll_table_union(const struct tc_coll_table *t, int64_t **lo, int64_t **hi) {
	size_t n = t->n ? t->n : 1, u = 0;
	int64_t (*v)[2] = tc_xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < t->n; i++) {
		v[i][0] = t->v[i].start_ps;
		v[i][1] = (int64_t)((uint64_t)t->v[i].start_ps + (uint64_t)t->v[i].dur_ps);
	}
	tc_sort(v, t->n, sizeof(*v), cmp_span);
	*lo = tc_xmalloc(n * sizeof(**lo));
	*hi = tc_xmalloc(n * sizeof(**hi));
	for (size_t i = 0; i < t->n; i++) {
		if (v[i][1] <= v[i][0]) {
			continue;
		}
		if (u && v[i][0] <= (*hi)[u - 1]) {
			(*hi)[u - 1] = v[i][1] > (*hi)[u - 1] ? v[i][1] : (*hi)[u - 1];
			continue;
		}
		(*lo)[u] = v[i][0];
		(*hi)[u++] = v[i][1];
	}
	free(v);
	return u;
}
