#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root): tracedaemon
# --flight-recorder -b 16K under a system-call load, three snapshots:
#   1, 2  on SIGUSR1, each just after a marker: `cat` of a file with a
#         unique name (an OPEN with its path in the trace), the daemon
#         signalled at once from the same shell
#   3     on a trigger: a child shell killing itself with SIGSEGV
# then SIGINT. The guest checks the files exist, are 0600 and that the
# daemon reported them; the host (tests/suites/72-flight.sh) reads them.
# Writes to /out: results.txt, facts.txt (KEY=VALUE), fr.log, fr-N.trace,
# fr-N.proc, fr-N.kallsyms, dmesg.txt.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
facts=$out/facts.txt
: >"$facts"
td=$LTT/bin/tracedaemon
fact() { echo "$1=$2" >>"$facts"; }
buf=16384

ltt_load_first || { fail "/dev/tracer" "not created"; exit 1; }
cd "$out" || exit 1
fact ncpus "$(grep -c ^processor /proc/cpuinfo)"
fact buffer "$buf"

# waitfor N: until the daemon reported snapshot N (at most 60 s).
waitfor() {
	i=0
	while ! grep -q "snapshot $1 (" fr.log 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "snapshot $1 (" fr.log
}

# The load: two shells making system calls as fast as they can.
load() { while :; do cat /proc/self/stat >/dev/null; done; }
load & l1=$!
load & l2=$!

"$td" --flight-recorder -b $buf --trigger-signal SEGV,abrt fr.trace fr.proc >fr.log 2>&1 &
tdp=$!
fact daemon_pid $tdp
sleep 4

for n in 1 2; do
	: >"/tmp/ltt-flight-marker-$n"
	cat "/tmp/ltt-flight-marker-$n" && kill -USR1 $tdp
	if waitfor $n; then ok "snapshot $n written on SIGUSR1"
	else fail "snapshot $n written on SIGUSR1" "$(tail -n 3 fr.log | tr '\n' ' ')"; fi
	sleep 3
done

# The trigger: a process dying of SIGSEGV.
sh -c 'echo $$ >segv.pid; kill -SEGV $$'
fact segv_pid "$(cat segv.pid)"
if waitfor 3; then ok "snapshot 3 written when a process died of SIGSEGV"
else fail "snapshot 3 written when a process died of SIGSEGV" "$(tail -n 3 fr.log | tr '\n' ' ')"; fi
# A normal exit is no trigger.
sh -c 'exit 3'
sleep 2
if grep -q "snapshot 4 (" fr.log; then fail "no snapshot on a normal exit" "$(tail -n 1 fr.log)"
else ok "no snapshot on a normal exit"; fi

kill -INT $tdp
wait $tdp
rc=$?
kill $l1 $l2 2>/dev/null
wait 2>/dev/null
if [ $rc = 0 ] && grep -q "flight recorder stopped after .*: 3 snapshots written" fr.log; then
	ok "SIGINT stops the flight recorder (exit 0, 3 snapshots)"
else
	fail "SIGINT stops the flight recorder" "exit $rc: $(tail -n 2 fr.log | tr '\n' ' ')"
fi
for n in 1 2 3; do
	modes=$(stat -c %a fr-$n.trace fr-$n.proc fr-$n.kallsyms 2>&1 | tr '\n' ' ')
	if [ "$modes" = "600 600 600 " ]; then ok "fr-$n.trace, .proc and .kallsyms are 0600"
	else fail "fr-$n.trace, .proc and .kallsyms are 0600" "$modes"; fi
	fact "overwritten_$n" "$(sed -n "s/.*snapshot $n (.*; \([0-9]*\) events overwritten.*/\1/p" fr.log)"
done
if [ -e fr-4.trace ] || [ -e fr.trace ]; then fail "no other trace written" "$(ls)"
else ok "no other trace written"; fi
ltt_finish
