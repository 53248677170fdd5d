#!/bin/sh
# The shape matrix: speed and memory of the readers and the analysis on
# traces of many shapes, and the worst ratio of each column as the figure.
#
#   bench/shapes.sh [BUILD] [SIZE_MB]   (defaults: build, 200)
#
# RUNS (3): runs per command, the one with the least CPU time reported.
# SHAPES: names of the shapes to run (all by default), e.g. "base issue".
# TC_BIN: the tracectl to time (default BUILD/src/tracectl), to compare
# two builds on the same files.
#
# Each axis of issue 51 is varied alone against the xplane baseline (base:
# costs on op metadata, correlation_id and group_id on every event, 3 lines
# and 1 device, 50 ops, 10 steps, flat name scopes), then two combinations:
# issue (the 4 M device-op shape of issue 51: costs on op metadata,
# correlation_id per event, memcpy_details strings on the H2D line, host
# step markers, 2,000 ops, 1,000 steps) and wide (8 devices of 64 lines,
# 20,000 ops, 10,000 steps, depth 20, costs on every event). Kineto JSON
# (args-heavy: gen_kineto.py; args-light) and Perfetto (interned:
# gen_perfetto.py; plain) end the list. Files are written by gen_shapes.py
# into ${TMPDIR:-/tmp}/tracectl-shapes and reused; SIZE_MB is the size of
# each (MB of 10^6 bytes; gen_kineto.py and gen_perfetto.py count MiB).
#
# Per shape: the floor (xplane: bench/wirewalk; JSON: bench/json_lex_noop;
# Perfetto: bench/perfetto_walk), `info`, `summarize`, `bottlenecks` in
# CPU seconds (user + system: the host is shared), summarize / info and
# summarize / floor by CPU, and the larger peak RSS of summarize and
# bottlenecks as a multiple of the file; then the same ratios by wall time
# (least of RUNS), which a busy host inflates. Needs python3.
set -eu
build=${1:-build}
size=${2:-200}
here=$(cd "$(dirname "$0")" && pwd)
dir=${TMPDIR:-/tmp}/tracectl-shapes
tc=${TC_BIN:-$build/src/tracectl}
RUNS=${RUNS:-3}
mkdir -p "$dir"

# name kind generator-arguments
matrix='base xplane
costs-event xplane --costs event
costs-none xplane --costs none
stats-none xplane --stats none
stats-strings xplane --stats strings
lines-64 xplane --lines 64
devices-8 xplane --devices 8
ops-20k xplane --ops 20000
steps-10k xplane --steps 10000
depth-20 xplane --depth 20
issue xplane --stats ints --ops 2000 --steps 1000
wide xplane --costs event --devices 8 --lines 64 --ops 20000 --steps 10000 --depth 20
kineto-heavy json
kineto-light json
perfetto-interned perfetto
perfetto-plain perfetto'

# A command RUNS times: "cpu wall rss_kib", the least CPU time (user +
# system, to the microsecond) with its peak RSS, and the least wall time.
measure() {
	python3 - "$RUNS" "$@" <<'PY'
import resource, subprocess, sys, time
best = None
for _ in range(int(sys.argv[1])):
    t = time.monotonic()
    p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
    _, status, ru = __import__("os").wait4(p.pid, 0)
    wall = time.monotonic() - t
    if status:
        sys.exit("shapes: failed: %s" % " ".join(sys.argv[2:]))
    cpu = ru.ru_utime + ru.ru_stime
    if best is None or cpu < best[0]:
        best = [cpu, best[1] if best else wall, ru.ru_maxrss]
    best[1] = min(best[1], wall)
print("%.4f %.4f %d" % tuple(best))
PY
}

