#!/bin/sh
# Fails on an #include that points rightwards or sideways in the layer order
#   util <- model <- {ingest, analysis, output} <- cli
# (main.c is part of cli), or on a private header included from outside
# its owner: analysis/passes.h and any header in a module's subfolder belong
# to that module; a reader's own header (ingest/<format>/*_private.h,
# number.h) to that reader's folder, model/model_private.h to model/.
src=${1:-src}
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
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
