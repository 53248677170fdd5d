#!/bin/sh
# Benchmark the xplane reader: generate an XProf-shaped XSpace, then time
# `tracectl info` (read and finalize) and `tracectl summarize` (the same plus
# the analysis) on it next to a bare pbwire walk of the same file.
#
#   bench/run.sh [BUILD_DIR] [SIZE] [PROFILE]   (defaults: build, 1G, gpu)
#
# PROFILE is gen-xplane's --profile: gpu (calibrated on real GPU profiles),
# tpu (calibrated on a real TPU profile), lean (small events, few stats) or
# ops (device ops only, ~25 bytes each: the analysis' worst case).
# Each command runs RUNS times (default 3); the run with the least CPU time
# (user + system) is reported, as the machine may be shared.
#
# Prints wall time, MB/s, events/s and peak RSS (via /usr/bin/time -v; on
# Debian/Ubuntu: apt-get install -y time). The generated file is kept in
# ${TMPDIR:-/tmp} as bench-<PROFILE>-<SIZE>.xplane.pb and reused by later runs.
set -eu
build=${1:-build}
size=${2:-1G}
profile=${3:-gpu}
tmp=${TMPDIR:-/tmp}
file=$tmp/bench-$profile-$size.xplane.pb
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: $TIME not found (apt-get install -y time)" >&2; exit 1; }
ninja -C "$build" src/tracectl bench/gen-xplane bench/wirewalk >/dev/null
if [ ! -s "$file" ]; then
	echo "generating $file ($size, profile $profile)"
	"$build/bench/gen-xplane" --size "$size" --profile "$profile" "$file"
fi
bytes=$(stat -L -c %s "$file")
# Warm the page cache so both runs read from memory.
cat "$file" >/dev/null

# Best (least CPU time) of $RUNS runs (default 3): the machine may be shared.
RUNS=${RUNS:-3}
measure() { # label, command...
	label=$1
	shift
	best=
	i=0
	while [ $i -lt "$RUNS" ]; do
		$TIME -v "$@" >"$tmp/bench.out" 2>"$tmp/bench.time"
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/bench.time" |
			awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/bench.time")
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$tmp/bench.time")
		if [ -z "$best" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then
			best=$wall
			best_rss=$rss
			best_cpu=$cpu
		fi
		i=$((i + 1))
	done
	echo "$label $best $best_rss $best_cpu"
}

w=$(measure wirewalk "$build/bench/wirewalk" "$file")
events=$(awk '{ print $3 }' "$tmp/bench.out")
i=$(measure info "$build/src/tracectl" info "$file")
s=$(measure summarize "$build/src/tracectl" summarize "$file")
echo "file      $file: $bytes bytes, $events events, profile $profile"
for r in "$w" "$i" "$s"; do
	echo "$r" | awk -v b="$bytes" -v e="$events" '{
		t = $2 > 0 ? $2 : 0.001
		c = $4 > 0 ? $4 : 0.001
		printf "%-10s %7.2f s (cpu %5.2f s)  %8.1f MB/s (cpu %6.1f)  %6.2f M events/s  peak RSS %7.1f MiB (%.2fx file)\n",
			$1, $2, $4, b / t / 1e6, b / c / 1e6, e / t / 1e6, $3 / 1024, $3 * 1024 / b
	}'
done
echo "$w $i $s" | awk 'function r(a, b) { return (a > 0 ? a : 0.001) / (b > 0 ? b : 0.001) }
{
	printf "summarize / wirewalk: %.2fx wall, %.2fx cpu\n", r($10, $2), r($12, $4)
	printf "summarize / info:     %.2fx wall, %.2fx cpu\n", r($10, $6), r($12, $8)
}'
