#!/bin/sh
# Runs inside the QEMU guest (busybox sh, as root; one vCPU, the module's
# clock=tsc so that user events are recorded): tests/security/
# daemon-attacks.sh against the real tracedaemon and module, its result
# lines into /out/results.txt, its log into /out/attacks.log.
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
ltt_load_first clock=tsc || { fail "/dev/tracer" "not created"; exit 1; }
mkdir -p /run
sh /opt/ltt/bin/daemon-attacks.sh >"$out/attacks.log" 2>&1
grep -E '^(ok|FAIL|skip) - ' "$out/attacks.log" >>"$res"
grep -qE '^(ok|FAIL) - ' "$out/attacks.log" || fail "daemon attacks ran" "$(tail -n 3 "$out/attacks.log")"
dmesg >"$out/dmesg.txt"
