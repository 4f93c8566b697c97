#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root): tracedaemon against the
# real trace module, in the layout of tests/lib/vm-guest.sh (tracedaemon,
# trace, tracecore, tracecpuid and wl_syscalls in /opt/ltt/bin). Writes
# to /out:
#   results.txt   the result lines (tests/lib/vm-guest.sh), "# ..." notes
#   *.trace *.proc *.log   the traces for the host-side checks
#   facts.txt     KEY=VALUE lines the host checks use (pids, counts)
#   bench.txt     (mode bench) one line per rate tried
#   dmesg.txt     the kernel log at the end
# usage: vm-guest.sh check|bench
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
mode=${1:-check}
facts=$out/facts.txt
: >"$facts"
td=$LTT/bin/tracedaemon
wl=$LTT/bin/wl_syscalls

fact() { echo "$1=$2" >>"$facts"; }
# expect NAME STATUS PATTERN LOG: the exit status and a line of the log.
expect() {
	if [ "$2" != "$rc" ]; then
		fail "$1" "exit status $rc, expected $2: $(tail -n 3 "$4" | tr '\n' ' ')"
	elif ! grep -Eq -- "$3" "$4"; then
		fail "$1" "no /$3/ in: $(tail -n 4 "$4" | tr '\n' ' ')"
	else
		ok "$1"
	fi
}
# traced SECONDS the daemon reported in LOG
traced() { sed -n 's/.*tracedaemon: traced \([0-9.]*\) s.*/\1/p' "$1" | tail -n 1; }
# within A B TOL: |A - B| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
nonempty() { [ -s "$1" ] && [ "$(wc -c <"$1")" -gt 320 ]; }

# Restricted sessions on: uid 1000 traces its own command below.
ltt_load_first unprivileged=1 || { fail "/dev/tracer" "not created"; exit 1; }
# --test-emit is the test module's test mode (ltt_test.ko).
ltt_test_load || fail "insmod ltt_test.ko" "not shipped or refused"
cd "$out" || exit 1
fact ncpus "$(grep -c ^processor /proc/cpuinfo)"

if [ "$mode" = bench ]; then
	# Highest --test-emit rate the default configuration (1 MiB buffers,
	# every event enabled) writes with zero loss: double until a loss,
	# then bisect. 3 s per run.
	: >"$out/bench.txt"
	run() { # RATE -> 0 if no loss
		rm -f b.trace b.proc
		"$td" --test-emit "$1" -ts3 b.trace b.proc >b.log 2>&1
		bytes=$(wc -c <b.trace)
		lost=$(sed -n 's/.*tracedaemon: \([0-9]*\) events lost.*/\1/p' b.log)
		emitted=$(sed -n 's/.*test mode: \([0-9]*\) events emitted.*/\1/p' b.log)
		secs=$(traced b.log)
		cpu=$(sed -n 's/.*daemon CPU time \([0-9.]*\) s, .* (\([0-9.]*\) ms per MiB.*/\1 \2/p' b.log)
		echo "rate $1 emitted ${emitted:-?} lost ${lost:-0} bytes $bytes secs ${secs:-?} cpu_s_ms_per_mib ${cpu:-? ?}" >>"$out/bench.txt"
		[ -z "$lost" ]
	}
	good=0 bad=0 rate=25000
	while [ $rate -le 16000000 ]; do
		if run $rate; then good=$rate; rate=$((rate * 2)); else bad=$rate; break; fi
	done
	if [ $bad -gt 0 ] && [ $good -gt 0 ]; then
		for _ in 1 2 3 4; do
			mid=$(((good + bad) / 2))
			if run $mid; then good=$mid; else bad=$mid; fi
		done
	fi
	echo "best $good first_loss $bad" >>"$out/bench.txt"
	# The best rate once more: is it repeatable? (reported, not judged)
	if [ $good -gt 0 ]; then
		run $good
		echo "confirm $good lost ${lost:-0}" >>"$out/bench.txt"
		cp b.log best.log
	fi
	rm -f b.trace b.proc
	ltt_finish
	exit 0
fi

# 1. The wrapper, as in LTT: trace 5 out -> out.trace, out.proc.
trace 5 out >trace5.log 2>&1
rc=$?
expect "trace 5 out" 0 "tracedaemon: traced [0-9.]+ s \(duration reached\)" trace5.log
# shellcheck disable=SC2012 # the listing is for a person
if nonempty out.trace && [ -s out.proc ]; then ok "trace 5 out wrote out.trace and out.proc"; else fail "trace 5 out wrote out.trace and out.proc" "$(ls -l out.* 2>&1 | tr '\n' ' ')"; fi

