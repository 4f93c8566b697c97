#!/usr/bin/env python3
"""The table and JSON of make bench-user (scripts/bench-user.sh).

Reads the guest's runs.txt ("run CONFIG I ns_per_event=X [events=N]
[lost=N]") and the host's counts.txt ("count CONFIG I events=N": the LTTng
sessions' events, counted by babeltrace2), and prints, per configuration,
the medians over the runs of ns per event, events recorded and events
lost in one run. Writes {"<config>": {"ns_per_event": X, "events": N,
"lost": N, "runs": N, "spread": F}} (spread: (max - min) / median of ns
per event). Exits 1 when a configuration has no run, or a traced run no
event count.
"""
import argparse
import json
import statistics
import sys

CONFIGS = [
    ("none", "no tracing library (the loop and its arguments)"),
    ("ltt_disabled", "libltt-user, no tracedaemon"),
    ("ltt", "libltt-user, tracedaemon tracing"),
    ("lttng_disabled", "LTTng-UST tracepoint, no lttng-sessiond"),
    ("lttng", "LTTng-UST tracepoint, UST session enabling it"),
    ("ltt_paced", "ltt, the loop in batches with untimed pauses"),
    ("lttng_paced", "lttng, the loop in batches with untimed pauses"),
    ("ltt_fallback", "ltt on the module's fallback clock: CLOCK_MONOTONIC stamps"),
    ("ltt_fallback_paced", "ltt_fallback, the loop in batches with untimed pauses"),
]
TRACED = {"ltt", "lttng", "ltt_paced", "lttng_paced", "ltt_fallback", "ltt_fallback_paced"}


def fields(words):
    out = {}
    for w in words:
        k, _, v = w.partition("=")
        out[k] = float(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--count", type=int, required=True, help="events logged per run")
    ap.add_argument("--mode", required=True)
    ap.add_argument("--json", required=True)
    a = ap.parse_args()

    runs = {}
    with open(a.runs) as f:
        for line in f:
            w = line.split()
            if len(w) < 4 or w[0] != "run":
                continue
            runs.setdefault(w[1], {})[w[2]] = fields(w[3:])
    with open(a.counts) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == "count" and w[2] in runs.get(w[1], {}):
                runs[w[1]][w[2]].update(fields(w[3:]))

    bad = []
    result = {}
    for name, _ in CONFIGS:
        rs = list(runs.get(name, {}).values())
        if not rs:
            bad.append(f"{name}: no run")
            continue
        if name in TRACED and any("events" not in r or "lost" not in r for r in rs):
            bad.append(f"{name}: a run without its event or lost count")
            continue
        ns = [r["ns_per_event"] for r in rs]
        med = statistics.median(ns)
        result[name] = {
            "ns_per_event": round(med, 2),
            "events": int(statistics.median(r.get("events", 0) for r in rs)),
            "lost": int(statistics.median(r.get("lost", 0) for r in rs)),
            "runs": len(rs),
            "spread": round((max(ns) - min(ns)) / med, 4) if med else 0.0,
        }

    print(f"bench-user: {a.count} events per run (seq:i64 tag:str ratio:f64), "
          f"medians of the runs, mode {a.mode}")
    print(f"{'config':<15} {'ns/event':>9} {'events':>9} {'lost':>9} {'runs':>4} {'spread':>7}  what")
    for name, what in CONFIGS:
        r = result.get(name)
        if r:
            print(f"{name:<15} {r['ns_per_event']:>9.2f} {r['events']:>9} {r['lost']:>9} "
                  f"{r['runs']:>4} {r['spread'] * 100:>6.1f}%  {what}")
    for k in sorted(TRACED):
        base = "none"
        if k in result and base in result:
            print(f"{k}: {result[k]['ns_per_event'] - result[base]['ns_per_event']:.2f} ns per event "
                  f"over the untraced loop")
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    for b in bad:
        print(f"bench-user: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
