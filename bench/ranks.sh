#!/bin/sh
# Benchmark a multi-rank job and digests (bench/README.md, "Digests"):
#   - `summarize` on a folder of RANKS generated ranks (bench/gen_ranks.py,
#     STEPS steps each; the defaults make 64 ranks of about 64 MB, 4 GB in
#     all) against `summarize` on one rank file: wall, CPU, peak RSS;
#   - `digest` of a 200 MB Kineto trace (bench/gen_kineto.py): digest size;
#   - `merge` of 1,024 digests (bench/digest_copies.py).
#
#   bench/ranks.sh [BUILD_DIR]   (RANKS=64 STEPS=32000 by default)
#
# Generated files go to ${TMPDIR:-/tmp}/tc-ranks-bench and are deleted at
# exit; the script checks that the disk has room first (about twice the
# folder's size). Needs python3 and /usr/bin/time (GNU time).
set -eu
build=${1:-build}
ranks=${RANKS:-64}
steps=${STEPS:-32000}
tc=$PWD/$build/src/tracectl
dir=${TMPDIR:-/tmp}/tc-ranks-bench
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: $TIME not found (apt-get install -y time)" >&2; exit 1; }
ninja -C "$build" src/tracectl >/dev/null
# About 2 KB per rank and step, twice over for safety.
need_kb=$((ranks * steps * 4))
free_kb=$(df -Pk "${TMPDIR:-/tmp}" | awk 'NR == 2 { print $4 }')
[ "$free_kb" -gt "$need_kb" ] ||
	{ echo "bench: ${TMPDIR:-/tmp} has $free_kb KiB free, needs $need_kb" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

# label, command...: wall, user + system CPU and peak RSS of one run.
measure() {
	label=$1
	shift
	"$TIME" -f "%e %U %S %M" -o "$dir/time" "$@" >/dev/null
	read -r wall user sys rss <"$dir/time"
	printf '%-28s wall %7.2f s  CPU %7.2f s  peak RSS %8d KiB\n' "$label" "$wall" \
		"$(echo "$user + $sys" | bc)" "$rss"
	echo "$rss" >"$dir/rss.$label"
}

echo "generating $ranks ranks of $steps steps in $dir/job"
python3 bench/gen_ranks.py "$dir/job" --ranks "$ranks" --steps "$steps" \
	--slow-rank 3 --slow-step 5 >/dev/null
echo "job: $(du -sb "$dir/job" | cut -f1) bytes in $(find "$dir/job" -type f | wc -l) files"
cat "$dir/job"/* >/dev/null
measure folder "$tc" summarize "$dir/job"
measure one-rank "$tc" summarize "$dir/job/rank_0.pt.trace.json"
echo "peak RSS folder / one rank: $(echo "scale=2; $(cat "$dir/rss.folder") / \
$(cat "$dir/rss.one-rank")" | bc)"
rm -rf "$dir/job"

python3 bench/gen_kineto.py "$dir/big.json" 200 >/dev/null
measure digest-200MB "$tc" digest -o "$dir/big.tcd" "$dir/big.json"
t=$(stat -c %s "$dir/big.json")
d=$(stat -c %s "$dir/big.tcd")
echo "digest: $d of $t bytes ($(echo "scale=3; 100 * $d / $t" | bc) %)"
rm -f "$dir/big.json"

# Copies are made of the plain message, then compressed as digest writes
# them (with zstd(1) where present).
"$tc" digest --no-compress -o "$dir/mlp.tcd" fixtures/real/torch_mlp.kineto.json.gz
mkdir "$dir/copies"
python3 bench/digest_copies.py "$dir/mlp.tcd" "$dir/copies" 1024
if command -v zstd >/dev/null 2>&1; then
	zstd -q -3 --rm "$dir/copies"/*.tcd && for f in "$dir/copies"/*.zst; do mv "$f" "${f%.zst}"; done
fi
echo "copies: $(du -cb "$dir/copies"/*.tcd | tail -1 | cut -f1) bytes"
for i in 1 2 3; do
	(cd "$dir/copies" && measure "merge-1024 ($i)" "$tc" merge -o "$dir/job.tcd" ./rank*.tcd)
done
