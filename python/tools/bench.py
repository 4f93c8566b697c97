#!/usr/bin/env python3
"""make bench-python: the ltt package on the 10 M-event bench trace.

  events/s into Arrow  the events table read through its Arrow C stream by
                       pyarrow, batch by batch (nothing kept), best of 3,
                       per wall-clock and per CPU second of the process
  other tables         syscalls, sched, irqs the same way (rows/s)
  Parquet write        ltt export's writer on the events table (zstd)
  peak memory          the largest RSS of the process doing each of these

Each measurement runs in a process of its own so that its peak RSS is its
own. Usage: bench.py TRACE [PROC]
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def child(mode, trace, proc, out):
    import pyarrow as pa
    import ltt
    t = ltt.open(trace, proc)
    w0, c0 = time.perf_counter(), time.process_time()
    rows = 0
    if mode == "parquet":
        from ltt.export import write_table
        rows = write_table(t, "events", out)
    else:
        for b in pa.RecordBatchReader.from_stream(t.table(mode)):
            rows += b.num_rows
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rows": rows, "wall": wall, "cpu": cpu, "rss_kb": rss}))


def run(mode, trace, proc, out=""):
    r = subprocess.run([sys.executable, __file__, "--child", mode, trace, proc or "", out],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def best(mode, trace, proc, n=3, out=""):
    runs = [run(mode, trace, proc, out) for _ in range(n)]
    return {"rows": runs[0]["rows"], "wall": min(r["wall"] for r in runs),
            "cpu": min(r["cpu"] for r in runs), "rss_kb": max(r["rss_kb"] for r in runs)}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        mode, trace, proc, out = sys.argv[2:6]
        child(mode, trace, proc or None, out)
        return 0
    trace = sys.argv[1]
    proc = sys.argv[2] if len(sys.argv) > 2 else None
    size = os.path.getsize(trace)
    ev = best("events", trace, proc)
    print(f"ltt (Python) on {ev['rows']} events ({size / 2**20:.0f} MB trace):")
    print(f"  events into Arrow: {ev['rows'] / ev['wall'] / 1e6:.1f} M/s "
          f"(wall {ev['wall']:.3f} s)   {ev['rows'] / max(ev['cpu'], 1e-3) / 1e6:.1f} M/s per "
          f"CPU second ({ev['cpu']:.3f} s); peak memory {ev['rss_kb'] / 1024:.1f} MB RSS")
    for table in ("syscalls", "sched", "irqs"):
        r = best(table, trace, proc, n=1)
        print(f"  {table + ':':10} {r['rows']:>9} rows in {r['wall']:.3f} s "
              f"({ev['rows'] / r['wall'] / 1e6:.1f} M events/s walked); peak "
              f"{r['rss_kb'] / 1024:.1f} MB RSS")
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(trace))) as d:
        out = os.path.join(d, "events.parquet")
        pq = best("parquet", trace, proc, n=1, out=out)
        psize = os.path.getsize(out)
    print(f"  Parquet (zstd) of the events table: {pq['rows'] / pq['wall'] / 1e6:.2f} M events/s"
          f" (wall {pq['wall']:.3f} s)   {pq['rows'] / max(pq['cpu'], 1e-3) / 1e6:.2f} M/s per CPU "
          f"second ({size / max(pq['cpu'], 1e-3) / 2**20:.0f} MB of trace per CPU second); "
          f"{psize / 2**20:.0f} MB written; peak {pq['rss_kb'] / 1024:.1f} MB RSS")
    ta = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(trace))), "bin",
                      "traceanalyze")
    if os.path.exists(ta):
        # The same machine's speed now, for scale on a shared machine.
        cpu = 1e9
        for _ in range(3):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([ta, "-a", "-s", trace] + ([proc] if proc else []),
                           stdout=subprocess.DEVNULL, check=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = min(cpu, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        print(f"  for scale: traceanalyze -a -s on the same trace now: "
              f"{ev['rows'] / max(cpu, 1e-3) / 1e6:.1f} M events/s per CPU second")
    print("  target: >= 20 M events/s into Arrow on one core; memory bounded (batches of "
          "65536 rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
