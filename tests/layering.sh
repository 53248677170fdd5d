#!/bin/sh
# Fails on an #include that points rightwards or sideways in the layer order
#   util <- model <- {ingest, analysis, output} <- cli
# (main.c is part of cli), or on a private header included from outside
# its owner: analysis/passes.h and any header in a module's subfolder belong
# to that module; a reader's own header (ingest/<format>/*_private.h,
# number.h) to that reader's folder, model/model_private.h to model/.
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
	cli) echo 3 ;;
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
	*_private.h|ingest/json/number.h) echo "${1%/*}" ;;
	esac
}
bad=0
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
