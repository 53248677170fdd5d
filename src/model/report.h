#ifndef TC_MODEL_REPORT_H
#define TC_MODEL_REPORT_H

/*
 * Results of analysis, as plain data: analysis/ fills them, output/ prints
 * them, and neither includes the other. All times are integer picoseconds;
 * writers convert for display. Arrays are malloc'd and freed by the
 * matching *_finish().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

/* Per device: busy = length of the union of slices on its device-work tracks
 * (ops/stream lines; derived, annotation and step lines excluded). */
struct tc_device_summary {
	uint32_t device;
	uint64_t n_events;   /* slices on device-work tracks */
	uint32_t n_tracks;   /* device-work tracks */
	int64_t first_ps;    /* first device-work slice start */
	int64_t last_ps;     /* last device-work slice end */
	int64_t busy_ps;
	int64_t span_ps;     /* last - first */
	int64_t computation_ps; /* union of device compute slices: kernels, memsets, other
	                         * non-copy non-collective ops (TraceLens "computation") */
};

struct tc_op_summary {
	uint32_t name;
	uint32_t category;
	uint8_t kind;        /* enum tc_op_kind */
	uint32_t device;     /* TC_NONE when summed over devices */
	uint64_t count;
	int64_t total_ps;
	int64_t self_ps;     /* total minus time in children on the same track */
	int64_t min_ps;
	int64_t max_ps;
	int64_t p50_ps;      /* -1 when not computed */
	int64_t p99_ps;
	double flops;        /* total FLOPs, < 0 unknown */
	double bytes;        /* total bytes accessed, < 0 unknown */
};

struct tc_step_summary {
	int64_t num;
	uint32_t name;
	uint32_t device;     /* TC_NONE: host-side marker */
	int64_t start_ps;
	int64_t dur_ps;
};

/* One counter's samples: what a counter-only trace holds. */
struct tc_counter_summary {
	uint32_t counter;    /* index into m->counters */
	uint64_t samples;
	double min, max, mean;
	int64_t first_ps, last_ps; /* first and last sample time */
};

/* A host thread of a trace without device activity: busy = length of the
 * union of its slices. */
struct tc_thread_summary {
	uint32_t track;
	uint64_t n_events;
	int64_t first_ps, last_ps;
	int64_t busy_ps;
};

struct tc_summary {
	int64_t first_ps, last_ps;      /* whole trace span */
	uint64_t n_events;
	uint64_t n_aggregated;          /* events kept only as counts */
	struct tc_device_summary *devices;
	size_t n_devices;
	/* Top ops over device-work tracks; if the trace has none, over every
	 * track (host-only traces), and ops_scope says so. */
	struct tc_op_summary *ops;
	size_t n_ops;
	int64_t ops_busy_ps;            /* denominator for shares */
	const char *ops_scope;          /* "device" or "host" */
	struct tc_step_summary *steps;  /* by start; NULL when only counted */
	size_t n_steps;
	/* The marked steps' summed, shortest and longest duration, listed or
	 * not (tc_summary_step_totals); INT64_MAX and 0 without steps. */
	int64_t steps_sum_ps, steps_min_ps, steps_max_ps;
	const char *steps_source;       /* "device" / "host" / NULL */
	const char *step_marker;        /* the --step-marker pattern, NULL */
	struct tc_counter_summary *counters; /* every counter with samples */
	size_t n_counters;
	/* Without device activity: host threads by busy time, else none. */
	struct tc_thread_summary *threads;
	size_t n_threads;
	/* first_ps/last_ps come from counter samples: the trace has no events. */
	bool span_from_samples;
};

void tc_summary_finish(struct tc_summary *s);
/* Set s's steps_sum_ps, steps_min_ps and steps_max_ps from its list. */
void tc_summary_step_totals(struct tc_summary *s);

#endif
