# tracedaemon: installation and the in-guest benchmark.
#   make install [PREFIX=/usr/local] [DESTDIR=]   tracedaemon, trace, tracecore, tracecpuid
#   make bench-daemon                             sustained event rate with zero loss (QEMU)
# `install` has no recipe of its own: what it installs comes from its
# prerequisites (`install: install-daemon` here), so each mk/*.mk file can add
# its programs with a prerequisite rule.
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: install install-daemon bench-daemon

install: install-daemon

install-daemon: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/bin/tracedaemon $(DESTDIR)$(PREFIX)/bin/tracedaemon
	install -m 0755 scripts/trace scripts/tracecore scripts/tracecpuid $(DESTDIR)$(PREFIX)/bin/

bench-daemon: all
	@tests/daemon/bench-daemon.sh