# 2. The duration is honoured (the daemon's START-to-STOP, and the host
# compares the trace's own end time).
for d in 2 0.5; do
	"$td" --duration "${d}s" "dur$d.trace" "dur$d.proc" >"dur$d.log" 2>&1
	rc=$?
	expect "duration ${d}s: clean exit" 0 "traced" "dur$d.log"
	t=$(traced "dur$d.log")
	if within "$t" "$d" 0.1; then ok "duration ${d}s: traced $t s"; else fail "duration ${d}s honoured (+-100 ms)" "traced ${t:-?} s"; fi
	fact "dur$d" "$t"
done

# 3. SIGINT and SIGTERM stop cleanly: exit 0, every block on file.
for sig in INT TERM; do
	"$td" "sig$sig.trace" "sig$sig.proc" >"sig$sig.log" 2>&1 &
	pid=$!
	sleep 1.5
	kill -$sig $pid
	wait $pid
	rc=$?
	expect "SIG$sig stops cleanly" 0 "got SIG$sig, stopping" "sig$sig.log"
	if grep -q "traced .* (stopped by signal)" "sig$sig.log" && nonempty "sig$sig.trace"; then
		ok "SIG$sig: trace and summary written"
	else
		fail "SIG$sig: trace and summary written" "$(tail -n 3 "sig$sig.log" | tr '\n' ' ')"
	fi
done

# 4. SIGKILL under load: the file stays readable up to its last whole block
# (the host runs traceanalyze on it); the device is usable again at once.
"$wl" 20000 512 /tmp >/dev/null 2>&1 &
load=$!
"$td" -b 64K --flush-interval 200ms kill.trace kill.proc >kill.log 2>&1 &
pid=$!
sleep 2.5
kill -KILL $pid
wait $pid
rc=$?
kill $load 2>/dev/null
wait $load 2>/dev/null
if [ $rc -eq 137 ] && nonempty kill.trace; then ok "SIGKILL leaves a trace on file"; else fail "SIGKILL leaves a trace on file" "status $rc, $(wc -c <kill.trace 2>&1) bytes"; fi
"$td" -tu300000 again.trace again.proc >again.log 2>&1
rc=$?
expect "device usable after SIGKILL" 0 "traced" again.log

# 5. Daemons trace at once, each in a session of its own: the second one
# starts and ends while the first traces, and neither disturbs the other.
"$td" -ts3 busy1.trace busy1.proc >busy1.log 2>&1 &
pid=$!
sleep 1
"$td" -ts1 busy2.trace busy2.proc >busy2.log 2>&1
rc=$?
expect "second daemon traces beside the first" 0 "traced [0-9.]+ s \(duration reached\)" busy2.log
wait $pid
rc=$?
expect "first daemon unaffected by the second" 0 "traced [0-9.]+ s \(duration reached\)" busy1.log

# 5b. An ordinary user (uid 1000) runs tracedaemon on a command of theirs
# while root runs a load: no root needed, exit 0, and the .proc lists only
# uid 1000's processes (the host checks the trace with traceanalyze).
mkdir -p /tmp/u && chown 1000:1000 /tmp/u
"$wl" 20000 512 /tmp >/dev/null 2>&1 &
load=$!
su -s /bin/sh user -c "$td /tmp/u/user.trace /tmp/u/user.proc -- $wl 2000 64 /tmp/u" >user.log 2>&1
rc=$?
kill $load 2>/dev/null
wait $load 2>/dev/null
expect "uid 1000 traces its own command" 0 "traced [0-9.]+ s" user.log
cp /tmp/u/user.trace /tmp/u/user.proc . 2>/dev/null
others=$(grep '^PID: ' user.proc 2>/dev/null | grep -vc 'UID: 1000;')
mine=$(grep '^PID: ' user.proc 2>/dev/null | grep -c 'UID: 1000;')
if [ "$others" = 0 ] && [ "${mine:-0}" -ge 1 ]; then
	ok "uid 1000's .proc lists only its own processes ($mine)"
else
	fail "uid 1000's .proc lists only its own processes" "own ${mine:-?}, others ${others:-?}"
fi
fact user_load_pid "$load"

