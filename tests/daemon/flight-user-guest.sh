#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root; one vCPU and the
# module's clock=tsc, so that the trace's clock is the TSC user events
# carry; or, with the argument "fallback", two vCPUs and the module's
# fallback clock, user events on CLOCK_MONOTONIC): tracedaemon
# --flight-recorder -b 16K serving libltt-user.
#   about 20 s of load: ltt-user-load runs one after another (each logs
#   3000 events and waits for the daemon's drain) beside a system-call loop
#   ltt-mark "before snapshot", then SIGUSR1: snapshot 1
#   ltt-mark --snapshot: snapshot 2
# then SIGINT; then a second one with --trigger-event ltt_mark, which
# ltt-mark "the trigger" makes write ev-1.trace. The host (tests/suites/73-flight-user.sh) reads the files.
# Writes to /out: results.txt, facts.txt (KEY=VALUE), fr.log, fr-N.trace,
# fr-N.proc, fr-N.kallsyms, ev.log, ev-1.trace, ev-1.proc.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
facts=$out/facts.txt
: >"$facts"
fact() { echo "$1=$2" >>"$facts"; }
buf=16384

# With "fallback" (two vCPUs): the module's default clock, which falls
# back to CLOCK_MONOTONIC when the TSCs are unsynchronized; user events then
# carry CLOCK_MONOTONIC.
if [ "${1:-}" = fallback ]; then
	ltt_load_first || { fail "/dev/tracer" "not created"; exit 1; }
else
	ltt_load_first clock=tsc || { fail "/dev/tracer" "not created"; exit 1; }
fi
mkdir -p /run
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

tracedaemon --flight-recorder -b $buf fr.trace fr.proc >fr.log 2>&1 &
tdp=$!
i=0
while [ ! -S /run/ltt/user.sock ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
chk "the flight recorder listens on /run/ltt/user.sock" [ -S /run/ltt/user.sock ]
if [ "${1:-}" = fallback ]; then
	# The module says at the trace's start when it falls back.
	if dmesg | grep -q "TSC not usable"; then ok "the module took the fallback clock"
	else fail "the module took the fallback clock" "$(dmesg | grep -i tsc | tail -n 2 | tr '\n' ' ')"; fi
	if grep -q "no user events" fr.log; then fail "user events recorded" "$(grep 'no user events' fr.log)"
	else ok "user events recorded on the fallback clock"; fi
fi

load() { while :; do cat /proc/self/stat >/dev/null; done; }
load & l1=$!
end=$(($(date +%s) + 20))
runs=0 bad=0
while [ "$(date +%s)" -lt $end ]; do
	ltt-user-load 3000 >load.txt 2>&1 || bad=$((bad + 1))
	runs=$((runs + 1))
done
kill $l1 2>/dev/null
wait $l1 2>/dev/null
if [ $bad = 0 ] && [ $runs -gt 1 ]; then ok "ltt-user-load ran $runs times"
else fail "ltt-user-load ran" "$bad of $runs runs failed: $(cat load.txt)"; fi
fact load_events $((runs * 3000))

ltt-mark "before snapshot" && kill -USR1 $tdp
if waitfor 1; then ok "snapshot 1 written on SIGUSR1 after ltt-mark"
else fail "snapshot 1 written on SIGUSR1 after ltt-mark" "$(tail -n 3 fr.log | tr '\n' ' ')"; fi

ltt-mark --snapshot >snap.txt 2>&1
chk "ltt-mark --snapshot exits 0 against the flight recorder" [ $? = 0 ]
if waitfor 2; then ok "snapshot 2 written on ltt-mark --snapshot"
else fail "snapshot 2 written on ltt-mark --snapshot" "$(tail -n 3 fr.log | tr '\n' ' ')"; fi

kill -INT $tdp
wait $tdp
rc=$?
if [ $rc = 0 ] && grep -q "flight recorder stopped after .*: 2 snapshots written" fr.log; then
	ok "SIGINT stops the flight recorder (exit 0, 2 snapshots)"
else
	fail "SIGINT stops the flight recorder" "exit $rc: $(tail -n 2 fr.log | tr '\n' ' ')"
fi
if grep -q "user events: .* blocks dropped from memory" fr.log; then
	ok "the daemon reports the user events it served"
else
	fail "the daemon reports the user events it served" "$(grep -i user fr.log | tr '\n' ' ')"
fi

# --trigger-event: a second flight recorder takes a snapshot when ltt-mark
# logs its event (named ltt_mark).
tracedaemon --flight-recorder -b $buf --trigger-event ltt_mark ev.trace ev.proc >ev.log 2>&1 &
tdp=$!
i=0
while [ ! -S /run/ltt/user.sock ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
ltt-user-load 1000 >load.txt 2>&1
ltt-mark "the trigger"
i=0
while ! grep -q "snapshot 1 (" ev.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if grep -q "snapshot 1 (application event ltt_mark)" ev.log; then
	ok "--trigger-event ltt_mark: ltt-mark made snapshot 1"
else
	fail "--trigger-event ltt_mark: ltt-mark made snapshot 1" "$(tail -n 2 ev.log | tr '\n' ' ')"
fi
kill -INT $tdp
wait $tdp
chk "the second flight recorder exits 0 after SIGINT" [ $? = 0 ]
ltt_finish
