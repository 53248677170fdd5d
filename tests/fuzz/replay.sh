#!/usr/bin/env bash
# Each fuzz target once over its seeds (tests/fuzz/seeds.sh), built with
# tests/fuzz/replay.c instead of libFuzzer: the fast tier's share of what
# the fuzz runs of `tests/run-all --full` test.
#   replay.sh BUILD TARGET...
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD TARGET..." >&2; exit 2; }
build=$1
shift
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for t in "$@"; do
	"$dir/seeds.sh" "$t" "$tmp/$t" "$build/src/tracectl" "$build" >/dev/null ||
		{ echo "FAIL $t: no seeds"; fail=1; continue; }
	n=$(ls "$tmp/$t" | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "FAIL $t: no seeds"
		fail=1
		continue
	fi
	# One input a process keeps a crash's input nameable; xargs batches.
	if ! (cd "$tmp/$t" && ls | xargs -d '\n' "$build/tests/replay_$t" >/dev/null); then
		echo "FAIL $t: a seed crashed or failed (seeds in $dir/seeds.sh)"
		fail=1
		continue
	fi
	echo "ok $t: $n seeds"
done
exit $fail
