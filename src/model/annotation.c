/*
 * Annotations an analysis lays over a trace for viewing: named windows on
 * tracks of their own and counter series, all kept in one arena.
 */
#include <string.h>
#include <stdlib.h>
#include "model/annotation.h"
#include "util/xalloc.h"

void tc_annotation_init(struct tc_annotation *a) {
	memset(a, 0, sizeof(*a));
	tc_arena_init(&a->arena, 16 * 1024);
}

void tc_annotation_finish(struct tc_annotation *a) {
	if (!a) {
		return;
	}
	tc_arena_finish(&a->arena);
	free(a->tracks);
	free(a->marks);
	free(a->series);
	free(a->points);
	memset(a, 0, sizeof(*a));
}

static const char *dup(struct tc_annotation *a, const char *s) {
	return s ? tc_arena_strdup(&a->arena, s) : NULL;
}

uint32_t tc_annotation_track(struct tc_annotation *a, const char *name) {
	TC_GROW(a->tracks, a->cap_tracks, a->n_tracks + 1);
	a->tracks[a->n_tracks] = dup(a, name);
	return (uint32_t)a->n_tracks++;
}

void tc_annotation_mark(struct tc_annotation *a, uint32_t track, int64_t start_ps,
		int64_t dur_ps, const char *name, const char *detail, const char *severity) {
	TC_GROW(a->marks, a->cap_marks, a->n_marks + 1);
	a->marks[a->n_marks++] = (struct tc_mark){
		.track = track,
		.start_ps = start_ps,
		.dur_ps = dur_ps < 0 ? 0 : dur_ps,
		.name = dup(a, name),
		.detail = dup(a, detail),
		.severity = dup(a, severity),
	};
}

uint32_t tc_annotation_series(struct tc_annotation *a, const char *name, const char *unit,
		uint32_t device) {
	TC_GROW(a->series, a->cap_series, a->n_series + 1);
	a->series[a->n_series] = (struct tc_ann_series){
		.name = dup(a, name),
		.unit = dup(a, unit ? unit : ""),
		.device = device,
	};
	return (uint32_t)a->n_series++;
}

void tc_annotation_point(struct tc_annotation *a, uint32_t series, int64_t ts_ps, double value) {
	TC_GROW(a->points, a->cap_points, a->n_points + 1);
	a->points[a->n_points++] = (struct tc_ann_point){ series, ts_ps, value };
}
