#!/usr/bin/env bash
# The kernel matrix: the trace module's tracepoint backend on five Debian
# kernels, each built, booted and checked, printed as one table. See --help.
set -uo pipefail

usage() {
	cat <<'EOF'
usage: scripts/kernels.sh [options]
       scripts/kernels.sh --build-module LINE OUTDIR
       scripts/kernels.sh --dkms LINE OUTDIR

Runs the kernel matrix: for each kernel line of scripts/stock-kernel.sh
(deb12, deb12-bpo, deb13, deb13-rt, sid; the newest release of each, or
the pinned one) it
  1. makes the kernel ready (scripts/stock-kernel.sh --line LINE: the image
     unpacked in the cache, the headers installed in its distribution's
     root, scripts/debian-root.sh);
  2. builds:  builds the trace module with that distribution's compiler and
     kbuild (in the root; deb12 on the host, which is Debian 12), W=1 and
     warnings as errors: a warning fails the column;
  3. DKMS:    `dkms build` of the module source as ltt-dkms installs it
     (/usr/src/ltt-VERSION with module/dkms.conf), in the root, for that
     kernel;
  4. boots the kernel, unmodified, in QEMU once and runs every check there
     (tests/module/matrix-guest.sh):
     loads:      insmod ltt_tracer.ko, /dev/tracer appears;
     accuracy:   the accuracy workloads of suite 95, checked on the host by
                 tests/e2e/check_accuracy.py --stock (counts against strace
                 and ftrace, the fork tree, run time against schedstat);
     restricted: an ordinary user traces its own command in a restricted
                 session, which lists only that user's processes;
     flight:     a flight-recorder session writes a snapshot on SIGUSR1;
     concurrent: two sessions trace at once, neither disturbing the other.
Guests run LTT_MATRIX_JOBS at a time (default 2; TCG uses one core each),
each for at most LTT_MATRIX_TIMEOUT seconds (default 2400: the RT kernel
under emulation on a busy 2-core host needed more than 1500).
Then it prints the table (kernel x columns) and, with --markdown, the same
table for README.md. Each cell is pass, FAIL, skip (the prerequisite
failed) or "pass, N by design" (checks a kernel cannot give, reported by
the checker as "skip - ...: differs by design: why").

Options:
  --lines "L..."    only these lines (default: all five)
  --out DIR         results (default $BUILD/kernels, BUILD=build)
  --jobs N          guests at once (default LTT_MATRIX_JOBS or 2)
  --no-boot         stop after builds and DKMS (loads, accuracy, ... skip)
  --reuse           keep the builds and DKMS cells of an earlier run in DIR
                    (same release) and only boot
  --table           only print the table of the results in DIR
  --markdown        print the table as Markdown as well
  --build-module LINE OUTDIR
                    build the module for LINE's kernel into OUTDIR (as
                    step 2) and print the .ko's path
  --dkms LINE OUTDIR
                    step 3 alone, logs in OUTDIR
  -h, --help        this text

