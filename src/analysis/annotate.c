/*
 * Marks for `export --annotate`: step windows, finding windows and
 * per-step counters built from the bottleneck analysis.
 */
#include <stdio.h>
#include <stdlib.h>
#include "analysis/analyze.h"
#include "analysis/annotate.h"
#include "analysis/intervals.h"

static bool step_shown(const struct tc_selection *sel, const struct tc_step *st) {
	return st->start_ps + st->dur_ps >= sel->sample_lo && st->start_ps <= sel->sample_hi;
}

static const struct tc_step *find_step(const struct tc_analysis *a, int64_t num) {
	for (size_t k = 0; k < a->n_steps; k++) {
		if (a->steps[k].num == num) {
			return &a->steps[k];
		}
	}
	return NULL;
}

static void step_marks(const struct tc_selection *sel, const struct tc_analysis *a,
		struct tc_annotation *ann) {
	uint32_t track = tc_annotation_track(ann, "steps");
	char name[64], detail[512];
	for (size_t k = 0; k < a->n_steps; k++) {
		const struct tc_step *st = &a->steps[k];
		if (!step_shown(sel, st)) {
			continue;
		}
		snprintf(name, sizeof(name), "step %lld%s", (long long)st->num,
			st->warmup ? " (warm-up)" : "");
		/* The step's time by category, largest first, down to 1 %. */
		int len = snprintf(detail, sizeof(detail), "%s:", a->steps_source ?
			a->steps_source : "steps");
		bool used[TC_BD_COUNT] = { false };
		for (int n = 0; n < TC_BD_COUNT && st->dur_ps > 0; n++) {
			int best = -1;
			for (int c = 0; c < TC_BD_COUNT; c++) {
				if (!used[c] && (best < 0 || st->cat_ps[c] > st->cat_ps[best])) {
					best = c;
				}
			}
			double pct = 100.0 * (double)st->cat_ps[best] / (double)st->dur_ps;
			if (pct < 1.0) {
				break;
			}
			used[best] = true;
			len += snprintf(detail + len, len < (int)sizeof(detail) ?
				sizeof(detail) - (size_t)len : 0, " %s %.1f %%",
				tc_bd_cat_name((enum tc_bd_cat)best), pct);
			if (len >= (int)sizeof(detail)) {
				break;
			}
		}
		tc_annotation_mark(ann, track, st->start_ps, st->dur_ps, name, detail, NULL);
	}
}

static void finding_marks(const struct tc_selection *sel, const struct tc_analysis *a,
		struct tc_annotation *ann) {
	if (a->n_findings == 0) {
		return;
	}
	uint32_t track = tc_annotation_track(ann, "findings");
	char detail[1024];
	for (size_t k = 0; k < a->n_findings; k++) {
		const struct tc_finding *f = &a->findings[k];
		snprintf(detail, sizeof(detail), "%s%s%s", f->text ? f->text : "",
			f->suggestion ? " | try: " : "", f->suggestion ? f->suggestion : "");
		const char *sev = tc_severity_name((enum tc_severity)f->severity);
		if (f->window_hi_ps > f->window_lo_ps || (f->window_hi_ps == f->window_lo_ps &&
				f->window_lo_ps > 0)) {
			/* A window, or a moment (a memory peak). */
			tc_annotation_mark(ann, track, f->window_lo_ps,
				f->window_hi_ps - f->window_lo_ps, f->kind, detail, sev);
			continue;
		}
		size_t marked = 0;
		for (size_t s = 0; s < f->n_steps; s++) {
			const struct tc_step *st = find_step(a, f->steps[s]);
			if (st) {
				tc_annotation_mark(ann, track, st->start_ps, st->dur_ps, f->kind,
					detail, sev);
				marked++;
			}
		}
		if (!marked) {
			/* About the whole trace. */
			tc_annotation_mark(ann, track, sel->zero_ps, sel->end_ps - sel->zero_ps,
				f->kind, detail, sev);
		}
	}
}

/* Per step: the breakdown on the breakdown device, then every device's busy
 * share (union of its device work over the step). */
static void step_counters(const struct tc_model *m, const struct tc_selection *sel,
		const struct tc_analysis *a, struct tc_annotation *ann) {
	char name[128];
	/* On the breakdown device, or on the annotations when it is cut away. */
	uint32_t bd = a->bd_device < m->n_devices && tc_selection_device(sel, m, a->bd_device) ?
		a->bd_device : TC_NONE;
	for (int c = 0; c < TC_BD_COUNT; c++) {
		bool any = false;
		for (size_t k = 0; k < a->n_steps && !any; k++) {
			any = a->steps[k].cat_ps[c] > 0;
		}
		if (!any) {
			continue;
		}
		snprintf(name, sizeof(name), "step breakdown: %s", tc_bd_cat_name((enum tc_bd_cat)c));
		uint32_t series = tc_annotation_series(ann, name, "%", bd);
		for (size_t k = 0; k < a->n_steps; k++) {
			const struct tc_step *st = &a->steps[k];
			if (st->dur_ps > 0 && step_shown(sel, st)) {
				tc_annotation_point(ann, series, st->start_ps,
					100.0 * (double)st->cat_ps[c] / (double)st->dur_ps);
			}
		}
	}
	struct tc_ivals v = { 0 };
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	for (uint32_t d = 0; d < m->n_devices; d++) {
		if (!tc_selection_device(sel, m, d)) {
			continue;
		}
		size_t nt;
		uint32_t *tracks = tc_device_work_tracks(m, &dt, d, &nt);
		if (nt) {
			tc_ivals_union_tracks(m, tracks, nt, NULL, NULL, &v);
		}
		free(tracks);
		if (nt == 0 || v.n == 0) {
			continue;
		}
		uint32_t series = tc_annotation_series(ann, "step device busy", "%", d);
		for (size_t k = 0; k < a->n_steps; k++) {
			const struct tc_step *st = &a->steps[k];
			if (st->dur_ps > 0 && step_shown(sel, st)) {
				tc_annotation_point(ann, series, st->start_ps, 100.0 *
					(double)tc_ivals_length_in(&v, st->start_ps, st->start_ps + st->dur_ps) /
					(double)st->dur_ps);
			}
		}
	}
	tc_device_tracks_finish(&dt);
	tc_ivals_finish(&v);
}

void tc_annotate(const struct tc_model *m, const struct tc_selection *sel,
		const char *steps, const char *marker, unsigned threads, struct tc_annotation *ann) {
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	o.threads = threads;
	o.step_marker = marker;
	if (steps) {
		/* Validated by the caller; a bad range would leave all steps. */
		tc_analysis_opts_steps(&o, steps, NULL);
	}
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_FINDINGS, &a);
	step_marks(sel, &a, ann);
	finding_marks(sel, &a, ann);
	step_counters(m, sel, &a, ann);
	if (a.n_findings == 0) {
		ann->missing = "no bottleneck findings at the default thresholds";
	}
	tc_analysis_finish(&a);
}
