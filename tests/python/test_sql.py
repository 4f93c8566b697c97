"""ltt sql: DuckDB over a trace's tables; the ready queries give
traceanalyze's figures."""
import collections
import json
import os
import subprocess
import sys

import pytest

import ltt
from conftest import analyze, by_pid

duckdb = pytest.importorskip("duckdb")
from ltt.sql import QUERIES, query  # noqa: E402

LTT = os.path.join(os.path.dirname(sys.executable), "ltt")


def rows(rel):
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]


@pytest.mark.parametrize("which", ["small", "lossy"])
def test_top_syscalls(which, request):
    trace, proc, _ = request.getfixturevalue(which)
    want = collections.defaultdict(lambda: [0, 0, 0, 0])
    for p in analyze(trace, proc)["processes"]:
        for s in p["syscall_table"]:
            w = want[s["name"]]
            w[0] += s["count"]
            w[1] += s["timed"]
            w[2] += s["total_ns"]
            w[3] += s["errors"]
    got = rows(query("top-syscalls", trace, proc))
    assert {r["syscall"]: [r["count"], r["timed"], r["total_ns"], r["errors"]] for r in got} \
        == dict(want)
    totals = [r["total_ns"] for r in got]
    assert totals == sorted(totals, reverse=True)


@pytest.mark.parametrize("which", ["small", "lossy"])
def test_sched_latency(which, request):
    trace, proc, _ = request.getfixturevalue(which)
    got = {r["pid"]: r for r in rows(query("sched-latency", trace, proc))}
    for pid, procs in by_pid(analyze(trace, proc)).items():
        want = max(p["max_delay_ns"] for p in procs)
        preempted = sum(p["time_preempted_ns"] for p in procs)
        delay = sum(p["time_sched_delay_ns"] for p in procs)
        if pid not in got:
            assert want == 0 and preempted == 0 and delay == 0
            continue
        assert got[pid]["max_delay_ns"] == want
        assert (got[pid]["preempted_ns"] or 0) == preempted
        assert (got[pid]["sched_delay_ns"] or 0) == delay
        assert got[pid]["p99_delay_ns"] <= want
    worst = rows(query("worst-latencies", trace, proc))
    assert worst[0]["delay_ns"] == max(p["max_delay_ns"]
                                       for p in analyze(trace, proc)["processes"])


def test_process_time(small):
    trace, proc, _ = small
    got = rows(query("process-time", trace, proc))
    report = analyze(trace, proc)["processes"]
    keys = ["time_running_ns", "time_user_ns", "time_syscall_ns", "time_trap_ns",
            "time_irq_ns", "time_io_wait_ns", "time_sleeping_ns", "time_preempted_ns",
            "time_sched_delay_ns", "syscalls", "sched_in"]
    want = sorted(([p["pid"], p["name"]] + [p[k] for k in keys] for p in report),
                  key=lambda r: (-r[2], r[0]))
    assert [[r["pid"], r["name"]] + [r[k] for k in keys] for r in got] == want


def test_cli_sql(small):
    trace, proc, _ = small
    out = subprocess.run([LTT, "sql", "--format", "json", "top-syscalls", trace],
                         capture_output=True, text=True, check=True).stdout
    got = [json.loads(line) for line in out.splitlines()]
    assert got == rows(query("top-syscalls", trace, proc))
    out = subprocess.run([LTT, "sql", "SELECT count(*) AS n FROM events", trace],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0].strip() == "n"
    assert int(out.splitlines()[2]) == analyze(trace, proc)["trace"]["events"]
    listed = subprocess.run([LTT, "queries"], capture_output=True, text=True,
                            check=True).stdout
    assert all(name in listed for name in QUERIES)


def test_cli_errors(small, tmp_path):
    trace, _, _ = small
    r = subprocess.run([LTT, "sql", "SELECT nope FROM events", trace],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "nope" in r.stderr
    r = subprocess.run([LTT, "sql", "SELECT 1", str(tmp_path / "missing.trace")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "missing.trace" in r.stderr
    r = subprocess.run([LTT, "export", "--parquet", str(tmp_path), "--tables", "bogus", trace],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "unknown table 'bogus'" in r.stderr
    r = subprocess.run([LTT], capture_output=True, text=True)
    assert r.returncode == 2
