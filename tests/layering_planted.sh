#!/bin/sh
# tests/layering.sh must fail on a protobuf-c header where it forbids one:
# in a copy of src/, one planted in a cli/ file through a header, one in
# an analysis/ file and one in a model/ file must each be reported. Given
# the core library, a call planted in it from model/ into analysis/ (an
# object that includes nothing that shows it) must be reported too.
#   layering_planted.sh SRC LAYERING.SH [LIBTRACECTL-CORE.a]
src=${1:?usage: layering_planted.sh SRC LAYERING.SH [LIB]}
lint=${2:?usage: layering_planted.sh SRC LAYERING.SH [LIB]}
lib=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$src" "$tmp/src"
# A cli file that reaches digest.pb-c.h through digest/colltable.h, and an
# analysis and a model file that include it directly.
sed '/^#include "cli\/progress.h"/a\
#include "digest/colltable.h"' "$src/cli/progress.c" >"$tmp/src/cli/progress.c"
{ echo '#include "digest.pb-c.h"'; cat "$src/analysis/timeline.c"; } \
	>"$tmp/src/analysis/timeline.c"
{ echo '#include "digest.pb-c.h"'; cat "$src/model/coll_table.c"; } \
	>"$tmp/src/model/coll_table.c"
set -- 'cli/progress.c includes protobuf-c (digest/colltable.h -> digest.pb-c.h)' \
	'analysis/timeline.c includes protobuf-c (digest.pb-c.h)' \
	'model/coll_table.c includes protobuf-c (digest.pb-c.h)'
if [ -n "$lib" ]; then
	# The archive member's name gives its module, as meson names them.
	printf 'void tc_analyze(void);\nvoid tc_planted(void);\nvoid tc_planted(void) { tc_analyze(); }\n' \
		>"$tmp/model_planted.c"
	# A thin archive of the library and the planted object (meson's
	# archives are thin: members are named by path).
	lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
	(cd "$tmp" && ${CC:-cc} -c model_planted.c -o model_planted.c.o &&
		ar rcT core.a "$lib" model_planted.c.o) ||
		{ echo "layering_planted: cannot build the planted object"; exit 1; }
	set -- "$@" 'model/ calls tc_analyze, defined in analysis/'
fi
out=$(sh "$lint" "$tmp/src" ${lib:+"$tmp/core.a"})
rc=$?
echo "$out"
bad=0
for want in "$@"; do
	case $out in
	*"$want"*) ;;
	*) echo "layering_planted: no report of: $want"; bad=1 ;;
	esac
done
[ $rc -ne 0 ] || { echo "layering_planted: layering.sh passed a planted include"; bad=1; }
[ $bad -eq 0 ] && echo "layering_planted: ok"
exit $bad
