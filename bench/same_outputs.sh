#!/bin/sh
# Check that two tracectl builds write the same outputs: before and after a
# speed change, whose outputs must not move by a byte.
#
#   bench/same_outputs.sh OLD_TRACECTL NEW_TRACECTL [PATH...]
#
# PATH: trace files or folders (default: every file under ../shared/traces,
# then each of its folders read whole). For each input and each of
# `summarize --json`, `ops --json`, `bottlenecks --json` and `digest`, the
# two builds' stdout, stderr and exit status are compared. Prints the
# inputs that differ; exits 1 if any did.
set -eu
old=${1:?usage: same_outputs.sh OLD NEW [PATH...]}
new=${2:?usage: same_outputs.sh OLD NEW [PATH...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
	traces=${TRACES:-$here/../../shared/traces}
	set -- $(find "$traces" -type f ! -name '*.md' | sort) $(find "$traces" -mindepth 1 -type d | sort)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
n=0
for f in "$@"; do
	for cmd in "summarize --json" "ops --json" "bottlenecks --json" "digest --no-compress -o -"; do
		for b in old new; do
			eval "bin=\$$b"
			# shellcheck disable=SC2086
			rc=0
			"$bin" $cmd "$f" >"$tmp/$b.out" 2>"$tmp/$b.err" || rc=$?
			echo "$rc" >>"$tmp/$b.err"
		done
		n=$((n + 1))
		if ! cmp -s "$tmp/old.out" "$tmp/new.out" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
			echo "differs: $cmd $f"
			bad=1
		fi
	done
done
echo "$n runs compared"
exit $bad
