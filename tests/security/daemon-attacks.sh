#!/bin/sh
# daemon-attacks.sh: what a local user (uid 1000) can do to root's
# tracedaemon, run against the real daemon and the real module (the QEMU
# guest, or a host with /dev/tracer), each attack reported as held or not:
#   snapshot flood   200 SNAPSHOT messages before and after a REGISTER, and
#                    20 `ltt-mark --snapshot`, from uid 1000: no snapshot;
#                    10 from root at once: at most 2 (coalesced)
#   planted name     uid 1000 creates the next snapshot's file in a shared
#                    directory: that snapshot fails, is reported, and the
#                    next one is written
#   fd flood         600 registered connections of uid 1000: most are
#                    closed at once, the daemon does not spin, root's
#                    snapshot still works
#   stream flood     20 000 threads' streams of uid 1000: those past the
#                    user's cap are counted, not written
#   sparse memfd     16 MiB rings that all claim to be full: the daemon
#                    faults in next to nothing of them
#   semaphore        a semaphore eventfd written 2^64-2: refused, no spin
#   planted FIFO     --control at a FIFO of uid 1000 (mode 0666) or a
#                    symbolic link: refused before tracing
#   FUSE fd          a file whose flush its FUSE server never answers,
#                    sent as the memfd: while the daemon's close of it
#                    waits, the server still serves and stops at SIGTERM
#                    (a skip where FUSE cannot be mounted)
# Needs root, tracedaemon, ltt-mark and ltt-attack on PATH (or TD, MARK,
# ATTACK), and a way to run as uid 1000 (setpriv, else su to the user
# named by LTT_USER, default "user"). ONLY=fuse runs the FUSE attack
# alone (on a host without /dev/tracer: the server, ltt-user-server-host,
# needs no module; suite 74 runs it so, the patched guest kernel has no
# FUSE). Prints "ok - NAME", "FAIL - NAME:
# why" or "skip - NAME: why" lines; exit status 1 when an attack was not
# held.
TD=${TD:-tracedaemon}
MARK=${MARK:-ltt-mark}
ATTACK=${ATTACK:-ltt-attack}
DEV=${DEV:-/dev/tracer}
# Absolute paths: su may reset PATH.
TD=$(command -v "$TD") MARK=$(command -v "$MARK") ATTACK=$(command -v "$ATTACK")
failed=0
ok() { echo "ok - $1"; }
fail() { echo "FAIL - $1: $2"; failed=1; }
skip() { echo "skip - $1: $2"; }

if [ "$(id -u)" != 0 ]; then
	skip "daemon attacks" "not root"
	exit 0
fi
if [ -z "$TD" ] || [ -z "$MARK" ] || [ -z "$ATTACK" ]; then
	skip "daemon attacks" "tracedaemon, ltt-mark or ltt-attack not found"
	exit 0
fi
# as_user CMD ARGS...: runs CMD as uid 1000.
if command -v setpriv >/dev/null 2>&1 && setpriv --help 2>&1 | grep -q reuid; then
	as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }
else
	as_user() { su -s /bin/sh "${LTT_USER:-user}" -c "$*"; }
fi

work=$(mktemp -d /tmp/ltt-attacks.XXXXXX) || exit 1
chmod 0755 "$work"
trap 'kill $tdp $fp 2>/dev/null; rm -rf "$work"' EXIT
sock=$work/run/user.sock
tdp=

# cpu_ticks PID: user + system clock ticks the process used so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
wait_socket() {
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$sock" ]
}

