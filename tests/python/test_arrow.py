"""The tables as Arrow C streams: pyarrow, Polars and DuckDB read them, and
their rows give traceanalyze's figures."""
import collections
import os

import pytest

import ltt
from conftest import ROOT, analyze, by_pid

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")


def table(trace, name, proc=None):
    return pa.table(ltt.open(trace, proc).table(name))


def test_events_table(small):
    trace, proc, expect = small
    t = table(trace, "events")
    assert t.num_rows == expect["trace"]["events"]
    assert t.schema.field("time_ns").type == pa.int64()
    assert pa.types.is_dictionary(t.schema.field("event").type)
    counts = collections.Counter(t.column("event").to_pylist())
    assert dict(counts) == expect["event_counts"]
    times = t.column("time_ns").to_pylist()
    assert times == sorted(times)
    meta = t.schema.metadata
    assert meta[b"ltt.hostname"] == b"synth" and meta[b"ltt.backend"] == b"facility"
    # Details: every syscall entry has its number, every exit its return value.
    sc = t.filter(pc.equal(t.column("event").cast(pa.string()), "syscall_entry"))
    assert sc.column("syscall").null_count == 0
    other = t.filter(pc.equal(t.column("event").cast(pa.string()), "block_start"))
    assert other.column("syscall").null_count == other.num_rows


def test_events_match_python_iteration(small):
    trace, _, _ = small
    t = table(trace, "events")
    it = ltt.open(trace).events()
    for i, ev in zip(range(3000), it):
        assert t.column("time_ns")[i].as_py() == ev.time_ns
        assert t.column("pid")[i].as_py() == ev.pid
        assert t.column("cpu")[i].as_py() == ev.cpu
        assert t.column("event")[i].as_py() == ev.event
        assert t.column("subtype")[i].as_py() == ev.subtype


def test_batches_are_bounded(synth):
    trace, _, expect = synth.make("bigger", events=300000)
    reader = pa.RecordBatchReader.from_stream(ltt.open(trace).table("events"))
    sizes = [b.num_rows for b in reader]
    assert len(sizes) > 1 and max(sizes) <= 65536
    assert sum(sizes) == expect["trace"]["events"]


def syscall_figures_from_table(t):
    """{(pid, name): [count, timed, total, errors, min, max]} from syscalls rows."""
    out = {}
    for r in t.to_pylist():
        f = out.setdefault((r["pid"], r["syscall"]), [0, 0, 0, 0, None, 0])
        f[0] += 1
        if r["duration_ns"] is not None:
            f[1] += 1
            f[2] += r["duration_ns"]
            f[4] = r["duration_ns"] if f[4] is None else min(f[4], r["duration_ns"])
            f[5] = max(f[5], r["duration_ns"])
        f[3] += r["ret"] is not None and r["ret"] < 0
    return out


def syscall_figures_from_report(report):
    out = {}
    for p in report["processes"]:
        for s in p["syscall_table"] or []:
            f = out.setdefault((p["pid"], s["name"]), [0, 0, 0, 0, None, 0])
            f[0] += s["count"]
            f[1] += s["timed"]
            f[2] += s["total_ns"]
            f[3] += s["errors"]
            if s["timed"]:
                f[4] = s["min_ns"] if f[4] is None else min(f[4], s["min_ns"])
                f[5] = max(f[5], s["max_ns"])
    return out


@pytest.mark.parametrize("which", ["small", "lossy"])
def test_syscalls_table_equals_traceanalyze(which, request):
    trace, proc, _ = request.getfixturevalue(which)
    t = table(trace, "syscalls", proc)
    assert syscall_figures_from_table(t) == syscall_figures_from_report(analyze(trace, proc))


def sched_figures_from_table(t):
    out = {}
    for r in t.to_pylist():
        f = out.setdefault(r["pid"], {"preempted": 0, "sched_delay": 0, "sleep": 0,
                                      "io_wait": 0, "max_delay": 0, "max_slice": 0})
        if r["delay_ns"] is not None:
            key = "preempted" if r["wait"] == "preempted" else "sched_delay"
            f[key] += r["delay_ns"]
            f["max_delay"] = max(f["max_delay"], r["delay_ns"])
        if r["sleep_ns"] is not None:
            f["sleep" if r["wait"] == "sleeping" else "io_wait"] += r["sleep_ns"]
        if r["duration_ns"] is not None:
            f["max_slice"] = max(f["max_slice"], r["duration_ns"])
    return out


@pytest.mark.parametrize("which", ["small", "lossy"])
def test_sched_table_equals_traceanalyze(which, request):
    trace, proc, _ = request.getfixturevalue(which)
    got = sched_figures_from_table(table(trace, "sched", proc))
    checked = 0
    for pid, procs in by_pid(analyze(trace, proc)).items():
        want = {"preempted": sum(p["time_preempted_ns"] for p in procs),
                "sched_delay": sum(p["time_sched_delay_ns"] for p in procs),
                "sleep": sum(p["time_sleeping_ns"] for p in procs),
                "io_wait": sum(p["time_io_wait_ns"] for p in procs),
                "max_delay": max(p["max_delay_ns"] for p in procs),
                "max_slice": max(p["max_slice_ns"] for p in procs)}
        have = got.get(pid, dict.fromkeys(want, 0))
        assert have == want, pid
        checked += any(want.values())
    assert checked > 0


