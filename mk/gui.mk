# traceview benchmark: time to first paint and redraw times for a scripted
# zoom/scroll sequence on a synthetic trace (default 10M events), under Xvfb.
# What it is measured against: first paint <= 2 s, median redraw <= 16 ms,
# worst <= 50 ms.
BENCH_GUI_EVENTS ?= 10000000
BENCH_GUI_DIR ?= $(BUILD)/bench

.PHONY: bench-gui
bench-gui: all
	@mkdir -p $(BENCH_GUI_DIR)
	@if [ ! -s $(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS).trace ]; then \
		$(BUILD)/bin/ltt-synth --events $(BENCH_GUI_EVENTS) --cpus 4 --processes 16 \
			-o $(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS); \
	fi
	xvfb-run -a -s "-screen 0 1400x900x24" env GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
		$(BUILD)/bin/traceview --bench $(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS).trace \
		$(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS).proc
