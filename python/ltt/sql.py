"""SQL over a trace's tables with DuckDB, and the ready queries.

The tables are the trace's Arrow C streams (ltt.TABLES); DuckDB scans them
as they are produced. Each ready query is plain SQL over those tables, and
its figures are traceanalyze's (tests/python/test_sql.py compares them with
``traceanalyze --json``)."""
from . import TABLES, open as open_trace

# name -> (what it answers, SQL). Times in nanoseconds, as in the tables.
QUERIES = {
    "top-syscalls": (
        "system calls by total time inside them (all processes)",
        """
        SELECT CAST(syscall AS VARCHAR) AS syscall,
               count(*) AS count,
               count(duration_ns) AS timed,
               coalesce(sum(duration_ns), 0) AS total_ns,
               coalesce(max(duration_ns), 0) AS max_ns,
               count(*) FILTER (WHERE ret < 0) AS errors
        FROM syscalls
        GROUP BY ALL
        ORDER BY total_ns DESC, count DESC, syscall
        """),
    "sched-latency": (
        "processes by their worst scheduling latency (wait to run after a "
        "preemption, a wakeup or a fork), with the total and the 99th percentile",
        """
        SELECT s.pid, p.name, count(*) AS waits,
               max(s.delay_ns) AS max_delay_ns,
               CAST(quantile_cont(s.delay_ns, 0.99) AS BIGINT) AS p99_delay_ns,
               sum(s.delay_ns) FILTER (WHERE s.wait = 'preempted') AS preempted_ns,
               sum(s.delay_ns) FILTER (WHERE s.wait <> 'preempted') AS sched_delay_ns
        FROM sched s
        LEFT JOIN (SELECT pid, arg_max(name, start_ns) AS name FROM processes GROUP BY pid) p
               USING (pid)
        WHERE s.delay_ns IS NOT NULL
        GROUP BY s.pid, p.name
        ORDER BY max_delay_ns DESC, s.pid
        """),
    "worst-latencies": (
        "the single longest waits to run, when and on which CPU",
        """
        SELECT pid, cpu, start_ns, delay_ns, CAST(wait AS VARCHAR) AS wait
        FROM sched WHERE delay_ns IS NOT NULL
        ORDER BY delay_ns DESC, start_ns LIMIT 20
        """),
    "process-time": (
        "per-process time breakdown: on a CPU (user, system call, trap, "
        "interrupt) and off it (I/O wait, sleep, preempted, scheduling delay)",
        """
        SELECT pid, name, time_running_ns, time_user_ns, time_syscall_ns,
               time_trap_ns, time_irq_ns, time_io_wait_ns, time_sleeping_ns,
               time_preempted_ns, time_sched_delay_ns, syscalls, sched_in
        FROM processes
        ORDER BY time_running_ns DESC NULLS LAST, pid
        """),
}


def connect(trace, proc=None, con=None):
    """A DuckDB connection with the trace's tables as views (events,
    syscalls, sched, irqs, processes). ``trace`` is a path or an ltt.Trace."""
    import duckdb
    t = trace if hasattr(trace, "table") else open_trace(trace, proc)
    con = con or duckdb.connect()
    for name in TABLES:
        # DuckDB reads the stream through the PyCapsule protocol; every scan
        # of the view starts a new walk of the trace.
        con.register(f"_ltt_{name}", t.table(name))
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM _ltt_{name}")
    return con


def query(sql, trace, proc=None):
    """Runs ``sql`` (or a ready query's name) on a trace; a DuckDB relation."""
    con = connect(trace, proc)
    return con.sql(QUERIES[sql][1] if sql in QUERIES else sql)
