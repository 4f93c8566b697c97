#!/bin/sh
# Runs inside the QEMU guest of one kernel of the matrix (scripts/kernels.sh),
# an unmodified Debian kernel where the module uses its tracepoint backend:
# every check of the matrix in one boot.
#   1. the accuracy workloads (tests/e2e/guest.sh --stock, at
#      /opt/ltt/e2e-guest.sh): their traces and independent measurements in
#      /out, checked on the host by tests/e2e/check_accuracy.py --stock;
#   2. restricted: an ordinary user (uid 1000) traces its own command in a
#      restricted session while root runs a load;
#   3. flight: a flight-recorder session writes a snapshot on SIGUSR1;
#   4. concurrent: two sessions trace at once.
# Result lines go to /out/results.txt, prefixed "restricted: ", "flight: ",
# "concurrent: " (the host makes the table's cells of them); the traces
# stay in /out for the host's traceanalyze.
# usage: matrix-guest.sh [PARAM=VALUE]: a module parameter for the load of
# steps 2-4 (the one that lets ordinary users open restricted sessions,
# when the module has one).
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
td=$LTT/bin/tracedaemon
wl=$LTT/workloads/wl_syscalls
uname -r >"$out/uname.txt"
note "uname -r: $(uname -r)"

# 1. The accuracy workloads (they load and unload the module themselves).
sh "$LTT/e2e-guest.sh" --stock
echo $? >"$out/e2e.status"

# 2-4 with the module loaded once more.
if ! ltt_load "$@"; then
	fail "restricted: insmod ltt_tracer.ko $*" "$(dmesg | tail -n 2 | tr '\n' ' ')"
	fail "flight: insmod ltt_tracer.ko $*" "see restricted"
	fail "concurrent: insmod ltt_tracer.ko $*" "see restricted"
	ltt_finish
	exit 1
fi
cd "$out" || exit 1

# 2. Restricted session: uid 1000 traces its own command, with root's load
# beside it; its .proc lists only its own processes.
mkdir -p /tmp/u && chown 1000:1000 /tmp/u
"$wl" 20000 512 /tmp >/dev/null 2>&1 &
load=$!
su -s /bin/sh user -c "$td /tmp/u/user.trace /tmp/u/user.proc -- $wl 2000 64 /tmp/u" >user.log 2>&1
rc=$?
kill $load 2>/dev/null
wait $load 2>/dev/null
if [ $rc = 0 ] && grep -Eq "traced [0-9.]+ s" user.log; then
	ok "restricted: uid 1000 traces its own command"
else
	fail "restricted: uid 1000 traces its own command" "status $rc: $(tail -n 2 user.log | tr '\n' ' ')"
fi
cp /tmp/u/user.trace /tmp/u/user.proc . 2>/dev/null
others=$(grep '^PID: ' user.proc 2>/dev/null | grep -vc 'UID: 1000;')
mine=$(grep '^PID: ' user.proc 2>/dev/null | grep -c 'UID: 1000;')
if [ "$others" = 0 ] && [ "${mine:-0}" -ge 1 ]; then
	ok "restricted: the .proc lists only uid 1000's processes ($mine)"
else
	fail "restricted: the .proc lists only uid 1000's processes" "own ${mine:-?}, others ${others:-?}"
fi
echo "$load" >user.loadpid

# 3. Flight recorder: a snapshot on SIGUSR1, just after a marker (an OPEN
# of a file with a unique name, which the host finds in the snapshot).
"$td" --flight-recorder -b 64K fr.trace fr.proc >fr.log 2>&1 &
tdp=$!
wait_for fr.log "flight recorder: recording"
sleep 2
: >/tmp/ltt-matrix-marker
cat /tmp/ltt-matrix-marker && kill -USR1 $tdp
if wait_for fr.log "snapshot 1 ("; then ok "flight: snapshot written on SIGUSR1"
else fail "flight: snapshot written on SIGUSR1" "$(tail -n 3 fr.log | tr '\n' ' ')"; fi
kill -INT $tdp
wait $tdp
rc=$?
if [ $rc = 0 ] && grep -Eq "1 snapshots? written" fr.log; then
	ok "flight: SIGINT stops the recorder (exit 0)"
else
	fail "flight: SIGINT stops the recorder" "status $rc: $(tail -n 2 fr.log | tr '\n' ' ')"
fi

# 4. Two sessions at once: the second starts and ends while the first
# traces; both end normally with their traces. The first is stopped by a
# signal once the second has ended (a fixed duration could run out first
# on a slow, emulated CPU).
"$td" c1.trace c1.proc >c1.log 2>&1 &
pid=$!
# (tracing once the .proc is written, which follows START)
i=0
while [ ! -s c1.proc ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
"$td" c2.trace c2.proc -- "$wl" 2000 64 /tmp >c2.log 2>&1
rc=$?
if [ $rc = 0 ] && grep -Eq "traced [0-9.]+ s" c2.log; then ok "concurrent: second session traces beside the first"
else fail "concurrent: second session traces beside the first" "status $rc: $(tail -n 2 c2.log | tr '\n' ' ')"; fi
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 0 ] && grep -Eq "traced [0-9.]+ s \(stopped by signal\)" c1.log; then
	ok "concurrent: first session unaffected by the second"
else
	fail "concurrent: first session unaffected by the second" "status $rc: $(tail -n 2 c1.log | tr '\n' ' ')"
fi

chk "concurrent: rmmod ltt_tracer after the sessions" rmmod ltt_tracer
ltt_finish
