#!/usr/bin/env bash
# make bench-offcpu: the cost of STACK records (tracedaemon -S). One boot
# of the patched kernel (LTT_COST_KERNEL: ltt, the default, the facility;
# ltt-tp, the same kernel with the module's tracepoint backend; stock,
# Debian's own 6.1 with the tracepoint backend) under -icount
# shift=0,sleep=off on one vCPU, where one guest ns is one instruction,
# the method of make bench-peers. tests/offcpu/cost-guest.sh runs four
# pipe ping-pongs (short user stacks, 20 frames, deeper than the walk's
# 64-frame bound, and a walk that faults) and a getppid() loop (what the
# session costs a system call, beside its records), each untraced, with
# -e SCHED and with -e SCHED -S, COST_RUNS times (default 3), COST_ITERS
# round trips each (default 20000; 10 times as many getppid() calls).
#
# Prints per workload the raw runs, the medians per round trip, what
# -e SCHED costs per SCHEDCHANGE record, what -S adds per blocking switch
# (the runs' difference over the STACK trace's kernel stacks, one per
# blocking switch) and the records' frames and bytes; writes
# $BUILD/bench/offcpu-VARIANT.json. A benchmark, not a test (never in make
# check): it fails when a run is missing or failed, or a trace lost events.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
variant=${LTT_COST_KERNEL:-ltt}
out=$build/test-results/offcpu-cost-$variant
n=${COST_ITERS:-20000}
runs=${COST_RUNS:-3}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "cost.sh: COST_ITERS must be a positive number" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "cost.sh: COST_RUNS must be a positive number" >&2; exit 2; }
mkdir -p "$build/bench"
gcc -static -O2 -Wall -Wextra -o "$build/bench/peers-bench" tests/bench/peers-bench.c || exit 1
gcc -static -O2 -Wall -Wextra -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$build/bench/stackping" tests/offcpu/stackping.c || exit 1
vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$build/workloads/wl_pingpong" || exit 1
vm_kernel "$variant" --no-build >/dev/null && vm_module "$variant" >/dev/null || exit 1
rm -rf "$out"
mkdir -p "$out"
vm_bins=("$build/bin/tracedaemon" "$build/bench/peers-bench" "$build/bench/stackping") vm_workloads=1
# One vCPU: a second hangs at SMP bring-up under icount. There the guest's
# single TSC is consistent, so ltt's clock is the TSC, as on real hardware
# (scripts/bench-peers.sh says more).
vm_qemu=(--timeout 3000 --mem 1G --smp 1 --qemu-arg -icount --qemu-arg "shift=0,sleep=off")
echo "cost.sh: booting the $variant kernel (progress: $out/console.log)" >&2
vm_boot "$out" tests/offcpu/cost-guest.sh "$n" "$runs" "${LTT_CLOCK:-tsc}" >"$out/guest.log" 2>&1 ||
	{ tail -n 20 "$out/guest.log"; exit 1; }
if grep -q '^FAIL' "$out/results.txt" 2>/dev/null || ! grep -q '^ok - cost runs' "$out/results.txt" 2>/dev/null; then
	cat "$out/results.txt" 2>/dev/null
	tail -n 20 "$out/guest.log"
	exit 1
fi
python3 - "$out" "$n" "$runs" "$build/bin/traceanalyze" "$variant" "$build/bench/offcpu-$variant.json" <<'PY'
import json, re, statistics, subprocess, sys
out, n, nruns, ta, variant, jpath = sys.argv[1:7]
n, nruns = int(n), int(nruns)
workloads = {
    "pingpong": "wl_pingpong (static glibc, no frame pointers)",
    "fp16": "stackping DEPTH 16 (frame pointers)",
    "fp100": "stackping DEPTH 100 (frame pointers, past the 64-frame bound)",
    "fault": "stackping fault (the user walk faults on its first frame)",
    "getppid": "getppid() loop (never blocks)",
}
runs = {}
for line in open(f"{out}/runs.txt"):
    _, wl, cfg, _, _, ns = line.split()  # run WORKLOAD CONFIG I ns TOTAL
    runs.setdefault(wl, {}).setdefault(cfg, []).append(int(ns))
bad = False


def summary(trace):
    """Events, lost events and SCHEDCHANGE records of a trace."""
    s = subprocess.run([ta, "-s", trace], capture_output=True, text=True, check=True).stdout
    ev, lost = map(int, re.search(r"Events:\s+(\d+); lost: (\d+)", s).groups())
    sc = re.search(r"Sched change\s+(\d+)", s)
    return ev, lost, int(sc.group(1)) if sc else 0


