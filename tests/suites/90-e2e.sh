#!/usr/bin/env bash
# End-to-end accuracy: boot the patched kernel in QEMU, trace workloads with
# known behaviour (tests/e2e/guest.sh), and hold traceanalyze's figures
# against independent measurements (tests/e2e/check_accuracy.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/lib/sh-test.sh
build=${BUILD:-build}
out=$build/test-results/e2e
echo "# e2e accuracy suite (kernel and module build on first use; cached after)"

kdir=$(scripts/build-kernel.sh | tail -n 1)
if ! t_check "e2e: patched kernel available" test -f "$kdir/arch/x86/boot/bzImage"; then
	t_summary; exit 1
fi
ko=$(module/build.sh "$kdir" "$build/module/ltt" | tail -n 1)
if ! t_check "e2e: trace module builds" test -f "$ko"; then
	t_summary; exit 1
fi

# strace is a dynamic binary: bring its libraries along.
adds=(--add /usr/bin/strace:/usr/bin/)
# (resolved: the initramfs copies symlinks as symlinks)
for lib in $(ldd /usr/bin/strace | grep -o '/[^ ]*'); do
	adds+=(--add "$(readlink -f "$lib"):$lib")
done

rm -rf "$out"
mkdir -p "$out"
scripts/qemu-run.sh --kernel "$kdir" --timeout 1200 --mem 1G --disk 64M --out "$out" \
	--add "$ko:/opt/ltt/" --add "$build/bin/tracedaemon:/bin/" \
	--add "$build/workloads:/opt/ltt/workloads" --add tests/e2e/guest.sh:/opt/ltt/ \
	"${adds[@]}" -- sh /opt/ltt/guest.sh >"$out/guest.log" 2>&1
rc=$?
if ! t_check "e2e: guest ran every scenario (qemu-run status $rc, console $out/console.log)" test $rc = 0; then
	tail -n 20 "$out/guest.log"
fi

res=$(python3 tests/e2e/check_accuracy.py "$out" "$build")
echo "$res"
line=$(tail -n 1 <<<"$res")
if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
	t_passed=$((t_passed + BASH_REMATCH[1])) t_failed=$((t_failed + BASH_REMATCH[2]))
else
	t_fail "e2e: accuracy checker reported its totals"
fi
t_summary
