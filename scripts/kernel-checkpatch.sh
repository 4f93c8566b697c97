#!/usr/bin/env bash
# Run the kernel's scripts/checkpatch.pl over every patch of the kernel
# patch series (kernel-patches/series), with the checkpatch.pl of the kernel
# it is made against (6.12). Exit 1 if any patch has an ERROR; warnings are
# printed (each patch's description justifies the ones it keeps).
# checkpatch.pl is unpacked once into $LTT_CACHE/checkpatch-6.12, from the
# source tarball scripts/build-kernel.sh --print-source names.
#   --print-tool   only unpack it if needed and print its path
#                  (scripts/format-check.sh runs it on the kernel-style C)
#   -q             print each patch's totals only
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LTT_CACHE:-$HOME/.cache/ltt}
print_tool=0 quiet=0
while (($#)); do
	case $1 in
	--print-tool) print_tool=1 ;;
	-q) quiet=1 ;;
	*) echo "kernel-checkpatch.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
pdir=$repo/kernel-patches tools=$cache/checkpatch-6.12
if [[ ! -x $tools/scripts/checkpatch.pl ]]; then
	tarball=$("$repo/scripts/build-kernel.sh" --print-source | tail -n 1)
	mkdir -p "$tools"
	top=linux-source-6.12
	tar -C "$tools" --strip-components=1 -xf "$tarball" \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
if ((print_tool)); then
	echo "$tools/scripts/checkpatch.pl"
	exit 0
fi
errors=0
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	out=$(cd "$tools" && perl scripts/checkpatch.pl --no-tree --show-types "$pdir/$p" 2>&1) || true
	summary=$(grep -E '^total: ' <<<"$out" || echo "total: ? (checkpatch failed)")
	echo "$p: $summary"
	((quiet)) || grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /' || true
	grep -qE '^total: 0 errors' <<<"$out" || errors=$((errors + 1))
done <"$pdir/series"
((errors == 0))
