#ifndef TC_DIGEST_VIEW_H
#define TC_DIGEST_VIEW_H

/*
 * What commands print from digests, read from the messages themselves
 * (digest/msg.h): private to digest/; the commands reach these
 * through digest/ranks.h.
 *
 * The views build a skeleton model (sources, hosts, devices and the op
 * strings, no events) that the writers look names up in; its times count
 * from the first event of each trace, as the digest stores them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/analyze.h"
#include "digest/build.h"
#include "digest/msg.h"
#include "model/check.h"
#include "model/diff.h"
#include "model/model.h"

/* r's bulk read back from aside into b's arena, in r until
 * tc_digest_rank_unload takes it out again and frees the arena (a rank
 * that kept its bulk is left as it is). Other allocations for as long as
 * the bulk is needed may take from b->arena too. One load of a rank at a
 * time. */
struct tc_digest_bulk {
	struct tc_arena arena;
	Tracectl__Rank *r;
};
void tc_digest_rank_load(const struct tc_spill *aside, Tracectl__Rank *r,
	struct tc_digest_bulk *b);
void tc_digest_rank_unload(struct tc_digest_bulk *b);

/* Append r (borrowed) to s (digest/ranks.h), for code that holds
 * the messages themselves. */
struct tc_rank_set;
void tc_rank_set_add_msg(struct tc_rank_set *s, Tracectl__Rank *r);

/* A skeleton model of ranks[0..n), in that order. */
struct tc_model *tc_digest_skeleton(Tracectl__Rank *const *ranks, size_t n);

/* `ops --by BY` of ranks[0..n) with skel from tc_digest_skeleton. */
void tc_digest_op_table(const struct tc_model *skel, Tracectl__Rank *const *ranks, size_t n,
	const char *by, struct tc_op_table *t);

/* `steps` of one rank (skel of that rank alone); finish a as usual. */
void tc_digest_steps(struct tc_model *skel, const Tracectl__Rank *r, struct tc_analysis *a);
/* The same with r's devices skel's from base. */
void tc_digest_steps_at(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
	struct tc_analysis *a);

/* A string of a digest kept for a result read from it: skel's copy (its
 * interned one, else one in its arena), so the result lives as long as
 * skel, whatever becomes of the digest's memory (a lean rank's bulk is
 * freed once read). NULL for NULL. */
const char *tc_digest_keep_str(struct tc_model *skel, const char *s);

/* The rank's analysis and summary (Rank.result) for the writers, from
 * m's analysis a (TC_AN_FINDINGS | TC_AN_SUMMARY); times from first. Its
 * marked steps are allocated from bulk (d where they stay with it). */
void tc_digest_result_pack(struct tc_digest *d, struct tc_digest *bulk,
	const struct tc_model *m, const struct tc_analysis *a, int64_t first,
	Tracectl__Rank *r);
/* Fill a (finish it with tc_analysis_finish) from r's result, as
 * tc_analyze(TC_AN_FINDINGS | TC_AN_SUMMARY) filled it from the trace,
 * adding the tracks, counters and warnings it names to skel; r's devices
 * are skel's from base. r must hold a result. */
void tc_digest_result(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
	struct tc_analysis *a);

/* Memory by op (digest/memview.c): v packed into r->mem_view
 * (empty without records), times from first; and unpacked into a view of
 * skel (r's devices skel's from base), empty where r has none. */
void tc_digest_memview_pack(struct tc_digest *d, const struct tc_model *m,
	const struct tc_mem_view *v, int64_t first, Tracectl__Rank *r);
void tc_digest_memview_unpack(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
	int64_t first, struct tc_mem_view *v);
/* check's memory.peak_by_op:op from r->mem_view; false: not measured. */
bool tc_digest_memview_by_op(const Tracectl__Rank *r, const char *op, double *out,
	char *detail, size_t size);

/* tc_check_measure for rank r (skel of that rank alone). */
void tc_digest_check_measure(struct tc_check *c, size_t idx, const char *name,
	struct tc_model *skel, const Tracectl__Rank *r);

/*
 * Where each rank's clock lies on the job's, as reading their traces into
 * one model places them (tc_model_merge): clock[k] is where ranks[k]'s
 * time 0 falls, in ps from the job's first event, so a time t of that
 * rank is at clock[k] + t. Ranks on the Unix epoch clock as ranks[0] is
 * placed by their origins; the others start at their origin.
 */
void tc_digest_job_clock(Tracectl__Rank *const *ranks, size_t n, int64_t *clock);

/* A diff side from ranks[0..n): one rank's is the side of its trace; of
 * several, their sums (docs/digest.md). */
void tc_digest_diff_side(Tracectl__Rank *const *ranks, size_t n, const char *label,
	struct tc_diff_side *s);
/* Its memory by op, from the ranks' Rank.mem_view unpacked as views
 * (digest/memview.c), as a trace's (analysis/diff_mem.c). */
void tc_diff_mem_side_digest(Tracectl__Rank *const *ranks, size_t n, struct tc_diff_side *s);

#endif
