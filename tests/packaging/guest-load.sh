# shellcheck shell=sh
# In the guest (busybox sh, as root): load the trace module that DKMS built
# from the ltt-dkms package for this kernel, trace a second with
# tracedaemon, unload it. Argument: the kernel release the module was built
# for. Result lines in /out/results.txt (tests/lib/vm-guest.sh).
# shellcheck source=tests/lib/vm-guest.sh
. /opt/ltt/lib/vm-guest.sh
want=$1

rel=$(uname -r)
if [ "$rel" = "$want" ]; then ok "the guest runs $want"; else fail "the guest runs $want" "uname -r: $rel"; fi
ltt_load_first
if [ -c /dev/tracer ]; then ok "insmod of the DKMS-built module: /dev/tracer"; else fail "insmod of the DKMS-built module: /dev/tracer" "no /dev/tracer"; fi
if tracedaemon -q -ts1 "$out/t.trace" "$out/t.proc" >"$out/tracedaemon.log" 2>&1 && [ -s "$out/t.trace" ]; then
	ok "tracedaemon traces a second through it"
else
	fail "tracedaemon traces a second through it" "$(tail -n 2 "$out/tracedaemon.log" | tr '\n' ' ')"
fi
chk "rmmod ltt_tracer" rmmod ltt_tracer
ltt_finish
