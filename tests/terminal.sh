#!/bin/sh
# How text reports meet a terminal (tests/terminal.sh PART):
#   width     under COLUMNS=80 and 120 no line of summarize, ops, bottlenecks,
#             steps or info is longer than the width (a fixture, and a real
#             trace with long Eigen names when $TC_TRACES has it)
#   color     colour escapes under a pseudo-terminal (script(1)), none with
#             NO_COLOR=1 there, none in a pipe, in a file or in JSON, and
#             --color=always forces them into a pipe
#   progress  the progress line on a terminal stderr for a big generated
#             Kineto trace (TRACECTL_PROGRESS_DELAY_MS=0), never in a pipe
# A part that cannot run (no script(1), no python3) exits 77 saying why.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
part=${1:?usage: terminal.sh width|color|progress}
unset COLUMNS NO_COLOR TRACECTL_PROGRESS_DELAY_MS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
fixture=$SRC/fixtures/real/torch_mlp.kineto.json.gz
esc=$(printf '\033')

case $part in
width)
	inputs=$fixture
	eigen=$TRACES/xplane/xprof-tf_gpu_multiworker.xplane.pb
	[ -f "$eigen" ] && inputs="$inputs $eigen"
	for input in $inputs; do
		for w in 80 120; do
			for cmd in summarize ops bottlenecks steps info; do
				COLUMNS=$w "$TC" $cmd "$input" >"$tmp/out" || bad "$cmd exit $?"
				long=$(awk -v w=$w 'length($0) > w { n++ } END { print n + 0 }' "$tmp/out")
				[ "$long" = 0 ] || bad "$cmd $(basename "$input") at $w: $long lines longer"
			done
		done
	done
	;;
color)
	command -v script >/dev/null 2>&1 || { echo "terminal: SKIP (no script(1))"; exit 77; }
	run_tty() {
		script -qec "$1" /dev/null </dev/null >"$tmp/out" 2>&1
	}
	run_tty "'$TC' ops --top 3 '$fixture'"
	grep -q "$esc\[" "$tmp/out" || bad "no colour on a terminal"
	run_tty "NO_COLOR=1 '$TC' ops --top 3 '$fixture'"
	grep -q "$esc\[" "$tmp/out" && bad "colour on a terminal with NO_COLOR=1"
	run_tty "NO_COLOR=1 '$TC' ops --color=always --top 3 '$fixture'"
	grep -q "$esc\[" "$tmp/out" || bad "no colour with NO_COLOR=1 and --color=always"
	run_tty "'$TC' ops --json --top 3 '$fixture'"
	grep -q "$esc\[" "$tmp/out" && bad "colour in JSON on a terminal"
	run_tty "'$TC' ops --color=never --top 3 '$fixture'"
	grep -q "$esc\[" "$tmp/out" && bad "colour with --color=never"
	"$TC" bottlenecks "$fixture" >"$tmp/out"
	grep -q "$esc" "$tmp/out" && bad "colour in a pipe"
	"$TC" bottlenecks --color=always "$fixture" >"$tmp/out"
	grep -q "$esc\[" "$tmp/out" || bad "no colour in a pipe with --color=always"
	"$TC" bottlenecks --color=always -o "$tmp/file" "$fixture"
	grep -q "$esc" "$tmp/file" && bad "colour in a file with --color=always"
	"$TC" summarize --json --color=always "$fixture" >"$tmp/out"
	grep -q "$esc" "$tmp/out" && bad "colour in JSON with --color=always"
	;;
progress)
	command -v script >/dev/null 2>&1 || { echo "terminal: SKIP (no script(1))"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "terminal: SKIP (no python3)"; exit 77; }
	python3 "$SRC/bench/gen_kineto.py" "$tmp/big.json" 16 >/dev/null 2>&1 ||
		{ echo "FAIL: bench/gen_kineto.py"; exit 1; }
	script -qec "TRACECTL_PROGRESS_DELAY_MS=0 '$TC' info --threads 1 '$tmp/big.json' >/dev/null" \
		/dev/null </dev/null >"$tmp/tty" 2>&1
	grep -q 'tracectl: reading .* of .* MiB (.* %)' "$tmp/tty" || bad "no progress on a terminal"
	# Cleared when done: the last thing on the line is the erase.
	tail -c 4 "$tmp/tty" | grep -q "$esc\[K" || bad "progress line not cleared"
	TRACECTL_PROGRESS_DELAY_MS=0 "$TC" info --threads 1 "$tmp/big.json" >/dev/null 2>"$tmp/err"
	[ -s "$tmp/err" ] && bad "progress in a pipe: $(cat "$tmp/err")"
	# The default delay keeps a short read quiet even on a terminal.
	script -qec "'$TC' info '$fixture' >/dev/null" /dev/null </dev/null >"$tmp/tty" 2>&1
	grep -q 'reading' "$tmp/tty" && bad "progress for a short read"
	;;
*)
	echo "usage: terminal.sh width|color|progress" >&2
	exit 2
	;;
esac
[ $fail = 0 ] && echo "terminal $part: ok"
exit $fail
