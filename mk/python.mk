# The Python package (python/, docs/python.md).
#   make python        the ltt wheel (built by `make`) installed into
#                      $(BUILD)/python-venv with the pinned packages of
#                      python/requirements-test.txt (kept: a second run
#                      installs nothing); prints the venv's path
#   make bench-python  events/s into Arrow, the other tables, Parquet write
#                      speed and peak memory on the 10 M-event bench trace
#                      (the one `make bench` uses; generated if missing)
.PHONY: python bench-python

python: all
	@python/venv.sh $(BUILD)

bench-python: all
	@venv=$$(python/venv.sh $(BUILD) | tail -n 1) && \
	mkdir -p $(BUILD)/bench && \
	if [ ! -f $(BUILD)/bench/synth10m.trace ] || [ $(BUILD)/bin/ltt-synth -nt $(BUILD)/bench/synth10m.trace ]; then \
		echo "generating 10000000-event trace $(BUILD)/bench/synth10m.trace ..." >&2; \
		$(BUILD)/bin/ltt-synth --events 10000000 --cpus 4 --processes 32 --seed 1 \
			-o $(BUILD)/bench/synth10m --expect | \
			$$venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["trace"]["events"])' \
			>$(BUILD)/bench/synth10m.events; \
	fi && \
	$$venv/bin/python python/tools/bench.py $(BUILD)/bench/synth10m.trace $(BUILD)/bench/synth10m.proc
