#!/usr/bin/env bash
# Habits that are checked: the sources' formatting (scripts/format-check.sh:
# clang-format on the C++, checkpatch.pl on the kernel-style C), libltt's
# layers including only downwards (analysis/check-layers.sh), shellcheck on
# every shell script (scripts/shellcheck.sh), clang-tidy on the C and C++
# (scripts/tidy.sh, over $BUILD's compile_commands.json), and that the
# warning flags reach the builds: `make` hands CMAKE_FLAGS (with CI set,
# -DLTT_WERROR=ON) to an already configured build directory. (That the
# module builds with W=1 and, with CI set, fails on a warning needs a built
# kernel: suite 50 checks it.)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Formatting: the script's own checks, folded into this suite's count.
out=$("$root/scripts/format-check.sh" 2>&1)
grep -vE '^[0-9]+ passed, [0-9]+ failed' <<<"$out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
if [[ -n $line ]]; then
	t_passed=$((t_passed + ${line%% passed*}))
	f=${line#*passed, }
	t_failed=$((t_failed + ${f%% failed*}))
else
	t_fail "scripts/format-check.sh ran" "$(tail -n 5 <<<"$out")"
fi

# libltt's layers include only downwards (analysis/README.md): the tree as
# it is, then a copy with an include planted up the layers, which the check
# must refuse by file and line.
if out=$("$root/analysis/check-layers.sh" "$root" 2>&1); then
	t_pass "libltt's includes follow its layers (analysis/check-layers.sh)"
else
	t_fail "libltt's includes follow its layers (analysis/check-layers.sh)" "$out"
fi
mkdir -p "$tmp/layers/daemon"
cp -r "$root/analysis" "$tmp/layers/" && cp -r "$root/daemon/src" "$tmp/layers/daemon/"
sed -i '0,/^#include </s//#include <libltt\/trace_analysis.hpp>\n#include </' \
	"$tmp/layers/analysis/read/trace_reader.cpp"
out=$("$tmp/layers/analysis/check-layers.sh" "$tmp/layers" 2>&1)
t_check "check-layers.sh refuses read/ including analyze's trace_analysis.hpp" \
	grep -q '^analysis/read/trace_reader.cpp:[0-9]*: read includes libltt/trace_analysis.hpp of analyze' <<<"$out"

# Every shell script through shellcheck (settings in .shellcheckrc).
t_include "$root/scripts/shellcheck.sh"

# clang-tidy over the build's compile_commands.json (settings in .clang-tidy).
t_include "$root/scripts/tidy.sh"

# CMAKE_FLAGS reach a build directory configured before, without them.
b=$tmp/build
werror_is() { grep -q "^LTT_WERROR:BOOL=$1\$" "$b/CMakeCache.txt" || { grep '^LTT_WERROR' "$b/CMakeCache.txt"; false; }; }
if cmake -S "$root" -B "$b" -G Ninja -DLTT_WERROR=OFF >"$tmp/configure.log" 2>&1; then
	werror_is OFF >/dev/null ||
		t_fail "first configure without -Werror" "$(grep LTT_WERROR "$b/CMakeCache.txt")"
	if env -u CMAKE_FLAGS CI=true make -s -C "$root" configure BUILD="$b" >"$tmp/make.log" 2>&1; then
		t_check "CI=true make: an existing build directory gets LTT_WERROR=ON" \
			werror_is ON
		before=$(stat -c %Y.%s "$b/CMakeCache.txt")
		sleep 1
		env -u CMAKE_FLAGS CI=true make -s -C "$root" configure BUILD="$b" >"$tmp/make2.log" 2>&1
		t_check "make with unchanged flags does not run cmake again" \
			test "$(stat -c %Y.%s "$b/CMakeCache.txt")" = "$before"
		env -u CMAKE_FLAGS -u CI make -s -C "$root" configure BUILD="$b" \
			CMAKE_FLAGS=-DLTT_WERROR=OFF >"$tmp/make3.log" 2>&1
		t_check "make CMAKE_FLAGS=-DLTT_WERROR=OFF turns it off again" \
			werror_is OFF
	else
		t_fail "CI=true make configure" "$(tail -n 5 "$tmp/make.log")"
	fi
else
	t_fail "configure a build directory" "$(tail -n 5 "$tmp/configure.log")"
fi

t_summary
