#!/usr/bin/env bash
# compare-expect.sh EXPECT.json ANALYSIS.json
# Checks that traceanalyze --json reproduces every figure ltt-synth --expect
# printed: the trace totals, the event counts and, per process, every field
# the expectation lists. Prints each difference; exit 1 when there is any.
set -euo pipefail
exp=$1 got=$2
jq -n --slurpfile e "$exp" --slurpfile g "$got" -r '
  ($e[0]) as $e | ($g[0]) as $g |
  [ ($e.trace | to_entries[] | select($g.trace[.key] != .value)
      | "trace.\(.key): expected \(.value), got \($g.trace[.key])"),
    ($e.event_counts | to_entries[] | select(($g.event_counts[.key] // 0) != .value)
      | "event_counts.\(.key): expected \(.value), got \($g.event_counts[.key] // 0)"),
    ($e.processes[] as $p
      | ([$g.processes[] | select(.pid == $p.pid)] | first) as $q
      | if $q == null then "process \($p.pid): missing"
        else ($p | to_entries[] | select($q[.key] != .value)
              | "process \($p.pid).\(.key): expected \(.value), got \($q[.key])")
        end)
  ] | .[]' > /tmp/compare-expect.$$ || { rm -f /tmp/compare-expect.$$; exit 2; }
if [[ -s /tmp/compare-expect.$$ ]]; then
	head -n 20 /tmp/compare-expect.$$
	echo "$(wc -l < /tmp/compare-expect.$$) differences"
	rm -f /tmp/compare-expect.$$
	exit 1
fi
rm -f /tmp/compare-expect.$$
