#!/bin/sh
# Fails on an #include that points rightwards or sideways in the layer order
#   util <- model <- {ingest, analysis, output} <- digest <- cli
# (main.c is part of cli), or on a private header included from outside
# its owner: analysis/passes.h and any header in a module's subfolder belong
# to that module; a reader's own header (ingest/<format>/*_private.h,
# number.h) to that reader's folder, model/model_private.h to model/, the
# digest's messages (digest/msg.h, digest/view.h) to digest/.
# No file in util/, model/, analysis/ or cli/ (main.c included) includes a
# protobuf-c header (a generated *.pb-c.h, protobuf-c/protobuf-c.h),
# directly or through other headers: wire formats stay with the readers
# (ingest/), the writers (output/) and the digest's codec (digest/).
# Given the core library too, the same order holds for symbols: a call
# into a higher or sibling layer fails even where no #include shows it (a
# function declared in a model header but defined in analysis/).
#   layering.sh [SRC [LIBTRACECTL-CORE.a]]
src=${1:-src}
lib=${2:-}
rank() {
	case $1 in
	util) echo 0 ;;
	model) echo 1 ;;
	ingest|analysis|output) echo 2 ;;
	digest) echo 3 ;;
	cli) echo 4 ;;
	*) echo 9 ;;
	esac
}
private() { # include path: true when only its own module may include it
	case $1 in
	analysis/passes.h) return 0 ;;
	*/*/*) return 0 ;;
	esac
	return 1
}
# The folder that may include a private header, or nothing for a public one.
owner() {
	case $1 in
	*_private.h|ingest/json/number.h|digest/msg.h|digest/view.h) echo "${1%/*}" ;;
	esac
}
bad=0
# Every file of cli/, model/ and analysis/ that reaches a protobuf-c header,
# and the chain of includes that does: each file's includes (quoted or
# not), then a fixed point over "f reaches it through inc".
find "$src" -name '*.[ch]' | sort | while read -r f; do
	sed -n 's/^#[ \t]*include[ \t]*["<]\([^">]*\)[">].*/\1/p' "$f" |
		while read -r inc; do echo "${f#"$src"/} $inc"; done
done | awk '
	{ inc[$1] = inc[$1] " " $2 }
	$2 ~ /\.pb-c\.h$/ || $2 == "protobuf-c/protobuf-c.h" { via[$1] = $2 }
	END {
		do {
			more = 0
			for (f in inc) {
				if (f in via) continue
				n = split(inc[f], v, " ")
				for (i = 1; i <= n; i++) {
					if (v[i] in via) {
						via[f] = v[i] " -> " via[v[i]]
						more = 1
						break
					}
				}
			}
		} while (more)
		for (f in via) {
			if (f ~ /^(util|model|analysis|cli)\// || f == "main.c") print f, via[f]
		}
	}' | sort >"${TMPDIR:-/tmp}/tc-layering-pbc.$$"
while read -r f chain; do
	echo "layering: $f includes protobuf-c ($chain): wire formats belong to ingest/, output/ and digest/"
	bad=1
done <"${TMPDIR:-/tmp}/tc-layering-pbc.$$"
rm -f "${TMPDIR:-/tmp}/tc-layering-pbc.$$"
for f in $(find "$src" -name '*.[ch]'); do
	rel=${f#"$src"/}
	mod=${rel%%/*}
	[ "$rel" = main.c ] && mod=cli
	from=$(rank "$mod")
	for path in $(sed -n 's/^#include "\([a-z_]*\/[^"]*\)"/\1/p' "$f"); do
		inc=${path%%/*}
		if [ "$inc" != "$mod" ] && private "$path"; then
			echo "layering: $rel includes $path (private to $inc/)"
			bad=1
			continue
		fi
		to=$(rank "$inc")
		[ "$inc" = "$mod" ] && continue
		if [ "$to" -ge "$from" ]; then
			echo "layering: $rel includes $inc/ ($mod may use only layers to its left)"
			bad=1
		fi
	done
	for path in $(sed -n 's/^#include "\([a-z_/]*\.h\)"/\1/p' "$f"); do
		dir=$(owner "$path")
		if [ -n "$dir" ] && [ "${rel%/*}" != "$dir" ]; then
			echo "layering: $rel includes $path (private to $dir/)"
			bad=1
		fi
	done
done
# Symbols: which object defines each one, which objects use it. nm -A
# names the archive member (meson: <module>_<file>.c.o) on every line.
if [ -n "$lib" ]; then
	nm -A -g "$lib" | awk -F: '{ n = split($2, p, "/"); print p[n], $3 }' |
		awk '{ split($1, m, "_"); print m[1], $(NF - 1), $NF }' >"${TMPDIR:-/tmp}/tc-layering.$$"
	while read -r mod sym; do
		from=$(rank "$mod")
		def=$(awk -v s="$sym" '$2 != "U" && $3 == s { print $1; exit }' "${TMPDIR:-/tmp}/tc-layering.$$")
		[ -z "$def" ] || [ "$def" = "$mod" ] && continue
		if [ "$(rank "$def")" -ge "$from" ]; then
			echo "layering: $mod/ calls $sym, defined in $def/ ($mod may use only layers to its left)"
			bad=1
		fi
	done <<-EOF
	$(awk '$2 == "U" && $3 ~ /^tc_/ { print $1, $3 }' "${TMPDIR:-/tmp}/tc-layering.$$" | sort -u)
	EOF
	rm -f "${TMPDIR:-/tmp}/tc-layering.$$"
fi
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
