#!/bin/sh
# Perfetto ingest benchmark: tracectl summarize vs a no-op wire walk of the
# same file, and ingest alone (bench/ingest: the reader, then finalize, as
# the CLI runs them; it prints its own in-process times). Prints MB/s (file
# bytes / wall seconds, and / CPU seconds, which is steadier on a shared
# machine) and peak RSS, best of RUNS (default 3).
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

runs=${RUNS:-3}

# Best of $runs by wall time; CPU = user + system seconds of that run.
run() {
	label=$1
	shift
	best=
	for i in $(seq "$runs"); do
		/usr/bin/time -v "$@" >/dev/null 2>/tmp/tracectl-bench.time
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' /tmp/tracectl-bench.time |
			awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' /tmp/tracectl-bench.time)
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/tracectl-bench.time)
		if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$wall bcpu=$cpu brss=$rss
		fi
	done
	awk -v l="$label" -v b="$bytes" -v s="$best" -v c="$bcpu" -v r="$brss" 'BEGIN {
		printf "%-22s %7.2f s %7.1f MB/s wall %7.1f MB/s cpu %8.1f MiB peak RSS\n",
			l, s, b / 1e6 / s, b / 1e6 / c, r / 1024
	}'
}

echo "trace: $trace ($bytes bytes)"
run "wire walk (no-op)" "$build/bench/perfetto_walk" "$trace"
run "ingest (process)" "$build/bench/ingest" "$trace"
"$build/bench/ingest" "$trace" | sed 's/^/  ingest, in process: /'
run "tracectl info" "$build/src/tracectl" info "$trace"
run "tracectl summarize" "$build/src/tracectl" summarize "$trace"
