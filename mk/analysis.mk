# Analysis targets (libltt, traceanalyze, ltt-synth): benchmark and fuzzing.
#   make bench        events/s and peak memory of traceanalyze -a -s on a
#                     10-million-event ltt-synth trace; the speed of
#                     --latency and --critical-path on it
#   make fuzz         fuzz the trace reader for FUZZ_SECONDS (default 600)
#   make fuzz-build   build the libFuzzer target only (clang, ASan+UBSan)
.PHONY: bench fuzz fuzz-build

FUZZ_SECONDS ?= 600
LTT_FUZZER := $(BUILD)/fuzz/trace_reader_fuzzer
# The reader's sources only: the fuzzer is built by clang apart from the
# CMake tree (libFuzzer needs clang; the main build may use g++).
LTT_FUZZ_SOURCES := analysis/src/trace_reader.cpp analysis/src/block_codec.cpp \
	analysis/src/block_codec_c.cpp \
	analysis/src/event_format.cpp analysis/src/syscall_args.cpp \
	analysis/src/trace_analysis.cpp analysis/src/proc_file.cpp analysis/src/user_events.cpp \
	tests/analysis/fuzz/trace_reader_fuzzer.cpp

bench: all
	@analysis/bench/bench.sh $(BUILD)

fuzz-build: $(LTT_FUZZER)

$(LTT_FUZZER): $(LTT_FUZZ_SOURCES) $(wildcard analysis/include/libltt/*.hpp analysis/include/libltt/detail/*.hpp) \
		tests/analysis/analysis_equal.hpp \
		analysis/src/syscall_table_x86_64.inc include/ltt/events.h include/ltt/abi.h \
		include/ltt/format.h include/ltt/module_events.h analysis/include/libltt/block_codec.h
	@mkdir -p $(dir $@)
	clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Iinclude -Ianalysis/include -Ianalysis/src \
		-DLTT_VERSION_STRING='"fuzz"' $(LTT_FUZZ_SOURCES) -o $@

fuzz: fuzz-build
	@tests/analysis/fuzz/run-fuzz.sh $(LTT_FUZZER) $(FUZZ_SECONDS)
