#!/usr/bin/env bash
# Long fuzzing runs on demand, one target at a time (the corpus in
# build-fuzz/corpus/ grows across runs; crashes go to build-fuzz/crashes/).
#   bench/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]
# Default: 600 s for each target. Prints executions per target; exits 1 if
# any target found a crash.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_ingest_xplane fuzz_ingest_perfetto fuzz_ingest_json fuzz_ingest_nsys \
	fuzz_gzip fuzz_pbwire fuzz_folder fuzz_digest fuzz_digest_fields)
status=0
for t in "${targets[@]}"; do
	./tests/fuzz/run.sh "$t" "$secs" || status=1
done
exit $status
