# shellcheck shell=sh
# The guest side of every run in the QEMU guest: sourced by the guest
# scripts (busybox sh, as root) as `. /opt/ltt/lib/vm-guest.sh`. Its
# partner on the host, tests/lib/vm-host.sh, describes the layout:
# the module at /opt/ltt/ltt_tracer.ko, programs in /opt/ltt/bin (put
# first on PATH), workloads in /opt/ltt/workloads, and /out for what goes
# back to the host.
#
# Result lines, one format everywhere (the host's vm_import reads them):
#   ok - NAME
#   FAIL - NAME: why
#   skip - NAME: why
#   # a note
# in $OUT/results.txt ($OUT: /out unless set).
LTT=/opt/ltt
PATH=$LTT/bin:$PATH
export PATH
ko=$LTT/ltt_tracer.ko
out=${OUT:-/out}
res=$out/results.txt
mkdir -p "$out"

ok() { echo "ok - $1" >>"$res"; }
fail() { echo "FAIL - $1: $2" >>"$res"; }
skip() { echo "skip - $1: $2" >>"$res"; }
note() { echo "# $*" >>"$res"; }
# chk NAME CMD...: ok when CMD exits 0.
chk() {
	name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else fail "$name" "'$*' failed"; fi
}

# ltt_wait_dev: wait up to 5 s for /dev/tracer (udev-less devtmpfs makes
# it a moment after insmod returns); fails when it does not appear.
ltt_wait_dev() {
	i=0
	while [ ! -c /dev/tracer ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -c /dev/tracer ]
}

# wait_for FILE PATTERN: up to 60 s for a line of FILE to match PATTERN
# (a background program saying it is ready).
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "$2" "$1" 2>/dev/null
}

# ltt_load [PARAMS...]: insmod the module and wait for /dev/tracer.
ltt_load() { insmod "$ko" "$@" && ltt_wait_dev; }

# ltt_test_load [PARAMS...]: insmod the test module, ltt_test.ko (test
# mode's TEST_EMIT, the fault injection parameter fault_attach), which
# the host ships beside the trace module when it was built; it holds the
# trace module until `rmmod ltt_test`. Status 1 when it is not there.
ltt_test_load() { [ -f "$LTT/ltt_test.ko" ] && insmod "$LTT/ltt_test.ko" "$@"; }

# ltt_load_first [PARAMS...]: the run's first load. When insmod fails:
# "FAIL - insmod ltt_tracer.ko: <the kernel's last lines>" in the results
# and on stderr, dmesg.txt, and the script exits 1. Otherwise as ltt_load
# (status 1 when /dev/tracer did not appear).
ltt_load_first() {
	[ -c /dev/tracer ] && { rmmod ltt_test 2>/dev/null; rmmod ltt_tracer 2>/dev/null; }
	if ! insmod "$ko" "$@"; then
		why=$(dmesg | tail -n 3 | tr '\n' ' ')
		fail "insmod ltt_tracer.ko" "$why"
		echo "guest: insmod $ko failed: $why" >&2
		ltt_finish
		exit 1
	fi
	ltt_wait_dev
}

# ltt_finish: end of the run: drop the "N passed, N failed" lines the test
# programs print (the host counts the result lines), keep the kernel log
# as dmesg.txt.
ltt_finish() {
	[ -f "$res" ] && sed -i '/^[0-9]* passed, [0-9]* failed$/d' "$res"
	dmesg >"$out/dmesg.txt"
}
