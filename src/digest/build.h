#ifndef TC_DIGEST_BUILD_H
#define TC_DIGEST_BUILD_H

/*
 * Digests from models (docs/digest.md). A rank is summarised with the
 * default analysis options; what it keeps is exactly what `ops`, `steps`,
 * `check` and `diff` read, so they print from a digest what they print
 * from its trace. The commands read ranks back through
 * digest/ranks.h; the digest code's own views of the messages
 * are in digest/view.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include "analysis/analyze.h"
#include "digest/digest.h"
#include "model/model.h"

/* Summarise m (read from one file, input its path as given) into a new
 * rank appended to d. */
void tc_digest_add_rank(struct tc_digest *d, const struct tc_model *m, const char *input);
/* What a rank keeps. */
enum tc_digest_keep {
	TC_DIGEST_ALL = 0,  /* everything (tracectl digest) */
	TC_DIGEST_JOB,      /* what a job's analysis reads (analysis/job.h): no
	                     * diff side, step ops or memory figure for check */
	TC_DIGEST_JOB_LEAN, /* ... and of each step no categories, copies or
	                     * busy time: a rank not the job's breakdown rank */
};
/* tc_digest_add_rank with analysis options o (NULL: the defaults). */
void tc_digest_add_rank_with(struct tc_digest *d, const struct tc_model *m, const char *input,
	const struct tc_analysis_opts *o, enum tc_digest_keep keep);

/*
 * tc_digest_add_rank_with for a job's rank (keep not TC_DIGEST_ALL) whose
 * bulk, what grows with its steps and collectives (lean step columns,
 * marked steps, exposed collective time, the packed collective table),
 * goes to aside (NULL: kept in d): the rank holds where (Rank.aside_at,
 * aside_len), and tc_digest_rank_load puts it back for as long as a
 * reader needs it.
 */
struct tc_spill;
void tc_digest_add_job_rank(struct tc_digest *d, const struct tc_model *m, const char *input,
	const struct tc_analysis_opts *o, enum tc_digest_keep keep, struct tc_spill *aside);

#endif
