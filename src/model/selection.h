#ifndef TC_MODEL_SELECTION_H
#define TC_MODEL_SELECTION_H

/*
 * Which parts of a finalized model a writer emits: one bit per event, a time
 * window for counter samples, a device filter, and a record of every rule
 * that dropped events (so nothing is cut silently). analysis/cut.c fills it;
 * output/ reads it. Owns its arrays; tc_selection_finish frees them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

#define TC_SELECTION_MAX_NOTES 16

/* One cutting rule that was applied, with how many events it removed. */
struct tc_selection_note {
	char rule[160];    /* the option as given: "--steps 3:5" */
	uint64_t dropped;  /* events removed by this rule (0 is reported too) */
	/* What the rule resolved to, -1 when it has none: the time window
	 * (--steps, --window), or the shortest duration kept (--max-events). */
	int64_t lo_ps, hi_ps;
};

struct tc_selection {
	uint64_t *keep;      /* bit i set: event i is emitted */
	size_t n_events;
	size_t n_kept;
	uint8_t *device_ok;  /* [n_devices + 1]; the last entry is "no device" */
	/* Trace start and end over events and counter samples, in model ps:
	 * output times are relative to zero_ps. */
	int64_t zero_ps, end_ps;
	/* Counter samples are emitted when lo <= ts <= hi. */
	int64_t sample_lo, sample_hi;
	struct tc_selection_note notes[TC_SELECTION_MAX_NOTES];
	size_t n_notes;
};

/* Select everything. */
void tc_selection_init(struct tc_selection *s, const struct tc_model *m);
void tc_selection_finish(struct tc_selection *s);

static inline bool tc_selection_has(const struct tc_selection *s, size_t i) {
	return (s->keep[i >> 6] >> (i & 63)) & 1;
}
static inline void tc_selection_set(struct tc_selection *s, size_t i, bool on) {
	uint64_t bit = (uint64_t)1 << (i & 63);
	bool was = s->keep[i >> 6] & bit;
	if (on && !was) {
		s->keep[i >> 6] |= bit;
		s->n_kept++;
	} else if (!on && was) {
		s->keep[i >> 6] &= ~bit;
		s->n_kept--;
	}
}
/* True when device d (TC_NONE for "no device") is emitted. */
static inline bool tc_selection_device(const struct tc_selection *s,
		const struct tc_model *m, uint32_t d) {
	return s->device_ok[d < m->n_devices ? d : m->n_devices];
}

/* Record that a rule dropped `dropped` events; returns the note (lo_ps and
 * hi_ps start at -1). */
struct tc_selection_note *tc_selection_note(struct tc_selection *s, const char *rule,
	uint64_t dropped);

#endif
