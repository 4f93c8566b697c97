"""ltt export --parquet: a dataset of 16 synthetic hosts and a real guest
trace; DuckDB over a directory glob and the PySpark job (local mode) answer
fleet questions with traceanalyze's figures."""
import collections
import json
import os
import subprocess
import sys

import pytest

import ltt
from conftest import ROOT, analyze

HOSTS = 16
LTT = os.path.join(os.path.dirname(sys.executable), "ltt")


@pytest.fixture(scope="module")
def fleet(synth, tmp_path_factory):
    """16 hosts' traces (distinct seeds and host names) exported with the
    ltt command, and the real trace recorded in the VM under the host name
    its header has ("(none)": a partition value made safe, "_none_");
    returns (dataset dir, {host: (trace, proc)})."""
    out = str(tmp_path_factory.mktemp("fleet") / "dataset")
    hosts = {}
    for i in range(HOSTS):
        host = f"host{i:02d}"
        trace, proc, _ = synth.make(f"fleet-{host}", events=15000 + 1000 * i, cpus=2 + i % 3,
                                    processes=8 + i, seed=100 + i)
        subprocess.run([LTT, "export", "-q", "--parquet", out, "--host", host, trace],
                       check=True)
        hosts[host] = (trace, proc)
    vm = os.path.join(ROOT, "tests", "data", "vm-sh")
    subprocess.run([LTT, "export", "-q", "--parquet", out, vm + ".trace"], check=True)
    hosts["_none_"] = (vm + ".trace", vm + ".proc")
    return out, hosts


def syscalls_per_process(hosts):
    want = {}
    for host, (trace, proc) in hosts.items():
        per = collections.defaultdict(lambda: [0, 0])
        for p in analyze(trace, proc)["processes"]:
            for s in p["syscall_table"]:
                per[p["pid"]][0] += s["count"]
                per[p["pid"]][1] += s["total_ns"]
        for pid, (count, total) in per.items():
            if count:
                want[(host, pid)] = (count, total)
    return want


def test_dataset_layout(fleet):
    out, hosts = fleet
    for host, (trace, _) in hosts.items():
        d = os.path.join(out, f"host={host}", f"trace={os.path.basename(trace)[:-6]}")
        assert sorted(os.listdir(d)) == sorted(f"{t}.parquet" for t in ltt.TABLES + ("trace",))


def test_duckdb_glob(fleet):
    duckdb = pytest.importorskip("duckdb")
    out, hosts = fleet
    con = duckdb.connect()
    got = con.sql(f"""
        SELECT host, pid, count(*), coalesce(sum(duration_ns), 0)
        FROM read_parquet('{out}/*/*/syscalls.parquet', hive_partitioning = true)
        GROUP BY ALL""").fetchall()
    assert {(h, pid): (n, t) for h, pid, n, t in got} == syscalls_per_process(hosts)
    stamps = con.sql(f"""SELECT host, hostname, kernel, backend, anchor_realtime_ns, events
        FROM read_parquet('{out}/*/*/trace.parquet', hive_partitioning = true)""").fetchall()
    assert len(stamps) == len(hosts) == HOSTS + 1
    for host, hostname, kernel, backend, anchor, events in stamps:
        report = analyze(*hosts[host])
        t = report["trace"]
        assert (hostname, kernel, backend) == (t["hostname"], t["kernel"], t["backend"])
        assert anchor + report["trace"]["start_ns"] == report["trace"]["start_realtime_ns"]
        assert events == report["trace"]["events"]


def p99_per_host(hosts):
    """The 99th percentile (linear interpolation, as Spark's percentile and
    DuckDB's quantile_cont) of each host's scheduling latencies, from the
    sched table (whose sums and maxima tests/python/test_arrow.py checks
    against traceanalyze), and the maximum from traceanalyze."""
    pa = pytest.importorskip("pyarrow")
    out = {}
    for host, (trace, proc) in hosts.items():
        d = pa.table(ltt.open(trace, proc).table("sched")).column("delay_ns").drop_null()
        v = sorted(d.to_pylist())
        k = (len(v) - 1) * 0.99
        lo = int(k)
        p99 = v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (k - lo)
        out[host] = (int(p99), max(p["max_delay_ns"] for p in analyze(trace, proc)["processes"]),
                     len(v))
    return out


def test_spark_job(fleet, tmp_path):
    pytest.importorskip("pyspark")
    out, hosts = fleet
    answers = str(tmp_path / "answers")
    job = os.path.join(os.path.dirname(ltt.__file__), "fleet_spark.py")
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    # SPARK_LOCAL_IP: a local master needs no host name, and Spark fails at
    # start on a machine whose own name does not resolve.
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               SPARK_LOCAL_IP="127.0.0.1")
    r = subprocess.run([submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                        job, out, "--out", answers], capture_output=True, text=True, env=env,
                       timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    with open(os.path.join(answers, "syscalls_by_process.jsonl")) as f:
        got = [json.loads(line) for line in f]
    assert {(g["host"], g["pid"]): (g["count"], g["total_ns"]) for g in got} \
        == syscalls_per_process(hosts)
    with open(os.path.join(answers, "hosts_by_p99_latency.jsonl")) as f:
        ranked = [json.loads(line) for line in f]
    want = p99_per_host(hosts)
    assert len(ranked) == len(hosts)
    for g in ranked:
        p99, mx, n = want[g["host"]]
        assert (g["p99_delay_ns"], g["max_delay_ns"], g["waits"]) == (p99, mx, n), g["host"]
    assert [g["p99_delay_ns"] for g in ranked] == sorted((g["p99_delay_ns"] for g in ranked),
                                                         reverse=True)
