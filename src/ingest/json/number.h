/*
 * Chrome JSON numbers: timestamps as whole µs plus a ps remainder, integers
 * and doubles from their text. Inline: the token handlers call them on
 * every event.
 */
#ifndef TC_INGEST_JSON_NUMBER_H
#define TC_INGEST_JSON_NUMBER_H

#include "ingest/json/json_private.h"

/* How many of the 8 bytes at s are ASCII digits before the first that is
 * not, and their value. Eight bytes must be readable. */
static inline unsigned digits8(const char *s, uint64_t *val) {
	uint64_t a = tc_load_le64(s) ^ 0x3030303030303030ull; /* digits: bytes 0-9 */
	/* A byte's top bit set: above 9. A carry out of one runs only into
	 * later bytes, past the first non-digit. */
	uint64_t m = ((a + 0x7676767676767676ull) | a) & 0x8080808080808080ull;
	unsigned k = m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
	if (k == 0) {
		*val = 0;
		return 0;
	}
	uint64_t v = a << (8 * (8 - k)); /* the k digits, behind leading zeros */
	v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
	v = (v * 6553601 >> 16) & 0x0000FFFF0000FFFFull;
	*val = v * 42949672960001ull >> 32;
	return k;
}

/*
 * Parse a JSON number's text holding a time in µs into whole µs (floor) and a
 * ps remainder in [0, 1e6). Digits past the 6th decimal are rounded half up.
 * Exponents are applied by moving the decimal point; no floating point.
 */
static inline bool parse_us(const char *s, size_t n, int64_t *us, int64_t *frac) {
	static const int64_t scale[7] = { 1000000, 100000, 10000, 1000, 100, 10, 1 };
	/* What writers emit on every event, 8 bytes at a time (a token has a
	 * batch's slack after it): up to 15 integer digits and 6 decimals. */
	{
		static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
			10000000, 100000000 };
		uint64_t ip, v;
		size_t i = digits8(s, &ip), d;
		if (i == 8 && (d = digits8(s + 8, &v)) < 8) {
			ip = ip * pow10[d] + v;
			i += d;
		}
		if (i > 0 && i < 16 && i <= n) {
			if (i == n) {
				*us = (int64_t)ip;
				*frac = 0;
				return true;
			}
			if (s[i] == '.' && (d = digits8(s + i + 1, &v)) <= 6 && i + 1 + d == n) {
				*us = (int64_t)ip;
				*frac = (int64_t)v * scale[d];
				return true;
			}
		}
	}
	/* Then byte by byte: 1-17 integer digits and at most 6 decimals, exact
	 * without rounding. */
	{
		size_t i = 0;
		int64_t ip = 0, fp = 0;
		while (i < n && i < 17 && (unsigned)(s[i] - '0') < 10) {
			ip = ip * 10 + (s[i++] - '0');
		}
		if (i > 0 && (i == n || s[i] == '.')) {
			size_t j = i + (i < n), d = 0;
			while (j < n && d < 6 && (unsigned)(s[j] - '0') < 10) {
				fp = fp * 10 + (s[j++] - '0');
				d++;
			}
			if (j == n) {
				*us = ip;
				*frac = fp * scale[d];
				return true;
			}
		}
	}
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) {
		neg = s[i] == '-';
		i++;
	}
	char dig[40];
	size_t nd = 0, skipped = 0;
	long point = -1;
	bool any = false;
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			any = true;
			if (nd == 0 && c == '0' && point < 0) {
				continue; /* leading zeros of the integer part */
			}
			if (nd < sizeof(dig)) {
				dig[nd++] = c;
			} else if (point < 0) {
				return false; /* integer part too long */
			} else {
				skipped++;
			}
		} else if (c == '.' && point < 0) {
			point = (long)nd;
		} else {
			break;
		}
	}
	(void)skipped;
	if (!any) {
		return false;
	}
	if (point < 0) {
		point = (long)nd;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < n && (s[i] == '-' || s[i] == '+')) {
			eneg = s[i] == '-';
			i++;
		}
		long e = 0;
		bool edig = false;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			edig = true;
			if (e < 100000) {
				e = e * 10 + (s[i] - '0');
			}
		}
		if (!edig) {
			return false;
		}
		point += eneg ? -e : e;
	}
	/* Surrounding whitespace is allowed for numbers given as strings. */
	while (i < n && (s[i] == ' ' || s[i] == '\t')) {
		i++;
	}
	if (i != n) {
		return false;
	}
	if (point > 17) {
		return false; /* 10^17 µs is over 3,000 years: not a timestamp */
	}
	int64_t ip = 0, fp = 0;
	for (long k = 0; k < point; k++) {
		ip = ip * 10 + (k >= 0 && (size_t)k < nd ? dig[k] - '0' : 0);
	}
	for (long k = point; k < point + 6; k++) {
		fp = fp * 10 + (k >= 0 && (size_t)k < nd ? dig[k] - '0' : 0);
	}
	long rk = point + 6;
	if (rk >= 0 && (size_t)rk < nd && dig[rk] >= '5') {
		if (++fp == 1000000) {
			fp = 0;
			ip++;
		}
	}
	if (neg && (ip || fp)) {
		ip = -ip;
		if (fp) {
			ip -= 1;
			fp = 1000000 - fp;
		}
	}
	*us = ip;
	*frac = fp;
	return true;
}

/* Whether text parse_us() refused is still a number (so out of range,
 * not malformed): a sign, digits, a point, an exponent, outer blanks. */
static inline bool numeric_text(const char *s, size_t n) {
	bool digit = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			digit = true;
		} else if (!strchr("+-.eE \t", c) || c == '\0') {
			return false;
		}
	}
	return digit;
}

/* Integer text → int64; false if not a plain integer or out of range. */
static inline bool parse_i64(const char *s, size_t n, int64_t *out) {
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= n || n - i > 19) {
		return false;
	}
	uint64_t v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return false;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1) {
			return false;
		}
		*out = (int64_t)(0 - v);
	} else {
		if (v > (uint64_t)INT64_MAX) {
			return false;
		}
		*out = (int64_t)v;
	}
	return true;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * Decimal text → double. Plain decimals with up to 15 significant digits are
 * exact as mantissa / 10^k (both exactly representable, one rounding); the
 * rest goes to strtod.
 */
static inline double parse_double(const char *s, size_t n) {
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	uint64_t mant = 0;
	int nd = 0, frac = 0;
	bool point = false, simple = i < n;
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			if (nd || c != '0') {
				nd++;
			}
			mant = mant * 10 + (uint64_t)(c - '0');
			frac += point;
			if (nd > 15) {
				simple = false;
				break;
			}
		} else if (c == '.' && !point) {
			point = true;
		} else {
			simple = false;
			break;
		}
	}
	if (simple && frac <= 22) {
		double d = (double)mant / pow10_tab[frac];
		return neg ? -d : d;
	}
	char buf[128];
	if (n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	return strtod(buf, NULL);
}

#endif
