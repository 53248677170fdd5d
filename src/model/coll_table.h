#ifndef TC_MODEL_COLL_TABLE_H
#define TC_MODEL_COLL_TABLE_H

/*
 * One rank's collective occurrences, the input of cross-rank matching
 * (analysis/collectives.c): built from that rank's model alone
 * (analysis/coll_gather.c) or read from its digest, so matching needs
 * neither the merged model nor the others' traces.
 *
 * The table owns everything it points to: its names live in its own
 * string table (id 0 is ""), whose arena the table holds, so a table
 * must not be moved once initialised. Times are on the rank's own clock:
 * the model's ps when built from one, from the trace's first event plus
 * the base given to tc_coll_table_unpack when read from a digest.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"
#include "util/intern.h"

/* One run of a collective on the rank, keyed for matching. */
struct tc_coll_occ {
	uint32_t group;         /* process group (string id), 0 none */
	uint32_t name;          /* collective or op name (string id) */
	uint64_t index;         /* its Seq, else its number in (group, name) in
	                         * time order */
	int64_t start_ps, dur_ps;
	double bytes;           /* message bytes, -1 unknown */
	int64_t group_size;     /* ranks in its group the trace states, 0 unknown */
};

struct tc_coll_table {
	struct tc_arena arena;
	struct tc_intern strings;
	struct tc_coll_occ *v;
	size_t n, cap;
	/* Every occurrence carries a Seq arg (true when there is none): then
	 * matching by Seq is trusted over matching by ends. */
	bool seq_all;
};

void tc_coll_table_init(struct tc_coll_table *t);
void tc_coll_table_finish(struct tc_coll_table *t);
/* Append o (its names already ids of t's strings). */
void tc_coll_table_add(struct tc_coll_table *t, const struct tc_coll_occ *o);
static inline const char *tc_coll_table_str(const struct tc_coll_table *t, uint32_t id) {
	return tc_intern_str(&t->strings, id);
}

/* The union of t's occurrences, [start, start + dur), as sorted, disjoint
 * pieces (pieces that touch are one, as tc_ivals_push joins them) in
 * *lo and *hi (malloc'd, at least one entry); their number. A job's waits
 * for a late rank lie inside it. */
size_t tc_coll_table_union(const struct tc_coll_table *t, int64_t **lo, int64_t **hi);
#endif
