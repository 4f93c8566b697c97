# shellcheck shell=bash disable=SC2154 # cache and die come from the caller
# Sourced by scripts/bench-peers.sh and scripts/bench-user.sh: Debian's
# LTTng 2.13 packages downloaded (not installed) into a cache and staged for
# the busybox guest, and babeltrace2 unpacked for the host. The caller
# defines die MESSAGE and cache (the cache directory).

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
