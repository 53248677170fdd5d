#ifndef TC_MODEL_MEMCURVE_H
#define TC_MODEL_MEMCURVE_H

/*
 * An allocator's live bytes over its records (struct tc_alloc) in time
 * order. One rule for the bytes live when the trace starts, shared by
 * memory by op (analysis/memview.c) and by the allocated-memory curve the
 * records draw for a device the trace gives no memory.allocated counter
 * (Nsight Systems, Kineto "[memory]" without "Total Allocated"): the memory
 * pass, the report's plot and the trace writers all read that curve here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "util/u64map.h"

/* The running state of one allocator; zeroed: before its first record. */
struct tc_alloc_run {
	struct tc_u64map live;  /* addr -> its allocation's record, TC_NONE freed */
	uint64_t records;
	int64_t cum;            /* allocated minus freed so far */
	int64_t max_cum;        /* highest cum, 0 (the start) included */
	size_t peak_rec;        /* record after which max_cum was first reached
	                         * (the first record when never above 0) */
	int64_t top_cum;        /* highest cum after a record */
	size_t top_rec;         /* record after which top_cum was first reached */
	int64_t early_frees;    /* bytes freed of buffers allocated before the trace */
	int64_t total_base;     /* baseline from the trace's own total */
	bool have_total;        /* a record carried that total */
};

/* What a record was to its allocator. */
enum tc_alloc_seen {
	TC_AS_ALLOC,   /* an allocation */
	TC_AS_REUSE,   /* an allocation at an address still live (no free seen) */
	TC_AS_PAIRED,  /* a free of the allocation in the trace at *alloc_rec */
	TC_AS_EARLY,   /* a free of a buffer allocated before the trace */
};

/* Record r (a, of this allocator, after all its earlier ones). */
enum tc_alloc_seen tc_alloc_run_add(struct tc_alloc_run *s, const struct tc_alloc *a, size_t r,
	uint32_t *alloc_rec);

/* Bytes live when the trace starts: the trace's own total where a record
 * carries one (less what the records before it added), else the frees of
 * buffers the trace did not see allocated. */
int64_t tc_alloc_run_baseline(const struct tc_alloc_run *s);

void tc_alloc_run_finish(struct tc_alloc_run *s);

/*
 * The allocated memory one allocator's records draw, on a device with no
 * memory.allocated counter: after each record, the baseline plus the
 * running sum. Its peak is the highest of those values (the first on
 * ties), as a counter's would be.
 */
struct tc_mem_curve {
	uint32_t device;
	uint32_t group;         /* allocator name, 0 none */
	uint64_t records;       /* the curve's points */
	int64_t baseline;
	int64_t peak_bytes;
	int64_t peak_ps;
};

/* The curves of a finalized model, by device and then group; *out is
 * malloc'd, NULL when there are none. */
size_t tc_mem_curves(const struct tc_model *m, struct tc_mem_curve **out);

/* fn(ctx, rec, ts, bytes) for each record rec of curve c in time order,
 * with the curve's value after it. */
void tc_mem_curve_walk(const struct tc_model *m, const struct tc_mem_curve *c,
	void (*fn)(void *ctx, size_t rec, int64_t ts_ps, double bytes), void *ctx);

#endif
