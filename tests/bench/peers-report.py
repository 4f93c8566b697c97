#!/usr/bin/env python3
"""The table and peers.json of make bench-peers (scripts/bench-peers.sh).

Reads the guest's runs.txt ("run WORKLOAD TRACER I ns=N [events=N]
[bytes=N] [lost=N]") and the host's event counts of the ltt and LTTng
traces ("count TRACER WORKLOAD I events=N [lost=N]"), drops run 1 of every
series, and prints per workload and tracer the medians, the spread
((max - min) / median of the time) and the derived figures: ltt_idle/none,
the ns each recorded event adds ((traced - none) / events per call or
run), ltt's ratio to ftrace and LTTng on that, and bytes per event.
Exits 1 when a series or a count is missing, or a tracer lost events.
"""
import argparse
import json
import statistics
import sys

WORKLOADS = ("getppid", "mixed")
TRACERS = ("none", "ltt_idle", "ltt", "ftrace", "lttng")
TRACED = ("ltt", "ftrace", "lttng")


def fields(words):
    return {k: int(v) for k, v in (w.split("=", 1) for w in words)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--iters", type=int, required=True)
    ap.add_argument("--mode", required=True)
    a = ap.parse_args()

    runs = {}  # (workload, tracer) -> {i: fields}
    with open(a.runs) as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and w[0] == "run" and int(w[3]) > 1:
                runs.setdefault((w[1], w[2]), {})[int(w[3])] = fields(w[4:])
    with open(a.counts) as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and w[0] == "count":
                run = runs.get((w[2], w[1]), {}).get(int(w[3]))
                if run is None:
                    sys.exit(f"peers-report: a count for a run that is not in runs.txt: {line.strip()}")
                run.update(fields(w[4:]))

    errors = []
    result = {}
    for wl in WORKLOADS:
        result[wl] = {}
        for tr in TRACERS:
            series = list(runs.get((wl, tr), {}).values())
            if not series:
                errors.append(f"no measured runs of {wl} with {tr}")
                continue
            per = a.iters if wl == "getppid" else 1
            ns = [r["ns"] / per for r in series]
            med = statistics.median(ns)
            entry = {"ns_per_call": round(med, 1), "events": 0, "bytes": 0, "lost": 0,
                     "runs": len(series), "spread": round((max(ns) - min(ns)) / med, 4)}
            if tr in TRACED:
                for key in ("events", "bytes", "lost"):
                    if any(key not in r for r in series):
                        errors.append(f"{wl} with {tr}: no {key} count for some run")
                        break
                else:
                    entry["events"] = int(statistics.median(r["events"] for r in series))
                    entry["bytes"] = int(statistics.median(r["bytes"] for r in series))
                    entry["lost"] = sum(r["lost"] for r in series)
            result[wl][tr] = entry
    if errors:
        for e in errors:
            print(f"peers-report: {e}", file=sys.stderr)
        sys.exit(1)

    with open(a.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")

    print(f"mode {a.mode}; getppid loop of {a.iters} calls; medians of "
          f"{result['getppid']['none']['runs']} runs (the first of each series dropped)")
    for wl in WORKLOADS:
        r = result[wl]
        unit = "ns/call" if wl == "getppid" else "ns/run"
        print(f"\n{wl}: {'ns per getppid() call' if wl == 'getppid' else 'ns per workload run'}")
        print(f"  {'tracer':<9} {unit:>12} {'spread':>7} {'events/run':>11} "
              f"{'bytes/run':>11} {'lost':>5} {'B/event':>8} {'+ns/event':>10}")
        per = a.iters if wl == "getppid" else 1
        added = {}
        for tr in TRACERS:
            e = r[tr]
            digits = 1 if wl == "getppid" else 0
            line = f"  {tr:<9} {e['ns_per_call']:>12.{digits}f} {100 * e['spread']:>6.1f}%"
            if tr in TRACED and e["events"]:
                added[tr] = (e["ns_per_call"] - r["none"]["ns_per_call"]) * per / e["events"]
                line += (f" {e['events']:>11} {e['bytes']:>11} {e['lost']:>5}"
                         f" {e['bytes'] / e['events']:>8.2f} {added[tr]:>10.1f}")
            print(line)
        idle = r["ltt_idle"]["ns_per_call"] / r["none"]["ns_per_call"]
        print(f"  ltt_idle/none {idle:.4f}")
        for peer in ("ftrace", "lttng"):
            if "ltt" in added and peer in added and added[peer] > 0:
                print(f"  ltt/{peer} added ns per event: {added['ltt'] / added[peer]:.2f}; "
                      f"bytes per event: "
                      f"{(r['ltt']['bytes'] / r['ltt']['events']) / (r[peer]['bytes'] / r[peer]['events']):.2f}")
    # The comparison assumes lossless buffers: a tracer that lost events
    # did less work than it was asked to.
    lossy = [f"{tr} lost {result[wl][tr]['lost']} events in {wl}"
             for wl in WORKLOADS for tr in TRACED if result[wl][tr]["lost"]]
    for text in lossy:
        print(f"peers-report: {text}: its figures are not lossless "
              "(raise LTT_BUFFER, FTRACE_KB or LTTNG_SUBBUF)", file=sys.stderr)
    return 1 if lossy else 0


if __name__ == "__main__":
    sys.exit(main())
