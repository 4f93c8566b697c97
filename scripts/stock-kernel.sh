#!/usr/bin/env bash
# Make one of Debian's stock kernels available to the QEMU guest: its image
# unpacked in the cache (never installed as the host's kernel), its headers
# installed for out-of-tree modules (on the host for Debian 12's own line,
# else in a Debian root of that distribution). See --help.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/stock-kernel.sh [--line LINE] [--print-dir | --release | --headers | --root]
       scripts/stock-kernel.sh --lines
       scripts/stock-kernel.sh --download PACKAGE=VERSION DIR

Makes one of Debian's own (unpatched) kernels ready for the QEMU harness.
LINE is one of five kernel lines (default deb12):
  deb12      Debian 12's 6.1.0-N-amd64                   (suite bookworm)
  deb12-bpo  Debian 12 backports' 6.12.N+deb12-amd64     (bookworm-backports)
  deb13      Debian 13's 6.12.N+deb13-amd64              (trixie)
  deb13-rt   its PREEMPT_RT flavour 6.12.N+deb13-rt-amd64 (trixie)
  sid        the newest linux-image-V+debM-amd64 of unstable (sid)
For RELEASE, the newest of its line:
  - the image package linux-image-RELEASE is downloaded (apt-get download)
    and unpacked (dpkg-deb -x) into DIR = ${LTT_CACHE:-$HOME/.cache/ltt}/
    stock/RELEASE, and depmod -b writes its modules.dep there. It is never
    installed: the host's boot kernel and /boot stay as they are. deb12's
    comes through the host's apt (its sources name bookworm), the others'
    through a private apt configuration in the cache (apt/kernels: its own
    sources.list, lists and archives; the host's apt sources are never
    touched), whose lists are refreshed when older than LTT_APT_MAX_AGE
    hours (default 24; a warm run downloads nothing).
  - the headers package linux-headers-RELEASE: deb12's is installed on the
    host with apt-get when /lib/modules/RELEASE/build is missing (as root,
    or through sudo); the others' in the Debian root of their distribution
    (scripts/debian-root.sh: bookworm for deb12-bpo, trixie, sid) with the
    compiler and kbuild the headers name, where the module is built as DKMS
    builds it on that system.
N (or V) is the newest the package lists know, or pinned: LTT_STOCK_ABI=N
for deb12 (6.1.0-N-amd64), LTT_KERNEL_ABI_<LINE>=V for the others (LINE in
upper case, '-' as '_'; e.g. LTT_KERNEL_ABI_DEB13_RT=6.12.107,
LTT_KERNEL_ABI_SID=7.2.13). A warm run prints DIR at once; on success the
last line of output is DIR:
  DIR/boot/vmlinuz-RELEASE      the kernel (bzImage) as Debian ships it
  DIR/boot/vmlinux-RELEASE      the same kernel decompressed (ELF; written
                                when the kernel has CONFIG_PVH), which QEMU
                                enters at its PVH entry point: the guest
                                skips decompressing vmlinuz under emulation
                                (10-15 s of every boot); what
                                scripts/qemu-run.sh --stock boots
  DIR/lib/modules/RELEASE       its modules, for qemu-run.sh --modules
and --headers prints the headers' directory, module/build.sh's KDIR:
/lib/modules/RELEASE/build for deb12, ROOT/usr/src/linux-headers-RELEASE
for the others. The two most recently used releases of each line
(LTT_STOCK_KEEP) stay in the cache; older ones are removed after an unpack.

Options:
  --line LINE   the kernel line (default deb12)
  --lines       print the five lines, one a line, and exit
  --download PACKAGE=VERSION DIR
                download that version of a package of bookworm-backports,
                trixie (with its updates and security suites) or sid into
                DIR (not installed) through the private apt configuration,
                unless DIR holds it already; print the .deb's path and
                exit. The package lists are refreshed first when they do
                not know that version
  --print-dir   print DIR if the image is unpacked and the headers are
                installed (exit 0), else exit 1, downloading nothing
  --release     print RELEASE and exit
  --headers     print the headers' directory if ready (exit 0), else exit 1
  --root        print the suite of the Debian root that builds the module
                (nothing for deb12: the host is Debian 12) and exit
  -h, --help    this text

