#ifndef TC_OUTPUT_PERFETTO_WRITE_H
#define TC_OUTPUT_PERFETTO_WRITE_H

/*
 * Native Perfetto protobuf writer (`export --perfetto`): a Trace of
 * TracePackets on one sequence, packed with protobuf-c's generated code for
 * proto/perfetto_trace_min.proto. It writes what the Chrome writer writes,
 * from the same selection and annotation, and streams the same way: each
 * packet is packed into one reused buffer and written as field 1 of Trace
 * (tag, length, bytes), so memory does not grow with the output.
 *
 * Shape:
 * - devices become processes (TrackDescriptor.process, pid = device index
 *   + 1, pid n_devices + 1 for what has no device, n_devices + 2 the
 *   annotations); device-work tracks (ops lines, streams) become tracks under
 *   their process, every other track a thread (tid 1, 2, ... in track order
 *   per device), ordered by the model's sort index (sibling_order_rank,
 *   legacy_sort_index).
 * - slices are SLICE_BEGIN/SLICE_END pairs, instants INSTANT, at absolute
 *   times (origin_ns + ps / 1000, rounded to the nearest ns: Perfetto's
 *   clocks count whole ns). Slices that overlap without nesting go on an
 *   extra track beside their own, since a track's slices must nest.
 * - event names, categories, arg names and string arg values are interned
 *   (InternedData, SEQ_NEEDS_INCREMENTAL_STATE); args are debug annotations
 *   with the Chrome writer's keys (op_kind, flops, bytes_accessed, ...).
 * - counters are counter tracks (CounterDescriptor with the unit's name)
 *   with TYPE_COUNTER events; flows are flow_ids on the end written first
 *   and terminating_flow_ids on the other unless it is earlier in time
 *   (then flow_ids too: viewers order a flow's ends by time).
 * - tracectl's own reader tells device work by "gpu" or "stream" in a
 *   track's name, so a device-work track named otherwise gets " (stream)"
 *   appended; the export then reads back with the same op statistics.
 * The Chrome writer's otherData (sources, cuts, warnings) has no place
 * here: the cuts are on stderr.
 */

#include <stdio.h>
#include "output/chrome_write.h"

/* Options and counts are the Chrome writer's. */
void tc_write_perfetto(FILE *f, const struct tc_model *m, const struct tc_chrome_opts *o,
	struct tc_chrome_stats *st);

#endif
