#!/bin/sh
# Every EXAMPLES entry in man/tracectl.1.scd names its golden case in a
# comment ('; tests/cli/CASE') just above the command; the case must exist
# and its command must hold each word of the example (paths by their last
# component), so the page cannot drift from what the tests run.
set -u
SRC=${TC_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
page=$SRC/man/tracectl.1.scd
awk '/^# EXAMPLES/ { on = 1; next } /^# / { on = 0 } on' "$page" | awk -v src="$SRC" '
/^; tests\/cli\// {
	c = substr($2, 11)
	n++
	if (getline line <= 0 || line !~ /^\*tracectl /) {
		print "man_examples: no example command after the comment for " c
		bad = 1
		next
	}
	gsub(/^\*|\*$/, "", line)
	gsub(/\\/, "", line)
	f = src "/tests/cli/" c "/cmd"
	cmd = ""
	while ((getline l < f) > 0) {
		cmd = cmd l
	}
	close(f)
	if (cmd == "") {
		print "man_examples: no golden case tests/cli/" c
		bad = 1
		next
	}
	sub(/^tracectl /, "", line)
	k = split(line, w, " ")
	for (i = 1; i <= k; i++) {
		t = w[i]
		gsub(/^'"'"'|'"'"'$/, "", t)
		sub(/.*\//, "", t)
		if (t != "" && index(cmd, t) == 0) {
			print "man_examples: tests/cli/" c " does not run \"" t "\" of the example"
			bad = 1
		}
	}
}
END {
	if (!n) {
		print "man_examples: no example names its golden case"
		bad = 1
	}
	if (!bad) {
		print "man_examples: " n " examples match their golden cases"
	}
	exit bad
}'
