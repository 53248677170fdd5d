#!/bin/sh
# House rules a script can check (docs/hacking.md): every .c file opens
# with a comment saying what it is for.
#   house.sh SOURCE-ROOT
root=${1:?usage: house.sh SOURCE-ROOT}
bad=0
for f in $(cd "$root" && find src tests bench -name '*.c'); do
	if ! head -1 "$root/$f" | grep -q '^/\*'; then
		echo "house: $f does not open with a comment saying what it is for"
		bad=1
	fi
done
[ $bad -eq 0 ] && echo "house: ok"
exit $bad
