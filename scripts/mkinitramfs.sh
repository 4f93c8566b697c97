#!/usr/bin/env bash
# Build the ltt guest initramfs: busybox-static, an /init that mounts the
# usual file systems and runs /ltt/cmd.sh, plus any files given with --add.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/mkinitramfs.sh -o OUT.cpio [--add HOSTPATH:GUESTPATH]... [--cmd-file FILE]
                              [--modules DIR [--load NAME]...]

Writes an uncompressed newc cpio archive with:
  /bin/busybox (from busybox-static) and its applet links
  /init        mounts proc, sys, devtmpfs, debugfs, tracefs, tmpfs /tmp,
               creates /out, runs /ltt/cmd.sh as root (stdout and stderr to
               the second serial port, /dev/ttyS1, in raw mode), prints
               "LTT-GUEST-EXIT <status>" on the console, tars /out onto
               /dev/vda (when present) and powers off
  /ltt/cmd.sh  the command (--cmd-file; default: uname -a)
  every --add HOSTPATH:GUESTPATH (files keep their mode; a directory is
  copied recursively; GUESTPATH ending in / keeps the host file name)
  with --modules DIR (a kernel's lib/modules/RELEASE directory with its
  modules.dep, for a kernel that builds drivers as modules, e.g. Debian's
  stock kernel): the modules named by --load (repeatable; default
  virtio_pci and virtio_blk, the guest's disks) and those they depend on,
  in dependency order, decompressed when stored as .ko.xz/.gz/.zst, in
  /lib/modules/boot/; /init insmods them before anything else and waits
  for /dev/vda, printing "LTT-GUEST-INSMOD-FAILED <module>" on the
  console when one does not load
Used by scripts/qemu-run.sh; run alone to inspect the image.
EOF
}

out= cmdfile= moddir=
adds=() loads=()
while (($#)); do
	case $1 in
	-o) out=$2; shift ;;
	--add) adds+=("$2"); shift ;;
	--cmd-file) cmdfile=$2; shift ;;
	--modules) moddir=$2; shift ;;
	--load) loads+=("$2"); shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "mkinitramfs.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[[ -n $out ]] || { usage >&2; exit 2; }
