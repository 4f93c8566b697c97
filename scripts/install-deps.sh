#!/usr/bin/env bash
# Install the Debian 12 packages ltt needs, or with --check only report
# whether any is missing (exit 1 then). The make targets call this, so a fresh
# machine needs no manual step. Runs apt-get as root, or through sudo.
set -euo pipefail

# One list, grouped by what needs it; keep it in step with README.md.
packages=(
	# user space build and tests
	build-essential cmake ninja-build pkg-config ccache clang clang-format
	libclang-rt-14-dev libgtest-dev libgmock-dev libbenchmark-dev
	libelf-dev libdw-dev jq python3 babeltrace2 protobuf-compiler time
	# the Python package (python/): its extension, its venv, PySpark's JVM
	python3-dev python3-venv pybind11-dev openjdk-17-jre-headless
	# the checks suite 05 runs (make tidy, make shellcheck, make sparse)
	clang-tidy shellcheck sparse
	# GUI and its headless tests
	libgtkmm-4.0-dev xvfb xauth
	# the KernelShark input plugin (libkshark.pc needs the -dev of its Requires) and its test
	libkshark-dev libjson-c-dev libtracecmd-dev libtracefs-dev libtraceevent-dev kernelshark imagemagick
	# kernel build and the QEMU guest
	flex bison bc cpio xz-utils kmod libssl-dev libelf-dev dwarves
	rsync qemu-system-x86 busybox-static strace liblttng-ust-dev
	# the kernel matrix: Debian roots of other suites (scripts/debian-root.sh)
	debootstrap
	# manual pages, Debian packages (make deb) and their DKMS test
	scdoc debhelper dh-dkms dkms lintian fakeroot
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [[ ${1:-} == --check ]]; then
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
$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
$sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
