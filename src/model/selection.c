/*
 * An export's selection: per-event keep bits, the device filter, and the
 * notes that record how many events each cutting rule dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/selection.h"
#include "util/xalloc.h"

void tc_selection_init(struct tc_selection *s, const struct tc_model *m) {
	memset(s, 0, sizeof(*s));
	size_t words = (m->ev.n + 63) / 64;
	s->keep = tc_xmalloc((words ? words : 1) * sizeof(*s->keep));
	memset(s->keep, 0xff, (words ? words : 1) * sizeof(*s->keep));
	if (m->ev.n % 64) {
		s->keep[words - 1] = ((uint64_t)1 << (m->ev.n % 64)) - 1;
	} else if (!words) {
		s->keep[0] = 0;
	}
	s->n_events = m->ev.n;
	s->n_kept = m->ev.n;
	s->device_ok = tc_xmalloc(m->n_devices + 1);
	memset(s->device_ok, 1, m->n_devices + 1);
	s->sample_lo = INT64_MIN;
	s->sample_hi = INT64_MAX;
	/* Time zero of the output: the earliest event, counter sample or
	 * allocator record, so every written ts is >= 0 whatever is cut away
	 * later. */
	int64_t first, last;
	tc_model_span(m, &first, &last);
	if (m->ev.n == 0 && m->samples.n) {
		first = last = m->samples.ts[0];
	}
	for (size_t i = 0; i < m->samples.n; i++) {
		if (m->samples.ts[i] < first) {
			first = m->samples.ts[i];
		}
		if (m->samples.ts[i] > last) {
			last = m->samples.ts[i];
		}
	}
	if (m->ev.n == 0 && m->samples.n == 0 && m->n_allocs) {
		first = last = m->allocs[0].ts;
	}
	for (size_t i = 0; i < m->n_allocs; i++) {
		first = m->allocs[i].ts < first ? m->allocs[i].ts : first;
		last = m->allocs[i].ts > last ? m->allocs[i].ts : last;
	}
	s->zero_ps = first;
	s->end_ps = last;
}

void tc_selection_finish(struct tc_selection *s) {
	if (!s) {
		return;
	}
	free(s->keep);
	free(s->device_ok);
	memset(s, 0, sizeof(*s));
}

struct tc_selection_note *tc_selection_note(struct tc_selection *s, const char *rule,
		uint64_t dropped) {
	/* Past the last slot, rules are merged into it so no count is lost. */
	struct tc_selection_note *n;
	if (s->n_notes == TC_SELECTION_MAX_NOTES) {
		n = &s->notes[TC_SELECTION_MAX_NOTES - 1];
		snprintf(n->rule, sizeof(n->rule), "several rules");
		n->dropped += dropped;
	} else {
		n = &s->notes[s->n_notes++];
		snprintf(n->rule, sizeof(n->rule), "%s", rule);
		n->dropped = dropped;
	}
	n->lo_ps = n->hi_ps = -1;
	return n;
}
