# traceview benchmark: time to first paint and redraw times for a scripted
# zoom/scroll sequence on a synthetic trace (default 10M events), under Xvfb,
# run by traceview-selftest --bench (traceview's window and libraries, the
# test driver kept out of the shipped program).
# What it is measured against: first paint <= 2 s, whole frame (layout, graph
# paint, render) <= 16 ms at every zoom level (worst of the sequence).
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
		$(BUILD)/bin/traceview-selftest --bench $(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS).trace \
		$(BENCH_GUI_DIR)/gui-$(BENCH_GUI_EVENTS).proc

# The README's pictures, from the self test's run (traceview-selftest) on
# the committed small trace (generated, never hand-made): the event graph
# view (with the CPU view and the utilisation strip), the CPU view zoomed in,
# the time breakdown of a selection of processes and the counter strips of
# the fixture trace with VARS records the self test writes, reduced to
# 64-colour PNGs; and the latency tab and a critical path over the graph.
SCREENSHOT_DIR ?= docs/screenshots
SCREENSHOTS := graph-view cpu-view time-breakdown counter-strips latency-tab critical-path flame-graph

.PHONY: screenshots
screenshots: all
	@mkdir -p $(BUILD)/screenshots $(SCREENSHOT_DIR)
	@home=$$(mktemp -d) && trap 'rm -rf "$$home"' EXIT && \
	xvfb-run -a -s "-screen 0 1400x900x24" env HOME="$$home" XDG_DATA_HOME="$$home/data" \
		XDG_CONFIG_HOME="$$home/config" XDG_CACHE_HOME="$$home/cache" GSK_RENDERER=cairo \
		GDK_BACKEND=x11 NO_AT_BRIDGE=1 $(BUILD)/bin/traceview-selftest $(BUILD)/screenshots \
		tests/gui/data/small.trace tests/gui/data/small.proc >$(BUILD)/screenshots/selftest.log 2>&1 || \
		{ tail -n 5 $(BUILD)/screenshots/selftest.log; exit 1; }
	@for s in $(SCREENSHOTS); do \
		convert $(BUILD)/screenshots/$$s.png -strip -colors 64 PNG8:$(SCREENSHOT_DIR)/$$s.png || exit 1; \
		echo "$(SCREENSHOT_DIR)/$$s.png"; \
	done
