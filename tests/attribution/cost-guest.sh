#!/bin/sh
# The cost of context records, in a QEMU guest under -icount (one guest ns
# is one instruction; tests/attribution/cost.sh boots it): the getppid
# loop of make bench-peers (peers-bench getppid N) untraced, traced by a
# session that records scheduling changes (-e core,process: no context
# check, the direct path), by one that does not (-e SYSCALL: the context
# check before each event, a CONTEXT record after each switch it then
# sees) and by a filtered one (-e SYSCALL -u 0: the filtered path with
# the check; every task here passes -u 0). Lines "run NAME I ns TOTAL" in
# /out/runs.txt, each session's trace in /out.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
n=${1:-100000}
runs=${2:-3}
b=$LTT/bin/peers-bench
ltt_load_first clock=tsc || exit 1

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	echo "run none $i $($b getppid "$n")" >>"$out/runs.txt"
	for cfg in full syscall pid; do
		rm -f "$out/$cfg.proc"
		case $cfg in
		full) set -- -e core,process ;;
		syscall) set -- -e SYSCALL ;;
		pid) set -- -e SYSCALL -u 0 ;;
		esac
		tracedaemon -q -b 4M "$@" "$out/$cfg.trace" "$out/$cfg.proc" >"$out/$cfg.log" 2>&1 &
		td=$!
		wait_file "$out/$cfg.proc" || fail "$cfg: the session starts" "no .proc"
		echo "run $cfg $i $($b getppid "$n")" >>"$out/runs.txt"
		kill -INT $td
		wait $td
	done
done
ok "cost runs"
ltt_finish
