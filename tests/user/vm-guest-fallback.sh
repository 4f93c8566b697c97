#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root; tests/lib/vm-guest.sh's
# layout) with two vCPUs and the module's default clock: TCG offers no
# invariant TSC and the kernel finds the two TSCs unsynchronized, so the
# trace's clock is the fallback (CLOCK_MONOTONIC ns), as on many virtual
# machines. Application events then carry CLOCK_MONOTONIC. Writes to /out:
#   results.txt  the result lines; "# ..." notes (the costs per event)
#   user.trace user.proc td.log  the trace for the host's checker
#   facts.txt    KEY=VALUE: the bracket loader's pid, the figures
# Steps: tracedaemon; ltt-user-load 10000 --bracket 2 (two threads, each
# event between two getppid() calls); ltt-user-load 10000 (the enabled
# path's cost on this clock); ltt-mark TEXT; ltt-mark --snapshot; SIGINT
# and the daemon's report; then a daemon whose filter leaves ltt-mark out:
# ltt-mark fails at once with the daemon's reason.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
facts=$out/facts.txt
: >"$facts"
bin=$LTT/bin
fact() { echo "$1=$2" >>"$facts"; }

ltt_load_first || exit 1
mkdir -p /run
cd "$out" || exit 1
fact ncpus "$(grep -c ^processor /proc/cpuinfo)"

# wait_socket: until the daemon's socket is there (at most 30 s).
wait_socket() {
	i=0
	while [ ! -S /run/ltt/user.sock ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S /run/ltt/user.sock ]
}

"$bin/tracedaemon" -ts120 user.trace user.proc >td.log 2>&1 &
td=$!
chk "tracedaemon listens on /run/ltt/user.sock" wait_socket
# The module says at the trace's start when it falls back.
if dmesg | grep -q "TSC not usable"; then ok "the module took the fallback clock"
else fail "the module took the fallback clock" "$(dmesg | grep -i tsc | tail -n 2 | tr '\n' ' ')"; fi
note "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
if grep -q "no user events" td.log; then
	fail "tracedaemon records user events on the fallback clock" "$(grep 'no user events' td.log)"
else
	ok "tracedaemon records user events on the fallback clock"
fi

"$bin/ltt-user-load" 10000 --bracket 2 >bracket.txt 2>&1 &
load=$!
fact load_pid "$load"
wait $load
chk "ltt-user-load 10000 --bracket 2 logged and drained" [ $? = 0 ]
note "bracket: $(cat bracket.txt)"

"$bin/ltt-user-load" 10000 >enabled.txt 2>&1
chk "ltt-user-load 10000 logged and drained" [ $? = 0 ]
note "enabled (CLOCK_MONOTONIC): $(cat enabled.txt)"
fact enabled_ns "$(sed -n 's/.*: \([0-9.]*\) ns per event.*/\1/p' enabled.txt)"

"$bin/ltt-mark" "guest mark one" >mark.txt 2>&1
chk "ltt-mark TEXT exits 0 while tracing" [ $? = 0 ]
"$bin/ltt-mark" --snapshot >snap.txt 2>&1
chk "ltt-mark --snapshot exits 0 while tracing" [ $? = 0 ]

kill -INT $td
wait $td
chk "tracedaemon exits 0 after SIGINT" [ $? = 0 ]
if grep -q "tracedaemon: user events: 20001 from 4 of 4 registered processes, 0 lost" td.log; then
	ok "the daemon reports 20001 user events, none lost"
else
	fail "the daemon reports 20001 user events, none lost" "$(grep -i user td.log | tr '\n' ' ')"
fi

# A daemon that records no events of ltt-mark (its -P names pid 1): the
# process is told at registration, ltt-mark says why and exits 1 without
# waiting for an ENABLE.
"$bin/tracedaemon" -P 1 -ts60 filtered.trace filtered.proc >filtered.log 2>&1 &
td=$!
wait_socket
"$bin/ltt-mark" "left out" >refused.txt 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "^ltt-mark: tracedaemon records no events of this process: the session's filters" refused.txt; then
	ok "ltt-mark left out by the filters: exit 1 with the daemon's reason"
else
	fail "ltt-mark left out by the filters: exit 1 with the daemon's reason" "status $rc: $(cat refused.txt)"
fi
kill -INT $td
wait $td
ltt_finish
