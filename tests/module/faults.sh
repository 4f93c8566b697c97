#!/bin/sh
# The fault suite, inside the QEMU guest (busybox sh, as root, 2 vCPUs):
# what a machine people care about does to a tracer. Writes the
# result lines (tests/lib/vm-guest.sh) and "# ..." notes to /out/results.txt.
#   - rmmod attempts under load while a trace is open, then unload/reload
#     cycles under load;
#   - tracedaemon SIGKILLed at random moments, 20 times: each file valid up
#     to its last whole block, the module usable afterwards, and after each
#     kill a finished trace with recorded + lost == emitted exactly;
#   - 10 000 random ioctls, then exact counts;
#   - a CPU taken offline and back online during a trace, and one offline
#     when the trace stops;
#   - the trace file's disk filling up (a small tmpfs): tracedaemon exits
#     1 with a clear error, and the file is valid up to its last block.
# A kernel warning anywhere fails the run (scripts/qemu-run.sh exits 200).
# usage: faults.sh   (ltt_modtest and tracedaemon in /opt/ltt/bin, the
# layout of tests/lib/vm-guest.sh)
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
mt=ltt_modtest
td=tracedaemon
work=/tmp/faults
mkdir -p "$work"

loaded() { grep -q '^ltt_tracer ' /proc/modules; }
emitted() { sed -n 's/.*test mode: \([0-9]*\) events emitted.*/\1/p' "$1" | tail -n 1; }
# exact TRACE LOG: the file's test events + lost == what the daemon emitted
exact() {
	c=$("$mt" count "$1" 2>&1) || { echo "count: $c"; return 1; }
	e=$(emitted "$2")
	# shellcheck disable=SC2086 # the counts, one word each
	set -- $c
	[ -n "$e" ] && [ $(($2 + $4)) -eq "$e" ] && [ "$8" = 0 ] ||
		{ echo "recorded $2 + lost $4 != emitted ${e:-?} (tail $8)"; return 1; }
}

if ! ltt_load_first; then
	fail "insmod ltt_tracer.ko" "/dev/tracer not created"
	ltt_finish
	exit 1
fi
ok "insmod ltt_tracer.ko"

# 1. rmmod under load: refused while a trace is open, then unload and
# reload cycles while the system-call load runs.
"$mt" load 1000000000 &
load1=$!
"$mt" hold >"$work/hold.txt" 2>&1 &
holder=$!
if wait_for "$work/hold.txt" holding; then
	refused=0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmmod ltt_tracer 2>/dev/null || refused=$((refused + 1))
		sleep 0.2
	done
	if [ $refused = 10 ] && loaded; then ok "rmmod refused 10 times while a trace is open under load"
	else fail "rmmod refused while a trace is open" "$refused of 10 refused"; fi
else
	fail "rmmod under load: trace held" "$(cat "$work/hold.txt")"
fi
kill -KILL $holder
wait $holder 2>/dev/null
cycles=0
for _ in 1 2 3 4 5; do
	rmmod ltt_tracer && ltt_load && cycles=$((cycles + 1))
done
if [ $cycles = 5 ]; then ok "5 unload/reload cycles under load"; else fail "unload/reload cycles under load" "$cycles of 5"; fi
kill -KILL $load1
wait $load1 2>/dev/null
loaded || ltt_load || { fail "module loaded after the cycles" "insmod failed"; exit 1; }
# The daemon's --test-emit below is the test module's test mode.
chk "insmod ltt_test.ko" ltt_test_load

# 2. The daemon SIGKILLed at random moments, 20 times. After each kill:
# the file is valid up to its last whole block, and a finished trace
# counts exactly.
kills=0 exacts=0 first_kill= first_exact=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	"$td" -b 16K -e NONE --test-emit 50k "$work/k.trace" "$work/k.proc" >"$work/k.log" 2>&1 &
	pid=$!
	# 0 to 1.5 s: before START, while draining, or in between.
	# shellcheck disable=SC3028 # busybox sh has RANDOM
	usleep $((RANDOM % 1500 * 1000))
	kill -KILL $pid
	wait $pid 2>/dev/null
	# No file, or an empty one: killed before the trace had started.
	if [ ! -s "$work/k.trace" ] || c=$("$mt" count "$work/k.trace" 2>&1); then
		kills=$((kills + 1))
		[ $i = 1 ] && note "killed trace 1: ${c:-no file yet}"
	else
		[ -z "$first_kill" ] && first_kill="kill $i: $c"
		cp "$work/k.trace" "$out/killed-$i.trace"
	fi
	"$td" -b 16K -e NONE --test-emit 20k --duration 0.5s "$work/f.trace" "$work/f.proc" >"$work/f.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && why=$(exact "$work/f.trace" "$work/f.log"); then
		exacts=$((exacts + 1))
	else
		[ -z "$first_exact" ] && first_exact="after kill $i: status $rc ${why:-} $(tail -n 2 "$work/f.log" | tr '\n' ' ')"
	fi
	rm -f "$work"/k.* "$work"/f.*
done
if [ $kills = 20 ]; then ok "daemon SIGKILLed 20 times: every file valid up to its last whole block"
else fail "daemon SIGKILLed: files valid up to the last whole block" "$kills of 20; $first_kill"; fi
if [ $exacts = 20 ]; then ok "after each kill: a finished trace with recorded + lost == emitted"
else fail "after each kill: recorded + lost == emitted" "$exacts of 20; $first_exact"; fi

# 3. Random ioctls, then exact counts.
"$mt" fuzz 10000 >>"$res" 2>&1

# 4. CPU hotplug during a trace.
"$mt" hotplug >>"$res" 2>&1

# 5. The trace file's disk fills up.
mkdir -p /mnt/small
if mount -t tmpfs -o size=256k tmpfs /mnt/small; then
	# 16 KiB blocks: some fit before the disk is full.
	"$td" -b 16K -e NONE --test-emit 200k --duration 5s /mnt/small/full.trace "$work/full.proc" >"$work/full.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q "No space left on device" "$work/full.log" &&
		grep -q "/mnt/small/full.trace" "$work/full.log"; then
		ok "disk full: tracedaemon exits 1 naming the file and the error"
	else
		fail "disk full: tracedaemon exits 1 naming the file and the error" "status $rc: $(tail -n 3 "$work/full.log" | tr '\n' ' ')"
	fi
	if c=$("$mt" count /mnt/small/full.trace 2>&1); then
		# shellcheck disable=SC2086 # the counts, one word each
		set -- $c
		if [ "$6" -gt 0 ] && [ "$8" = 0 ]; then ok "disk full: the file holds whole blocks only ($6 blocks)"
		else fail "disk full: the file holds whole blocks only" "$c"; fi
	else
		fail "disk full: the file is valid" "$c"
	fi
	umount /mnt/small
	"$td" -e NONE --test-emit 20k --duration 0.5s "$work/after.trace" "$work/after.proc" >"$work/after.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && why=$(exact "$work/after.trace" "$work/after.log"); then ok "after the full disk: a trace counts exactly"
	else fail "after the full disk: a trace counts exactly" "status $rc ${why:-}"; fi
else
	fail "disk full: mount a 256 KiB tmpfs" "mount failed"
fi

rmmod ltt_test && rmmod ltt_tracer && ok "rmmod at the end" || fail "rmmod at the end" "refused"
ltt_finish
exit 0
