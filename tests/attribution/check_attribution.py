#!/usr/bin/env python3
"""check_attribution.py OUT TRACEANALYZE [PREFIX]: holds the attribution
guest's traces (tests/attribution/attribution-guest.sh) against the truth.

For each session shape it runs `traceanalyze --json` on OUT/SHAPE.trace and
.proc and checks that the process that made wl_calltable's calls has its
exact per-call table, is named wl_calltable, and that no other process (nor
the "unattributed" entry) received any of its lseek calls, the one call of
its table nothing else in the guest makes. Prints `ok - ` / `FAIL - ` lines
and `N passed, N failed`.
"""
import json
import os
import subprocess
import sys

# wl_calltable's table (tests/workloads/wl_calltable.c).
TABLE = {"write": 1000, "read": 500, "getpid": 2000, "lseek": 300,
         "openat": 101, "close": 101, "ioctl": 100}
# The shapes, and what each allows beyond the table, calls the same task
# makes before its exec: tracedaemon's command child waits for the
# go-ahead in a read, whose entry falls after the trace's start when the
# child is slow to get there; busybox su calls getpid once after its
# setuid (from then on the task is the owner's, and the session sees it).
SHAPES = {"syscall": {"read": (500, 501)}, "pid": {}, "running": {},
          "su": {"getpid": (2000, 2001)}}

passed = failed = 0


def result(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"FAIL - {name}: {why}")


def calls(entry):
    return {s["name"]: s["count"] for s in (entry.get("syscall_table") or [])}


def check(out, ta, prefix, shape, allow):
    trace = os.path.join(out, shape + ".trace")
    if not os.path.exists(trace):
        result(False, f"{prefix}{shape}: trace written", "no " + trace)
        return
    run = subprocess.run([ta, "--json", trace, os.path.join(out, shape + ".proc")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        result(False, f"{prefix}{shape}: traceanalyze --json", run.stderr[:300])
        return
    doc = json.loads(run.stdout)
    procs = [p for p in doc["processes"] if calls(p).get("lseek")]
    un = doc.get("unattributed")
    if len(procs) != 1:
        who = ", ".join(f'{p["name"]} ({p["pid"]}): {calls(p).get("lseek")}' for p in procs)
        result(False, f"{prefix}{shape}: one process made the lseek calls",
               f"{who or 'none'}; unattributed: {calls(un).get('lseek') if un else 0}")
        return
    p = procs[0]
    got = calls(p)
    bad = []
    for name, want in TABLE.items():
        ok = allow.get(name, (want,))
        if got.get(name, 0) not in ok:
            bad.append(f"{name} {got.get(name, 0)} (want {'/'.join(map(str, ok))})")
    result(not bad, f"{prefix}{shape}: {p['name']} ({p['pid']}) has wl_calltable's exact "
           "per-call table", "; ".join(bad))
    result(p["name"] == "wl_calltable", f"{prefix}{shape}: the process is named wl_calltable",
           f"named {p['name']!r}")
    lseek_un = calls(un).get("lseek", 0) if un else 0
    result(lseek_un == 0, f"{prefix}{shape}: no unattributed lseek",
           f"{lseek_un} unattributed ({un['reasons'] if un else ''})")


def main():
    out, ta = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    for shape, allow in SHAPES.items():
        check(out, ta, prefix, shape, allow)
    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
