#!/bin/sh
# Fails on an #include that points rightwards or sideways in the layer order
#   util <- model <- {ingest, analysis, output} <- cli
# (main.c is part of cli).
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
bad=0
for f in $(find "$src" -name '*.[ch]'); do
	rel=${f#"$src"/}
	mod=${rel%%/*}
	[ "$rel" = main.c ] && mod=cli
	from=$(rank "$mod")
	for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*"/\1/p' "$f"); do
		to=$(rank "$inc")
		[ "$inc" = "$mod" ] && continue
		if [ "$to" -ge "$from" ]; then
			echo "layering: $rel includes $inc/ ($mod may use only layers to its left)"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
