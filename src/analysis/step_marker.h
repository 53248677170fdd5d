#ifndef TC_ANALYSIS_STEP_MARKER_H
#define TC_ANALYSIS_STEP_MARKER_H

/*
 * User-named step markers (--step-marker REGEX): any host or device
 * annotation whose name matches the POSIX extended regular expression is a
 * step, in place of the built-in markers (ProfilerStep#N, step lines).
 * Steps, the summary and export --steps all find them here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "util/error.h"

/* False (TC_EXIT_USAGE, the regcomp message in err) when pattern is not a
 * valid extended regular expression. */
bool tc_step_marker_valid(const char *pattern, struct tc_error *err);

struct tc_marked_step {
	uint32_t ev;    /* event index */
	int64_t num;    /* step_num / iteration / step arg, else the name's
	                 * trailing number; INT64_MIN: neither (number by order) */
	int64_t start_ps, dur_ps;
};

/*
 * The events marking steps, as the built-in markers are chosen: those on
 * an accelerator when any matches there (the lowest-numbered such device),
 * else those of the host device with the most matches. Sorted by start
 * (longer first on ties). Returns the count and sets *out (malloc'd, NULL
 * when none), *device (that device, TC_NONE for host markers of no known
 * device) and *on_device. pattern must be valid.
 */
size_t tc_step_marker_find(const struct tc_model *m, const char *pattern,
	struct tc_marked_step **out, uint32_t *device, bool *on_device);

#endif
