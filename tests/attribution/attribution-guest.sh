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
ltt_finish
