/* Exact decimal times for machine-readable output (us and absolute ns). */
#include <inttypes.h>
#include <stdio.h>
#include "output/fmt.h"

char *tc_fmt_us_exact(char *buf, int64_t ps) {
	uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
	snprintf(buf, TC_FMT_LEN, "%s%" PRIu64 ".%06" PRIu64, ps < 0 ? "-" : "",
		a / 1000000, a % 1000000);
	return buf;
}

char *tc_fmt_abs_ns(char *buf, int64_t origin_ns, int64_t ps) {
	int64_t q = ps / 1000, r = ps % 1000;
	if (r < 0) {
		q--;
		r += 1000;
	}
	int n = snprintf(buf, TC_FMT_LEN, "%" PRId64, origin_ns + q);
	if (r) {
		snprintf(buf + n, (size_t)(TC_FMT_LEN - n), ".%03d", (int)r);
	}
	return buf;
}
