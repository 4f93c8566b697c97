#!/usr/bin/env bash
# Boot the ltt kernel (or Debian's stock kernel) in QEMU (TCG), run one
# command inside, bring /out back.
set -uo pipefail

usage() {
	cat <<'EOF'
usage: scripts/qemu-run.sh [options] [--] COMMAND...

Boots a kernel in QEMU (software emulation, TCG) with an initramfs built
from busybox-static plus the files given with --add, runs COMMAND (joined
into one shell command line, run by busybox sh as root in /) and powers off.
COMMAND's stdout and stderr come back on this script's stdout (through the
guest's second serial port); the kernel console is saved to a log file.
Default COMMAND: uname -a.

Options:
  --kernel PATH     a bzImage, an ELF vmlinux with a PVH entry point, or a
                    build dir holding arch/x86/boot/bzImage
                    (default: the cached build, scripts/build-kernel.sh
                    --print-dir; with --debug the debug build)
  --debug           use the cached debug kernel (lockdep, KASAN, ...)
  --stock           use Debian's stock kernel unpacked in the cache
                    (scripts/stock-kernel.sh --print-dir; its vmlinux, else
                    its vmlinuz) with its modules (--modules)
  --line LINE       with --stock: the kernel line (scripts/stock-kernel.sh
                    --lines: deb12, the default, deb12-bpo, deb13, deb13-rt,
                    sid)
  --modules DIR     the kernel's lib/modules/RELEASE directory: for a kernel
                    that builds its virtio drivers as modules, the initramfs
                    gets virtio_pci, virtio_blk and what they need, and the
                    guest's init loads them first (scripts/mkinitramfs.sh)
  --add HOST:GUEST  put HOST (file or directory, mode kept) at GUEST in the
                    guest; repeatable. GUEST ending in / keeps the name.
                    E.g. --add module/ltt.ko:/lib/ --add ./prog:/bin/prog
  --out DIR         copy the guest's /out directory to DIR afterwards
                    (through a virtio disk, /dev/vda, written as a tar)
  --out-size SIZE   size of that disk (default 1G, sparse)
  --disk SIZE       attach a blank scratch disk as /dev/vdb (e.g. for swap)
  --disk-write-bps N  limit that disk's writes to N bytes/s (QEMU's
                    throttling), so writing to it really waits for I/O:
                    with the host's page cache behind it a write
                    completes almost at once
  --log FILE        console log (default: DIR/console.log with --out, else
                    a file under ${TMPDIR:-/tmp}; its path is printed on stderr)
  --timeout SEC     kill QEMU after SEC seconds (default 600)
  --smp N           vCPUs (default 2). QEMU runs them in one host thread
                    (-accel tcg,thread=single): multi-threaded TCG runs a
                    stale INT3 while a static key is patched and the kernel
                    oopses. LTT_QEMU_MTTCG=1 in the environment: MTTCG.
  --print-accel     print the -accel value a run would use now
                    (tcg,thread=single or tcg,thread=multi) and exit
  --mem SIZE        guest RAM (default 512M)
  --append ARGS     extra kernel command line arguments (a debug kernel
                    always gets pci=noacpi: ACPI's PCI routing is too slow
                    to interpret under TCG with lockdep and KASAN)
  --tsc-khz KHZ|host
                    give the guest kernel its TSC frequency (tsc_early_khz=)
                    instead of letting it calibrate: under TCG the guest's
                    TSC is the host's, and on a busy host the kernel's PIT
                    calibration can be off severalfold (seen: 579690 kHz for
                    2594500), so that local_clock(), the trace's clock when
                    the TSC is unstable, runs fast and stalls at every tick.
                    host: measure the host's TSC (x86-64 hosts only, once
                    per host boot, kept in $LTT_CACHE/host-tsc-khz);
                    ignored with -icount, where the guest's TSC counts
                    instructions and calibrates the same on every run.
                    A kernel built without ACPI gets host (and
                    tsc=reliable, and one socket per vCPU) by default
  --allow-warnings  do not fail on kernel warnings in the console
  --check-console LOG
                    only judge the console log LOG as a run's would be
                    judged: exit 0 when clean, 200 (and the findings on
                    stderr) when it shows a kernel problem
  --qemu-arg ARG    pass ARG to qemu-system-x86_64; repeatable
                    (e.g. --qemu-arg -icount --qemu-arg shift=0, with
                    --smp 1: under -icount a second vCPU hangs the boot
                    at SMP bring-up)
  -h, --help        this text

