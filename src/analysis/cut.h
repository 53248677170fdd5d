#ifndef TC_ANALYSIS_CUT_H
#define TC_ANALYSIS_CUT_H

/*
 * Cutting a finalized model down to what an export should hold. Each rule
 * narrows a struct tc_selection (start from tc_selection_init) and records
 * how many events it dropped, so writers can say what is missing. Rules
 * compose; apply tc_cut_max_events last. Whole events are kept or dropped,
 * never clipped, so nesting and durations stay as recorded. `rule` is the
 * option as the user wrote it ("--steps 3:5"); it names the note.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "model/selection.h"
#include "util/error.h"

/* Keep events overlapping [lo_ps, hi_ps] (model time); instants count when
 * lo <= ts <= hi. Counter samples are limited to the same window. */
void tc_cut_window(const struct tc_model *m, struct tc_selection *s,
	int64_t lo_ps, int64_t hi_ps, const char *rule);

/*
 * Steps as the steps pass makes them (tracectl steps): device step lines
 * before host markers, host markers aligned to the device work they
 * launched. Keep the window from the first selected step's start to the
 * last one's end (first..last inclusive; INT64_MIN / INT64_MAX for open
 * ends), so a step's device tail past its marker is kept. Fails
 * (TC_EXIT_USAGE) when no step matches.
 */
bool tc_cut_steps(const struct tc_model *m, struct tc_selection *s,
	int64_t first, int64_t last, const char *rule, struct tc_error *err);

/* The same with --step-marker REGEX (analysis/step_marker.h) as the
 * markers; marker NULL: the built-in ones, as tc_cut_steps. */
bool tc_cut_steps_marked(const struct tc_model *m, struct tc_selection *s,
	const char *marker, int64_t first, int64_t last, const char *rule,
	struct tc_error *err);

/* Keep the devices each pattern matches (tc_analysis_match_device: an exact
 * name or "host: name", else every name containing it, ignoring case).
 * Fails (TC_EXIT_USAGE) naming a pattern that matches nothing. */
bool tc_cut_devices(const struct tc_model *m, struct tc_selection *s,
	const char *const *patterns, size_t n, const char *rule, struct tc_error *err);

/* Drop events shorter than min_ps (instants included). */
void tc_cut_min_dur(const struct tc_model *m, struct tc_selection *s, int64_t min_ps,
	const char *rule);

/*
 * Keep the n ops (rows by name, category and kind) with the most total time
 * on device-work tracks (all tracks but derived ones when the selection has
 * no device work), plus the context that explains them: their ancestors on
 * their own track, events on other tracks of the same device that enclose
 * them in time (steps, modules, annotations), and the events that launched
 * them through flows, with those events' ancestors.
 */
void tc_cut_top_ops(const struct tc_model *m, struct tc_selection *s, size_t n,
	const char *rule);

/*
 * Keep at most max events: the longest first, each together with its
 * enclosing events (a child is never shown without its parents). Shorter
 * events are dropped; the note gives the count and, in value_ps, the
 * shortest kept duration.
 */
void tc_cut_max_events(const struct tc_model *m, struct tc_selection *s, size_t max,
	const char *rule);

#endif
