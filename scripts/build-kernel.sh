#!/usr/bin/env bash
# Build the ltt-patched Linux 6.12 kernel for the QEMU guest, cached outside
# the repository. See --help.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/build-kernel.sh [VARIANT] [--print-dir] [-j N] [-v]

Unpacks Debian's linux-source-6.12 tarball, applies kernel-patches/series,
configures it for the QEMU guest (make tinyconfig + kernel-patches/config/
guest.config) and builds bzImage and modules in a build directory (KDIR)
that out-of-tree modules build against:  make -C "$KDIR" M=$PWD modules
The result is cached in ${LTT_CACHE:-$HOME/.cache/ltt}/linux-6.12, keyed by
a hash of the tarball, the series, the patches' diffs, the config fragments
and this script; a warm run prints the path at once. The last line of
output is always KDIR.

VARIANT (one of):
  (none)      CONFIG_LTT=y
  --debug     + kernel-patches/config/debug.config: PROVE_LOCKING, PROVE_RCU,
              DEBUG_ATOMIC_SLEEP, KASAN, DEBUG_ENTRY (objtool noinstr checks)
  --no-ltt    the patched tree with CONFIG_LTT=n
  --vanilla   the unpatched tree, same config (for make bench-kernel)

Options:
  --print-dir   print KDIR if that variant is built (exit 0), else exit 1
                without building. KDIR/arch/x86/boot/bzImage is the kernel.
  -j N          parallel jobs (default: $LTT_JOBS or 2)
  -v            stream the build output (default: log to KDIR/build.log)

The source: Debian's linux-source-6.12 package (version
LTT_KERNEL_SOURCE_6_12, default 6.12.118-1, from trixie-security), fetched
once with apt-get download through the private apt configuration of
scripts/stock-kernel.sh (the host's apt sources are not touched); only its
tarball is kept, in LTT_CACHE/source/VERSION/.

Environment: LTT_CACHE (cache dir), LTT_KERNEL_SOURCE_6_12,
LTT_KERNEL_TARBALL (a linux-source-6.12 tarball to use instead of the
download), LTT_JOBS. ccache is used when installed.
EOF
# >>> not in the cache key
	cat <<'EOF'

One more VARIANT:
  --peers     + kernel-patches/config/peers.config: what LTTng 2.13's
              modules and tools need besides CONFIG_LTT=y (for make
              bench-peers: ltt, ftrace and LTTng in one kernel)

  --print-source
              print the source tarball, fetching it first if needed, and
              exit

After a build, source trees (with their builds, ~2 GB each) other than the
LTT_CACHE_KEEP (default 2) most recently used of each kind (patched,
vanilla) are removed from the cache.

LTT_KERNEL_CCACHE=0 compiles without ccache (make demo's first build on a
machine without the packages: ccache has nothing to hit there yet, and
filling its cache costs that build CPU time it does not get back).
EOF
# <<<
}

repo=$(cd "$(dirname "$0")/.." && pwd)
self=$repo/scripts/build-kernel.sh
# >>> not in the cache key
# The key hashes this script without its blocks marked "not in the cache
# key": they only manage the cache and do not change what is built.
self=$(mktemp "${TMPDIR:-/tmp}/build-kernel-key.XXXXXX")
trap 'rm -f "$self"' EXIT
sed '/^# >>> not in the cache key/,/^# <<<$/d' "$repo/scripts/build-kernel.sh" >"$self"
# <<<
cache=${LTT_CACHE:-$HOME/.cache/ltt}
# Source tarballs and the private apt lists are shared with the other
# scripts; trees, builds, the build lock and ccache live under linux-6.12.
topcache=$cache cache=$cache/linux-6.12
tarball=${LTT_KERNEL_TARBALL:-}
jobs=${LTT_JOBS:-2}
variant=ltt print_dir=0 verbose=0 flag= print_source=0

while (($#)); do
	case $1 in
	--debug) variant=debug flag=$1 ;;
	--no-ltt) variant=noltt flag=$1 ;;
	--vanilla) variant=vanilla flag=$1 ;;
# >>> not in the cache key
	# Outside the key (like the fragment selection below): the peers
	# variant's build key hashes its variant name and its own fragment,
	# and this line changes nothing the other variants build.
	--peers) variant=peers flag=$1 ;;
	--print-source) print_source=1 ;;
# <<<
	--print-dir) print_dir=1 ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	-v) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "build-kernel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "build-kernel.sh: $*" >&2; exit 1; }

