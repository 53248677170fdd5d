#!/bin/sh
# Writes every command's text and JSON output for every real trace and
# fixture into one folder, so a refactor can be proven output-identical:
#   tests/tools/snapshot.sh build/src/tracectl /tmp/before
#   (change, rebuild)
#   tests/tools/snapshot.sh build/src/tracectl /tmp/after
#   diff -r /tmp/before /tmp/after
# Traces come from TC_TRACES (default ../shared/traces, skipped when absent)
# and the built fixtures under BUILD/fixtures (BUILD, relative to the
# checkout, from TC_BUILD_DIR, default build). Exit codes are kept beside each output.
set -u
# Outputs as a pipe gets them, whatever the caller's terminal settings.
unset COLUMNS NO_COLOR TRACECTL_PROGRESS_DELAY_MS
bin=${1:?usage: snapshot.sh TRACECTL OUTDIR}
out=${2:?usage: snapshot.sh TRACECTL OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
traces=${TC_TRACES:-$root/../shared/traces}
build=${TC_BUILD_DIR:-build}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$out" || exit 1
# Fixtures are named relative to the checkout, so two worktrees compare.
cd "$root" || exit 1

list() {
	if [ -d "$traces" ]; then
		find "$traces" -type f ! -name '*.md' ! -name '*.textproto' ! -name '*.txt' | sort
	fi
	find "$build/fixtures" fixtures/json -type f \
		\( -name '*.pb' -o -name '*.pb.gz' -o -name '*.json' \) | sort
}

list | while IFS= read -r f; do
	key=$(printf '%s' "$f" | sed -e "s|^$traces/|traces/|" | tr '/' '_')
	d=$out/$key
	mkdir -p "$d"
	run() { # name args...
		name=$1
		shift
		"$bin" "$@" >"$d/$name.out" 2>"$d/$name.err"
		echo $? >"$d/$name.rc"
	}
	run info info "$f"
	run info-json info --json "$f"
	run summarize summarize "$f"
	run summarize-json summarize --json "$f"
	run steps steps "$f"
	run steps-json steps --json "$f"
	run ops ops "$f"
	run ops-json ops --json "$f"
	run ops-device ops --by device "$f"
	run bottlenecks bottlenecks "$f"
	run bottlenecks-json bottlenecks --json "$f"
	run export-chrome export --chrome "$f" -o -
done
echo "snapshot: $(find "$out" -name '*.rc' | wc -l) outputs in $out"
