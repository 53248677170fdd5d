/*
 * `tracectl digest` and `tracectl merge`, and loading digests for the
 * other commands that read them.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/digest.h"
#include "cli/cli.h"
#include "ingest/digest.h"
#include "model/digest.h"
#include "output/digest_write.h"
#include "util/xalloc.h"

/*
 * `tracectl digest` and `tracectl merge`, and reading digests for the
 * commands that take them (docs/digest.md).
 */

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
	struct tc_digest out;
	tc_digest_init(&out);
	struct tc_error err;
	tc_error_init(&err);
	int code = TC_EXIT_OK;
	struct tc_outfile o;
	if (!tc_digest_merge(ins, NULL, n, &out, &err)) {
		code = tc_cli_error(&err);
	} else if (!tc_cli_open_output(c, inputs, n_inputs, NULL, &o)) {
		code = TC_EXIT_OUTPUT;
	} else {
		for (size_t r = 0; r < out.msg->n_ranks; r++) {
			tc_digest_rank_compact(out.msg->ranks[r], &out.arena);
		}
		tc_write_digest(o.fp, &out, compress);
		code = tc_cli_close_output(&o);
	}
	tc_digest_finish(&out);
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
	struct tc_digest d;
	tc_digest_init(&d);
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
			tc_digest_add_rank(&d, m, argv[i]);
			code = tc_cli_strict(&c, m);
			tc_model_destroy(m);
		}
		/* A rank no reader would take (a trace spanning more than
		 * TC_DIGEST_TIME_MAX) is refused here, not written. */
		struct tc_error err;
		tc_error_init(&err);
		if (code == TC_EXIT_OK &&
				!tc_digest_rank_valid(d.msg->ranks[d.msg->n_ranks - 1], &err)) {
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
		struct tc_digest *one = &d;
		code = write_merged(&c, &one, 1, argv + optind, argc - optind, compress);
	}
	tc_digest_finish(&d);
	return code;
}

/* A digest that would not read: a file that is no digest is a usage
 * error (the command reads digests only). */
static int read_error(const char *cmd, const char *path, const struct tc_cli_common *c,
		const struct tc_error *err) {
	if (!tc_ingest_is_digest(path, &c->ingest.lim) && err->code == TC_EXIT_INPUT &&
			strcmp(err->msg, "not a tracectl digest") == 0) {
		return tc_cli_usage_error(cmd, "'%s' is not a digest; %s reads digests only", path,
			cmd);
	}
	return tc_cli_error(err);
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
	struct tc_digest_packed *in = tc_xcalloc(n, sizeof(*in));
	struct tc_digest_packed **v = tc_xmalloc(n * sizeof(*v));
	struct tc_error err;
	tc_error_init(&err);
	for (size_t i = 0; i < n; i++) {
		tc_digest_packed_init(&in[i]);
		v[i] = &in[i];
		if (code == TC_EXIT_OK && !tc_ingest_digest_packed(argv[optind + (int)i],
				&c.ingest.lim, &in[i], &err)) {
			code = read_error("merge", argv[optind + (int)i], &c, &err);
		}
	}
	struct tc_digest_packed out;
	tc_digest_packed_init(&out);
	struct tc_outfile o;
	if (code != TC_EXIT_OK) {
		/* reported */
	} else if (!tc_digest_merge_packed(v, (const char *const *)argv + optind, n, &out, &err)) {
		code = tc_cli_error(&err);
	} else if (!tc_cli_open_output(&c, argv + optind, argc - optind, NULL, &o)) {
		code = TC_EXIT_OUTPUT;
	} else {
		tc_write_digest_packed(o.fp, &out, compress);
		code = tc_cli_close_output(&o);
	}
	tc_digest_packed_finish(&out);
	for (size_t i = 0; i < n; i++) {
		tc_digest_packed_finish(&in[i]);
	}
	free(v);
	free(in);
	return code;
}

/* ---- commands that read digests ---- */

int tc_cli_inputs_kind(const struct tc_cli_common *c, char **paths, int n) {
	int digests = 0;
	for (int i = 0; i < n; i++) {
		digests += tc_ingest_is_digest(paths[i], &c->ingest.lim);
	}
	return !digests ? 0 : digests == n ? 1 : -1;
}

int tc_cli_digests_load(const struct tc_cli_common *c, const char *cmd, char **paths, int n,
		struct tc_cli_digests *out) {
	memset(out, 0, sizeof(*out));
	out->d = tc_xcalloc(n ? (size_t)n : 1, sizeof(*out->d));
	for (int i = 0; i < n; i++) {
		struct tc_error err;
		tc_error_init(&err);
		tc_digest_init(&out->d[out->n]);
		if (!tc_ingest_digest(paths[i], &c->ingest.lim, &out->d[out->n], &err)) {
			tc_digest_finish(&out->d[out->n]);
			return read_error(cmd, paths[i], c, &err);
		}
		const Tracectl__Digest *msg = out->d[out->n].msg;
		for (size_t r = 0; r < msg->n_ranks; r++) {
			if (!tc_digest_rank_valid(msg->ranks[r], &err)) {
				tc_error_path(&err, paths[i]);
				out->n++;
				return tc_cli_error(&err);
			}
		}
		out->n_ranks += out->d[out->n++].msg->n_ranks;
	}
	out->ranks = tc_xmalloc((out->n_ranks ? out->n_ranks : 1) * sizeof(*out->ranks));
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++) {
		for (size_t r = 0; r < out->d[i].msg->n_ranks; r++) {
			out->ranks[k++] = out->d[i].msg->ranks[r];
		}
	}
	out->twice = tc_cli_digests_dedupe(out, 1);
	out->skel = tc_digest_skeleton(out->ranks, out->n_ranks);
	tc_cli_digests_warn_twice(out->skel, out->twice);
	return TC_EXIT_OK;
}

