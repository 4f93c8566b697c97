# libltt-user and ltt-mark (user/): the library (shared and static), its
# public headers <ltt/user.h> and <ltt/user.hpp> (user/include/; the private
# protocol user/protocol/user_shm.h is not installed) and ltt-mark,
# installed with the rest by `make install`.
.PHONY: install-user user-programs

install: install-user
programs: user-programs

LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

user-programs: configure
	cmake --build $(BUILD) -j2 --target ltt_user ltt_user_static ltt-mark

install-user: programs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/ltt
	install -m 0755 $(BUILD)/bin/ltt-mark $(DESTDIR)$(PREFIX)/bin/ltt-mark
	cp -P $(BUILD)/user/libltt-user.so* $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(BUILD)/user/libltt-user.a $(DESTDIR)$(LIBDIR)/
	install -m 0644 user/include/ltt/user.h user/include/ltt/user.hpp $(DESTDIR)$(INCLUDEDIR)/ltt/
