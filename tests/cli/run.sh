#!/bin/sh
# Golden CLI tests. Each case is a folder tests/cli/<case>/ with:
#   cmd       one bash line, run with pipefail (a pipe keeps tracectl's exit);
#             $TC is the tracectl binary, $SRC the source root,
#             $TRACES the real-trace folder
#   exit      expected exit status (default 0)
#   stdout    expected standard output (exact), optional
#   stderr    expected standard error (exact), optional
#   needs     "traces": the case reads the real traces in $TRACES
# TC_CLI_PART picks the cases: "fixtures" (those without needs), "traces"
# (those with it; exit 77, a skip, when $TRACES is absent), unset: all
# (then the traces cases are counted as skipped when $TRACES is absent).
# TC_REGEN=1 rewrites stdout/stderr/exit from the current binary.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
export TC SRC TRACES
# The cases see no terminal settings from the caller's environment: a case
# that wants a width or colour sets it in its cmd.
unset COLUMNS NO_COLOR TRACECTL_PROGRESS_DELAY_MS
dir=$(cd "$(dirname "$0")" && pwd)
part=${TC_CLI_PART:-}
if [ "$part" = traces ] && [ ! -d "$TRACES" ]; then
	echo "cli: SKIP (no traces folder $TRACES)"
	exit 77
fi
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for case in "$dir"/*/; do
	name=$(basename "$case")
	[ -f "$case/cmd" ] || continue
	needs_traces=0
	[ -f "$case/needs" ] && grep -q traces "$case/needs" && needs_traces=1
	# A case that reads the real traces says so, or a clone without them fails.
	if [ $needs_traces = 0 ] && grep -q 'TRACES' "$case/cmd"; then
		echo "FAIL $name: reads \$TRACES without a needs file"
		fail=$((fail + 1))
		continue
	fi
	# Under pipefail a reader that stops early (head) kills the writer
	# with SIGPIPE, now and then: read the whole stream (sed -n 1,Np).
	if grep -qE '[|][[:space:]]*head[[:space:]]+(-n[[:space:]]*)?-?[0-9]' "$case/cmd"; then
		echo "FAIL $name: pipes into head; use sed -n 1,Np (pipefail)"
		fail=$((fail + 1))
		continue
	fi
	case $part:$needs_traces in
	fixtures:1|traces:0) continue ;;
	esac
	if [ $needs_traces = 1 ] && [ ! -d "$TRACES" ]; then
		skip=$((skip + 1))
		continue
	fi
	want_exit=0
	[ -f "$case/exit" ] && want_exit=$(cat "$case/exit")
	line=$(cat "$case/cmd")
	# pipefail: a case that pipes tracectl into grep or sed keeps its exit.
	(cd "$tmp" && bash -o pipefail -c "$line") >"$tmp/out" 2>"$tmp/err"
	got_exit=$?
	# A golden output that names the checkout passes here and fails in any
	# other clone: a case copies its inputs into the working folder instead.
	if grep -qF "$SRC/" "$tmp/out" "$tmp/err"; then
		echo "FAIL $name: output names the source root $SRC"
		fail=$((fail + 1))
		continue
	fi
	if [ "${TC_REGEN:-0}" = 1 ]; then
		echo "$got_exit" >"$case/exit"
		cp "$tmp/out" "$case/stdout"
		[ -s "$tmp/err" ] && cp "$tmp/err" "$case/stderr" || rm -f "$case/stderr"
		continue
	fi
	ok=1
	if [ "$got_exit" != "$want_exit" ]; then
		echo "FAIL $name: exit $got_exit, want $want_exit"
		ok=0
	fi
	if [ -f "$case/stdout" ] && ! cmp -s "$case/stdout" "$tmp/out"; then
		echo "FAIL $name: stdout differs"
		diff -u "$case/stdout" "$tmp/out" | head -40
		ok=0
	fi
	if [ -f "$case/stderr" ] && ! cmp -s "$case/stderr" "$tmp/err"; then
		echo "FAIL $name: stderr differs"
		diff -u "$case/stderr" "$tmp/err" | head -20
		ok=0
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "cli${part:+ ($part)}: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
