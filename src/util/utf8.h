#ifndef TC_UTIL_UTF8_H
#define TC_UTIL_UTF8_H

/*
 * Cutting strings at a length limit (--max-string) without splitting a
 * UTF-8 sequence: a kept prefix of valid UTF-8 stays valid, so viewers and
 * the JSON writer never see half a character.
 */

#include <stddef.h>
#include <stdint.h>

/* The length to keep of s[0, n) under max bytes: n when it fits, else max
 * backed off to the start of the sequence that max would split (at most 3
 * bytes). Invalid input (4 continuation bytes in a row) is cut at max. */
static inline size_t tc_utf8_cut(const uint8_t *s, size_t n, size_t max) {
	if (n <= max) {
		return n;
	}
	/* s[max] is the first byte dropped: a continuation byte there means
	 * the sequence it belongs to started before the cut. */
	size_t k = max;
	for (int i = 0; i < 3 && k > 0 && (s[k] & 0xC0) == 0x80; i++) {
		k--;
	}
	return (s[k] & 0xC0) == 0x80 ? max : k;
}

#endif
