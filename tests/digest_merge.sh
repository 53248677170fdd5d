#!/bin/sh
# Digests (docs/digest.md):
#  - merging 8 rank digests in several orders and groupings gives the same
#    bytes, and `digest` of the 8 traces at once gives them too;
#  - a rank merged twice is an error naming it;
#  - ops, steps, check, summarize and bottlenecks print from digests
#    exactly what they print from the traces, per rank and for the job
#    (from merged digests in several groupings, and from a mix of traces
#    and digests), and diff differs only in the input names; on
#    fixtures/real/torch_mlp, the DDP pair, 8 generated ranks, an 8-rank
#    generated xplane job with a straggler and (when ../shared/traces is
#    there) the HTA ranks;
#  - export refuses a digest (exit 2) naming the commands that read them.
# With the argument "traces": only a sweep of every real trace in
# ../shared/traces (TC_TRACES; skipped, 77, when absent): ops, steps,
# check, summarize and bottlenecks from its digest against the trace.
# Needs python3 to generate the ranks (tests/digest_ranks.py): skipped
# (77) without it.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
if ! command -v python3 >/dev/null 2>&1; then
	echo "digest_merge: SKIP (python3 is needed to generate the rank traces)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() {
	echo "FAIL $*"
	fail=1
}
if [ "${1:-}" = traces ]; then
	[ -d "$TRACES" ] || { echo "digest_traces: SKIP (no traces folder $TRACES)"; exit 77; }
	n=0
	for f in $(find "$TRACES" -type f ! -path '*/bad/*' \( -name '*.gz' -o -name '*.pb' \
			-o -name '*.json' -o -name '*.pftrace' \) | sort); do
		"$TC" digest -o d.tcd "$f" 2>err || { bad "digest $f: $(cat err)"; continue; }
		n=$((n + 1))
		for cmd in "ops --json" "steps --json" "check --json" "summarize --json" \
				"summarize --top 0" "bottlenecks --json" "bottlenecks" "memory --json"; do
			# shellcheck disable=SC2086
			"$TC" $cmd "$f" >t.out 2>&1
			rt=$?
			# shellcheck disable=SC2086
			"$TC" $cmd d.tcd >d.out 2>&1
			[ $rt = $? ] && cmp -s t.out d.out || bad "$cmd: $f and its digest differ"
		done
	done
	[ $fail = 0 ] && echo "digest_traces: ok ($n real traces: ops, steps, check, summarize, bottlenecks, memory the same from digests)"
	exit $fail
fi
python3 "$SRC/tests/digest_ranks.py" "$SRC/fixtures/real/torch_mlp.kineto.json.gz" ranks 8 ||
	{ echo "FAIL digest_ranks.py"; exit 1; }
for i in 0 1 2 3 4 5 6 7; do
	"$TC" digest -o "d$i.tcd" "ranks/rank$i.kineto.json" || bad "digest rank $i"
done

# ---- merging: order and grouping do not matter ----
"$TC" merge -o all.tcd d0.tcd d1.tcd d2.tcd d3.tcd d4.tcd d5.tcd d6.tcd d7.tcd || bad "merge"
"$TC" merge -o rev.tcd d7.tcd d6.tcd d5.tcd d4.tcd d3.tcd d2.tcd d1.tcd d0.tcd || bad "merge rev"
"$TC" merge -o mix.tcd d5.tcd d2.tcd d7.tcd d0.tcd d3.tcd d6.tcd d1.tcd d4.tcd || bad "merge mix"
"$TC" merge -o a.tcd d6.tcd d1.tcd d3.tcd && "$TC" merge -o b.tcd d0.tcd d7.tcd &&
	"$TC" merge -o c.tcd d5.tcd d2.tcd d4.tcd && "$TC" merge -o abc.tcd c.tcd a.tcd b.tcd ||
	bad "merge groups"
"$TC" merge -o p01.tcd d0.tcd d1.tcd && "$TC" merge -o p23.tcd d3.tcd d2.tcd &&
	"$TC" merge -o p45.tcd d4.tcd d5.tcd && "$TC" merge -o p67.tcd d7.tcd d6.tcd &&
	"$TC" merge -o q0.tcd p23.tcd p01.tcd && "$TC" merge -o q1.tcd p45.tcd p67.tcd &&
	"$TC" merge -o tree.tcd q1.tcd q0.tcd || bad "merge tree"
