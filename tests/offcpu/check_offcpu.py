#!/usr/bin/env python3
"""check_offcpu.py OUT TRACEANALYZE WORKLOADS [PREFIX]: holds the off-CPU
guest's traces (tests/offcpu/offcpu-guest.sh) against what the workload
measured and what the kernel itself saw.

- `traceanalyze --offcpu --folded -p PID` of OUT/off.trace: the blocked
  time in stacks through pipe_read, do_nanosleep and the fsync system call
  lies, within 3 % + 3 ms, between what the workload measured of each
  call: its time off the CPU (wall time less its thread's CPU time), of
  which blocked time (switched out asleep, until switched in) is all but
  the waits on a run queue after a preemption, and that time less all its
  run-queue waits (schedstat's run_delay, which also counts the wait after
  the wakeup, part of blocked time); and each stack's user frames name the
  workload function that made the call (the binaries read under --symfs,
  as on another machine).
- The kernel stacks of the workload's STACK records, symbolized here with
  the trace's kallsyms copy (not libltt's symbolizer), equal, switch by
  switch, the stacks ftrace's stacktrace trigger on sched_switch took in
  the same run (both from __schedule outwards).
- The restricted session's trace has user stacks and no kernel stack.
Prints `ok - ` / `FAIL - ` lines and `N passed, N failed`.
"""
import bisect
import os
import re
import shutil
import subprocess
import sys
import tempfile

passed = failed = 0


def result(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"FAIL - {name}: {why}")


