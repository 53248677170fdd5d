/*
 * Baseline for bench/json.sh: tokenise a JSON file with tracectl's own
 * tokeniser (src/ingest/json/json_lex.c, as the reader runs it: 256 KiB batches
 * from tc_input_read) and drop the tokens, to compare ingest against the
 * parse alone; bench/yajl_noop does the same with yajl. --dedup also
 * deduplicates strings, as the reader's tokenising thread does (its whole
 * share of the work).
 *
 *   json_lex_noop [--dedup] FILE.json
 */
#include <stdio.h>
#include <string.h>
#include "ingest/json/json_lex.h"

int main(int argc, char **argv) {
	bool dedup = argc == 3 && strcmp(argv[1], "--dedup") == 0;
	if (argc != 2 + dedup) {
		fprintf(stderr, "usage: json_lex_noop [--dedup] FILE.json\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	if (!tc_input_open(&in, path, &lim, &err)) {
		fprintf(stderr, "json_lex_noop: %s\n", err.msg);
		return 3;
	}
	struct tc_jsrc src;
	struct tc_jbatch b[2] = { { 0 } };
	tc_jsrc_init(&src, &in, &lim);
	src.lx.dedup = dedup;
	size_t tokens = 0;
	bool more = true, failed = false;
	for (size_t k = 0; more; k++) {
		more = tc_jsrc_fill(&src, &b[k & 1]);
		tokens += b[k & 1].n;
		failed = b[k & 1].failed;
	}
	if (failed) {
		fprintf(stderr, "json_lex_noop: %s (at byte %lld)\n", src.err.msg,
			(long long)src.err.offset);
	}
	printf("%zu tokens, %llu bytes\n", tokens, (unsigned long long)src.offset);
	tc_jbatch_finish(&b[0]);
	tc_jbatch_finish(&b[1]);
	tc_jsrc_finish(&src);
	tc_input_finish(&in);
	return failed ? 3 : 0;
}
