#!/usr/bin/env bash
# The cost of STACK records (tests/offcpu/cost-guest.sh): one boot of the
# patched kernel (or LTT_COST_KERNEL=stock) under -icount on one vCPU,
# wl_pingpong untraced, with scheduling changes and with stacks; prints
# instructions per blocking switch that the stacks add, the records' bytes
# and their frames. Not part of make check (a measurement).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
variant=${LTT_COST_KERNEL:-ltt}
out=$build/test-results/offcpu-cost-$variant
n=${COST_ITERS:-20000}
mkdir -p "$build/bench"
gcc -static -O2 -Wall -Wextra -o "$build/bench/peers-bench" tests/bench/peers-bench.c || exit 1
vm_kernel "$variant" --no-build >/dev/null && vm_module "$variant" >/dev/null || exit 1
rm -rf "$out"
mkdir -p "$out"
vm_bins=("$build/bin/tracedaemon" "$build/bench/peers-bench") vm_workloads=1
icount="shift=0,sleep=off"
vm_qemu=(--timeout 3000 --mem 1G --smp 1 --qemu-arg -icount --qemu-arg "$icount")
vm_boot "$out" tests/offcpu/cost-guest.sh "$n" "${COST_RUNS:-3}" >"$out/guest.log" 2>&1 ||
	{ tail -n 20 "$out/guest.log"; exit 1; }
python3 - "$out" "$n" "$build/bin/traceanalyze" <<'PY'
import os, re, statistics, subprocess, sys
out, n, ta = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = {}
for line in open(f"{out}/runs.txt"):
    _, name, _, _, ns = line.split()  # run NAME I ns TOTAL
    runs.setdefault(name, []).append(int(ns))
med = {k: statistics.median(v) for k, v in runs.items()}
dump = subprocess.run([ta, "-d", "-t", "STACK", f"{out}/stacks.trace"], capture_output=True,
                      text=True, check=True).stdout
# "CPU  Stack  SECONDS NANOSEC PID LENGTH  KERNEL PID : P; FRAMES : N; ..."
frames = {"KERNEL": [], "USER": []}
size = {"KERNEL": [], "USER": []}
for line in dump.splitlines():
    m = re.match(r"\s*\d+\s+Stack\s+\d+\s+\d+\s+-?\d+\s+(\d+)\s+(KERNEL|USER) PID : -?\d+; "
                 r"FRAMES : (\d+)", line)
    if m:
        size[m.group(2)].append(int(m.group(1)))
        frames[m.group(2)].append(int(m.group(3)))
switches = len(frames["KERNEL"])
for k, v in sorted(runs.items()):
    print(f"{k}: {' '.join(str(x) for x in v)} ns (icount: instructions) over {len(v)} runs")
print(f"wl_pingpong {n}: untraced {med['none'] / n:.0f}, -e SCHED {med['sched'] / n:.0f}, "
      f"-e SCHED -S {med['stacks'] / n:.0f} instructions per round trip (medians)")
print(f"blocking switches with stacks in the last run: {switches} "
      f"(about 2 per round trip: {switches / n:.2f})")
sched = (med["sched"] - med["none"]) / max(switches, 1)
per = (med["stacks"] - med["sched"]) / max(switches, 1)
print(f"-e SCHED costs {sched:.0f} instructions per blocking switch (its SCHEDCHANGE and "
      f"wakeup records); -S adds {per:.0f} ({(sched + per) / max(sched, 1):.2f}x)")
for k, v in frames.items():
    if v:
        print(f"{k.lower()} stacks: {len(v)} records, {statistics.mean(v):.1f} frames and "
              f"{statistics.mean(size[k]):.1f} bytes per record on average "
              f"(min {min(size[k])}, max {max(size[k])})")
both = sum(size["KERNEL"]) + sum(size["USER"])
print(f"STACK bytes per blocking switch: {both / max(switches, 1):.1f}")
PY
