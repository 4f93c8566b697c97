#!/usr/bin/env bash
# run-suites: kernels ltt debug
# End-to-end accuracy: boot the patched kernel in QEMU, trace workloads with
# known behaviour (tests/e2e/guest.sh), and hold traceanalyze's figures
# against independent measurements (tests/e2e/check_accuracy.py, whose
# result lines become this suite's checks). The kernel and the module are
# built on first use (cached after); the run goes through
# tests/lib/vm-host.sh. LTT_SKIP_VM=1 skips the suite (no QEMU on the
# machine).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
out=$build/test-results/e2e
vm_suite_skip_if_requested "e2e accuracy suite"
echo "# e2e accuracy suite (kernel and module build on first use; cached after)"

vm_kernel ltt
if ! t_check "e2e: patched kernel available" test -f "$vm_kdir/arch/x86/boot/bzImage"; then
	t_summary; exit 1
fi
vm_module ltt
if ! t_check "e2e: trace module builds" test -f "$vm_ko"; then
	t_summary; exit 1
fi

# strace is a dynamic binary: bring its libraries along.
vm_qemu=(--timeout 1200 --mem 1G --disk 64M --add /usr/bin/strace:/usr/bin/)
# (resolved: the initramfs copies symlinks as symlinks)
for lib in $(ldd /usr/bin/strace | grep -o '/[^ ]*'); do
	vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
done
vm_bins=("$build/bin/tracedaemon") vm_workloads=1
# traceanalyze --follow runs in the guest beside tracedaemon (guest.sh's
# last scenario), with the C++ runtime it links.
vm_bins+=("$build/bin/traceanalyze")
for lib in $(ldd "$build/bin/traceanalyze" | grep -o '/[^ ]*'); do
	[[ " ${vm_qemu[*]} " == *":$lib "* ]] || vm_qemu+=(--add "$(readlink -f "$lib"):$lib")
done

rm -rf "$out"
mkdir -p "$out"
vm_boot "$out" tests/e2e/guest.sh >"$out/guest.log" 2>&1
rc=$?
vm_verdict "$rc" "e2e: guest run" "$out/guest.log" "$out/console.log"

# traceanalyze --follow beside the real daemon: it reported while the trace
# grew, ended by itself at the FINAL blocks, and its last report is the one
# a run on the finished file prints.
follow_name="e2e: traceanalyze --follow beside tracedaemon ends with the finished file's report"
if [[ ! -f $out/follow.status ]]; then
	t_fail "$follow_name" "the guest left no follow.status"
else
	follow_ta=$(cd "$build" && pwd)/bin/traceanalyze
	(cd "$out" && "$follow_ta" -a -s follow.trace follow.proc >follow.plain 2>follow.plain.err)
	follow_reports=$(grep -c '^### ' "$out/follow.out")
	follow_last=$(grep '^### ' "$out/follow.out" | tail -n 1)
	if [[ $(cat "$out/follow.status") != 0 ]]; then
		t_fail "$follow_name" "exit status $(cat "$out/follow.status"): $(head -c 300 "$out/follow.err")"
	elif ((follow_reports < 2)); then
		t_fail "$follow_name" "$follow_reports report(s): it did not see the trace grow"
	elif [[ $follow_last != "### follow.trace: final report (every CPU wrote its final block)" ]]; then
		t_fail "$follow_name" "last heading: $follow_last"
	elif ! awk '/^### /{buf=""; next} {buf=buf $0 "\n"} END{printf "%s", buf}' "$out/follow.out" |
		cmp -s - "$out/follow.plain"; then
		t_fail "$follow_name" "the last report differs from traceanalyze -a -s on the host"
	else
		t_pass "$follow_name ($follow_reports reports)"
	fi
fi

python3 tests/e2e/check_accuracy.py "$out" "$build" >"$out/accuracy.txt"
vm_import "$out/accuracy.txt"
if ! [[ $(tail -n 1 "$out/accuracy.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
	t_fail "e2e: accuracy checker reported its totals" "$(tail -n 5 "$out/accuracy.txt")"
fi

# Call sites named by traceanalyze --callsites, on the patched kernel and
# its debug build (lockdep, KASAN: the console must stay clean), there with
# either event source (debug-tp: the module built for the tracepoints).
source tests/e2e/callsites.sh
callsites_e2e ltt
callsites_e2e debug
callsites_e2e debug-tp
t_summary