# The attacks on the user-event server alone: the same in both modes.
# $1: the log where the server's summary lands once it stops.
fd_flood() {
	before=$(cpu_ticks $tdp)
	as_user "$ATTACK" "$sock" fd-flood 600 3 >"$work/fd.out" 2>&1
	used=$(($(cpu_ticks $tdp) - before))
	closed=$(sed -n 's/.*closed_by_daemon=\([0-9]*\).*/\1/p' "$work/fd.out")
	if [ "${closed:-0}" -ge 400 ] && [ "$used" -lt 200 ]; then
		ok "600 connections of uid 1000: $closed closed at once, $used ticks of CPU"
	else
		fail "600 connections of uid 1000 are capped without a spin" "$(cat "$work/fd.out"), $used ticks"
	fi
}
sparse() {
	as_user "$ATTACK" "$sock" sparse 2 >"$work/sparse.out" 2>&1
	bytes=$(sed -n 's/.*memfd_bytes=\([0-9]*\).*/\1/p' "$work/sparse.out")
	if [ -n "$bytes" ] && [ "$bytes" -lt 4194304 ]; then
		ok "a sparse 16 MiB-ring memfd: the daemon faulted in $bytes bytes"
	else
		fail "a sparse memfd is not faulted in" "$(cat "$work/sparse.out")"
	fi
}
semaphore() {
	before=$(cpu_ticks $tdp)
	as_user "$ATTACK" "$sock" semaphore 3 >"$work/sem.out" 2>&1
	used=$(($(cpu_ticks $tdp) - before))
	[ "$used" -lt 20 ] && ok "a semaphore eventfd: $used ticks of the daemon's CPU in 3 s" ||
		fail "a semaphore eventfd does not spin the daemon" "$used ticks in 3 s"
}
stream_flood() {
	as_user "$ATTACK" "$sock" stream-flood 20000 >"$work/streams.out" 2>&1 ||
		fail "stream flood ran" "$(cat "$work/streams.out")"
}
# fuse_hold: ltt-attack's FUSE file sent to the daemon, whose close of it
# then waits; checks that the server still serves. Returns 0 with the
# attacker ($fp) still holding, for the caller to stop the daemon.
fp=
fuse_hold() {
	: >"$work/fuse.out"
	"$ATTACK" "$sock" fuse-flush 15 >>"$work/fuse.out" 2>&1 &
	fp=$!
	i=0
	while ! grep -qE "flush_pending=|mounted=0" "$work/fuse.out" && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -q "mounted=0" "$work/fuse.out"; then
		skip "a FUSE fd whose flush never answers" "FUSE cannot be mounted here: $(cat "$work/fuse.out")"
		wait $fp
		fp=
		return 1
	fi
	if ! grep -q "flush_pending=1" "$work/fuse.out"; then
		fail "a FUSE fd sent as the memfd: the daemon closes it" "$(tr '\n' ' ' <"$work/fuse.out")"
		wait $fp
		fp=
		return 1
	fi
	ok "a FUSE fd sent as the memfd: its close waits for a flush never answered"
	if as_user "$ATTACK" "$sock" ping >"$work/ping.out" 2>&1; then
		ok "the server still serves while that close waits"
	else
		fail "the server still serves while that close waits" "$(cat "$work/ping.out")"
	fi
	return 0
}
# fuse_stop SIGNAL: the daemon, stopped by SIGNAL while fuse_hold's close
# waits, must end within 10 s; then the attacker goes.
fuse_stop() {
	kill "-$1" $tdp
	i=0
	while kill -0 $tdp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $tdp 2>/dev/null; then
		fail "the daemon stops while a passed FUSE fd's close waits" "still running 10 s after SIG$1"
		kill -KILL $tdp
	else
		ok "the daemon stops while a passed FUSE fd's close waits ($((i * 100)) ms)"
	fi
	wait $tdp 2>/dev/null
	tdp=
	kill $fp 2>/dev/null
	wait $fp 2>/dev/null
	fp=
}

check_semaphore() {
	grep -q "eventfd is a semaphore" "$1" && ok "the semaphore eventfd is refused" ||
		fail "the semaphore eventfd is refused" "$(grep -i semaphore "$1")"
}
check_streams() {
	grep -q "of threads given no stream" "$1" &&
		ok "20 000 streams of uid 1000: those past its cap counted, not written" ||
		fail "a user's streams are capped" "$(grep 'user events' "$1")"
}

