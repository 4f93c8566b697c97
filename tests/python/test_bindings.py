"""import ltt: header, .proc snapshot, the analysis report, events, errors."""
import os
import shutil
import warnings

import pytest

import ltt
from conftest import analyze


def test_header_and_snapshot(small):
    trace, proc, expect = small
    t = ltt.open(trace)
    assert t.proc_path == proc  # NAME.proc beside NAME.trace
    h = t.header
    assert h["hostname"] == "synth"
    assert h["kernel"] == "6.1.0-synthetic"
    assert h["cpus"] == 4
    assert h["backend"] == "facility"
    assert h["tsc_khz"] == analyze(trace, proc)["trace"]["tsc_khz"]
    assert h["anchor_realtime_ns"] > 0
    assert h["truncated_at"] is None and h["ended_cleanly"]
    pids = {task["pid"] for task in t.snapshot}
    assert pids, "the .proc snapshot lists tasks"
    assert all(isinstance(task["name"], str) for task in t.snapshot)


def test_report_is_traceanalyze_json(small):
    trace, proc, _ = small
    report = ltt.open(trace, proc).report()
    assert report == analyze(trace, proc)
    # The same model, reachable as attributes too.
    assert report.trace.hostname == "synth"
    assert report.processes[0].pid == report["processes"][0]["pid"]


def test_report_with_lost_events(lossy):
    trace, proc, expect = lossy
    report = ltt.open(trace, proc).report()
    assert report["trace"]["lost_events"] == 500
    assert report == analyze(trace, proc)


def test_events_iterate_in_order(small):
    trace, _, expect = small
    t = ltt.open(trace)
    n = 0
    last = -1
    counts = {}
    first = None
    for ev in t.events():
        assert ev.time_ns >= last
        last = ev.time_ns
        counts[ev.event] = counts.get(ev.event, 0) + 1
        if first is None:
            first = ev
        n += 1
    assert n == expect["trace"]["events"]
    assert counts == expect["event_counts"]
    assert first.event == "block_start" and isinstance(first.description, str)
    assert first.cpu is not None and first.stream is None


def test_corrupt_trace_names_file_and_offset(synth):
    for kind in ("magic", "block-magic", "block-length", "record-size"):
        trace, proc, expect = synth.make(f"corrupt-{kind}", extra=("--corrupt", kind))
        offset = expect["corrupt"]["offset"]
        with pytest.raises(ltt.TraceError) as e:
            t = ltt.open(trace, proc)
            # Damage inside a block's records is found by the walk.
            t.report()
        assert e.value.file == trace, kind
        assert e.value.offset == offset, kind
        assert trace in str(e.value) and f"offset {offset}" in str(e.value), kind


def test_corrupt_trace_stops_arrow_stream(synth):
    pa = pytest.importorskip("pyarrow")
    trace, proc, expect = synth.make("corrupt-rs", extra=("--corrupt", "record-size"))
    t = ltt.open(trace, proc)
    with pytest.raises(Exception) as e:
        pa.table(t.table("events"))
    assert f"offset {expect['corrupt']['offset']}" in str(e.value)


def test_truncated_trace_warns_and_reads_whole_part(synth, tmp_path):
    trace, proc, _ = synth.make("whole")
    cut = str(tmp_path / "cut.trace")
    shutil.copy(trace, cut)
    size = os.path.getsize(cut)
    with open(cut, "r+b") as f:
        f.truncate(size - 1000)  # inside the last block
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t = ltt.open(cut, proc)
    kinds = {type(w.message) for w in seen}
    assert kinds == {ltt.TruncatedTraceWarning, ltt.UnfinishedTraceWarning}
    assert all("cut.trace" in str(w.message) for w in seen)
    report = t.report()
    assert report["trace"]["truncated_at"] is not None
    assert report == analyze(cut, proc)
    assert 0 < report["trace"]["events"] < analyze(trace, proc)["trace"]["events"]


def test_bad_arguments(tmp_path, small):
    with pytest.raises(ltt.TraceError, match="nothing.trace"):
        ltt.open(str(tmp_path / "nothing.trace"))
    bad_proc = tmp_path / "bad.proc"
    bad_proc.write_text("this is not a proc file\n")
    with pytest.raises(ltt.TraceError) as e:
        ltt.open(small[0], str(bad_proc))
    assert e.value.file == str(bad_proc) and e.value.line == 1
    with pytest.raises(ValueError, match="unknown table"):
        ltt.open(small[0]).table("nope")
