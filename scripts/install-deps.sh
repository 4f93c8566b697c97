#!/usr/bin/env bash
# Install the Debian 12 packages ltt needs, or with --check only report
# whether any is missing (exit 1 then). The make targets call this, so a fresh
# machine needs no manual step. Runs apt-get as root, or through sudo.
# usage: scripts/install-deps.sh [--check] [kernel|demo|all]
#   kernel  what scripts/build-kernel.sh needs (make demo installs these
#           first and starts the kernel build while it installs the rest)
#   demo    what make demo needs: the kernel's, QEMU, and the user space of
#           the demo (tracedaemon, traceanalyze, ltt-mark)
#   all     (default) everything the tests, checks and packaging need too
set -euo pipefail

check=0 set=all
for a in "$@"; do
	case $a in
	--check) check=1 ;;
	kernel | demo | all) set=$a ;;
	*) echo "install-deps.sh: unknown argument '$a' (usage: [--check] [kernel|demo|all])" >&2; exit 2 ;;
	esac
done

# One list per set, grouped by what needs it; keep them in step with
# README.md. Each set includes the ones before it.
kernel=(
	# scripts/build-kernel.sh: the tarball, Kconfig, objtool, the image
	build-essential flex bison bc xz-utils libelf-dev libssl-dev kmod
)
demo=(
	# the QEMU guest and its initramfs
	qemu-system-x86 busybox-static cpio
	# the demo's user space: tracedaemon, traceanalyze, ltt-mark
	cmake ninja-build pkg-config ccache libdw-dev libgtest-dev libgmock-dev
	python3
)
all=(
	# user space build and tests (libc6-dbg: the call-site tests name the
	# dynamic loader's functions, which only its debug symbols have)
	clang clang-format libclang-rt-14-dev libbenchmark-dev libc6-dbg
	jq babeltrace2 protobuf-compiler time
	# the Python package (python/): its extension, its venv, PySpark's JVM
	python3-dev python3-venv pybind11-dev openjdk-17-jre-headless
	# the checks suite 05 runs (make tidy, make shellcheck, make sparse)
	clang-tidy shellcheck sparse
	# the viewer (traceview) and its headless tests
	libgtkmm-4.0-dev xvfb xauth
	# the KernelShark input plugin (libkshark.pc needs the -dev of its Requires) and its test
	libkshark-dev libjson-c-dev libtracecmd-dev libtracefs-dev libtraceevent-dev kernelshark imagemagick
	# the guests' tools and the kernel's pahole
	dwarves rsync strace liblttng-ust-dev
	# the kernel matrix: Debian roots of other suites (scripts/debian-root.sh)
	debootstrap
	# manual pages, Debian packages (make deb) and their DKMS test
	scdoc debhelper dh-dkms dkms lintian fakeroot
)
packages=("${kernel[@]}")
[[ $set == kernel ]] || packages+=("${demo[@]}")
[[ $set != all ]] || packages+=("${all[@]}")

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if ((check)); then
	if ((${#missing[@]})); then
		echo "missing packages: ${missing[*]}" >&2
		exit 1
	fi
	exit 0
fi

((${#missing[@]})) || exit 0
echo "ltt: installing ${missing[*]}" >&2
sudo=
if [[ $(id -u) != 0 ]]; then
	command -v sudo >/dev/null || { echo "ltt: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# apt's and dpkg's progress goes to a log, shown only when they fail.
log=$(mktemp -t ltt-install-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! { $sudo apt-get -o DPkg::Lock::Timeout=900 update -qq &&
	$sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "ltt: installing the packages failed (apt-get's last lines above)" >&2
	exit 1
fi
echo "ltt: installed ${#missing[@]} packages" >&2