if [ ! -c "$DEV" ]; then
	SERVER=${SERVER:-ltt-user-server-host}
	SERVER=$(command -v "$SERVER")
	if [ -z "$SERVER" ]; then
		skip "daemon attacks" "no $DEV (the module is not loaded) and no ltt-user-server-host"
		exit 0
	fi
	# No module: the daemon's user-event server alone (ltt-user-server-host).
	echo "# no $DEV: the attacks on the user-event server, through $SERVER"
	"$SERVER" "$sock" "$work/h.trace" >"$work/h.log" 2>&1 &
	tdp=$!
	if ! wait_socket; then
		fail "ltt-user-server-host serves" "$(tail -n 3 "$work/h.log")"
		exit 1
	fi
	if [ "${ONLY:-}" = fuse ]; then
		fuse_hold && fuse_stop TERM
		[ -n "$tdp" ] && { kill -TERM $tdp; wait $tdp; }
		exit $failed
	fi
	as_user "$ATTACK" "$sock" snapshot-flood 200 >"$work/flood.out" 2>&1
	i=0
	while [ $i -lt 20 ]; do
		as_user env LTT_USER_SOCKET="$sock" "$MARK" --snapshot >/dev/null 2>&1
		i=$((i + 1))
	done
	fd_flood
	sparse
	semaphore
	stream_flood
	kill -TERM $tdp
	wait $tdp
	tdp=
	grep -q "^snapshot requests passed: 0$" "$work/h.log" &&
		ok "snapshot flood from uid 1000: no request passed on" ||
		fail "snapshot flood from uid 1000: no request passed on" "$(grep '^snapshot requests' "$work/h.log")"
	check_semaphore "$work/h.log"
	check_streams "$work/h.log"
	exit $failed
fi

# start_recorder DIR ARGS...: a root flight recorder writing DIR/fr-N.trace.
start_recorder() {
	d=$1
	shift
	"$TD" --flight-recorder --user-socket "$sock" "$@" "$d/fr.trace" "$d/fr.proc" >"$work/td.log" 2>&1 &
	tdp=$!
	wait_socket
}
stop_recorder() {
	kill -INT $tdp 2>/dev/null
	wait $tdp 2>/dev/null
	tdp=
}
snapshots() { grep -c "^tracedaemon: snapshot [0-9]* (" "$work/td.log"; }

# --- snapshot flood ---
mkdir -p "$work/flood" && chmod 0755 "$work/flood"
if start_recorder "$work/flood"; then
	as_user "$ATTACK" "$sock" snapshot-flood 200 >"$work/flood.out" 2>&1
	i=0
	while [ $i -lt 20 ]; do
		as_user env LTT_USER_SOCKET="$sock" "$MARK" --snapshot >/dev/null 2>&1
		i=$((i + 1))
	done
	sleep 2
	n=$(snapshots)
	if [ "$n" = 0 ] && ! ls "$work/flood"/fr-*.trace >/dev/null 2>&1; then
		ok "snapshot flood from uid 1000: no snapshot"
	else
		fail "snapshot flood from uid 1000: no snapshot" "$n snapshots, $(cd "$work/flood" && echo *)"
	fi
	i=0
	while [ $i -lt 10 ]; do
		LTT_USER_SOCKET="$sock" "$MARK" --snapshot >/dev/null 2>&1
		i=$((i + 1))
	done
	sleep 3
	n=$(snapshots)
	if [ "$n" -ge 1 ] && [ "$n" -le 2 ]; then
		ok "10 requests from root at once: $n snapshots (coalesced)"
	else
		fail "10 requests from root at once: at most 2 snapshots" "$n"
	fi
	if grep -q "$(printf '\033')" "$work/td.log"; then
		fail "a snapshot reason's escape sequence never reaches the log" "raw ESC in the log"
	else
		ok "a snapshot reason's escape sequence never reaches the log"
	fi
	stop_recorder
	grep -q "snapshot requests refused" "$work/td.log" &&
		ok "the refused snapshot requests are counted" ||
		fail "the refused snapshot requests are counted" "$(grep 'user events' "$work/td.log")"
