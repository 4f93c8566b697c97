"""ltt: Linux Trace Toolkit traces in Python.

    import ltt
    t = ltt.open("run.trace")            # run.proc beside it is read too
    t.header["hostname"], t.report()["processes"][0]["name"]
    for ev in t.events(): ...             # ltt.Event objects, in time order
    import pyarrow as pa
    pa.table(t.table("syscalls"))         # Arrow C stream, no copy
    t.offcpu(symfs="guest-root")          # blocked time by stack (tracedaemon -S)

Tables (Arrow record batches made while reading: memory stays bounded):
events, syscalls, sched, irqs, processes. See docs/python.md.
"""
import os

from . import _ltt
from .errors import (SymbolsWarning, TraceError, TruncatedTraceWarning,
                     UnfinishedTraceWarning)

__all__ = ["open", "Trace", "TraceError", "TruncatedTraceWarning",
           "UnfinishedTraceWarning", "SymbolsWarning", "TABLES", "Report"]

TABLES = ("events", "syscalls", "sched", "irqs", "processes")


class Report(dict):
    """The analysis report: the document ``traceanalyze --json`` writes
    (docs/json.md) as Python objects. A dict with the same keys, whose values
    are also reachable as attributes (``report.trace.hostname``)."""

    def __getattr__(self, name):
        try:
            return _wrap(self[name])
        except KeyError:
            raise AttributeError(name) from None


def _wrap(v):
    if isinstance(v, dict) and not isinstance(v, Report):
        return Report(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


class Trace:
    """An opened trace and its .proc snapshot.

    Raises TraceError (naming the file and the byte offset) when the file is
    no readable trace; warns TruncatedTraceWarning when it was cut short and
    reads it up to its last whole block.
    """

    def __init__(self, path, proc=None):
        self._t = _ltt.Trace(str(path), None if proc is None else str(proc))
        self._report = None

    @property
    def path(self):
        return self._t.path

    @property
    def proc_path(self):
        return self._t.proc_path

    @property
    def header(self):
        """The file header: host name, kernel, backend, clock anchor, masks."""
        return self._t.header

    @property
    def snapshot(self):
        """The .proc snapshot's tasks (empty without a .proc file)."""
        return self._t.snapshot

    def report(self):
        """The analysis report (a Report, the model of traceanalyze --json)."""
        if self._report is None:
            self._report = Report(self._t.report())
        return self._report

    @property
    def processes(self):
        """The report's processes (every task instance but pid 0)."""
        return self.report().processes

    def events(self):
        """Iterates over every event in time order (ltt.Event objects)."""
        return self._t.events()

    def table(self, name):
        """A table as an Arrow C stream (__arrow_c_stream__): pass it to
        pyarrow.table(), polars.from_arrow(), duckdb's from_arrow or query."""
        return self._t.table(name)

    def to_arrow(self, name):
        """The table as a pyarrow.Table."""
        import pyarrow as pa
        return pa.RecordBatchReader.from_stream(self.table(name)).read_all()

    def reader(self, name):
        """The table as a pyarrow.RecordBatchReader (a batch at a time)."""
        import pyarrow as pa
        return pa.RecordBatchReader.from_stream(self.table(name))

    def offcpu(self, pid=None, from_ns=0, to_ns=None, symfs=None):
        """Blocked (off-CPU) time by the stack the tasks blocked in, from a
        trace taken with ``tracedaemon -S``: the ``offcpu`` section of
        ``traceanalyze --json --offcpu`` (docs/json.md) as a Report.

        ``pid`` keeps one task, or the threads of one process; ``from_ns``
        and ``to_ns`` (ns since the trace's first event) clip the interval
        counted. Kernel frames are named with NAME.kallsyms beside the
        trace; user frames with the binaries under ``symfs`` (a copy of the
        traced machine's root, perf's --symfs), else at their own paths.
        Raises NotADirectoryError for a ``symfs`` that is no directory,
        ValueError for a bad pid or interval."""
        if symfs is not None:
            symfs = os.fspath(symfs)
        return Report(self._t.offcpu(pid, from_ns, to_ns, symfs))

    def offcpu_table(self, pid=None, from_ns=0, to_ns=None, symfs=None):
        """offcpu() as a pyarrow.Table: one row per stack and process
        (``pid``, ``task``, ``user`` and ``kernel`` frames as lists,
        outermost first, ``recorded``, ``blocked_ns``, ``intervals``),
        longest stacks first."""
        r = self.offcpu(pid, from_ns, to_ns, symfs)
        import pyarrow as pa
        rows = [(p["pid"], s["task"], s["user"], s["kernel"], s["recorded"],
                 p["blocked_ns"], p["intervals"])
                for s in r["stacks"] for p in s["processes"]]
        names = ["pid", "task", "user", "kernel", "recorded", "blocked_ns", "intervals"]
        types = [pa.int32(), pa.string(), pa.list_(pa.string()), pa.list_(pa.string()),
                 pa.bool_(), pa.int64(), pa.int64()]
        cols = [pa.array([row[i] for row in rows], type=t) for i, t in enumerate(types)]
        return pa.table(cols, names=names)

    def __repr__(self):
        h = self.header
        return f"<ltt.Trace {self.path!r} host {h['hostname']!r} {h['cpus']} CPUs>"


def open(path, proc=None):  # noqa: A001 (the package's own open)
    """Opens a trace (and NAME.proc beside NAME.trace, or ``proc``)."""
    return Trace(path, proc)
