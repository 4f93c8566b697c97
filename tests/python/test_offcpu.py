"""Trace.offcpu(): blocked time by stack, equal to traceanalyze --json
--offcpu's "offcpu" section, with symfs= as --symfs; its pyarrow table;
bad arguments rejected with a clear error."""
import os
import shutil
import subprocess

import pytest

import ltt
from conftest import ROOT, BUILD, tool

# traceview's fixture: wl_offcpu traced with tracedaemon -S in the guest,
# with its kallsyms copy (tests/gui/data/README.md).
FIXTURE = os.path.join(ROOT, "tests", "gui", "data", "offcpu.trace")
PROC = os.path.splitext(FIXTURE)[0] + ".proc"


def offcpu_json(trace, proc=None, *args):
    """traceanalyze --json --offcpu's "offcpu" section."""
    import json
    cmd = [tool("traceanalyze"), "--json", "--offcpu", *args, trace] + ([proc] if proc else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout, f"traceanalyze: {r.stderr}"
    return json.loads(r.stdout)["offcpu"]


@pytest.fixture(scope="session")
def stacks(synth):
    return synth.make("stacks", events=60000, cpus=2, processes=6, seed=5, extra=("--stacks",))


def test_offcpu_is_traceanalyze_json(stacks):
    trace, proc, _ = stacks
    t = ltt.open(trace, proc)
    r = t.offcpu()
    assert r == offcpu_json(trace, proc)
    assert r.stacks_recorded and r.intervals > 0 and r.without_stack == 0
    assert sum(s.blocked_ns for s in r.stacks) == r.blocked_ns
    assert sum(p.blocked_ns for p in r.processes) == r.blocked_ns
    s = r.stacks[0]
    assert len(s.user) == 8 and len(s.kernel) == 14 and s.recorded
    assert s.blocked_us == (s.blocked_ns + 500) // 1000


def test_offcpu_pid_and_interval(stacks):
    trace, proc, _ = stacks
    t = ltt.open(trace, proc)
    pid = t.offcpu().processes[0].pid
    r = t.offcpu(pid=pid, from_ns=10_000_000, to_ns=40_000_000)
    assert r == offcpu_json(trace, proc, "-p", str(pid), "--from", "0.01", "--to", "0.04")
    assert r.pid == pid and [p.pid for p in r.processes] == [pid]
    assert r.to_ns - r.from_ns == 30_000_000
    assert 0 < r.blocked_ns <= t.offcpu(pid=pid).blocked_ns


def test_offcpu_without_stacks(small):
    trace, proc, _ = small
    r = ltt.open(trace, proc).offcpu()
    assert r == offcpu_json(trace, proc)
    assert not r.stacks_recorded
    assert r.intervals > 0 and r.without_stack == r.intervals
    assert all(not s.recorded and s.user == [] and s.kernel == [] for s in r.stacks)


def test_offcpu_real_trace_kernel_frames():
    r = ltt.open(FIXTURE).offcpu()
    assert r == offcpu_json(FIXTURE, PROC)
    assert r.kallsyms and r.kernel_stacks
    kernel = {f for s in r.stacks for f in s.kernel}
    assert {"pipe_read", "do_nanosleep", "__schedule"} <= kernel, sorted(kernel)
    assert any(p.name == "wl_offcpu" for p in r.processes)


def _mapped_path(trace):
    """The path of wl_offcpu as the trace's MAP records name it."""
    for ev in ltt.open(trace).events():
        if ev.event == "map" and "wl_offcpu" in ev.description:
            for word in ev.description.split():
                if word.endswith("/wl_offcpu"):
                    return word
    return None


def test_offcpu_symfs(tmp_path):
    binary = os.path.join(BUILD, "workloads", "wl_offcpu")
    if not os.path.exists(binary):
        pytest.skip(f"{binary} not built")
    path = _mapped_path(FIXTURE)
    assert path and path.startswith("/"), "the fixture maps wl_offcpu by an absolute path"
    if os.path.exists(path):
        pytest.skip(f"{path} exists on this machine: without symfs it would be read too")
    root = tmp_path / "root"
    (root / os.path.dirname(path).lstrip("/")).mkdir(parents=True)
    shutil.copy(binary, root / path.lstrip("/"))
    t = ltt.open(FIXTURE)
    raw = t.offcpu()
    named = t.offcpu(symfs=root)   # a path-like object as well as a str
    assert named == offcpu_json(FIXTURE, PROC, "--symfs", str(root))
    def user(r):
        return [f for s in r.stacks if s.task == "wl_offcpu" for f in s.user]
    # Without the binary, wl_offcpu's frames (a static program: every frame
    # in its own mapping) are raw addresses; under symfs each is named from
    # the copy there (a function, or wl_offcpu+0xADDR between functions).
    # The copy is this build's, so which names they get is not checked.
    assert user(raw) and all(f.startswith("0x") for f in user(raw)), user(raw)
    assert user(named) and not any(f.startswith("0x") for f in user(named)), user(named)
    assert named.blocked_ns == raw.blocked_ns and named.intervals == raw.intervals


def test_offcpu_table(stacks):
    pa = pytest.importorskip("pyarrow")
    trace, proc, _ = stacks
    t = ltt.open(trace, proc)
    r = t.offcpu()
    table = t.offcpu_table()
    assert isinstance(table, pa.Table)
    assert table.column_names == ["pid", "task", "user", "kernel", "recorded", "blocked_ns",
                                  "intervals"]
    assert table.schema.field("user").type == pa.list_(pa.string())
    assert table.num_rows == sum(len(s.processes) for s in r.stacks)
    assert sum(table.column("blocked_ns").to_pylist()) == r.blocked_ns
    assert sum(table.column("intervals").to_pylist()) == r.intervals
    first = table.slice(0, 1).to_pylist()[0]
    assert first["user"] == r.stacks[0].user and first["kernel"] == r.stacks[0].kernel


def test_offcpu_bad_arguments(stacks, tmp_path):
    trace, proc, _ = stacks
    t = ltt.open(trace, proc)
    missing = tmp_path / "no-such-root"
    with pytest.raises(NotADirectoryError, match=f"symfs {missing}: not a directory"):
        t.offcpu(symfs=missing)
    afile = tmp_path / "a-file"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError, match="not a directory"):
        t.offcpu_table(symfs=str(afile))
    with pytest.raises(NotADirectoryError):
        t.offcpu(symfs="")
    with pytest.raises(ValueError, match="pid -1: not a pid"):
        t.offcpu(pid=-1)
    with pytest.raises(ValueError, match="from_ns -5: must be 0 or more"):
        t.offcpu(from_ns=-5)
    with pytest.raises(ValueError, match="to_ns must be after from_ns"):
        t.offcpu(from_ns=10, to_ns=10)


def test_offcpu_unusable_kallsyms_warns(stacks, tmp_path):
    trace, proc, _ = stacks
    copy = tmp_path / "zeros.trace"
    shutil.copy(trace, copy)
    # A copy made without the right to see kernel addresses: all zero.
    (tmp_path / "zeros.kallsyms").write_text("0000000000000000 T _stext\n")
    t = ltt.open(copy, proc)
    with pytest.warns(ltt.SymbolsWarning, match="kernel addresses stay raw: .*all are 0"):
        r = t.offcpu()
    assert not r.kallsyms and r.intervals > 0
    assert all(f.startswith("0x") for s in r.stacks for f in s.kernel)
