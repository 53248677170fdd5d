/*
 * Digests as inputs of the commands that read them (docs/digest.md):
 * telling digests from traces, reading, deduplicating ranks, and the
 * refusals (analysis options, several ranks, no summary). digest and
 * merge write digests in cmd_digest.c.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "digest/digest.h"
#include "digest/ranks.h"
#include "digest/read.h"
#include "util/xalloc.h"

int tc_cli_digest_read_error(const char *cmd, const char *path, const struct tc_cli_common *c,
		const struct tc_error *err) {
	if (!tc_ingest_is_digest(path, &c->ingest.lim) && err->code == TC_EXIT_INPUT &&
			strcmp(err->msg, "not a tracectl digest") == 0) {
		return tc_cli_usage_error(cmd, "'%s' is not a digest; %s reads digests only", path,
			cmd);
	}
	return tc_cli_error(err);
}

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
	out->ranks = tc_rank_set_create();
	for (int i = 0; i < n; i++) {
		struct tc_error err;
		tc_error_init(&err);
		out->d[out->n] = tc_digest_create();
		if (!tc_digest_read(paths[i], &c->ingest.lim, out->d[out->n], &err)) {
			tc_digest_destroy(out->d[out->n]);
			return tc_cli_digest_read_error(cmd, paths[i], c, &err);
		}
		if (!tc_rank_set_add_digest(out->ranks, out->d[out->n++], &err)) {
			tc_error_path(&err, paths[i]);
			return tc_cli_error(&err);
		}
	}
	out->twice = tc_cli_digests_dedupe(out, 1);
	out->skel = tc_rank_set_skeleton(out->ranks);
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
		total += tc_rank_set_n(in[i].ranks);
	}
	struct rank_at *v = tc_xmalloc((total ? total : 1) * sizeof(*v));
	bool *keep = tc_xmalloc((total ? total : 1) * sizeof(*keep));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < tc_rank_set_n(in[i].ranks); r++) {
			v[k++] = (struct rank_at){ tc_rank_set_name(in[i].ranks, r), i, r };
		}
	}
	tc_sort(v, total, sizeof(*v), cmp_rank_at);
	/* The later copies of a name marked, then squeezed out: keep is
	 * input by input, as v was filled. */
	size_t *first = tc_xmalloc((n ? n : 1) * sizeof(*first));
	for (size_t i = 0, at = 0; i < n; i++) {
		first[i] = at;
		at += tc_rank_set_n(in[i].ranks);
	}
	for (size_t j = 0; j < total; j++) {
		keep[j] = true;
	}
	size_t twice = 0;
	for (size_t j = 1; j < total; j++) {
		if (strcmp(v[j].name, v[j - 1].name) == 0) {
			keep[first[v[j].in] + v[j].at] = false;
			twice++;
		}
	}
	free(v);
	for (size_t i = 0; twice && i < n; i++) {
		if (in[i].ranks) {
			tc_rank_set_keep(in[i].ranks, keep + first[i]);
		}
	}
	free(first);
	free(keep);
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
		tc_digest_destroy(in->d[i]);
	}
	free(in->d);
	tc_rank_set_destroy(in->ranks);
	if (in->skel) {
		tc_model_destroy(in->skel);
	}
	memset(in, 0, sizeof(*in));
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
	size_t n_ranks = tc_rank_set_n(in->ranks);
	if (n_ranks != 1) {
		/* Several ranks' output is one analysis over their merged
		 * model, which the ranks' own results do not give. */
		return tc_cli_usage_error(cmd, "%s reads one rank from digests, not %zu (give one "
			"rank's digest, or the traces)", cmd, n_ranks);
	}
	if (result && !tc_rank_set_has_result(in->ranks, 0)) {
		return tc_cli_no_result(tc_rank_set_name(in->ranks, 0), n == 1 ? paths[0] : "");
	}
	return TC_EXIT_OK;
}

int tc_cli_no_result(const char *rank, const char *path) {
	struct tc_error err;
	tc_error_init(&err);
	tc_error_set(&err, TC_EXIT_INPUT, "malformed digest: rank '%s' holds no summary", rank);
	tc_error_path(&err, path);
	return tc_cli_error(&err);
}
