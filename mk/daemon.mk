# Installing the user-facing programs, and the daemon's in-guest benchmark.
#   make install [PREFIX=/usr/local] [DESTDIR=] [DOCDIR=]
#       tracedaemon, trace, tracecore, tracecpuid, traceanalyze, traceconvert,
#       traceview (when the GUI was built), the manual pages (mk/man.mk) and
#       docs/trace-format.md; needs no root with a DESTDIR of one's own
#   make bench-daemon                             sustained event rate with zero loss (QEMU)
# `install` has no recipe of its own: what it installs comes from its
# prerequisites (`install: install-daemon` here), so each mk/*.mk file can add
# its programs with a prerequisite rule. ltt-synth and the test programs are
# for the project's tests and are not installed.
PREFIX ?= /usr/local
DESTDIR ?=
DOCDIR ?= $(PREFIX)/share/doc/ltt

.PHONY: programs install install-daemon install-tools install-docs bench-daemon

install: install-daemon install-tools install-man install-docs

# The installed programs only, not the tests: what install and make deb need.
# traceview is a target only where gtkmm-4.0 is installed (gui/CMakeLists.txt).
# flock: test suites that run at once (tests/run-suites.sh) install too.
programs: configure
	flock $(BUILD)/.build.lock cmake --build $(BUILD) -j$$(nproc) --target tracedaemon traceanalyze traceconvert \
		$$(ninja -C $(BUILD) -t query traceview >/dev/null 2>&1 && echo traceview)

install-daemon: programs
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/bin/tracedaemon $(DESTDIR)$(PREFIX)/bin/tracedaemon
	install -m 0755 scripts/trace scripts/tracecore scripts/tracecpuid $(DESTDIR)$(PREFIX)/bin/

install-tools: programs
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/bin/traceanalyze $(BUILD)/bin/traceconvert $(DESTDIR)$(PREFIX)/bin/
	@if [ -x $(BUILD)/bin/traceview ]; then \
		echo "install -m 0755 $(BUILD)/bin/traceview $(DESTDIR)$(PREFIX)/bin/traceview"; \
		install -m 0755 $(BUILD)/bin/traceview $(DESTDIR)$(PREFIX)/bin/traceview; \
	else \
		echo "install: traceview was not built (no gtkmm-4.0), not installed" >&2; \
	fi

install-docs:
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 docs/trace-format.md $(DESTDIR)$(DOCDIR)/trace-format.md

bench-daemon: all
	@tests/daemon/bench-daemon.sh

# tracedaemon's libFuzzer targets (user-event records, control lines) for
# DAEMON_FUZZ_SECONDS each (default 600), in $(BUILD)-fuzz (clang,
# ASan+UBSan); `make fuzz` runs them too.
.PHONY: fuzz-daemon
DAEMON_FUZZ_SECONDS ?= 600
fuzz: fuzz-daemon
fuzz-daemon:
	@tests/daemon/fuzz/run-fuzz.sh $(abspath $(BUILD))-fuzz $(DAEMON_FUZZ_SECONDS)
