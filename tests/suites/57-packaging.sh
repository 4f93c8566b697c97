#!/usr/bin/env bash
# The Debian packages: `make deb`'s packaging/build-deb.sh builds ltt-dkms,
# ltt-tools and traceview into $BUILD/deb; their contents are checked
# (module source with its dkms.conf, programs, a manual page for every
# program, the project's version), lintian finds no error, and DKMS builds
# and installs the packaged module from a scratch tree (--dkmstree,
# --sourcetree, --installtree, signing key in the scratch tree, no depmod:
# the host's /var/lib/dkms and /lib/modules are never written) against the
# newest installed stock Debian 6.1 headers and the cached patched kernel.
# Last, a guest booted on that stock kernel (scripts/stock-kernel.sh
# downloads and unpacks its image into the cache) loads the module DKMS
# built and traces a second with it. LTT_SKIP_VM=1 skips the guest only.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
source tests/lib/sh-test.sh
source tests/lib/vm-host.sh
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

missing=
for tool in dpkg-buildpackage dh dh_dkms dkms lintian scdoc; do
	command -v $tool >/dev/null || missing+=" $tool"
done
if [[ -n $missing ]]; then
	t_fail "packaging tools installed" "missing:$missing (scripts/install-deps.sh installs them)"
	t_summary
	exit
fi

# The packages, from the tree as it is now.
deb=$build/deb
if ! packaging/build-deb.sh "$deb" >"$tmp/build-deb.log" 2>&1; then
	t_fail "packaging/build-deb.sh builds the packages" "$(tail -n 8 "$tmp/build-deb.log")"
	t_summary
	exit
fi
t_pass "packaging/build-deb.sh builds the packages"
# The version the build compiled in (LTT_VERSION_STRING).
version=$("$build/bin/traceanalyze" --version 2>/dev/null | awk '{print $NF}')
if [[ -z $version ]]; then
	t_fail "the build's version" "$build/bin/traceanalyze --version gave none (run make first)"
	t_summary
	exit
fi
declare -A pkg
for p in ltt-dkms ltt-tools traceview libltt-user0 libltt-user-dev; do
	# shellcheck disable=SC2012 # package file names have no spaces
	pkg[$p]=$(ls "$deb/${p}_"*.deb 2>/dev/null | head -n 1)
	t_check "$p: built" test -f "${pkg[$p]}"
	[[ -f ${pkg[$p]} ]] || continue
	t_run_expect "$p: version $version, LTT_VERSION_STRING of the build" 0 "^$version\$" \
		dpkg-deb -f "${pkg[$p]}" Version
	dpkg-deb -c "${pkg[$p]}" | awk '{print $6}' | sed 's,^\./,/,' >"$tmp/$p.files"
done

# has PACKAGE PATH...: each PATH is in the package.
has() {
	local p=$1 f miss=
	shift
	for f; do grep -qxF "$f" "$tmp/$p.files" || miss+=" $f"; done
	if [[ -z $miss ]]; then t_pass "$p: contains $*"; else t_fail "$p: contains $*" "missing:$miss"; fi
}

