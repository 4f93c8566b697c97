#!/bin/sh
# The cost of context records, in a QEMU guest under -icount (one guest ns
# is one instruction; tests/attribution/cost.sh boots it): make
# bench-peers's getppid loop (peers-bench getppid N) untraced, traced by a
# session that records scheduling changes (-e core,process: no context
# check, the direct path), by one that does not (-e SYSCALL: the context
# check before each event, a CONTEXT record after each switch it then
# sees) and by a filtered one (-e SYSCALL -u 0: the filtered path with
# the check; every task here passes -u 0); then wl_pingpong M (2M context
# switches on the one vCPU, each followed by a system call of the task
# switched to) untraced, under -e SYSCALL and under -e
# SYSCALL,SCHEDCHANGE. Each round runs all of it with the module as built
# (/opt/ltt/ltt_tracer.ko, "context") and then with the same source whose
# CONTEXT records are off (/opt/ltt/nocontext/ltt_tracer.ko,
# "nocontext"), so that both see the same guest. Lines "run MODULE NAME I
# ns TOTAL" go to /out/runs.txt and to stdout as they are measured (the
# host keeps stdout even when the boot is cut short); each session's last
# trace is /out/MODULE-NAME.trace. Every wait is bounded: a session that
# does not start is reported and skipped.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
n=${1:-50000}
runs=${2:-3}
pp=${3:-5000}
b=$LTT/bin/peers-bench
W=$LTT/workloads

# wait_file FILE: up to 120 s (guest time) for FILE to exist, not empty.
# Its counter is its own: sh has no local variables, and the rounds' counter
# must not be the one a wait resets.
wait_file() {
	tries=0
	while [ ! -s "$1" ] && [ $tries -lt 1200 ]; do sleep 0.1; tries=$((tries + 1)); done
	[ -s "$1" ]
}

# record MODULE NAME I LINE: one measurement, kept in two places.
record() {
	echo "run $1 $2 $3 $4" | tee -a "$out/runs.txt"
}

# traced MODULE NAME ROUND CMD...: CMD (a peers-bench line) under
# session NAME (MODULE and ROUND are the loop's $mod and $round).
traced() {
	name=$2
	shift 3
	case $name in
	full) opts="-e core,process" ;;
	syscall | ppsys) opts="-e SYSCALL" ;;
	pid) opts="-e SYSCALL -u 0" ;;
	ppsched) opts="-e SYSCALL,SCHEDCHANGE" ;;
	esac
	f=$out/$mod-$name
	rm -f "$f.proc"
	# shellcheck disable=SC2086 # opts is a list of options
	tracedaemon -q -b 4M $opts "$f.trace" "$f.proc" >"$f.log" 2>&1 &
	td=$!
	if wait_file "$f.proc"; then
		record "$mod" "$name" "$round" "$("$@")"
	else
		fail "$mod $name: the session starts" "no .proc: $(cat "$f.log")"
	fi
	kill -INT $td
	wait $td
}

: >"$out/runs.txt"
round=0
while [ $round -lt "$runs" ]; do
	round=$((round + 1))
	for mod in context nocontext; do
		ko=$LTT/ltt_tracer.ko
		[ $mod = nocontext ] && ko=$LTT/nocontext/ltt_tracer.ko
		ltt_load_first clock=tsc || { fail "$mod: insmod clock=tsc" "no /dev/tracer"; continue; }
		record $mod none $round "$($b getppid "$n")"
		for cfg in full syscall pid; do
			traced $mod $cfg $round "$b" getppid "$n"
		done
		record $mod ppnone $round "$($b time "$W/wl_pingpong" "$pp")"
		for cfg in ppsys ppsched; do
			traced $mod $cfg $round "$b" time "$W/wl_pingpong" "$pp"
		done
		rmmod ltt_tracer
	done
done
ok "cost runs"
ltt_finish
