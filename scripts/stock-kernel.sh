#!/usr/bin/env bash
# Make Debian 12's stock kernel available to the QEMU guest: its image
# unpacked in the cache (never installed as the host's kernel), its headers
# installed for out-of-tree modules. See --help.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/stock-kernel.sh [--print-dir | --release]

Makes Debian 12's own (unpatched) kernel, RELEASE = 6.1.0-N-amd64, ready for
the QEMU harness:
  - the image package linux-image-RELEASE is downloaded (apt-get download)
    and unpacked (dpkg-deb -x) into DIR = ${LTT_CACHE:-$HOME/.cache/ltt}/
    stock/RELEASE, and depmod -b writes its modules.dep there. It is never
    installed: the host's boot kernel and /boot stay as they are.
  - the headers package linux-headers-RELEASE is installed with apt-get
    when /lib/modules/RELEASE/build is missing (as root, or through sudo);
    out-of-tree modules build against that directory.
N is the newest ABI number apt-cache knows (run apt-get update for a newer
one), or LTT_STOCK_ABI=N. A warm run prints DIR at once; on success the
last line of output is DIR:
  DIR/boot/vmlinuz-RELEASE      the kernel (bzImage) as Debian ships it
  DIR/boot/vmlinux-RELEASE      the same kernel decompressed (ELF; written
                                when the kernel has CONFIG_PVH), which QEMU
                                enters at its PVH entry point: the guest
                                skips decompressing vmlinuz under emulation
                                (10-15 s of every boot); what
                                scripts/qemu-run.sh --stock boots
  DIR/lib/modules/RELEASE       its modules, for qemu-run.sh --modules
  /lib/modules/RELEASE/build    the headers: module/build.sh's KDIR
The two most recently used releases (LTT_STOCK_KEEP) stay in the cache;
older ones are removed after an unpack.

Options:
  --print-dir   print DIR if the image is unpacked and the headers are
                installed (exit 0), else exit 1, downloading nothing
  --release     print RELEASE and exit
  -h, --help    this text

Environment: LTT_CACHE (cache dir), LTT_STOCK_ABI (pin N), LTT_STOCK_KEEP.
EOF
}

print_dir=0 print_release=0
while (($#)); do
	case $1 in
	--print-dir) print_dir=1 ;;
	--release) print_release=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "stock-kernel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "stock-kernel.sh: $*" >&2; exit 1; }
cache=${LTT_CACHE:-$HOME/.cache/ltt}
stock=$cache/stock
keep=${LTT_STOCK_KEEP:-2}
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "LTT_STOCK_KEEP must be a number >= 1, not '$keep'"

# The ABI number: pinned, else the newest image package apt knows, else
# (no package lists on this machine) the newest release already unpacked.
abi=${LTT_STOCK_ABI:-}
if [[ -n $abi ]]; then
	[[ $abi =~ ^[0-9]+$ ]] || die "LTT_STOCK_ABI must be a number (the N of 6.1.0-N-amd64), not '$abi'"
else
	abi=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
		sed -n 's/^linux-image-6\.1\.0-\([0-9]*\)-amd64 .*/\1/p' | sort -n | tail -n 1)
	if [[ -z $abi ]]; then
		abi=$(find "$stock" -maxdepth 2 -name .ltt-unpacked 2>/dev/null |
			sed -n 's|.*/6\.1\.0-\([0-9]*\)-amd64/\.ltt-unpacked$|\1|p' | sort -n | tail -n 1)
		[[ -n $abi ]] || die "apt-cache knows no linux-image-6.1.0-N-amd64 package (run apt-get update, or set LTT_STOCK_ABI)"
		echo "stock-kernel.sh: apt-cache knows no image package; using the cached 6.1.0-$abi-amd64" >&2
	fi
fi
release=6.1.0-$abi-amd64
dir=$stock/$release
headers=/lib/modules/$release/build

if ((print_release)); then
	echo "$release"
	exit 0
fi

ready() { [[ -f $dir/.ltt-unpacked && -f $headers/Makefile ]]; }

if ((print_dir)); then
	if ready; then
		touch "$dir" # most recently used
		echo "$dir"
		exit 0
	fi
	echo "stock-kernel.sh: the stock kernel $release is not ready (image unpacked: $([[ -f $dir/.ltt-unpacked ]] && echo yes || echo no), headers: $([[ -f $headers/Makefile ]] && echo yes || echo no)); run scripts/stock-kernel.sh first" >&2
	exit 1
fi

if ready; then
	touch "$dir"
	echo "stock kernel $release is ready"
	echo "$dir"
	exit 0
fi

