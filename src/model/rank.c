#include <stdio.h>
#include <string.h>
#include "model/rank.h"

static bool is_digit(char c) {
	return c >= '0' && c <= '9';
}

static char lower(char c) {
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The number after the last "rank", "rank-" or "rank_" in s; false if none. */
static bool rank_in(const char *s, const char **digits, size_t *nd) {
	bool found = false;
	size_t n = strlen(s);
	for (size_t i = 0; i + 4 < n; i++) {
		if (lower(s[i]) != 'r' || lower(s[i + 1]) != 'a' || lower(s[i + 2]) != 'n' ||
				lower(s[i + 3]) != 'k') {
			continue;
		}
		size_t k = i + 4;
		if (s[k] == '-' || s[k] == '_') {
			k++;
		}
		size_t e = k;
		while (e < n && is_digit(s[e]) && e - k < 18) {
			e++;
		}
		if (e > k) {
			*digits = s + k;
			*nd = e - k;
			found = true;
		}
	}
	return found;
}

void tc_model_source_rank(const struct tc_model *m, uint32_t s, char *buf, size_t size) {
	const struct tc_source *src = &m->sources[s];
	if (src->host != TC_NONE && src->host < m->n_hosts) {
		const char *h = tc_model_str(m, m->hosts[src->host].name);
		if (strncmp(h, "rank ", 5) == 0 && h[5] && strspn(h + 5, "0123456789") ==
				strlen(h + 5)) {
			snprintf(buf, size, "%s", h);
			return;
		}
	}
	const char *path = tc_model_str(m, src->path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *d;
	size_t nd;
	if (rank_in(base, &d, &nd)) {
		/* "rank-007" and "rank7" are the same rank. */
		while (nd > 1 && *d == '0') {
			d++;
			nd--;
		}
		snprintf(buf, size, "rank %.*s", (int)nd, d);
	} else {
		snprintf(buf, size, "%s", base);
	}
}
