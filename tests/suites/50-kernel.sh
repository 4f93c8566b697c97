#!/usr/bin/env bash
# Kernel patch series: applies, ABI header in sync, checkpatch-clean, builds
# with CONFIG_LTT=y and =n, the module sparse-clean on it and on the stock
# headers, boots in QEMU, every event type fires under a
# workload (counting probe module), registration rules, syscall IP policy,
# and the same on the debug kernel (lockdep, KASAN, ...) with a clean console.
# Kernel builds are cached (scripts/build-kernel.sh): cold runs take long,
# warm runs a few minutes (mostly QEMU boots under TCG).
#
# LTT_KERNEL_TESTS=quick skips the debug kernel; LTT_KERNEL_TESTS=events
# also skips the CONFIG_LTT=n build (the series' static checks, the
# patched kernel and the events in its guest); LTT_SKIP_VM=1 skips what
# boots QEMU (tests/lib/vm-host.sh), the builds and static checks still run.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/lib/sh-test.sh"
. "$repo/tests/lib/vm-host.sh"
cd "$repo" || exit 1

pdir=kernel-patches top=linux-source-6.12
tarball=$(scripts/build-kernel.sh --print-source 2>/dev/null | tail -n 1) || tarball=
work=$(mktemp -d "${TMPDIR:-/tmp}/ltt-50-kernel.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- the series ----------------------------------------------------------
series_applies() {
	local dst=$work/apply paths p
	mkdir -p "$dst"
	# Only the files the series touches and does not create itself.
	# shellcheck disable=SC2016 # an awk program
	paths=$(sed -e 's/#.*//' -e '/^$/d' "$pdir/series" |
		(cd "$pdir" && xargs awk -v top="$top/" '
			/^--- a\// { old = substr($2, 3) }
			/^--- \/dev\/null/ { old = "" }
			/^\+\+\+ b\// { if (old == "") made[substr($2, 3)] = 1; else if (!(old in made)) need[old] = 1 }
			END { for (f in need) print top f }
		') | sort -u)
	# shellcheck disable=SC2086
	tar -C "$dst" -xf "$tarball" $paths || return 1
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		(cd "$dst/$top" && git apply --check -p1 "$repo/$pdir/$p" &&
			git apply -p1 "$repo/$pdir/$p") || { echo "$p does not apply"; return 1; }
	done <"$pdir/series"
}
if [[ -f $tarball ]]; then
	t_check "series applies cleanly to a fresh $top" series_applies
else
	t_fail "series applies cleanly" "no source tarball: scripts/build-kernel.sh --print-source failed"
fi

t_check "abi-sync: <linux/ltt-events.h> == include/ltt/events.h" tests/kernel/abi-sync
abi_detects_drift() {
	sed 's/LTT_EV_MAX = 22/LTT_EV_MAX = 23/' include/ltt/events.h >"$work/events.h"
	LTT_ABI_HEADER=$work/events.h tests/kernel/abi-sync >/dev/null 2>&1
	[[ $? == 1 ]]
}
t_check "abi-sync fails on a differing header" abi_detects_drift
# A copy of the checker and the patches in which only the series' copy of
# the header has drifted (the check above drifts include/ltt/events.h).
abi_detects_series_drift() {
	local t=$work/abi-series
	mkdir -p "$t/tests/kernel" "$t/include" &&
		cp tests/kernel/abi-sync "$t/tests/kernel/" && cp -r kernel-patches "$t/" &&
		cp -r include/ltt "$t/include/" || return 1
	sed -i '0,/^+#define LTT_EVENTS_H$/s//+#define LTT_EVENTS_H 1/' \
		"$t"/kernel-patches/0001-*.patch
	"$t/tests/kernel/abi-sync" >"$t/out" 2>&1
	[[ $? == 1 ]] && grep -q 'kernel-patches/0001-.* differs' "$t/out"
}
t_check "abi-sync fails when the series' header differs" abi_detects_series_drift
t_check "checkpatch.pl: no errors in the series" scripts/kernel-checkpatch.sh -q

# --- builds --------------------------------------------------------------
build() { scripts/build-kernel.sh "$@" >"$work/build${1:-}.log" 2>&1; }
if build; then
	t_pass "kernel builds with CONFIG_LTT=y"
	kdir=$(scripts/build-kernel.sh --print-dir)
else
	t_fail "kernel builds with CONFIG_LTT=y" "$(tail -n 20 "$work/build.log")"
	kdir=
fi
if [[ ${LTT_KERNEL_TESTS:-} == events ]]; then
	t_skip "kernel builds with CONFIG_LTT=n" "LTT_KERNEL_TESTS=events"
elif build --no-ltt; then
	t_pass "kernel builds with CONFIG_LTT=n"
	nodir=$(scripts/build-kernel.sh --print-dir --no-ltt)
	t_check "CONFIG_LTT=n leaves no ltt symbol in vmlinux" \
		bash -c "! grep -q ' ltt_' '$nodir/System.map'"
else
	t_fail "kernel builds with CONFIG_LTT=n" "$(tail -n 20 "$work/build--no-ltt.log")"
fi
if [[ -n $kdir ]]; then
	t_check "CONFIG_LTT=y exports the facility" \
		grep -q 'ltt_register_callback' "$kdir/Module.symvers"
fi

# module/build.sh: W=1, and -Werror under CI, on a copy of the module with
# a function that only W=1 warns about (no previous prototype).
if [[ -n $kdir ]]; then
	copy=$work/src
	mkdir -p "$copy/module"
	cp "$repo"/module/build.sh "$repo"/module/Kbuild "$repo"/module/*.c "$repo"/module/*.h "$copy/module/"
	cp -r "$repo"/module/compat "$copy/module/"
	ln -s "$repo/include" "$copy/include"
	printf '\nint ltt_w1_unprototyped(void)\n{\n\treturn 0;\n}\n' >>"$copy/module/ltt_buffer.c"
	t_run_expect "module/build.sh with CI set: a W=1 warning fails the build" 2 \
		"ltt_buffer.c:[0-9]+:[0-9]+: error: no previous prototype for .ltt_w1_unprototyped." \
		env CI=true "$copy/module/build.sh" "$kdir" "$work/mod-ci"
	t_run_expect "module/build.sh without CI: the same warning is shown" 0 \
		"ltt_buffer.c:[0-9]+:[0-9]+: warning: no previous prototype for .ltt_w1_unprototyped." \
		env -u CI "$copy/module/build.sh" "$kdir" "$work/mod"
	t_check "module/build.sh without CI: the module is built" test -s "$work/mod/ltt_tracer.ko"
	t_run_expect "module/build.sh with CI set: the module as committed builds" 0 \
		"/ltt_tracer.ko$" env CI=true "$repo/module/build.sh" "$kdir" "$work/mod-clean"
fi
# sparse (make C=2) on the module: against this kernel and the stock 6.1
# headers (a skip for either that is not there); any warning fails.
t_include scripts/sparse-check.sh

# The module's layers call only downwards (module/README.md, "Layers"): the
# tree as it is, then copies where the buffer includes the session layer's
# header and where the event layer's header declares a function of the
# probe layer, which the check must refuse by file and line.
t_run_expect "the module's layers call only downwards (module/check-layers.sh)" 0 '^$' \
	module/check-layers.sh
layers_plant() { # NAME SED-SCRIPT FILE: a copy of module/ with FILE edited
	rm -rf "$work/layers-$1" && mkdir -p "$work/layers-$1" &&
		cp -r "$repo/module" "$work/layers-$1/" && sed -i "$2" "$work/layers-$1/module/$3"
}
layers_plant up '0,/^#include "ltt_write.h"/s//&\n#include "ltt_session.h"/' ltt_buffer.c
t_run_expect "check-layers.sh refuses the buffer including the session layer's header" 1 \
	'^module/ltt_buffer.c:[0-9]+: buffer includes ltt_session.h of session, a layer above it$' \
	"$work/layers-up/module/check-layers.sh" "$work/layers-up"
layers_plant decl 's|^/\* ltt_event.c \*/$|&\nvoid ltt_map_select(u64 mask);|' ltt_event.h
t_run_expect "check-layers.sh refuses a probe function declared in the event layer's header" 1 \
	'^module/ltt_event.h:[0-9]+: ltt_map_select, declared in event.s header, is defined in ltt_map.c of probe$' \
	"$work/layers-decl/module/check-layers.sh" "$work/layers-decl"

# --- the workload and the probe ------------------------------------------
t_check "workload builds (static)" \
	gcc -static -O2 -fno-omit-frame-pointer -Wall -Wextra -Werror \
	-o "$work/ltt-workload" tests/kernel/ltt-workload.c

build_probe() { # KDIR OUT
	rm -rf "$2" && mkdir -p "$2" && cp tests/kernel/probe/Makefile tests/kernel/probe/ltt_probe.c "$2" &&
		make -C "$1" M="$2" W=1 modules >"$2/build.log" 2>&1 &&
		! grep -q 'warning:' "$2/build.log"
}

# The guest script of the event test: probe, registration rules, workload
# (swap on the scratch disk, uncached reads of the /out disk), counts.
cat >"$work/events.sh" <<'EOF'
set -x
insmod /lib/ltt_probe.ko || exit 10
d=/sys/kernel/debug/ltt_probe
cat $d/selftest >/out/selftest
mkswap /dev/vdb >/dev/null && swapon /dev/vdb || echo "swapon failed"
echo 1 >$d/kick
/bin/ltt-workload --disk /dev/vda --swap >/out/workload.log 2>&1
echo $? >/out/workload.rc
/bin/ltt-workload --ip-test $d >/out/iptest.log 2>&1
echo $? >/out/iptest.rc
sleep 1
cat $d/counts >/out/counts
cat $d/bad >/out/bad
swapoff /dev/vdb
rmmod ltt_probe || exit 11
# Registering again after unregistering works (the slot was freed).
insmod /lib/ltt_probe.ko || exit 12
cat $d/selftest >/out/selftest2
rmmod ltt_probe || exit 13
EOF

# Every event id of Figure 2, and the subtypes a workload can reach.
required="1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0
9:0 9:1 9:2 9:3
10:0 10:1 10:2 10:3 10:4 10:5
11:0 11:1 11:2 11:3 11:4 11:5 11:6 11:7 11:8 11:9 11:10
12:0 12:1 12:2
13:0 13:1 13:2 13:3 13:4 13:5
14:0 14:1 14:2 14:3
15:0 15:1 15:2 15:3
16:0 16:1"

check_events() { # OUTDIR
	local out=$1 missing=() pair
	[[ -f $out/counts ]] || { echo "no counts"; return 1; }
	for pair in $required; do
		grep -q "^${pair%:*} ${pair#*:} [1-9]" "$out/counts" || missing+=("$pair")
	done
	((${#missing[@]} == 0)) || { echo "events never seen (id:subtype): ${missing[*]}"; return 1; }
}

run_events() { # NAME KDIR [qemu-run options]
	local name=$1 k=$2 out=$work/out-$1
	shift 2
	if ! build_probe "$k" "$work/probe-$name"; then
		t_fail "$name: probe module builds without warnings" "$(tail -n 20 "$work/probe-$name/build.log")"
		return
	fi
	t_pass "$name: probe module builds without warnings"
	if vm_skip_requested; then
		t_skip "$name: events in the guest" "LTT_SKIP_VM is set"
		return
	fi
	scripts/qemu-run.sh --kernel "$k" --timeout 900 "$@" --disk 64M --out "$out" \
		--add "$work/probe-$name/ltt_probe.ko:/lib/ltt_probe.ko" \
		--add "$work/ltt-workload:/bin/ltt-workload" \
		--add "$work/events.sh:/ltt/events.sh" \
		sh /ltt/events.sh >"$work/$name.qemu" 2>&1
	echo "qemu-run.sh exit status $?" >>"$work/$name.qemu"
	t_run_expect "$name: guest script runs, probe loads and unloads, console clean" 0 '' \
		bash -c "grep -q 'qemu-run.sh: kernel problem' '$work/$name.qemu' && { cat '$work/$name.qemu'; exit 1; }; [[ -f '$out/selftest2' ]] || { tail -n 30 '$work/$name.qemu'; exit 1; }"
	t_run_expect "$name: second registration gets -EBUSY, wrong unregister -EINVAL" 0 \
		'^register=0 second=-16 wrong_unregister=-22$' cat "$out/selftest"
	t_run_expect "$name: registering again after unregister" 0 '^register=0 ' cat "$out/selftest2"
	t_run_expect "$name: workload runs" 0 '^0$' cat "$out/workload.rc"
	t_check "$name: every event type and subtype fires" check_events "$out"
	t_run_expect "$name: every event has the right size, subtype and task" 0 \
		'^size 0$' bash -c "grep -q '^subtype 0$' '$out/bad' && grep -q '^task 0$' '$out/bad' && cat '$out/bad'"
	t_run_expect "$name: syscall IP policy (depth, range)" 0 'ip-test: 0 failures' cat "$out/iptest.log"
}

if [[ -n $kdir ]] && vm_skip_requested; then
	t_skip "qemu-run.sh: boot, exit status, WARNING and timeout checks" "LTT_SKIP_VM is set"
elif [[ -n $kdir ]]; then
	t_run_expect "boots to a shell, runs a command, powers off" 0 '^hello from ltt$' \
		scripts/qemu-run.sh --timeout 300 'echo hello from ltt; cat /proc/version >/dev/null'
	t_run_expect "qemu-run.sh returns the guest command's status" 3 '' \
		scripts/qemu-run.sh --timeout 300 'exit 3'
	run_events ltt "$kdir"
	if [[ -f $work/probe-ltt/ltt_probe.ko ]]; then
		t_run_expect "qemu-run.sh fails (200) when the console shows a kernel WARNING" 200 \
			'kernel problem reported' scripts/qemu-run.sh --timeout 300 \
			--add "$work/probe-ltt/ltt_probe.ko:/lib/ltt_probe.ko" \
			'insmod /lib/ltt_probe.ko && echo 1 >/sys/kernel/debug/ltt_probe/warn'
	fi
	t_run_expect "qemu-run.sh --timeout stops a hung guest (201)" 201 'timeout after' \
		scripts/qemu-run.sh --timeout 20 'sleep 600'
fi

# --- the debug kernel ----------------------------------------------------
if [[ ${LTT_KERNEL_TESTS:-} == quick || ${LTT_KERNEL_TESTS:-} == events ]]; then
	t_skip "debug kernel" "LTT_KERNEL_TESTS=${LTT_KERNEL_TESTS}"
elif build --debug; then
	t_pass "debug kernel builds (lockdep, KASAN, DEBUG_ENTRY/objtool noinstr)"
	ddir=$(scripts/build-kernel.sh --print-dir --debug)
	t_check "debug build: objtool reports no noinstr violations" \
		bash -c "! grep -E 'objtool: .*ltt' '$ddir/build.log'"
	run_events debug "$ddir" --timeout 1500
else
	t_fail "debug kernel builds" "$(tail -n 20 "$work/build--debug.log")"
fi

t_summary
