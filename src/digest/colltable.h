#ifndef TC_DIGEST_COLLTABLE_H
#define TC_DIGEST_COLLTABLE_H

/* A rank's collective table (model/coll_table.h) packed into a digest
 * rank and read back. */

#include <stdbool.h>
#include <stdint.h>
#include "digest.pb-c.h"
#include "model/coll_table.h"
#include "util/arena.h"

/* t as a digest message allocated from a, its times less base (the
 * trace's first event). */
Tracectl__CollTable *tc_coll_table_pack(struct tc_arena *a, const struct tc_coll_table *t,
	int64_t base);
/* t (initialised by the caller, empty) from a digest message, its times
 * plus base. False when the message is malformed (a column of another
 * length, a name or size out of its list); t is then left partly filled. */
bool tc_coll_table_unpack(const Tracectl__CollTable *msg, int64_t base,
	struct tc_coll_table *t);

#endif
