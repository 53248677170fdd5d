#!/bin/sh
# Nsight Systems reader benchmark: `tracectl info` on a big export against
# the sqlite3 shell scanning the tables the reader reads (SELECT * of
# CUPTI_ACTIVITY_KIND_KERNEL and _RUNTIME, and CUDA_GPU_MEMORY_USAGE_EVENTS
# where the export has it, to /dev/null). Prints wall and
# CPU (user + system) seconds, best of RUNS (default 3), and the ratio;
# the target is tracectl within 1.5x of the bare scan.
#
#   bench/nsys.sh [BUILD_DIR] [EXPORT] [MILLION_KERNELS]
#
# Without EXPORT, bench/gen_nsys.py writes one with MILLION_KERNELS (default
# 1) kernels, each with its cudaLaunchKernel row, to
# /tmp/tracectl-bench-nsys.sqlite once and reuses it; MEMORY=1 adds a memory
# record per kernel (gen_nsys.py --memory, /tmp/tracectl-bench-nsys-mem.sqlite).
# Needs the sqlite3 shell and GNU time (/usr/bin/time).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
mem=${MEMORY:-0}
[ "$mem" = 1 ] && def=/tmp/tracectl-bench-nsys-mem.sqlite || def=/tmp/tracectl-bench-nsys.sqlite
db=${2:-$def}
million=${3:-1}
for t in /usr/bin/time sqlite3; do
	command -v $t >/dev/null || { echo "nsys.sh: $t missing" >&2; exit 2; }
done
if [ ! -f "$db" ]; then
	python3 "$here/gen_nsys.py" "$(awk -v m="$million" 'BEGIN { print int(m * 1000000) }')" "$db" \
		$([ "$mem" = 1 ] && echo --memory)
fi
cat "$db" >/dev/null
runs=${RUNS:-3}
# Best of $runs by CPU time (the host is shared); prints "wall cpu".
best() {
	b=
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S' -o /tmp/tracectl-bench-nsys.time "$@" >/dev/null
		r=$(awk '{ print $1, $2 + $3 }' /tmp/tracectl-bench-nsys.time)
		if [ -z "$b" ] || awk -v a="${r#* }" -v c="${b#* }" 'BEGIN { exit !(a < c) }'; then
			b=$r
		fi
	done
	echo "$b"
}
echo "export: $db ($(stat -c %s "$db") bytes)"
sq=$(command -v sqlite3)
scan=
for t in CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME CUDA_GPU_MEMORY_USAGE_EVENTS; do
	if [ -n "$("$sq" "file:$db?immutable=1" "SELECT name FROM sqlite_master WHERE name = '$t'")" ]; then
		scan="$scan${scan:+ && }$sq 'file:$db?immutable=1' 'SELECT * FROM $t' >/dev/null"
	fi
done
s=$(best sh -c "$scan")
t=$(best "$build/src/tracectl" info "$db")
awk -v s="$s" -v t="$t" 'BEGIN {
	split(s, a, " "); split(t, b, " ")
	printf "sqlite3 scan    %7.2f s wall %7.2f s cpu\n", a[1], a[2]
	printf "tracectl info   %7.2f s wall %7.2f s cpu\n", b[1], b[2]
	printf "ratio           %7.2fx wall %7.2fx cpu (target <= 1.5x)\n", b[1] / a[1], b[2] / a[2]
}'
