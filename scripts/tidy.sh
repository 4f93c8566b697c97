#!/usr/bin/env bash
# usage: scripts/tidy.sh [-j N] [FILE...]
# clang-tidy with the repository's .clang-tidy (its checks, and why some are
# off) over the build's compile_commands.json: every C and C++ source of the
# product (analysis/, daemon/, gui/, user/, kshark/) and the headers they
# include from there; FILE... narrows the run. N files at a time (default:
# the number of CPUs). One check per source file, "ok"/"FAIL" with the
# findings as file:line:column; the last line is "N passed, N failed".
# Exit status 0 when nothing failed. Needs a configured build directory
# ($BUILD, default build; `make tidy` configures it).
#
# Not checked here: the tests (GoogleTest's macros trip the bug patterns by
# design), traceview's self test among them (gui/selftest/).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1
build=${BUILD:-build}
[[ $build == /* ]] || build=$repo/$build
jobs=$(nproc)
if [[ ${1:-} == -j ]]; then
	jobs=$2
	shift 2
fi
excluded='^gui/selftest/'

if ! command -v clang-tidy >/dev/null; then
	t_fail "clang-tidy installed" "clang-tidy not found (scripts/install-deps.sh)"
	t_summary
	exit
fi
db=$build/compile_commands.json
if [[ ! -f $db ]]; then
	t_fail "clang-tidy: $db" "missing: configure the build first (make configure)"
	t_summary
	exit
fi
if (($#)); then
	files=("$@")
else
	mapfile -t files < <(jq -r '.[].file' "$db" | sed "s|^$repo/||" |
		grep -E '^(analysis|daemon|gui|user|kshark)/' | grep -vE "$excluded" | sort -u)
fi
if ((${#files[@]} == 0)); then
	t_fail "clang-tidy: sources in $db" "none found"
	t_summary
	exit
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Each file's findings into its own log, named by its index.
run_one() {
	clang-tidy -p "$build" --quiet "$2" >"$out/$1.log" 2>&1
	echo $? >"$out/$1.rc"
}
export -f run_one
export build out
for i in "${!files[@]}"; do printf '%s\0%s\0' "$((i + 1))" "${files[$i]}"; done |
	xargs -0 -n 2 -P "$jobs" bash -c 'run_one "$@"' _
for i in "${!files[@]}"; do
	f=${files[$i]} n=$((i + 1))
	log=$out/$n.log
	found=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$log" 2>/dev/null | sed "s|^$repo/||" |
		sed -E 's/,-warnings-as-errors\]$/]/')
	if [[ $(cat "$out/$n.rc" 2>/dev/null) == 0 && -z $found ]]; then
		t_pass "clang-tidy: $f"
	else
		t_fail "clang-tidy: $f" "$(head -n 10 <<<"${found:-$(tail -n 5 "$log" 2>/dev/null)}" | sed '2,$s/^/       /')"
	fi
done
t_summary