def stacks(trace):
    """Per kind (KERNEL, USER): frames, bytes and truncation of each STACK record."""
    dump = subprocess.run([ta, "-d", "-t", "STACK", trace], capture_output=True, text=True,
                          check=True).stdout
    recs = {"KERNEL": [], "USER": []}
    # "CPU  Stack  SECONDS NANOSEC PID LENGTH  KIND PID : P; FRAMES : N[ (truncated)]; ..."
    for line in dump.splitlines():
        m = re.match(r"\s*\d+\s+Stack\s+\d+\s+\d+\s+-?\d+\s+(\d+)\s+(KERNEL|USER) PID : -?\d+; "
                     r"FRAMES : (\d+)( \(truncated\))?", line)
        if m:
            recs[m.group(2)].append((int(m.group(3)), int(m.group(1)), bool(m.group(4))))
    return recs


report = {"kernel": variant, "round_trips": n, "runs": nruns, "workloads": {}}
for wl, desc in workloads.items():
    r = runs.get(wl, {})
    if any(len(r.get(c, [])) != nruns for c in ("none", "sched", "stacks")):
        print(f"{wl}: runs missing: {r}", file=sys.stderr)
        bad = True
        continue
    med = {c: statistics.median(v) for c, v in r.items()}
    if wl == "getppid":
        calls = 10 * n
        print(f"{wl}: {desc}, {calls} calls")
        for c in ("none", "sched", "stacks"):
            print(f"  {c:6}: {' '.join(str(x) for x in r[c])} instructions "
                  f"(median {med[c] / calls:.1f} per call)")
        sc = (med["sched"] - med["none"]) / calls
        st = (med["stacks"] - med["sched"]) / calls
        print(f"  -e SCHED adds {sc:.1f} instructions per system call (no record), "
              f"-S {st:.1f} more")
        report["workloads"][wl] = {"description": desc, "calls": calls, "instructions": r,
                                   "sched_instructions_per_call": round(sc, 1),
                                   "stacks_instructions_per_call": round(st, 1)}
        continue
    _, lost_s, schedchanges = summary(f"{out}/{wl}-sched.trace")
    _, lost_k, _ = summary(f"{out}/{wl}-stacks.trace")
    if lost_s or lost_k:
        print(f"{wl}: the traces lost events (sched {lost_s}, stacks {lost_k})", file=sys.stderr)
        bad = True
    recs = stacks(f"{out}/{wl}-stacks.trace")
    switches = len(recs["KERNEL"])
    sched = (med["sched"] - med["none"]) / max(schedchanges, 1)
    per = (med["stacks"] - med["sched"]) / max(switches, 1)
    nbytes = sum(b for k in recs.values() for _, b, _ in k)
    print(f"{wl}: {desc}")
    for c in ("none", "sched", "stacks"):
        print(f"  {c:6}: {' '.join(str(x) for x in r[c])} instructions "
              f"(median {med[c] / n:.0f} per round trip)")
    print(f"  -e SCHED: {schedchanges} SCHEDCHANGE records, {sched:.0f} instructions each")
    print(f"  -S: {switches} blocking switches with stacks, {per:.0f} instructions added "
          f"per blocking switch ({per / max(sched, 1):.1f} SCHEDCHANGE records' worth), "
          f"{nbytes / max(switches, 1):.1f} bytes")
    w = {"description": desc, "instructions": r, "schedchange_records": schedchanges,
         "instructions_per_schedchange": round(sched, 1), "blocking_switches": switches,
         "instructions_per_blocking_switch": round(per, 1),
         "stack_bytes_per_blocking_switch": round(nbytes / max(switches, 1), 1), "stacks": {}}
    for k, v in recs.items():
        if not v:
            continue
        fr = [f for f, _, _ in v]
        by = [b for _, b, _ in v]
        tr = sum(t for _, _, t in v)
        print(f"  {k.lower()} stacks: {len(v)} records, {statistics.mean(fr):.1f} frames "
              f"(median {statistics.median(fr):.0f}, max {max(fr)}) and "
              f"{statistics.mean(by):.1f} bytes ({min(by)}-{max(by)}) per record, "
              f"{tr} truncated")
        w["stacks"][k.lower()] = {"records": len(v), "mean_frames": round(statistics.mean(fr), 2),
                                  "median_frames": statistics.median(fr), "max_frames": max(fr),
                                  "mean_bytes": round(statistics.mean(by), 2),
                                  "truncated": tr}
    report["workloads"][wl] = w
with open(jpath, "w") as f:
    json.dump(report, f, indent=1)
print(f"written: {jpath}")
sys.exit(1 if bad else 0)
PY
