#ifndef TC_UTIL_CORR_H
#define TC_UTIL_CORR_H

/*
 * Launches by correlation id. A host runtime call (cudaLaunchKernel,
 * hipMemcpy, ...) and the device work it caused share an id; every reader
 * links them the same way through this index.
 */

#include <stddef.h>
#include <stdint.h>

/* One record: an id and the event that carries it. */
struct tc_corr {
	uint64_t id;
	uint32_t ev;
};

/* The earliest record (lowest ev) of each id: an array indexed by id when
 * the ids are dense (CUPTI and roctracer number them in order), else the
 * records sorted by (id, ev). */
struct tc_corr_index {
	const struct tc_corr *sorted;
	size_t n;
	uint32_t *direct;
	uint64_t lo;
	size_t span;
};

/* Index recs[0..n), which are sorted in place when the ids are sparse and
 * must outlive the index. */
void tc_corr_index_init(struct tc_corr_index *ix, struct tc_corr *recs, size_t n);
/* The event of id's earliest record, UINT32_MAX when none has it. */
uint32_t tc_corr_index_find(const struct tc_corr_index *ix, uint64_t id);
void tc_corr_index_finish(struct tc_corr_index *ix);

#endif
