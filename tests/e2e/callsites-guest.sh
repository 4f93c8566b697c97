#!/bin/sh
# Runs inside the QEMU guest for the call-site test (tests/e2e/callsites.sh):
# one trace while the wl_callsites builds run, each a known number of
# getpid calls from two known functions. The programs sit at the path they
# have on the host (WL, the first argument), which analyzes the trace with
# the same files. wl_callsites-dyn-nopie starts before the trace (its
# mappings come from the .proc snapshot) and makes its calls once the
# snapshot is there (a fixed sleep was too short on the 6.12 debug kernel:
# it had finished before the snapshot); the others are exec'd during it
# (their mappings come from MAP records).
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
WL=$1
O=$out
ltt_load_first || { echo "guest: /dev/tracer not created" >&2; exit 1; }
"$WL/wl_callsites-dyn-nopie" 2000 500 "$O/cs.proc" &
early=$!
tracedaemon -q "$O/cs.trace" "$O/cs.proc" >"$O/cs.daemon.log" 2>&1 &
daemon=$!
# The .proc is renamed into place once tracing runs (slow on the debug
# kernel: a fixed sleep is not enough there).
i=0
while [ ! -f "$O/cs.proc" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
for v in static static-pie dyn stripped; do
	"$WL/wl_callsites-$v"
	echo "$v $?" >>"$O/cs.status"
done
wait $early
echo "dyn-nopie $?" >>"$O/cs.status"
sleep 0.3
kill -INT $daemon
wait $daemon
echo $? >"$O/cs.daemon.status"
for p in map_contended map_skipped; do
	echo "$p $(cat /sys/module/ltt_tracer/parameters/$p)" >>"$O/cs.params"
done
ls -l "$O/cs.kallsyms" >"$O/cs.kallsyms.ls" 2>&1
rmmod ltt_tracer
ltt_finish
echo "guest: done"
