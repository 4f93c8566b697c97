#!/bin/sh
# The cost of STACK records, in a QEMU guest under -icount (one guest ns is
# one instruction; tests/offcpu/cost.sh boots it). Four workloads, each
# two processes passing a byte through pipes N times, where every round
# trip blocks one of them in a pipe read:
#   pingpong  wl_pingpong N (static glibc, no frame pointers: short user
#             stacks)
#   fp16      stackping N 16: the read 16 calls deep, frame pointers
#   fp100     stackping N 100: deeper than the walk's bound (64 frames)
#   fault     stackping N 0 fault: the walk faults on its first frame
# and, to tell the session's cost apart from its records', a loop of
# 10 N getppid() calls, which never blocks (getppid: peers-bench getppid);
# each timed by peers-bench untraced, traced with the scheduling changes
# only (-e SCHED) and with stacks (-e SCHED -S), RUNS times, interleaved.
# Lines "run WORKLOAD CONFIG I ns TOTAL" in /out/runs.txt; the last run's
# traces as /out/WORKLOAD-CONFIG.trace.
# Usage: cost-guest.sh N RUNS CLOCK (CLOCK: the module's clock= parameter)
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
n=${1:-20000}
runs=${2:-3}
clock=${3:-tsc}
b=$LTT/bin/peers-bench
sp=$LTT/bin/stackping
ltt_load_first "clock=$clock" || {
	fail "insmod" "/dev/tracer did not appear"
	ltt_finish
	exit 1
}

# wait_file FILE: up to 120 s for FILE to be non-empty. Its counter is
# its own: busybox sh variables are global, and a shared "i" here once
# reset the run loop's count at every session start, so the loop never
# ended.
wait_file() {
	wf_n=0
	while [ ! -s "$1" ] && [ $wf_n -lt 1200 ]; do sleep 0.1; wf_n=$((wf_n + 1)); done
	[ -s "$1" ]
}

# workload NAME: wl_cmd, peers-bench's arguments for NAME.
workload() {
	case $1 in
	pingpong) wl_cmd="time $LTT/workloads/wl_pingpong $n" ;;
	fp16) wl_cmd="time $sp $n 16" ;;
	fp100) wl_cmd="time $sp $n 100" ;;
	fault) wl_cmd="time $sp $n 0 fault" ;;
	getppid) wl_cmd="getppid ${n}0" ;;
	esac
}

# timed NAME CONFIG: one timed run of workload NAME, its line in runs.txt.
# Stops the script when the workload fails (a result would mean nothing).
timed() {
	workload "$1"
	# shellcheck disable=SC2086 # wl_cmd is words without spaces
	t=$($b $wl_cmd) || {
		# peers-bench time sends the workload's output to /dev/null:
		# the workload once more, for its message.
		# shellcheck disable=SC2086
		why=$(${wl_cmd#time } 2>&1 | tail -n 2 | tr '\n' ' ')
		fail "$1 $2 run $run" "'$wl_cmd' failed: $t; again: $why"
		ltt_finish
		exit 1
	}
	echo "run $1 $2 $run $t" >>"$out/runs.txt"
}

workloads="pingpong fp16 fp100 fault getppid"
run=0
while [ $run -lt "$runs" ]; do
	run=$((run + 1))
	for wl in $workloads; do
		timed "$wl" none
		for cfg in sched stacks; do
			case $cfg in
			sched) flags="-e SCHED" ;;
			stacks) flags="-e SCHED -S" ;;
			esac
			f=$out/$wl-$cfg
			rm -f "$f.proc" "$f.trace"
			# shellcheck disable=SC2086 # flags is two or three words
			tracedaemon -q -b 4M $flags "$f.trace" "$f.proc" >"$f.log" 2>&1 &
			td=$!
			if ! wait_file "$f.proc"; then
				fail "$wl $cfg run $run: the session starts" "no .proc; $(cat "$f.log")"
				kill -INT $td
				ltt_finish
				exit 1
			fi
			timed "$wl" "$cfg"
			kill -INT $td
			wait $td || fail "$wl $cfg run $run: tracedaemon" "exit status $?; $(cat "$f.log")"
		done
		# Progress in the kernel log, which the host's console.log shows as
		# it comes (the script's own output reaches the host only at the
		# end), with the guest's clock: under icount, instructions.
		echo "ltt-cost: $(cat /proc/uptime) run $run: $wl done" >/dev/kmsg
	done
done
ok "cost runs"
ltt_finish
