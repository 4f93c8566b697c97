# shellcheck shell=bash
# The host side of every run in the QEMU guest: source it from bash (the
# in-guest suites 60, 70 and 90, tests/module/run-vm.sh,
# tests/daemon/run-vm.sh, scripts/demo.sh; suite 50 takes its skip policy,
# scripts/bench-kernel.sh its kernel lookup). One way to find or build the
# kernel, build the trace module, boot the guest with one layout, and turn
# what the guest wrote into checks. Its partner inside the guest is
# tests/lib/vm-guest.sh. The guest kernel is the patched one built from
# kernel-patches/ or Debian's stock kernel (variant stock: no build, the
# module uses its tracepoints).
#
# Exit statuses of a guest run: scripts/qemu-run.sh's (0..199 the guest
# script's status with a clean console, 200 a kernel problem in the
# console, 201 timeout, 202 no status, 203 setup error, 204 /out lost),
# and VM_SKIP (205): a prerequisite is missing (with --no-build, the kernel
# is not in the cache), which a suite reports as a skip, never as a pass.
#
# The guest layout (tests/lib/vm-guest.sh uses the same paths):
#   /opt/ltt/ltt_tracer.ko     the trace module
#   /opt/ltt/ltt_test.ko       the test module, when built beside it
#   /opt/ltt/bin/              programs (tracedaemon, ltt_modtest, trace...)
#   /opt/ltt/workloads/        $BUILD/workloads, when asked for
#   /opt/ltt/lib/vm-guest.sh   the guest-side helper
#   /opt/ltt/SCRIPT            the guest script, run as sh /opt/ltt/SCRIPT
#   /out                       what comes back to the host (OUT)

VM_SKIP=205
vm_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vm_build=${BUILD:-build}
vm_kdir= vm_ko= vm_kimage= vm_kmods=
vm_qemu=() vm_bins=() vm_workloads=0

# vm_skip_requested: LTT_SKIP_VM is set (no QEMU on this machine).
vm_skip_requested() { [[ -n ${LTT_SKIP_VM:-} ]]; }

# vm_suite_skip_if_requested NAME: in a suite, with LTT_SKIP_VM set,
# report NAME skipped and end the suite.
vm_suite_skip_if_requested() {
	vm_skip_requested || return 0
	t_skip "$1" "LTT_SKIP_VM is set"
	t_summary
	exit
}

# vm_kernel VARIANT [--no-build]: set vm_kdir to the kernel build of
# VARIANT (ltt, debug, vanilla or peers; KERNELDIR overrides ltt), building it
# when it is not cached, or with --no-build returning VM_SKIP instead.
# VARIANT ltt-tp or debug-tp is the kernel of ltt or debug with the module
# built for its tracepoints instead of the facility (vm_module).
# A build that fails returns 203. Messages go to stderr.
# VARIANT stock is Debian's own kernel (scripts/stock-kernel.sh): vm_kdir
# is its headers' build directory, vm_kimage the image to boot and
# vm_kmods its modules directory (the virtio drivers are modules there);
# "building" it downloads and unpacks the image and installs the headers.
vm_kernel() {
	local variant=${1%-tp} nobuild=${2:-} flag=()
	vm_kimage= vm_kmods=
	case $variant in
	ltt) if [[ -n ${KERNELDIR:-} ]]; then vm_kdir=$KERNELDIR; return 0; fi ;;
	stock) vm_stock_kernel "$nobuild"; return ;;
	debug) flag=(--debug) ;;
	vanilla) flag=(--vanilla) ;;
	peers) flag=(--peers) ;;
	*) echo "vm-host: unknown kernel variant '$variant'" >&2; return 203 ;;
	esac
	if [[ ! -x $vm_repo/scripts/qemu-run.sh || ! -x $vm_repo/scripts/build-kernel.sh ]]; then
		echo "vm-host: scripts/qemu-run.sh or scripts/build-kernel.sh missing" >&2
		return $VM_SKIP
	fi
	if [[ $nobuild == --no-build ]]; then
		vm_kdir=$("$vm_repo/scripts/build-kernel.sh" "${flag[@]}" --print-dir 2>/dev/null | tail -n 1) || {
			echo "vm-host: the $variant kernel is not built (make kernel${flag:+-$variant})" >&2
			return $VM_SKIP
		}
	else
		vm_kdir=$("$vm_repo/scripts/build-kernel.sh" "${flag[@]}" | tail -n 1) || {
			echo "vm-host: $variant kernel build failed" >&2
			return 203
		}
	fi
}

