# Kernel-side targets (included by the top Makefile). The builds are cached
# outside the repository, see scripts/build-kernel.sh --help.
.PHONY: kernel kernel-debug kernel-noltt kernel-vanilla kernel-all kernel-check-patches bench-kernel

# Builds (or finds in the cache) the patched kernel; prints KDIR last.
kernel:
	@scripts/build-kernel.sh

kernel-debug:
	@scripts/build-kernel.sh --debug

kernel-noltt:
	@scripts/build-kernel.sh --no-ltt

kernel-vanilla:
	@scripts/build-kernel.sh --vanilla

kernel-all: kernel kernel-noltt kernel-debug kernel-vanilla

# checkpatch.pl over the series (needs a built or unpacked tree).
kernel-check-patches:
	@scripts/kernel-checkpatch.sh

# Syscall loop on the patched kernel (no callback registered) vs the vanilla
# kernel with the same config; prints medians and the ratio.
bench-kernel:
	@scripts/bench-kernel.sh
