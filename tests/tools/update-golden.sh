#!/usr/bin/env bash
# Regenerates the golden traces in tests/data/ with ltt-synth and the expected
# traceanalyze outputs next to them. Run after an intended change of the
# report format or of ltt-synth, then review `git diff tests/data`.
#   tests/tools/update-golden.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/${1:-${BUILD:-build}}/bin
data=$root/tests/data
cd "$data"
synth=$bin/ltt-synth ta=$bin/traceanalyze

# The traces (deterministic: fixed seeds, fixed host identity), in format
# version 1: the committed goldens stay what they were when version 1 was
# the only format; suite 20 re-encodes them to version 2 and checks the same
# reports come out.
$synth --format 1 --events 2000 --cpus 2 --processes 3 --seed 42 -o small --expect >small.expect.json
$synth --format 1 --events 3000 --cpus 2 --processes 2 --seed 5 --lost 200 -o lost --expect >lost.expect.json
$synth --format 1 --events 400 --cpus 1 --processes 1 --seed 1 -o tiny >/dev/null
# Kernel-state variables: a version 2 trace (VARS records are the module's).
$synth --events 300 --cpus 2 --processes 2 --seed 7 --vars args,pid,ppid,uid,minflt,prev,next -o vars >/dev/null
# Application events in user streams (format 2).
$synth --events 600 --cpus 2 --processes 2 --seed 8 --user-events 24 -o user >/dev/null
for kind in magic version block-magic block-length cpu record-size block-end truncate; do
	$synth --format 1 --events 1800 --cpus 2 --processes 2 --seed 3 --corrupt "$kind" \
		-o "bad/$kind" --expect | jq -r '.corrupt.offset' >"bad/$kind.offset"
	rm -f "bad/$kind.proc"
done
# Damage ltt-synth does not make: power-cut tails after tiny.trace, damage
# followed by whole blocks in small.trace, names with control characters
# (names.proc is written by hand and kept).
craft=$root/tests/tools/craft-trace.py
for kind in tail-zeros tail-garbage tail-partial; do
	python3 "$craft" "$kind" "bad/$kind.trace" tiny.trace >"bad/$kind.offset"
done
for kind in middle-zeros middle-length; do
	python3 "$craft" "$kind" "bad/$kind.trace" small.trace >"bad/$kind.offset"
done
python3 "$craft" names names.trace >/dev/null
# small.trace as if traced with system calls masked out (pair: small.proc).
python3 "$craft" mask-syscalls masked.trace small.trace >/dev/null
python3 "$craft" wrap-head "$root/tests/fuzz/corpus/wrap-head.trace" >/dev/null
# Version 2 seeds for the fuzzer: re-encoded goldens, a fresh version 2
# trace with lost events, and version 2 tails.
corpus=$root/tests/fuzz/corpus
$synth --recode-v2 tiny.trace "$corpus/v2-tiny.trace"
$synth --recode-v2 names.trace "$corpus/v2-names.trace"
$synth --events 600 --cpus 2 --processes 3 --seed 8 --lost 50 -o "$corpus/v2-synth" >/dev/null
rm -f "$corpus/v2-synth.proc"
# User streams for the fuzzer: declarations, typed events, a LOST record.
$synth --events 300 --cpus 2 --processes 2 --seed 4 --user-events 12 -o "$corpus/v2-user" >/dev/null
rm -f "$corpus/v2-user.proc"
for kind in tail-partial middle-zeros; do
	python3 "$craft" "$kind" "$corpus/v2-$kind.trace" "$corpus/v2-synth.trace" >/dev/null
done

# vm-sh.{trace,proc}: a real trace (tracedaemon on the patched 6.1 kernel in
# QEMU, 2 CPUs, kernel-clock fallback), kept as is: only its outputs are
# regenerated.

# Expected outputs.
$ta -a -s small.trace small.proc >small.report.txt
$ta --json small.trace small.proc >small.json
$ta -a -s lost.trace lost.proc >lost.report.txt
$ta -d tiny.trace tiny.proc >tiny.dump.txt
$ta -d -c 1 -t syscall_entry,syscall_exit,schedchange small.trace small.proc >small.dump-cpu1.txt
$ta -s -p 101 -o file_system small.trace small.proc >small.summary-omit.txt
$ta -a -p 100 small.trace small.proc >small.pid100.txt
$ta -a -s vm-sh.trace vm-sh.proc >vm-sh.report.txt
$ta --json vm-sh.trace vm-sh.proc >vm-sh.json
$ta -d vars.trace vars.proc >vars.dump.txt
$ta --json -d vars.trace vars.proc >vars.json
$ta -d user.trace user.proc >user.dump.txt
$ta --json -d user.trace user.proc >user.json
$ta -a -s user.trace user.proc >user.report.txt
$ta -a -s names.trace names.proc >names.report.txt
$ta -d names.trace names.proc >names.dump.txt
$ta --json names.trace names.proc >names.json
$ta -a -s masked.trace small.proc >masked.report.txt
$ta --json masked.trace small.proc >masked.json
# The off-CPU section of traceview's fixture with stacks, run beside it.
(cd "$root/tests/gui/data" && $ta --json --offcpu offcpu.trace offcpu.proc) >offcpu.json
echo "updated $data"
