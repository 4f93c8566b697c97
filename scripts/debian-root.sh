#!/usr/bin/env bash
# A minimal Debian root per suite (debootstrap), cached, in which modules are
# built the way DKMS builds them on that system. See --help.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/debian-root.sh [options] SUITE [-- COMMAND...]

Makes DIR = ${LTT_CACHE:-$HOME/.cache/ltt}/roots/SUITE, a minimal Debian
root of SUITE (bookworm, trixie or sid) made with debootstrap from
http://deb.debian.org/debian (signed by Debian's archive keyring), with that
distribution's compiler, make, kmod and dkms inside. The host's apt sources
are never touched: the suites are named only inside the root (bookworm's
root also names bookworm-backports). A warm run downloads nothing.

With COMMAND, runs it in the root (chroot, in a private mount namespace
with /proc, /sys and /dev mounted, so nothing stays mounted afterwards).

Concurrent callers are serialized by DIR.lock: creating the root and any
--install or --update holds it exclusively, a COMMAND shares it (several
builds may run at once, none while apt writes the root).

Options:
  --install PKG   install PKG in the root (apt-get, no recommends) unless it
                  is installed already; repeatable
  --update        refresh the root's package lists (apt-get update)
  --bind HOST:DIR bind-mount the host directory HOST at DIR in the root for
                  COMMAND; repeatable
  --overlay       run COMMAND on an overlay of the root whose changes are
                  discarded afterwards (e.g. to install packages under
                  test); packages apt downloads still land in the root's
                  /var/cache/apt/archives
  --print-dir     print DIR if the root is ready (exit 0), else exit 1
  -h, --help      this text

Environment: LTT_CACHE (cache dir), LTT_DEBIAN_MIRROR (default
http://deb.debian.org/debian).
EOF
}

die() { echo "debian-root.sh: $*" >&2; exit 1; }
suite="" print_dir=0 update=0 overlay=0 installs=() binds=() cmd=()
while (($#)); do
	case $1 in
	--install) installs+=("$2"); shift ;;
	--update) update=1 ;;
	--bind) binds+=("$2"); shift ;;
	--overlay) overlay=1 ;;
	--print-dir) print_dir=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; cmd=("$@"); break ;;
	-*) echo "debian-root.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) [[ -z $suite ]] || die "one SUITE only ('$suite', '$1')"; suite=$1 ;;
	esac
	shift || die "option needs an argument"
done
case $suite in
bookworm | trixie | sid) ;;
'') die "no SUITE given (see --help)" ;;
*) die "unknown suite '$suite' (bookworm, trixie or sid)" ;;
esac

