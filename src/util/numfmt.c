/* Numbers for people: durations, bytes, rates, percentages and counts. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "util/numfmt.h"

char *tc_fmt_dur(char *buf, int64_t ps) {
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double v = (double)ps;
	double a = v < 0 ? -v : v;
	if (ps == 0) {
		snprintf(buf, TC_FMT_LEN, "0"); /* nothing, in any unit: no "0 ps" */
		return buf;
	}
	if (a < 1e3) {
		snprintf(buf, TC_FMT_LEN, "%" PRId64 " ps", ps);
		return buf;
	}
	/* The unit the value shows in after rounding to 3 decimals: 999.9999 us
	 * is "1.000 ms", not "1000.000 us". */
	int u = 0;
	double scale = 1e3;
	while (u < 3 && a / scale >= 999.9995) {
		scale *= 1e3;
		u++;
	}
	snprintf(buf, TC_FMT_LEN, "%.3f %s", v / scale, unit[u]);
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

char *tc_fmt_noun(char *buf, uint64_t v, const char *one, const char *many) {
	char n[TC_FMT_LEN];
	snprintf(buf, TC_FMT_LEN, "%s %s", tc_fmt_count(n, v), v == 1 ? one : many);
	return buf;
}