Environment: LTT_CACHE (cache dir), LTT_STOCK_ABI and LTT_KERNEL_ABI_<LINE>
(pins), LTT_STOCK_KEEP, LTT_APT_MAX_AGE.
EOF
}

lines=(deb12 deb12-bpo deb13 deb13-rt sid)
line=deb12 print_dir=0 print_release=0 print_headers=0 print_root=0 download=
while (($#)); do
	case $1 in
	--line) line=${2:-}; shift ;;
	--download)
		(($# >= 3)) || { echo "stock-kernel.sh: --download needs PACKAGE=VERSION and DIR" >&2; exit 2; }
		download=$2 dldir=$3
		shift 2
		;;
	--lines) printf '%s\n' "${lines[@]}"; exit 0 ;;
	--print-dir) print_dir=1 ;;
	--release) print_release=1 ;;
	--headers) print_headers=1 ;;
	--root) print_root=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "stock-kernel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift || { echo "stock-kernel.sh: option needs an argument" >&2; exit 2; }
done

die() { echo "stock-kernel.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
cache=${LTT_CACHE:-$HOME/.cache/ltt}
stock=$cache/stock
keep=${LTT_STOCK_KEEP:-2}
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "LTT_STOCK_KEEP must be a number >= 1, not '$keep'"

# Per line: the root that builds for it (its suite),
# the image packages' names (an extended regex on the part after
# linux-image-, the version in the first group) and the pin variable.
case $line in
deb12) root='' re='6\.1\.0-([0-9]+)-amd64' pin=LTT_STOCK_ABI ;;
deb12-bpo) root=bookworm re='(6\.12\.[0-9]+)\+deb12-amd64' pin=LTT_KERNEL_ABI_DEB12_BPO ;;
deb13) root=trixie re='(6\.12\.[0-9]+)\+deb13-amd64' pin=LTT_KERNEL_ABI_DEB13 ;;
deb13-rt) root=trixie re='(6\.12\.[0-9]+)\+deb13-rt-amd64' pin=LTT_KERNEL_ABI_DEB13_RT ;;
sid) root=sid re='([0-9]+\.[0-9]+\.[0-9]+)\+deb[0-9]+-amd64' pin=LTT_KERNEL_ABI_SID ;;
*) die "unknown kernel line '$line' (one of: ${lines[*]})" ;;
esac
if ((print_root)); then
	[[ -z $root ]] || echo "$root"
	exit 0
fi