# extract_vmlinux BZIMAGE OUT: the ELF kernel inside a bzImage, for QEMU's
# PVH boot (the kernel needs CONFIG_PVH). The setup header gives the
# compressed payload's place: setup_sects at 0x1f1 (the protected-mode code
# follows those sectors and the boot sector), payload_offset and
# payload_length at 0x248 and 0x24c. Without PVH or a known compression,
# OUT is not written and the bzImage is booted as it is.
extract_vmlinux() {
	local img=$1 dst=$2 config sects off len cmd
	config=$(dirname "$img")/config-$release
	grep -q '^CONFIG_PVH=y' "$config" 2>/dev/null || return 0
	u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img" | tr -d ' ')
	((sects)) || sects=4
	off=$(($(u32 "$img" $((0x248))) + (sects + 1) * 512)) len=$(u32 "$img" $((0x24c)))
	case $(tail -c +$((off + 1)) "$img" | head -c 6 | od -An -tx1 | tr -d ' ' || true) in
	fd377a585a00) cmd=(xz -dc --single-stream) ;;
	1f8b*) cmd=(gzip -dc) ;;
	28b52ffd*) cmd=(zstd -qdc) ;;
	*) echo "stock-kernel.sh: unknown compression in $img; booting it as a bzImage" >&2; return 0 ;;
	esac
	# The payload ends with the uncompressed size (4 bytes), which gzip
	# warns about and xz (one stream) ignores.
	# (tail dies of SIGPIPE when head has its bytes: the ELF check judges.)
	tail -c +$((off + 1)) "$img" | head -c "$len" | "${cmd[@]}" >"$dst" 2>/dev/null || true
	if [[ $(head -c 4 "$dst" 2>/dev/null | od -An -tx1 | tr -d ' ') != 7f454c46 ]]; then
		echo "stock-kernel.sh: could not extract the ELF kernel from $img; booting it as a bzImage" >&2
		rm -f "$dst"
	fi
}

mkdir -p "$stock"
# Serialize concurrent callers (several suites and make targets may ask).
exec 9>"$stock/.lock"
flock 9
sudo=
if [[ $(id -u) != 0 ]] && command -v sudo >/dev/null; then sudo=sudo; fi
if [[ ! -f $headers/Makefile ]]; then
	[[ $(id -u) == 0 || -n $sudo ]] || die "need root (or sudo) to install linux-headers-$release"
	echo "stock-kernel.sh: installing linux-headers-$release" >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		"linux-headers-$release" >&2 || die "apt-get install linux-headers-$release failed"
	[[ -f $headers/Makefile ]] || die "linux-headers-$release is installed but $headers/Makefile is missing"
fi
if [[ ! -f $dir/.ltt-unpacked ]]; then
	tmp=$(mktemp -d "$stock/.unpack.XXXXXX")
	# apt-get download fetches as the user _apt when it runs as root: it
	# needs a directory that user can reach and write (the cache may sit in
	# a home directory only its owner can enter; apt would warn and fetch
	# as root).
	debdir=$(mktemp -d "${TMPDIR:-/tmp}/ltt-stock-deb.XXXXXX")
	trap 'rm -rf "$tmp" "$debdir"' EXIT
	chown _apt "$debdir" 2>/dev/null || true
	echo "stock-kernel.sh: downloading linux-image-$release (about 70 MB; not installed)" >&2
	(cd "$debdir" && apt-get download -q "linux-image-$release" >&2) ||
		die "apt-get download linux-image-$release failed (run apt-get update?)"
	deb=$(find "$debdir" -name "linux-image-${release}_*.deb" | head -n 1)
	[[ -n $deb ]] || die "apt-get download left no linux-image-$release .deb"
	echo "stock-kernel.sh: unpacking $(basename "$deb") into $dir" >&2
	dpkg-deb -x "$deb" "$tmp/root" || die "dpkg-deb -x $deb failed"
	rm -rf "$debdir"
	[[ -f $tmp/root/boot/vmlinuz-$release ]] || die "the package has no boot/vmlinuz-$release"
	[[ -d $tmp/root/lib/modules/$release ]] || die "the package has no lib/modules/$release"
	# The package leaves modules.dep to the installation (depmod in its
	# postinst): write it for this unpacked tree.
	depmod -b "$tmp/root" "$release" || die "depmod -b failed"
	extract_vmlinux "$tmp/root/boot/vmlinuz-$release" "$tmp/root/boot/vmlinux-$release"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	touch "$dir/.ltt-unpacked"
	rm -rf "$tmp"
	trap - EXIT

	# Keep the LTT_STOCK_KEEP most recently used releases.
	# shellcheck disable=SC2012 # ls -t: most recently used first
	mapfile -t old < <(ls -1dt "$stock"/6.1.0-*-amd64 2>/dev/null | tail -n +$((keep + 1)))
	for d in "${old[@]}"; do
		[[ $d == "$dir" ]] && continue
		echo "stock-kernel.sh: removing the older stock kernel $d" >&2
		rm -rf "$d"
	done
fi
echo "stock kernel $release is ready"
echo "$dir"
