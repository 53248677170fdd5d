#!/bin/sh
# A digest's memory is bounded by its known content (docs/digest.md,
# "Memory"): a small digest padded with an unknown field of 96 MiB, gzip'd
# or zstd'd (a few hundred KB on disk), is read and merged in a few MB;
# padding inside a rank is held once at most. Peak RSS by /usr/bin/time;
# skipped (77) without it or python3. Before: summarize held the padding
# twice and merge of four held it eight times.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
for p in python3 /usr/bin/time gzip; do
	if ! command -v $p >/dev/null 2>&1; then
		echo "digest_memory: SKIP (no $p)"
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
pad=$((96 << 20))
# The peak RSS of a command in MiB (its output dropped); exit status kept.
rss() {
	/usr/bin/time -f '%M' -o rss.txt "$@" >/dev/null
	rc=$?
	echo $(($(tail -1 rss.txt) / 1024))
	return $rc
}
# Under ASan the shadow adds tens of MB to every run, and its quarantine
# keeps the buffers a growing rank left behind.
slack=48 held=96
[ -n "${TC_SANITIZED:-}" ] && slack=160 held=$((3 * 96))
check() { # what limit_mib command...
	what=$1 limit=$2
	shift 2
	got=$(rss "$@")
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $what: exit $rc"
		fail=1
	elif [ "$got" -gt "$limit" ]; then
		echo "FAIL $what: $got MiB, over $limit MiB"
		fail=1
	else
		echo "ok $what: $got MiB (limit $limit)"
	fi
}
"$TC" digest --no-compress -o r.tcd "$SRC/fixtures/real/torch_mlp.kineto.json.gz" || exit 1
for i in 0 1 2 3; do
	python3 "$SRC/tests/tools/pb_set.py" r.tcd "r$i.tcd" "3.1=s:rank $i" "3.2=$i" 50=pad:$pad &&
		gzip -c "r$i.tcd" >"r$i.tcd.gz" && rm "r$i.tcd" || exit 1
done
python3 "$SRC/tests/tools/pb_set.py" r.tcd inrank.tcd 3.99=pad:$pad && gzip -f inrank.tcd || exit 1
check "summarize, padded at the top" $slack "$TC" summarize r0.tcd.gz
check "merge of four, padded at the top" $slack "$TC" merge -o m.tcd r0.tcd.gz r1.tcd.gz \
	r2.tcd.gz r3.tcd.gz
check "summarize of the merge" $slack "$TC" summarize m.tcd
check "summarize, padded in a rank" $((held + slack)) "$TC" summarize inrank.tcd.gz
check "merge, padded in a rank" $((held + slack)) "$TC" merge -o m2.tcd inrank.tcd.gz
if command -v zstd >/dev/null 2>&1; then
	gzip -dc r0.tcd.gz | zstd -q -c >r0.tcd.zst || exit 1
	check "summarize, zstd" $slack "$TC" summarize r0.tcd.zst
fi
# Still the digest it pads, and a merge writes no padding.
"$TC" summarize r.tcd >want.txt && "$TC" summarize inrank.tcd.gz >got.txt &&
	cmp -s want.txt got.txt || { echo "FAIL the padded digest reads differently"; fail=1; }
[ "$(wc -c <m2.tcd)" -lt 1048576 ] || { echo "FAIL merge wrote the padding"; fail=1; }
exit $fail
