#!/bin/sh
# Cost must grow near-linearly in tracks, devices, args, flows, counters,
# names, xplane planes and lines and Perfetto track depth:
# bench/complexity.sh at a small N with a generous bound (time for 2N at
# most 3x time for N, best of 3 runs). The quadratic code this guards
# against (a scan of every track per device, of an event's args per arg,
# of a plane's lines per line, of a track's ancestors per track) gave
# ratios of 4-5 at this N; lines and depth run at 8N, where their old
# cost stood out of the fixed costs. Skips (77) without python3.
set -u
SRC=${TC_SOURCE_ROOT:?}
TC_BIN=${TC_BIN:?} N=${TC_COMPLEXITY_N:-8000} ARGS_X=2 DEEP_X=8 RUNS=3 LIMIT=3.0 \
	exec sh "$SRC/bench/complexity.sh"
