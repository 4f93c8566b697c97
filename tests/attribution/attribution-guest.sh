#!/bin/sh
# Runs inside the QEMU guest for the attribution suite
# (tests/suites/68-attribution.sh), on the patched kernel and on Debian's
# stock kernel. Each session shape traces tests/workloads/wl_calltable,
# whose per-call table is known, and leaves SHAPE.trace/.proc in /out for
# the host (tests/attribution/check_attribution.py):
#   syscall     tracedaemon -e SYSCALL -- wl_calltable (no scheduling
#               events: only context records say which task runs)
#   pid         tracedaemon -e SYSCALL -P PID, the workload already running
#   running     the default session, started while the workload runs
#   su          a restricted session of uid 1000 (unprivileged=1), the
#               workload started by root through su: it becomes the
#               owner's at su's setuid and exec, without a context switch
#   mask        the default session with a control FIFO: at the
#               workload's first stop "events -SCHEDCHANGE", at its second
#               "events +SCHEDCHANGE" (the reads and getpids run without
#               scheduling events, beside a busy loop that preempts them)
#   flight      a flight recorder (-b 256K) started while the workload
#               waits: a load of getppid calls overwrites each CPU's ring
#               many times (the workload's fork and exec are gone), then
#               the workload runs and the snapshot is taken at its last
#               stop, while it still lives
#   setuid      uid 1000's restricted session; root runs wl_become, a
#               copy owned by uid 1000 with mode 4755, which makes 1234
#               getppid calls, its uids all 1000, 1234 more, and execs
#               the workload: none of the helper's calls may be seen
# The layout is tests/lib/vm-guest.sh's.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
W=$LTT/workloads
dir=/tmp/attribution

if ! ltt_load_first unprivileged=1; then
	fail "insmod ltt_tracer.ko unprivileged=1" "no /dev/tracer"
	ltt_finish
	exit 1
fi
ok "insmod ltt_tracer.ko unprivileged=1"
mkdir -p "$dir"
chmod 0777 "$dir"

