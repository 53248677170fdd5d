/* A rank's collective occurrences. */
#include <stdlib.h>
#include <string.h>
#include "model/coll_table.h"
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
