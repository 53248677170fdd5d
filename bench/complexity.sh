#!/bin/sh
# Complexity check: for each dimension a trace can be big in (tracks, GPU
# devices, args of one event, flows, counter series and samples, distinct
# names; xplane planes and lines per plane; Perfetto track-parent depth),
# time a command on a generated trace of size N and of size 2N and print the
# ratio (the smaller of the wall-time and CPU-time ratios, each time the
# best of RUNS). Near-linear code gives about 2; quadratic code about 4.
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

# One run of a command: "wall_ns cpu_ns status", its CPU the user and
# system time of it and its threads (microseconds, from rusage).
run_once() {
	ERRF=$tmp/err python3 -c '
import os, resource, subprocess, sys, time
def cpu():  # children reaped so far (any before the exec count too)
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime
c = cpu()
t = time.perf_counter_ns()
with open(os.environ["ERRF"], "w") as err:
    r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=err)
w = time.perf_counter_ns() - t
print(w, round((cpu() - c) * 1e9), r.returncode)' "$@"
}

# Best wall and best CPU time of RUNS runs of COMMAND on FILE, in ms:
# "wall cpu". A loaded host stretches wall time far more than CPU time,
# so the verdict takes the smaller of the two ratios.
best_ms() {
	case $1 in
	export) set -- "$TC" export --chrome "$2" -o "$tmp/out.json" ;;
	digest) set -- "$TC" digest "$2" -o "$tmp/out.tcd" ;;
	launcher) set -- "$TC" ops --by launcher "$2" ;;
	*) set -- "$TC" "$1" "$2" ;;
	esac
	bw= bc=
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		out=$(run_once "$@") || { echo "complexity: cannot time $*" >&2; exit 1; }
		w=${out%% *} rest=${out#* }
		c=${rest%% *} rc=${rest#* }
		[ "$rc" = 0 ] || { echo "complexity: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$c" -lt "$bc" ]; then bc=$c; fi
		r=$((r + 1))
	done
	awk -v w="$bw" -v c="$bc" 'BEGIN { printf "%.1f %.1f", w / 1e6, c / 1e6 }'
}

fail=0
printf '%-9s %-10s %9s %10s %10s %10s %10s %6s\n' dimension command N "wall(N)" "wall(2N)" \
	"cpu(N)" "cpu(2N)" ratio
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
		m1=$(best_ms "$cmd" "$f1")
		m2=$(best_ms "$cmd" "$f2")
		[ -n "$m1" ] && [ -n "$m2" ] || exit 1
		w1=${m1% *} c1=${m1#* } w2=${m2% *} c2=${m2#* }
		# The smaller of the wall and CPU ratios: a loaded host stretches
		# one run's wall time, and a command that waits stretches no CPU.
		ratio=$(awk -v a="$w1" -v b="$w2" -v c="$c1" -v d="$c2" 'BEGIN {
			rw = a > 0 ? b / a : 0; rc = c > 0 ? d / c : 0
			printf "%.2f", (rc > 0 && rc < rw) ? rc : rw }')
		try=$((try + 1))
		verdict=
		if awk -v r="$ratio" -v l="$LIMIT" 'BEGIN { exit !(r > l) }'; then
			verdict="  over $LIMIT (try $try of $TRIES)"
			[ "$try" -lt "$TRIES" ] || { fail=1; break; }
			printf '%-9s %-10s %9d %7s ms %7s ms %7s ms %7s ms %6s%s\n' "$dim" "$cmd" "$n" \
				"$w1" "$w2" "$c1" "$c2" "$ratio" "$verdict"
			continue
		fi
		break
	done
	printf '%-9s %-10s %9d %7s ms %7s ms %7s ms %7s ms %6s%s\n' "$dim" "$cmd" "$n" "$w1" "$w2" \
		"$c1" "$c2" "$ratio" "$verdict"
	rm -f "$f1" "$f2"
done
exit "$fail"
