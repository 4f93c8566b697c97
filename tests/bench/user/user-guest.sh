#!/bin/sh
# shellcheck disable=SC2086 # $cmd is a command line of plain words
# The guest side of make bench-user (scripts/bench-user.sh), in the layout
# of tests/lib/vm-guest.sh plus LTTng 2.13 staged by the host (lttng,
# lttng-sessiond, lttng-consumerd and their libraries under /usr and
# /lib64) and the LTTng-UST libraries of user-bench-lttng in
# /opt/ltt/ust-lib. Runs RUNS times each configuration, in this order:
#   none            user-bench-none COUNT: the loop without a tracer
#   ltt_disabled    user-bench-ltt, no tracedaemon running
#   ltt             user-bench-ltt under tracedaemon -e process (kernel
#                   events: only the process events, which the loop does
#                   not produce), one session per run
#   lttng_disabled  user-bench-lttng, no lttng-sessiond running
#   lttng           user-bench-lttng in a UST-only session per run
#                   (lttng-sessiond --no-kernel; the default channel,
#                   enable-event -u ltt_bench:event)
#   ltt_paced, lttng_paced
#                   ltt and lttng with the loop in batches of BATCH events
#                   and an untimed pause after each (user-bench.c), so that
#                   the readers keep up: the producer's cost without losses
#   ltt_fallback, ltt_fallback_paced
#                   ltt and ltt_paced with the module's fallback clock
#                   (clock=local): the application stamps CLOCK_MONOTONIC
#                   (clock_gettime) instead of rdtsc
# Writes to /out:
#   runs.txt      "run CONFIG I ns_per_event=X" and, for ltt, "events=N
#                 lost=N" (tracedaemon's user-event summary), for lttng
#                 "lost=N" (lttng list: discarded events)
#   traces/       the LTTng sessions, for the host to count their events
#   results.txt   "FAIL - ..." lines when a run or a setup failed
# usage: user-guest.sh RUNS COUNT BATCH LTT_BUFFER LTT_CLOCK [RING]
# (RING: libltt-user's ring size, LTT_USER_RING_SIZE; empty: its default)
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
set -u
[ $# -eq 5 ] || [ $# -eq 6 ] ||
	{ echo "usage: user-guest.sh RUNS COUNT BATCH LTT_BUFFER LTT_CLOCK [RING]" >&2; exit 2; }
runs=$1 count=$2 batch=$3 ltt_buf=$4 ltt_clock=$5
if [ -n "${6:-}" ]; then
	export LTT_USER_RING_SIZE=$6
fi
R=$out/runs.txt
TR=$out/traces
mkdir -p "$TR"
: >"$R"

# series CONFIG FN ARGS...: FN DIR ARGS... for I in 1..RUNS; FN prints the
# run's fields ("ns_per_event=X ..."), or nothing when the run failed.
series() {
	c=$1 fn=$2
	shift 2
	i=1
	while [ "$i" -le "$runs" ]; do
		d=$TR/$c-$i
		rm -rf "$d"
		mkdir -p "$d"
		fields=$($fn "$d" "$@")
		case $fields in
		ns_per_event=[0-9]*) echo "run $c $i $fields" >>"$R" ;;
		*) fail "$c run $i" "$(tail -n 3 "$d"/*.log 2>/dev/null | tr '\n' ' ')" ;;
		esac
		i=$((i + 1))
	done
}
ns_of() { sed -n 's/^ns_per_event //p' "$1"; }

plain_run() {
	d=$1
	shift
	"$@" >"$d/out.log" 2>&1 || return
	echo "ns_per_event=$(ns_of "$d/out.log")"
}

