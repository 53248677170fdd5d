/*
 * Inputs of two or more ranks: each trace file read and analysed alone
 * into a digest rank, two at a time, joined with the ranks of digests
 * into one job whose analysis is composed from theirs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "analysis/job.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "digest/build.h"
#include "digest/digest.h"
#include "digest/ranks.h"
#include "digest/read.h"
#include "ingest/ingest.h"
#include "util/spill.h"
#include "util/term.h"
#include "util/xalloc.h"

/*
 * Inputs of two or more ranks for summarize, bottlenecks and steps: each
 * trace file is read and analysed alone into a digest rank, two at a time
 * on two threads, and the ranks digests hold join them; the job's
 * analysis is composed from those (analysis/job.h).
 */

struct reader {
	const struct tc_cli_common *c;
	struct tc_ingest_opts io;  /* the common one, counting progress */
	const struct tc_analysis_opts *ao;
	enum tc_digest_keep keep;
	char **files;
	size_t n;
	struct tc_spill *aside;    /* lean ranks' bulk */
	size_t *out;               /* per file: its rank's index in its digest, SIZE_MAX none */
	struct tc_digest **out_d;  /* per file: that digest */
	struct tc_error *err;      /* per file */
	pthread_mutex_t lock;
	size_t next;
	bool failed;               /* stop taking files */
	bool threaded;
};

struct worker {
	struct reader *rd;
	struct tc_digest *d;       /* in the job, never moved */
};

static void read_one(struct worker *w, size_t i) {
	struct reader *rd = w->rd;
	struct tc_ingest_opts io = rd->io;
	/* Two ranks at a time use both cores: each reads on one. */
	io.threads = rd->threaded ? 1 : io.threads;
	const char *path = rd->files[i];
	struct tc_model *m = tc_ingest(&path, 1, &io, &rd->err[i]);
	if (!m) {
		pthread_mutex_lock(&rd->lock);
		rd->failed = true;
		pthread_mutex_unlock(&rd->lock);
		return;
	}
	if (rd->ao->device) {
		struct tc_device_match dm;
		tc_analysis_match_device(m, rd->ao->device, &dm);
		if (dm.device == TC_NONE) {
			/* Printed in file order once reading ends. */
			pthread_mutex_lock(&rd->lock);
			rd->failed = true;
			pthread_mutex_unlock(&rd->lock);
			tc_error_set(&rd->err[i], TC_EXIT_USAGE, "--device matches none");
		}
		tc_analysis_device_match_finish(&dm);
	}
	if (!rd->err[i].code) {
		tc_digest_add_job_rank(w->d, m, path, rd->ao, rd->keep,
			rd->keep == TC_DIGEST_JOB_LEAN ? rd->aside : NULL);
		rd->out[i] = tc_digest_n_ranks(w->d) - 1;
		rd->out_d[i] = w->d;
	}
	tc_model_destroy(m);
}

static void *work(void *p) {
	struct worker *w = p;
	struct reader *rd = w->rd;
	for (;;) {
		pthread_mutex_lock(&rd->lock);
		size_t i = rd->failed ? rd->n : rd->next++;
		pthread_mutex_unlock(&rd->lock);
		if (i >= rd->n) {
			return NULL;
		}
		read_one(w, i);
	}
}

/* --device matching no device of the file at path: the error, naming the
 * candidates, from the file read again (an error path: no model kept). */
static int device_error(const struct tc_cli_common *c, const char *device, const char *path) {
	struct tc_error err;
	tc_error_init(&err);
	struct tc_model *m = tc_ingest(&path, 1, &c->ingest, &err);
	if (!m) {
		return tc_cli_error(&err);
	}
	struct tc_device_match dm;
	tc_analysis_match_device(m, device, &dm);
	tc_cli_device_error(m, device, &dm);
	tc_analysis_device_match_finish(&dm);
	tc_model_destroy(m);
	return TC_EXIT_USAGE;
}

/* Read files[0..n) into digests made[0..2) (kept with keep), their ranks
 * appended to job->ranks in file order; the exit code. */
