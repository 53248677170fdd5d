#!/bin/sh
# The completion script 'tracectl completion SHELL' made at build time
# parses in SHELL (bash -n, zsh -n, fish --no-execute); bash and fish also
# complete a command name and an option's values from it, check's --max
# and --min the metric catalogue (zsh: the script lists it). Skips (77)
# when SHELL is not installed.
set -u
shell=${1:?usage: completion.sh bash|zsh|fish SCRIPT}
script=${2:?}
if ! command -v "$shell" >/dev/null 2>&1; then
	echo "completion-$shell: SKIP ($shell is not installed)"
	exit 77
fi
fail() {
	echo "completion-$shell: FAIL: $*"
	exit 1
}
case $shell in
bash)
	bash -n "$script" || fail "bash -n"
	got=$(bash -c '. "$1"; COMP_WORDS=(tracectl sum); COMP_CWORD=1; _tracectl
		echo "${COMPREPLY[*]}"; COMP_WORDS=(tracectl ops --color = al); COMP_CWORD=4
		_tracectl; echo "${COMPREPLY[*]}"' sh "$script")
	[ "$got" = "summarize
always" ] || fail "completions were '$got'"
	got=$(bash -c '. "$1"; COMP_WORDS=(tracectl check --max step.me); COMP_CWORD=3
		_tracectl; echo "${COMPREPLY[*]}"; COMP_WORDS=(tracectl check --min = share.id)
		COMP_CWORD=4; _tracectl; echo "${COMPREPLY[*]}"' sh "$script")
	[ "$got" = "step.mean= step.median=
share.idle=" ] || fail "metric completions were '$got'"
	;;
zsh)
	zsh -n "$script" || fail "zsh -n"
	grep -q "'--max=\[.*\]:METRIC=VALUE:(step.count= step.mean= .* op\\\\: findings.max_severity=)'" \
		"$script" || fail "no metric catalogue for --max"
	;;
fish)
	fish --no-execute "$script" || fail "fish --no-execute"
	got=$(fish -c "source '$script'; complete -C 'tracectl sum'; complete -C 'tracectl ops --color '" |
		cut -f1)
	[ "$got" = "summarize
always
auto
never" ] || fail "completions were '$got'"
	got=$(fish -c "source '$script'; complete -C 'tracectl check --max step.me'" | cut -f1)
	[ "$got" = "step.mean=
step.median=" ] || fail "metric completions were '$got'"
	;;
*)
	fail "unknown shell"
	;;
esac
echo "completion-$shell: ok"
