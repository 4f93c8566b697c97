#!/usr/bin/env python3
"""flatten.py < DECODED: one line per fact of a Perfetto trace that protoc
decoded (protoc --decode=perfetto.protos.Trace, text format), for
tests/suites/26-convert-perfetto.sh to count and grep:

  event CPU TS PID KIND field=value ...   every ftrace event, in file order
  bundle CPU EVENTS lost=0|1              every FtraceEventBundle
  process pid=.. ppid=.. cmdline=".." ... every ProcessTree process
  thread tid=.. tgid=.. name=".."         every ProcessTree thread
  stats PHASE cpu=N overrun=N             every FtraceCpuStats
  clock ID TIMESTAMP / primary CLOCK      the ClockSnapshot
  sysinfo FIELD VALUE                     utsname fields, num_cpus
  sequence N                              packets without sequence id N=1
  unknown N                               fields protoc did not know (by
                                          number: outside the schema subset)
  disorder N                              events whose timestamp is before
                                          the previous one of the same CPU
"""
import re
import sys

LINE = re.compile(r'^\s*(\w+|\d+)\s*(?::\s*(.*)|\{)\s*$')


def parse(lines):
    """Text format -> nested lists of (name, value|children)."""
    stack = [[]]
    unknown = 0
    for raw in lines:
        s = raw.strip()
        if not s:
            continue
        if s == '}':
            done = stack.pop()
            stack[-1][-1] = (stack[-1][-1][0], done)
            continue
        m = LINE.match(raw)
        if not m:
            raise SystemExit(f"flatten.py: cannot parse: {raw!r}")
        name = m.group(1)
        if name.isdigit():
            unknown += 1
        if m.group(2) is None:
            stack[-1].append((name, None))
            stack.append([])
        else:
            stack[-1].append((name, m.group(2)))
    return stack[0], unknown


def fields(node):
    return [(k, v) for k, v in node if not isinstance(v, list)]


def main():
    top, unknown = parse(sys.stdin)
    out = []
    last_ts = {}
    disorder = 0
    no_sequence = 0
    for name, packet in top:
        assert name == 'packet', name
        seq = [v for k, v in packet if k == 'trusted_packet_sequence_id']
        if seq != ['1']:
            no_sequence += 1
        for kind, body in packet:
            if kind == 'ftrace_events':
                cpu = next(v for k, v in body if k == 'cpu')
                events = [v for k, v in body if k == 'event']
                lost = next((v for k, v in body if k == 'lost_events'), 'false')
                out.append(f"bundle {cpu} {len(events)} lost={1 if lost == 'true' else 0}")
                for ev in events:
                    ts = next(v for k, v in ev if k == 'timestamp')
                    pid = next((v for k, v in ev if k == 'pid'), '-')
                    sub = [(k, v) for k, v in ev if isinstance(v, list)]
                    for k, v in sub:
                        args = ' '.join(f"{a}={b}" for a, b in fields(v))
                        out.append(f"event {cpu} {ts} {pid} {k} {args}".rstrip())
                    if int(ts) < last_ts.get(cpu, 0):
                        disorder += 1
                    last_ts[cpu] = int(ts)
            elif kind == 'process_tree':
                for k, v in body:
                    what = 'process' if k == 'processes' else 'thread'
                    out.append(f"{what} " + ' '.join(f"{a}={b}" for a, b in fields(v)))
            elif kind == 'ftrace_stats':
                phase = next(v for k, v in body if k == 'phase')
                for k, v in body:
                    if k == 'cpu_stats':
                        out.append(f"stats {phase} " + ' '.join(f"{a}={b}" for a, b in fields(v)))
            elif kind == 'clock_snapshot':
                for k, v in body:
                    if k == 'clocks':
                        d = dict(fields(v))
                        out.append(f"clock {d.get('clock_id')} {d.get('timestamp')}")
                    elif k == 'primary_trace_clock':
                        out.append(f"primary {v}")
            elif kind == 'system_info':
                for k, v in body:
                    if k == 'utsname':
                        for a, b in fields(v):
                            out.append(f"sysinfo {a} {b}")
                    else:
                        out.append(f"sysinfo {k} {v}")
    out.append(f"sequence {no_sequence}")
    out.append(f"unknown {unknown}")
    out.append(f"disorder {disorder}")
    print('\n'.join(out))


main()