Exit status:
  0..199  COMMAND's exit status (the kernel console was clean)
  200     the console shows a kernel WARNING, BUG, oops, panic, KASAN,
          lockdep, RCU stall or hung-task report (message on stderr)
  201     timeout
  202     the guest never reported COMMAND's status (crash, no boot)
  203     usage or setup error (no kernel, no QEMU, a --modules module
          that the guest could not load, ...)
  204     /out could not be brought back

Inside the guest: proc, sysfs, devtmpfs, debugfs (/sys/kernel/debug),
tracefs (/sys/kernel/tracing) and a tmpfs /tmp are mounted, lo is up, and
/out is an empty directory on the (RAM) root file system.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
kernel="" debug=0 stock=0 line=deb12 moddir= out= out_size=1G disk= disk_bps= log= timeout=600 smp=2 mem=512M
append= allow_warn=0 print_accel=0 check_console= tsc_khz=
adds=() qemu_args=()
fail() { echo "qemu-run.sh: $2" >&2; exit "$1"; }

while (($#)); do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--debug) debug=1 ;;
	--stock) stock=1 ;;
	--line) line=$2; shift ;;
	--modules) moddir=$2; shift ;;
	--add) adds+=(--add "$2"); shift ;;
	--out) out=$2; shift ;;
	--out-size) out_size=$2; shift ;;
	--disk) disk=$2; shift ;;
	--disk-write-bps) disk_bps=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--allow-warnings) allow_warn=1 ;;
	--tsc-khz) tsc_khz=$2; shift ;;
	--check-console) check_console=$2; shift ;;
	--qemu-arg) qemu_args+=("$2"); shift ;;
	--print-accel) print_accel=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) fail 203 "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
	shift || fail 203 "option needs an argument"
done
cmd=${*:-uname -a}

# Kernel problems anywhere in the console fail the run. Messages that only
# taint the kernel (an out-of-tree or unsigned module: "loading out-of-tree
# module taints kernel", "module verification failed: signature and/or
# required key missing - tainting kernel") are none of these.
pattern='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|general protection fault|possible (recursive|circular) locking|inconsistent lock state|suspicious RCU usage|INFO: (rcu|task .* blocked)|rcu_(sched|preempt) (self-)?detected stall|Call Trace:'
# console_verdict LOG: status 200 with the findings on stderr, else 0.
console_verdict() {
	if ((!allow_warn)) && grep -Eq "$pattern" "$1"; then
		echo "qemu-run.sh: kernel problem reported in the console (log: $1):" >&2
		grep -En -m 20 -A 3 "$pattern" "$1" >&2
		return 200
	fi
}
if [[ -n $check_console ]]; then
	[[ -f $check_console ]] || fail 203 "--check-console: no file $check_console"
	console_verdict "$check_console"
	exit
fi

# Single-threaded TCG by default: with one host thread per vCPU (MTTCG),
# QEMU lets another vCPU run a stale INT3 while the kernel patches a static
# key (text_poke_bp), which oopses in the int3 handler. LTT_QEMU_MTTCG=1
# restores MTTCG. icount needs single-threaded TCG anyway.
accel=tcg,thread=single
[[ ${LTT_QEMU_MTTCG:-0} == 1 ]] && accel=tcg,thread=multi
if ((print_accel)); then
	echo "$accel"
	exit 0
fi

if [[ -z $kernel ]] && ((stock)); then
	sdir=$("$here/stock-kernel.sh" --line "$line" --print-dir) ||
		fail 203 "the stock kernel is not unpacked: run scripts/stock-kernel.sh --line $line first"
	# The decompressed kernel when there is one (scripts/stock-kernel.sh:
	# PVH boot, no decompression under emulation), else the bzImage.
	kernel=$sdir/boot/vmlinux-$(basename "$sdir")
	[[ -f $kernel ]] || kernel=$sdir/boot/vmlinuz-$(basename "$sdir")
	[[ -n $moddir ]] || moddir=$sdir/lib/modules/$(basename "$sdir")