def test_processes_table_equals_report(small):
    trace, proc, _ = small
    t = table(trace, "processes", proc)
    report = analyze(trace, proc)
    rows = t.to_pylist()
    assert len(rows) == len(report["processes"])
    for row, p in zip(rows, report["processes"]):
        for k, v in p.items():
            if k != "syscall_table":
                assert row[k] == v, (p["pid"], k)


def test_irqs_table(small):
    trace, proc, expect = small
    t = table(trace, "irqs", proc)
    kinds = collections.Counter(t.column("kind").to_pylist())
    assert kinds["irq"] == expect["event_counts"].get("irq_entry", 0)
    assert kinds["irq"] > 0
    d = t.column("duration_ns").to_pylist()
    assert all(x is None or x >= 0 for x in d)


def test_polars_reads_the_streams(small):
    pl = pytest.importorskip("polars")
    trace, proc, expect = small
    tr = ltt.open(trace, proc)
    ev = pl.DataFrame(tr.table("events"))
    assert ev.height == expect["trace"]["events"]
    sc = pl.DataFrame(tr.table("syscalls"))
    by = sc.group_by("pid").agg(pl.len().alias("n")).sort("pid")
    want = collections.Counter()
    for p in analyze(trace, proc)["processes"]:
        want[p["pid"]] += p["syscalls"]
    assert {r["pid"]: r["n"] for r in by.to_dicts()} == {k: v for k, v in want.items() if v}


def test_duckdb_reads_the_streams(small):
    duckdb = pytest.importorskip("duckdb")
    trace, proc, expect = small
    events = ltt.open(trace, proc).table("events")
    con = duckdb.connect()
    n = con.sql("SELECT count(*) FROM events").fetchall()[0][0]
    assert n == expect["trace"]["events"]
    rows = con.sql("SELECT CAST(event AS VARCHAR), count(*) FROM events GROUP BY ALL").fetchall()
    assert dict(rows) == expect["event_counts"]


def test_stream_released_early(synth):
    """A consumer that stops after one batch releases the stream: the walk
    stops (it does not read on, nor hang the release)."""
    import time
    trace, _, _ = synth.make("bigger", events=300000)
    t = ltt.open(trace)
    start = time.monotonic()
    for _ in range(20):
        reader = pa.RecordBatchReader.from_stream(t.table("events"))
        first = reader.read_next_batch()
        assert first.num_rows == 65536
        reader.close()
        del reader
    t.table("events").__arrow_c_stream__()  # a capsule never consumed
    assert time.monotonic() - start < 60


DATA = os.path.join(ROOT, "tests", "data")
COMMITTED = sorted(f[:-6] for f in os.listdir(DATA) if f.endswith(".trace"))


@pytest.mark.parametrize("name", COMMITTED)
def test_committed_traces(name):
    """The committed traces (a real one recorded in the VM, application
    events, masked events, variables with system-call arguments, lost
    events): the report, the event count and the interval tables against
    traceanalyze."""
    trace = os.path.join(DATA, name + ".trace")
    proc = os.path.join(DATA, name + ".proc")
    proc = proc if os.path.exists(proc) else None
    want = analyze(trace, proc)
    t = ltt.open(trace, proc)
    assert t.report() == want
    assert pa.table(t.table("events")).num_rows == want["trace"]["events"]
    assert len(pa.table(t.table("processes"))) == len(want["processes"])
    if want["processes"] and want["processes"][0]["syscall_table"] is not None:
        assert syscall_figures_from_table(pa.table(t.table("syscalls"))) \
            == syscall_figures_from_report(want)
    got = sched_figures_from_table(pa.table(t.table("sched")))
    for pid, procs in by_pid(want).items():
        if procs[0]["max_delay_ns"] is None:
            continue  # scheduling masked out
        assert got.get(pid, {}).get("max_delay", 0) == max(p["max_delay_ns"] for p in procs)
        assert got.get(pid, {}).get("preempted", 0) == sum(p["time_preempted_ns"] for p in procs)
        assert got.get(pid, {}).get("sched_delay", 0) == \
            sum(p["time_sched_delay_ns"] for p in procs)


def test_syscall_arguments_when_recorded():
    """vars.trace recorded the arguments (VARS after each entry): the rows
    carry them, read(3, 0x7ffc0000, 4096) = 451 among them; calls whose
    arguments were not recorded have nargs null."""
    trace = os.path.join(DATA, "vars.trace")
    rows = pa.table(ltt.open(trace).table("syscalls")).to_pylist()
    reads = [r for r in rows if r["syscall"] == "read" and r["ret"] == 451]
    assert reads and reads[0]["nargs"] == 3
    assert (reads[0]["arg0"], reads[0]["arg1"], reads[0]["arg2"]) == (3, 0x7ffc0000, 4096)
    assert reads[0]["arg3"] is None
    small = pa.table(ltt.open(os.path.join(DATA, "small.trace")).table("syscalls"))
    assert small.column("nargs").null_count == small.num_rows
