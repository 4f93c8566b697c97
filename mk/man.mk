# Manual pages: man/NAME.SECTION.scd (scdoc) -> $(BUILD)/man/NAME.SECTION.
#   make man                                 build them (also part of `make`)
#   make install [PREFIX=] [DESTDIR=]        installs them under share/man
# A new page is one new man/*.scd file. MAN_ALIASES are pages that only point
# at another (`.so`): commands documented on a shared page.
MAN_SOURCES := $(wildcard man/*.scd)
MAN_PAGES := $(patsubst man/%.scd,$(BUILD)/man/%,$(MAN_SOURCES))
MAN_ALIASES := tracecore.1:trace.1 tracecpuid.1:trace.1
MAN_ALIAS_PAGES := $(foreach a,$(MAN_ALIASES),$(BUILD)/man/$(word 1,$(subst :, ,$(a))))
MANDIR ?= $(PREFIX)/share/man

.PHONY: man install-man
all: man
man: $(MAN_PAGES) $(MAN_ALIAS_PAGES)

# scdoc writes its output even when it fails part-way; go through a
# temporary file (of this shell's own: two test suites may install at once)
# so a failed page is not left looking built.
$(BUILD)/man/%: man/%.scd | deps
	@mkdir -p $(@D)
	scdoc <$< >$@.tmp$$$$ && mv $@.tmp$$$$ $@ || { rm -f $@.tmp$$$$; false; }

$(MAN_ALIAS_PAGES): $(BUILD)/man/%:
	@mkdir -p $(@D)
	$(eval target := $(lastword $(subst :, ,$(filter $*:%,$(MAN_ALIASES)))))
	printf '.so man%s/%s\n' $(subst .,,$(suffix $(target))) $(target) >$@

install-man: man
	@set -e; for p in $(MAN_PAGES) $(MAN_ALIAS_PAGES); do \
		s=$${p##*.}; \
		install -d $(DESTDIR)$(MANDIR)/man$$s; \
		echo "install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/"; \
		install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/; \
	done
