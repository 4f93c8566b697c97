# ltt top-level Makefile. `make` builds all of user space into $(BUILD)/
# (programs in $(BUILD)/bin/); `make check` runs every test suite and ends with
# the line "N passed, N failed". Kernel-side targets (kernel, module, demo)
# build in a cache outside the repository, see scripts/.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
ifdef CI
CMAKE_FLAGS += -DLTT_WERROR=ON
endif
export BUILD

.PHONY: all deps configure check bench fuzz format install clean help

all: configure
	cmake --build $(BUILD) -j$$(nproc)

# Install missing Debian packages (no-op when all are present).
deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
		cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

# Every suite; SUITES="unit golden" selects by name prefix.
check: all
	@tests/run-suites.sh

format:
	@git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | grep -v '^kernel-patches/' | xargs clang-format -i

clean:
	rm -rf $(BUILD)

-include mk/*.mk

help:
	@echo "make            build user space into $(BUILD)/ (programs in $(BUILD)/bin)"
	@echo "make check      run every test suite; last line: N passed, N failed"
	@echo "make demo       boot the patched kernel in QEMU, trace a workload, analyze it"
	@echo "make bench      analyzer throughput on a 10M-event synthetic trace"
	@echo "make fuzz       fuzz the trace reader (longer run)"
	@echo "make kernel     build the patched 6.1 kernel (cached)"
	@echo "make module     build the trace module against it"
