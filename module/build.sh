#!/usr/bin/env bash
# usage: module/build.sh KDIR OUTDIR
# Builds ltt_tracer.ko (and beside it the test module, ltt_test.ko, which
# the guest tests load where they need test mode or fault injection)
# against the kernel build KDIR (a tree prepared for
# out-of-tree modules, e.g. the one scripts/build-kernel.sh prints) in
# OUTDIR, from a copy of module/, so the source tree stays clean. Prints the
# path of the .ko last. The module is built with W=1 (the kernel's extra
# warnings); with CI set (as .ci/run and CI services do), warnings are
# errors (KCFLAGS=-Werror), as -DLTT_WERROR=ON makes them for user space.
# LTT_SOURCE=tracepoints in the environment builds the tracepoint backend
# even against a patched kernel (module/Kbuild); build each source in an
# OUTDIR of its own.
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: $0 KDIR OUTDIR" >&2; exit 2; }
kdir=$1 out=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
[[ -f $kdir/Makefile ]] || { echo "module/build.sh: $kdir is not a kernel build directory" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
# One build at a time in OUTDIR: test suites that run at once may ask for
# the same module.
exec 9>"$out/.build.lock"
flock 9
# Copy only what changed so incremental builds stay incremental.
mkdir -p "$out/compat" "$out/test"
# test/ (the test module) may be absent: a tree without it builds the
# product module alone (module/Kbuild).
shopt -s nullglob
for f in "$repo"/module/Kbuild "$repo"/module/*.c "$repo"/module/*.h "$repo"/module/compat/* "$repo"/module/test/*.c; do
	rel=${f#"$repo"/module/}
	cmp -s "$f" "$out/$rel" || cp "$f" "$out/$rel"
done
flags=(W=1)
[[ -n ${CI:-} ]] && flags+=(KCFLAGS=-Werror)
[[ -n ${LTT_SOURCE:-} ]] && flags+=("LTT_SOURCE=$LTT_SOURCE")
make -s -C "$kdir" M="$out" LTT_INCLUDE="$repo/include" "${flags[@]}" modules >&2
echo "$out/ltt_tracer.ko"
