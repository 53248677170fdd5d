#ifndef TC_ANALYSIS_JOB_H
#define TC_ANALYSIS_JOB_H

/*
 * A job of two or more ranks, analysed from its ranks' own results
 * (docs/analysis.md, "Multi-rank"): each rank is analysed alone, from its
 * trace or read from a digest, and the job is composed from those alone.
 * So `summarize`, `bottlenecks` and `steps` print the same from the
 * digests as from the traces, and reading a folder of ranks holds one
 * rank's model at a time.
 *
 * The composer reads the ranks through struct tc_job_ranks: a few facts
 * per rank, and callbacks for what is bulky (a rank's own analysis, its
 * steps, its collectives). Whoever provides the ranks (the digest views,
 * digest/ranks.h) loads a rank's bulk inside a callback and
 * drops it before returning, so composing holds one rank's bulk at a
 * time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/analyze.h"
#include "model/findings.h"
#include "model/model.h"

/* What the job reads of a rank without its bulk. Strings are borrowed
 * from the ranks' provider. */
struct tc_job_rank {
	const char *name;           /* the rank's name */
	const char *input;          /* its file as given */
	int64_t number;             /* its rank number, -1 unknown */
	int32_t world_size;         /* 0 unknown */
	size_t n_devices;
	int64_t first_ps;           /* its first event, on its own clock */
	int64_t span_ps;
	uint64_t event_count;
	const char *steps_source;   /* how its steps were found, "" none */
	uint64_t n_steps_all;       /* steps found, before any trimming */
	size_t n_util, n_mem;       /* rows of its result's utilisation, its memory rows */
};

struct tc_coll_table;
struct tc_step_times;
/*
 * The ranks of a job, sorted canonically: v[0..n) and callbacks on ctx.
 * A callback's k is a rank's index, base its first device in skel (the
 * devices of the ranks before it), dt where its time 0 lies on the job's
 * clock.
 */
struct tc_job_ranks {
	const struct tc_job_rank *v;
	size_t n;
	void *ctx;
	/* A skeleton model of the ranks (sources, hosts, devices and op
	 * strings, no events), in their order. */
	struct tc_model *(*skeleton)(void *ctx);
	/* Where each rank's time 0 falls on the job's clock, clock[0..n). */
	void (*clock)(void *ctx, int64_t *clock);
	/* Rank k's own analysis (summary and findings, times on its own
	 * clock), its names added to skel; finish a with tc_analysis_finish. */
	void (*result)(void *ctx, struct tc_model *skel, size_t k, uint32_t base,
		struct tc_analysis *a);
	/* Rank k's steps alone, as result has them. */
	void (*steps)(void *ctx, struct tc_model *skel, size_t k, uint32_t base,
		struct tc_analysis *a);
	/* Rank k's exposed collective time in each of steps p (on the job's
	 * clock, rank k's time 0 at dt) on each of its devices dev[0..n_dev)
	 * (its own indexes): v[d * p->n + i] for device d, step i. */
	void (*exposed)(void *ctx, size_t k, int64_t dt, const struct tc_step_times *p,
		const uint32_t *dev, size_t n_dev, int64_t *v);
	/* Rank k's collective occurrences into t (initialised, empty), times
	 * plus dt; false when what it holds is malformed. */
	bool (*collectives)(void *ctx, size_t k, int64_t dt, struct tc_coll_table *t);
	/* `ops --by BY` of the job. */
	void (*op_table)(void *ctx, const struct tc_model *skel, const char *by,
		struct tc_op_table *t);
};

/* The ranks' skeleton model (jr->skeleton) with a host for every rank,
 * numbered as a merged model numbers them. Destroy it as usual. */
struct tc_model *tc_job_skeleton(const struct tc_job_ranks *jr);

/* The breakdown rank of jr: the first with device step markers, else the
 * one with the most host-marked steps, else the first. Only its steps'
 * categories and copies are read (TC_DIGEST_JOB); the others' may be
 * lean (TC_DIGEST_JOB_LEAN). */
size_t tc_job_breakdown_rank(const struct tc_job_ranks *jr);

/*
 * Fill a (finish it with tc_analysis_finish) with the job's analysis of
 * jr (n >= 2, skel from tc_job_skeleton):
 *   - the steps and breakdown of one rank (the breakdown rank: the first
 *     with device step markers, else the one with the most host-marked
 *     steps, else the first), every rank's own attribution;
 *   - the rank table, the collectives matched across ranks and each
 *     rank's wait for the late one;
 *   - the summary and the devices, ops, copies, memory and compilation of
 *     every rank, on the job's clock;
 *   - each rank's findings, the one that explains the most time of each
 *     kind kept and named with its rank, and the communication and
 *     straggler findings judged across the ranks.
 * o gives the thresholds the job's rules use.
 */
void tc_job_compose(struct tc_model *skel, const struct tc_job_ranks *jr,
	const struct tc_analysis_opts *o, struct tc_analysis *a);

#endif