# vm_stock_kernel [--no-build]: vm_kernel stock, of the kernel line
# LTT_KERNEL_LINE (scripts/stock-kernel.sh --lines; default deb12).
vm_stock_kernel() {
	local sdir rel line=(--line "${LTT_KERNEL_LINE:-deb12}")
	if [[ ! -x $vm_repo/scripts/stock-kernel.sh ]]; then
		echo "vm-host: scripts/stock-kernel.sh missing" >&2
		return $VM_SKIP
	fi
	if [[ $1 == --no-build ]]; then
		sdir=$("$vm_repo/scripts/stock-kernel.sh" "${line[@]}" --print-dir 2>/dev/null | tail -n 1) || {
			echo "vm-host: the stock kernel is not unpacked (scripts/stock-kernel.sh)" >&2
			return $VM_SKIP
		}
	else
		sdir=$("$vm_repo/scripts/stock-kernel.sh" "${line[@]}" | tail -n 1) || {
			echo "vm-host: scripts/stock-kernel.sh failed" >&2
			return 203
		}
	fi
	rel=$(basename "$sdir")
	vm_kdir=$("$vm_repo/scripts/stock-kernel.sh" "${line[@]}" --headers) || return 203
	vm_kmods=$sdir/lib/modules/$rel
	# The decompressed kernel boots faster (no decompression under TCG).
	vm_kimage=$sdir/boot/vmlinux-$rel
	[[ -f $vm_kimage ]] || vm_kimage=$sdir/boot/vmlinuz-$rel
}

# vm_module VARIANT: build the trace module against vm_kdir into
# $BUILD/module/VARIANT and set vm_ko; 203 when the build fails. A VARIANT
# ending in -tp gets the tracepoint backend (LTT_SOURCE=tracepoints).
# For a stock kernel of a line other than deb12 the module is built in its
# distribution's root (scripts/kernels.sh --build-module).
vm_module() {
	[[ -x $vm_repo/module/build.sh ]] || { echo "vm-host: module/build.sh missing" >&2; return $VM_SKIP; }
	local how=("$vm_repo/module/build.sh" "$vm_kdir")
	[[ $1 == *-tp ]] && how=(env LTT_SOURCE=tracepoints "${how[@]}")
	[[ $1 == stock && ${LTT_KERNEL_LINE:-deb12} != deb12 ]] &&
		how=("$vm_repo/scripts/kernels.sh" --build-module "$LTT_KERNEL_LINE")
	vm_ko=$("${how[@]}" "$vm_build/module/$1${LTT_KERNEL_LINE:+-$LTT_KERNEL_LINE}" | tail -n 1) && [[ -f $vm_ko ]] || {
		echo "vm-host: module build failed against $vm_kdir" >&2
		return 203
	}
}

# vm_need FILE...: each is a built program (203 and a message otherwise).
vm_need() {
	local f
	for f; do
		[[ -x $f ]] || { echo "vm-host: $f not built (run make BUILD=$vm_build)" >&2; return 203; }
	done
}