# >>> not in the cache key
[[ ${LTT_KERNEL_CCACHE:-1} =~ ^[01]$ ]] || die "LTT_KERNEL_CCACHE is 0 or 1, not '$LTT_KERNEL_CCACHE'"
# <<<
pdir=$repo/kernel-patches
cfgdir=$pdir/config
# >>> not in the cache key
# fetch_source: set tarball to Debian's linux-source-6.12 tarball in the
# cache, downloading the package first (scripts/stock-kernel.sh --download:
# apt-get download with the private apt configuration it keeps in the
# cache, whose lists it refreshes when they do not know this version; the
# host's apt sources are never touched; apt checks the package against the
# signed lists). Only the tarball is kept.
fetch_source() {
	local ver=${LTT_KERNEL_SOURCE_6_12:-6.12.118-1} dir tmp deb
	[[ $ver =~ ^6\.12\.[0-9]+-[0-9A-Za-z.+~]+$ ]] ||
		die "LTT_KERNEL_SOURCE_6_12 must be a Debian version of linux-source-6.12 (like 6.12.118-1), not '$ver'"
	dir=$topcache/source/$ver
	tarball=$dir/linux-source-6.12.tar.xz
	[[ -f $tarball ]] && return
	# --print-dir never downloads: without the source nothing is built.
	((print_dir == 0)) || die "the $variant kernel is not built (no source yet); run scripts/build-kernel.sh${flag:+ $flag} first"
	mkdir -p "$topcache/source"
	exec 7>"$topcache/source/.lock"
	flock 7
	if [[ ! -f $tarball ]]; then
		tmp=$(mktemp -d "$topcache/source/.fetch.XXXXXX")
		echo "build-kernel.sh: downloading linux-source-6.12 $ver (about 150 MB)" >&2
		deb=$("$repo/scripts/stock-kernel.sh" --download "linux-source-6.12=$ver" "$tmp") ||
			{ rm -rf "$tmp"; die "cannot download linux-source-6.12 $ver (set LTT_KERNEL_SOURCE_6_12 to a version trixie or trixie-security has)"; }
		dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.12.tar.xz >"$tmp/linux-source-6.12.tar.xz" ||
			{ rm -rf "$tmp"; die "no usr/src/linux-source-6.12.tar.xz in ${deb##*/}"; }
		mkdir -p "$dir"
		mv "$tmp/linux-source-6.12.tar.xz" "$tarball"
		rm -rf "$tmp"
	fi
	flock -u 7
}
if [[ -z $tarball ]]; then
	fetch_source
elif [[ ! -f $tarball ]]; then
	die "LTT_KERNEL_TARBALL: no file $tarball (a linux-source-6.12 tarball)"
fi
if ((print_source)); then
	echo "$tarball"
	exit 0
fi
# <<<
[[ -f $pdir/series ]] || die "no $pdir/series"
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/series")

# Source key: the tarball's identity, the series and its patches, this
# script. The vanilla tree ignores the patches.
hash_files() { sha256sum "$@" | sha256sum | cut -c1-12; }
tarball_id=$(stat -c '%n %s' "$tarball" 2>/dev/null) || die "no kernel tarball $tarball"
if [[ $variant == vanilla ]]; then
	src_key=vanilla-$(printf '%s\n' "$tarball_id" | cat - "$self" | sha256sum | cut -c1-12)
else
	# Only the diffs count: rewording a description rebuilds nothing.
	src_key=$(cd "$pdir" && { printf '%s\n' "$tarball_id"; cat series; for p in "${patches[@]}"; do
		sed -n '/^diff --git /,/^-- $/p' "$p"; done; cat "$self"; } | sha256sum | cut -c1-12)
fi
frags=("$cfgdir/guest.config")
[[ $variant == debug ]] && frags+=("$cfgdir/debug.config")
# >>> not in the cache key
# The peers fragment enters the peers build key through the fragment list
# (its content) and the variant name; no other variant reaches this line.
[[ $variant == peers ]] && frags+=("$cfgdir/peers.config")
# Likewise the fragment without ACPI for the kernels that take it.
case $variant in ltt | noltt | vanilla) frags+=("$cfgdir/noacpi.config") ;; esac
# <<<
build_key=$(printf '%s %s\n' "$src_key" "$variant" | cat - "${frags[@]}" | sha256sum | cut -c1-12)
srcdir=$cache/src-$src_key
# The build dir sits directly inside the source tree so that Kbuild uses
# relative paths (srctree := ..): ccache then hits across source trees.
kdir=$srcdir/build-$variant-$build_key

if ((print_dir)); then
	if [[ -f $kdir/.ltt-built ]]; then
# >>> not in the cache key
		touch "$srcdir" # most recently used: see step 4
# <<<
		echo "$kdir"
		exit 0
	fi
	echo "build-kernel.sh: the $variant kernel is not built; run scripts/build-kernel.sh${flag:+ $flag} first" >&2
	exit 1
fi

mkdir -p "$cache"
if [[ -f $kdir/.ltt-built ]]; then
# >>> not in the cache key
	touch "$srcdir"
# <<<
	echo "kernel ($variant) is up to date"
	echo "$kdir"
	exit 0
fi

