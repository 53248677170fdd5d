#!/bin/sh
# bench/shapes.sh end to end on small files (the figure of merit of issue
# 51 must keep running): one row per shape asked for, each with its
# ratios, and the four worst-ratio lines naming a shape of the matrix.
# Skips (77) without python3.
set -u
SRC=${TC_SOURCE_ROOT:?}
BUILD=${TC_BUILD_ROOT:?}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
shapes="base stats-strings kineto-light perfetto-plain"
if ! TMPDIR=$tmp SHAPES_BUILT=1 RUNS=2 SHAPES=$shapes TC_BIN=$TC_BIN \
		sh "$SRC/bench/shapes.sh" "$BUILD" 1 >"$tmp/out" 2>"$tmp/err"; then
	echo "FAIL: shapes.sh exited non-zero"
	cat "$tmp/err"
	exit 1
fi
cat "$tmp/out"
fail=0
for s in $shapes; do
	# name MB Mev | 4 times | 3 ratios | RSS | 2 wall ratios
	if ! grep -Eq "^$s +[0-9.]+ +[0-9.]+ \|( +[0-9]+\.[0-9]{3}){4} \|( +[0-9]+\.[0-9]{2}x){3} \| +[0-9]+\.[0-9]{2}x \|( +[0-9]+\.[0-9]{2}x){2}$" "$tmp/out"; then
		echo "FAIL: no well-formed row for $s"
		fail=1
	fi
done
for w in "summarize / info" "bottlenecks / info" "xplane summarize / walk" "xplane peak RSS / file"; do
	if ! grep -Eq "^worst $w: +[0-9]+\.[0-9]{2}x \(($(echo "$shapes" | tr ' ' '|'))\)" "$tmp/out"; then
		echo "FAIL: no worst line for $w"
		fail=1
	fi
done
# The generated files are kept where TMPDIR says, for the next run.
for f in base-1.xplane.pb stats-strings-1.xplane.pb kineto-light-1.json perfetto-plain-1.pftrace; do
	[ -s "$tmp/tracectl-shapes/$f" ] || { echo "FAIL: no $f under TMPDIR"; fail=1; }
done
exit $fail