elif [[ -z $kernel ]]; then
	flags=()
	((debug)) && flags=(--debug)
	kernel=$("$here/build-kernel.sh" --print-dir "${flags[@]}") ||
		fail 203 "no cached kernel: run 'make kernel' (or scripts/build-kernel.sh ${flags[*]}) first"
fi
[[ -d $kernel ]] && kernel=$kernel/arch/x86/boot/bzImage
# A debug kernel (lockdep, KASAN) interprets ACPI's PCI routing method so
# slowly under TCG that it hits the AML loop timeout and the virtio devices
# get no interrupt: route PCI interrupts from the BIOS table instead.
kconfig=$(dirname "$kernel")/../../../.config
if [[ -f $kconfig ]] && grep -qE '^CONFIG_(KASAN|PROVE_LOCKING)=y' "$kconfig"; then
	append="pci=noacpi $append"
fi
# With -cpu max the guest runs 5-level paging. While identify_boot_cpu()
# re-reads the CPU's features, pgtable_l5_enabled() can read false, and
# KASAN then takes an interrupt's access to a per-CPU variable (an LA57
# direct-map address) for a wild one: "KASAN: wild-memory-access in
# rcu_is_watching" from irqentry_enter() under cpu_detect(), before /init,
# in about 1 boot of 10 on a busy host. 4-level paging has no such window.
if [[ -f $kconfig ]] && grep -q '^CONFIG_KASAN=y' "$kconfig"; then
	append="no5lvl $append"
fi
# A kernel built without ACPI (the patched, no-LTT and vanilla guests: see
# kernel-patches/config/noacpi.config) finds its CPUs in the BIOS's MP
# table, where SeaBIOS lists one CPU per package: each vCPU gets a socket
# of its own. Its TSC has no HPET or ACPI PM timer to calibrate or be
# checked against, and a TSC on more than one non-Intel package counts as
# unsynchronized: the guest is told the host's rate and that the TSC is
# reliable, which under TCG it is (every vCPU reads the host's TSC).
topology=
if [[ -f $kconfig ]] && ! grep -q '^CONFIG_ACPI=y' "$kconfig"; then
	topology=",sockets=$smp,cores=1,threads=1"
	append="tsc=reliable $append"
	# (An x86-64 host's TSC only: elsewhere the guest calibrates.)
	[[ -n $tsc_khz || $(uname -m) != x86_64 ]] || tsc_khz=host
fi
[[ -f $kernel ]] || fail 203 "no kernel image at $kernel"

# host_tsc_khz: the host's TSC rate, rdtsc against CLOCK_MONOTONIC over
# 200 ms (python3 runs the instruction from an executable page).
host_tsc_khz() {
	[[ $(uname -m) == x86_64 ]] || return 1
	python3 - <<'PY'
import ctypes, mmap, time
code = bytes([0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3])  # rdtsc; shl $32,%rdx; or %rdx,%rax; ret
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
rdtsc = ctypes.CFUNCTYPE(ctypes.c_uint64)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
t0, c0 = time.monotonic_ns(), rdtsc()
time.sleep(0.2)
t1, c1 = time.monotonic_ns(), rdtsc()
print((c1 - c0) * 1000000 // (t1 - t0))
PY
}
case $tsc_khz in
'') ;;
host)
	if [[ " ${qemu_args[*]} " != *" -icount "* ]]; then
		# Measured once per host boot (it takes 200 ms; make check boots
		# hundreds of guests) and kept in the cache with the boot's id.
		khz= tsc_cache=${LTT_CACHE:-$HOME/.cache/ltt}/host-tsc-khz
		boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) || boot_id=
		if [[ -n $boot_id && -f $tsc_cache ]] && read -r b k <"$tsc_cache" &&
			[[ $b == "$boot_id" && $k =~ ^[1-9][0-9]{5,}$ ]]; then
			khz=$k
		else
			{ khz=$(host_tsc_khz) && [[ $khz =~ ^[1-9][0-9]{5,}$ ]]; } || fail 203 "--tsc-khz host: cannot measure the host's TSC"
			if [[ -n $boot_id ]] && mkdir -p "${tsc_cache%/*}" 2>/dev/null; then
				{ echo "$boot_id $khz" >"$tsc_cache.$$" && mv -f "$tsc_cache.$$" "$tsc_cache"; } 2>/dev/null ||
					rm -f "$tsc_cache.$$"
			fi
		fi
		append="tsc_early_khz=$khz $append"
	fi ;;
