#!/bin/sh
# Complexity check: for each dimension a trace can be big in (tracks, GPU
# devices, args of one event, flows, counter series and samples, distinct
# names; xplane planes and lines per plane; Perfetto track-parent depth),
# time a command on a generated trace of size N and of size 2N and print the
# ratio. Near-linear code gives about 2; quadratic code about 4.
#
#   bench/complexity.sh [BUILD_DIR]   (default build)
#
# Environment: N (base size, default 100000), ARGS_X (the args of one event
# are ARGS_X * N, default 5), DEEP_X (lines of one plane and the depth of
# the chain of tracks are DEEP_X * N, default 1), RUNS (best of, default
# 3), LIMIT (largest ratio
# passed, default 2.5), TC_BIN (tracectl, default BUILD_DIR/src/tracectl).
# A ratio over LIMIT is measured again, up to TRIES times in all (default
# 3), before it counts: a loaded machine can slow one size's runs, quadratic
# code stays near 4 every time. Exits 1 when some ratio stays over LIMIT,
# 77 when python3 is missing. tests/complexity.sh runs it with a small N.
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
TC=${TC_BIN:-$build/src/tracectl}
N=${N:-100000}
RUNS=${RUNS:-3}
TRIES=${TRIES:-3}
ARGS_X=${ARGS_X:-5}
DEEP_X=${DEEP_X:-1}
LIMIT=${LIMIT:-2.5}
if ! command -v python3 >/dev/null 2>&1; then
	echo "complexity: SKIP (no python3 to generate the traces)"
	exit 77
fi
[ -x "$TC" ] || { echo "complexity: $TC not found (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Best wall time of RUNS runs of a command, in ms (ns resolution).
best_ms() {
	best=
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>"$tmp/err" || { echo "complexity: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
		e=$(date +%s%N)
		t=$((e - s))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
		r=$((r + 1))
	done
	awk -v t="$best" 'BEGIN { printf "%.1f", t / 1e6 }'
}

# The command on one input, its outputs into $tmp.
run_cmd() {
	case $1 in
	export) "$TC" export --chrome "$2" -o "$tmp/out.json" ;;
	digest) "$TC" digest "$2" -o "$tmp/out.tcd" ;;
	launcher) "$TC" ops --by launcher "$2" ;;
	*) "$TC" "$1" "$2" ;;
	esac
}

fail=0
printf '%-9s %-10s %9s %10s %10s %6s\n' dimension command N "time(N)" "time(2N)" ratio
# dimension, command, size factor
for spec in "tracks summarize 1" "tids info 1" "devices summarize 1" "args export $ARGS_X" \
		"flows summarize 1" "flows export 1" "flows launcher 1" "depth launcher $DEEP_X" \
		"counters summarize 1" "samples summarize 1" \
		"names summarize 1" "planes summarize 1" "planes digest 1" "lines summarize $DEEP_X" \
		"depth summarize $DEEP_X"; do
	set -- $spec
	dim=$1 cmd=$2
	n=$((N * $3))
	case $dim in
	planes | lines) ext=xplane.pb ;;
	depth) ext=pftrace ;;
	*) ext=json ;;
	esac
	f1=$tmp/$dim-1.$ext f2=$tmp/$dim-2.$ext
	python3 "$here/gen_quad.py" "$dim" "$n" "$f1" $((2 * n)) "$f2"
	try=0
	while :; do
		t1=$(best_ms run_cmd "$cmd" "$f1")
		t2=$(best_ms run_cmd "$cmd" "$f2")
		[ -n "$t1" ] && [ -n "$t2" ] || exit 1
		ratio=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
		try=$((try + 1))
		verdict=
		if awk -v r="$ratio" -v l="$LIMIT" 'BEGIN { exit !(r > l) }'; then
			verdict="  over $LIMIT (try $try of $TRIES)"
			[ "$try" -lt "$TRIES" ] || { fail=1; break; }
			printf '%-9s %-10s %9d %8s ms %7s ms %6s%s\n' "$dim" "$cmd" "$n" "$t1" "$t2" \
				"$ratio" "$verdict"
			continue
		fi
		break
	done
	printf '%-9s %-10s %9d %8s ms %7s ms %6s%s\n' "$dim" "$cmd" "$n" "$t1" "$t2" "$ratio" "$verdict"
	rm -f "$f1" "$f2"
done
exit "$fail"
