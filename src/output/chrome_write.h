#ifndef TC_OUTPUT_CHROME_WRITE_H
#define TC_OUTPUT_CHROME_WRITE_H

/*
 * Chrome Trace Event Format writer (opens in Perfetto UI and
 * chrome://tracing). Streams from a finalized model: every event is written
 * as it is visited, so memory does not grow with the output (a few arrays
 * per device and track only).
 *
 * Shape: {"displayTimeUnit":"ns","traceEvents":[...],"otherData":{...}}.
 * - devices become processes (pid = device index + 1; pid n_devices + 1
 *   holds tracks and counters without a device, n_devices + 2 the
 *   annotations), tracks become threads (tid = 1, 2, ... in track order
 *   within the device); process_name/_sort_index and thread_name/
 *   _sort_index metadata come first.
 * - ts and dur are microseconds written as exact decimals of the integer
 *   picoseconds (up to 6 digits after the point, trailing zeros trimmed).
 *   ts 0 is the selection's zero_ps (the trace start); otherData.ts_zero_ns
 *   gives its absolute time (origin_ns + zero_ps / 1000) as exact text.
 * - slices are X, instants i with "s":"t", counter samples C on their
 *   device's process (args {"value": v}), flows s/f pairs ("bp":"e"),
 *   allocator records Kineto "[memory]" instants.
 * - cat is the op's category (its kind name when it has none); args hold
 *   the event's own args, the op's, "op_kind", and "flops" and
 *   "bytes_accessed" when known (a key is never written twice).
 * - otherData: generator, time origin, sources, counts written, each cut
 *   rule with the events it dropped, aggregated (count-only) events,
 *   warnings.
 */

#include <stdint.h>
#include <stdio.h>
#include "model/annotation.h"
#include "model/model.h"
#include "model/selection.h"

struct tc_chrome_opts {
	const struct tc_selection *sel; /* what to write; required */
	const struct tc_annotation *ann; /* extra marks and counters, NULL none */
	const char *generator;           /* "tracectl 0.1.0" */
};

struct tc_chrome_stats {
	uint64_t slices, instants, samples, flows;
	uint64_t nonfinite_samples; /* counter samples skipped: NaN or infinite */
	uint64_t marks;             /* annotation slices */
	uint64_t allocs;            /* allocator records ([memory] instants) */
};

void tc_write_chrome(FILE *f, const struct tc_model *m, const struct tc_chrome_opts *o,
	struct tc_chrome_stats *st);

/* Shared with the Perfetto writer: a device's display name (with its host,
 * and its file when two files share a host name) into name[n], and the
 * category written for an op without one (the Kineto name of its kind). */
void tc_chrome_device_name(const struct tc_model *m, uint32_t d, char *name, size_t n);
const char *tc_chrome_kind_cat(enum tc_op_kind k);

#endif
