#!/bin/sh
# Every EXAMPLES entry in man/tracectl.1.scd names its golden case in a
# comment ('; tests/cli/CASE') just above the command; the case must exist
# and its command must hold each word of the example (paths by their last
# component), and each line of its output excerpt must be a line the case
# expects on stdout or stderr (a line with "..." only up to the "..."), so the
# page cannot drift from what the tests run or what they print.
set -u
SRC=${TC_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
page=$SRC/man/tracectl.1.scd
awk '/^# EXAMPLES/ { on = 1; next } /^# / { on = 0 } on' "$page" | awk -v src="$SRC" '
function load(f,    l) {
	delete out
	nout = 0
	while ((getline l < f) > 0) {
		out[++nout] = l
	}
	close(f)
}
function load_more(f,    l) {
	while ((getline l < f) > 0) {
		out[++nout] = l
	}
	close(f)
}
function shown(x,    i, p, dots) {
	dots = index(x, "...")
	if (dots) {
		p = substr(x, 1, dots - 1)
		sub(/ +$/, "", p)
		if (p ~ /^ *$/) {
			return 1
		}
	}
	for (i = 1; i <= nout; i++) {
		if (dots ? index(out[i], p) == 1 : out[i] == x) {
			return 1
		}
	}
	return 0
}
/^```/ {
	if (cur != "") {
		inb = !inb
		if (!inb) {
			cur = ""
		}
	}
	next
}
inb {
	if (!shown($0)) {
		print "man_examples: the excerpt line \"" $0 "\" is not in what tests/cli/" cur " prints"
		bad = 1
	}
	next
}
/^; tests\/cli\// {
	c = substr($2, 11)
	cur = c
	load(src "/tests/cli/" c "/stdout")
	load_more(src "/tests/cli/" c "/stderr")
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
