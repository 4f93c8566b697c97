#!/usr/bin/env python3
"""check_attribution.py OUT TRACEANALYZE [PREFIX]: holds the attribution
guest's traces (tests/attribution/attribution-guest.sh) against the truth.

For each session shape it runs `traceanalyze --json` on OUT/SHAPE.trace and
.proc and checks that the process that made wl_calltable's calls has its
exact per-call table, is named wl_calltable, that no other process received
any of its lseek calls, the one call of its table nothing else in the guest
makes, and that the trace has no "unattributed" entry: every event of it
went to a task. Then what makes each shape the shape it claims to be: the
mask shape's two CONFIG records (SCHEDCHANGE dropped, then restored) with
CONTEXT records between them, the flight snapshot's overwritten ring
without the workload's fork, and that the setuid helper's calls before its
exec are nowhere in the restricted trace. Prints `ok - ` / `FAIL - ` lines
and `N passed, N failed`.
"""
import json
import os
import re
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
          "su": {"getpid": (2000, 2001)}, "mask": {}, "flight": {}, "setuid": {}}
SCHEDCHANGE = 1 << 7  # LTT_EV_SCHEDCHANGE (include/ltt/events.h)

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


def analyze(ta, out, shape, prefix, dump=False):
    """traceanalyze --json [-d] of SHAPE's trace: the document, or None."""
    trace = os.path.join(out, shape + ".trace")
    args = [ta, "--json"] + (["-d"] if dump else []) + [trace, os.path.join(out, shape + ".proc")]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        result(False, f"{prefix}{shape}: traceanalyze --json{' -d' if dump else ''}", run.stderr[:300])
        return None
    return json.loads(run.stdout)


def read(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read().strip()
    except OSError:
        return None


def check(out, ta, prefix, shape, allow):
    trace = os.path.join(out, shape + ".trace")
    if not os.path.exists(trace):
        result(False, f"{prefix}{shape}: trace written", "no " + trace)
        return
    for what in ("wl", "daemon"):
        st = read(out, f"{shape}.{what}.status")
        if st is not None:
            result(st == "0", f"{prefix}{shape}: the {'workload' if what == 'wl' else 'daemon'} "
                   "exits with status 0", f"status {st}")
    doc = analyze(ta, out, shape, prefix)
    if doc is None:
        return
    procs = [p for p in doc["processes"] if calls(p).get("lseek")]
    un = doc.get("unattributed")
    result(un is None, f"{prefix}{shape}: every event attributed (no unattributed entry)",
           f"{un['events'] if un else 0} unattributed: {un['reasons'] if un else ''}; "
           f"its calls {calls(un) if un else {}}")
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
    pid = read(out, shape + ".pid")
    if pid is not None:
        result(str(p["pid"]) == pid, f"{prefix}{shape}: it is the workload's pid",
               f"pid {p['pid']}, the guest started {pid}")
    extra = {"mask": check_mask, "flight": check_flight, "setuid": check_setuid}.get(shape)
    if extra:
        extra(out, ta, prefix, shape, doc, p)


def check_mask(out, ta, prefix, shape, doc, p):
    """Scheduling events dropped, then restored, CONTEXT records between."""
    ch = [c for c in doc.get("config_changes", []) if c["changed"] == "events"]
    masks = [bool(c["event_mask"] & SCHEDCHANGE) for c in ch]
    result(masks == [False, True], f"{prefix}{shape}: SCHEDCHANGE dropped, then restored "
           "(two CONFIG records)", f"SCHEDCHANGE in the changes' masks: {masks}")
    if len(ch) != 2:
        return
    dump = analyze(ta, out, shape, prefix, dump=True)
    if dump is None:
        return
    lo, hi = ch[0]["time_ns"], ch[1]["time_ns"]
    ctx = [e for e in dump["events"] if e["event"] == "context" and lo <= e["time_ns"] <= hi]
    sched = [e for e in dump["events"] if e["event"] == "schedchange" and lo < e["time_ns"] < hi]
    result(bool(ctx) and not sched, f"{prefix}{shape}: between them CONTEXT records and no "
           "schedchange", f"{len(ctx)} CONTEXT, {len(sched)} schedchange records")
    mine = [e for e in ctx if e["pid"] == p["pid"]]
    result(bool(mine), f"{prefix}{shape}: a CONTEXT record names the workload there",
           "none does")


def check_flight(out, ta, prefix, shape, doc, p):
    """The ring overwritten before the workload ran: its fork is gone."""
    log = read(out, shape + ".log") or ""
    m = re.search(r"snapshot 1 \(.*?(\d+) events overwritten", log)
    n = int(m.group(1)) if m else 0
    result(n > 0, f"{prefix}{shape}: the snapshot's ring was overwritten",
           f"{n} events overwritten: {log[-300:]!r}")
    dump = analyze(ta, out, shape, prefix, dump=True)
    if dump is None:
        return
    fork = [e for e in dump["events"] if e["event"] == "process" and
            e.get("subtype") == "FORK" and f"FORK PID : {p['pid']};" in e["description"]]
    result(not fork, f"{prefix}{shape}: the workload's fork is not in the snapshot",
           f"{fork[:1]}")


def check_setuid(out, ta, prefix, shape, doc, p):
    """Nothing of the helper before its exec: no getppid, no wl_become."""
    named = [f'{q["name"]} ({q["pid"]})' for q in doc["processes"] if q["name"] == "wl_become"]
    result(not named, f"{prefix}{shape}: no process named wl_become", ", ".join(named))
    dump = analyze(ta, out, shape, prefix, dump=True)
    if dump is None:
        return
    seen = [e for e in dump["events"] if e["event"] == "syscall_entry" and
            e["description"].startswith("SYSCALL : getppid;")]
    result(not seen, f"{prefix}{shape}: none of the helper's 2468 getppid calls is in the trace",
           f"{len(seen)} are, first {seen[:1]}")


def main():
    out, ta = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    for shape, allow in SHAPES.items():
        check(out, ta, prefix, shape, allow)
    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
