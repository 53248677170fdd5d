#!/bin/sh
# Each Check suite's traces part, run as on a clone without ../shared:
# it must report SKIP (exit 77) and nothing else. Under ASan a leak on the
# skip path turns 77 into an abort, so a newcomer's skip stays a skip.
#   skip_clean.sh SUITE-BINARY...
set -u
fail=0
for bin in "$@"; do
	out=$(TC_TEST_PART=traces TC_TRACES=/nonexistent/tc-no-traces "$bin" 2>&1)
	rc=$?
	if [ $rc -ne 77 ]; then
		echo "FAIL $(basename "$bin"): exit $rc on the skip path, want 77"
		echo "$out" | tail -20
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "ok: $# suites skip cleanly without a traces folder"
exit $fail
