#ifndef TC_MODEL_MEMVIEW_H
#define TC_MODEL_MEMVIEW_H

/*
 * Who holds memory: the allocator records (struct tc_alloc) paired into
 * buffers and attributed to the ops that asked for them, as
 * analysis/memview.c builds it and the writers print it. Definitions in
 * docs/analysis.md, "Memory by op".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One op name on one device, as the TensorBoard PyTorch plugin's memory
 * view counts it: "self" is the records whose innermost enclosing op is
 * this one, the others add those of the ops it encloses; an increase is
 * allocated minus freed bytes, signed; calls are the op's occurrences.
 */
struct tc_mem_op {
	uint32_t device;
	uint32_t name;          /* op name string id */
	int64_t self_increase;
	int64_t self_alloc_bytes;
	uint64_t self_allocs;
	int64_t increase;
	int64_t alloc_bytes;
	uint64_t allocs;
	uint64_t calls;
};

/* What one op (in one scope) allocated that was live at the peak. */
struct tc_mem_holder {
	uint32_t name;          /* op name, TC_NONE: outside any op */
	bool before_trace;      /* the bytes allocated before the trace, still live */
	uint32_t scope;         /* enclosing module / annotation, TC_NONE */
	int64_t bytes;
	uint64_t buffers;
	int64_t oldest_ps;      /* age at the peak of its oldest buffer; -1 unknown */
	int64_t newest_ps;      /* and of its youngest */
};

/* A buffer's free_ps when it is not freed within the trace: model times
 * may be negative (a record before the reader's origin), so not -1. */
#define TC_MEM_NEVER INT64_MIN

/* One buffer live at the peak. */
struct tc_mem_buffer {
	uint32_t name, scope;   /* allocating op, TC_NONE unknown */
	uint32_t shape, dtype;  /* string ids, TC_NONE */
	int64_t bytes;
	uint64_t addr;
	int64_t alloc_ps;       /* when allocated */
	int64_t free_ps;        /* when freed, TC_MEM_NEVER never within the trace */
};

/* One allocator (a device's memory, an xplane allocator of it). */
struct tc_mem_device {
	uint32_t device;
	uint32_t group;         /* allocator name, 0 none */
	uint64_t records;
	uint64_t allocs, frees;
	uint64_t paired;        /* frees matched to an allocation in the trace */
	uint64_t never_freed;   /* allocations still live at the end */
	uint64_t before_start;  /* frees of buffers allocated before the trace */
	uint64_t reused;        /* allocations at a live address (no free seen) */
	int64_t baseline;       /* bytes live when the trace starts */
	bool baseline_total;    /* baseline from the trace's own total, else
	                         * the frees of buffers allocated before it */
	int64_t peak_bytes;
	int64_t peak_ps;
	int64_t total_at_peak;  /* the trace's own allocated total there, -1 none */
	int64_t end_bytes;      /* live at the last record */
	struct tc_mem_holder *holders; /* by bytes, descending */
	size_t n_holders;
	struct tc_mem_buffer *top;     /* largest live buffers at the peak */
	size_t n_top;
	struct tc_mem_holder *unfreed; /* allocations never freed, by op and scope;
	                                * by bytes, descending; ages unset */
	size_t n_unfreed;
};

struct tc_mem_view {
	struct tc_mem_op *ops;  /* by device, then total allocated, descending */
	size_t n_ops;
	struct tc_mem_device *devs;
	size_t n_devs;
	uint64_t records;
	uint64_t attributed;    /* records counted in ops (an op encloses them) */
	int64_t first_ps;       /* what times print from: the trace's first event or
	                         * allocator record, whichever is first */
	bool partial;           /* only the top allocator and holder (from a digest
	                         * written before Rank.mem_view) */
};

void tc_mem_view_finish(struct tc_mem_view *v);
/* The allocator with the largest peak (NULL without one) and, in *holder,
 * its largest holder but the bytes from before the trace (NULL none). */
const struct tc_mem_device *tc_mem_view_top(const struct tc_mem_view *v,
	const struct tc_mem_holder **holder);

#endif
