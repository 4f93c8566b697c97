# make demo: the README's main job (scripts/demo.sh). DEMO_SECONDS sets the
# trace length (default 10).
# make demo-stock: the same on one of Debian's unmodified kernels (no kernel
# build; the image is downloaded and unpacked into the cache, the headers
# installed if missing), into out/demo-stock. KERNEL= picks the kernel line
# (scripts/stock-kernel.sh --lines: deb12, the default, deb12-bpo, deb13,
# deb13-rt, sid); a line other than deb12 builds the module in its
# distribution's Debian root.
.PHONY: demo demo-stock
DEMO_SECONDS ?= 10
KERNEL ?= deb12
# Both install their own packages (scripts/demo.sh): only the demo's, and
# the kernel build starts before the rest are in.
demo:
	@scripts/demo.sh $(DEMO_SECONDS)

demo-stock:
	@LTT_KERNEL_LINE=$(KERNEL) scripts/demo.sh --stock $(DEMO_SECONDS)
