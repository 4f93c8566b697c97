# shellcheck shell=bash disable=SC2154,SC2034 # cache and die come from the caller, which uses vm_qemu, ltt_clock and lttng_adds
# Sourced by scripts/bench-peers.sh and scripts/bench-user.sh: Debian's
# LTTng 2.13 packages downloaded (not installed) into a cache and staged for
# the busybox guest, and babeltrace2 unpacked for the host; the QEMU
# settings of the two timing modes. The caller defines die MESSAGE and
# cache (the cache directory).

# deb_fetch PACKAGE...: download each package's candidate version into
# $cache/debs (once) and print the .deb paths, in order. One apt-cache
# call for all: each takes seconds.
deb_fetch() {
	local -A ver=()
	local p v f
	mkdir -p "$cache/debs"
	while read -r p v; do ver[$p]=$v; done < <(apt-cache show --no-all-versions "$@" 2>/dev/null |
		awk '/^Package: / { p = $2 } /^Version: / { print p, $2 }')
	for p; do
		v=${ver[$p]:-}
		[[ -n $v ]] || die "apt-cache knows no package $p"
		f=$(compgen -G "$cache/debs/${p}_${v//:/%3a}_*.deb" | head -n 1) || true
		if [[ -z $f ]]; then
			(cd "$cache/debs" && apt-get -q -o APT::Sandbox::User=root download "$p=$v" >&2) ||
				die "apt-get download $p=$v failed"
			f=$(compgen -G "$cache/debs/${p}_${v//:/%3a}_*.deb" | head -n 1) || die "no .deb for $p $v"
		fi
		echo "$f"
	done
}

# unpack DIR DEB...: a fresh DIR holding the files of the DEBs.
unpack() {
	local dir=$1 d
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	for d; do dpkg -x "$d" "$dir" || die "dpkg -x $d failed"; done
}

# lttng-tools and its libraries (the ldd closure of lttng, lttng-sessiond
# and lttng-consumerd: Debian's packages for the LTTng ones, the host's
# copies of the others, which are the same Debian release), the dynamic
# loader, in a tree laid out as in the guest.
stage_lttng_tools() {
	local debs=() d ver key dir tmp lib bin
	mapfile -t debs < <(deb_fetch lttng-tools liblttng-ctl0 liblttng-ust-common1 liblttng-ust-ctl5 liburcu8)
	ver=$(for d in "${debs[@]}"; do basename "$d"; done)
	key=$(printf '%s\n' "$ver" | sha256sum | cut -c1-12)
	dir=$cache/lttng-tools-$key
	if [[ ! -f $dir/.staged ]]; then
		echo "staging lttng-tools for the guest" >&2
		rm -rf "$dir" "$dir.tmp"
		tmp=$dir.tmp
		unpack "$tmp/deb" "${debs[@]}"
		lib=$tmp/root/usr/lib/x86_64-linux-gnu
		mkdir -p "$tmp/root/usr/bin" "$lib/lttng/libexec" "$tmp/root/lib64"
		cp -L "$tmp/deb/usr/bin/lttng" "$tmp/deb/usr/bin/lttng-sessiond" "$tmp/root/usr/bin/"
		cp -L "$tmp/deb/usr/lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd" "$lib/lttng/libexec/"
		for bin in "$tmp/root/usr/bin/lttng" "$tmp/root/usr/bin/lttng-sessiond" "$lib/lttng/libexec/lttng-consumerd"; do
			LD_LIBRARY_PATH=$tmp/deb/usr/lib/x86_64-linux-gnu ldd "$bin" |
				awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
		done | sort -u | while read -r name path; do
			cp -L "$path" "$lib/$name"
		done
		cp -L /lib64/ld-linux-x86-64.so.2 "$tmp/root/lib64/"
		# lttng-sessiond validates session files (its autoload among
		# them) against this schema, and quits when it cannot read it.
		mkdir -p "$tmp/root/usr/share/xml/lttng"
		cp "$tmp/deb/usr/share/xml/lttng/session.xsd" "$tmp/root/usr/share/xml/lttng/"
		grep -q . < <(find "$lib" -name 'liblttng-ctl.so*') || die "staging lttng-tools: liblttng-ctl missing"
		rm -rf "$tmp/deb"
		touch "$tmp/.staged"
		mv "$tmp" "$dir"
	fi
	echo "$dir/root"
}

# babeltrace2 for the host, to count the events of the LTTng traces:
# Debian's packages unpacked into the cache (not installed).
stage_babeltrace() {
	local debs=() d key dir
	mapfile -t debs < <(deb_fetch babeltrace2 libbabeltrace2-0)
	key=$(for d in "${debs[@]}"; do basename "$d"; done | sha256sum | cut -c1-12)
	dir=$cache/babeltrace2-$key
	if [[ ! -f $dir/.staged ]]; then
		unpack "$dir" "${debs[@]}"
		touch "$dir/.staged"
	fi
	echo "$dir"
}

# bench_mode MODE: the qemu-run.sh options of MODE in vm_qemu, and the ltt
# module's clock in ltt_clock (LTT_CLOCK overrides it). icount: one vCPU,
# guest time counts instructions (a second vCPU hangs at SMP bring-up
# under icount), the TSC (trivially consistent on one CPU); wall: two
# vCPUs in host time, the module's automatic choice.
bench_mode() {
	# shellcheck disable=SC2054 # shift=0,sleep=off is one argument
	case $1 in
	icount) vm_qemu=(--smp 1 --qemu-arg -icount --qemu-arg shift=0,sleep=off) ltt_clock=${LTT_CLOCK:-tsc} ;;
	wall) vm_qemu=(--smp 2) ltt_clock=${LTT_CLOCK:-auto} ;;
	*) die "BENCH_MODE is icount or wall, not '$1'" ;;
	esac
	[[ $ltt_clock =~ ^(auto|tsc|local)$ ]] || die "LTT_CLOCK is auto, tsc or local, not '$ltt_clock'"
}

# lttng_guest_adds TOOLS: the qemu-run.sh --add options that put the tree
# of stage_lttng_tools (TOOLS) into the guest, in the array lttng_adds.
lttng_guest_adds() {
	lttng_adds=(--add "$1/usr/bin/lttng:/usr/bin/" --add "$1/usr/bin/lttng-sessiond:/usr/bin/"
		--add "$1/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu"
		--add "$1/usr/share/xml/lttng:/usr/share/xml/lttng" --add "$1/lib64:/lib64")
}

# bt_count BABELTRACE SESSION: the number of event messages babeltrace2
# (the tree of stage_babeltrace) reads from the LTTng trace SESSION; dies
# when it cannot read it (its messages in SESSION/../babeltrace.log).
bt_count() {
	local bt=$1 n
	n=$(LD_LIBRARY_PATH=$bt/usr/lib/x86_64-linux-gnu BABELTRACE_PLUGIN_PATH=$bt/usr/lib/x86_64-linux-gnu/babeltrace2/plugins \
		"$bt/usr/bin/babeltrace2" --omit-system-plugin-path "$2" -c sink.utils.counter 2>"$2/../babeltrace.log" |
		awk '/ Event messages?$/ { n = $1 } END { print n }') || true
	[[ -n $n ]] || die "babeltrace2 could not count $2 ($(dirname "$2")/babeltrace.log)"
	echo "$n"
}
