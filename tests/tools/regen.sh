#!/bin/sh
# Regenerate the named golden CLI cases only, never the whole folder:
#   tests/tools/regen.sh CASE...        (from the source root, after a build)
# Each case runs under TC_REGEN=1 in a scratch copy; its stdout, stderr and
# exit are copied back (an empty stderr or a zero exit removes the file only
# where the case had none).
set -e
[ $# -gt 0 ] || { echo "usage: tests/tools/regen.sh CASE..." >&2; exit 2; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp tests/cli/run.sh "$t/"
for c in "$@"; do
	[ -f "tests/cli/$c/cmd" ] || { echo "regen: no case tests/cli/$c" >&2; exit 2; }
	cp -r "tests/cli/$c" "$t/"
done
TC_REGEN=1 TC_BIN=${TC_BIN:-$PWD/build/src/tracectl} TC_SOURCE_ROOT=$PWD \
	TC_BUILD_ROOT=${TC_BUILD_ROOT:-$PWD/build} TC_TRACES=${TC_TRACES:-$PWD/../shared/traces} \
	sh "$t/run.sh" >/dev/null || true  # exits 77: regeneration counts no pass
for c in "$@"; do
	cp "$t/$c/stdout" "tests/cli/$c/stdout"
	if [ -s "$t/$c/stderr" ]; then cp "$t/$c/stderr" "tests/cli/$c/stderr"; else rm -f "tests/cli/$c/stderr"; fi
	if [ "$(cat "$t/$c/exit")" != 0 ] || [ -f "tests/cli/$c/exit" ]; then cp "$t/$c/exit" "tests/cli/$c/exit"; fi
done
