#!/usr/bin/env python3
"""Host-side checks of the control run (tests/module/control-guest.sh).

usage: check_control.py OUT BUILD

OUT/control.trace: the whole system traced while three wl_syscalls runs made
100, 200 and 300 getpid calls (in a forked child each), system calls switched
off by "events -SYSCALL" before the second and on again by "events +SYSCALL"
before the third. Each check prints "ok - NAME" or "FAIL - NAME: why", then
"N passed, N failed".
"""
import json
import subprocess
import sys

out, build = sys.argv[1], sys.argv[2]
ta = f"{build}/bin/traceanalyze"
passed = failed = 0
SYSCALLS = (1 << 1) | (1 << 2)  # SYSCALL_ENTRY, SYSCALL_EXIT


def check(name, cond, why=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"FAIL - {name}: {why}")


def run(*args):
    p = subprocess.run([ta, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


trace, proc = f"{out}/control.trace", f"{out}/control.proc"
rc, text, err = run("-s", trace, proc)
check("traceanalyze -s reads the trace", rc == 0, err.strip()[:200])
rc, js, err = run("--json", "-d", "-t", "syscall_entry,27", trace, proc)
check("traceanalyze --json -d reads the trace", rc == 0, err.strip()[:200])
try:
    doc = json.loads(js)
except ValueError as e:
    doc = {}
    check("the JSON report parses", False, str(e))

changes = doc.get("config_changes", [])
check("two CONFIG records", len(changes) == 2, f"{changes}")
if len(changes) == 2:
    off, on = changes
    check("the first turns system calls off, the rest of the mask kept",
          off["changed"] == "events" and off["event_mask"] & SYSCALLS == 0
          and off["event_mask"] & (1 << 7), f"{off}")
    check("the second turns them on again",
          on["changed"] == "events" and on["event_mask"] & SYSCALLS == SYSCALLS
          and on["event_mask"] == off["event_mask"] | SYSCALLS, f"{on}")
    t0, t1 = off["time_ns"], on["time_ns"]
    inside = [e for e in doc.get("events", [])
              if e["event"] == "syscall_entry" and t0 < e["time_ns"] < t1]
    check("no system call recorded between the two records", not inside,
          f"{len(inside)}, first {inside[:1]}")
    dump = [e for e in doc.get("events", []) if e["event"] == "config"]
    check("-d describes the CONFIG records",
          len(dump) == 2 and dump[0]["description"].startswith("CHANGED : EVENTS; EVENTS : 0x"),
          f"{dump}")

# The three runs' children: wl_syscalls processes whose parent is one too,
# in pid order (the guest runs them one after the other).
procs = doc.get("processes", [])
runners = {p["pid"] for p in procs if p["name"] == "wl_syscalls"}
children = sorted((p for p in procs if p["name"] == "wl_syscalls" and p["ppid"] in runners),
                  key=lambda p: p["pid"])
check("three wl_syscalls children", len(children) == 3, f"{[c['pid'] for c in children]}")


def getpid_count(p):
    for s in p.get("syscall_table") or []:
        if s["name"] == "getpid":
            return s["count"]
    return 0


if len(children) == 3:
    got = [getpid_count(c) for c in children]
    check("getpid calls recorded: 100 before, none while off, 300 after",
          got == [100, 0, 300], f"{got}")

line = next((l for l in text.splitlines() if l.strip().startswith("Syscall entry")), "")
check("the text report says when system calls were not recorded",
      "(not recorded from " in line, f"'{line}'")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
