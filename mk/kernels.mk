# make kernels: the kernel matrix (scripts/kernels.sh): the trace module's
# tracepoint backend on Debian's five kernel lines (deb12, deb12-bpo, deb13,
# deb13-rt, sid), each downloaded, built against in its distribution's root,
# built by DKMS, booted in QEMU and checked; prints one table, kernel x
# {builds, loads, accuracy, restricted, flight, concurrent, dkms}.
# KERNELS="deb13 sid" runs only those lines; LTT_MATRIX_JOBS guests at once
# (default 2).
.PHONY: kernels
KERNELS ?=
kernels: all
	@scripts/kernels.sh --markdown $(if $(KERNELS),--lines "$(KERNELS)")
