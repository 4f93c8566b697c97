#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root; tests/lib/vm-guest.sh's
# layout): application events beside kernel events. Writes to /out:
#   results.txt  the result lines; "# ..." notes (the costs per event)
#   user.trace user.proc td.log  the trace for the host's checker
#   facts.txt    KEY=VALUE: the loader's pid, the figures
# Steps: the disabled path's cost with no daemon; ltt-mark with no daemon
# (exit 1 and its message); tracedaemon with the default user socket;
# ltt-user-load 10000 (seq:i64 name:str value:f64) and its enabled cost;
# ltt-mark TEXT; ltt-mark --snapshot; SIGINT; the daemon's report.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
facts=$out/facts.txt
: >"$facts"
bin=$LTT/bin
fact() { echo "$1=$2" >>"$facts"; }

# clock=tsc: TCG has no invariant TSC, so the module would fall back to
# CLOCK_MONOTONIC; with one vCPU its TSC is the clock user events carry.
ltt_load_first clock=tsc || exit 1
mkdir -p /run
cd "$out" || exit 1

# The disabled path: no daemon, nothing registered.
"$bin/ltt-user-load" 1000000 --disabled >disabled.txt 2>&1
chk "ltt-user-load --disabled runs without a daemon" [ $? = 0 ]
note "disabled: $(cat disabled.txt)"
fact disabled_ns "$(sed -n 's/.*: \([0-9.]*\) ns per event.*/\1/p' disabled.txt)"

"$bin/ltt-mark" "nobody" >nodaemon.txt 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "^ltt-mark: no tracedaemon is running (no socket at /run/ltt/user.sock)$" nodaemon.txt; then
	ok "ltt-mark without a daemon: exit 1 and says so"
else
	fail "ltt-mark without a daemon: exit 1 and says so" "status $rc: $(cat nodaemon.txt)"
fi

"$bin/tracedaemon" -ts120 user.trace user.proc >td.log 2>&1 &
td=$!
i=0
while [ ! -S /run/ltt/user.sock ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
chk "tracedaemon listens on /run/ltt/user.sock" [ -S /run/ltt/user.sock ]

"$bin/ltt-user-load" 10000 >enabled.txt 2>&1 &
load=$!
fact load_pid "$load"
wait $load
chk "ltt-user-load 10000 logged and drained" [ $? = 0 ]
note "enabled: $(cat enabled.txt)"
fact enabled_ns "$(sed -n 's/.*: \([0-9.]*\) ns per event.*/\1/p' enabled.txt)"

"$bin/ltt-mark" "guest mark one" >mark.txt 2>&1
chk "ltt-mark TEXT exits 0 while tracing" [ $? = 0 ]
"$bin/ltt-mark" --snapshot >snap.txt 2>&1
chk "ltt-mark --snapshot exits 0 while tracing" [ $? = 0 ]

kill -INT $td
wait $td
chk "tracedaemon exits 0 after SIGINT" [ $? = 0 ]
cp td.log "$out/" 2>/dev/null
if grep -q "tracedaemon: user events: 10001 from 3 of 3 registered processes, 0 lost" td.log; then
	ok "the daemon reports 10001 user events, none lost"
else
	fail "the daemon reports 10001 user events, none lost" "$(grep -i user td.log | tr '\n' ' ')"
fi
chk "the socket is gone after the daemon" [ ! -e /run/ltt/user.sock ]
ltt_finish
