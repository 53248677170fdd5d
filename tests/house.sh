#!/bin/sh
# House rules a script can check (docs/hacking.md): every .c file opens
# with a comment saying what it is for; no file outside src/model/ indexes
# the event columns that may not exist (ev.track, ev.args).
#   house.sh SOURCE-ROOT
root=${1:?usage: house.sh SOURCE-ROOT}
bad=0
for f in $(cd "$root" && find src tests bench -name '*.c'); do
	if ! head -1 "$root/$f" | grep -q '^/\*'; then
		echo "house: $f does not open with a comment saying what it is for"
		bad=1
	fi
done
# Tests may assert that a column is absent (== NULL), not index it.
hits=$(cd "$root" && grep -rnE 'ev\.(track|args)\[' src tests bench --include='*.[ch]' |
	grep -v '^src/model/')
if [ -n "$hits" ]; then
	echo "$hits" | sed 's/^/house: indexes a column that may not exist (use the accessors): /'
	bad=1
fi
[ $bad -eq 0 ] && echo "house: ok"
exit $bad
