#!/usr/bin/env bash
# The cost of context records (tests/attribution/cost-guest.sh): one boot
# of the patched kernel under -icount on one vCPU, the getppid loop
# untraced and under three sessions; prints instructions per getppid call
# and per event (two events per call) above the untraced loop, and bytes
# per event of each trace. Not part of make check (a measurement).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
out=$build/test-results/attribution-cost
n=${COST_ITERS:-100000}
mkdir -p "$build/bench"
gcc -static -O2 -Wall -Wextra -o "$build/bench/peers-bench" tests/bench/peers-bench.c || exit 1
vm_kernel ltt --no-build >/dev/null && vm_module ltt >/dev/null || exit 1
rm -rf "$out"
mkdir -p "$out"
vm_bins=("$build/bin/tracedaemon" "$build/bench/peers-bench")
icount="shift=0,sleep=off"
vm_qemu=(--timeout 3000 --mem 1G --smp 1 --qemu-arg -icount --qemu-arg "$icount")
vm_boot "$out" tests/attribution/cost-guest.sh "$n" "${COST_RUNS:-3}" >"$out/guest.log" 2>&1 ||
	{ tail -n 20 "$out/guest.log"; exit 1; }
python3 - "$out" "$n" "$build/bin/traceanalyze" <<'PY'
import json, statistics, subprocess, sys
out, n, ta = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = {}
for line in open(f"{out}/runs.txt"):
    _, name, _, _, ns = line.split()  # run NAME I ns TOTAL
    runs.setdefault(name, []).append(int(ns))
base = statistics.median(runs["none"]) / n
print(f"none: {base:.1f} instructions per getppid call")
for name in ("full", "syscall", "pid"):
    per = statistics.median(runs[name]) / n
    doc = json.loads(subprocess.run([ta, "--json", f"{out}/{name}.trace", f"{out}/{name}.proc"],
                                    capture_output=True, text=True, check=True).stdout)
    c = doc["event_counts"]
    ev = sum(v for k, v in c.items() if k not in ("block_start", "block_end", "heartbeat", "lost",
                                                  "trace_start", "context"))
    size = __import__("os").path.getsize(f"{out}/{name}.trace") - 320
    print(f"{name}: {per:.1f} per call, {(per - base) / 2:.1f} added per event; "
          f"{c.get('context', 0)} context records, {c.get('schedchange', 0)} schedchanges; "
          f"{size / max(ev, 1):.2f} bytes per event (last run's trace)")
PY
