/* The correlation-id index linking runtime calls to the device work. */
#include <string.h>
#include "util/corr.h"
#include "util/xalloc.h"

static int cmp_corr(const void *pa, const void *pb) {
	const struct tc_corr *a = pa, *b = pb;
	if (a->id != b->id) {
		return a->id < b->id ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

void tc_corr_index_init(struct tc_corr_index *ix, struct tc_corr *recs, size_t n) {
	memset(ix, 0, sizeof(*ix));
	ix->sorted = recs;
	ix->n = n;
	if (!n) {
		return;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t k = 0; k < n; k++) {
		lo = recs[k].id < lo ? recs[k].id : lo;
		hi = recs[k].id > hi ? recs[k].id : hi;
	}
	if (hi - lo < 4 * (uint64_t)n + 4096) {
		ix->lo = lo;
		ix->span = (size_t)(hi - lo) + 1;
		ix->direct = tc_xmalloc(ix->span * sizeof(*ix->direct));
		memset(ix->direct, 0xff, ix->span * sizeof(*ix->direct));
		for (size_t k = 0; k < n; k++) {
			uint32_t *d = &ix->direct[recs[k].id - lo];
			*d = recs[k].ev < *d ? recs[k].ev : *d; /* UINT32_MAX is the largest */
		}
		return;
	}
	/* Writers number launches in order: the records come nearly sorted. */
	tc_sort_runs(recs, n, sizeof(*recs), cmp_corr);
}

uint32_t tc_corr_index_find(const struct tc_corr_index *ix, uint64_t id) {
	if (ix->direct) {
		return id >= ix->lo && id - ix->lo < ix->span ? ix->direct[id - ix->lo] : UINT32_MAX;
	}
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->sorted[mid].id < id) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < ix->n && ix->sorted[lo].id == id ? ix->sorted[lo].ev : UINT32_MAX;
}

void tc_corr_index_finish(struct tc_corr_index *ix) {
	free(ix->direct);
	memset(ix, 0, sizeof(*ix));
}
