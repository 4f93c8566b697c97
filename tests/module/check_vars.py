#!/usr/bin/env python3
"""Host-side checks of the kernel-state variables run (tests/module/vars-guest.sh).

usage: check_vars.py OUT BUILD

OUT holds vars.trace/.proc (wl_vars traced with -V args,pid,ppid,uid,minflt
and -e ALL,MOUNT,LOCK), nolock.trace/.proc (-V pid, -e ALL,MOUNT) and the
workload's own readings (vars.out: pid, ppid, uid, minflt); twoa and
twob (-V pid,uid and -V args,ppid,minflt, two sessions at once) and
two.out, the readings of the workload that ran while both traced. Each check
prints "ok - NAME" or "FAIL - NAME: why", then "N passed, N failed".
"""
import json
import re
import subprocess
import sys

out, build = sys.argv[1], sys.argv[2]
ta = f"{build}/bin/traceanalyze"
passed = failed = 0


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


def readings(name):
    vals = {}
    try:
        for line in open(f"{out}/{name}.out"):
            k, _, v = line.partition(" ")
            vals[k] = int(v)
    except (OSError, ValueError):
        pass
    return vals


me = readings("vars")
check("wl_vars printed its pid, ppid, uid and minflt",
      all(k in me for k in ("pid", "ppid", "uid", "minflt")), f"vars.out: {me}")
pid = me.get("pid", -1)

rc, dump, err = run("-d", f"{out}/vars.trace", f"{out}/vars.proc")
check("traceanalyze -d reads the variables trace", rc == 0, err.strip()[:200])
# The dump's columns are fixed width: the PID is at 43..49.
mine = [l for l in dump.splitlines() if l[43:50].strip() == str(pid)]

expected = [
    ("openat of /etc/passwd", r'openat\(AT_FDCWD, "/etc/passwd", O_RDONLY\) = 3$'),
    ("read of 100 bytes", r"read\(3, 0x[0-9a-f]+, 100\) = 100$"),
    ("openat of /dev/null", r'openat\(AT_FDCWD, "/dev/null", O_WRONLY\) = 4$'),
    ("write of 100 bytes", r"write\(4, 0x[0-9a-f]+, 100\) = 100$"),
    ("close(3)", r"close\(3\) = 0$"),
    ("close(4)", r"close\(4\) = 0$"),
    ("getrusage", r"getrusage\(0, 0x[0-9a-f]+\) = 0$"),
    ("mount", r'mount\(("none"|0x[0-9a-f]+), ("/tmp/wlmnt"|0x[0-9a-f]+), 0x[0-9a-f]+, 0, NULL\) = 0$'),
    ("umount2", r'umount2\(("/tmp/wlmnt"|0x[0-9a-f]+), 0\) = 0$'),
]
for name, pat in expected:
    hits = [l for l in mine if "Syscall exit" in l and re.search(pat, l)]
    check(f"-d: the workload's {name}, strace-style", len(hits) == 1,
          f"{len(hits)} lines match /{pat}/")

start = [l for l in dump.splitlines() if "Trace start" in l]
check("-d: TRACE_START names the variables selected",
      len(start) == 1 and "VARIABLES : 0xc007" in start[0], start[0] if start else "none")
mounts = [l for l in mine if "Mount" in l]
check("-d: the MOUNT event with its target and source",
      sum('MOUNT : "/tmp/wlmnt"; SOURCE : "none"; FLAGS : 0x0; RET : 0' in l for l in mounts) == 1,
      "; ".join(mounts)[:300])
check("-d: the UMOUNT event with its target",
      sum('UMOUNT : "/tmp/wlmnt"; FLAGS : 0x0; RET : 0' in l for l in mounts) == 1,
      "; ".join(mounts)[:300])

rc, js, err = run("--json", "-d", f"{out}/vars.trace", f"{out}/vars.proc")
doc = None
try:
    doc = json.loads(js)
except ValueError as e:
    err = f"{e}; {err}"
check("--json -d is one JSON document with an events array",
      rc == 0 and doc is not None and isinstance(doc.get("events"), list), err.strip()[:200])