static int read_traces(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		char **files, size_t n, enum tc_digest_keep keep, struct tc_digest **made,
		struct tc_cli_job *job) {
	struct reader rd = { .c = c, .io = c->ingest, .ao = ao, .keep = keep, .aside = job->aside,
		.files = files, .n = n,
		.out = tc_xmalloc(n * sizeof(*rd.out)), .out_d = tc_xcalloc(n, sizeof(*rd.out_d)),
		.err = tc_xcalloc(n, sizeof(*rd.err)),
		.threaded = c->ingest.threads != 1 && n >= 2 };
	for (size_t i = 0; i < n; i++) {
		tc_error_init(&rd.err[i]);
		rd.out[i] = SIZE_MAX;
	}
	pthread_mutex_init(&rd.lock, NULL);
	size_t nw = rd.threaded ? 2 : 1;
	struct worker *w = tc_xcalloc(nw, sizeof(*w));
	for (size_t k = 0; k < nw; k++) {
		w[k].rd = &rd;
		w[k].d = made[k];
	}
	tc_cli_progress_start(files, (int)n, &rd.io.lim);
	/* Each thread reads file after file: a model's freed arrays serve the
	 * next one's, faster than fresh pages for a little more peak memory
	 * (bench/README, "Digests and jobs"). */
	tc_malloc_reuse_begin();
	pthread_t th;
	bool second = nw == 2 && pthread_create(&th, NULL, work, &w[1]) == 0;
	work(&w[0]);
	if (second) {
		pthread_join(th, NULL);
	} else if (nw == 2) {
		work(&w[1]);
	}
	tc_malloc_reuse_end();
	tc_cli_progress_stop();
	int code = TC_EXIT_OK;
	for (size_t i = 0; i < n && code == TC_EXIT_OK; i++) {
		if (rd.err[i].code == TC_EXIT_USAGE) {
			code = device_error(c, ao->device, files[i]);
		} else if (rd.err[i].code) {
			code = tc_cli_error(&rd.err[i]);
		} else if (rd.out[i] != SIZE_MAX) {
			tc_rank_set_add_rank(job->ranks, rd.out_d[i], rd.out[i]);
		}
	}
	pthread_mutex_destroy(&rd.lock);
	free(w);
	free(rd.out);
	free(rd.out_d);
	free(rd.err);
	return code;
}

/*
 * The traces' ranks: lean ones first (no per-step categories or copies),
 * then, when the breakdown rank is one of them, that file read again
 * with them: only its steps are printed in full.
 */
static int read_job_traces(const struct tc_cli_common *c, const struct tc_analysis_opts *ao,
		char **files, size_t n, struct tc_cli_job *job) {
	job->made = tc_xcalloc(3, sizeof(*job->made));
	for (size_t k = 0; k < 3; k++) {
		job->made[k] = tc_digest_create();
	}
	job->n_made = 3;
	/* What each lean rank keeps of its steps and collectives waits in a
	 * temporary file until the job is composed, so memory does not grow
	 * with the job's steps. */
	job->aside = tc_xmalloc(sizeof(*job->aside));
	tc_spill_init(job->aside);
	int code = read_traces(c, ao, files, n, TC_DIGEST_JOB_LEAN, job->made, job);
	if (code != TC_EXIT_OK) {
		return code;
	}
	size_t bd = tc_job_breakdown_rank(tc_rank_set_job(job->ranks, NULL));
	bool lean = false;
	for (size_t k = 0; k < 2 && !lean; k++) {
		lean |= tc_rank_set_in_digest(job->ranks, bd, job->made[k]);
	}
	if (!lean) {
		return TC_EXIT_OK;
	}
	char *path = (char *)tc_rank_set_input(job->ranks, bd);
	size_t at = tc_rank_set_n(job->ranks);
	code = read_traces(c, ao, &path, 1, TC_DIGEST_JOB, job->made + 2, job);
	if (code == TC_EXIT_OK && tc_rank_set_n(job->ranks) == at + 1) {
		tc_rank_set_take_last(job->ranks, bd);
	}
	return code;
}

