# Analysis targets (libltt, traceanalyze, ltt-synth): benchmark and fuzzing.
#   make bench        events/s and peak memory of traceanalyze -a -s on a
#                     10-million-event ltt-synth trace; the speed of
#                     --latency and --critical-path on it
#   make fuzz         fuzz libltt's readers (the trace, the .proc file) for
#                     FUZZ_SECONDS each (default 600)
#   make fuzz-build   build the libFuzzer targets only (clang, ASan+UBSan)
.PHONY: bench fuzz fuzz-build

FUZZ_SECONDS ?= 600
LTT_FUZZ_BUILD := $(BUILD)/fuzz

bench: all
	@analysis/bench/bench.sh $(BUILD)

# The fuzzers are built by clang in a build directory of its own (libFuzzer
# needs clang; the main build may use g++), from the same CMake targets as
# the libraries (tests/CMakeLists.txt, LTT_FUZZ): the libraries compiled
# with fuzzer-no-link instrumentation, ASan and UBSan.
fuzz-build:
	@if [ ! -f $(LTT_FUZZ_BUILD)/build.ninja ]; then \
		CC=clang CXX=clang++ cmake -S . -B $(LTT_FUZZ_BUILD) -G Ninja -DLTT_FUZZ=ON \
			-DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS='-O1 -g' -DCMAKE_CXX_FLAGS='-O1 -g' \
			-DLTT_SANITIZE=fuzzer-no-link,address,undefined; \
	fi
	cmake --build $(LTT_FUZZ_BUILD) --target fuzzers

fuzz: fuzz-build
	@tests/fuzz/run-fuzz.sh $(LTT_FUZZ_BUILD) $(FUZZ_SECONDS)
