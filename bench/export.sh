#!/bin/sh
# Benchmark `tracectl export --chrome`: generate an XProf-shaped XSpace with
# bench/gen-xplane (default 1 GiB), then export a few steps of it and the
# whole of it, printing output size, MB/s written and peak RSS.
#
#   bench/export.sh [BUILD_DIR] [SIZE] [STEPS]   (defaults: build, 1G, 2:3)
#
# Peak RSS comes from /usr/bin/time -v (Debian/Ubuntu: apt-get install -y
# time). The generated trace is kept in ${TMPDIR:-/tmp} as
# bench-<SIZE>.xplane.pb and reused (gpu profile; bench/run.sh names its files bench-PROFILE-SIZE).
set -eu
build=${1:-build}
size=${2:-1G}
steps=${3:-2:3}
tmp=${TMPDIR:-/tmp}
file=$tmp/bench-$size.xplane.pb
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: $TIME not found (apt-get install -y time)" >&2; exit 1; }
ninja -C "$build" src/tracectl >/dev/null
if [ ! -s "$file" ]; then
	ninja -C "$build" bench/gen-xplane >/dev/null ||
		{ echo "bench: $build/bench/gen-xplane missing (needs the xplane bench on main)" >&2; exit 1; }
	echo "generating $file ($size)"
	"$build/bench/gen-xplane" --size "$size" "$file"
fi
in_bytes=$(stat -c %s "$file")
cat "$file" >/dev/null # warm the page cache

# label, output file, export arguments...
run() {
	label=$1
	out=$2
	shift 2
	$TIME -v "$build/src/tracectl" export --chrome "$file" -o "$out" "$@" \
		>/dev/null 2>"$tmp/bench.time" || { cat "$tmp/bench.time" >&2; exit 1; }
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/bench.time" |
		awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/bench.time")
	bytes=$(stat -c %s "$out")
	grep '^tracectl' "$tmp/bench.time" | sed 's/^/    /' || true
	awk -v l="$label" -v w="$wall" -v r="$rss" -v b="$bytes" -v i="$in_bytes" 'BEGIN {
		printf "%-28s %8.1f MB out  %6.2f s  %7.1f MB/s written  %7.1f MB/s read  peak RSS %.0f MiB\n",
			l, b / 1e6, w, (w > 0 ? b / 1e6 / w : 0), (w > 0 ? i / 1e6 / w : 0), r / 1024 }'
	rm -f "$out"
}

echo "input     $file: $in_bytes bytes"
run "export --steps $steps" "$tmp/bench-export-steps.json" --steps "$steps"
run "export --steps $steps (gz)" "$tmp/bench-export-steps.json.gz" --steps "$steps"
if [ "${BENCH_FULL:-1}" = 1 ]; then
	run "export (whole trace)" "$tmp/bench-export-all.json"
fi