def kallsyms(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def from_schedule(frames):
    """Innermost-first frames from __schedule on (the hook's dropped)."""
    return frames[frames.index("__schedule"):] if "__schedule" in frames else frames


def ltt_stacks(ta, trace, pid, kind):
    run = subprocess.run([ta, "-d", "-t", "STACK", trace], capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr[:300]
    out = []
    for line in run.stdout.splitlines():
        m = re.search(r"\b(KERNEL|USER) PID : (-?\d+); FRAMES : \d+[^;]*;?(.*)$", line)
        if m and m.group(1) == kind and int(m.group(2)) == pid:
            out.append([int(a, 16) for a in m.group(3).split()])
    return out, ""


def ftrace_stacks(path, pid):
    stacks, cur = [], None
    with open(path) as f:
        for line in f:
            if "<stack trace>" in line:
                m = re.search(r"-(\d+)\s+\[", line)
                cur = [] if m and int(m.group(1)) == pid else None
                if cur is not None:
                    stacks.append(cur)
            elif line.startswith(" => ") and cur is not None:
                cur.append(line[4:].split("+")[0].strip())
            elif not line.startswith(" => "):
                cur = None
    return stacks


def main():
    out, ta, workloads = sys.argv[1:4]
    prefix = sys.argv[4] if len(sys.argv) > 4 else ""
    status = open(os.path.join(out, "off.status")).read().strip() if os.path.exists(
        os.path.join(out, "off.status")) else "none"
    result(status == "0", f"{prefix}tracedaemon -S -- wl_offcpu exits 0",
           f"status {status}: {open(os.path.join(out, 'off.log')).read()[:300]}"
           if os.path.exists(os.path.join(out, "off.log")) else status)
    wl = {}
    if os.path.exists(os.path.join(out, "wl.txt")):
        for line in open(os.path.join(out, "wl.txt")):
            k, *v = line.split()
            if v and all(x.isdigit() for x in v):
                wl[k] = [int(x) for x in v]
    if not {"pid", "pipe", "sleep", "fsync"} <= wl.keys() or any(
            len(wl[k]) != 2 for k in ("pipe", "sleep", "fsync")):
        result(False, f"{prefix}the workload reported its times", str(wl))
        return
    pid = wl["pid"][0]
    trace = os.path.join(out, "off.trace")
    # The workload as it lay on the traced machine, for --symfs.
    root = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(root, "opt/ltt/workloads"))
        shutil.copy(os.path.join(workloads, "wl_offcpu"), os.path.join(root, "opt/ltt/workloads"))
        run = subprocess.run([ta, "--offcpu", "--folded", "-p", str(pid), "--symfs", root, trace,
                              os.path.join(out, "off.proc")], capture_output=True, text=True)
    finally:
        shutil.rmtree(root)
    result(run.returncode == 0, f"{prefix}traceanalyze --offcpu --folded", run.stderr[:300])
    folded = []
    for line in run.stdout.splitlines():
        stack, _, us = line.rpartition(" ")
        folded.append((stack.split(";"), int(us)))
    result(all(f[0][0] == "wl_offcpu" for f in folded) and folded,
           f"{prefix}folded stacks of PID {pid} are wl_offcpu's", str(folded[:3]))
    cases = [("pipe read", "pipe", ["pipe_read"], "block_in_pipe"),
             ("nanosleep", "sleep", ["do_nanosleep", "hrtimer_nanosleep"], "block_in_sleep"),
             ("fsync", "fsync", ["__x64_sys_fsync", "do_fsync"], "block_in_fsync")]
    for name, key, kfuncs, ufunc in cases:
        mine = [(s, us) for s, us in folded if any(k in s for k in kfuncs)]
        us = sum(u for _, u in mine)
        off, wait = wl[key][0] / 1000, wl[key][1] / 1000
        lo, hi = (off - wait) * 0.97 - 3000, off * 1.03 + 3000
        result(mine and lo <= us <= hi,
               f"{prefix}{name}: blocked time in {kfuncs[0]} {us} us, the call's time off the "
               f"CPU {off:.0f} us, {wait:.0f} us of it on a run queue",
               f"outside [{lo:.0f}, {hi:.0f}]")
        def entry(s):
            return next((i for i, f in enumerate(s) if f.startswith("entry_SYSCALL_64")), -1)
        result(mine and all(ufunc in s and "main" in s and s.index(ufunc) > s.index("main") and
                            s.index(ufunc) < entry(s) for s, _ in mine),
               f"{prefix}{name}: user frames main;...;{ufunc} above the kernel's",
               str([";".join(s) for s, _ in mine][:2]))

    # The witness: the same kernel stacks as ftrace's, switch by switch.
    ks = os.path.join(out, "off.kallsyms")
    fpath = os.path.join(out, "ftrace.txt")
    if not os.path.exists(fpath):
        print(f"skip - {prefix}kernel stacks equal ftrace's: no ftrace output")
    elif not os.path.exists(ks):
        result(False, f"{prefix}the trace's kallsyms copy exists", ks)
    else:
        addrs, names = kallsyms(ks)

        def name(a):
            i = bisect.bisect_right(addrs, a - 1) - 1
            return names[i] if i >= 0 else hex(a)
        mine, why = ltt_stacks(ta, trace, pid, "KERNEL")
        if mine is None:
            result(False, f"{prefix}traceanalyze -d -t STACK", why)
        else:
            mine = [from_schedule([name(a) for a in s]) for s in mine]
            theirs = [from_schedule(s) for s in ftrace_stacks(fpath, pid)]
            result(len(mine) >= 3 and len(mine) == len(theirs),
                   f"{prefix}as many kernel stacks as ftrace's blocking switches "
                   f"({len(mine)}, ftrace {len(theirs)})", "counts differ")
            diff = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
            result(not diff and mine, f"{prefix}each kernel stack equals ftrace's for that switch",
                   f"switch {diff[0] if diff else '-'}: ltt {mine[diff[0]] if diff else ''} "
                   f"ftrace {theirs[diff[0]] if diff else ''}")

    # The restricted session: user stacks only.
    upath = os.path.join(out, "user.trace")
    ustatus = open(os.path.join(out, "user.status")).read().strip() if os.path.exists(
        os.path.join(out, "user.status")) else "none"
    result(ustatus == "0" and os.path.exists(upath),
           f"{prefix}restricted session: tracedaemon -S -- wl_offcpu exits 0", f"status {ustatus}")
    if os.path.exists(upath):
        run = subprocess.run([ta, "-d", "-t", "STACK", upath], capture_output=True, text=True)
        kern = sum(1 for l in run.stdout.splitlines() if re.search(r"\bKERNEL PID", l))
        user = sum(1 for l in run.stdout.splitlines() if re.search(r"\bUSER PID", l))
        result(run.returncode == 0 and kern == 0 and user >= 2,
               f"{prefix}restricted session: user stacks ({user}), no kernel stack ({kern})",
               run.stderr[:200])


main()
print(f"{passed} passed, {failed} failed")
