#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan+UBSan) and run one of them.
#   tests/fuzz/run.sh TARGET SECONDS [libFuzzer args...]
# TARGET: fuzz_ingest_xplane fuzz_ingest_perfetto fuzz_ingest_json fuzz_gzip
# fuzz_pbwire fuzz_folder fuzz_digest fuzz_digest_fields. Seeds come from fixtures/ and the real traces (TC_TRACES,
# default ../shared/traces) and are copied into build-fuzz/corpus/TARGET,
# which keeps growing across runs. Crashes land in build-fuzz/crashes/.
# Exit status: 0 no crash, 1 a crash/leak/timeout was found, 2 usage/build.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2; exit 2; }
target=$1 secs=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${TC_FUZZ_BUILD:-$root/build-fuzz}
traces=${TC_TRACES:-$root/../shared/traces}
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

# Seeds: files of the target's format, decompressed (a mutated gzip stream
# rarely inflates, so the parser would see nothing), at most 1 MiB each.
corpus=$build/corpus/$target
mkdir -p "$corpus" "$build/crashes"
seed() { # file
	local f=$1 name
	name=$(echo "$f" | sed 's|.*/||; s|[^A-Za-z0-9._-]|_|g')
	[ -e "$corpus/seed-$name" ] && return
	case $f in
	*.gz) gzip -dc "$f" 2>/dev/null | head -c 1048576 >"$corpus/seed-$name" ;;
	*) head -c 1048576 "$f" >"$corpus/seed-$name" ;;
	esac
}
seeds() { # dirs and patterns
	for d in "$root/fixtures" "$root/tests/malformed" "$traces" "$build/fixtures"; do
		[ -d "$d" ] || continue
		find "$d" -type f "$@" -size -8M 2>/dev/null
	done
}
dict=
case $target in
fuzz_ingest_xplane)
	dict=xplane.dict
	files=$(seeds \( -path '*xplane*' -name '*.pb' \)) ;;
fuzz_ingest_perfetto)
	dict=perfetto.dict
	files=$(seeds \( -path '*perfetto*' \( -name '*.pb' -o -name '*trace' \) \)) ;;
fuzz_ingest_json)
	dict=json.dict
	files=$(seeds \( -name '*.json' -o -name '*.json.gz' \)) ;;
fuzz_gzip)
	files=$(find "$traces" "$root/fixtures" -type f \( -name '*.gz' -o -name '*compressed*' \) -size -1024k 2>/dev/null) ;;
fuzz_pbwire)
	dict=perfetto.dict
	files=$(seeds \( -name '*.pb' -o -name '*trace' \)) ;;
fuzz_digest)
	# Digests the fuzz build's tracectl makes of fixtures: one rank, a job.
	files=
	tc=$build/src/tracectl
	"$tc" digest -o "$corpus/seed-mlp.tcd" "$root/fixtures/real/torch_mlp.kineto.json.gz" &&
		"$tc" digest -o "$corpus/seed-ddp.tcd" "$root/fixtures/real/torch_ddp_rank0.kineto.json.gz" \
			"$root/fixtures/real/torch_ddp_rank1.kineto.json.gz" >/dev/null ||
		{ echo "$0: cannot make digest seeds" >&2; exit 2; } ;;
fuzz_digest_fields)
	# Plain digests (its mutator unpacks them): one rank, the DDP job, and
	# a job of three numbered ranks with collectives.
	files=
	tc=$build/src/tracectl
	real=$root/fixtures/real
	"$tc" digest --no-compress -o "$corpus/seed-mlp.tcd" "$real/torch_mlp.kineto.json.gz" &&
		"$tc" digest --no-compress -o "$corpus/seed-ddp.tcd" "$real/torch_ddp_rank0.kineto.json.gz" \
			"$real/torch_ddp_rank1.kineto.json.gz" &&
		"$tc" digest --no-compress -o "$corpus/seed-jax.tcd" "$real/jax_mlp.xplane.pb.gz" \
			"$real/torch_sync.kineto.json.gz" >/dev/null ||
		{ echo "$0: cannot make digest seeds" >&2; exit 2; } ;;
fuzz_folder)
	# Its input is a list of steps that build a tree, not a trace; seed a few.
	files=
	printf '\000\000\000\001\013\000\002\001\200\003\003\001\003\004\000' >"$corpus/seed-loops"
	printf '\000\011\000\001\017\000\002\012\011\004\013\017' >"$corpus/seed-profile" ;;
*)
	echo "$0: unknown target '$target'" >&2
	exit 2 ;;
esac
for f in $files; do
	if [ "$target" = fuzz_gzip ]; then
		cp -n "$f" "$corpus/" 2>/dev/null
		# zstd seeds: the same content recompressed (zstd(1), when present).
		if command -v zstd >/dev/null && [ ! -e "$corpus/$(basename "$f").zst" ]; then
			gzip -dcf "$f" 2>/dev/null | head -c 262144 | zstd -q -c >"$corpus/$(basename "$f").zst"
		fi
	else
		seed "$f"
	fi
done
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