if [[ -n $moddir ]]; then
	[[ -f $moddir/modules.dep ]] || { echo "mkinitramfs.sh: --modules: no $moddir/modules.dep (run depmod)" >&2; exit 1; }
	((${#loads[@]})) || loads=(virtio_pci virtio_blk)
elif ((${#loads[@]})); then
	echo "mkinitramfs.sh: --load needs --modules DIR" >&2
	exit 2
fi

busybox=${LTT_BUSYBOX:-$(command -v busybox || true)}
[[ -x $busybox ]] || { echo "mkinitramfs.sh: no busybox (apt-get install busybox-static)" >&2; exit 1; }

root=$(mktemp -d "${TMPDIR:-/tmp}/ltt-initramfs.XXXXXX")
# mktemp -d makes the directory 0700, which would become the guest's / and
# keep every user but root from reaching any path.
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,out,root,etc,ltt,lib/modules}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[[ $applet == busybox ]] && continue
	ln -sf busybox "$root/bin/$applet"
done

# Accounts: root, and an ordinary user (uid 1000) for the tests of tracing
# without root (busybox su, run by root, asks no password).
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' >"$root/etc/group"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# ltt guest init (scripts/mkinitramfs.sh)
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
# A name, as a real system has: traces record it as their host.
hostname ltt-guest
# Drivers the kernel has as modules (mkinitramfs.sh --modules), in
# dependency order; then the first disk, which /out goes back through.
if [ -f /lib/modules/boot/order ]; then
	while read -r m; do
		insmod "/lib/modules/boot/$m" || echo "LTT-GUEST-INSMOD-FAILED $m"
	done </lib/modules/boot/order
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
fi
mkdir -p /out
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
out=/dev/console
if [ -c /dev/ttyS1 ]; then
	out=/dev/ttyS1
	# Raw: the host gets the command's bytes as written (no CR before LF).
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
fi
echo "LTT-GUEST-READY"
cd /
sh /ltt/cmd.sh </dev/null >"$out" 2>&1
rc=$?
echo "LTT-GUEST-EXIT $rc"
if [ -b /dev/vda ] && [ -n "$(ls -A /out)" ]; then
	tar -C /out -cf /dev/vda . || echo "LTT-GUEST-OUT-FAILED"
fi
sync
# Without ACPI there is no power-off: reset, which ends QEMU (-no-reboot).
[ -d /sys/firmware/acpi ] && poweroff -f
reboot -f
EOF
chmod 755 "$root/init"

if [[ -n $cmdfile ]]; then
	cp "$cmdfile" "$root/ltt/cmd.sh"
else
	echo 'uname -a' >"$root/ltt/cmd.sh"
fi

for a in "${adds[@]}"; do
	host=${a%%:*} guest=${a#*:}
	[[ $a == *:* && -n $host && $guest == /* ]] || { echo "mkinitramfs.sh: --add wants HOSTPATH:/GUESTPATH, got '$a'" >&2; exit 2; }
	[[ -e $host ]] || { echo "mkinitramfs.sh: --add: no such file $host" >&2; exit 1; }
	[[ $guest == */ ]] && guest=$guest$(basename "$host")
	mkdir -p "$root$(dirname "$guest")"
	cp -a "$host" "$root$guest"
done

# modules.dep lists, per module, every module it needs (paths relative to
# DIR): load those first, depth first, each once.
if [[ -n $moddir ]]; then
	declare -A dep=() path=() seen=()
	# (no command substitution per line: a distribution kernel has
	# thousands of modules, and a fork each takes minutes on a busy host)
	while IFS= read -r line; do
		m=${line%%:*}
		n=${m##*/}
		n=${n%%.ko*}
		n=${n//-/_}
		dep[$n]=${line#*:}
		path[$n]=$m
	done <"$moddir/modules.dep"
	mkdir -p "$root/lib/modules/boot"
	order=()
	# Built into the kernel (modules.builtin; e.g. virtio_pci in Debian's
	# 6.12 and later): nothing to load.
	declare -A builtin=()
	if [[ -f $moddir/modules.builtin ]]; then
		while IFS= read -r line; do
			line=${line##*/}
			line=${line%%.ko*}
			builtin[${line//-/_}]=1
		done <"$moddir/modules.builtin"
	fi
	want() {
		local n=${1//-/_} d
		[[ -n ${seen[$n]:-} ]] && return 0
		[[ -z ${path[$n]:-} && -n ${builtin[$n]:-} ]] && return 0
		[[ -n ${path[$n]:-} ]] || { echo "mkinitramfs.sh: --load: no module $1 in $moddir/modules.dep" >&2; exit 1; }
		seen[$n]=1
		for d in ${dep[$n]}; do
			d=${d%%.ko*}
			want "${d##*/}"
		done
		order+=("$n")
	}
	for n in "${loads[@]}"; do want "$n"; done
	for n in "${order[@]}"; do
		src=$moddir/${path[$n]} dst=$root/lib/modules/boot/$n.ko
		case $src in
		*.ko) cp "$src" "$dst" ;;
		*.ko.xz) xz -dc "$src" >"$dst" ;;
		*.ko.gz) gzip -dc "$src" >"$dst" ;;
		*.ko.zst) zstd -qdc "$src" >"$dst" ;;
		*) echo "mkinitramfs.sh: $src: unknown module compression" >&2; exit 1 ;;
		esac || { echo "mkinitramfs.sh: cannot copy or decompress $src" >&2; exit 1; }
		echo "$n.ko" >>"$root/lib/modules/boot/order"
	done
fi

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) >"$out"
