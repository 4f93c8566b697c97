# make demo: the README's main job (scripts/demo.sh). DEMO_SECONDS sets the
# trace length (default 10).
.PHONY: demo
DEMO_SECONDS ?= 10
demo: deps
	@scripts/demo.sh $(DEMO_SECONDS)