else
	fail "snapshot flood: the flight recorder starts" "$(tail -n 3 "$work/td.log")"
fi

# --- planted name in a shared directory ---
mkdir -p "$work/shared" && chmod 1777 "$work/shared"
if start_recorder "$work/shared"; then
	as_user touch "$work/shared/fr-1.trace"
	kill -USR1 $tdp
	sleep 2
	kill -USR1 $tdp
	sleep 2
	if kill -0 $tdp 2>/dev/null && grep -q "snapshot 1 (SIGUSR1) failed: .*still recording" "$work/td.log" &&
		[ -s "$work/shared/fr-2.trace" ]; then
		ok "a planted fr-1.trace fails snapshot 1 only; snapshot 2 is written"
	else
		fail "a planted fr-1.trace fails snapshot 1 only" "$(tail -n 3 "$work/td.log" | tr '\n' ' ')"
	fi
	stop_recorder
else
	fail "planted name: the flight recorder starts" "$(tail -n 3 "$work/td.log")"
fi

# --- fd flood, sparse memfd, semaphore eventfd; stream flood ---
mkdir -p "$work/res" && chmod 0755 "$work/res"
if start_recorder "$work/res"; then
	fd_flood
	LTT_USER_SOCKET="$sock" "$MARK" --snapshot >/dev/null 2>&1
	sleep 2
	[ "$(snapshots)" -ge 1 ] && ok "root's snapshot request works after the fd flood" ||
		fail "root's snapshot request works after the fd flood" "$(tail -n 2 "$work/td.log" | tr '\n' ' ')"
	sparse
	semaphore
	stop_recorder
	check_semaphore "$work/td.log"
	# The FUSE file last: the daemon is stopped while its close waits.
	mkdir -p "$work/fuse" && chmod 0755 "$work/fuse"
	if start_recorder "$work/fuse"; then
		if fuse_hold; then fuse_stop INT; else stop_recorder; fi
	fi
else
	fail "resource attacks: the flight recorder starts" "$(tail -n 3 "$work/td.log")"
fi
# A session writes every stream it gives: uid 1000's threads past its cap
# get none, counted.
"$TD" -t 300s -e none --user-socket "$sock" "$work/s.trace" "$work/s.proc" >"$work/td.log" 2>&1 &
tdp=$!
if wait_socket; then
	stream_flood
	stop_recorder
	check_streams "$work/td.log"
else
	fail "stream flood: the session starts" "$(tail -n 3 "$work/td.log")"
fi

# --- planted FIFO ---
mkdir -p "$work/ctl" && chmod 1777 "$work/ctl"
as_user mkfifo -m 0666 "$work/ctl/c"
"$TD" -t 1s --user-socket none --control "$work/ctl/c" "$work/c.trace" "$work/c.proc" >"$work/c.log" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "belongs to uid 1000" "$work/c.log"; then
	ok "--control at uid 1000's FIFO is refused"
else
	fail "--control at uid 1000's FIFO is refused" "status $rc: $(head -n 2 "$work/c.log" | tr '\n' ' ')"
fi
mkfifo -m 0600 "$work/ctl/mine"
as_user ln -s "$work/ctl/mine" "$work/ctl/link"
"$TD" -t 1s --user-socket none --control "$work/ctl/link" "$work/c.trace" "$work/c.proc" >"$work/c.log" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "is a symbolic link" "$work/c.log"; then
	ok "--control at a symbolic link is refused"
else
	fail "--control at a symbolic link is refused" "status $rc: $(head -n 2 "$work/c.log" | tr '\n' ' ')"
fi
exit $failed
