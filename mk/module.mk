# Trace module targets (included by the top Makefile).
#   make module        build module/ against the patched kernel (KERNELDIR
#                      overrides: any 6.1 tree with the ltt patches, prepared
#                      for out-of-tree modules); prints the .ko path
#   make module-debug  the same against the debug kernel
#   make module-test   the static in-guest test program
#   make bench-module  ns per logged event and the syscall-loop slowdown,
#                      measured inside the QEMU guest
#   make bench-idle    the getppid() loop with no module, the module loaded
#                      and idle, tracing, stopped and closed, in a guest run
#                      with -icount (reproducible figures)
.PHONY: module module-debug module-test bench-module bench-idle

LTT_MOD_OUT = $(BUILD)/module
LTT_MODTEST = $(LTT_MOD_OUT)/ltt_modtest
LTT_MODTEST_SRC = tests/module/ltt_modtest.c
# The block checks are libltt's codec, through its C API (block_codec.h):
# compiled here as well, and the program linked by g++ for the C++ runtime.
LTT_MODTEST_CODEC = analysis/format/block_codec.cpp analysis/format/block_codec_c.cpp
LTT_MODTEST_HDRS = analysis/format/include/libltt/block_codec.h \
	analysis/format/include/libltt/block_codec.hpp include/ltt/abi.h include/ltt/events.h
# Frame pointers and no sibling calls: the syscall-IP test walks user frames.
LTT_MODTEST_CFLAGS = -O2 -g -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -Wall -Wextra -Wno-unused-parameter \
	-Wno-unused-result -Iinclude -Ianalysis/format/include
LTT_MODTEST_CXXFLAGS = -std=c++20 -O2 -g -Wall -Wextra -Iinclude -Ianalysis/format/include

module:
	@kdir='$(KERNELDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$(scripts/build-kernel.sh | tail -n 1) || exit 1; fi; \
	module/build.sh "$$kdir" $(LTT_MOD_OUT)/ltt

module-debug:
	@kdir=$$(scripts/build-kernel.sh --debug | tail -n 1) || exit 1; \
	module/build.sh "$$kdir" $(LTT_MOD_OUT)/debug

# Built under names of this shell's own and renamed into place: suites that
# run at once (tests/run-suites.sh) may both build it.
$(LTT_MODTEST): $(LTT_MODTEST_SRC) $(LTT_MODTEST_CODEC) $(LTT_MODTEST_HDRS)
	@mkdir -p $(dir $@)
	@set -e; t=$@.tmp$$$$; trap 'rm -f $$t $$t.o $$t-codec.o $$t-codec-c.o' EXIT; \
	echo "gcc $(LTT_MODTEST_CFLAGS) -c -o $@.o $(LTT_MODTEST_SRC)"; \
	gcc $(LTT_MODTEST_CFLAGS) -c -o $$t.o $(LTT_MODTEST_SRC); \
	g++ $(LTT_MODTEST_CXXFLAGS) -c -o $$t-codec.o analysis/format/block_codec.cpp; \
	g++ $(LTT_MODTEST_CXXFLAGS) -c -o $$t-codec-c.o analysis/format/block_codec_c.cpp; \
	g++ -static -o $$t $$t.o $$t-codec.o $$t-codec-c.o; \
	mv $$t $@

module-test: $(LTT_MODTEST)

bench-module: module $(LTT_MODTEST)
	@tests/module/run-vm.sh bench

bench-idle: module $(LTT_MODTEST)
	@tests/module/run-vm.sh idle --icount
