#ifndef TC_OUTPUT_EXPORT_PLAN_H
#define TC_OUTPUT_EXPORT_PLAN_H

/*
 * What the trace writers (Chrome JSON, Perfetto) lay out before writing
 * events: which devices and tracks have something kept, and each track's
 * thread id. Devices are numbered 0..n_devices-1, then n_devices for what
 * has no device and n_devices + 1 for the annotations. Owns its arrays.
 */

#include <stdbool.h>
#include <stdint.h>
#include "model/annotation.h"
#include "model/memcurve.h"
#include "model/model.h"
#include "model/selection.h"

struct tc_export_plan {
	uint32_t *tid;       /* per track: 1, 2, ... in track order per device */
	uint8_t *track_used; /* per track: has a kept event */
	uint8_t *pid_used;   /* per device index (above): has something kept */
	/* per device index: the thread of its allocator records that have no
	 * kept thread (after its tracks' tids), 0 none */
	uint32_t *alloc_tid;
	/* The allocated-memory curves allocator records draw on devices with
	 * no memory.allocated counter (model/memcurve.c): both writers write
	 * them as counters, so the export plots what the memory pass peaks. */
	struct tc_mem_curve *curves;
	size_t n_curves;
	uint8_t *curve_used;  /* per curve: has a kept point */
};

void tc_export_plan_init(struct tc_export_plan *p, const struct tc_model *m,
	const struct tc_selection *sel, const struct tc_annotation *ann);
/* Add what the kept allocator records need (the Chrome writer writes
 * them; Perfetto has no form tracectl reads back, docs/export.md). */
void tc_export_plan_allocs(struct tc_export_plan *p, const struct tc_model *m,
	const struct tc_selection *sel);
void tc_export_plan_finish(struct tc_export_plan *p);

/* Device d's index above (TC_NONE and unknown devices: n_devices). */
static inline uint32_t tc_export_dev(const struct tc_model *m, uint32_t d) {
	return d < m->n_devices ? d : (uint32_t)m->n_devices;
}

/*
 * An event's args as both writers write them: its own args, then its op's,
 * each key once (the first wins); and which of the keys the writers add
 * themselves (op_kind, flops, bytes_accessed) came with them.
 */
struct tc_export_args {
	/* Per string id: the event stamp that last wrote it as an arg key, so
	 * a repeated key is skipped in O(1), not by rescanning the list. */
	uint32_t *stamp;
	size_t n_stamp;
	uint32_t now;
	bool op_kind, flops, bytes;
};

/* Start an event's key set (a zeroed struct is ready for a first use). */
void tc_export_args_begin(struct tc_export_args *k, const struct tc_model *m);
/* The next arg of the list at *p (an arg list position; TC_NONE at its
 * end) whose key this event has not written yet, into *a; false when none
 * is left. */
bool tc_export_args_next(struct tc_export_args *k, const struct tc_model *m, uint32_t *p,
	struct tc_arg *a);
void tc_export_args_finish(struct tc_export_args *k);

/* Is counter sample i kept (in the sample window, on a kept device)? */
bool tc_export_sample_kept(const struct tc_model *m, const struct tc_selection *sel, size_t i);

/* Is allocator record i kept (in the sample window, of a kept device)? */
bool tc_export_alloc_kept(const struct tc_model *m, const struct tc_selection *sel, size_t i);

/* Call fn for every counter sample written: kept and finite (a non-finite
 * one cannot be written; they are counted in *nonfinite). Counter by
 * counter, in time order. */
void tc_export_samples(const struct tc_model *m, const struct tc_selection *sel,
	void (*fn)(void *ctx, uint32_t counter, int64_t ts_ps, double v), void *ctx,
	uint64_t *nonfinite);

/* Call fn for every kept point of the plan's curves (a point is kept with
 * its allocator record), curve by curve, in time order. */
void tc_export_curve_samples(const struct tc_model *m, const struct tc_selection *sel,
	const struct tc_export_plan *p,
	void (*fn)(void *ctx, size_t curve, int64_t ts_ps, double v), void *ctx);

#endif
