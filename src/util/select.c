/* Order statistics by selection: k-th smallest and percentiles, no sort. */
#include "util/select.h"

static void swap(int64_t *a, int64_t *b) {
	int64_t t = *a;
	*a = *b;
	*b = t;
}

int64_t tc_select_i64(int64_t *v, size_t n, size_t k) {
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		/* Median of three as pivot, then a Hoare partition; equal keys
		 * split between both sides, so runs of equal values stay O(n). */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo]) {
			swap(&v[mid], &v[lo]);
		}
		if (v[hi] < v[lo]) {
			swap(&v[hi], &v[lo]);
		}
		if (v[hi] < v[mid]) {
			swap(&v[hi], &v[mid]);
		}
		int64_t pivot = v[mid];
		size_t i = lo, j = hi;
		for (;;) {
			while (v[i] < pivot) {
				i++;
			}
			while (v[j] > pivot) {
				j--;
			}
			if (i >= j) {
				break;
			}
			swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j) {
			hi = j;
		} else {
			lo = j + 1;
		}
	}
	return v[k];
}

int64_t tc_percentile_i64(int64_t *v, size_t n, double p) {
	if (n == 0) {
		return -1;
	}
	size_t r = (size_t)(p / 100.0 * (double)n + 0.999999999);
	if (r < 1) {
		r = 1;
	}
	if (r > n) {
		r = n;
	}
	return tc_select_i64(v, n, r - 1);
}
