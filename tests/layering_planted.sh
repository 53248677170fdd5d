#!/bin/sh
# tests/layering.sh must fail on a protobuf-c header where it forbids one:
# in a copy of src/, one planted in a cli/ file through a header and one
# in an analysis/ file not on its allowlist must each be reported.
#   layering_planted.sh SRC LAYERING.SH
src=${1:?usage: layering_planted.sh SRC LAYERING.SH}
lint=${2:?usage: layering_planted.sh SRC LAYERING.SH}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$src" "$tmp/src"
# A cli file that reaches digest.pb-c.h through model/digest_msg.h, and an
# analysis file that includes it directly.
sed '/^#include "cli\/progress.h"/a\
#include "model/digest_msg.h"' "$src/cli/progress.c" >"$tmp/src/cli/progress.c"
{ echo '#include "digest.pb-c.h"'; cat "$src/analysis/timeline.c"; } \
	>"$tmp/src/analysis/timeline.c"
out=$(sh "$lint" "$tmp/src")
rc=$?
echo "$out"
bad=0
for want in 'cli/progress.c includes protobuf-c (model/digest_msg.h -> digest.pb-c.h)' \
		'analysis/timeline.c includes protobuf-c (digest.pb-c.h)'; do
	case $out in
	*"$want"*) ;;
	*) echo "layering_planted: no report of: $want"; bad=1 ;;
	esac
done
[ $rc -ne 0 ] || { echo "layering_planted: layering.sh passed a planted include"; bad=1; }
[ $bad -eq 0 ] && echo "layering_planted: ok"
exit $bad
