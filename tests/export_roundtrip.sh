#!/bin/sh
# Round trips of `tracectl export`; $1 picks the format and the checks:
#   chrome (the default): every real trace in $TC_TRACES (xplane/, perfetto/,
#     json/; the damaged files in bad/ are skipped) is
#     1. exported (plain, and gzip for one in three files),
#     2. validated with an independent parser (python3's json with NaN and
#        duplicate keys refused) and Trace Event Format rules,
#     3. re-read, comparing op statistics with the original's (`summarize
#        --json`): calls equal per op name, total time within 1 ns per call,
#     4. and the memory by op (`memory --json`, the allocator records):
#        equal but for the device names and pids the export renames;
#   also over the fixtures with allocator records (without the traces folder
#   only those).
#   perfetto: the same over the project fixtures of every format and the
#     real traces when present, re-read by the Perfetto reader; event
#     counts (summarize), counter samples and flows (info) must be equal too.
#     Perfetto times are whole ns, which the 1 ns per call allows.
#   perfetto-decode: every Perfetto export (some with --annotate or a cut)
#     read whole by protoc --decode=perfetto.protos.Trace with the project's
#     schema: no error, no field the schema does not name.
# Skips (exit 77) when what a mode needs is absent: the traces folder
# python3 (chrome, perfetto), protoc (perfetto-decode), a JSON
# reader in this build (chrome).
set -u
MODE=${1:-chrome}
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
BUILD=${TC_BUILD_ROOT:-}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
NSYS=${TC_NSYS:-$SRC/../shared/nsys}
CHECK="$SRC/tests/export_check.py"
SCHEMA="$SRC/proto/perfetto_trace_min.proto"
me="export_roundtrip $MODE"
skip_if() { # CONDITION-FAILED REASON
	if [ "$1" = 1 ]; then
		echo "$me: SKIP ($2)"
		exit 77
	fi
}
has() { command -v "$1" >/dev/null 2>&1 && echo 0 || echo 1; }
case $MODE in
chrome) skip_if "$(has python3)" "no python3" ;;
perfetto) skip_if "$(has python3)" "no python3" ;;
perfetto-decode) skip_if "$(has protoc)" "no protoc" ;;
*)
	echo "usage: export_roundtrip.sh [chrome|perfetto|perfetto-decode]" >&2
	exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$MODE" = chrome ]; then
	printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]}' \
		>"$tmp/probe.json"
	"$TC" summarize "$tmp/probe.json" >/dev/null 2>&1 && absent=0 || absent=1
	skip_if "$absent" "this build cannot read JSON traces"
