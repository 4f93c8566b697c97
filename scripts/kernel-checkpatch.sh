#!/usr/bin/env bash
# Run the kernel's scripts/checkpatch.pl over every patch of a kernel patch
# series (kernel-patches/series for 6.1, kernel-patches/6.12/series for
# 6.12), with the checkpatch.pl of that kernel. Exit 1 if any patch has an
# ERROR; warnings are printed (each patch's description justifies the ones
# it keeps). checkpatch.pl is unpacked once into $LTT_CACHE/checkpatch (6.1)
# or $LTT_CACHE/checkpatch-SERIES, from the source tarball
# scripts/build-kernel.sh --series SERIES --print-source names.
#   --series S     the series: 6.1 (default) or 6.12
#   --print-tool   only unpack it if needed and print its path
#                  (scripts/format-check.sh runs 6.1's on the kernel-style C)
#   -q             print each patch's totals only
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LTT_CACHE:-$HOME/.cache/ltt}
series=6.1 print_tool=0 quiet=0
while (($#)); do
	case $1 in
	--series) (($# > 1)) || { echo "kernel-checkpatch.sh: --series needs 6.1 or 6.12" >&2; exit 2; }
		series=$2; shift ;;
	--print-tool) print_tool=1 ;;
	-q) quiet=1 ;;
	*) echo "kernel-checkpatch.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
case $series in
6.1) pdir=$repo/kernel-patches tools=$cache/checkpatch ;;
6.12) pdir=$repo/kernel-patches/6.12 tools=$cache/checkpatch-6.12 ;;
*) echo "kernel-checkpatch.sh: unknown kernel series '$series' (6.1 or 6.12)" >&2; exit 2 ;;
esac
if [[ ! -x $tools/scripts/checkpatch.pl ]]; then
	if [[ $series == 6.1 ]]; then
		tarball=${LTT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
	else
		tarball=$("$repo/scripts/build-kernel.sh" --series "$series" --print-source | tail -n 1)
	fi
	mkdir -p "$tools"
	top=linux-source-$series
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