int tc_cli_job_open(const struct tc_cli_common *c, const char *cmd,
		const struct tc_analysis_opts *ao, char **paths, int n, struct tc_cli_job *job,
		int *code) {
	memset(job, 0, sizeof(*job));
	*code = TC_EXIT_OK;
	if (n <= 0) {
		return 0;
	}
	char **traces = tc_xmalloc((size_t)n * sizeof(*traces)), **digests = tc_xmalloc((size_t)n *
		sizeof(*digests));
	int nt = 0, nd = 0;
	for (int i = 0; i < n; i++) {
		if (tc_ingest_is_digest(paths[i], &c->ingest.lim)) {
			digests[nd++] = paths[i];
		} else {
			traces[nt++] = paths[i];
		}
	}
	int is = 0;
	char **files = NULL;
	size_t n_files = 0;
	struct tc_model *warn = tc_model_create();
	if (nt) {
		struct tc_error err;
		tc_error_init(&err);
		if (!tc_ingest_list((const char *const *)traces, (size_t)nt, &c->ingest, warn, &files,
				&n_files, &err)) {
			*code = tc_cli_error(&err);
			is = -1;
		}
	}
	bool stdin_in = false;
	for (size_t i = 0; i < n_files; i++) {
		stdin_in |= strcmp(files[i], "-") == 0;
	}
	if (is == 0 && nd) {
		if (!tc_cli_digest_opts(cmd, ao, code)) {
			is = -1;
		} else if ((*code = tc_cli_digests_load(c, cmd, digests, nd, &job->in)) != TC_EXIT_OK) {
			is = -1;
		}
	}
	/* One rank, or stdin among the traces: read as one input. */
	if (is == 0 && n_files + tc_rank_set_n(job->in.ranks) >= 2 && !stdin_in) {
		is = 1;
		job->ranks = tc_rank_set_create();
		for (size_t i = 0; i < tc_rank_set_n(job->in.ranks); i++) {
			if (!tc_rank_set_has_result(job->in.ranks, i)) {
				*code = tc_cli_no_result(tc_rank_set_name(job->in.ranks, i),
					nd == 1 ? digests[0] : "");
				is = -1;
				break;
			}
			tc_rank_set_add_from(job->ranks, job->in.ranks, i);
		}
		if (is == 1 && n_files) {
			*code = read_job_traces(c, ao, files, n_files, job);
			is = *code == TC_EXIT_OK ? 1 : -1;
		}
		size_t twice = is == 1 ? tc_rank_set_drop_digested(job->ranks, job->in.ranks) : 0;
		if (is == 1) {
			job->jr = tc_rank_set_job(job->ranks, job->aside);
			job->skel = tc_job_skeleton(job->jr);
			if (twice) {
				tc_model_warn_inputs(job->skel, twice, "a trace was given with its own "
					"digest (same rank, size, events and span); read once, from the trace");
			}
			tc_model_warn_from(job->skel, warn);
			if (job->in.skel) {
				tc_model_warn_from(job->skel, job->in.skel);
			}
		}
	}
	if (is == 0 && nd && nt) {
		*code = tc_cli_usage_error(cmd, "give traces or digests, not both, for one rank");
		is = -1;
	}
	if (is <= 0) {
		tc_cli_job_finish(job);
	}
	for (size_t i = 0; i < n_files; i++) {
		free(files[i]);
	}
	free(files);
	free(traces);
	free(digests);
	tc_model_destroy(warn);
	return is;
}

void tc_cli_job_finish(struct tc_cli_job *job) {
	const struct tc_spill *s = job->aside;
	if (s && s->error) {
		/* The output is the same; only the memory it took is not. */
		tc_term_fprintf(stderr, "tracectl: note: no temporary file in '%s' (%s): the "
			"ranks' steps and collectives were kept in memory; set TMPDIR to a folder "
			"with room\n", s->dir, strerror(s->error));
	}
	tc_cli_digests_finish(&job->in);
	for (size_t i = 0; i < job->n_made; i++) {
		tc_digest_destroy(job->made[i]);
	}
	free(job->made);
	if (job->aside) {
		tc_spill_finish(job->aside);
		free(job->aside);
	}
	tc_rank_set_destroy(job->ranks);
	if (job->skel) {
		tc_model_destroy(job->skel);
	}
	memset(job, 0, sizeof(*job));
}
