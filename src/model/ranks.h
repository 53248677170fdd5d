#ifndef TC_MODEL_RANKS_H
#define TC_MODEL_RANKS_H

/*
 * Per-rank results of a multi-rank job (analysis/ranks.c and
 * analysis/collectives.c fill them; output/rank_write.c prints them):
 * each rank's step attribution, the spread across ranks, and the
 * collectives matched across ranks. Empty (n == 0) for one rank.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tc_rank_result {
	int32_t rank;
	uint32_t host;
	uint32_t device;        /* the device its breakdown is on, TC_NONE none */
	const char *steps_source;
	size_t n_steps;         /* steps counted */
	/* Means per counted step, ps: */
	int64_t step_ps, compute_ps, comm_ps, idle_ps;
	int64_t slowest_num;    /* the slowest counted step's number, -1 none */
	int64_t slowest_ps;
	/* Collectives (when matched): */
	int64_t clock_offset_ps; /* subtracted from its times to align it */
	uint64_t n_last;        /* instances it arrived last at */
	int64_t wait_ps;        /* its own wait for the last arrival, summed */
	int64_t caused_ps;      /* the others' wait, summed, where it came last */
	int64_t transfer_ps;    /* last arrival to its end, summed */
};

/* One collective run by every rank that holds it. */
struct tc_coll_instance {
	uint32_t name;          /* collective or op name (string id) */
	uint32_t group;         /* process group name, 0 none */
	uint64_t index;         /* its Seq, else its occurrence in (group, name) */
	size_t n_ranks;         /* ranks that ran it */
	size_t last;            /* index into tc_ranks.v of the last to arrive */
	int64_t last_step;      /* that rank's step number holding it, -1 none */
	int64_t first_start_ps, last_start_ps; /* aligned, model ps */
	int64_t skew_ps;        /* last start - first start */
	int64_t wait_ps;        /* summed over ranks: start to last arrival */
	int64_t transfer_ps;    /* median over ranks: last arrival to its end */
	double bytes;           /* message bytes, -1 unknown */
	double algbw, busbw;    /* bytes/s, -1 unknown */
};

struct tc_ranks {
	struct tc_rank_result *v; /* by rank */
	size_t n;
	int32_t world_size;     /* largest the traces say, 0 unknown */
	/* Spread of the ranks' mean step time: */
	int64_t step_min_ps, step_median_ps, step_max_ps;
	size_t slowest;         /* index into v */
	size_t straggler;       /* index into v: the largest caused_ps */
	/* Collectives: */
	struct tc_coll_instance *coll;
	size_t n_coll;
	const char *coll_source; /* "Seq", "occurrence", NULL when none matched */
	const char *alignment;  /* how clocks were aligned, NULL none */
	int64_t skew_total_ps;
	/* Median over instances of (latest - earliest aligned end): ranks
	 * leave a collective together, so a large one says the matching or
	 * the alignment is off (traces cut at different collectives). */
	int64_t end_spread_ps;
	bool lined_up;          /* end_spread_ps within the median transfer */
};

void tc_ranks_finish(struct tc_ranks *r);

#endif
