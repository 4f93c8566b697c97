# tracedaemon: installation and the in-guest benchmark.
#   make install [PREFIX=/usr/local] [DESTDIR=]   tracedaemon, trace, tracecore, tracecpuid
#   make bench-daemon                             sustained event rate with zero loss (QEMU)
# Other components hook their own files into `install` with a prerequisite
# rule of their own (`install: install-foo`); nobody gives `install` a recipe.
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
