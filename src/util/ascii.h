#ifndef TC_UTIL_ASCII_H
#define TC_UTIL_ASCII_H

/*
 * ASCII case folding for names: op, track and device names are matched
 * against ASCII keywords, and bytes outside A-Z compare as they are (no
 * locale, so UTF-8 names stay intact).
 */

#include <stdbool.h>
#include <stddef.h>
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

#endif
