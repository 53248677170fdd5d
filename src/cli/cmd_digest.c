/*
 * `tracectl digest` and `tracectl merge` (docs/digest.md); the commands
 * that read digests do so through cli/digests.c.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "digest/build.h"
#include "digest/digest.h"
#include "digest/read.h"
#include "digest/write.h"
#include "util/xalloc.h"

static const struct tc_option digest_options[] = {
	{ "output", 'o', "FILE", "write the digest to FILE (atomically; '-' = stdout)",
		"Write the digest to _FILE_ through a temporary file renamed into place; "
		"*-* is standard output.", 'o' },
	{ "no-compress", 0, NULL, "write the digest uncompressed (default: one zstd frame)",
		"Write the protobuf uncompressed. By default a digest is one zstd frame "
		"(level 3), 1.2-3.3x smaller; readers detect either by content. Builds "
		"without libzstd always write it uncompressed.", 'N' },
	{ 0 },
};

const struct tc_cli_spec tc_digest_spec = {
	.name = "digest",
	.usage = "[OPTIONS] -o FILE TRACE...",
	.about =
		"Write a compact digest of each TRACE (one rank each): metadata, op\n"
		"statistics with a mergeable duration sketch, per-step attribution and\n"
		"transfers, memory peaks, compilation, findings and what summarize,\n"
		"diff and check print. bottlenecks, check, diff, ops, steps and summarize\n"
		"read digests as they read traces; merge combines digests of a job's ranks.\n",
	.options = digest_options,
	.groups = (const struct tc_option_group *const[]){ &tc_cli_input_group, NULL },
};

const struct tc_cli_spec tc_merge_spec = {
	.name = "merge",
	.usage = "[OPTIONS] -o FILE DIGEST...",
	.about =
		"Merge digests into one: every rank kept, sorted by rank, and the\n"
		"job-level op statistics recomputed from them, so the bytes written do\n"
		"not depend on the order or grouping of the merges. A rank in two\n"
		"digests is an error.\n",
	.options = digest_options,
	.groups = (const struct tc_option_group *const[]){ &tc_cli_input_group, NULL },
};

/* Parse digest's and merge's options; 0 and the operands at optind. */
static int parse(const struct tc_cli_spec *spec, struct tc_cli_common *c, int argc,
		char **argv, bool *compress) {
	int code = TC_EXIT_OK, opt;
	const char *arg;
	struct tc_cli_parser p;
	c->output = NULL;
	*compress = true;
	tc_cli_parser_init(&p, spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (opt == 'o') {
			c->output = arg;
		} else if (opt == 'N') {
			*compress = false;
		} else if (tc_cli_common_opt(c, opt, arg, &code) && code) {
			return code;
		}
	}
	if (opt < 0) {
		return p.code ? p.code : -1;
	}
	if (optind >= argc) {
		return tc_cli_usage_error(spec->name, "no %s given",
			strcmp(spec->name, "merge") == 0 ? "DIGEST" : "TRACE");
	}
	if (!c->output) {
		return tc_cli_usage_error(spec->name, "-o FILE is required (a digest is binary)");
	}
	return TC_EXIT_OK;
}

/* Merge ins into one canonical digest and write it. */
static int write_merged(const struct tc_cli_common *c, struct tc_digest *const *ins,
		size_t n, char **inputs, int n_inputs, bool compress) {
	struct tc_digest *out = tc_digest_create();
	struct tc_error err;
	tc_error_init(&err);
	int code = TC_EXIT_OK;
	struct tc_outfile o;
	if (!tc_digest_merge(ins, NULL, n, out, &err)) {
		code = tc_cli_error(&err);
	} else if (!tc_cli_open_output(c, inputs, n_inputs, NULL, &o)) {
		code = TC_EXIT_OUTPUT;
	} else {
		tc_digest_compact(out);
		tc_write_digest(o.fp, out, compress);
		code = tc_cli_close_output(&o);
	}
	tc_digest_destroy(out);
	return code;
}

int tc_cmd_digest(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "digest");
	bool compress;
	int code = parse(&tc_digest_spec, &c, argc, argv, &compress);
	if (code) {
		return code < 0 ? TC_EXIT_OK : code;
	}
	struct tc_digest *d = tc_digest_create();
	/* File after file: a model's freed arrays serve the next one's. */
	tc_malloc_reuse_begin();
	for (int i = optind; i < argc && code == TC_EXIT_OK; i++) {
		if (tc_ingest_is_digest(argv[i], &c.ingest.lim)) {
			code = tc_cli_usage_error("digest", "'%s' is a digest already; merge "
				"combines digests", argv[i]);
			break;
		}
		/* One rank a file: read, summarise and drop each in turn. */
		struct tc_model *m = tc_cli_load(&c, argv + i, 1, &code);
		if (m) {
			tc_digest_add_rank(d, m, argv[i]);
			code = tc_cli_strict(&c, m);
			tc_model_destroy(m);
		}
		/* A rank no reader would take (a trace spanning more than
		 * TC_DIGEST_TIME_MAX) is refused here, not written. */
		struct tc_error err;
		tc_error_init(&err);
		if (code == TC_EXIT_OK &&
				!tc_digest_rank_check(d, tc_digest_n_ranks(d) - 1, &err)) {
			/* Its indexes are the model's own: only its times can be. */
			tc_error_init(&err);
			tc_error_set(&err, TC_EXIT_INPUT, "its times lie further from its first event "
				"than a digest holds (about 3.3 days)");
			tc_error_path(&err, argv[i]);
			code = tc_cli_error(&err);
		}
	}
	tc_malloc_reuse_end();
	if (code == TC_EXIT_OK) {
		code = write_merged(&c, &d, 1, argv + optind, argc - optind, compress);
	}
	tc_digest_destroy(d);
	return code;
}

int tc_cmd_merge(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "merge");
	bool compress;
	int code = parse(&tc_merge_spec, &c, argc, argv, &compress);
	if (code) {
		return code < 0 ? TC_EXIT_OK : code;
	}
	/* Ranks stay packed: merging copies their bytes. */
	size_t n = (size_t)(argc - optind);
	struct tc_digest_packed **v = tc_xmalloc(n * sizeof(*v));
	struct tc_error err;
	tc_error_init(&err);
	for (size_t i = 0; i < n; i++) {
		v[i] = tc_digest_packed_create();
		if (code == TC_EXIT_OK && !tc_digest_read_packed(argv[optind + (int)i],
				&c.ingest.lim, v[i], &err)) {
			code = tc_cli_digest_read_error("merge", argv[optind + (int)i], &c, &err);
		}
	}
	struct tc_digest_packed *out = tc_digest_packed_create();
	struct tc_outfile o;
	if (code != TC_EXIT_OK) {
		/* reported */
	} else if (!tc_digest_merge_packed(v, (const char *const *)argv + optind, n, out, &err)) {
		code = tc_cli_error(&err);
	} else if (!tc_cli_open_output(&c, argv + optind, argc - optind, NULL, &o)) {
		code = TC_EXIT_OUTPUT;
	} else {
		tc_write_digest_packed(o.fp, out, compress);
		code = tc_cli_close_output(&o);
	}
	tc_digest_packed_destroy(out);
	for (size_t i = 0; i < n; i++) {
		tc_digest_packed_destroy(v[i]);
	}
	free(v);
	return code;
}
