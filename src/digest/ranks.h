#ifndef TC_DIGEST_RANKS_H
#define TC_DIGEST_RANKS_H

/*
 * Ranks read from digests, or made here from traces, as one set the
 * commands read without knowing the digest's messages: each rank's
 * name and facts, its views (digest/build.h) by index, and the set as
 * a job's ranks (analysis/job.h).
 *
 * The set borrows its ranks: the digests they came from must outlive it.
 * A job's ranks may keep their bulk aside (tc_digest_add_job_rank); the
 * views load it back for as long as they read it, one rank at a time.
 */

#include <stdbool.h>
#include <stddef.h>
#include "analysis/analyze.h"
#include "analysis/job.h"
#include "model/check.h"
#include "model/diff.h"
#include "model/model.h"
#include "util/error.h"

struct tc_digest;
struct tc_spill;
struct tc_rank_set;

/* An empty set; destroy it with tc_rank_set_destroy (NULL is fine). */
struct tc_rank_set *tc_rank_set_create(void);
void tc_rank_set_destroy(struct tc_rank_set *s);
/* How many ranks s holds (0 for NULL). */
size_t tc_rank_set_n(const struct tc_rank_set *s);

/* Append every rank of d (read from a file), each checked with
 * tc_digest_rank_valid; false with err set at the first malformed one,
 * none of d's ranks appended. */
bool tc_rank_set_add_digest(struct tc_rank_set *s, const struct tc_digest *d,
	struct tc_error *err);
/* Append rank i of d. */
void tc_rank_set_add_rank(struct tc_rank_set *s, const struct tc_digest *d, size_t i);
/* Append rank k of o. */
void tc_rank_set_add_from(struct tc_rank_set *s, const struct tc_rank_set *o, size_t k);
/* Keep rank k when keep[k] (k < n), in order; the others leave s. */
void tc_rank_set_keep(struct tc_rank_set *s, const bool *keep);
/* Rank k replaced with the last one, which leaves its place. */
void tc_rank_set_take_last(struct tc_rank_set *s, size_t k);
/* Sort s canonically (tc_digest_rank_cmp: as a merged digest holds them). */
void tc_rank_set_sort(struct tc_rank_set *s);
/*
 * A rank of s that is also one of digested's and that a rank of s not
 * from digested was made from the same trace of (the same name, input
 * size, event count and span) is dropped from s: read once, from the
 * trace. How many were.
 */
size_t tc_rank_set_drop_digested(struct tc_rank_set *s, const struct tc_rank_set *digested);

/* Rank k's name (borrowed: valid while its digest lives). */
const char *tc_rank_set_name(const struct tc_rank_set *s, size_t k);
/* Rank k's input path as given (borrowed, as the name). */
const char *tc_rank_set_input(const struct tc_rank_set *s, size_t k);
/* Rank k holds its summary (Rank.result); its memory by op (Rank.mem_view). */
bool tc_rank_set_has_result(const struct tc_rank_set *s, size_t k);
bool tc_rank_set_has_memview(const struct tc_rank_set *s, size_t k);
/* Rank k is one of d's. */
bool tc_rank_set_in_digest(const struct tc_rank_set *s, size_t k, const struct tc_digest *d);

/* The skeleton model of s's ranks (tc_digest_skeleton), in their order;
 * of rank k alone. */
struct tc_model *tc_rank_set_skeleton(const struct tc_rank_set *s);
struct tc_model *tc_rank_set_skeleton_of(const struct tc_rank_set *s, size_t k);
/* `ops --by BY` of s's ranks (tc_digest_op_table). */
void tc_rank_set_op_table(const struct tc_model *skel, const struct tc_rank_set *s,
	const char *by, struct tc_op_table *t);
/* Rank k's result (tc_digest_result), its steps (tc_digest_steps), each
 * with its devices skel's from 0. */
void tc_rank_set_result(struct tc_model *skel, const struct tc_rank_set *s, size_t k,
	struct tc_analysis *a);
void tc_rank_set_steps(struct tc_model *skel, const struct tc_rank_set *s, size_t k,
	struct tc_analysis *a);
/* tc_digest_check_measure of rank k (skel of it alone), named by its name. */
void tc_rank_set_check_measure(struct tc_check *c, size_t idx, struct tc_model *skel,
	const struct tc_rank_set *s, size_t k);
/* A diff side of s's ranks (tc_digest_diff_side). */
void tc_rank_set_diff_side(const struct tc_rank_set *s, const char *label,
	struct tc_diff_side *side);

/*
 * s as a job's ranks: s sorted canonically, their facts and the views
 * composing reads (analysis/job.h), the bulk of those that keep it aside
 * read back from aside (NULL: none does). Borrowed: valid until s
 * changes or is destroyed.
 */
const struct tc_job_ranks *tc_rank_set_job(struct tc_rank_set *s,
	const struct tc_spill *aside);

#endif
