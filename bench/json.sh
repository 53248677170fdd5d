#!/bin/sh
# Throughput and peak memory of the JSON reader.
#   bench/json.sh BUILD_DIR [SIZE_MB]     (default 1024)
# Generates a Kineto-style trace with bench/gen_kineto.py (kept in $TMPDIR
# between runs), then reports MB/s and peak RSS of ingest alone (bench/ingest:
# reader and finalize, as the CLI runs them) and of `tracectl summarize`, next
# to two no-op parses of the same bytes: yajl with empty callbacks
# (bench/yajl_noop, the common streaming-parser baseline) and tracectl's own
# tokeniser with the tokens dropped (bench/json_lex_noop, the parse ingest
# actually runs). lex-dedup is that parse with strings deduplicated: the
# whole share of ingest's tokenising thread, a floor for ingest's time.
# Needs GNU time (/usr/bin/time -v; apt-get install -y time).
set -eu
build=${1:?usage: bench/json.sh BUILD_DIR [SIZE_MB]}
size=${2:-1024}
here=$(cd "$(dirname "$0")" && pwd)
tmp=${TMPDIR:-/tmp}
trace=$tmp/tracectl-bench-kineto-$size.json
[ -f "$trace" ] || python3 "$here/gen_kineto.py" "$trace" "$size"
bytes=$(stat -c %s "$trace")
cat "$trace" >/dev/null # warm the page cache for both runs

measure() { # label command...
	label=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$tmp/tracectl-bench.time" || {
		cat "$tmp/tracectl-bench.time" >&2
		exit 1
	}
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' \
		"$tmp/tracectl-bench.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/tracectl-bench.time")
	awk -v l="$label" -v b="$bytes" -v s="$secs" -v r="$rss" 'BEGIN {
		printf "%-22s %8.2f s  %8.1f MB/s  peak RSS %8.1f MiB (%.2f x input)\n",
			l, s, b / 1e6 / s, r / 1024, r * 1024 / b }'
	echo "$secs" >"$tmp/tracectl-bench.$label"
}

echo "input: $trace ($(awk -v b="$bytes" 'BEGIN {printf "%.1f MB", b / 1e6}'))"
if [ ! -x "$build/bench/yajl_noop" ]; then
	echo "json.sh: $build/bench/yajl_noop missing (apt-get install -y libyajl-dev, then rebuild)" >&2
	exit 2
fi
measure yajl-noop "$build/bench/yajl_noop" "$trace"
measure lex-noop "$build/bench/json_lex_noop" "$trace"
measure lex-dedup "$build/bench/json_lex_noop" --dedup "$trace"
measure ingest "$build/bench/ingest" "$trace"
"$build/bench/ingest" "$trace" | sed 's/^/  ingest, in process: /'
measure summarize "$build/src/tracectl" summarize "$trace"
for l in ingest summarize; do
	awk -v a="$(cat "$tmp/tracectl-bench.yajl-noop")" -v c="$(cat "$tmp/tracectl-bench.lex-noop")" \
		-v b="$(cat "$tmp/tracectl-bench.$l")" -v l="$l" 'BEGIN {
		printf "%s runs at %.0f %% of the yajl no-op parse speed, %.0f %% of the tokeniser alone\n",
			l, 100 * a / b, 100 * c / b }'
done
