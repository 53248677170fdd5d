#!/bin/sh
# The shape matrix: speed and memory of the readers and the analysis on
# traces of many shapes, and the worst ratio of each column as the figure.
#
#   bench/shapes.sh [BUILD] [SIZE_MB]   (defaults: build, 200)
#
# RUNS (3): rounds; each runs the floor, info, summarize and bottlenecks
# once, interleaved.
# SHAPES: names of the shapes to run (all by default), e.g. "base issue".
# TC_BIN: the tracectl to time (default BUILD/src/tracectl), to compare
# two builds on the same files. SHAPES_BUILT=1: the helpers are built
# already (the test that runs this does not call ninja inside meson test).
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
# CPU seconds (user + system, the least of RUNS: the host is shared);
# summarize / info, summarize / floor and bottlenecks / info by CPU; the
# larger peak RSS of summarize and bottlenecks (over all runs) as a
# multiple of the file; then summarize / info and / floor by wall time.
# Each ratio is the median over the rounds of the ratio within a round:
# a ratio of two least times mixes two moments of a noisy host. Needs
# python3.
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

# The four commands on one file in RUNS rounds, each round running them
# once in a rotated order, so a slow stretch of the host falls on all of
# them. Prints per command the least CPU time (user + system, to the
# microsecond) and the peak RSS in KiB, then the five ratios (median of
# the in-round ratios): summarize / info, summarize / floor and
# bottlenecks / info by CPU, summarize / info and / floor by wall.
measure() { # floor-command file tracectl
	python3 - "$RUNS" "$@" <<'PY'
import os, subprocess, sys, time
runs, floor, f, tc = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = [[floor, f], [tc, "info", f], [tc, "summarize", f], [tc, "bottlenecks", f]]
cpu = [[] for _ in cmds]
wall = [[] for _ in cmds]
rss = [0] * len(cmds)
for r in range(runs):
    for k in range(len(cmds)):
        i = (k + r) % len(cmds)
        t = time.monotonic()
        p = subprocess.Popen(cmds[i], stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall[i].append(time.monotonic() - t)
        if status:
            sys.exit("shapes: failed: %s" % " ".join(cmds[i]))
        cpu[i].append(ru.ru_utime + ru.ru_stime)
        rss[i] = max(rss[i], ru.ru_maxrss)
def med(a, b):
    q = sorted(x / max(y, 1e-4) for x, y in zip(a, b))
    n = len(q)
    return q[n // 2] if n % 2 else (q[n // 2 - 1] + q[n // 2]) / 2
out = []
for i in range(len(cmds)):
    out += ["%.4f" % min(cpu[i]), "%d" % rss[i]]
out += ["%.4f" % v for v in (med(cpu[2], cpu[1]), med(cpu[2], cpu[0]), med(cpu[3], cpu[1]),
    med(wall[2], wall[1]), med(wall[2], wall[0]))]
print(" ".join(out))
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

if [ -z "${SHAPES_BUILT:-}" ]; then
	ninja -C "$build" src/tracectl bench/wirewalk bench/json_lex_noop bench/perfetto_walk >/dev/null
fi
printf '%s, %s MB, RUNS=%s, %s, %s; times: CPU s, the least of RUNS; ratios: medians of in-round ratios\n' \
	"$(date -u +%Y-%m-%d)" "$size" "$RUNS" "$(uname -m)" "$(nproc) cpus"
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
	xplane) floor=$build/bench/wirewalk ;;
	json) floor=$build/bench/json_lex_noop ;;
	perfetto) floor=$build/bench/perfetto_walk ;;
	esac
	ev=$("$tc" info --json "$f" | sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -n 1)
	echo "$name $kind $bytes ${ev:-0} $(measure "$floor" "$f" "$tc")"
done | tee "$dir/last.txt" | awk '
{
	name = $1; kind = $2; mb = $3 / 1e6
	fl = $5; inf = $7; su = $9; bo = $11
	rss = ($10 > $12 ? $10 : $12) * 1024 / $3
	si = $13; sf = $14; bi = $15; wsi_ = $16; wsf_ = $17
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
