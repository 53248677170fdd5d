#ifndef TC_MODEL_TIMELINE_H
#define TC_MODEL_TIMELINE_H

/*
 * Drawing data for `tracectl report`, as plain data (analysis/timeline.c
 * fills it): each device's busy fraction in fixed time bins and each
 * memory counter downsampled to fixed bins, so a chart's size does not
 * grow with the trace. Bins split the trace span [lo_ps, hi_ps) evenly.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_TL_BINS 200
#define TC_TL_MAX_COUNTERS 8

struct tc_tl_device {
	uint32_t device;
	int64_t busy_ps;                /* union of its device work (as in util) */
	int64_t bin_busy_ps[TC_TL_BINS]; /* busy time in each bin: they sum to
	                                 * busy_ps when the span holds the work */
	double busy[TC_TL_BINS];        /* fraction of each bin covered, 0..1 */
};

/* A memory counter: per bin the highest sample in it, or the value held
 * from the last sample before it; has[b] false before the first sample. */
struct tc_tl_counter {
	uint32_t device;                /* TC_NONE: global */
	uint32_t name;                  /* "memory.allocated" / "memory.reserved" */
	uint32_t group;
	double max[TC_TL_BINS];
	bool has[TC_TL_BINS];
};

struct tc_timeline {
	int64_t lo_ps, hi_ps;
	struct tc_tl_device *dev;       /* in a->util order */
	size_t n_dev;
	struct tc_tl_counter *mem;      /* in a->mem order, at most TC_TL_MAX_COUNTERS */
	size_t n_mem;
	size_t n_mem_all;               /* memory counters in the trace */
};

#endif