Exit status: 0 when every cell passed, 1 when one did not, 2 usage.
Results: DIR/LINE/cells (one "COLUMN STATUS DETAIL" a line), the logs,
the guest's /out in DIR/LINE/run; DIR/table.txt, DIR/table.md.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${BUILD:-build}
[[ $build == /* ]] || build=$repo/$build
lines=$("$here/stock-kernel.sh" --lines | tr '\n' ' ')
out="" jobs=${LTT_MATRIX_JOBS:-2} noboot=0 reuse=0 table_only=0 markdown=0
columns=(builds loads accuracy restricted flight concurrent dkms)
die() { echo "kernels.sh: $*" >&2; exit 2; }

# build_module LINE OUTDIR: the module for LINE, built as its distribution
# builds out-of-tree modules; prints the .ko. W=1 always; -Werror under CI
# (module/build.sh), or with LTT_MATRIX_WERROR=1 (the matrix's builds).
build_module() {
	local line=$1 o=$2 root kdir rel
	rel=$("$here/stock-kernel.sh" --line "$line" --release) || return 1
	kdir=$("$here/stock-kernel.sh" --line "$line" --headers) || {
		echo "kernels.sh: the headers of $rel are not installed (scripts/stock-kernel.sh --line $line)" >&2
		return 1
	}
	root=$("$here/stock-kernel.sh" --line "$line" --root)
	mkdir -p "$o"
	o=$(cd "$o" && pwd)
	local ci=${CI:-}
	[[ ${LTT_MATRIX_WERROR:-} == 1 ]] && ci=true
	if [[ -z $root ]]; then
		CI=$ci "$repo/module/build.sh" "$kdir" "$o"
		return
	fi
	# In the root: the tree and OUTDIR bind-mounted, the headers at the
	# path the distribution installs them.
	CI=$ci "$here/debian-root.sh" "$root" --bind "$repo:/ltt/src" --bind "$o:/ltt/out" -- \
		bash /ltt/src/module/build.sh "/usr/src/linux-headers-$rel" /ltt/out |
		sed "s|^/ltt/out|$o|"
	return "${PIPESTATUS[0]}"
}

# dkms_build LINE OUTDIR: the module source in ltt-dkms's layout in the
# root's /usr/src (packaging/debian/rules: module/ with module/compat/, and
# include/ltt/, with
# module/dkms.conf at the top, PACKAGE_VERSION filled in as dh_dkms -V
# does), then dkms add and dkms build for the line's kernel in a scratch
# DKMS tree of the root. deb12 builds in the bookworm root too.
dkms_build() {
	local line=$1 o=$2 rel root version src
	rel=$("$here/stock-kernel.sh" --line "$line" --release) || return 1
	root=$("$here/stock-kernel.sh" --line "$line" --root)
	if [[ -z $root ]]; then
		root=bookworm
		"$here/debian-root.sh" --install "linux-headers-$rel" "$root" >/dev/null || return 1
	fi
	version=$(sed -nE 's/^project\(ltt VERSION ([0-9][0-9.]*)[ )].*/\1/p' "$repo/CMakeLists.txt")
	mkdir -p "$o"
	o=$(cd "$o" && pwd)
	src=$o/src/ltt-$version
	rm -rf "$o/src" "$o/tree"
	mkdir -p "$src/module" "$src/include/ltt" "$o/tree"
	install -m 0644 "$repo"/module/Kbuild "$repo"/module/Makefile "$repo"/module/*.c "$repo"/module/*.h "$src/module/"
	mkdir -p "$src/module/compat"
	install -m 0644 "$repo"/module/compat/*.c "$src/module/compat/"
	install -m 0755 "$repo"/module/compat/probe.sh "$src/module/compat/"
	install -m 0644 "$repo"/include/ltt/*.h "$src/include/ltt/"
	sed "s/#MODULE_VERSION#/$version/" "$repo/module/dkms.conf" >"$src/dkms.conf"
	"$here/debian-root.sh" "$root" --bind "$o:/ltt/dkms" -- \
		sh -c "dkms add ltt/$version --dkmstree /ltt/dkms/tree --sourcetree /ltt/dkms/src >/ltt/dkms/add.log 2>&1 &&
			dkms build ltt/$version -k $rel --dkmstree /ltt/dkms/tree --sourcetree /ltt/dkms/src \
				--kernelsourcedir /usr/src/linux-headers-$rel" >"$o/dkms.log" 2>&1
	local rc=$?
	if ((rc)); then
		cat "$o/add.log" >>"$o/dkms.log" 2>/dev/null
		cat "$o/tree/ltt/$version/build/make.log" >>"$o/dkms.log" 2>/dev/null
		return "$rc"
	fi
	[[ -n $(find "$o/tree/ltt/$version/$rel" -name 'ltt_tracer.ko*' 2>/dev/null) ]] || {
		echo "dkms build left no ltt_tracer.ko for $rel" >>"$o/dkms.log"
		return 1
	}
}

while (($#)); do
	case $1 in
	--lines) lines=$2; shift ;;
	--out) out=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--no-boot) noboot=1 ;;
	--reuse) reuse=1 ;;
	--table) table_only=1 ;;
	--markdown) markdown=1 ;;
	--build-module)
		(($# == 3)) || die "--build-module LINE OUTDIR"
		build_module "$2" "$3"
		exit ;;
	--dkms)
		(($# == 3)) || die "--dkms LINE OUTDIR"
		dkms_build "$2" "$3"
		rc=$?
		tail -n 5 "$3/dkms.log" >&2
		exit $rc ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift || die "option needs an argument"
done
[[ $jobs =~ ^[1-9]$ ]] || die "--jobs wants 1..9, not '$jobs'"
out=${out:-$build/kernels}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for l in $lines; do
	"$here/stock-kernel.sh" --line "$l" --root >/dev/null || die "unknown kernel line '$l'"
done

# cell LINE COLUMN STATUS [DETAIL]: record one cell of the table.
cell() {
	sed -i "/^$2 /d" "$out/$1/cells" 2>/dev/null
	echo "$2 $3 ${4:-}" >>"$out/$1/cells"
}

# prepare_line LINE: steps 1-3 (downloads, roots, builds): no guest.
prepare_line() {
	local l=$1 d=$out/$1 rel log
	rm -rf "$d"
	mkdir -p "$d"
	: >"$d/cells"
	log=$d/prepare.log
	if ! "$here/stock-kernel.sh" --line "$l" >"$log" 2>&1; then
		for c in "${columns[@]}"; do cell "$l" "$c" FAIL "kernel not available: $(tail -n 1 "$log")"; done
		return
	fi
	rel=$("$here/stock-kernel.sh" --line "$l" --release)
	echo "$rel" >"$d/release"
	local t0=$SECONDS
	if LTT_MATRIX_WERROR=1 build_module "$l" "$d/module" >"$d/build.log" 2>&1 &&
		[[ -f $d/module/ltt_tracer.ko ]]; then
		local vm
		vm=$(modinfo -F vermagic "$d/module/ltt_tracer.ko")
		if [[ $vm == "$rel "* ]]; then
			cell "$l" builds pass "$((SECONDS - t0)) s, W=1 -Werror, vermagic $vm"
		else
			cell "$l" builds FAIL "vermagic '$vm' is not $rel's"
		fi
	else
		cell "$l" builds FAIL "$(grep -m 2 -E 'error|warning' "$d/build.log" | tr '\n' ' ' | cut -c1-200)"
	fi
	t0=$SECONDS
	if dkms_build "$l" "$d/dkms" >>"$log" 2>&1; then
		cell "$l" dkms pass "dkms build ltt for $rel ($((SECONDS - t0)) s)"
	else
		cell "$l" dkms FAIL "$(grep -m 2 -iE 'error|not supported|exclusive' "$d/dkms/dkms.log" | tr '\n' ' ' | cut -c1-200)"
	fi
}

# boot_line LINE: step 4, one guest run, and the host's checks of it.
boot_line() {
	local l=$1 d=$out/$1 rel sdir kimage kmods rc acc
	if ! grep -q '^builds pass' "$d/cells"; then
		for c in loads accuracy restricted flight concurrent; do cell "$l" "$c" skip "the module did not build"; done
		return
	fi
	rel=$(cat "$d/release")
	sdir=$("$here/stock-kernel.sh" --line "$l" --print-dir | tail -n 1)
	kimage=$sdir/boot/vmlinux-$rel
	[[ -f $kimage ]] || kimage=$sdir/boot/vmlinuz-$rel
	kmods=$sdir/lib/modules/$rel
	local adds=(--add "$d/module/ltt_tracer.ko:/opt/ltt/" --add "$repo/tests/lib/vm-guest.sh:/opt/ltt/lib/"
		--add "$repo/tests/module/matrix-guest.sh:/opt/ltt/" --add "$repo/tests/e2e/guest.sh:/opt/ltt/e2e-guest.sh"
		--add "$build/bin/tracedaemon:/opt/ltt/bin/" --add "$build/workloads:/opt/ltt/workloads"
		--add /usr/bin/strace:/usr/bin/)
	local lib
	for lib in $(ldd /usr/bin/strace | grep -o '/[^ ]*'); do
		adds+=(--add "$(readlink -f "$lib"):$lib")
	done
	# The module parameter that lets ordinary users open restricted
	# sessions, when this module has one.
	local param
	param=$(modinfo -F parm "$d/module/ltt_tracer.ko" | sed -nE 's/^([a-z_]*(unpriv|restrict)[a-z_]*):.*/\1=1/p' | head -n 1)
	local t0=$SECONDS
	"$here/qemu-run.sh" --kernel "$kimage" --modules "$kmods" --tsc-khz host --out "$d/run" \
		--timeout "${LTT_MATRIX_TIMEOUT:-2400}" --mem 1G --disk 64M "${adds[@]}" \
		-- sh /opt/ltt/matrix-guest.sh ${param:+"$param"} >"$d/guest.log" 2>&1
	rc=$?
	echo "$((SECONDS - t0))" >"$d/boot-seconds"
	local r=$d/run/results.txt
	has() { grep -q "^ok - $1" "$r" 2>/dev/null; }
	fails() { grep "^FAIL - $1" "$r" 2>/dev/null | head -n 2 | tr '\n' ' ' | cut -c1-200; }
	if has "stock: ltt_tracer.ko loads"; then
		if ((rc == 0)); then
			cell "$l" loads pass "$(grep -o 'uname -r: .*' "$r" | head -n 1)"
		else
			cell "$l" loads FAIL "guest status $rc (kernel console: $d/run/console.log)"
		fi
	elif ((rc == 201)); then
		cell "$l" loads FAIL "the guest run timed out (status 201; console: $d/run/console.log)"
		for c in accuracy restricted flight concurrent; do cell "$l" "$c" skip "the guest run timed out"; done
		return
	else
		cell "$l" loads FAIL "status $rc: $(fails 'stock: ltt_tracer.ko loads') $(tail -n 2 "$d/guest.log" | tr '\n' ' ')"
		for c in accuracy restricted flight concurrent; do cell "$l" "$c" skip "the module did not load"; done
		return
	fi
	python3 "$repo/tests/e2e/check_accuracy.py" --stock "$rel" "$d/run" "$build" >"$d/accuracy.txt" 2>&1
	acc=$(tail -n 1 "$d/accuracy.txt")
	if [[ $acc =~ ^([0-9]+)\ passed,\ 0\ failed(,\ ([0-9]+)\ skipped)?$ ]] && ((BASH_REMATCH[1] > 0)); then
		cell "$l" accuracy pass "${BASH_REMATCH[1]} checks${BASH_REMATCH[3]:+, ${BASH_REMATCH[3]} by design}"
	else
		cell "$l" accuracy FAIL "$acc: $(grep -m 2 '^FAIL' "$d/accuracy.txt" | tr '\n' ' ' | cut -c1-200)"
	fi
	# The host's checks of the traces the guest brought back.
	local ta=$build/bin/traceanalyze
	dumps() { # NAME TRACE PROC PATTERN
		# (into a file: grep -q would end the pipe early, and pipefail
		# would count traceanalyze's SIGPIPE against the check)
		"$ta" -d "$d/run/$2" "$d/run/$3" >"$d/run/$2.dump" 2>&1
		if grep -Eq -- "$4" "$d/run/$2.dump"; then
			echo "ok - $1" >>"$r"
		else
			echo "FAIL - $1: no '$4' in traceanalyze -d $2" >>"$r"
		fi
	}
	dumps "restricted: traceanalyze reads the user's trace, its system calls" user.trace user.proc 'SYSCALL : '
	dumps "flight: the snapshot has the marker's OPEN" fr-1.trace fr-1.proc 'OPEN : /tmp/ltt-matrix-marker'
	dumps "concurrent: the first session's trace has the second's workload" c1.trace c1.proc 'EXEC : .*wl_syscalls'
	dumps "concurrent: the second session's trace has its workload's writes" c2.trace c2.proc 'SYSCALL : write'
	local c
	for c in restricted flight concurrent; do
		local n_ok n_fail
		n_ok=$(grep -c "^ok - $c: " "$r")
		n_fail=$(grep -c "^FAIL - $c: " "$r")
		if ((n_fail)); then
			cell "$l" "$c" FAIL "$(fails "$c: ")"
		elif ((n_ok)); then
			cell "$l" "$c" pass "$n_ok checks"
		else
			cell "$l" "$c" FAIL "no result from the guest"
		fi
	done
}

# cell_status LINE COLUMN: that cell's status in DIR ("none" when not run).
cell_status() {
	local st
	st=$(sed -n "s/^$2 \([^ ]*\).*/\1/p" "$out/$1/cells" 2>/dev/null)
	echo "${st:-none}"
}

# print_table: the table of DIR's cells (and DIR/table.md).
print_table() {
	local l c rel
	{
		printf '%-10s %-26s' kernel release
		for c in "${columns[@]}"; do printf ' %-10s' "$c"; done
		echo
		for l in $lines; do
			rel=$(cat "$out/$l/release" 2>/dev/null || echo '?')
			printf '%-10s %-26s' "$l" "$rel"
			for c in "${columns[@]}"; do
				printf ' %-10s' "$(cell_status "$l" "$c")"
			done
			echo
		done
	} | tee "$out/table.txt"
	{
		printf '| kernel | release |'
		for c in "${columns[@]}"; do printf ' %s |' "$c"; done
		echo
		printf '|---|---|'
		for c in "${columns[@]}"; do printf -- '---|'; done
		echo
		for l in $lines; do
			rel=$(cat "$out/$l/release" 2>/dev/null || echo '?')
			printf '| %s | %s |' "$l" "\`$rel\`"
			for c in "${columns[@]}"; do
				printf ' %s |' "$(cell_status "$l" "$c")"
			done
			echo
		done
	} >"$out/table.md"
	((markdown)) && cat "$out/table.md"
	return 0
}

if ((!table_only)); then
	t0=$SECONDS
	for l in $lines; do
		if ((reuse)) && grep -q '^builds ' "$out/$l/cells" 2>/dev/null && grep -q '^dkms ' "$out/$l/cells" &&
			[[ $(cat "$out/$l/release" 2>/dev/null) == "$("$here/stock-kernel.sh" --line "$l" --release)" ]]; then
			echo "kernels.sh: $l: reusing the builds and DKMS of $out/$l" >&2
			sed -i '/^\(builds\|dkms\) /!d' "$out/$l/cells"
			rm -rf "$out/$l/run" "$out/$l/accuracy.txt" "$out/$l/boot-seconds"
			continue
		fi
		echo "kernels.sh: $l: kernel, builds, DKMS" >&2
		prepare_line "$l"
	done
	echo "prepare $((SECONDS - t0))" >"$out/seconds"
	if ((noboot)); then
		for l in $lines; do
			for c in loads accuracy restricted flight concurrent; do cell "$l" "$c" skip "--no-boot"; done
		done
	else
		if [[ ! -x $build/bin/tracedaemon || ! -d $build/workloads ]]; then
			make -s -C "$repo" BUILD="$build" >&2 || die "make BUILD=$build failed"
		fi
		t1=$SECONDS
		running=0
		for l in $lines; do
			echo "kernels.sh: $l: booting $(cat "$out/$l/release" 2>/dev/null)" >&2
			boot_line "$l" &
			running=$((running + 1))
			if ((running >= jobs)); then
				wait -n
				running=$((running - 1))
			fi
		done
		wait
		echo "boot $((SECONDS - t1))" >>"$out/seconds"
	fi
fi
print_table
! grep -qv ' pass ' "$out"/*/cells 2>/dev/null
