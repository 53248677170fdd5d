#ifndef TC_UTIL_UTF8_H
#define TC_UTIL_UTF8_H

/*
 * UTF-8 helpers: decoding one sequence strictly (for writers that must
 * replace what is not valid), and cutting strings at a length limit
 * (--max-string) without splitting a sequence: a kept prefix of valid
 * UTF-8 stays valid, so viewers and the JSON writer never see half a
 * character.
 */

#include <stddef.h>
#include <stdint.h>

/* Code point of the valid UTF-8 sequence at s[0, n) in *cp; its length, or
 * 0 when the sequence is invalid (lead bytes 0x80-0xC1, 0xF5-0xFF),
 * overlong, a surrogate, beyond U+10FFFF or cut short. */
static inline size_t tc_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp) {
	uint8_t c = s[0];
	size_t len;
	uint32_t min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, *cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, *cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, *cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n) {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			return 0;
		}
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff)) {
		return 0;
	}
	return len;
}

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
