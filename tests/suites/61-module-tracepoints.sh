#!/usr/bin/env bash
# run-suites: kernels debug
# Suite 60's runs of the tracepoint backend (the module built with
# LTT_SOURCE=tracepoints) on the debug kernel: check, unload and faults
# under lockdep, KASAN and PROVE_RCU, with a clean console. See
# tests/suites/60-module.sh.
# LTT_SKIP_VM=1 skips the suite.
exec "$(dirname "$0")/60-module.sh" --tracepoints
