/*
 * Digests as input: the bytes are unpacked as a digest file is, each rank
 * checked (tc_digest_rank_valid), and what summarize, bottlenecks, steps
 * and ops print from them is written to /dev/null: one rank's own results,
 * or the job composed from several (analysis/job.h). Whatever a digest
 * holds, a rank that passes the check must not crash them.
 */
#include <stdio.h>
#include <stdlib.h>
#include "analysis/job.h"
#include "digest/msg.h"
#include "digest/ranks.h"
#include "digest/view.h"
#include "fuzz.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct tc_digest d;
	tc_digest_init(&d);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&d.arena, &alloc);
	d.msg = tracectl__digest__unpack(&alloc, size, data);
	bool ok = d.msg && d.msg->version >= TC_DIGEST_VERSION_MIN &&
		d.msg->version <= TC_DIGEST_VERSION;
	for (size_t r = 0; ok && r < d.msg->n_ranks; r++) {
		struct tc_error err;
		tc_error_init(&err);
		ok = tc_digest_rank_expand(d.msg->ranks[r], &d.arena, &err) &&
			tc_digest_rank_valid(d.msg->ranks[r], &err) && d.msg->ranks[r]->result;
	}
	if (ok && d.msg->n_ranks) {
		size_t n = d.msg->n_ranks;
		Tracectl__Rank **ranks = tc_xmalloc(n * sizeof(*ranks));
		for (size_t r = 0; r < n; r++) {
			ranks[r] = d.msg->ranks[r];
		}
		struct tc_analysis_opts o;
		tc_analysis_opts_init(&o);
		struct tc_analysis a;
		struct tc_model *skel;
		if (n == 1) {
			skel = tc_digest_skeleton(ranks, 1);
			tc_digest_result(skel, ranks[0], 0, &a);
		} else {
			struct tc_rank_set *s = tc_rank_set_create();
			for (size_t r = 0; r < n; r++) {
				tc_rank_set_add_msg(s, ranks[r]);
			}
			const struct tc_job_ranks *jr = tc_rank_set_job(s, NULL);
			skel = tc_job_skeleton(jr);
			tc_job_compose(skel, jr, &o, &a);
			tc_rank_set_destroy(s);
			/* In the job's order, as the set sorted its own. */
			tc_sort(ranks, n, sizeof(*ranks), tc_digest_rank_cmp);
		}
		tc_fuzz_write_ranks(skel, &a, ranks, n);
		free(ranks);
	}
	tc_digest_finish(&d);
	return 0;
}
