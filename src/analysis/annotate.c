#include <stdio.h>
#include <stdlib.h>
#include "analysis/annotate.h"
#include "analysis/intervals.h"
#include "analysis/summary.h"

enum work_class {
	WORK_ALL = 0,
	WORK_COMPUTE,
	WORK_COLLECTIVE,
	WORK_COPY,
	WORK_CLASSES,
};

static const char *const class_name[WORK_CLASSES] = {
	"busy", "compute", "collective", "memcpy/memset",
};

static bool in_class(const struct tc_model *m, size_t ev, void *ctx) {
	enum work_class c = *(enum work_class *)ctx;
	switch (m->ops[m->ev.op[ev]].kind) {
	case TC_OP_COLLECTIVE:
		return c == WORK_ALL || c == WORK_COLLECTIVE;
	case TC_OP_MEMCPY_H2D:
	case TC_OP_MEMCPY_D2H:
	case TC_OP_MEMCPY_D2D:
	case TC_OP_MEMCPY_OTHER:
	case TC_OP_MEMSET:
		return c == WORK_ALL || c == WORK_COPY;
	default:
		return c == WORK_ALL || c == WORK_COMPUTE;
	}
}

/* Length of v ∩ [lo, hi). */
static int64_t covered(const struct tc_ivals *v, int64_t lo, int64_t hi) {
	size_t a = 0, b = v->n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (v->hi[mid] <= lo) {
			a = mid + 1;
		} else {
			b = mid;
		}
	}
	int64_t len = 0;
	for (size_t i = a; i < v->n && v->lo[i] < hi; i++) {
		int64_t s = v->lo[i] > lo ? v->lo[i] : lo;
		int64_t e = v->hi[i] < hi ? v->hi[i] : hi;
		if (e > s) {
			len += e - s;
		}
	}
	return len;
}

void tc_annotate(const struct tc_model *m, const struct tc_selection *sel,
		struct tc_annotation *ann) {
	struct tc_summary s;
	tc_analyze_summary(m, &s);
	ann->missing = "bottleneck findings are not available in this build; "
		"annotated steps and per-step device work shares only";
	if (s.n_steps == 0) {
		ann->missing = "the trace has no step markers and bottleneck findings are not "
			"available in this build: nothing to annotate";
		tc_summary_finish(&s);
		return;
	}
	uint32_t steps_track = tc_annotation_track(ann, "steps");
	char name[128], detail[256];
	for (size_t k = 0; k < s.n_steps; k++) {
		const struct tc_step_summary *st = &s.steps[k];
		if (st->start_ps + st->dur_ps < sel->sample_lo || st->start_ps > sel->sample_hi) {
			continue;
		}
		snprintf(name, sizeof(name), "step %lld", (long long)st->num);
		snprintf(detail, sizeof(detail), "%s step marker %s",
			s.steps_source ? s.steps_source : "", tc_model_str(m, st->name));
		tc_annotation_mark(ann, steps_track, st->start_ps, st->dur_ps, name, detail, NULL);
	}
	struct tc_ivals v = { 0 };
	for (uint32_t d = 0; d < m->n_devices; d++) {
		if (!tc_selection_device(sel, m, d)) {
			continue;
		}
		size_t nt;
		uint32_t *tracks = tc_device_work_tracks(m, d, &nt);
		if (nt == 0) {
			free(tracks);
			continue;
		}
		for (int c = 0; c < WORK_CLASSES; c++) {
			enum work_class wc = (enum work_class)c;
			tc_ivals_union_tracks(m, tracks, nt, in_class, &wc, &v);
			if (v.n == 0 && c != WORK_ALL) {
				continue;
			}
			snprintf(name, sizeof(name), "step %s", c == WORK_ALL ? "idle" : class_name[c]);
			uint32_t series = tc_annotation_series(ann, name, "%", d);
			for (size_t k = 0; k < s.n_steps; k++) {
				const struct tc_step_summary *st = &s.steps[k];
				if (st->dur_ps <= 0 || st->start_ps + st->dur_ps < sel->sample_lo ||
						st->start_ps > sel->sample_hi) {
					continue;
				}
				double share = 100.0 * (double)covered(&v, st->start_ps,
					st->start_ps + st->dur_ps) / (double)st->dur_ps;
				tc_annotation_point(ann, series, st->start_ps,
					c == WORK_ALL ? 100.0 - share : share);
			}
		}
		free(tracks);
	}
	tc_ivals_finish(&v);
	tc_summary_finish(&s);
}