gen() { # name kind args... -> path
	name=$1
	kind=$2
	shift 2
	case $kind in
	xplane) f=$dir/$name-$size.xplane.pb ;;
	json) f=$dir/$name-$size.json ;;
	perfetto) f=$dir/$name-$size.pftrace ;;
	esac
	if [ ! -s "$f" ]; then
		case $name in
		kineto-heavy) python3 "$here/gen_kineto.py" "$f.tmp" "$size" >/dev/null ;;
		kineto-light) python3 "$here/gen_shapes.py" kineto-light "$f.tmp" "$size" ;;
		perfetto-interned) python3 "$here/gen_perfetto.py" "$f.tmp" "$size" >/dev/null ;;
		perfetto-plain) python3 "$here/gen_shapes.py" perfetto-plain "$f.tmp" "$size" ;;
		*) python3 "$here/gen_shapes.py" xplane "$f.tmp" "$size" "$@" ;;
		esac
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

ninja -C "$build" src/tracectl bench/wirewalk bench/json_lex_noop bench/perfetto_walk >/dev/null
printf '%s, %s MB, RUNS=%s, %s, %s\n' "$(date -u +%Y-%m-%d)" "$size" "$RUNS" "$(uname -m)" \
	"$(nproc) cpus"
printf '%-18s %6s %5s | %6s %6s %6s %6s | %9s %9s %9s | %8s | %9s %9s\n' shape MB Mev \
	floor info summ bott summ/info summ/floor bott/info RSS/file "wall s/i" "wall s/f"
echo "$matrix" | while read -r name kind args; do
	if [ -n "${SHAPES:-}" ] && ! echo " $SHAPES " | grep -q " $name "; then
		continue
	fi
	# shellcheck disable=SC2086
	f=$(gen "$name" "$kind" $args)
	bytes=$(stat -L -c %s "$f")
	cat "$f" >/dev/null
	case $kind in
	xplane) fl=$(measure "$build/bench/wirewalk" "$f") ;;
	json) fl=$(measure "$build/bench/json_lex_noop" "$f") ;;
	perfetto) fl=$(measure "$build/bench/perfetto_walk" "$f") ;;
	esac
	ev=$("$tc" info --json "$f" | sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -n 1)
	in=$(measure "$tc" info "$f")
	su=$(measure "$tc" summarize "$f")
	bo=$(measure "$tc" bottlenecks "$f")
	echo "$name $kind $bytes ${ev:-0} $fl $in $su $bo"
done | tee "$dir/last.txt" | awk '
function r(a, b) { return a / (b > 0 ? b : 0.0001) }
{
	name = $1; kind = $2; mb = $3 / 1e6
	fl = $5; inf = $8; su = $11; bo = $14
	rss = ($13 > $16 ? $13 : $16) * 1024 / $3
	si = r(su, inf); sf = r(su, fl); bi = r(bo, inf)
	wsi_ = r($12, $9); wsf_ = r($12, $6)
	printf "%-18s %6.1f %5.2f | %6.3f %6.3f %6.3f %6.3f | %8.2fx %8.2fx %8.2fx | %7.2fx | %8.2fx %8.2fx\n",
		name, mb, $4 / 1e6, fl, inf, su, bo, si, sf, bi, rss, wsi_, wsf_
	if (si > wsi) { wsi = si; nsi = name }
	if (bi > wbi) { wbi = bi; nbi = name }
	if (kind == "xplane" && sf > wsf) { wsf = sf; nsf = name }
	if (kind == "xplane" && rss > wr) { wr = rss; nr = name }
	if (wsi_ > wwsi) { wwsi = wsi_; nwsi = name }
	if (kind == "xplane" && wsf_ > wwsf) { wwsf = wsf_; nwsf = name }
}
END {
	printf "worst summarize / info:        %.2fx (%s), by wall %.2fx (%s)\n", wsi, nsi, wwsi, nwsi
	printf "worst bottlenecks / info:      %.2fx (%s)\n", wbi, nbi
	printf "worst xplane summarize / walk: %.2fx (%s), by wall %.2fx (%s)\n", wsf, nsf, wwsf, nwsf
	printf "worst xplane peak RSS / file:  %.2fx (%s)\n", wr, nr
}'
