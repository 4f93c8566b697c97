#!/usr/bin/env bash
# usage: scripts/sparse-check.sh [NAME=KDIR...]
# The trace module through sparse (`make C=2`), which checks what the
# compiler does not: the address spaces of __user, __rcu, __percpu and
# __iomem pointers, endianness types, lock context annotations. For each
# NAME=KDIR (a kernel tree prepared for out-of-tree modules) the module is
# built there by module/build.sh (W=1, -Werror under CI), then checked with
# the same flags, so only sparse speaks; any warning it prints fails.
# Without arguments: the patched kernel (scripts/build-kernel.sh
# --print-dir) and Debian's stock 6.1 headers (scripts/stock-kernel.sh
# --print-dir); a kernel that is not there is a skip, never built here.
# One check per kernel, "ok"/"FAIL"/"skip" with sparse's file:line lines;
# the last line is "N passed, N failed[, N skipped]".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/ltt-sparse.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! command -v sparse >/dev/null; then
	t_fail "sparse installed" "sparse not found (scripts/install-deps.sh)"
	t_summary
	exit
fi

kernels=("$@")
if ((${#kernels[@]} == 0)); then
	if kdir=$(scripts/build-kernel.sh --print-dir 2>/dev/null | tail -n 1) && [[ -f $kdir/Module.symvers ]]; then
		kernels+=("patched=$kdir")
	else
		t_skip "sparse: the module against the patched kernel" "not built (make kernel)"
	fi
	if sdir=$(scripts/stock-kernel.sh --print-dir 2>/dev/null | tail -n 1) &&
		rel=$(basename "$sdir") && [[ -f /lib/modules/$rel/build/Makefile ]]; then
		kernels+=("stock=/lib/modules/$rel/build")
	else
		t_skip "sparse: the module against the stock kernel's headers" "not installed (scripts/stock-kernel.sh)"
	fi
fi

flags=(W=1)
[[ -n ${CI:-} ]] && flags+=(KCFLAGS=-Werror)
for k in "${kernels[@]}"; do
	name=${k%%=*} kdir=${k#*=} out=$work/${k%%=*}
	what="sparse: the module against the $name kernel ($kdir)"
	if ! module/build.sh "$kdir" "$out" >"$work/$name-build.log" 2>&1; then
		t_fail "$what" "module/build.sh failed: $(tail -n 5 "$work/$name-build.log")"
		continue
	fi
	# Built already with these flags: C=2 re-runs only the checker on every
	# source. A compiler warning (should one come) ends in [-W...]; sparse's
	# do not.
	make -C "$kdir" M="$out" LTT_INCLUDE="$repo/include" "${flags[@]}" C=2 modules \
		>"$work/$name-sparse.log" 2>&1
	rc=$?
	found=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$work/$name-sparse.log" | grep -vE '\[-W[^]]+\]$' |
		sed "s|^$out/|module/|")
	if ((rc != 0)); then
		t_fail "$what" "make C=2 failed: $(tail -n 5 "$work/$name-sparse.log")"
	elif ! grep -q '^ *CHECK ' "$work/$name-sparse.log"; then
		t_fail "$what" "sparse checked no file: $(tail -n 5 "$work/$name-sparse.log")"
	elif [[ -n $found ]]; then
		t_fail "$what" "$(head -n 10 <<<"$found" | sed '2,$s/^/       /')"
	else
		t_pass "$what ($(grep -c '^ *CHECK ' "$work/$name-sparse.log") files)"
	fi
done
t_summary