fi
list() {
	if [ "$MODE" != chrome ]; then
		find "$SRC/fixtures" ${BUILD:+"$BUILD/fixtures"} -type f \( -name '*.json' \
			-o -name '*.pb' -o -name '*.pb.gz' \) ! -name 'truncated.json' \
			2>/dev/null | sort
	else
		# The fixtures with allocator records (Kineto [memory], nsys).
		ls "$SRC"/fixtures/json/memory_*.json
	fi
	# Allocator records that draw their own curve (docs/analysis.md, "Memory").
	echo "$SRC/fixtures/nsys/gpu_memory.sqlite"
	# Nsight Systems exports: the fixture, and ../shared/nsys beside the traces.
	echo "$SRC/fixtures/nsys/torch_steps.sqlite"
	[ -d "$NSYS" ] && find "$NSYS" -type f -name '*.sqlite' | sort
	if [ -d "$TRACES" ]; then
		find "$TRACES/xplane" "$TRACES/perfetto" "$TRACES/json" -type f \
			! -path '*/bad/*' ! -name '*.textproto' ! -name '*.md' 2>/dev/null | sort
	else
		echo "$me: no traces folder $TRACES: fixtures only" >&2
	fi
}
# Counter samples and flows, from info's events line.
counts() {
	"$TC" info "$1" 2>/dev/null |
		sed -n 's/.*(\([0-9,]*\) samples), \([0-9,]*\) flows.*/\1 \2/p'
}
# The counts an export of $1 should have: $1's, its samples with the
# points of the curves its allocator records draw where a device has no
# memory.allocated counter, which the export writes as counters
# (docs/export.md); $tmp/a.json is $1's summary. No thousands separators.
counts_expected() {
	c=$(counts "$1" | tr -d ,)
	if "$TC" memory --json "$1" >"$tmp/ma.json" 2>/dev/null; then
		extra=$(python3 "$CHECK" curve_points "$tmp/a.json" "$tmp/ma.json")
		c=$(echo "$c" | awk -v x="$extra" '{ print $1 + x, $2 }')
	fi
	echo "$c"
}
# protoc reads $1 whole with the schema, naming every field.
decode() {
	if ! protoc --proto_path="$SRC/proto" --decode=perfetto.protos.Trace "$SCHEMA" \
			<"$1" >"$tmp/text" 2>"$tmp/err"; then
		echo "protoc cannot decode the export: $(head -1 "$tmp/err")"
	elif grep -qE '^ *[0-9]+[:{ ]' "$tmp/text"; then
		echo "fields the schema does not name:"
		grep -E '^ *[0-9]+[:{ ]' "$tmp/text" | sort | uniq -c | head -5
	elif ! grep -q '^packet {' "$tmp/text"; then
		echo "no packet decoded"
	fi
}
# The export $1 of $2 has the same memory by op (allocator records).
memory_same() {
	if ! "$TC" memory --json "$2" >"$tmp/ma.json" 2>"$tmp/err" ||
			! "$TC" memory --json "$1" >"$tmp/mb.json" 2>"$tmp/err"; then
		echo "tracectl memory fails: $(head -1 "$tmp/err")"
	elif ! python3 "$CHECK" memory "$tmp/ma.json" "$tmp/mb.json" >"$tmp/cmp" 2>&1; then
		echo "memory by op differs after the round trip:"
		sed 's/^/    /' "$tmp/cmp" | head -10
	fi
}
# Check the export $1 of $2; prints what is wrong, nothing when fine.
check() {
	case $MODE in
	chrome)
		if ! python3 "$CHECK" validate "$1" >"$tmp/val" 2>&1; then
			echo "export is not valid:"
			sed 's/^/    /' "$tmp/val" | head -10
			return
		fi ;;
	perfetto-decode)
		decode "$1"
		return ;;
	esac
	if ! "$TC" summarize --json --top 1000000 "$1" >"$tmp/b.json" 2>"$tmp/err"; then
		echo "tracectl cannot re-read its export: $(head -1 "$tmp/err")"
		return
	fi
	[ "$MODE" = perfetto ] && events=--events || events=
	if ! python3 "$CHECK" compare ${events:+"$events"} "$tmp/a.json" "$tmp/b.json" >"$tmp/cmp" 2>&1; then
		echo "op statistics differ after the round trip:"
		sed 's/^/    /' "$tmp/cmp" | head -10
	elif [ "$MODE" = perfetto ] && [ "$(counts "$2")" != "$(counts "$1")" ] &&
			[ "$(counts_expected "$2")" != "$(counts "$1" | tr -d ,)" ]; then
		echo "samples and flows '$(counts_expected "$2")' became '$(counts "$1")'"
	elif [ "$MODE" = chrome ]; then
		memory_same "$1" "$2"
	fi
}
pass=0 fail=0 n=0
for f in $(list); do
	name=$(echo "$f" | sed "s|^$TRACES/||; s|^$SRC/||; s|^${BUILD:-/nonexistent}/||" |
		tr '/' '_')
	n=$((n + 1))
	# Every input outside bad/ reads: one that does not (an unrecognised
	# format included) is a failure, never a skip.
	if ! "$TC" summarize --json --top 1000000 "$f" >"$tmp/a.json" 2>"$tmp/err"; then
		echo "FAIL $name: the original does not read: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	case $MODE in
	chrome) set -- --chrome; out="$tmp/$name.export.json" ;;
	*) set -- --perfetto; out="$tmp/$name.pftrace" ;;
	esac
	if [ "$MODE" = perfetto-decode ]; then
		# Every third with the bottleneck annotations, every fifth cut.
		[ $((n % 3)) = 0 ] && set -- "$@" --annotate
		[ $((n % 5)) = 0 ] && set -- "$@" --max-events 200
	elif [ $((n % 3)) = 0 ]; then
		out="$out.gz"
	fi
	if ! "$TC" export "$@" "$f" -o "$out" 2>"$tmp/err"; then
		echo "FAIL $name: export failed: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	check "$out" "$f" >"$tmp/why"
	if [ -s "$tmp/why" ]; then
		echo "FAIL $name: $(cat "$tmp/why")"
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + 1))
	rm -f "$out"
done
echo "$me: $pass passed, $fail failed"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
