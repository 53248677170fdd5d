#ifndef TC_ANALYSIS_HOST_EVIDENCE_H
#define TC_ANALYSIS_HOST_EVIDENCE_H

/*
 * What the host-cause findings (launch/host, input, sync) cite from the
 * host threads of a device's host: the calls behind the time, allocator
 * calls, sync calls. Each reads only events starting in the counted steps
 * (tc_step_counted_from) on the host lines the attribution reads for the
 * device (tc_host_tracks), so they cite what its time is made of;
 * rules.c turns them into text.
 */

#include <stdbool.h>
#include <stdint.h>
#include "analysis/analyze.h"

/* The host ops of a kind mask behind a finding on device f->device, into
 * f->ops by time, largest first. by_self: by self time (an event less the
 * events nested in it; a frame's time holds its callees'), leaving out
 * events inside one of a kind in claim_mask (their time is that cause's:
 * the data loader's collate is input). Else by the events' own time,
 * nested ones too (aten::item, then the cudaStreamSynchronize in it).
 * two: half the lines on a second thread. */
void tc_host_evidence_top_ops(const struct tc_model *m, const struct tc_analysis *a,
	struct tc_finding *f, uint32_t kind_mask, bool by_self, uint32_t claim_mask, bool two);

/* Device memory allocator calls (cudaMalloc, cudaFree, hipMalloc,
 * hipFree, cuMemAlloc, cuMemFree; not the stream-ordered *Async ones):
 * how many, and their time while dev had nothing running (a call under
 * device work holds nothing up). */
void tc_host_evidence_alloc(const struct tc_model *m, const struct tc_analysis *a,
	uint32_t dev, uint64_t *calls, int64_t *idle_ps);

/* A one-off host call: a runtime (or sync) call in the counted steps that ran once
 * (the only call of its op there) or took over 100 times its op's median,
 * and at least 1 ms: context and stream creation, the first launch of a
 * module (lazy loading), cudaFree(0), allocator growth. */
struct tc_stall {
	uint32_t op;
	int64_t start_ps, dur_ps;
	int64_t idle_ps; /* its time while the device had nothing running */
	/* Start-up by its kind: the slow one of many calls of its op (the
	 * first launch, allocator growth), or a creating, freeing or
	 * initialising call. Else (a lone copy, wait or query) a single stall. */
	bool startup;
};

/* The longest one-off calls of kind (TC_OP_RUNTIME, TC_OP_SYNC) on dev's
 * host, at most max, longest first, into out; how many. */
size_t tc_host_evidence_stalls(const struct tc_model *m, const struct tc_analysis *a,
	uint32_t dev, enum tc_op_kind kind, struct tc_stall *out, size_t max);

/* a->startup: the one-off calls on the breakdown device's host outside
 * the counted steps (before them, after them, in the warm-up step), each
 * judged against all calls of its op; none without real steps. */
void tc_host_evidence_startup(const struct tc_model *m, struct tc_analysis *a);

/* Sync calls (outermost: aten::item around cudaStreamSynchronize is one
 * wait): how many, the time they block the host, and the device's idle
 * from each call's end to its next op. */
void tc_host_evidence_sync(const struct tc_model *m, const struct tc_analysis *a,
	uint32_t dev, uint64_t *calls, int64_t *blocked_ps, int64_t *after_ps);

#endif
