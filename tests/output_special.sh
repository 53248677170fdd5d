#!/bin/sh
# -o onto a character device: written straight through, never replaced by
# a regular file. The device is made with mknod in a temp folder (the same
# numbers as /dev/null, which itself is never touched). Needs root for
# mknod: skipped (exit 77) without it.
set -u
TC=${TC_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if ! mknod null c 1 3 2>/dev/null; then
	echo "output_special: SKIP (mknod needs root; this run is uid $(id -u))"
	exit 77
fi
printf '%s' '{"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2}]}' >in.json
fail=0
for cmd in "export --chrome" summarize "summarize --json" info; do
	# shellcheck disable=SC2086
	if ! "$TC" $cmd in.json -o null; then
		echo "FAIL $cmd -o null: exit $?"
		fail=1
	fi
	if [ ! -c null ]; then
		echo "FAIL $cmd -o null: the device became $(stat -c %F null)"
		fail=1
		rm -f null && mknod null c 1 3
	fi
done
if ls | grep -q tmp; then
	echo "FAIL temporary files left: $(ls)"
	fail=1
fi
[ $fail = 0 ] && echo "output_special: ok (character device kept, written through)"
exit $fail
