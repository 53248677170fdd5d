/*
 * "Did you mean": the closest of a list of names to a mistyped word, for
 * commands, options, metrics and op names.
 */
#include <stdint.h>
#include <string.h>
#include "util/suggest.h"

/* Edit distance with transpositions ("tpo" is one from "top"). */
static size_t distance(const char *a, const char *b) {
	size_t na = strlen(a), nb = strlen(b);
	if (na > 64 || nb > 64) {
		return SIZE_MAX;
	}
	size_t d[65][65];
	for (size_t i = 0; i <= na; i++) {
		for (size_t j = 0; j <= nb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
			best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
					d[i - 2][j - 2] + 1 < best) {
				best = d[i - 2][j - 2] + 1;
			}
			d[i][j] = best;
		}
	}
	return d[na][nb];
}

const char *tc_suggest(const char *word, const char *const *names, size_t n) {
	size_t len = strlen(word), max = len < 6 ? 1 : 2, best = SIZE_MAX;
	const char *found = NULL;
	for (size_t i = 0; i < n; i++) {
		/* The distance is at least the difference in length: most names
		 * of a long list are ruled out without the table. */
		size_t nl = strlen(names[i]);
		if ((nl > len ? nl - len : len - nl) > max) {
			continue;
		}
		size_t d = distance(word, names[i]);
		if (d <= max && d < best) {
			best = d;
			found = names[i];
		}
	}
	return found;
}
