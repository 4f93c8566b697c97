#!/usr/bin/env bash
# Run the kernel's scripts/checkpatch.pl (from linux-source-6.1) over every
# patch in kernel-patches/series. Exit 1 if any patch has an ERROR; warnings
# are printed (each patch's description justifies the ones it keeps).
# checkpatch.pl is unpacked once into $LTT_CACHE/checkpatch.
#   --print-tool   only unpack it if needed and print its path
#                  (scripts/format-check.sh runs it on the kernel-style C)
#   -q             print each patch's totals only
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LTT_CACHE:-$HOME/.cache/ltt}
tarball=${LTT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
tools=$cache/checkpatch
if [[ ! -x $tools/scripts/checkpatch.pl ]]; then
	mkdir -p "$tools"
	tar -C "$tools" --strip-components=1 -xf "$tarball" \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
if [[ ${1:-} == --print-tool ]]; then
	echo "$tools/scripts/checkpatch.pl"
	exit 0
fi
errors=0
quiet=0
[[ ${1:-} == -q ]] && quiet=1
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	out=$(cd "$tools" && perl scripts/checkpatch.pl --no-tree --show-types "$repo/kernel-patches/$p" 2>&1) || true
	summary=$(grep -E '^total: ' <<<"$out" || echo "total: ? (checkpatch failed)")
	echo "$p: $summary"
	((quiet)) || grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /' || true
	grep -qE '^total: 0 errors' <<<"$out" || errors=$((errors + 1))
done <"$repo/kernel-patches/series"
((errors == 0))
