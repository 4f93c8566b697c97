#!/usr/bin/env bash
# make demo: trace a representative workload in the patched kernel under QEMU
# and print the analysis. Builds (or takes from the cache) everything it
# needs: user space, the patched kernel, the trace module.
# make demo-stock (--stock): the same on Debian's unmodified kernel, whose
# tracepoints the module attaches to: no kernel build, the image is
# downloaded and unpacked into the cache and the headers installed when
# missing (scripts/stock-kernel.sh).
# usage: scripts/demo.sh [--stock] [SECONDS] [OUTDIR]
#        (defaults: 10, out/demo or with --stock out/demo-stock)
set -euo pipefail
cd "$(dirname "$0")/.."
variant=ltt outdef=out/demo
if [[ ${1:-} == --stock ]]; then
	variant=stock outdef=out/demo-stock
	shift
fi
secs=${1:-10}
out=${2:-$outdef}
source tests/lib/vm-host.sh
build=$vm_build
step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

case $secs in '' | *[!0-9]*) echo "demo.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac

# Packages: on a machine that lacks some, only the demo's are installed
# (the tests' wait for `make check`). The patched kernel, the longest step,
# starts building in the background as soon as its own packages are in,
# while the rest install and user space builds.
deps=all kernel_pid=
if ! scripts/install-deps.sh --check all 2>/dev/null; then
	deps=demo
	step "installing the Debian packages the demo needs (scripts/install-deps.sh demo)"
	[[ $variant != ltt ]] || scripts/install-deps.sh kernel
fi
if [[ $variant == ltt && -z ${KERNELDIR:-} ]] && ! scripts/build-kernel.sh --print-dir >/dev/null 2>&1; then
	kernel_log=$(mktemp -t ltt-demo-kernel.XXXXXX)
	echo "demo.sh: building the patched kernel in the background (log: $kernel_log)" >&2
	# In a session of its own, so that a failed demo stops all of it. On a
	# machine that lacked the packages this is its first kernel build:
	# without ccache, which would have nothing to hit.
	ccache=1
	[[ $deps == all ]] || ccache=0
	LTT_KERNEL_CCACHE=$ccache setsid scripts/build-kernel.sh >"$kernel_log" 2>&1 &
	kernel_pid=$!
	trap 'kill -- -"$kernel_pid" 2>/dev/null' EXIT
fi
[[ $deps == all ]] || scripts/install-deps.sh demo

# Only what the guest runs and the report needs is built before the boot.
# The tests' programs wait for `make check`.
step "building user space (tracedaemon, traceanalyze, ltt-mark, workloads) into $build/"
# cmake's report (what it found, what it leaves out until make installs the
# rest) is shown only when configuring fails.
if ! cfg=$(make -s configure DEPS=$deps 2>&1); then
	printf '%s\n' "$cfg" >&2
	exit 1
fi
mapfile -t workloads < <(grep -o 'W/wl_[a-z0-9_]*' tests/workloads/demo-guest.sh | cut -c3- | sort -u)
cmake --build "$build" --target tracedaemon traceanalyze ltt-mark "${workloads[@]}" >&2
if [[ $variant == stock ]]; then
	step "Debian's stock kernel $(scripts/stock-kernel.sh --line "${LTT_KERNEL_LINE:-deb12}" --release) (no build: the image is downloaded once, 70-120 MB, the headers installed if missing)"
	vm_kernel stock
else
	step "patched Linux 6.12 kernel (cached after the first build; the first takes about 8 min on 2 cores)"
	if [[ -n $kernel_pid ]]; then
		wait "$kernel_pid" || { tail -n 20 "$kernel_log" >&2; echo "demo.sh: the kernel build failed (log: $kernel_log)" >&2; exit 1; }
		trap - EXIT
		rm -f "$kernel_log"
	fi
	vm_kernel ltt
fi
step "trace module against $vm_kdir"
vm_module $variant

step "booting the ${variant/ltt/patched} kernel in QEMU (2 vCPUs, software emulation) and tracing for ${secs}s"
rm -rf "$out"
mkdir -p "$out"
vm_qemu=(--timeout $((secs * 20 + 300)) --mem 1G --disk 64M)
vm_bins=("$build/bin/tracedaemon" "$build/bin/ltt-mark" scripts/trace) vm_workloads=1
# The viewer builds beside the guest where its toolkit is installed; on a
# machine that has only the demo's packages, `make` builds it later.
rest=
if [[ $deps == all ]]; then
	nice -n 10 cmake --build "$build" --target traceview -j1 >"$out/build-viewer.log" 2>&1 &
	rest=$!
	trap 'kill "$rest" 2>/dev/null' EXIT
fi
vm_boot "$out" tests/workloads/demo-guest.sh "$secs"

step "analysis: traceanalyze -a -s $out/demo.trace $out/demo.proc"
"$build/bin/traceanalyze" -a -s "$out/demo.trace" "$out/demo.proc" | tee "$out/report.txt"
if [[ -s $out/ps-samples.txt ]]; then
	step "the paper's Figure 8: what ps saw vs what the trace shows"
	scripts/ltt-vs-ps "$out/demo.trace" "$out/demo.proc" "$out/ps-samples.txt" --build "$build" | tee "$out/ltt-vs-ps.txt"
fi

trap - EXIT
if [[ -n $rest ]] && ! wait "$rest"; then
	echo "demo.sh: building the viewer failed: see $out/build-viewer.log" >&2
	exit 1
fi
viewer="$build/bin/traceview $out/demo.trace $out/demo.proc"
[[ -n $rest ]] || viewer="make (installs the rest and builds it), then $viewer"

cat >&2 <<MSG

Files: $out/demo.trace, $out/demo.proc (the trace), $out/report.txt (this report),
       $out/workload.log (what ran), $out/console.log (the guest's console).
Open in the viewer:   $viewer
Machine-readable:     $build/bin/traceanalyze --json $out/demo.trace $out/demo.proc
MSG