/* A rank and where it is: in[in].ranks[at]. */
struct rank_at {
	const char *name;
	size_t in, at;
};

static int cmp_rank_at(const void *pa, const void *pb) {
	const struct rank_at *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (c) {
		return c;
	}
	return a->in != b->in ? (a->in > b->in) - (a->in < b->in) : (a->at > b->at) - (a->at < b->at);
}

size_t tc_cli_digests_dedupe(struct tc_cli_digests *in, size_t n) {
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += in[i].n_ranks;
	}
	struct rank_at *v = tc_xmalloc((total ? total : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < in[i].n_ranks; r++) {
			v[k++] = (struct rank_at){ in[i].ranks[r]->name, i, r };
		}
	}
	tc_sort(v, total, sizeof(*v), cmp_rank_at);
	/* The later copies of a name marked NULL, then squeezed out. */
	size_t twice = 0;
	for (size_t j = 1; j < total; j++) {
		if (strcmp(v[j].name, v[j - 1].name) == 0) {
			in[v[j].in].ranks[v[j].at] = NULL;
			twice++;
		}
	}
	free(v);
	for (size_t i = 0; twice && i < n; i++) {
		size_t w = 0;
		for (size_t r = 0; r < in[i].n_ranks; r++) {
			if (in[i].ranks[r]) {
				in[i].ranks[w++] = in[i].ranks[r];
			}
		}
		in[i].n_ranks = w;
	}
	return twice;
}

void tc_cli_digests_warn_twice(struct tc_model *m, size_t twice) {
	if (twice) {
		tc_model_warn_inputs(m, twice, "the same rank was given more than once (same rank name in "
			"digests); read once");
	}
}

void tc_cli_digests_finish(struct tc_cli_digests *in) {
	for (size_t i = 0; i < in->n; i++) {
		tc_digest_finish(&in->d[i]);
	}
	free(in->d);
	free(in->ranks);
	if (in->skel) {
		tc_model_destroy(in->skel);
	}
	memset(in, 0, sizeof(*in));
}

bool tc_cli_analysis_default(const struct tc_analysis_opts *o) {
	struct tc_analysis_opts d;
	tc_analysis_opts_init(&d);
	return !o->step_range && !o->device && !o->step_marker && o->peak_flops == d.peak_flops &&
		o->peak_bw == d.peak_bw && memcmp(o->th, d.th, sizeof(d.th)) == 0;
}

bool tc_cli_digest_opts(const char *cmd, const struct tc_analysis_opts *o, int *code) {
	if (!tc_cli_analysis_default(o)) {
		*code = tc_cli_usage_error(cmd, "a digest holds the default analysis: --steps, "
			"--device, --step-marker, --threshold and --peak-* need the traces");
		return false;
	}
	return true;
}

int tc_cli_digests_open(const struct tc_cli_common *c, const char *cmd,
		const struct tc_analysis_opts *ao, int kind, char **paths, int n,
		struct tc_cli_digests *in) {
	int code = TC_EXIT_OK;
	memset(in, 0, sizeof(*in));
	if (kind < 0) {
		return tc_cli_usage_error(cmd, "give traces or digests, not both");
	}
	if (!tc_cli_digest_opts(cmd, ao, &code)) {
		return code;
	}
	return tc_cli_digests_load(c, cmd, paths, n, in);
}

int tc_cli_digest_rank_open(const struct tc_cli_common *c, const char *cmd,
		const struct tc_analysis_opts *ao, int kind, char **paths, int n, bool result,
		struct tc_cli_digests *in) {
	int code = tc_cli_digests_open(c, cmd, ao, kind, paths, n, in);
	if (code != TC_EXIT_OK) {
		return code;
	}
	if (in->n_ranks != 1) {
		/* Several ranks' output is one analysis over their merged
		 * model, which the ranks' own results do not give. */
		return tc_cli_usage_error(cmd, "%s reads one rank from digests, not %zu (give one "
			"rank's digest, or the traces)", cmd, in->n_ranks);
	}
	if (result && !in->ranks[0]->result) {
		return tc_cli_no_result(in->ranks[0], n == 1 ? paths[0] : "");
	}
	return TC_EXIT_OK;
}

int tc_cli_no_result(const struct Tracectl__Rank *r, const char *path) {
	struct tc_error err;
	tc_error_init(&err);
	tc_error_set(&err, TC_EXIT_INPUT, "malformed digest: rank '%s' holds no summary", r->name);
	tc_error_path(&err, path);
	return tc_cli_error(&err);
}
