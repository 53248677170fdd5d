#ifndef TC_UTIL_NUM_H
#define TC_UTIL_NUM_H

/*
 * Numbers from untrusted input. Converting a double outside the target's
 * range (or NaN) to an integer is undefined behaviour in C, and damaged
 * traces do carry 1e34 core counts: readers convert through this.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* d clamped to [lo, hi]; NaN gives 0. */
static inline int64_t tc_double_to_i64(double d, int64_t lo, int64_t hi) {
	if (!(d > (double)lo)) {
		return d != d ? 0 : lo;
	}
	if (!(d < (double)hi)) {
		return hi;
	}
	return (int64_t)d;
}

/* d converts to int64 without overflow (NaN: no). 2^63 is exact in double. */
static inline bool tc_double_fits_i64(double d) {
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

/* a + b saturated at the int64 range: sums of durations from damaged input
 * must not overflow (undefined behaviour) however many events there are. */
/* Greatest common divisor; gcd(0, b) = b. */
static inline uint64_t tc_gcd(uint64_t a, uint64_t b) {
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* |v| as unsigned, INT64_MIN included. */
static inline uint64_t tc_magnitude(int64_t v) {
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* 2^53: integers up to here are doubles exactly, and so is every partial
 * sum of nonnegative integers whose total is (no addition rounds). */
#define TC_DOUBLE_EXACT_MAX ((unsigned __int128)1 << 53)

static inline int64_t tc_sat_add(int64_t a, int64_t b) {
	/* The overflow flag: an add and a branch never taken, where bounds
	 * checked first cost five more instructions (per event in the op walk). */
	int64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		r = b > 0 ? INT64_MAX : INT64_MIN;
	}
	return r;
}

/* The 8 bytes at p as a little-endian word (p[0] lowest) on any host: for
 * word-at-a-time scans of text. */
static inline uint64_t tc_load_le64(const void *p) {
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The first n bytes at p (all 8 when n >= 8) as a zero-padded
 * little-endian word: short strings compared as one integer. Eight bytes
 * at p must be readable. */
static inline uint64_t tc_load_le64_prefix(const void *p, size_t n) {
	return tc_load_le64(p) & (n >= 8 ? ~0ull : (1ull << (8 * n)) - 1);
}

#endif
