#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan+UBSan) and run one of them.
#   tests/fuzz/run.sh TARGET SECONDS [libFuzzer args...]
# TARGET: fuzz_ingest_xplane fuzz_ingest_perfetto fuzz_ingest_json fuzz_gzip
# fuzz_ingest_nsys fuzz_pbwire fuzz_folder fuzz_digest fuzz_digest_fields. Seeds come from fixtures/ and the real traces (TC_TRACES,
# default ../shared/traces) and are copied into build-fuzz/corpus/TARGET,
# which keeps growing across runs. Crashes land in build-fuzz/crashes/.
# Exit status: 0 no crash, 1 a crash/leak/timeout was found, 2 usage/build.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2; exit 2; }
target=$1 secs=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${TC_FUZZ_BUILD:-$root/build-fuzz}
fuzzdir=$root/tests/fuzz

if ! command -v clang >/dev/null; then
	echo "$0: clang not found" >&2
	exit 2
fi
if [ ! -d "$build" ]; then
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=disabled -Dman-pages=disabled \
		-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
		"-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" >/dev/null ||
		{ echo "$0: meson setup failed" >&2; exit 2; }
fi
# Everything, so generated fixtures exist to seed from.
ninja -C "$build" >"$build/fuzz-build.log" 2>&1 ||
	{ cat "$build/fuzz-build.log" >&2; exit 2; }

corpus=$build/corpus/$target
mkdir -p "$build/crashes"
dict=$("$fuzzdir/seeds.sh" "$target" "$corpus" "$build/src/tracectl" "$build") || exit 2
# Inputs over 256 KiB run too slowly to mutate well (TC_FUZZ_MAX_LEN overrides).
args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="${TC_FUZZ_MAX_LEN:-262144}"
	-artifact_prefix="$build/crashes/$target-" -print_final_stats=1)
[ -n "$dict" ] && args+=(-dict="$fuzzdir/$dict")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
log=$build/$target.log
nice -n 10 "$build/tests/fuzz/$target" "${args[@]}" "$@" "$corpus" >"$log" 2>&1
rc=$?
# -a: the log holds raw inputs and may look binary; the last total wins.
execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
echo "$target: ${execs:-0} executions in ${secs}s, corpus $(ls "$corpus" | wc -l) files, exit $rc"
if [ $rc -ne 0 ]; then
	grep -E "ERROR|SUMMARY|runtime error|#[0-9]+ 0x" "$log" | head -30
	ls "$build/crashes/$target-"* 2>/dev/null | head -5
	exit 1
fi