cache=${LTT_CACHE:-$HOME/.cache/ltt}
roots=$cache/roots
dir=$roots/$suite
mirror=${LTT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

if ((print_dir)); then
	[[ -f $dir/.ltt-ready ]] || exit 1
	echo "$dir"
	exit 0
fi

mkdir -p "$roots"
exec 9>"$dir.lock"

# sources: the root's sources.list: the suite with its updates and
# security suites, as an installed system of that release has them (a
# kernel update often comes through the security suite), and for bookworm
# the backports suite (Debian 12's 6.12 kernels).
sources() {
	local sig="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	echo "deb $sig $mirror $suite main"
	[[ $suite == sid ]] && return
	echo "deb $sig $mirror $suite-updates main"
	echo "deb $sig ${LTT_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} $suite-security main"
	[[ $suite == bookworm ]] && echo "deb $sig $mirror bookworm-backports main"
	return 0
}

# in_root [BIND...] -- COMMAND: run COMMAND in the root, in a mount
# namespace of its own (the mounts vanish with it); with overlay=1 on an
# overlay whose upper layer is a temporary directory.
in_root() {
	local b=() ov=
	while [[ $1 != -- ]]; do b+=("$1"); shift; done
	shift
	if ((overlay)); then
		ov=$(mktemp -d "$roots/.overlay.XXXXXX")
		# shellcheck disable=SC2064 # the directory now
		trap "rm -rf '$ov'" EXIT
	fi
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private bash -c '
		set -e
		root=$1 ov=$2; shift 2
		if [[ -n $ov ]]; then
			mkdir -p "$ov/upper" "$ov/work" "$ov/merged"
			mount -t overlay overlay -o "lowerdir=$root,upperdir=$ov/upper,workdir=$ov/work" "$ov/merged"
			mount --bind "$root/var/cache/apt/archives" "$ov/merged/var/cache/apt/archives"
			root=$ov/merged
		fi
		mount -t proc proc "$root/proc"
		mount -t sysfs sys "$root/sys"
		mount --rbind /dev "$root/dev"
		while [[ $1 != -- ]]; do
			mkdir -p "$root${1#*:}"
			mount --bind "${1%%:*}" "$root${1#*:}"
			shift
		done
		shift
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive ${CI:+CI=$CI} "$@"
	' in_root "$dir" "$ov" "${b[@]}" -- "$@"
}

if [[ ! -f $dir/.ltt-ready ]]; then
	flock 9
	if [[ ! -f $dir/.ltt-ready ]]; then
		command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh)"
		[[ $(id -u) == 0 ]] || die "debootstrap needs root"
		mkdir -p "$cache/apt/debootstrap-cache"
	fi
	# A debootstrap that finished before its root was moved in place (an
	# interrupted run) is taken as it is.
	if [[ ! -d $dir && -d $dir.tmp ]] && grep -q 'Base system installed successfully' "$dir.log" 2>/dev/null; then
		mv "$dir.tmp" "$dir"
	fi
	if [[ ! -d $dir ]]; then
		echo "debian-root.sh: debootstrap $suite into $dir (about 150 MB, once)" >&2
		rm -rf "$dir.tmp"
		debootstrap --variant=minbase --keyring="$keyring" \
			--cache-dir="$cache/apt/debootstrap-cache" \
			--include=gcc,make,kmod,libc6-dev,ca-certificates,xz-utils,zstd,python3 \
			"$suite" "$dir.tmp" "$mirror" >"$dir.log" 2>&1 ||
			die "debootstrap $suite failed (log: $dir.log)"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	if [[ ! -f $dir/.ltt-ready ]]; then
		sources >"$dir/etc/apt/sources.list"
		[[ -f $dir/usr/share/keyrings/debian-archive-keyring.gpg ]] ||
			install -D -m 644 "$keyring" "$dir/usr/share/keyrings/debian-archive-keyring.gpg"
		# Keep downloaded packages (a rebuilt root reuses nothing, a warm
		# one downloads nothing).
		echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' >"$dir/etc/apt/apt.conf.d/10ltt-keep"
		# The host's policy on Release files past their Valid-Until (a
		# machine that reads a frozen snapshot of the archive turns the
		# check off): the root's apt follows it.
		apt-config dump 2>/dev/null | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
			>"$dir/etc/apt/apt.conf.d/10ltt-host-policy" || true
		in_root -- apt-get -qq update >&2 || die "apt-get update in the $suite root failed"
		in_root -- apt-get -qq install -y --no-install-recommends dkms >&2 ||
			die "installing dkms in the $suite root failed"
		touch "$dir/.ltt-ready"
	fi
	flock -u 9
fi

# A root made with other sources (an older version of this script) gets
# the current ones and fresh lists.
if ! cmp -s <(sources) "$dir/etc/apt/sources.list"; then
	flock 9
	sources >"$dir/etc/apt/sources.list"
	update=1
	flock -u 9
fi
if ((update)); then
	flock 9
	in_root -- apt-get -qq update >&2 || die "apt-get update in the $suite root failed"
	flock -u 9
fi

want=()
for p in "${installs[@]}"; do
	# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
	[[ $(chroot "$dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || want+=("$p")
done
if ((${#want[@]})); then
	flock 9
	echo "debian-root.sh: installing ${want[*]} in the $suite root" >&2
	if ! in_root -- apt-get -qq install -y --no-install-recommends "${want[@]}" >&2; then
		# The lists may predate the package: refresh them once.
		if ! in_root -- apt-get -qq update >&2 ||
			! in_root -- apt-get -qq install -y --no-install-recommends "${want[@]}" >&2; then
			die "apt-get install ${want[*]} in the $suite root failed"
		fi
	fi
	flock -u 9
fi

if ((${#cmd[@]})); then
	flock -s 9
	bargs=()
	for b in "${binds[@]}"; do
		[[ $b == /*:/* ]] || die "--bind wants HOST:DIR, absolute paths, not '$b'"
		bargs+=("$b")
	done
	in_root "${bargs[@]}" -- "${cmd[@]}"
	exit
fi
echo "$dir"
