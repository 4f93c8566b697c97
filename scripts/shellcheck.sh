#!/usr/bin/env bash
# usage: scripts/shellcheck.sh [FILE...]
# Runs shellcheck on every tracked shell script (or on FILE...): the files named
# *.sh, those whose first line runs sh or bash, and the sourced libraries
# that name their shell in a `# shellcheck shell=` first line. The settings
# (sourced files followed, the few checks turned off and why) are in
# .shellcheckrc at the repository root. One check per file, "ok"/"FAIL" with
# the findings as file:line:column; the last line is "N passed, N failed".
# Exit status 0 when nothing failed.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1

shell_scripts() {
	local f
	git ls-files | while read -r f; do
		[[ -f $f ]] || continue
		if [[ $f == *.sh ]] || head -n 1 "$f" | grep -qE '^(#!.*[/ ](ba)?sh( |$)|# shellcheck shell=)'; then
			echo "$f"
		fi
	done
}

if ! command -v shellcheck >/dev/null; then
	t_fail "shellcheck installed" "shellcheck not found (scripts/install-deps.sh)"
	t_summary
	exit
fi
if (($#)); then files=("$@"); else mapfile -t files < <(shell_scripts); fi
# One run over all of them (each sourced library is read once), then the
# findings sorted by file.
out=$(shellcheck -f gcc "${files[@]}" 2>&1)
for f in "${files[@]}"; do
	found=$(grep -F -- "$f:" <<<"$out" | grep -E "^$f:[0-9]+:[0-9]+: ")
	if [[ -z $found ]]; then
		t_pass "shellcheck: $f"
	else
		t_fail "shellcheck: $f" "$(head -n 10 <<<"$found" | sed '2,$s/^/       /')"
	fi
done
# Anything shellcheck said that names no listed file (it could not run).
other=$(grep -vE '^[^ :]+:[0-9]+:[0-9]+: ' <<<"$out" | grep -v '^$')
[[ -z $other ]] || t_fail "shellcheck ran" "$(head -n 5 <<<"$other")"
t_summary
