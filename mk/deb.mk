# Debian packages: ltt-dkms (the module's source for DKMS), ltt-tools
# (tracedaemon, traceanalyze, the trace scripts, manual pages) and traceview.
#   make deb     build them into $(BUILD)/deb/ (packaging/build-deb.sh), from a
#                copy of the tree, then run lintian on them
#   make deb-lint  lintian on what make deb built
DEB_DIR ?= $(BUILD)/deb

.PHONY: deb deb-lint
deb: deps
	packaging/build-deb.sh $(DEB_DIR)
	@$(MAKE) -s deb-lint

deb-lint:
	lintian --fail-on error --tag-display-limit 0 $(DEB_DIR)/*.deb
