/*
 * Detecting digests by content ("TCDIGEST"), so that readers of traces can
 * say what a digest is; reading one is digest/read.c's.
 */
#include <string.h>
#include <sys/stat.h>
#include "ingest/digest.h"

bool tc_digest_sniff(const uint8_t *head, size_t len) {
	static const uint8_t magic[9] = { 0x09, 'T', 'C', 'D', 'I', 'G', 'E', 'S', 'T' };
	return len >= sizeof(magic) && memcmp(head, magic, sizeof(magic)) == 0;
}

bool tc_ingest_is_digest(const char *path, const struct tc_limits *lim) {
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		return false;
	}
	struct tc_input in;
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_input_open(&in, path, lim, &err)) {
		return false;
	}
	bool yes = tc_digest_sniff(in.head, in.head_len);
	tc_input_finish(&in);
	return yes;
}
