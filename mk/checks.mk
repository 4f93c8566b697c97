# The checks suite 05 runs (suite 50 runs sparse), each also on its own:
#   make tidy        clang-tidy (.clang-tidy) over compile_commands.json,
#                    in parallel; TIDY_JOBS files at a time (default: CPUs)
#   make shellcheck  every shell script (.shellcheckrc)
#   make sparse      the module through sparse (make C=2) against the
#                    patched kernel and the stock 6.1 headers when present
.PHONY: tidy shellcheck sparse

TIDY_JOBS ?= $(shell nproc)

tidy: configure
	@scripts/tidy.sh -j $(TIDY_JOBS)

shellcheck:
	@scripts/shellcheck.sh

sparse:
	@scripts/sparse-check.sh