# Serialize concurrent builders of the same cache (several engineers and
# make targets may ask at once).
exec 9>"$cache/.build.lock"
flock 9
if [[ -f $kdir/.ltt-built ]]; then # built by whoever held the lock
	echo "kernel ($variant) is up to date"
	echo "$kdir"
	exit 0
fi

make_env=()
if command -v ccache >/dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache}
	export CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	make_env=(CC="ccache gcc")
fi
# >>> not in the cache key
[[ ${LTT_KERNEL_CCACHE:-1} == 1 ]] || make_env=()
# <<<

# 1. Pristine unpack plus the series.
if [[ ! -f $srcdir/.ltt-ready ]]; then
	echo "unpacking $tarball into $srcdir"
	rm -rf "$srcdir" "$srcdir.tmp"
	mkdir -p "$srcdir.tmp"
	tar -C "$srcdir.tmp" --strip-components=1 -xf "$tarball"
	if [[ $variant != vanilla ]]; then
		for p in "${patches[@]}"; do
			echo "applying $p"
			patch -d "$srcdir.tmp" -p1 -s --fuzz=0 --no-backup-if-mismatch -i "$pdir/$p" ||
				die "$p does not apply"
		done
	fi
	touch "$srcdir.tmp/.ltt-ready"
	mv "$srcdir.tmp" "$srcdir"
fi

# 2. Configure: tinyconfig, then the fragments, then verify every option.
mkdir -p "$kdir"
log=$kdir/build.log
: >"$log"
run() {
	if ((verbose)); then
		"$@" 2>&1 | tee -a "$log"
		return "${PIPESTATUS[0]}"
	fi
	"$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; return 1; }
}
mk() { run make -C "$srcdir" O="$kdir" "${make_env[@]}" "$@"; }

echo "configuring $variant kernel in $kdir (log: $log)"
frag_all=$kdir/ltt-fragment.config
cat "${frags[@]}" >"$frag_all"
case $variant in
noltt) sed -i 's/^CONFIG_LTT=y$/# CONFIG_LTT is not set/' "$frag_all" ;;
vanilla) sed -i '/^CONFIG_LTT=/d' "$frag_all" ;;
esac
# >>> not in the cache key
# A later fragment may set an option an earlier one set (noacpi.config
# turns ACPI off): keep each option's last line only, the value
# merge_config.sh applies anyway, so that the check below asks for it.
tac "$frag_all" | awk '{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o) }
	o !~ /^CONFIG_/ || !seen[o]++' | tac >"$frag_all.tmp" && mv "$frag_all.tmp" "$frag_all"
# <<<
mk tinyconfig || die "tinyconfig failed"
run "$srcdir/scripts/kconfig/merge_config.sh" -m -O "$kdir" "$kdir/.config" "$frag_all" ||
	die "merge_config failed"
mk olddefconfig || die "olddefconfig failed"
bad=0
while read -r line; do
	case $line in
	'# CONFIG_'*' is not set')
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$kdir/.config" && { echo "config: $opt is set, want it unset" >&2; bad=1; } ;;
	CONFIG_*)
		grep -qxF -- "$line" "$kdir/.config" || { echo "config: want $line, got: $(grep "^${line%%=*}=\|${line%%=*} is not set" "$kdir/.config" || echo missing)" >&2; bad=1; } ;;
	esac
done <"$frag_all"
((bad == 0)) || die "config fragment not satisfied (see above)"

# 3. Build vmlinux, bzImage, modules and Module.symvers (what M= needs).
echo "building $variant kernel with -j$jobs (log: $log)"
start=$(date +%s)
mk -j"$jobs" all || die "kernel build failed (log: $log)"
[[ -f $kdir/arch/x86/boot/bzImage ]] || die "no bzImage after the build"
echo "built in $(($(date +%s) - start)) s"
touch "$kdir/.ltt-built"
# >>> not in the cache key

# 4. Keep the cache bounded: each source tree with its builds is ~2 GB.
# Drop all but the LTT_CACHE_KEEP most recently used trees of this kind
# (their directory mtime is touched whenever a kernel of theirs is asked for).
touch "$srcdir"
keep=${LTT_CACHE_KEEP:-2}
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "LTT_CACHE_KEEP must be a positive number, not '$keep'"
if [[ $variant == vanilla ]]; then pattern='src-vanilla-*'; else pattern='src-[0-9a-f]*'; fi
n=0
tree_dir=${srcdir%/*} # $cache: LTT_CACHE/linux-6.12
# shellcheck disable=SC2012,SC2086 # ls -t: newest first; $pattern is a glob
while read -r old; do
	[[ $old == "$srcdir" || $old == *.tmp ]] && continue
	((++n < keep)) && continue
	echo "pruning the unused kernel tree $old"
	rm -rf "$old"
done < <(cd "$tree_dir" && ls -1dt -- $pattern 2>/dev/null | sed "s|^|$tree_dir/|")
# <<<
echo "$kdir"
