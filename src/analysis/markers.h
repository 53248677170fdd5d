#ifndef TC_ANALYSIS_MARKERS_H
#define TC_ANALYSIS_MARKERS_H

/*
 * The built-in step markers (events whose op kind is TC_OP_STEP) of a
 * finalized model, found in one pass over the events and listed track by
 * track; the steps pass and the summary's step list both read them. A
 * merge then walks chosen tracks' markers in one time order, so neither
 * gathers every marker into a list to sort.
 *
 * Ownership: tc_markers_init allocates, tc_markers_finish frees; a merge
 * owns its cursors until tc_marker_merge_next returns SIZE_MAX, and must
 * not move while in use (its cursors point back at it).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/intervals.h"
#include "model/model.h"

struct tc_markers {
	uint32_t *ev;  /* event indexes, track after track, each in its order */
	/* Their starts and durations, copied in the one pass: markers are
	 * sparse among the events, and a merge reading the model's columns
	 * for each would miss the cache on every marker. */
	int64_t *start, *dur;
	/* Their step numbers (the "step" arg; INT64_MIN: none), read in one
	 * loop whose misses overlap, not one by one as a merge needs them. */
	int64_t *num;
	size_t *first; /* track t's: ev[first[t]] to ev[first[t + 1]] (excluded) */
	size_t n;
};

/* two: on two threads, each taking about half the events' tracks. */
void tc_markers_init(struct tc_markers *mk, const struct tc_model *m, bool two);
void tc_markers_finish(struct tc_markers *mk);

/*
 * Whether device dev's markers copy the host's: most of them carry a name
 * some host marker has. Kineto's GPU-side "ProfilerStep#N"
 * (gpu_user_annotation) spans only the device work its host step launched,
 * leaving out the host's part of the step (a data loader, the optimizer's
 * host side); the host markers, aligned to their device work, keep both,
 * as TensorBoard's PyTorch plugin does. XProf's device "Steps" lines carry
 * numbers of their own and stay the steps.
 */
bool tc_markers_copy_host(const struct tc_model *m, const struct tc_markers *mk, uint32_t dev);
/* The host whose markers are the steps when host markers count: the host
 * device (its index; n_devices for host tracks without one) with the most
 * markers of positive length, SIZE_MAX for none. Several ranks in one model
 * repeat their steps, so one rank's are taken. */
size_t tc_markers_host(const struct tc_model *m, const struct tc_markers *mk);

struct tc_marker_merge {
	struct tc_track_merge g; /* over the markers, not the events */
	const struct tc_model *m;
	const struct tc_markers *mk;
	/* Markers ending by this are passed over, unmerged: the merge's user
	 * drops them anyway (INT64_MIN: none). It may only grow. */
	int64_t skip_end;
};

/* The markers of positive length of the tracks t with take[t], by key:
 * start (key[0]), then longer first (key[1], minus the duration), then
 * position in mk->ev. Positions grow track after track, so ties keep the
 * order of a stable sort of the markers gathered track by track. */
void tc_marker_merge_init(struct tc_marker_merge *g, const struct tc_model *m,
	const struct tc_markers *mk, const bool *take);
/* The next marker's position in mk->ev, its key in key; SIZE_MAX at the
 * end, with g freed. */
size_t tc_marker_merge_next(struct tc_marker_merge *g, int64_t key[2]);
/* Whether the next marker has the key key (ties ahead). */
bool tc_marker_merge_peek(const struct tc_marker_merge *g, const int64_t key[2]);

/*
 * Which markers are steps, for the steps pass and the summary alike:
 * device step lines (the lowest-numbered device with markers of positive
 * length) unless they copy the host's, else the host markers of
 * tc_markers_host. Sets take[t] for each track whose markers count,
 * *dev_out (TC_NONE for host markers) and *host_out (tc_markers_host's
 * answer); false when no marker has a positive length.
 */
bool tc_markers_choose(const struct tc_model *m, const struct tc_markers *mk, bool *take,
	uint32_t *dev_out, size_t *host_out);

/* One step marker for tc_markers_outer: its event, start, duration and
 * step number (INT64_MIN: none). */
typedef void (*tc_marker_emit_fn)(void *ctx, uint32_t ev, int64_t start_ps, int64_t dur_ps,
	int64_t num);

/*
 * The steps among the markers of the tracks t with take[t]: those of
 * positive length that no earlier marker encloses (a marker inside another
 * is a phase of that step; markers of several threads of one process
 * overlap the same way), by start, then longer first; of markers with the
 * same start and length, the lowest-numbered. Calls emit for each and
 * returns how many. The steps pass and the summary's marked steps both
 * take them so.
 */
size_t tc_markers_outer(const struct tc_model *m, const struct tc_markers *mk, const bool *take,
	tc_marker_emit_fn emit, void *ctx);

#endif
