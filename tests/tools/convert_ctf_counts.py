#!/usr/bin/env python3
"""Checks a CTF conversion (traceconvert --to ctf) against traceanalyze.

  convert_ctf_counts.py JSON BT-OUT BT-ERR SUMMARY [DUMP]

JSON: traceanalyze --json of the trace; BT-OUT / BT-ERR: babeltrace2's
stdout and stderr reading the converted directory (run as
`babeltrace2 --no-delta --fields=loglevel --clock-seconds DIR`); SUMMARY:
traceconvert's stderr. Checks, per ltt event type, that the CTF events
under its names plus the events the summary says were dropped by rule equal
traceanalyze's count; that the events the tracer lost are all reported by
babeltrace2 as discarded; that read/written/dropped add up. With DUMP
(traceanalyze -d of the trace), also that every event kept has a CTF event
of its type at the same time on the same CPU. Prints one line per failure
and exits 1 if any.
"""
import collections
import json
import re
import sys

LINE = re.compile(r"^\[(\d+)\.(\d{9})\] ([A-Za-z0-9_]+): \{ cpu_id = (\d+) \}")
SUMMARY = re.compile(
    r"(\d+) events read, (\d+) written, (\d+) dropped by rule(?: \(([^)]*)\))?, "
    r"(\d+) lost by the tracer; (\d+) state-dump events added")
DISCARDED = re.compile(r"Tracer discarded (\d+) events")


def ltt_key(name):
    """The ltt event key a CTF event name stands for ("" for the state dump)."""
    if name.startswith("lttng_statedump_"):
        return ""
    fixed = {
        "sched_switch": "schedchange",
        "sched_wakeup": "process",
        "sched_process_fork": "process",
        "sched_process_exit": "process",
        "sched_process_wait": "process",
        "sched_process_exec": "file_system",
        "irq_handler_entry": "irq_entry",
        "irq_handler_exit": "irq_exit",
        "irq_softirq_entry": "soft_irq",
        "irq_softirq_exit": "soft_irq",
    }
    if name in fixed:
        return fixed[name]
    if name.startswith("syscall_entry_"):
        return "syscall_entry"
    if name.startswith("syscall_exit_"):
        return "syscall_exit"
    if name.startswith("x86_irq_vectors_"):
        return "irq_entry" if name.endswith("_entry") else "irq_exit"
    if name.startswith("ltt_"):
        return name[4:]
    return None


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        analysis = json.load(f)
    with open(sys.argv[2], errors="replace") as f:
        bt_lines = f.read().splitlines()
    with open(sys.argv[3], errors="replace") as f:
        bt_err = f.read()
    with open(sys.argv[4], errors="replace") as f:
        summary = f.read()
    failures = []

    m = SUMMARY.search(summary)
    if not m:
        print("no summary line in traceconvert's output: " + summary[-300:])
        return 1
    read, written, dropped, breakdown, lost, added = m.groups()
    read, written, dropped, lost, added = map(int, (read, written, dropped, lost, added))
    dropped_by = collections.Counter()
    for item in (breakdown or "").split(", "):
        if item:
            key, n = item.rsplit(" ", 1)
            dropped_by[key] += int(n)

    ctf = collections.Counter()
    events = []
    statedump = 0
    for line in bt_lines:
        lm = LINE.match(line)
        if not lm:
            failures.append("babeltrace2 line not understood: " + line[:200])
            continue
        key = ltt_key(lm.group(3))
        if key is None:
            failures.append("CTF event name that maps to no ltt event: " + lm.group(3))
        elif key == "":
            statedump += 1
        else:
            ctf[key] += 1
            events.append((lm.group(1) + lm.group(2), int(lm.group(4)), key))

    counts = analysis["event_counts"]
    for key in sorted(set(counts) | set(ctf) | set(dropped_by)):
        want = counts.get(key, 0)
        got = ctf[key] + dropped_by[key]
        if want != got:
            failures.append("%s: traceanalyze counts %d, CTF has %d + %d dropped by rule" %
                            (key, want, ctf[key], dropped_by[key]))
    total = analysis["trace"]["events"]
    if read != total:
        failures.append("events read %d, traceanalyze counts %d" % (read, total))
    if written + dropped != read:
        failures.append("written %d + dropped %d != read %d" % (written, dropped, read))
    if sum(ctf.values()) != written:
        failures.append("babeltrace2 shows %d events, traceconvert wrote %d" %
                        (sum(ctf.values()), written))
    if sum(dropped_by.values()) != dropped:
        failures.append("dropped breakdown sums to %d, not %d" % (sum(dropped_by.values()), dropped))
    if statedump != added:
        failures.append("babeltrace2 shows %d state-dump events, traceconvert added %d" %
                        (statedump, added))
    discarded = sum(int(n) for n in DISCARDED.findall(bt_err))
    want_lost = analysis["trace"]["lost_events"]
    if not (discarded == lost == want_lost):
        failures.append("lost events: traceanalyze %d, traceconvert %d, babeltrace2 discarded %d" %
                        (want_lost, lost, discarded))

    if len(sys.argv) == 6:
        # Dump lines: CPU, event name (may hold spaces), seconds, nanoseconds.
        dump_re = re.compile(r"^(\d+)\s+(.+?)\s+(\d+) (\d{9})\s+-?\d+\s+\d+")
        names = {
            "Trace start": "trace_start", "Syscall entry": "syscall_entry",
            "Syscall exit": "syscall_exit", "Trap entry": "trap_entry",
            "Trap exit": "trap_exit", "IRQ entry": "irq_entry", "IRQ exit": "irq_exit",
            "Sched change": "schedchange", "Kernel timer": "kernel_timer",
            "Soft IRQ": "soft_irq", "Process": "process", "File system": "file_system",
            "Timer": "timer", "Memory": "memory", "Socket": "socket", "IPC": "ipc",
            "Network": "network", "Block start": "block_start", "Block end": "block_end",
            "Heartbeat": "heartbeat", "Lost events": "lost", "Custom event": "custom",
        }
        want_events = collections.Counter()
        with open(sys.argv[5], errors="replace") as f:
            for line in f.read().splitlines()[1:]:
                dm = dump_re.match(line)
                if not dm or dm.group(2) not in names:
                    failures.append("dump line not understood: " + line[:120])
                    continue
                want_events[(dm.group(3) + dm.group(4), int(dm.group(1)),
                             names[dm.group(2)])] += 1
        got_events = collections.Counter(events)
        # What the dump has and the CTF trace does not must be exactly what
        # was dropped by rule, type by type; the CTF trace has nothing more.
        missing = want_events - got_events
        missing_by = collections.Counter()
        for (_, _, key), n in missing.items():
            missing_by[key] += n
        for key in sorted(set(missing_by) | set(dropped_by)):
            if missing_by[key] != dropped_by[key]:
                failures.append("%s: %d events of the dump are missing at their time and CPU, "
                                "%d were dropped by rule (first: %s)" %
                                (key, missing_by[key], dropped_by[key],
                                 sorted(k for k in missing if k[2] == key)[:3]))
        for ev in sorted((got_events - want_events).keys())[:10]:
            failures.append("CTF event %s not in the dump at that time and CPU" % (ev,))

    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
