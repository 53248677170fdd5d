#ifndef TC_UTIL_ASCII_H
#define TC_UTIL_ASCII_H

/*
 * ASCII case folding for names: op, track and device names are matched
 * against ASCII keywords, and bytes outside A-Z compare as they are (no
 * locale, so UTF-8 names stay intact).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline char tc_ascii_lower(char c) {
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Whether s[0..n) contains needle, ignoring ASCII case; an empty needle is
 * in every string. */
static inline bool tc_ascii_contains_ci(const char *s, size_t n, const char *needle) {
	size_t k = strlen(needle);
	if (k == 0) {
		return true;
	}
	char first = tc_ascii_lower(needle[0]);
	for (size_t i = 0; i + k <= n; i++) {
		if (tc_ascii_lower(s[i]) != first) {
			continue;
		}
		size_t j = 1;
		while (j < k && tc_ascii_lower(s[i + j]) == tc_ascii_lower(needle[j])) {
			j++;
		}
		if (j == k) {
			return true;
		}
	}
	return false;
}

/*
 * The pairs of adjacent bytes of a name, case folded, as a set of 64 bits,
 * for a name matched against many keywords: a keyword with a pair not in
 * the set is not in the name (tc_ascii_may_contain), so most searches end
 * on one test instead of a pass over the name. Folding by | 0x20 merges
 * more than ASCII case, which only lets a few more on to the search.
 */
static inline unsigned tc_ascii_pair_bit(char a, char b) {
	return ((uint32_t)(unsigned char)(a | 0x20) * 0x9E3779B1u ^
		(uint32_t)(unsigned char)(b | 0x20) * 0x85EBCA77u) >> 26;
}

static inline uint64_t tc_ascii_pairs(const char *s, size_t n) {
	uint64_t m = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		m |= (uint64_t)1 << tc_ascii_pair_bit(s[i], s[i + 1]);
	}
	return m;
}

/* The pairs tc_ascii_may_contain tests of needle (k bytes): its first
 * three (constants for a literal). */
static inline uint64_t tc_ascii_needle_pairs(const char *needle, size_t k) {
	uint64_t w = 0;
	for (size_t i = 0; i + 1 < k && i < 3; i++) {
		w |= (uint64_t)1 << tc_ascii_pair_bit(needle[i], needle[i + 1]);
	}
	return w;
}

/* False where needle (k bytes), in any case, cannot be in a name of
 * pairs. */
static inline bool tc_ascii_may_contain(uint64_t pairs, const char *needle, size_t k) {
	uint64_t w = tc_ascii_needle_pairs(needle, k);
	return (pairs & w) == w;
}

#endif