if doc:
    # The values in force on each CPU: VARS records carry changes only.
    state = {}
    seen = {}
    events = doc["events"]
    for i, e in enumerate(events):
        if e["event"] != "vars":
            continue
        st = state.setdefault(e["cpu"], {})
        st.update(e["vars"])
        if e["pid"] != pid or "syscall" not in e:
            continue
        nr = e["syscall"]
        if nr in (257, 98) and nr not in seen:
            seen[nr] = (dict(st), e.get("args"))
    st, args = seen.get(257, ({}, None))
    check("VARS at the workload's first openat: pid, ppid, uid as it read them",
          st.get("pid") == pid and st.get("ppid") == me.get("ppid") and st.get("uid") == me.get("uid"),
          f"trace {st}, workload {me}")
    check("VARS at the openat: its 4 arguments, AT_FDCWD and O_RDONLY",
          args is not None and len(args) == 4 and args[0] & 0xffffffff == 2**32 - 100 and args[2] == 0,
          f"args {args}")
    st, args = seen.get(98, ({}, None))
    check("VARS at getrusage: minflt equals the workload's ru_minflt",
          st.get("minflt") == me.get("minflt"), f"trace {st.get('minflt')}, workload {me.get('minflt')}")
    locks = doc["event_counts"].get("lock", 0)
    check("LOCK events recorded when selected", locks > 0, f"{locks} lock events")
    print(f"# vars.trace: {doc['event_counts']}")

rc, js, err = run("--json", f"{out}/nolock.trace", f"{out}/nolock.proc")
try:
    counts = json.loads(js)["event_counts"]
except (ValueError, KeyError) as e:
    counts = None
    err = f"{e}; {err}"
check("the trace without LOCK reads", counts is not None, err.strip()[:200])
if counts is not None:
    check("no LOCK events when not selected", counts.get("lock", 0) == 0, f"{counts.get('lock')}")
    check("MOUNT events without LOCK", counts.get("mount", 0) == 2, f"{counts.get('mount')}")
    check("VARS records with -V pid", counts.get("vars", 0) > 0, f"{counts.get('vars')}")
rc, dump2, err = run("-d", f"{out}/nolock.trace", f"{out}/nolock.proc")
check("without -V args no call is decoded",
      rc == 0 and "  CALL : " not in dump2 and not re.search(r"\) = -?[0-9]", dump2),
      err.strip()[:200])

# Two sessions traced at once (twoa: -V pid,uid; twob: -V args,ppid,minflt)
# while wl_vars ran: each trace holds exactly its own variables.
two = readings("two")
two_pid = two.get("pid", -1)
check("wl_vars beside the two sessions printed its pid", two_pid > 0, f"two.out: {two}")
for name, want, args in (("twoa", {"pid", "uid"}, False), ("twob", {"ppid", "minflt"}, True)):
    rc, js, err = run("--json", "-d", f"{out}/{name}.trace", f"{out}/{name}.proc")
    try:
        d = json.loads(js)
    except ValueError as e:
        d = None
        err = f"{e}; {err}"
    check(f"{name}: --json -d reads", rc == 0 and d is not None, err.strip()[:200])
    if d is None:
        continue
    evs = d["events"]
    starts = [e for e in evs if e["event"] == "trace_start"]
    named = set(want) | ({"args"} if args else set())
    check(f"{name}: TRACE_START lists its own variables only",
          len(starts) == 1 and set(starts[0].get("variables", [])) == named,
          f"{[s.get('variables') for s in starts]}, want {sorted(named)}")
    vars_ev = [e for e in evs if e["event"] == "vars"]
    got = set()
    for e in vars_ev:
        got |= set(e.get("vars", {}))
    check(f"{name}: its VARS records hold exactly {sorted(want)}", got == want,
          f"{sorted(got)} in {len(vars_ev)} VARS records")
    with_args = sum("args" in e for e in vars_ev)
    check(f"{name}: system-call arguments {'recorded' if args else 'absent'}",
          (with_args > 0) == args, f"{with_args} VARS records with arguments")
    # Both traces saw the workload: the sessions traced at the same time.
    of_wl = sum(e["pid"] == two_pid for e in vars_ev)
    check(f"{name}: VARS records of the workload that ran while both traced",
          of_wl > 0, f"{of_wl} of pid {two_pid}")
print(f"{passed} passed, {failed} failed")