*[!0-9]* | 0) fail 203 "--tsc-khz wants a number of kHz or 'host', not '$tsc_khz'" ;;
*) append="tsc_early_khz=$tsc_khz $append" ;;
esac
command -v qemu-system-x86_64 >/dev/null || fail 203 "qemu-system-x86_64 not found"

work=$(mktemp -d "${TMPDIR:-/tmp}/ltt-qemu.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [[ -z $log ]]; then
	if [[ -n $out ]]; then
		mkdir -p "$out" || fail 203 "cannot create $out"
		log=$out/console.log
	else
		log=$(mktemp "${TMPDIR:-/tmp}/ltt-console.XXXXXX.log")
	fi
fi
mkdir -p "$(dirname "$log")"
: >"$log" || fail 203 "cannot write $log"

printf '%s\n' "$cmd" >"$work/cmd.sh"
modargs=()
[[ -n $moddir ]] && modargs=(--modules "$moddir")
"$here/mkinitramfs.sh" -o "$work/initramfs.cpio" --cmd-file "$work/cmd.sh" "${adds[@]}" "${modargs[@]}" ||
	fail 203 "initramfs build failed"
truncate -s "$out_size" "$work/out.img" || fail 203 "bad --out-size $out_size"
drives=(-drive "file=$work/out.img,if=virtio,format=raw,cache=unsafe")
if [[ -n $disk ]]; then
	truncate -s "$disk" "$work/scratch.img" || fail 203 "bad --disk $disk"
	throttle=
	if [[ -n $disk_bps ]]; then
		[[ $disk_bps =~ ^[1-9][0-9]*$ ]] || fail 203 "bad --disk-write-bps $disk_bps (bytes per second)"
		throttle=",throttling.bps-write=$disk_bps"
	fi
	drives+=(-drive "file=$work/scratch.img,if=virtio,format=raw,cache=unsafe$throttle")
elif [[ -n $disk_bps ]]; then
	fail 203 "--disk-write-bps needs --disk"
fi

# no_timer_check (on the command line below): on a busy host the emulated
# timer can miss the IO-APIC timer check's window, and the guest panics at
# boot with "IO-APIC + timer doesn't work" (seen with four builds running
# beside it); virtual machines skip that check.

echo "qemu-run.sh: booting $kernel ($smp vCPUs, -accel $accel; console log: $log)" >&2
timeout -k 10 "$timeout" qemu-system-x86_64 \
	-machine pc -accel "$accel" -cpu max -smp "$smp$topology" -m "$mem" \
	-kernel "$kernel" -initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 loglevel=7 panic=-1 oops=panic no_timer_check rdinit=/init $append" \
	-display none -monitor none -no-reboot \
	-serial "file:$log" -serial "file:$work/cmd.out" \
	"${drives[@]}" "${qemu_args[@]}" </dev/null >"$work/qemu.out" 2>&1
qrc=$?

cat "$work/cmd.out" 2>/dev/null
if ((qrc == 124 || qrc == 137)); then
	echo "qemu-run.sh: timeout after ${timeout}s (console log: $log)" >&2
	tail -n 20 "$log" >&2
	exit 201
fi
if ((qrc != 0)); then
	cat "$work/qemu.out" >&2
fi

console_verdict "$log" || exit

if grep -aq LTT-GUEST-INSMOD-FAILED "$log"; then
	echo "qemu-run.sh: the guest could not load a module of --modules (log: $log):" >&2
	grep -a -B 3 LTT-GUEST-INSMOD-FAILED "$log" >&2
	exit 203
fi

status=$(grep -ao 'LTT-GUEST-EXIT [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
if [[ -z $status ]]; then
	echo "qemu-run.sh: the guest never reported the command's status (qemu exit $qrc, log: $log)" >&2
	tail -n 30 "$log" >&2
	exit 202
fi

if [[ -n $out ]]; then
	mkdir -p "$out"
	if grep -aq LTT-GUEST-OUT-FAILED "$log"; then
		echo "qemu-run.sh: the guest could not write /out" >&2
		exit 204
	fi
	if [[ -n $(head -c 512 "$work/out.img" | tr -d '\0') ]]; then
		tar -C "$out" -xf "$work/out.img" || fail 204 "cannot unpack /out into $out"
	fi
fi
exit "$status"
