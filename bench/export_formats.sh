#!/bin/sh
# Compare `tracectl export --chrome` with `--perfetto` on each TRACE: the
# output's size plain and gzip'd (tracectl's own gzip: a .gz name), the
# export's wall time, and the wall time of `tracectl info` reading the
# export back. Times are the best of RUNS (default 3).
#
#   bench/export_formats.sh [BUILD_DIR] TRACE...
set -eu
build=${1:-build}
shift
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tc="$build/src/tracectl"
# Best wall time in seconds of RUNS runs of the command.
best() {
	b=
	for _ in $(seq "$runs"); do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		b=$(echo "$s $e ${b:-1e9}" | awk '{ t = $2 - $1; print (t < $3 ? t : $3) }')
	done
	echo "$b"
}
printf '%-44s %-9s %10s %10s %9s %9s\n' trace format MB "MB (gz)" "export s" "info s"
for f in "$@"; do
	cat "$f" >/dev/null # warm the page cache
	for fmt in chrome perfetto; do
		ext=json
		[ $fmt = perfetto ] && ext=pftrace
		out="$tmp/out.$ext"
		t_export=$(best "$tc" export --$fmt "$f" -o "$out")
		"$tc" export --$fmt "$f" -o "$out.gz" 2>/dev/null
		t_info=$(best "$tc" info "$out")
		awk -v n="$(basename "$f")" -v fmt=$fmt -v a="$(stat -c %s "$out")" \
			-v z="$(stat -c %s "$out.gz")" -v te="$t_export" -v ti="$t_info" 'BEGIN {
			printf "%-44s %-9s %10.2f %10.2f %9.3f %9.3f\n", n, fmt, a / 1e6, z / 1e6, te, ti }'
		rm -f "$out" "$out.gz"
	done
done