"$TC" merge -o left.tcd d0.tcd q1.tcd p23.tcd d1.tcd || bad "merge left"
"$TC" digest -o once.tcd ranks/rank3.kineto.json ranks/rank0.kineto.json \
	ranks/rank1.kineto.json ranks/rank2.kineto.json ranks/rank4.kineto.json \
	ranks/rank5.kineto.json ranks/rank6.kineto.json ranks/rank7.kineto.json || bad "digest all"
for f in rev mix abc tree left once; do
	cmp -s all.tcd "$f.tcd" || bad "merged bytes differ: all.tcd against $f.tcd"
done
"$TC" merge -o again.tcd all.tcd all.tcd >/dev/null 2>err
[ $? = 3 ] && grep -q "rank 0 is given twice" err || bad "a rank merged twice: $(cat err)"
"$TC" merge -o again.tcd d3.tcd p23.tcd >/dev/null 2>err
[ $? = 3 ] && grep -q "rank 3 is given twice (in 'd3.tcd' and 'p23.tcd')" err ||
	bad "rank 3 merged twice: $(cat err)"

# ---- what commands print from digests ----
# same CMD TRACES... -- DIGESTS...: the same stdout and exit status.
same() {
	cmd=$1
	shift
	traces=""
	while [ "$1" != -- ]; do
		traces="$traces $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$TC" $cmd $traces >t.out 2>t.err
	rt=$?
	# shellcheck disable=SC2086
	"$TC" $cmd "$@" >d.out 2>d.err
	rd=$?
	if [ $rt != $rd ] || ! cmp -s t.out d.out; then
		bad "$cmd: traces and digests differ ($traces against $*): exit $rt/$rd"
		diff t.out d.out | head -5
	fi
}
R="ranks/rank0.kineto.json ranks/rank1.kineto.json ranks/rank2.kineto.json
ranks/rank3.kineto.json ranks/rank4.kineto.json ranks/rank5.kineto.json
ranks/rank6.kineto.json ranks/rank7.kineto.json"
for cmd in "ops --json" "ops" "ops --by category --json" "ops --by kind" \
		"ops --by device --json" "check --json" "check"; do
	# shellcheck disable=SC2086
	same "$cmd" $R -- all.tcd
done
same "check --max step.mean=1ms --json" $R -- all.tcd
# The job: from the merged digest, from groupings of it, from a mix.
for cmd in "summarize --json" "summarize --top 0" "bottlenecks --json" "bottlenecks" \
		"steps --json" "steps"; do
	# shellcheck disable=SC2086
	same "$cmd" $R -- all.tcd
	# shellcheck disable=SC2086
	same "$cmd" $R -- q1.tcd p23.tcd d1.tcd d0.tcd
	# shellcheck disable=SC2086
	same "$cmd" $R -- d7.tcd ranks/rank6.kineto.json p45.tcd ranks/rank0.kineto.json \
		ranks/rank1.kineto.json d2.tcd d3.tcd
done
for i in 0 5; do
	for cmd in "steps --json" "steps" "ops --json" "check --json" "summarize" \
			"summarize --json --top 3" "bottlenecks --json" "bottlenecks --fail-on high"; do
		same "$cmd" "ranks/rank$i.kineto.json" -- "d$i.tcd"
	done
done
# diff: the same but for the inputs' names.
"$TC" diff --json ranks/rank0.kineto.json ranks/rank7.kineto.json |
	sed 's|ranks/rank\([0-9]\).kineto.json|IN\1|' >t.out
"$TC" diff --json d0.tcd d7.tcd | sed 's|d\([0-9]\).tcd|IN\1|' >d.out
cmp -s t.out d.out || { bad "diff from digests"; diff t.out d.out | head -5; }
# A mix of traces and digests: check and diff.
same "check --json" $R -- d0.tcd d1.tcd d2.tcd d3.tcd ranks/rank4.kineto.json \
	ranks/rank5.kineto.json d6.tcd d7.tcd
"$TC" diff ranks/rank0.kineto.json d7.tcd >/dev/null || bad "diff trace digest"

# Memory by op: digests keep it, merges in any order too; memory and
# check's memory.peak_by_op print from a rank's digest what they print
# from its trace.
ML=$SRC/fixtures/json/memory_leak.json
MP=$SRC/fixtures/json/memory_pressure.json
"$TC" digest -o ml.tcd "$ML" && "$TC" digest -o mp.tcd "$MP" &&
	"$TC" merge -o mem1.tcd mp.tcd d0.tcd ml.tcd && "$TC" merge -o mem2.tcd ml.tcd mp.tcd d0.tcd ||
	bad "digest and merge the memory fixtures"
cmp -s mem1.tcd mem2.tcd || bad "merged memory digests differ by order"
for cmd in "memory" "memory --json"; do
	same "$cmd" "$ML" -- ml.tcd
	same "$cmd" "$MP" -- mp.tcd
