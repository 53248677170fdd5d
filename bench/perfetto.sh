#!/bin/sh
# Perfetto ingest benchmark: tracectl summarize vs a no-op wire walk of the
# same file, and the reader alone (bench/perfetto_ingest: read, no model
# finalize). Prints MB/s (file bytes / wall seconds) and peak RSS.
#
#   bench/perfetto.sh [BUILD_DIR] [TRACE] [SIZE_MB]
#
# Without TRACE, bench/gen_perfetto.py writes a SIZE_MB (default 600) trace
# to /tmp/tracectl-bench.pftrace once and reuses it. Needs GNU time
# (/usr/bin/time -v; `apt-get install -y time`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
trace=${2:-/tmp/tracectl-bench.pftrace}
size=${3:-600}
if [ ! -x /usr/bin/time ]; then
	echo "perfetto.sh: /usr/bin/time missing (apt-get install -y time)" >&2
	exit 2
fi
if [ ! -f "$trace" ]; then
	python3 "$here/gen_perfetto.py" "$trace" "$size"
fi
bytes=$(stat -c %s "$trace")
# Warm the page cache so both runs read from memory.
cat "$trace" >/dev/null

run() {
	label=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>/tmp/tracectl-bench.time
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' /tmp/tracectl-bench.time)
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/tracectl-bench.time)
	secs=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	awk -v l="$label" -v b="$bytes" -v s="$secs" -v r="$rss" 'BEGIN {
		printf "%-22s %8.2f s %9.1f MB/s %9.1f MiB peak RSS\n", l, s, b / 1e6 / s, r / 1024
	}'
}

echo "trace: $trace ($bytes bytes)"
run "wire walk (no-op)" "$build/bench/perfetto_walk" "$trace"
run "reader only (ingest)" "$build/bench/perfetto_ingest" "$trace"
run "tracectl info" "$build/src/tracectl" info "$trace"
run "tracectl summarize" "$build/src/tracectl" summarize "$trace"
