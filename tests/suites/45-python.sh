#!/usr/bin/env bash
# The Python package `ltt` (python/, docs/python.md) under pytest, in the
# virtual environment python/venv.sh keeps under the build directory with
# pinned versions (pyarrow, DuckDB, Polars, PySpark, pytest): the bindings
# (header, .proc, the report equal to traceanalyze --json, events, a corrupt
# trace's TraceError naming file and offset, a truncated trace's warning),
# the Arrow tables read by pyarrow, Polars and DuckDB with traceanalyze's
# figures, `ltt sql` and its ready queries, `ltt export --parquet` of 16
# hosts read by DuckDB from a glob, and the PySpark fleet job in local mode
# (tests/python/). pytest's counts are this suite's: skips are never passes.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}

for tool in traceanalyze ltt-synth; do
	if [[ ! -x $build/bin/$tool ]]; then
		t_fail "$tool built" "missing in $build/bin (run make)"
		t_summary
		exit
	fi
done
if ! venv=$("$root/python/venv.sh" "$build" | tail -n 1) || [[ ! -x $venv/bin/python ]]; then
	t_fail "the Python venv and the ltt wheel" "python/venv.sh $build failed (see above)"
	t_summary
	exit
fi
for cmd in sql queries export; do
	t_run_expect "ltt --help lists '$cmd'" 0 "^    $cmd " "$venv/bin/ltt" --help
done
t_run_expect "ltt without a command: usage, exit 2" 2 "usage: ltt" "$venv/bin/ltt"

out=$(LTT_BUILD=$build "$venv/bin/python" -m pytest -p no:cacheprovider -q -rfEs \
	"$root/tests/python" 2>&1)
rc=$?
echo "$out"
last=$(grep -E '^=* ?[0-9]+ (passed|failed|error|skipped)|no tests ran' <<<"$out" | tail -n 1)
count() { grep -Eo "[0-9]+ $1" <<<"$last" | grep -Eo '^[0-9]+' || echo 0; }
p=$(count passed) f=$(count failed) e=$(count 'errors?') s=$(count skipped)
t_passed=$((t_passed + p)) t_failed=$((t_failed + f + e)) t_skipped=$((t_skipped + s))
if ((rc != 0 && f + e == 0)); then
	t_fail "pytest exited with status $rc" "$(tail -n 5 <<<"$out")"
fi
((p > 0)) || t_fail "pytest ran tests" "no test ran"
t_summary
