#!/bin/sh
# contrib/slurm on a real single-node Slurm (the Debian slurmctld, slurmd
# and munge packages): starts munged, slurmctld and slurmd in a temp folder
# on free ports, runs digest-array.sbatch as an 8-task array over 8
# generated rank traces, merges the digests with digest-merge.sbatch as a
# dependent job, and compares ops, steps, check and diff from the merged
# digest with tracectl on the same traces in one process. Names that getopt
# or xargs would take for something else travel through: traces named
# '--help', '-leading.xplane.pb' and " rank2 'q\".json" in a NUL-separated
# list, digests in an OUTDIR named '-dd'. The merge job must refuse an
# OUTDIR with a digest missing, and the README's find | xargs -0 recipe
# must digest every rank. Every daemon it
# started is stopped by pid on exit. Skips (77), saying why, only where the
# daemons cannot start: not root, a binary missing, munged, slurmctld or
# slurmd exiting at start.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
skip() {
	echo "slurm_digest: SKIP ($*)"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as root here; this run is uid $(id -u)"
for b in munged slurmctld slurmd sbatch sinfo scontrol python3; do
	command -v "$b" >/dev/null 2>&1 || skip "$b not installed (Debian: munge, slurmctld, slurmd, slurm-client)"
done
tmp=$(mktemp -d /tmp/slurm-digest.XXXXXX)
chmod 755 "$tmp"
pids=""
cleanup() {
	for f in "$tmp"/slurmd.pid "$tmp"/slurmctld.pid "$tmp"/munged.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	sleep 1
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$tmp" || exit 1
mkdir -p munge spool state out
chmod 700 munge

# ---- munge ----
dd if=/dev/urandom of=munge/key bs=1 count=1024 2>/dev/null
chmod 400 munge/key
munged --key-file="$tmp/munge/key" --socket="$tmp/munge/sock" \
	--pid-file="$tmp/munged.pid" --log-file="$tmp/munge/log" \
	--seed-file="$tmp/munge/seed" --force >/dev/null 2>&1 ||
	skip "munged would not start: $(tail -n 2 munge/log 2>/dev/null | tr '\n' ' ')"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -S munge/sock ] && break
	sleep 0.5
done
[ -S munge/sock ] || skip "munged made no socket"

# ---- slurm.conf ----
port() { # a free TCP port
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
node=$(hostname -s)
cat >slurm.conf <<CONF
ClusterName=tcdigest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/sock
CryptoType=crypto/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SchedulerType=sched/backfill
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >ctld.out 2>&1 &
ctld=$!
pids="$pids $ctld"
slurmd -D -f "$SLURM_CONF" >slurmd.out 2>&1 &
sd=$!
pids="$pids $sd"
up=0
for _ in $(seq 1 60); do
	# A daemon that exits at once cannot run on this machine: skip, with
	# its own last words as the reason.
	kill -0 "$ctld" 2>/dev/null ||
		skip "slurmctld would not start: $(tail -n 2 slurmctld.log ctld.out 2>/dev/null | tr '\n' ' ')"
	kill -0 "$sd" 2>/dev/null ||
		skip "slurmd would not start: $(tail -n 2 slurmd.log slurmd.out 2>/dev/null | tr '\n' ' ')"
	if sinfo -h -o '%T' 2>/dev/null | grep -q idle; then
		up=1
		break
	fi
	sleep 1
done
if [ $up = 0 ]; then
	echo "slurm_digest: FAIL the node did not come up idle in 60 s"
	tail -n 5 slurmctld.log slurmd.log ctld.out slurmd.out 2>/dev/null
	exit 1
fi

# ---- the job: 8 ranks, one array task each, then the merge ----
python3 "$SRC/tests/digest_ranks.py" "$SRC/fixtures/real/torch_mlp.kineto.json.gz" ranks 8 ||
	exit 1
# Three ranks get names an option parser or xargs -I would take apart; the
# tasks run in ranks/, so the list names them as they are.
odd=" rank2 'q\".json"
mv ranks/rank0.kineto.json ranks/--help
mv ranks/rank1.kineto.json ranks/-leading.xplane.pb
mv ranks/rank2.kineto.json "ranks/$odd"
set -- --help -leading.xplane.pb "$odd"
for i in 3 4 5 6 7; do
	set -- "$@" "rank$i.kineto.json"
done
printf '%s\000' "$@" >ranks.list
export TRACECTL="$TC"
jid=$(sbatch --parsable --array=0-7 --chdir="$tmp/ranks" --output="$tmp/out/digest-%a.log" \
	"$SRC/contrib/slurm/digest-array.sbatch" "$tmp/ranks.list" -dd) ||
	{ echo "slurm_digest: FAIL sbatch"; exit 1; }
# A failed array task makes afterok unsatisfiable: Slurm then cancels the
# merge (--kill-on-invalid-dep) instead of leaving it pending, and timeout
# bounds the wait either way.
timeout 600 sbatch --wait --dependency=afterok:"$jid" --kill-on-invalid-dep=yes \
	--chdir="$tmp/ranks" --output="$tmp/out/merge.log" \
	"$SRC/contrib/slurm/digest-merge.sbatch" -dd "$tmp/job.tcd" >/dev/null
rc=$?
fail=0
if [ $rc != 0 ] || [ ! -s job.tcd ]; then
	echo "slurm_digest: FAIL the merge job (exit $rc)"
	cat out/*.log 2>/dev/null | tail -n 20
	exit 1
fi
n=$(ls ranks/-dd/rank*.tcd | wc -l)
[ "$n" = 8 ] || { echo "FAIL $n digests written, not 8"; fail=1; }
states=$(scontrol show job "$jid" 2>/dev/null | grep -o 'JobState=[A-Z]*' | sort -u | tr '\n' ' ')

# ---- the merge job refuses a job with a digest missing ----
cp -r ranks/-dd missing
rm missing/rank5.tcd
timeout 300 sbatch --wait --chdir="$tmp" --output="$tmp/out/missing.log" \
	"$SRC/contrib/slurm/digest-merge.sbatch" missing "$tmp/short.tcd" >/dev/null 2>&1 &&
	{ echo "FAIL the merge job merged a job with rank5.tcd missing"; fail=1; }
[ -e short.tcd ] && { echo "FAIL the merge job wrote short.tcd"; fail=1; }
grep -q 'missing/rank5.tcd missing' out/missing.log ||
	{ echo "FAIL the merge job did not name the missing digest"; cat out/missing.log; fail=1; }

# ---- the README's one-machine recipe, on the same names ----
mkdir -p bin digests
ln -s "$TC" bin/tracectl
find ranks -maxdepth 1 -type f -print0 | PATH="$tmp/bin:$PATH" xargs -0 -P 8 -n 1 sh -c \
	'tracectl digest -o "digests/$(basename -- "$1").tcd" -- "$1"' _
n=$(ls digests | wc -l)
[ "$n" = 8 ] || { echo "FAIL the find | xargs -0 recipe wrote $n digests, not 8"; fail=1; }

# ---- the same answer as one process on the same files ----
cd ranks || exit 1
"$TC" digest -o ../local.tcd -- "$@" || fail=1
cmp -s ../job.tcd ../local.tcd || { echo "FAIL the Slurm job's digest differs from one process's"; fail=1; }
for cmd in "ops --json" "ops" "check --json" "check"; do
	"$TC" $cmd -- "$@" >../t.out 2>&1
	"$TC" $cmd ../job.tcd >../d.out 2>&1
	cmp -s ../t.out ../d.out ||
		{ echo "FAIL $cmd: traces and the merged digest differ"; diff ../t.out ../d.out | head; fail=1; }
done
"$TC" steps --json -- "$1" >../t.out
"$TC" steps --json -- -dd/rank0.tcd >../d.out
cmp -s ../t.out ../d.out || { echo "FAIL steps --json: rank 0's trace and digest differ"; fail=1; }
"$TC" diff --json "$4" "$8" | sed 's/rank\([0-9]\)\.kineto\.json/IN\1/; s/rank\([0-9]\)\.tcd/IN\1/' >../t.out
"$TC" diff --json -- -dd/rank3.tcd -dd/rank7.tcd | sed "s|-dd/||g" |
	sed 's/rank\([0-9]\)\.tcd/IN\1/' >../d.out
cmp -s ../t.out ../d.out || { echo "FAIL diff: traces and digests differ"; diff ../t.out ../d.out | head; fail=1; }
cd .. || exit 1
[ $fail = 0 ] && echo "slurm_digest: ok (Slurm $(sinfo -V | cut -d' ' -f2): 8-task array job $jid ($states) over odd names and a dependent merge; the merged digest equals one process's, ops/check/steps/diff agree; a missing digest stops the merge; the xargs -0 recipe digests every rank)"
exit $fail
