#ifndef TC_MODEL_ANNOTATION_H
#define TC_MODEL_ANNOTATION_H

/*
 * Marks an analysis adds on top of a trace for viewing: named windows on
 * tracks of their own (findings, steps) and counter series (per-step
 * breakdowns, busy fractions). analysis/ fills it, output/ writes it next to
 * the model's events. Times are model picoseconds.
 *
 * Ownership: the annotation owns its arrays and strings (an arena);
 * tc_annotation_finish frees everything. Strings passed in are copied.
 */

#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"

struct tc_mark {
	uint32_t track;     /* index into tracks */
	int64_t start_ps, dur_ps;
	const char *name;
	const char *detail; /* one line that says why; NULL none */
	const char *severity; /* "info", "warning", "critical"; NULL none */
};

struct tc_ann_series {
	const char *name;   /* "step breakdown: compute" */
	const char *unit;   /* "%", "ps" */
	uint32_t device;    /* model device it belongs to; TC_NONE: the annotation process */
};

struct tc_ann_point {
	uint32_t series;
	int64_t ts_ps;
	double value;
};

struct tc_annotation {
	struct tc_arena arena;
	const char **tracks;
	size_t n_tracks, cap_tracks;
	struct tc_mark *marks;
	size_t n_marks, cap_marks;
	struct tc_ann_series *series;
	size_t n_series, cap_series;
	struct tc_ann_point *points;
	size_t n_points, cap_points;
	const char *missing; /* what could not be annotated and why; NULL none */
};

void tc_annotation_init(struct tc_annotation *a);
void tc_annotation_finish(struct tc_annotation *a);
uint32_t tc_annotation_track(struct tc_annotation *a, const char *name);
void tc_annotation_mark(struct tc_annotation *a, uint32_t track, int64_t start_ps,
	int64_t dur_ps, const char *name, const char *detail, const char *severity);
uint32_t tc_annotation_series(struct tc_annotation *a, const char *name, const char *unit,
	uint32_t device);
void tc_annotation_point(struct tc_annotation *a, uint32_t series, int64_t ts_ps, double value);

#endif
