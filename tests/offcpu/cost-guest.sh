#!/bin/sh
# The cost of STACK records, in a QEMU guest under -icount (one guest ns is
# one instruction; tests/offcpu/cost.sh boots it): wl_pingpong N (two
# processes passing a byte through pipes, every read a blocking switch)
# timed by peers-bench, untraced, traced with the scheduling changes only
# (-e SCHED) and with stacks (-e SCHED -S). Lines "run NAME I ns TOTAL" in
# /out/runs.txt, each session's trace in /out.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
n=${1:-20000}
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
	echo "run none $i $($b time "$LTT/workloads/wl_pingpong" "$n")" >>"$out/runs.txt"
	# Progress in the kernel log, which the host's console.log shows as it
	# comes (the script's own output reaches the host only at the end),
	# with the guest's clock: under icount, instructions.
	echo "ltt-cost: $(cat /proc/uptime) run $i: untraced done" >/dev/kmsg
	for cfg in sched stacks; do
		rm -f "$out/$cfg.proc"
		case $cfg in
		sched) set -- -e SCHED ;;
		stacks) set -- -e SCHED -S ;;
		esac
		tracedaemon -q -b 4M "$@" "$out/$cfg.trace" "$out/$cfg.proc" >"$out/$cfg.log" 2>&1 &
		td=$!
		wait_file "$out/$cfg.proc" || fail "$cfg: the session starts" "no .proc"
		echo "run $cfg $i $($b time "$LTT/workloads/wl_pingpong" "$n")" >>"$out/runs.txt"
		kill -INT $td
		wait $td
		echo "ltt-cost: $(cat /proc/uptime) run $i: $cfg done ($(wc -c <"$out/$cfg.trace") bytes)" >/dev/kmsg
	done
done
ok "cost runs"
ltt_finish
