#!/usr/bin/env bash
# Fill a corpus folder with the seeds of one fuzz target: files of the
# target's format, decompressed (a mutated gzip stream rarely inflates, so
# the parser would see nothing), at most 1 MiB each. Shared by run.sh (the
# libFuzzer runs) and replay.sh (each target once over its seeds).
#   seeds.sh TARGET CORPUS TRACECTL BUILD
# TRACECTL makes the digest seeds; BUILD holds the generated fixtures.
# Prints the dictionary the target uses (a file name in tests/fuzz/, or
# nothing). Exit 0, or 2 on an unknown target or when seeds cannot be made.
set -uo pipefail
[ $# -eq 4 ] || { echo "usage: $0 TARGET CORPUS TRACECTL BUILD" >&2; exit 2; }
target=$1 corpus=$2 tc=$3 build=$4
root=$(cd "$(dirname "$0")/../.." && pwd)
traces=${TC_TRACES:-$root/../shared/traces}
mkdir -p "$corpus"
seed() { # file
	local f=$1 name
	name=$(echo "$f" | sed 's|.*/||; s|[^A-Za-z0-9._-]|_|g')
	[ -e "$corpus/seed-$name" ] && return
	case $f in
	*.gz) gzip -dc "$f" 2>/dev/null | head -c 1048576 >"$corpus/seed-$name" ;;
	# A SQLite file cut short is only a damaged one: nsys seeds go whole.
	*.sqlite) cat "$f" >"$corpus/seed-$name" ;;
	*) head -c 1048576 "$f" >"$corpus/seed-$name" ;;
	esac
}
seeds() { # find predicates
	for d in "$root/fixtures" "$traces" "$build/fixtures"; do
		[ -d "$d" ] || continue
		find "$d" -type f "$@" -size -8M 2>/dev/null
	done
}
dict=
case $target in
fuzz_ingest_xplane)
	dict=xplane.dict
	files=$(seeds \( -path '*xplane*' \( -name '*.pb' -o -name '*.pb.gz' \) \)) ;;
fuzz_ingest_perfetto)
	dict=perfetto.dict
	files=$(seeds \( -path '*perfetto*' \( -name '*.pb' -o -name '*trace' \) \)) ;;
fuzz_ingest_json)
	dict=json.dict
	files=$(seeds \( -name '*.json' -o -name '*.json.gz' \)) ;;
fuzz_ingest_nsys)
	# SQLite exports: the fixtures, and ../shared/nsys beside the traces
	# (read whole: the reader takes them as in-memory images).
	dict=nsys.dict
	files="$(seeds -name '*.sqlite') $(find "$traces/../nsys" -name '*.sqlite' -size -4M \
		2>/dev/null)" ;;
fuzz_gzip)
	files=$(find "$traces" "$root/fixtures" -type f \( -name '*.gz' -o -name '*compressed*' \) \
		-size -1024k 2>/dev/null) ;;
fuzz_pbwire)
	dict=perfetto.dict
	files=$(seeds \( -name '*.pb' -o -name '*trace' \)) ;;
fuzz_digest)
	# Digests that tracectl makes of fixtures (one rank, a job) and those an
	# older build wrote (fixtures/digest).
	files=$(seeds -name '*.tcd')
	"$tc" digest -o "$corpus/seed-mlp.tcd" -- "$root/fixtures/real/torch_mlp.kineto.json.gz" &&
		"$tc" digest -o "$corpus/seed-ddp.tcd" -- "$root/fixtures/real/torch_ddp_rank0.kineto.json.gz" \
			"$root/fixtures/real/torch_ddp_rank1.kineto.json.gz" >/dev/null ||
		{ echo "$0: cannot make digest seeds" >&2; exit 2; } ;;
fuzz_digest_fields)
	# Plain digests (its mutator unpacks them): one rank, the DDP job, and
	# a job of three numbered ranks with collectives.
	files=
	real=$root/fixtures/real
	"$tc" digest --no-compress -o "$corpus/seed-mlp.tcd" -- "$real/torch_mlp.kineto.json.gz" &&
		"$tc" digest --no-compress -o "$corpus/seed-ddp.tcd" -- "$real/torch_ddp_rank0.kineto.json.gz" \
			"$real/torch_ddp_rank1.kineto.json.gz" &&
		"$tc" digest --no-compress -o "$corpus/seed-jax.tcd" -- "$real/jax_mlp.xplane.pb.gz" \
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
# Inputs that once crashed or hung the target stay among its seeds, so the
# replay test runs them in every build.
if [ -d "$root/tests/fuzz/regress/$target" ]; then
	cp "$root/tests/fuzz/regress/$target"/* "$corpus/"
fi
echo "$dict"
