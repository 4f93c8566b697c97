# ltt top-level Makefile. `make` builds all of user space into $(BUILD)/
# (programs in $(BUILD)/bin/); `make check` runs every test suite and ends with
# the line "N passed, N failed". Kernel-side targets (kernel, module, demo)
# build in a cache outside the repository, see scripts/.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
ifdef CI
override CMAKE_FLAGS += -DLTT_WERROR=ON
endif
export BUILD

.PHONY: all deps configure check bench fuzz format format-check install clean help

all: configure
	cmake --build $(BUILD) -j$$(nproc)

# Install missing Debian packages (no-op when all are present). DEPS names
# the set (scripts/install-deps.sh): all, or demo (what make demo needs).
DEPS ?= all
deps:
	@scripts/install-deps.sh --check $(DEPS) 2>/dev/null || scripts/install-deps.sh $(DEPS)

# CMake gets BUILD_TYPE and CMAKE_FLAGS on every `make`, not only the first:
# $(BUILD)/.cmake-flags records what the build directory was last configured
# with, and cmake runs again when that differs (CI's -DLTT_WERROR=ON reaches
# a build directory configured without it) or build.ninja is missing. The
# package set is recorded too, so that a build directory configured with the
# demo's packages finds the rest (KernelShark, pybind11) once they are in.
LTT_CMAKE_ARGS = -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(strip $(CMAKE_FLAGS))
configure: deps
	@if [ ! -f $(BUILD)/build.ninja ] || \
	    [ "$$(cat $(BUILD)/.cmake-flags 2>/dev/null)" != '$(LTT_CMAKE_ARGS) deps=$(DEPS)' ]; then \
		cmake -S . -B $(BUILD) -G Ninja $(LTT_CMAKE_ARGS) && \
		echo '$(LTT_CMAKE_ARGS) deps=$(DEPS)' >$(BUILD)/.cmake-flags; \
	fi

# Every suite (tests/suites/NN-name.sh); SUITES selects suites by the start
# of their file name: `make check SUITES="10 20"` runs 10-analysis-unit and
# 20-analysis-golden, SUITES=05 the format and build-flag checks.
check: all
	@tests/run-suites.sh

# C++ through clang-format with the repo's .clang-format. Kernel-style C
# (module/, tests/*.c) follows checkpatch.pl, which format-check runs;
# module/.clang-format is only an aid for it.
format:
	@git ls-files '*.cpp' '*.hpp' | grep -v '^kernel-patches/' | xargs clang-format -i

# Reports, without changing anything, C++ that clang-format would change and
# kernel-style C that checkpatch.pl flags (the file and line of each).
format-check:
	@scripts/format-check.sh

# The build directory and the sanitizer builds suites 10 and 40 keep beside it.
clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan

-include mk/*.mk

help:
	@echo "make            build user space into $(BUILD)/ (programs in $(BUILD)/bin)"
	@echo "make check      run every test suite; last line: N passed, N failed"
	@echo "                (SUITES=\"10 20\": only suites whose file name starts so)"
	@echo "make format     clang-format the C++ sources in place"
	@echo "make format-check  clang-format and checkpatch.pl findings, changing nothing"
	@echo "make tidy       clang-tidy over compile_commands.json (.clang-tidy)"
	@echo "make shellcheck every shell script through shellcheck (.shellcheckrc)"
	@echo "make sparse     the module through sparse (C=2) against the cached kernels"
	@echo "make deps       install the Debian packages the build and tests need"
	@echo "                (DEPS=demo: only make demo's; scripts/install-deps.sh)"
	@echo "make demo       boot the patched kernel in QEMU, trace a workload, analyze it"
	@echo "make demo-stock the same on Debian's own kernel with the tracepoint backend"
	@echo "make bench      analyzer throughput on a 10M-event synthetic trace"
	@echo "make bench-idle the syscall loop with no module, loaded idle, tracing (icount)"
	@echo "make bench-jobs real jobs untraced and traced in the guest (BENCH_MODE=icount|wall|both)"
	@echo "make bench-kernel, bench-module, bench-daemon, bench-gui: see README.md"
	@echo "make bench-peers ltt against ftrace and LTTng 2.13 in one guest (icount)"
	@echo "make bench-user  libltt-user against LTTng-UST 2.13 in one guest (icount)"
	@echo "make bench-offcpu what tracedaemon -S costs per blocking switch (icount)"
	@echo "make fuzz       fuzz the readers and the daemon's parsers (longer run)"
	@echo "make kernel     build the patched 6.12 kernel (cached)"
	@echo "make module     build the trace module against it"
	@echo "make install   tracedaemon, the tools, man pages and docs (PREFIX, DESTDIR)"
	@echo "make deb       Debian packages ltt-dkms, ltt-tools, traceview (deb-lint: lintian)"