# vm_boot OUT SCRIPT [ARGS...]: boot vm_kdir (vm_kimage with the modules
# of vm_kmods when set) and run the guest script
# SCRIPT (a host path) as `sh /opt/ltt/NAME ARGS` with the layout above:
# vm_ko (and ltt_test.ko beside it, when built), the programs listed in
# vm_bins, $BUILD/workloads when vm_workloads=1. qemu-run.sh options (--smp, --timeout, --mem, --disk,
# more --add) come from the array vm_qemu. The guest's /out, console.log
# included, lands in OUT. Returns qemu-run.sh's status; the guest
# script's output goes to stdout.
vm_boot() {
	local out=$1 script=$2 adds=() f
	shift 2
	adds=(--add "$vm_ko:/opt/ltt/" --add "$vm_repo/tests/lib/vm-guest.sh:/opt/ltt/lib/"
		--add "$script:/opt/ltt/")
	[[ -f ${vm_ko%/*}/ltt_test.ko ]] && adds+=(--add "${vm_ko%/*}/ltt_test.ko:/opt/ltt/")
	for f in "${vm_bins[@]}"; do adds+=(--add "$f:/opt/ltt/bin/"); done
	((vm_workloads)) && adds+=(--add "$vm_build/workloads:/opt/ltt/workloads")
	# The stock kernel calibrates its TSC against the PIT, which a busy
	# host's emulation can get several times wrong (local_clock(), the
	# trace's clock there, then stalls at each tick): give it the rate.
	[[ -n $vm_kmods ]] && adds+=(--modules "$vm_kmods" --tsc-khz host)
	"$vm_repo/scripts/qemu-run.sh" --kernel "${vm_kimage:-$vm_kdir}" --out "$out" "${vm_qemu[@]}" "${adds[@]}" \
		-- sh "/opt/ltt/$(basename "$script")" "$@"
}

# vm_import FILE [PREFIX]: one check of this suite per result line the
# guest wrote ("ok - NAME", "FAIL - NAME: why", "skip - NAME: why"; "# "
# lines are notes), each name prefixed by PREFIX. A failure is shown whole
# on one line: names contain ": " too ("forktree: one root: 0 roots"), so
# where the name ends is not known.
vm_import() {
	local line rest why
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_pass "${2:-}${line#ok - }" ;;
		"FAIL - "*) t_fail "${2:-}${line#FAIL - }" ;;
		"skip - "*)
			rest=${line#* - } why=
			[[ $rest == *": "* ]] && why=${rest#*: } rest=${rest%%: *}
			t_skip "${2:-}$rest" "$why" ;;
		"# "*) echo "       $line" ;;
		esac
	done <"$1"
}

# vm_verdict STATUS NAME LOG CONSOLE: the check that the guest run NAME
# finished with a clean kernel console, from qemu-run.sh's STATUS (LOG:
# the run's output, CONSOLE: the kernel console).
vm_verdict() {
	case $1 in
	0) t_pass "$2 finished, kernel console clean" ;;
	200) t_fail "$2: kernel console clean" \
		"$(grep -E 'WARNING|BUG|lockdep|KASAN|circular|stall|sleeping|Oops|int3:' "$4" 2>/dev/null | head -n 5)" ;;
	*) t_fail "$2 (status $1)" "$(tail -n 5 "$3")" ;;
	esac
}

# vm_report STATUS LOG OUT NAME [PREFIX]: a suite's checks for one guest
# run: a skip when a prerequisite was missing (VM_SKIP, returns 1);
# otherwise the result lines of OUT/results.txt (names prefixed by PREFIX)
# and the console verdict.
vm_report() {
	if (($1 == VM_SKIP)); then
		t_skip "$4" "$(tail -n 1 "$2")"
		return 1
	fi
	[[ -f $3/results.txt ]] && vm_import "$3/results.txt" "${5:-}"
	vm_verdict "$1" "$4" "$2" "$3/console.log"
}

# vm_checked_runs NAME GUEST CHECKER VARIANT...: for each kernel VARIANT
# (ltt, stock, ...), boot the guest (2 vCPUs, 1 GiB, the tracedaemon and the
# workloads) on that kernel and its module, run GUEST in it with its output
# in $BUILD/test-results/NAME-VARIANT, report it (vm_report), then run
# `python3 CHECKER OUT TRACEANALYZE "[VARIANT] "` on the host and import its
# result lines. A kernel not in the cache is a skip, never built here.
vm_checked_runs() {
	local name=$1 guest=$2 checker=$3 variant out log rc
	shift 3
	for variant in "$@"; do
		out=$vm_build/test-results/$name-$variant
		log=$out.log
		rm -rf "$out"
		mkdir -p "$out"
		rc=0
		vm_kernel "$variant" --no-build >"$log" 2>&1 || rc=$?
		((rc == 0)) && { vm_module "$variant" >>"$log" 2>&1 || rc=$?; }
		if ((rc == 0)); then
			vm_bins=("$vm_build/bin/tracedaemon") vm_workloads=1
			vm_qemu=(--timeout 1200 --mem 1G --smp 2)
			vm_boot "$out" "$guest" >>"$log" 2>&1
			rc=$?
		fi
		vm_report "$rc" "$log" "$out" "[$variant] $name run" "[$variant] " || continue
		python3 "$checker" "$out" "$vm_build/bin/traceanalyze" "[$variant] " >"$out/check.txt"
		vm_import "$out/check.txt"
		if ! [[ $(tail -n 1 "$out/check.txt") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
			t_fail "[$variant] $(basename "$checker") reported its totals" "$(tail -n 5 "$out/check.txt")"
		fi
	done
}
