#!/usr/bin/env bash
# usage: scripts/format-check.sh
# Checks the formatting of every tracked source file, without changing any:
#   - C++ (*.cpp, *.hpp): `clang-format --dry-run -Werror` with the repo's
#     .clang-format, one check per top-level directory;
#   - kernel-style C (the module, the kernel<->user ABI headers in
#     include/ltt/, libltt-user and ltt-mark in user/, libltt's C codec
#     header block_codec.h, and the C test programs under tests/): the
#     kernel's checkpatch.pl, one check per file, with the options in
#     .checkpatch.conf (read from the repository root). User-space C is also
#     excused the rules that name kernel-only helpers (noinline, __aligned,
#     ARRAY_SIZE, strscpy) or forbid volatile, which their busy loops need.
# checkpatch.pl comes from linux-source-6.12, unpacked into the cache by
# scripts/kernel-checkpatch.sh --print-tool. Every check prints "ok"/"FAIL" and
# the offending file:line lines; the last line is "N passed, N failed".
# Exit status 0 when nothing failed.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1

# C++: one check per top-level directory.
if ! command -v clang-format >/dev/null; then
	t_fail "clang-format installed" "clang-format not found (scripts/install-deps.sh)"
else
	mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' | grep -v '^kernel-patches/')
	for dir in $(printf '%s\n' "${cxx[@]}" | cut -d/ -f1 | sort -u); do
		files=()
		for f in "${cxx[@]}"; do [[ $f == "$dir"/* ]] && files+=("$f"); done
		out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1)
		bad=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: error' <<<"$out")
		if [[ -z $out ]]; then
			t_pass "clang-format: $dir/ (${#files[@]} files)"
		else
			t_fail "clang-format: $dir/ (run make format)" \
				"$(sed -E 's/: error: .*/: not clang-formatted/' <<<"${bad:-$out}" | head -n 10 | sed '2,$s/^/       /')"
		fi
	done
fi

# Kernel-style C: one check per file.
user_ignore=PREFER_DEFINED_ATTRIBUTE_MACRO,VOLATILE,ARRAY_SIZE,STRCPY
if ! checkpatch=$(scripts/kernel-checkpatch.sh --print-tool); then
	t_fail "checkpatch.pl available" "cannot unpack checkpatch.pl (scripts/kernel-checkpatch.sh --print-tool failed)"
else
	while read -r f; do
		extra=()
		case $f in
		# include/linux/ltt-events.h as the kernel patch series creates it,
		# byte for byte (tests/kernel/abi-sync): its "--- */" block comment
		# ends stay, since changing them changes the series and with it
		# every cached patched kernel.
		include/ltt/events.h) extra=(--ignore BLOCK_COMMENT_STYLE) ;;
		module/* | include/ltt/*) ;;
		*) extra=(--ignore "$user_ignore") ;;
		esac
		if out=$(perl "$checkpatch" -f --terse "${extra[@]}" "$f" 2>&1) &&
			! grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
			t_pass "checkpatch: $f"
		else
			t_fail "checkpatch: $f" "$(grep -vE '^(total:|$)' <<<"$out" | head -n 10 | sed '2,$s/^/       /')"
		fi
	done < <(git ls-files 'module/*.c' 'module/*.h' 'include/ltt/*.h' 'user/*.c' 'user/*.h' \
		'tests/*.c' 'tests/*.h' 'analysis/include/libltt/block_codec.h')
fi
t_summary
