#!/bin/sh
# The option lists in man/tracectl.1.scd are generated from the option
# tables (tracectl --help-man NAME, between '; begin options NAME' and
# '; end options'). Fails when a list differs from its table or a table has
# no list; --update rewrites the lists in place.
set -u
SRC=${TC_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
TC=${TC_BIN:-$SRC/build/src/tracectl}
page=$SRC/man/tracectl.1.scd
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
awk -v tc="$TC" '
/^; begin options / {
	print
	name = $4
	cmd = "\"" tc "\" --help-man " name
	while ((cmd | getline line) > 0) {
		print line
	}
	if (close(cmd) != 0) {
		print "man_options: tracectl --help-man " name " failed" >"/dev/stderr"
		failed = 1
	}
	skip = 1
	next
}
/^; end options/ { skip = 0 }
!skip { print }
END { exit failed }
' "$page" >"$tmp" || exit 1
if [ "${1:-}" = --update ]; then
	cat "$tmp" >"$page"
	exit 0
fi
bad=0
names=$("$TC" --help-man) || exit 1
for name in $names; do
	if ! grep -q "^; begin options $name " "$page"; then
		echo "man_options: man/tracectl.1.scd has no '; begin options $name' list"
		bad=1
	fi
done
if ! diff -u "$page" "$tmp"; then
	echo "man_options: the option lists differ from the tables; run sh tests/man_options.sh --update"
	bad=1
fi
[ $bad -eq 0 ] && echo "man_options: ok"
exit $bad
