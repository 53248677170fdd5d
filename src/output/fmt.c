#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "output/fmt.h"

char *tc_fmt_dur(char *buf, int64_t ps) {
	double v = (double)ps;
	double a = v < 0 ? -v : v;
	if (a < 1e3) {
		snprintf(buf, TC_FMT_LEN, "%" PRId64 " ps", ps);
	} else if (a < 1e6) {
		snprintf(buf, TC_FMT_LEN, "%.3f ns", v / 1e3);
	} else if (a < 1e9) {
		snprintf(buf, TC_FMT_LEN, "%.3f us", v / 1e6);
	} else if (a < 1e12) {
		snprintf(buf, TC_FMT_LEN, "%.3f ms", v / 1e9);
	} else {
		snprintf(buf, TC_FMT_LEN, "%.3f s", v / 1e12);
	}
	return buf;
}

char *tc_fmt_bytes(char *buf, double b) {
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;
	double a = b < 0 ? -b : b;
	while (a >= 1024 && u < 5) {
		a /= 1024;
		b /= 1024;
		u++;
	}
	if (u == 0) {
		snprintf(buf, TC_FMT_LEN, "%.0f B", b);
	} else {
		snprintf(buf, TC_FMT_LEN, "%.2f %s", b, units[u]);
	}
	return buf;
}

char *tc_fmt_rate(char *buf, double v, const char *unit) {
	static const char *const pre[] = { "", "K", "M", "G", "T", "P", "E" };
	int p = 0;
	while ((v >= 1000 || v <= -1000) && p < 6) {
		v /= 1000;
		p++;
	}
	snprintf(buf, TC_FMT_LEN, "%.2f %s%s", v, pre[p], unit);
	return buf;
}

char *tc_fmt_pct(char *buf, double num, double den) {
	if (den <= 0) {
		snprintf(buf, TC_FMT_LEN, "-");
	} else {
		snprintf(buf, TC_FMT_LEN, "%.1f %%", 100.0 * num / den);
	}
	return buf;
}

char *tc_fmt_count(char *buf, uint64_t v) {
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	int o = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0) {
			buf[o++] = ',';
		}
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

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
