#!/usr/bin/env bash
# The trace module on Debian's unmodified kernel: the stock kernel needs no
# build (scripts/stock-kernel.sh downloads and unpacks the image, installs
# the headers when missing), the module is built against its headers and
# records the kernel's tracepoints; the initramfs that loads the kernel's
# virtio modules and the console verdict on a stock run are checked, and a
# guest traces the call-site workloads. The end-to-end accuracy workload
# on this kernel (tests/e2e/guest.sh --stock, held by
# tests/e2e/check_accuracy.py --stock against the same independent
# measurements as suite 90) runs in the deb12 boot of the kernel matrix,
# suite 96, with the other checks every kernel gets: one boot per kernel.
# LTT_SKIP_VM=1 skips the suite.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=$vm_build
# (not "out": t_check has a local of that name, which its command would see)
res=$build/test-results/stock
vm_suite_skip_if_requested "stock kernel suite"
echo "# stock kernel suite (Debian's kernel: downloaded and unpacked on first use)"

vm_kernel stock
rc=$?
if ((rc == VM_SKIP)); then
	t_skip "stock: kernel available" "scripts/stock-kernel.sh missing"
	t_summary
	exit
fi
if ! t_check "stock: kernel image unpacked in the cache" test "$rc" = 0 -a -f "$vm_kimage" ||
	! t_check "stock: kernel headers installed ($vm_kdir)" test -f "$vm_kdir/Makefile"; then
	t_summary
	exit 1
fi
release=$(basename "$vm_kmods")
line=${LTT_KERNEL_LINE:-deb12}
# shellcheck disable=SC2016 # eval expands it
t_check "stock: the release is Debian's $line kernel ($release), not the patched kernel's" \
	eval '[[ $release == "$(scripts/stock-kernel.sh --line "$line" --release)" && $release =~ ^[0-9.]+[-+][0-9a-z+-]*amd64$ ]]'

vm_module stock
if ! t_check "stock: trace module builds against the stock headers" test -f "$vm_ko"; then
	t_summary
	exit 1
fi
# shellcheck disable=SC2016 # eval expands it
t_check "stock: the module's vermagic names $release" \
	eval '[[ $(modinfo -F vermagic "$vm_ko") == "$release "* ]]'

# The initramfs for a kernel with modular virtio drivers: every module after
# those it needs (modules.dep), compressed ones decompressed, a module that
# is not there an error.
mods_of() { # CPIO: the order file's module names
	(cd "$res" && cpio -i --quiet --to-stdout lib/modules/boot/order) <"$1" | sed 's/\.ko$//'
}
deps_first() { # CPIO MODDIR
	local order=() n d seen=" "
	mapfile -t order < <(mods_of "$1")
	((${#order[@]})) || { echo "no modules in the initramfs"; return 1; }
	for n in "${order[@]}"; do
		# shellcheck disable=SC2013 # a module's dependencies, one word each
		for d in $(sed -n "s|^[^:]*/${n}\.ko[^:]*:||p" "$2/modules.dep"); do
			d=$(basename "${d%%.ko*}")
			[[ $seen == *" ${d//-/_} "* ]] || { echo "$n before its dependency $d: ${order[*]}"; return 1; }
		done
		seen+="$n "
	done
	[[ $seen == *" virtio_pci "* && $seen == *" virtio_blk "* ]] || { echo "no virtio_pci/virtio_blk: ${order[*]}"; return 1; }
}
rm -rf "$res"
mkdir -p "$res"
scripts/mkinitramfs.sh -o "$res/initramfs.cpio" --modules "$vm_kmods" >"$res/mkinitramfs.log" 2>&1
t_check "stock: initramfs has the virtio drivers, each after what it needs" \
	deps_first "$res/initramfs.cpio" "$vm_kmods"
fake=$res/fake-modules
mkdir -p "$fake/kernel/x"
xz -c "$vm_kmods/kernel/drivers/virtio/virtio_ring.ko" >"$fake/kernel/x/virtio_ring.ko.xz"
gzip -c "$vm_kmods/kernel/drivers/virtio/virtio.ko" >"$fake/kernel/x/virtio.ko.gz"
printf '%s\n' "kernel/x/virtio.ko.gz: kernel/x/virtio_ring.ko.xz" "kernel/x/virtio_ring.ko.xz:" >"$fake/modules.dep"
decompressed() {
	scripts/mkinitramfs.sh -o "$res/fake.cpio" --modules "$fake" --load virtio &&
		[[ $(mods_of "$res/fake.cpio" | tr '\n' ' ') == "virtio_ring virtio " ]] &&
		(cd "$res" && cpio -i --quiet --to-stdout lib/modules/boot/virtio.ko <fake.cpio) |
		cmp - "$vm_kmods/kernel/drivers/virtio/virtio.ko"
}
t_check "stock: initramfs decompresses .ko.xz and .ko.gz modules, in order" decompressed
t_run_expect "stock: mkinitramfs.sh --load of a module not in modules.dep fails" 1 'no module nosuch' \
	scripts/mkinitramfs.sh -o "$res/bad.cpio" --modules "$vm_kmods" --load nosuch

# The console verdict on what a stock run prints: the unsigned,
# out-of-tree module's taint messages are no kernel problem, a warning
# after them still is.
printf '%s\n' "[    5.2] ltt_tracer: loading out-of-tree module taints kernel." \
	"[    5.2] ltt_tracer: module verification failed: signature and/or required key missing - tainting kernel" \
	>"$res/taint.log"
t_check "stock: console verdict passes the module's taint messages" \
	scripts/qemu-run.sh --check-console "$res/taint.log"
{ cat "$res/taint.log"; echo "[    6.0] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2"; } >"$res/warn.log"
t_run_expect "stock: console verdict still fails a warning after them" 200 'kernel problem' \
	scripts/qemu-run.sh --check-console "$res/warn.log"

# Call sites, with MAP records from the tracepoint backend.
source tests/e2e/callsites.sh
callsites_e2e stock
t_summary
