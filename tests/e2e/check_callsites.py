#!/usr/bin/env python3
"""Checks the call-site test's trace (tests/e2e/callsites.sh).

usage: check_callsites.py OUT TRACEANALYZE WORKLOADS

Runs `traceanalyze --callsites --json` on OUT/cs.trace and prints one
result line per check ("ok - NAME" / "FAIL - NAME: why"): every wl_callsites
build made exactly 2 000 getpid calls from make_getpids and 500 from
make_more_getpids and none from anywhere else; the stripped build's sites
are binary+0xADDR with ADDR inside those functions as `nm -S` gives them
for its unstripped twin; dynamic builds' library calls resolve to libc and
the dynamic loader (MAP records of mmap and exec); the kallsyms copy is
private and holds addresses.
"""
import json
import os
import re
import stat
import subprocess
import sys

out, analyze, wl = sys.argv[1:4]
results = []


def check(name, cond, why=""):
    results.append(f"ok - {name}" if cond else f"FAIL - {name}: {why}")


def nm_ranges(path):
    """function -> (start, end) from nm -S."""
    r = {}
    for line in subprocess.run(["nm", "-S", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in ("make_getpids", "make_more_getpids"):
            a, s = int(f[0], 16), int(f[1], 16)
            r[f[3]] = (a, a + s)
    return r


status = {}
if os.path.exists(f"{out}/cs.status"):
    for line in open(f"{out}/cs.status"):
        v, rc = line.split()
        status[v] = rc
check("callsites: the five builds ran", sorted(status) ==
      sorted(["static", "static-pie", "dyn", "dyn-nopie", "stripped"]) and
      set(status.values()) == {"0"}, f"statuses {status}")
daemon = open(f"{out}/cs.daemon.status").read().strip() if os.path.exists(f"{out}/cs.daemon.status") else "?"
check("callsites: tracedaemon exit status 0", daemon == "0", f"status {daemon}")

ks = f"{out}/cs.kallsyms"
if os.path.exists(ks):
    ls = open(f"{out}/cs.kallsyms.ls").read() if os.path.exists(f"{out}/cs.kallsyms.ls") else ""
    check("callsites: the kallsyms copy is private (0600) in the guest", ls.startswith("-rw-------"), ls.strip())
    text = [ln.split() for ln in open(ks)]
    real = [f for f in text if len(f) >= 3 and f[1] in "tT" and int(f[0], 16) != 0]
    check("callsites: the kallsyms copy holds real addresses", len(real) > 1000,
          f"{len(real)} text symbols with an address of {len(text)} lines")
else:
    check("callsites: tracedaemon saved NAME.kallsyms", False, f"no {ks}")

p = subprocess.run([analyze, "--callsites", "--json", "--no-progress", f"{out}/cs.trace", f"{out}/cs.proc"],
                   capture_output=True, text=True)
check("callsites: traceanalyze --callsites --json exit status 0", p.returncode == 0, p.stderr.strip()[-300:])
try:
    doc = json.loads(p.stdout)["callsites"]
except (ValueError, KeyError) as e:
    check("callsites: the JSON document has a callsites section", False, str(e))
    doc = {"processes": [], "map_records": 0}
check("callsites: MAP records in the trace", doc.get("map_records", 0) > 0, "none")

twin = nm_ranges(f"{wl}/wl_callsites-dyn")
dyn_offsets = {}  # function -> the offsets the unstripped dyn build's sites have
stripped_addrs = {}  # function -> the addresses the stripped build's sites have
for v in ["static", "static-pie", "dyn", "dyn-nopie", "stripped"]:
    name = f"wl_callsites-{v}"
    # dyn-nopie is started just before tracing: exec'd by the snapshot it
    # has its .proc name, the 15-byte comm; on a slow guest it may still be
    # the shell's fork then, and be named by its exec, in full.
    want = {name[:15], name} if v == "dyn-nopie" else {name}
    procs = [q for q in doc["processes"] if q["name"] in want]
    if len(procs) != 1:
        check(f"callsites: {v}: one process named {name}", False, f"{len(procs)} found")
        continue
    sites = [s for s in procs[0]["sites"] if s["syscall"] == "getpid"]
    by_fn = {}
    bad = []
    for s in sites:
        m = re.fullmatch(re.escape(name) + r"!(\w+)\+0x[0-9a-f]+", s["site"])
        if v == "stripped":
            m2 = re.fullmatch(re.escape(name) + r"\+0x([0-9a-f]+)", s["site"])
            fn = None
            if m2:
                a = int(m2.group(1), 16)
                fn = next((f for f, (lo, hi) in twin.items() if lo <= a < hi), None)
            if fn is None:
                bad.append(s["site"])
                continue
            stripped_addrs.setdefault(fn, set()).add(a)
        elif m:
            fn = m.group(1)
            if v == "dyn":
                off = int(s["site"].rsplit("+", 1)[1], 16)
                dyn_offsets.setdefault(fn, set()).add(off)
        else:
            bad.append(s["site"])
            continue
        by_fn[fn] = by_fn.get(fn, 0) + s["count"]
    check(f"callsites: {v}: getpid sites are exactly make_getpids 2000 and make_more_getpids 500",
          not bad and by_fn == {"make_getpids": 2000, "make_more_getpids": 500},
          f"sites {by_fn}, unexpected {bad[:3]}")
    if v in ("dyn", "dyn-nopie", "stripped"):
        all_sites = [s["site"] for s in procs[0]["sites"]]
        check(f"callsites: {v}: library calls resolve in libc.so.6",
              any(s.startswith("libc.so.6!") for s in all_sites), f"sites {all_sites[:6]}")
        if v != "dyn-nopie":  # started before the trace: loaded before it too
            check(f"callsites: {v}: loader calls resolve in ld-linux-x86-64.so.2",
                  any(s.startswith("ld-linux-x86-64.so.2!") for s in all_sites),
                  f"sites {all_sites[:6]}")

want = {fn: {twin[fn][0] + o for o in offs} for fn, offs in dyn_offsets.items() if fn in twin}
check("callsites: stripped: each site is nm's address of the function in the unstripped twin "
      "plus the offset the twin's own sites have", want and stripped_addrs == want,
      f"stripped {stripped_addrs}, twin {want}")

if os.path.exists(f"{out}/cs.params"):
    for line in open(f"{out}/cs.params"):
        results.append(f"# module: {line.strip()}")

for line in results:
    print(line)