# 6. Lost events: tiny buffers under a test-mode flood are reported, with
# the buffer size that would have avoided them.
"$td" -b 4K -e NONE --test-emit 2M -ts2 lost.trace lost.proc >lost.log 2>&1
rc=$?
expect "lost events reported" 0 "tracedaemon: [0-9]+ events lost" lost.log
expect "lost events: buffer size advised" 0 "to avoid these losses, (trace with -b [0-9]+[KM]?|record fewer events)" lost.log
expect "lost events: per-CPU lines" 0 "tracedaemon:   cpu [0-9]+: [0-9]+ lost, [0-9]+ recorded" lost.log
fact lost_emitted "$(sed -n 's/.*test mode: \([0-9]*\) events emitted.*/\1/p' lost.log)"
fact lost_lost "$(sed -n 's/.*tracedaemon: \([0-9]*\) events lost.*/\1/p' lost.log)"

# 7. A modest test-mode rate with the default configuration loses nothing
# and every emitted event is on file (the host counts them).
"$td" -e NONE --test-emit 20k -ts2 emit.trace emit.proc >emit.log 2>&1
rc=$?
expect "default configuration at 20k events/s: no loss" 0 "no events lost" emit.log
fact emit_emitted "$(sed -n 's/.*test mode: \([0-9]*\) events emitted.*/\1/p' emit.log)"

# 7b. Large module buffers (the daemon's halves then equal one block).
"$td" -b 16M -e NONE --test-emit 200k -ts1 big.trace big.proc >big.log 2>&1
rc=$?
expect "16 MiB module buffers: no loss" 0 "no events lost" big.log
fact big_emitted "$(sed -n 's/.*test mode: \([0-9]*\) events emitted.*/\1/p' big.log)"

# 8. -- COMMAND: traced from its exec to its exit; the command's status
# is the daemon's.
"$td" -T cmd.trace cmd.proc -- "$wl" 50 100 /tmp >cmd.log 2>&1
rc=$?
expect "-- COMMAND: exit status and stop" 0 "traced .* \(command exited\)" cmd.log
fact cmd_pid "$(sed -n 's/.*tracing command .* (pid \([0-9]*\)).*/\1/p' cmd.log)"
"$td" cmdfail.trace cmdfail.proc -- /bin/sh -c "exit 7" >cmdfail.log 2>&1
rc=$?
expect "-- COMMAND: its exit status is returned" 7 "command exited" cmdfail.log

# 9. The other wrappers.
tracecore 1 core >core.log 2>&1
rc=$?
expect "tracecore 1 core" 0 "traced" core.log
tracecpuid 1 cpuid >cpuid.log 2>&1
rc=$?
expect "tracecpuid 1 cpuid" 0 "traced" cpuid.log

# 10. Many tasks: reading /proc for 2000 sleeping tasks takes about a second
# under emulation, while a system-call load fills the module's 256 KiB
# buffers in a fraction of that. The daemon drains meanwhile (the snapshot
# has its own thread), so nothing is lost at the start.
pids=
i=0
while [ $i -lt 2000 ]; do
	sleep 600 &
	pids="$pids $!"
	i=$((i + 1))
done
setsid "$wl" 100000000 64 /tmp >/dev/null 2>&1 &
load=$!
sleep 1
"$td" -b 256K -e SYSCALL -ts3 many.trace many.proc >many.log 2>&1
rc=$?
kill -TERM -- -$load 2>/dev/null
# shellcheck disable=SC2086 # a list of pids
kill $pids 2>/dev/null
wait 2>/dev/null
expect "2000 tasks under load: the snapshot does not delay draining (no loss)" 0 "no events lost" many.log
tasks=$(sed -n 's/.*, \([0-9]*\) tasks to many.proc.*/\1/p' many.log)
if [ "${tasks:-0}" -ge 2000 ]; then ok "2000 tasks: all in the snapshot ($tasks)"; else fail "2000 tasks: all in the snapshot" "${tasks:-?} tasks: $(tail -n 3 many.log | tr '\n' ' ')"; fi
fact many_tasks "$tasks"
note "2000 tasks: $(sed -n 's/.*tracedaemon: traced \(.*\) to many.trace.*/\1/p' many.log); $(sed -n 's/.*tracedaemon: \(daemon CPU time .*snapshot\).*/\1/p' many.log); $(sed -n 's/.*tracedaemon: \([0-9]* events lost.*\)/\1/p' many.log)"

rmmod ltt_test; rmmod ltt_tracer && ok "rmmod after the daemon exits" || fail "rmmod" "$(lsmod | grep ltt)"
ltt_finish
exit 0
