#!/bin/sh
# Cost must grow near-linearly in tracks, args, flows, counters and names:
# bench/complexity.sh at a small N with a generous bound (time for 2N at
# most 3x time for N, best of 3 runs). The quadratic code this guards
# against (a scan of every track per device, of an event's args per arg)
# gave ratios of 4-5 at this N. Skips (77) without python3.
set -u
SRC=${TC_SOURCE_ROOT:?}
TC_BIN=${TC_BIN:?} N=${TC_COMPLEXITY_N:-8000} ARGS_X=2 RUNS=3 LIMIT=3.0 \
	exec sh "$SRC/bench/complexity.sh"
