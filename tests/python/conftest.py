"""Fixtures of the Python package's tests (suite 45): synthetic traces from
ltt-synth and traceanalyze --json's reports of them, the reference every
figure is checked against."""
import functools
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("LTT_BUILD", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")


def tool(name):
    return os.path.join(BIN, name)


class Synth:
    def __init__(self, base):
        self.base = base

    @functools.lru_cache(maxsize=None)
    def make(self, name, events=20000, cpus=4, processes=16, seed=1, extra=()):
        """PREFIX.trace and PREFIX.proc from ltt-synth; returns (trace, proc,
        expect), expect being ltt-synth --expect's document."""
        prefix = os.path.join(self.base, name)
        out = subprocess.run([tool("ltt-synth"), "--events", str(events), "--cpus", str(cpus),
                              "--processes", str(processes), "--seed", str(seed), *extra,
                              "--expect", "-o", prefix], check=True, capture_output=True,
                             text=True).stdout
        return prefix + ".trace", prefix + ".proc", json.loads(out)


@pytest.fixture(scope="session")
def synth(tmp_path_factory):
    return Synth(str(tmp_path_factory.mktemp("synth")))


@functools.lru_cache(maxsize=None)
def analyze(trace, proc=None):
    """traceanalyze --json's document for the trace."""
    args = [tool("traceanalyze"), "--json", trace] + ([proc] if proc else [])
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.stdout, f"traceanalyze gave nothing: {r.stderr}"
    return json.loads(r.stdout)


@pytest.fixture(scope="session")
def small(synth):
    """A 4-CPU trace of 20 000 events with everything recorded."""
    return synth.make("small")


@pytest.fixture(scope="session")
def lossy(synth):
    """A trace whose CPU 0 lost events halfway: intervals across the gap have
    no duration."""
    return synth.make("lossy", events=40000, seed=7, extra=("--lost", "500"))


def by_pid(report):
    """traceanalyze's processes grouped by pid (a pid reused is two task
    instances there): {pid: [process, ...]}."""
    out = {}
    for p in report["processes"]:
        out.setdefault(p["pid"], []).append(p)
    return out
