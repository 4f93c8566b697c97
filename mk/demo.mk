# make demo: the README's main job (scripts/demo.sh). DEMO_SECONDS sets the
# trace length (default 10).
# make demo-stock: the same on Debian's unmodified kernel (no kernel build;
# the image is downloaded and unpacked into the cache, the headers installed
# if missing), into out/demo-stock.
.PHONY: demo demo-stock
DEMO_SECONDS ?= 10
demo: deps
	@scripts/demo.sh $(DEMO_SECONDS)

demo-stock: deps
	@scripts/demo.sh --stock $(DEMO_SECONDS)