# wait_file FILE: up to 120 s for FILE to exist and not be empty.
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# wait_dir DIR: up to 120 s for the directory DIR (a workload's stop).
wait_dir() {
	i=0
	while [ ! -d "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -d "$1" ]
}

# wait_grep PATTERN FILE: up to 120 s for a line of FILE to match.
wait_grep() {
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "$1" "$2"
}

# stop_daemon PID NAME: SIGINT, wait, and its status in NAME.daemon.status.
stop_daemon() {
	kill -INT "$1"
	wait "$1"
	echo $? >"$out/$2.daemon.status"
}

# syscall: the strace-like session.
tracedaemon -q -e SYSCALL "$out/syscall.trace" "$out/syscall.proc" -- \
	"$W/wl_calltable" "$dir" >"$out/syscall.log" 2>&1
echo $? >"$out/syscall.daemon.status"

# pid and running: the workload waits for $dir/go, the session starts,
# then the workload makes its calls.
for shape in pid running; do
	rm -f "$dir/go"
	"$W/wl_calltable" "$dir" "$dir/go" >"$out/$shape.wl.log" 2>&1 &
	wl=$!
	echo "$wl" >"$out/$shape.pid"
	if [ $shape = pid ]; then
		tracedaemon -q -e SYSCALL -P "$wl" "$out/$shape.trace" "$out/$shape.proc" \
			>"$out/$shape.log" 2>&1 &
	else
		tracedaemon -q "$out/$shape.trace" "$out/$shape.proc" >"$out/$shape.log" 2>&1 &
	fi
	td=$!
	wait_file "$out/$shape.proc" || fail "$shape: the session starts" "no .proc"
	touch "$dir/go"
	wait "$wl"
	echo $? >"$out/$shape.wl.status"
	stop_daemon "$td" $shape
done

# su: uid 1000's restricted session; root starts the workload through su
# (its data file, root's from the shapes above, goes first).
rm -f "$dir/u.proc" "$dir/td.pid" "$dir/wl_calltable.dat"
su -s /bin/sh user -c "echo \$\$ >$dir/td.pid; exec tracedaemon -q $dir/u.trace $dir/u.proc" \
	>"$out/su.log" 2>&1 &
su_td=$!
if wait_file "$dir/u.proc" && wait_file "$dir/td.pid"; then
	su -s /bin/sh user -c "exec $W/wl_calltable $dir" >"$out/su.wl.log" 2>&1
	echo $? >"$out/su.wl.status"
	kill -INT "$(cat "$dir/td.pid")"
	wait "$su_td"
	echo $? >"$out/su.daemon.status"
	cp "$dir/u.trace" "$out/su.trace"
	cp "$dir/u.proc" "$out/su.proc"
else
	fail "su: uid 1000's restricted session starts" "no .proc: $(cat "$out/su.log")"
fi

# mask: the default session, scheduling events dropped and restored while
# the workload runs. A line the daemon does not know ("sync N") comes
# after each change: the daemon applies its lines in order and reports a
# bad one, so its report means the change (and its CONFIG record) holds.
rm -rf "$dir/go" "$dir"/step.* "$dir/wl_calltable.dat"
ctl=/tmp/attribution.ctl
"$W/wl_calltable" "$dir" "$dir/go" "$dir/step" >"$out/mask.wl.log" 2>&1 &
wl=$!
echo "$wl" >"$out/mask.pid"
tracedaemon -q --control "$ctl" "$out/mask.trace" "$out/mask.proc" >"$out/mask.log" 2>&1 &
td=$!
# The busy loop makes no system call: the scheduler switches between it
# and the workload, which the trace says only through CONTEXT records
# while SCHEDCHANGE is off.
(while :; do :; done) &
busy=$!
if wait_file "$out/mask.proc" && [ -p "$ctl" ]; then
	touch "$dir/go"
	n=0
	for change in -SCHEDCHANGE +SCHEDCHANGE; do
		n=$((n + 1))
		wait_dir "$dir/step.$n" || fail "mask: the workload reaches stop $n" "no $dir/step.$n"
		echo "events $change" >"$ctl"
		echo "sync $n" >"$ctl"
		wait_grep "control line 'sync $n'" "$out/mask.log" ||
			fail "mask: events $change applied" "$(tail -n 3 "$out/mask.log")"
		touch "$dir/step.$n.go"
	done
	touch "$dir/step.3.go"
	wait "$wl"
	echo $? >"$out/mask.wl.status"
else
	fail "mask: the session starts" "no .proc or FIFO: $(cat "$out/mask.log")"
	kill "$wl"
fi
kill "$busy"
stop_daemon "$td" mask

# flight: the ring overwritten before the workload runs; the snapshot at
# its last stop, so that it is in the snapshot's .proc.
rm -rf "$dir/go" "$dir"/step.* "$dir/wl_calltable.dat"
"$W/wl_calltable" "$dir" "$dir/go" "$dir/step" >"$out/flight.wl.log" 2>&1 &
wl=$!
echo "$wl" >"$out/flight.pid"
mkdir "$dir/step.1.go" "$dir/step.2.go"
tracedaemon --flight-recorder -b 256K "$out/flight.trace" "$out/flight.proc" \
	>"$out/flight.log" 2>&1 &
td=$!
if wait_grep "flight recorder: recording" "$out/flight.log"; then
	"$W/wl_getppid" 200000 &
	f1=$!
	"$W/wl_getppid" 200000
	wait "$f1"
	touch "$dir/go"
	wait_dir "$dir/step.3" || fail "flight: the workload reaches its last stop" "no $dir/step.3"
	kill -USR1 "$td"
	wait_grep "snapshot 1 (" "$out/flight.log" ||
		fail "flight: snapshot 1 written" "$(tail -n 3 "$out/flight.log")"
else
	fail "flight: the flight recorder starts" "$(cat "$out/flight.log")"
fi
touch "$dir/step.3.go"
wait "$wl"
echo $? >"$out/flight.wl.status"
stop_daemon "$td" flight
for f in trace proc kallsyms; do
	[ -e "$out/flight-1.$f" ] && mv "$out/flight-1.$f" "$out/flight.$f"
done

# setuid: the helper is uid 1000's, mode 4755 (on /tmp, a tmpfs without
# nosuid); root runs it.
rm -f "$dir/b.proc" "$dir/td.pid" "$dir/wl_calltable.dat"
cp "$W/wl_become" /tmp/wl_become
chown 1000:1000 /tmp/wl_become
chmod 4755 /tmp/wl_become
su -s /bin/sh user -c "echo \$\$ >$dir/td.pid; exec tracedaemon -q $dir/b.trace $dir/b.proc" \
	>"$out/setuid.log" 2>&1 &
su_td=$!
if wait_file "$dir/b.proc" && wait_file "$dir/td.pid"; then
	/tmp/wl_become 1234 "$W/wl_calltable" "$dir" >"$out/setuid.wl.log" 2>&1
	echo $? >"$out/setuid.wl.status"
	kill -INT "$(cat "$dir/td.pid")"
	wait "$su_td"
	echo $? >"$out/setuid.daemon.status"
	cp "$dir/b.trace" "$out/setuid.trace"
	cp "$dir/b.proc" "$out/setuid.proc"
else
	fail "setuid: uid 1000's restricted session starts" "no .proc: $(cat "$out/setuid.log")"
fi
ltt_finish