# The private apt configuration for the suites the host's apt does not name.
apt=$cache/apt/kernels
aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
	-o "Dir::Cache=$apt/cache" -o "Dir::Cache::Archives=$apt/archives"
	-o Acquire::Languages=none -o APT::Architecture=amd64 -o APT::Sandbox::User=root
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false)
# apt_lists: make the private lists (refreshed when older than
# LTT_APT_MAX_AGE hours).
apt_lists() {
	local age=${LTT_APT_MAX_AGE:-24} stamp=$apt/lists/.ltt-updated
	[[ $age =~ ^[0-9]+$ ]] || die "LTT_APT_MAX_AGE must be a number of hours, not '$age'"
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/cache"
	exec 8>"$apt/.lock"
	flock 8
	local want m=${LTT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	local sec=${LTT_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
	local sig="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	# trixie's kernel updates come through its security and updates suites
	# too; bookworm-backports and sid have none.
	want=$(printf 'deb %s %s main\n' "$sig $m" bookworm-backports "$sig $m" trixie "$sig $m" trixie-updates \
		"$sig $sec" trixie-security "$sig $m" sid)
	if [[ ! -f $stamp || -n $(find "$stamp" -mmin +$((age * 60)) 2>/dev/null) ]] ||
		[[ $want != "$(cat "$apt/sources.list" 2>/dev/null)" ]]; then
		: >"$apt/status"
		echo "$want" >"$apt/sources.list"
		# apt fetches as the user _apt when it runs as root.
		chown -R _apt "$apt/lists" "$apt/archives" 2>/dev/null || true
		echo "stock-kernel.sh: refreshing the package lists of bookworm-backports, trixie (with its updates and security suites) and sid (private apt in $apt)" >&2
		apt-get -q "${aptopts[@]}" update >&2 || die "apt-get update (private configuration $apt) failed"
		touch "$stamp"
	fi
	flock -u 8
}
# download_deb PACKAGE=VERSION DIR: the --download option.
download_deb() {
	local pkg=${1%%=*} ver=${1#*=} dir=$2 f
	[[ $1 == *=* && $pkg =~ ^[a-z0-9][a-z0-9.+-]+$ && $ver =~ ^[0-9A-Za-z.+:~-]+$ ]] ||
		die "--download takes PACKAGE=VERSION (like lttng-modules-dkms=2.13.18-1+deb13u1), not '$1'"
	[[ -n $dir ]] || die "--download needs a directory after PACKAGE=VERSION"
	mkdir -p "$dir" || die "cannot make $dir"
	dir=$(cd "$dir" && pwd)
	# apt-get download names the file PACKAGE_VERSION_ARCH.deb, with the
	# epoch's ':' as %3a.
	f=$(compgen -G "$dir/${pkg}_${ver//:/%3a}_*.deb" | head -n 1) || true
	if [[ -z $f ]]; then
		if [[ ! -f $apt/lists/.ltt-updated ]] || ! apt-cache "${aptopts[@]}" show "$pkg=$ver" >/dev/null 2>&1; then
			LTT_APT_MAX_AGE=0 apt_lists
			apt-cache "${aptopts[@]}" show "$pkg=$ver" >/dev/null 2>&1 ||
				die "the package lists of bookworm-backports, trixie and sid know no $pkg $ver"
		fi
		echo "stock-kernel.sh: downloading $pkg $ver into $dir (not installed)" >&2
		(cd "$dir" && apt-get download -q "${aptopts[@]}" "$pkg=$ver" >&2) ||
			die "apt-get download $pkg=$ver failed"
		f=$(compgen -G "$dir/${pkg}_${ver//:/%3a}_*.deb" | head -n 1) ||
			die "apt-get download $pkg=$ver left no .deb in $dir"
	fi
	echo "$f"
}
if [[ -n $download ]]; then
	download_deb "$download" "$dldir"
	exit 0
fi
# versions: the versions of the line's image packages the lists know.
versions() {
	if [[ $line == deb12 ]]; then
		apt-cache search --names-only "^linux-image-$re\$" 2>/dev/null | cut -d' ' -f1
	else
		apt-cache "${aptopts[@]}" pkgnames linux-image- 2>/dev/null
	fi | sed -En "s/^linux-image-$re\$/\\1/p" | sort -V
}

abi=${!pin:-}
if [[ -n $abi ]]; then
	[[ $abi =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "$pin must be a version (the N of the release), not '$abi'"
	[[ $line == deb12 || -f $apt/lists/.ltt-updated ]] || apt_lists
else
	[[ $line == deb12 ]] || apt_lists
	abi=$(versions | tail -n 1)
	if [[ -z $abi ]]; then
		abi=$(find "$stock" -maxdepth 2 -name .ltt-unpacked 2>/dev/null | sed 's|/\.ltt-unpacked$||;s|.*/||' |
			sed -En "s/^$re\$/\\1/p" | sort -V | tail -n 1)
		[[ -n $abi ]] || die "the package lists know no linux-image package of line $line (run apt-get update, or set $pin)"
		echo "stock-kernel.sh: the package lists know no image package of line $line; using the cached version $abi" >&2
	fi
fi
# RELEASE: the regex with its group replaced by the version.
if [[ $line == sid ]]; then
	release=$(apt-cache "${aptopts[@]}" pkgnames "linux-image-$abi+" 2>/dev/null |
		sed -En "s/^linux-image-($re)\$/\\1/p" | head -n 1)
	[[ -n $release ]] || release=$(find "$stock" -maxdepth 1 -name "$abi+deb*-amd64" -printf '%f\n' 2>/dev/null | head -n 1)
	[[ -n $release ]] || die "no linux-image-$abi+debN-amd64 package known"
else
	release=$(sed -E 's/\\//g' <<<"$re" | sed -E "s/\\([^)]*\\)/$abi/")
fi
dir=$stock/$release
if [[ -z $root ]]; then
	headers=/lib/modules/$release/build
else
	headers=$cache/roots/$root/usr/src/linux-headers-$release
fi

if ((print_release)); then
	echo "$release"
	exit 0
fi

ready() { [[ -f $dir/.ltt-unpacked && -f $headers/Makefile ]]; }

if ((print_headers)); then
	[[ -f $headers/Makefile ]] || exit 1
	echo "$headers"
	exit 0
fi
if ((print_dir)); then
	if ready; then
		touch "$dir" # most recently used
		echo "$dir"
		exit 0
	fi
	echo "stock-kernel.sh: the stock kernel $release is not ready (image unpacked: $([[ -f $dir/.ltt-unpacked ]] && echo yes || echo no), headers: $([[ -f $headers/Makefile ]] && echo yes || echo no)); run scripts/stock-kernel.sh${line:+ --line $line} first" >&2
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
# Serialize concurrent callers for one release (several suites and make
# targets may ask).
exec 9>"$stock/.lock${root:+.$release}"
flock 9
sudo=
if [[ $(id -u) != 0 ]] && command -v sudo >/dev/null; then sudo=sudo; fi
if [[ ! -f $dir/.ltt-unpacked ]]; then
	tmp=$(mktemp -d "$stock/.unpack.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The packages stay in DEBS (removed with their release): an unpack
	# that did not finish needs no second download. apt-get download
	# fetches as the user _apt when it runs as root: DEBS must be a
	# directory that user can write (the cache may sit in a home directory
	# only its owner can enter: apt is told to fetch as root then).
	debs=$stock/debs
	mkdir -p "$debs"
	chown _apt "$debs" 2>/dev/null || true
	getdeb() { # PACKAGE: download it into DEBS unless it is there
		[[ -n $(find "$debs" -maxdepth 1 -name "${1}_*.deb" -print -quit) ]] && return 0
		echo "stock-kernel.sh: downloading $1 (not installed)" >&2
		if [[ -z $root ]]; then
			(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "$1" >&2)
		else
			(cd "$debs" && apt-get download -q "${aptopts[@]}" "$1" >&2)
		fi
	}
	getdeb "linux-image-$release" || die "apt-get download linux-image-$release failed (run apt-get update?)"
	deb=$(find "$debs" -maxdepth 1 -name "linux-image-${release}_*.deb" | head -n 1)
	[[ -n $deb ]] || die "apt-get download left no linux-image-$release .deb"
	# Newer kernels split the image package: the kernel in
	# linux-binary-RELEASE, the modules in linux-modules-RELEASE, the
	# config and System.map in linux-base-RELEASE, all of them named in
	# linux-image-RELEASE's Depends and unpacked together here.
	pkgs=("$deb")
	for p in $(dpkg-deb -f "$deb" Depends | tr -s ',|' '\n' | sed -nE "s/^ *(linux-[a-z-]+-${release//+/\\+})( .*)?$/\1/p"); do
		getdeb "$p" || die "apt-get download $p failed"
		pkgs+=("$(find "$debs" -maxdepth 1 -name "${p}_*.deb" | head -n 1)")
	done
	for p in "${pkgs[@]}"; do
		echo "stock-kernel.sh: unpacking $(basename "$p") into $dir" >&2
		dpkg-deb -x "$p" "$tmp/root" || die "dpkg-deb -x $p failed"
	done
	# Newer packages keep the kernel and its config in the modules
	# directory under /usr (usr/lib/modules/RELEASE/vmlinuz, .../config):
	# the harness reads them from boot/ as older ones install them.
	m=$tmp/root/usr/lib/modules/$release
	[[ ! -f $tmp/root/boot/vmlinuz-$release && -f $m/vmlinuz ]] &&
		install -D -m 644 "$m/vmlinuz" "$tmp/root/boot/vmlinuz-$release"
	[[ ! -f $tmp/root/boot/config-$release && -f $m/config ]] &&
		install -D -m 644 "$m/config" "$tmp/root/boot/config-$release"
	[[ -f $tmp/root/boot/vmlinuz-$release ]] || die "the package has no boot/vmlinuz-$release"
	[[ -d $tmp/root/lib/modules/$release || -d $tmp/root/usr/lib/modules/$release ]] ||
		die "the package has no lib/modules/$release"
	# Newer packages install the modules under /usr (merged /usr): keep
	# the layout the harness reads, DIR/lib/modules/RELEASE.
	if [[ ! -d $tmp/root/lib/modules/$release ]]; then
		mkdir -p "$tmp/root/lib/modules"
		mv "$tmp/root/usr/lib/modules/$release" "$tmp/root/lib/modules/"
	fi
	# The package leaves modules.dep to the installation (depmod in its
	# postinst): write it for this unpacked tree.
	depmod -b "$tmp/root" "$release" || die "depmod -b failed"
	extract_vmlinux "$tmp/root/boot/vmlinuz-$release" "$tmp/root/boot/vmlinux-$release"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	touch "$dir/.ltt-unpacked"
	rm -rf "$tmp"
	trap - EXIT

	# Keep the LTT_STOCK_KEEP most recently used releases of this line
	# (DIR/.ltt-line names it; deb12's releases unpacked before lines
	# existed have no such file and are told by their name).
	echo "$line" >"$dir/.ltt-line"
	mapfile -t old < <(find "$stock" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
		sort -rn | cut -d' ' -f2- | while read -r d; do
			if [[ -f $d/.ltt-line ]]; then
				[[ $(cat "$d/.ltt-line") == "$line" ]] && echo "$d"
			elif [[ $line == deb12 && $(basename "$d") =~ ^$re$ ]]; then
				echo "$d"
			fi
		done | tail -n +$((keep + 1)))
	for d in "${old[@]}"; do
		[[ $d == "$dir" ]] && continue
		echo "stock-kernel.sh: removing the older stock kernel $d" >&2
		rm -rf "$d"
		rm -f "$debs"/*"-$(basename "$d")_"*.deb
	done
fi
if [[ ! -f $headers/Makefile && -z $root ]]; then
	[[ $(id -u) == 0 || -n $sudo ]] || die "need root (or sudo) to install linux-headers-$release"
	echo "stock-kernel.sh: installing linux-headers-$release" >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
		"linux-headers-$release" >&2 || die "apt-get install linux-headers-$release failed"
	[[ -f $headers/Makefile ]] || die "linux-headers-$release is installed but $headers/Makefile is missing"
elif [[ ! -f $headers/Makefile ]]; then
	echo "stock-kernel.sh: installing linux-headers-$release in the $root root" >&2
	"$here/debian-root.sh" --install "linux-headers-$release" "$root" >/dev/null ||
		die "installing linux-headers-$release in the $root root failed"
	[[ -f $headers/Makefile ]] || die "linux-headers-$release is installed but $headers/Makefile is missing"
fi
echo "stock kernel $release is ready"
echo "$dir"
