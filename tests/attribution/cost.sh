#!/usr/bin/env bash
# The cost of context records (tests/attribution/cost-guest.sh), measured
# as make bench-peers measures: the patched kernel under -icount on one
# vCPU, so that guest time counts instructions and does not depend on the
# host's load. One boot holds two builds of the module, measured in turn
# in each round: the module as built, and the same source with CONTEXT
# records turned off (ltt_context_filter() returning 0: a session without
# scheduling changes takes the direct path and writes none, as before they
# existed). Prints, per session, the median instructions per getppid call
# and per event above the untraced loop, in each build and the difference;
# per wl_pingpong round trip the same; and the bytes the context records
# add per context switch. Not part of make check (a measurement).
# COST_ITERS (50000), COST_RUNS (3), COST_PINGPONG (5000) set the sizes;
# COST_TIMEOUT (3600 s) bounds the boot, and a boot cut short still reports
# the runs it finished (the guest prints each as it is measured).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
out=$build/test-results/attribution-cost
n=${COST_ITERS:-50000} runs=${COST_RUNS:-3} pp=${COST_PINGPONG:-5000}
mkdir -p "$build/bench"
gcc -static -O2 -Wall -Wextra -o "$build/bench/peers-bench" tests/bench/peers-bench.c || exit 1
vm_need "$build/bin/tracedaemon" "$build/bin/traceanalyze" "$build/workloads/wl_pingpong" || exit 1
vm_kernel ltt --no-build >/dev/null || { echo "cost.sh: the patched kernel is not cached" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# The module without context records: a copy of module/ and include/
# whose ltt_context_filter() asks for none.
src=$out/nocontext-src
mkdir -p "$src"
cp -r module include "$src/"
sed -i '/^static inline u32 ltt_context_filter/,/^}/ s/return LTT_FILTER_CONTEXT;/return 0;/' \
	"$src/module/ltt_event.h"
grep -A8 '^static inline u32 ltt_context_filter' "$src/module/ltt_event.h" | grep -q 'return 0;' ||
	{ echo "cost.sh: could not turn context records off in the copy" >&2; exit 1; }

vm_module ltt >/dev/null || exit 1
nocontext=$("$src/module/build.sh" "$vm_kdir" "$build/module/ltt-nocontext" | tail -n 1) || exit 1
vm_bins=("$build/bin/tracedaemon" "$build/bench/peers-bench") vm_workloads=1
icount="shift=0,sleep=off"
vm_qemu=(--timeout "${COST_TIMEOUT:-3600}" --mem 1G --smp 1 --qemu-arg -icount --qemu-arg "$icount"
	--add "$nocontext:/opt/ltt/nocontext/")
vm_boot "$out" tests/attribution/cost-guest.sh "$n" "$runs" "$pp" >"$out/guest.log" 2>&1 ||
	echo "cost.sh: the boot failed or was cut short: $(tail -n 3 "$out/guest.log")" >&2
python3 - "$out" "$n" "$pp" "$build/bin/traceanalyze" <<'PY'
import json, os, statistics, subprocess, sys
out, n, pp, ta = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# "run MODULE NAME ROUND ns TOTAL", from runs.txt or, when the boot was
# cut short, the guest's output.
lines = []
for path in (f"{out}/runs.txt", f"{out}/guest.log"):
    if os.path.exists(path):
        lines = [l.split() for l in open(path, errors="replace") if l.startswith("run ")]
        if lines:
            break
runs = {}
for f in lines:
    if len(f) == 6 and f[4] == "ns":
        runs.setdefault(f[1], {}).setdefault(f[2], []).append(int(f[5]))
med = {v: {k: (statistics.median(x), len(x)) for k, x in runs.get(v, {}).items()}
       for v in ("context", "nocontext")}


def counts(variant, name):
    path = f"{out}/{variant}-{name}.trace"
    if not os.path.exists(path):
        return None, None
    doc = json.loads(subprocess.run([ta, "--json", path, f"{out}/{variant}-{name}.proc"],
                                    capture_output=True, text=True, check=True).stdout)
    return doc["event_counts"], os.path.getsize(path)


print(f"getppid loop, {n} calls (2 events each), instructions (icount ns), median of runs:")
for variant in ("context", "nocontext"):
    m = med[variant]
    if "none" not in m:
        print(f"  {variant}: no untraced run")
        continue
    base = m["none"][0] / n
    print(f"  {variant}: untraced {base:.1f} per call ({m['none'][1]} runs)")
    for name in ("full", "syscall", "pid"):
        if name in m:
            per = m[name][0] / n
            print(f"  {variant}: {name:8} {per:7.1f} per call, {(per - base) / 2:6.1f} per event "
                  f"({m[name][1]} runs)")
for name in ("full", "syscall", "pid"):
    a, b = med["context"].get(name), med["nocontext"].get(name)
    if a and b:
        print(f"  context records' cost, {name:8}: {(a[0] - b[0]) / n / 2:+.1f} per event")
print(f"wl_pingpong {pp} round trips (2 context switches each), instructions per round trip:")
for variant in ("context", "nocontext"):
    m = med[variant]
    for name in ("ppnone", "ppsys", "ppsched"):
        if name in m:
            print(f"  {variant}: {name:8} {m[name][0] / pp:9.1f} ({m[name][1]} runs)")
a, b = med["context"].get("ppsys"), med["nocontext"].get("ppsys")
if a and b:
    print(f"  context records' cost under -e SYSCALL: {(a[0] - b[0]) / pp / 2:+.1f} per switch")
cs, ss = counts("context", "ppsys")
ns_, nss = counts("nocontext", "ppsys")
sc, scs = counts("context", "ppsched")
if cs and ns_:
    ctx = cs.get("context", 0)
    sw = sc.get("schedchange", 0) if sc else 0
    print(f"bytes (last run's traces): -e SYSCALL {ss} with context records, {nss} without: "
          f"{ss - nss:+d} bytes for {ctx} CONTEXT records ({(ss - nss) / max(ctx, 1):.1f} each)")
    if sw:
        print(f"  {sw} context switches recorded by -e SYSCALL,SCHEDCHANGE ({scs} bytes, "
              f"{(scs - nss) / sw:.1f} per switch); context records: {(ss - nss) / sw:.1f} "
              f"bytes per switch")
PY
