#ifndef TC_UTIL_SELECT_H
#define TC_UTIL_SELECT_H

/*
 * Order statistics without a full sort: percentiles over millions of
 * durations cost O(n) instead of O(n log n).
 */

#include <stddef.h>
#include <stdint.h>

/* Reorder v[0..n) so that v[k] is the k-th smallest (0-based), everything
 * before it is <= and everything after it >=; return v[k]. n > k. */
int64_t tc_select_i64(int64_t *v, size_t n, size_t k);

/* Nearest-rank percentile p (0..100] of v[0..n), reordering v; -1 if n == 0. */
int64_t tc_percentile_i64(int64_t *v, size_t n, double p);

#endif