done
same "check --json --max memory.peak_by_op:aten::linear=32MiB --max memory.peak_by_op:aten::cat=1MiB" \
	ranks/rank0.kineto.json "$ML" "$MP" -- mem1.tcd

# Real traces: the single-rank and the DDP pair fixtures, the HTA ranks.
real() { # NAME TRACE...: digests of each, merged, compared
	name=$1
	shift
	n=0 ds=""
	for t in "$@"; do
		"$TC" digest -o "$name$n.tcd" "$t" || bad "digest $t"
		ds="$ds $name$n.tcd"
		n=$((n + 1))
	done
	# shellcheck disable=SC2086
	"$TC" merge -o "$name.tcd" $ds || bad "merge $name"
	for cmd in "ops --json" "ops --by category --json" "ops --by device --json" "check --json"; do
		same "$cmd" "$@" -- "$name.tcd"
	done
	for cmd in "steps --json" "steps" "summarize --json" "summarize --top 0" \
			"bottlenecks --json" "bottlenecks"; do
		same "$cmd" "$1" -- "${name}0.tcd"
		[ $# -gt 1 ] && same "$cmd" "$@" -- "$name.tcd"
	done
}
real mlp "$SRC/fixtures/real/torch_mlp.kineto.json.gz"
real ddp "$SRC/fixtures/real/torch_ddp_rank0.kineto.json.gz" \
	"$SRC/fixtures/real/torch_ddp_rank1.kineto.json.gz"
if [ -d "$TRACES/json/hta" ]; then
	real hta "$TRACES"/json/hta/trace_filter__sampled_rank-0.json.gz \
		"$TRACES"/json/hta/trace_filter__sampled_rank-1.json.gz
	for cmd in "steps --json" "summarize --json" "bottlenecks"; do
		same "$cmd" "$TRACES"/json/hta/trace_filter__sampled_rank-1.json.gz -- hta1.tcd
	done
	# diff of two real runs, and an op: metric, from digests.
	base=$TRACES/json/hta/trace_diff__control__control.json.gz
	test=$TRACES/json/hta/trace_diff__test__test.json.gz
	"$TC" digest -o base.tcd "$base" && "$TC" digest -o test.tcd "$test" || bad "digest hta diff"
	"$TC" diff --json "$base" "$test" | sed "s|$base|BASE|; s|$test|TEST|" >t.out
	"$TC" diff --json base.tcd test.tcd | sed "s|base.tcd|BASE|; s|test.tcd|TEST|" >d.out
	cmp -s t.out d.out || { bad "diff of the HTA runs from digests"; diff t.out d.out | head -5; }
	same "check --json --max op:aten::mm.time_per_step=1s --min op:aten::mm.calls_per_step=1" \
		"$base" -- base.tcd
else
	echo "digest_merge: the HTA ranks are not checked (no $TRACES)"
fi

# A generated xplane job with a late rank and skewed clocks: digested two
# ranks per file, merged, it gives the job the traces give.
if command -v protoc >/dev/null 2>&1; then
	python3 "$SRC/bench/gen_ranks.py" xjob --ranks 8 --steps 6 --format xplane \
		--slow-rank 5 --slow-step 3 --skew-ms 20 >/dev/null || bad "gen_ranks.py xplane"
	X=$(ls xjob/*)
	set -- $X
	"$TC" digest -o x0.tcd "$1" "$2" && "$TC" digest -o x1.tcd "$3" "$4" "$5" &&
		"$TC" digest -o x2.tcd "$6" "$7" "$8" && "$TC" merge -o x.tcd x2.tcd x0.tcd x1.tcd ||
		bad "digest the xplane job"
	for cmd in "summarize --json" "bottlenecks --json" "steps --json" "summarize"; do
		# shellcheck disable=SC2086
		same "$cmd" $X -- x.tcd
	done
	"$TC" bottlenecks --json x.tcd | grep -q '"text": "rank 5 arrives last' ||
		bad "xplane job digest: no straggler finding naming rank 5"
fi

# ---- refusals ----
"$TC" export --chrome -o x.json d0.tcd >/dev/null 2>err
[ $? = 2 ] && grep -q "only bottlenecks, check, diff, memory, merge, ops, steps and summarize read" err ||
	bad "export of a digest: $(cat err)"

[ $fail = 0 ] && echo "digest_merge: ok (8 ranks merged 7 ways to the same bytes; ops, steps, check, summarize, bottlenecks, diff from digests, per rank and for the job)"
exit $fail
