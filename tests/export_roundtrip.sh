#!/bin/sh
# Round trip of `tracectl export --chrome` over every real trace in $TC_TRACES
# (xplane/, perfetto/, json/; the damaged files in bad/ are skipped):
#   1. export (plain, and gzip for one in three files),
#   2. validate the export with an independent parser (python3's json with
#      NaN and duplicate keys refused) and Trace Event Format rules,
#   3. re-read the export with tracectl and compare op statistics with the
#      original's (`summarize --json`): calls equal per op name, total time
#      within 1 ns per call.
# Skips (exit 77) when the traces folder or python3 is absent, or when this
# build has no JSON reader yet.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
CHECK="$SRC/tests/export_check.py"
if [ ! -d "$TRACES" ]; then
	echo "export_roundtrip: SKIP (no traces folder $TRACES)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "export_roundtrip: SKIP (no python3)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]}' >"$tmp/probe.json"
if ! "$TC" summarize "$tmp/probe.json" >/dev/null 2>&1; then
	echo "export_roundtrip: SKIP (this build cannot read JSON traces)"
	exit 77
fi
pass=0 fail=0 n=0
for f in $(find "$TRACES/xplane" "$TRACES/perfetto" "$TRACES/json" -type f \
		! -path '*/bad/*' ! -name '*.textproto' ! -name '*.md' 2>/dev/null | sort); do
	name=$(echo "${f#"$TRACES"/}" | tr '/' '_')
	n=$((n + 1))
	# Every trace outside bad/ reads: one that does not (an unrecognised
	# format included) is a failure, never a skip.
	if ! "$TC" summarize --json --top 1000000 "$f" >"$tmp/a.json" 2>"$tmp/err"; then
		echo "FAIL $name: the original does not read: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	out="$tmp/$name.export.json"
	[ $((n % 3)) = 0 ] && out="$out.gz"
	if ! "$TC" export --chrome "$f" -o "$out" 2>"$tmp/err"; then
		echo "FAIL $name: export failed: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	if ! python3 "$CHECK" validate "$out" >"$tmp/val" 2>&1; then
		echo "FAIL $name: export is not valid:"
		sed 's/^/    /' "$tmp/val" | head -10
		fail=$((fail + 1))
		continue
	fi
	if ! "$TC" summarize --json --top 1000000 "$out" >"$tmp/b.json" 2>"$tmp/err"; then
		echo "FAIL $name: tracectl cannot re-read its export: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	if ! python3 "$CHECK" compare "$tmp/a.json" "$tmp/b.json" >"$tmp/cmp" 2>&1; then
		echo "FAIL $name: op statistics differ after the round trip:"
		sed 's/^/    /' "$tmp/cmp" | head -10
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + 1))
	rm -f "$out"
done
echo "export_roundtrip: $pass passed, $fail failed"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