src=/usr/src/ltt-$version
if [[ -f ${pkg[ltt-dkms]} ]]; then
	has ltt-dkms "$src/dkms.conf" "$src/module/Kbuild"
	mapfile -t want < <(cd module && printf '%s\n' ./*.c ./*.h | sed "s,^\./,$src/module/,")
	has ltt-dkms "${want[@]}"
	mapfile -t want < <(cd module && printf '%s\n' compat/* | sed "s,^,$src/module/,")
	has ltt-dkms "${want[@]}"
	mapfile -t want < <(cd include && printf '%s\n' ltt/*.h | sed "s,^,$src/include/,")
	has ltt-dkms "${want[@]}"
	dpkg-deb -x "${pkg[ltt-dkms]}" "$tmp/dkms-root"
	conf=$tmp/dkms-root$src/dkms.conf
	for want in "PACKAGE_NAME=\"ltt\"" "PACKAGE_VERSION=\"$version\"" 'BUILT_MODULE_NAME[0]="ltt_tracer"' \
		'AUTOINSTALL="yes"'; do
		t_check "ltt-dkms: dkms.conf has $want" grep -qxF "$want" "$conf"
	done
	dpkg-deb -e "${pkg[ltt-dkms]}" "$tmp/dkms-control"
	t_check "ltt-dkms: postinst adds and builds the module through DKMS" \
		grep -q '/usr/lib/dkms/common.postinst' "$tmp/dkms-control/postinst"
fi
[[ -f ${pkg[ltt-tools]} ]] && has ltt-tools /usr/bin/tracedaemon /usr/bin/trace /usr/bin/tracecore \
	/usr/bin/tracecpuid /usr/bin/traceanalyze /usr/bin/traceconvert /usr/share/doc/ltt-tools/trace-format.md.gz \
	/usr/share/man/man5/ltt-trace.5.gz
[[ -f ${pkg[traceview]} ]] && has traceview /usr/bin/traceview
[[ -f ${pkg[ltt-tools]} ]] && has ltt-tools /usr/bin/ltt-mark /usr/share/man/man1/ltt-mark.1.gz
[[ -f ${pkg[libltt-user0]} ]] && has libltt-user0 /usr/lib/libltt-user.so.0
[[ -f ${pkg[libltt-user-dev]} ]] && has libltt-user-dev /usr/include/ltt/user.h /usr/include/ltt/user.hpp \
	/usr/lib/libltt-user.so /usr/lib/libltt-user.a /usr/share/man/man3/libltt-user.3.gz
# libltt-user's public surface: the -dev package installs its two public
# headers and no other (not the daemon protocol user_shm.h, not the ABI
# headers), and the shared library exports exactly what user.h declares
# (user/libltt-user.map).
if [[ -f ${pkg[libltt-user-dev]} ]]; then
	t_run_expect "libltt-user-dev: its only headers are <ltt/user.h> and <ltt/user.hpp>" 0 \
		'^/usr/include/ltt/user\.h /usr/include/ltt/user\.hpp $' \
		eval "grep -E '^/usr/include/.*[^/]\$' '$tmp/libltt-user-dev.files' | sort | tr '\n' ' '"
fi
if [[ -f ${pkg[libltt-user0]} ]]; then
	dpkg-deb -x "${pkg[libltt-user0]}" "$tmp/user-root"
	declared=$(grep -E '^(extern |[a-z])' user/include/ltt/user.h | grep -vE '^struct [a-z_]+;' |
		grep -oE '\bltt_user_[a-z_]+ *[(;]' | grep -oE 'ltt_user_[a-z_]+' | sort -u | tr '\n' ' ')
	exported=$(nm -D --defined-only "$tmp/user-root/usr/lib/libltt-user.so.0" 2>&1 |
		awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u | tr '\n' ' ')
	if [[ -n $declared && $exported == "$declared" ]]; then
		t_pass "libltt-user0: libltt-user.so.0 exports what user.h declares (${declared% })"
	else
		t_fail "libltt-user0: libltt-user.so.0 exports what user.h declares" \
			"exported: ${exported:-none}; declared: ${declared:-none}"
	fi
fi
# Every program has its manual page, in the same package.
for p in ltt-tools traceview; do
	[[ -f $tmp/$p.files ]] || continue
	miss=
	while read -r b; do
		grep -qE "^/usr/share/man/man[1-8]/${b##*/}\.[1-8]\.gz\$" "$tmp/$p.files" || miss+=" ${b##*/}"
	done < <(grep '^/usr/bin/.' "$tmp/$p.files")
	if [[ -z $miss ]]; then t_pass "$p: a manual page for every program"
	else t_fail "$p: a manual page for every program" "none for:$miss"; fi
done
if [[ -f ${pkg[ltt-tools]} ]]; then
	dpkg-deb -x "${pkg[ltt-tools]}" "$tmp/tools-root"
	t_run_expect "ltt-tools: its tracedaemon runs on this system and says $version" 0 \
		"^tracedaemon $version " "$tmp/tools-root/usr/bin/tracedaemon" --version
fi

# lintian: no errors (the warnings are listed).
if lintian --fail-on error --tag-display-limit 0 "$deb"/*.deb >"$tmp/lintian.log" 2>&1; then
	t_pass "lintian: no errors"
else
	t_fail "lintian: no errors" "$(grep '^E:' "$tmp/lintian.log" | head -n 5)"
fi
grep -E '^[WE]:' "$tmp/lintian.log" | sed 's/^/       lintian /'

# ltt-tools and traceview on Debian 13: installed with apt (their
# dependencies resolved from trixie) on an overlay of the cached trixie root
# (scripts/debian-root.sh --overlay: the root itself stays as it was), then
# run there: the programs start, traceanalyze reads a trace, traceview
# reads one without a display (--help; its window needs GTK's display).
if [[ -f ${pkg[ltt-tools]:-} && -f ${pkg[traceview]:-} ]]; then
	cp tests/gui/data/small.trace tests/gui/data/small.proc "$tmp/"
	debs=("/ltt/deb/$(basename "${pkg[ltt-tools]}")" "/ltt/deb/$(basename "${pkg[traceview]}")")
	[[ -f ${pkg[libltt-user0]:-} ]] && debs+=("/ltt/deb/$(basename "${pkg[libltt-user0]}")")
	scripts/debian-root.sh trixie --overlay --bind "$deb:/ltt/deb" --bind "$tmp:/ltt/tmp" -- sh -c "
		set -e
		apt-get -qq install -y --no-install-recommends ${debs[*]} >/ltt/tmp/trixie-install.log 2>&1
		echo installed
		. /etc/os-release; echo \"os \$VERSION_ID\"
		tracedaemon --version
		traceanalyze --version
		traceanalyze -s /ltt/tmp/small.trace /ltt/tmp/small.proc | head -n 20
		traceview --version
		dpkg-query -W -f='\${Package} \${Version}\n' ltt-tools traceview
	" >"$tmp/trixie.log" 2>&1
	rc=$?
	t_run_expect "Debian 13 (trixie root): ltt-tools and traceview $version install with apt" 0 \
		"^installed$" cat "$tmp/trixie.log"
	[[ $rc == 0 ]] || sed 's/^/       /' "$tmp/trixie-install.log" "$tmp/trixie.log" 2>/dev/null | tail -n 12
	t_run_expect "Debian 13 (trixie root): it is Debian 13" 0 "^os \"?13\"?$" cat "$tmp/trixie.log"
	t_run_expect "Debian 13 (trixie root): tracedaemon and traceanalyze run ($version)" 0 \
		"tracedaemon $version .*traceanalyze (\(ltt\) )?$version" tr '\n' ' ' <"$tmp/trixie.log"
	t_run_expect "Debian 13 (trixie root): traceanalyze -s reads a trace" 0 \
		"^  Syscall entry +[1-9]" cat "$tmp/trixie.log"
	t_run_expect "Debian 13 (trixie root): traceview runs ($version)" 0 "^traceview $version" cat "$tmp/trixie.log"
else
	t_fail "Debian 13 (trixie root): ltt-tools and traceview install" "the packages were not built"
fi

# The stock kernel for the guest: scripts/stock-kernel.sh downloads and
# unpacks the image (never installed on the host) and installs its headers
# when they are missing.
vm_rc=$VM_SKIP
if ! vm_skip_requested; then
	vm_kernel stock >"$tmp/vm-kernel.log" 2>&1
	vm_rc=$?
fi

# DKMS in a scratch tree. The host's trees are listed before and after.
host_state() { find /var/lib/dkms /lib/modules -maxdepth 3 -newer "$tmp/stamp" 2>/dev/null; }
touch "$tmp/stamp"
mkdir -p "$tmp/dkms" "$tmp/lib/modules"
dk=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/dkms-root/usr/src" --installtree "$tmp/lib/modules")
# Module signing as on a real install, with a key made in the scratch tree.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
stock_ko=
if [[ ! -f $conf ]]; then
	t_fail "dkms add" "no ltt-dkms package"
elif ! dkms add "ltt/$version" "${dk[@]}" >"$tmp/dkms-add.log" 2>&1; then
	t_fail "dkms add ltt/$version" "$(tail -n 3 "$tmp/dkms-add.log")"
else
	t_pass "dkms add ltt/$version (scratch tree)"
	# dkms_build NAME KERNELRELEASE KDIR: build and install for one kernel;
	# sets ko to the installed module.
	dkms_build() {
		local name=$1 kver=$2 kdir=$3 log=$tmp/dkms-$1.log
		ko=
		if ! dkms build "ltt/$version" "${dk[@]}" -k "$kver" --kernelsourcedir "$kdir" >"$log" 2>&1; then
			t_fail "dkms build against the $name kernel $kver" \
				"$(tail -n 3 "$log"; grep -m 3 -E 'error|Error' "$tmp/dkms/ltt/$version/build/make.log" 2>/dev/null)"
			return
		fi
		t_pass "dkms build against the $name kernel $kver"
		mkdir -p "$tmp/lib/modules/$kver"
		if ! dkms install "ltt/$version" "${dk[@]}" -k "$kver" --no-depmod >>"$log" 2>&1; then
			t_fail "dkms install for $kver (scratch tree)" "$(tail -n 3 "$log")"
			return
		fi
		ko=$tmp/lib/modules/$kver/updates/dkms/ltt_tracer.ko
		t_check "dkms install for $kver puts ltt_tracer.ko in updates/dkms (scratch tree)" test -f "$ko"
		t_run_expect "the installed module is for $kver" 0 "^$kver " /sbin/modinfo -F vermagic "$ko"
	}

	# The newest installed stock Debian 6.1 headers (linux-headers-6.1.0-N-amd64;
	# vm_kernel stock above installed those of the image the guest boots).
	# shellcheck disable=SC2012 # sort -V: the newest release last
	stock=$(ls -d /lib/modules/6.1.0-*-amd64/build 2>/dev/null | sort -V | tail -n 1)
	if [[ -z $stock ]]; then
		t_skip "dkms build against stock Debian 6.1 headers" \
			"no linux-headers-6.1.0-*-amd64 installed (apt-get install linux-headers-amd64)"
	elif [[ ! -f module/ltt_tp.c ]]; then
		t_skip "dkms build against stock Debian 6.1 headers" \
			"the module has no stock-kernel (tracepoint) backend yet (module/ltt_tp.c)"
	else
		stock_rel=$(basename "$(dirname "$stock")")
		dkms_build stock "$stock_rel" "$stock"
		stock_ko=$ko
	fi

	# The patched kernel, when the cache has it (this suite never builds it).
	if kdir=$(scripts/build-kernel.sh --print-dir 2>/dev/null | tail -n 1) && [[ -f $kdir/include/config/kernel.release ]]; then
		dkms_build patched "$(cat "$kdir/include/config/kernel.release")" "$kdir"
	else
		t_skip "dkms build against the patched kernel" "not in the cache (make kernel)"
	fi
fi
changed=$(host_state)
if [[ -z $changed ]]; then t_pass "the host's /var/lib/dkms and /lib/modules are untouched"
else t_fail "the host's /var/lib/dkms and /lib/modules are untouched" "changed: $(head -n 3 <<<"$changed" | xargs)"; fi

# A guest booted on the stock kernel loads the module DKMS built for it.
if vm_skip_requested; then
	t_skip "the DKMS-built module in a stock-kernel guest" "LTT_SKIP_VM is set"
elif [[ -z $stock_ko ]]; then
	t_skip "the DKMS-built module in a stock-kernel guest" "no module built for the stock kernel (above)"
else
	log=$tmp/vm.log out=$build/test-results/packaging-vm
	rm -rf "$out"
	mkdir -p "$out"
	cp "$tmp/vm-kernel.log" "$log"
	rc=$vm_rc
	if ((rc == 0)); then
		vm_ko=$stock_ko
		vm_bins=("$build/bin/tracedaemon")
		vm_qemu=(--timeout 600 --mem 512M --smp 1)
		vm_need "${vm_bins[@]}" >>"$log" 2>&1 && vm_boot "$out" tests/packaging/guest-load.sh "$stock_rel" >>"$log" 2>&1
		rc=$?
	fi
	vm_report "$rc" "$log" "$out" "stock-kernel guest run" "[stock guest] "
	if [[ -s $out/t.trace ]]; then
		"$build/bin/traceanalyze" -s "$out/t.trace" "$out/t.proc" >"$tmp/summary.txt" 2>&1
		t_run_expect "[stock guest] its trace names the stock kernel $stock_rel" 0 \
			"kernel Linux $stock_rel on" cat "$tmp/summary.txt"
		t_run_expect "[stock guest] its trace holds system calls" 0 "^  Syscall entry +[1-9]" \
			cat "$tmp/summary.txt"
	fi
fi

t_summary
