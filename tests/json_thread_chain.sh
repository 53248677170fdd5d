#!/bin/sh
# The JSON reader's thread table chains threads whose 64-bit keys meet,
# which real keys almost never do. TC_BIN_CHAIN is tracectl built with two
# bits of key (tests/meson.build), so nearly every thread goes through the
# chain: info and summarize must print what tracectl prints, on every JSON
# fixture and (when ../shared/traces is there) every real JSON trace.
set -u
TC=${TC_BIN:?}
CHAIN=${TC_BIN_CHAIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in "$SRC"/fixtures/json/*.json "$SRC"/fixtures/real/*.kineto.json.gz \
		"$SRC"/fixtures/real/*.perfetto.json.gz "$TRACES"/json/*/*.json*; do
	[ -f "$f" ] || continue
	for cmd in "info --json" "summarize --json --top 1000000"; do
		# Exit codes too: a damaged fixture must fail the same way.
		$TC $cmd "$f" >"$tmp/a" 2>&1; echo "exit $?" >>"$tmp/a"
		$CHAIN $cmd "$f" >"$tmp/b" 2>&1; echo "exit $?" >>"$tmp/b"
		if cmp -s "$tmp/a" "$tmp/b"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL $cmd $f"
			diff "$tmp/a" "$tmp/b" | head -5
		fi
	done
done
echo "json_thread_chain: $pass passed, $fail failed"
[ $pass -gt 0 ] || exit 77
[ $fail -eq 0 ]