# ltt_run DIR [BATCH]: tracedaemon prints "user events: N from E of P
# registered processes, L lost" when it stops.
ltt_run() {
	tracedaemon -e process -b "$ltt_buf" "$1/ltt.trace" "$1/ltt.proc" \
		-- user-bench-ltt "$count" enabled ${2:-} >"$1/out.log" 2>"$1/daemon.log" || return
	s=$(grep -h 'user events: ' "$1/out.log" "$1/daemon.log" | tail -n 1)
	[ -n "$s" ] || return
	ev=$(echo "$s" | sed -n 's/.*user events: \([0-9]*\) from.*/\1/p')
	lost=$(echo "$s" | sed -n 's/.*processes, \([0-9]*\) lost.*/\1/p')
	echo "ns_per_event=$(ns_of "$1/out.log") events=$ev lost=$lost"
	rm -f "$1/ltt.trace" "$1/ltt.proc"
}

# lttng-sessiond seeds its random numbers with getrandom(); before the
# kernel's random pool is ready (early in a quiet guest) it warns and falls
# back to a seed that blocks until the pool is ready. A blocking read of
# /dev/random does that wait here, before any session (6.1 readies the
# pool with jitter entropy).
lttng_setup() {
	mkdir -p /dev/shm /var/run /var/lib
	head -c 1 /dev/random >/dev/null
	mount -t tmpfs tmpfs /dev/shm 2>/dev/null
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:$LTT/ust-lib
	export LD_LIBRARY_PATH
	if ! lttng-sessiond --daemonize --no-kernel >"$out/sessiond.log" 2>&1; then
		fail "lttng-sessiond starts" "$(tail -n 3 "$out/sessiond.log" | tr '\n' ' ')"
		return 1
	fi
	note "lttng: $(lttng --version | head -n 1)"
}
lttng_teardown() {
	pid=$(pidof lttng-sessiond)
	[ -n "$pid" ] && kill "$pid"
}
# lttng_run DIR [BATCH]
lttng_run() {
	s=ub$$
	{
		lttng create "$s" --output="$1/session" &&
			lttng enable-event -u ltt_bench:event &&
			lttng start
	} >"$1/lttng.log" 2>&1 || { lttng destroy "$s" >/dev/null 2>&1; return 1; }
	user-bench-lttng "$count" enabled ${2:-} >"$1/out.log" 2>&1
	rc=$?
	lttng stop >>"$1/lttng.log" 2>&1
	lttng list "$s" >"$1/list.log" 2>&1
	lttng destroy "$s" >>"$1/lttng.log" 2>&1
	[ $rc -eq 0 ] || return
	lost=$(sed -n 's/.*Discarded events: *//p' "$1/list.log" | awk '{ n += $1 } END { print n + 0 }')
	echo "ns_per_event=$(ns_of "$1/out.log") lost=$lost"
}

# The kernel switches from tsc-early to tsc a second or more after boot:
# wait for it (30 s at most) so that every series runs in the same state.
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
i=0
while [ "$(cat $cs)" = tsc-early ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
note "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat $cs), $runs runs of $count events"
export LD_LIBRARY_PATH=$LTT/ust-lib
# tracedaemon (as root) puts its user-event socket in /run/ltt; the
# initramfs has no /run.
mkdir -p /run
note "clock_gettime(CLOCK_MONOTONIC): $(user-bench-none clock 100000 | sed 's/ns_per_call //') ns per call"
series none plain_run user-bench-none "$count"
series ltt_disabled plain_run user-bench-ltt "$count" disabled
if ltt_load_first "clock=$ltt_clock"; then
	series ltt ltt_run
	series ltt_paced ltt_run "$batch"
	rmmod ltt_tracer || fail "rmmod ltt_tracer" "refused"
else
	fail "insmod ltt_tracer.ko" "/dev/tracer missing"
fi
if ltt_load "clock=local"; then
	series ltt_fallback ltt_run
	series ltt_fallback_paced ltt_run "$batch"
	rmmod ltt_tracer || fail "rmmod ltt_tracer" "refused"
else
	fail "insmod ltt_tracer.ko clock=local" "/dev/tracer missing"
fi
series lttng_disabled plain_run user-bench-lttng "$count" disabled
if lttng_setup; then
	series lttng lttng_run
	series lttng_paced lttng_run "$batch"
	lttng_teardown
fi
ltt_finish
