# The C interface: libsompca.so, include/sompca.h, the C examples and tests.
#
#   make lib                    build/libsompca.so (the cgo-generated header is deleted:
#                               include/sompca.h is the contract)
#   make examples               build/examples/c/fit_hdf5 and fit_memory
#   make test-capi              the C test program (also against a library built with
#                               GOEXPERIMENT=cgocheck2), the C++ wrapper's test and the C
#                               examples, checked
#   make install PREFIX=/opt/x  header, library and sompca.pc (default PREFIX=/usr/local;
#                               DESTDIR is honoured): lib/libsompca.so.MAJOR.MINOR.PATCH with
#                               the symlinks libsompca.so.MAJOR (the SONAME) and libsompca.so

CC       ?= cc
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
PCDIR    ?= $(LIBDIR)/pkgconfig

C_WARN     := -Wall -Wextra -Werror
HDF5_CFLAGS = $(shell pkg-config --cflags hdf5)
HDF5_LIBS   = $(shell pkg-config --libs hdf5)

SOMPCA_LIB      := $(BUILD)/libsompca.so
SOMPCA_LIB_CHK  := $(BUILD)/cgocheck2/libsompca.so
CAPI_GO_SOURCES := $(shell find capi solver hdf5io -name '*.go' -o -name '*.s' -o -name '*.c' -o -name '*.h') \
                   capi/libsompca.map include/sompca.h go.mod go.sum
# Go's build cache does not see headers outside a package's directory: the
# header's digest in the C flags makes a changed sompca.h rebuild capi.
CAPI_CGO_CFLAGS = $(CGO_CFLAGS) -DSOMPCA_H_DIGEST=$(shell md5sum < include/sompca.h | cut -c1-12)
# Export only the functions of sompca.h (see capi/libsompca.map); the SONAME
# libsompca.so.MAJOR names the ABI (a program linked with -lsompca records it).
SOMPCA_MAJOR    = $(shell awk '/define SOMPCA_VERSION_MAJOR /{print $$3}' include/sompca.h)
SOMPCA_SONAME   = libsompca.so.$(SOMPCA_MAJOR)
CAPI_LDFLAGS     = -ldflags=-extldflags=-Wl,--version-script=$(CURDIR)/capi/libsompca.map,-soname,$(SOMPCA_SONAME)
C_EXAMPLES      := $(BUILD)/examples/c/fit_hdf5 $(BUILD)/examples/c/fit_memory
CTEST_DIR       := $(BUILD)/tests/c
CPPTEST_DIR     := $(BUILD)/tests/cpp

# The version, from the header (the one place it is written).
SOMPCA_VERSION = $(shell awk '/define SOMPCA_VERSION_(MAJOR|MINOR|PATCH) /{v = v (v == "" ? "" : ".") $$3} END{print v}' include/sompca.h)

TEST_TARGETS += test-capi

.PHONY: lib examples examples-c test-capi install uninstall

lib: $(SOMPCA_LIB)

$(SOMPCA_LIB): $(CAPI_GO_SOURCES) | deps-system
	@mkdir -p $(@D)
	CGO_CFLAGS='$(CAPI_CGO_CFLAGS)' $(GO) build -buildmode=c-shared $(CAPI_LDFLAGS) -o $@ ./capi
	rm -f $(@:.so=.h)
	ln -sf libsompca.so $(@D)/$(SOMPCA_SONAME)   # what programs linked in the tree load

# The same library with cgo's full pointer checks (Go pointers stored in C
# memory, and so on), for the tests only.
$(SOMPCA_LIB_CHK): $(CAPI_GO_SOURCES) | deps-system
	@mkdir -p $(@D)
	CGO_CFLAGS='$(CAPI_CGO_CFLAGS)' GOEXPERIMENT=cgocheck2 $(GO) build -buildmode=c-shared $(CAPI_LDFLAGS) -o $@ ./capi
	rm -f $(@:.so=.h)
	ln -sf libsompca.so $(@D)/$(SOMPCA_SONAME)

examples: examples-c

examples-c: $(C_EXAMPLES)

# Plain cc against the installed-style layout; the rpath finds build/libsompca.so
# from build/examples/c wherever the tree is.
$(BUILD)/examples/c/%: examples/c/%.c include/sompca.h $(SOMPCA_LIB)
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c99 -I include -o $@ $< -L $(BUILD) -lsompca -Wl,-rpath,'$$ORIGIN/../..'

# The test program (C11 for stdatomic; links libhdf5 directly to write and
# read its own files independently of sompca), built twice: against the
# normal library and against the cgocheck2 one.
$(CTEST_DIR)/test_capi: tests/c/test_capi.c tests/c/check.h tests/c/h5data.h include/sompca.h $(SOMPCA_LIB)
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c11 -pthread -I include $(HDF5_CFLAGS) -o $@ $< \
	  -L $(BUILD) -lsompca -Wl,-rpath,'$$ORIGIN/../..' $(HDF5_LIBS) -lm

$(CTEST_DIR)/cgocheck2/test_capi: tests/c/test_capi.c tests/c/check.h tests/c/h5data.h include/sompca.h $(SOMPCA_LIB_CHK)
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c11 -pthread -I include $(HDF5_CFLAGS) -o $@ $< \
	  -L $(BUILD)/cgocheck2 -lsompca -Wl,-rpath,'$$ORIGIN/../../../cgocheck2' $(HDF5_LIBS) -lm

$(CTEST_DIR)/test_dlopen: tests/c/test_dlopen.c tests/c/check.h include/sompca.h
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c11 -I include -o $@ $< -ldl

# LD_PRELOAD library that makes libhdf5's writes to chosen files fail (EIO, ENOSPC).
$(CTEST_DIR)/failwrite.so: tests/faults/failwrite.c
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -shared -fPIC -o $@ $< -ldl

$(CTEST_DIR)/mkdata: tests/c/mkdata.c tests/c/h5data.h
	@mkdir -p $(@D)
	$(CC) $(C_WARN) -std=c99 $(HDF5_CFLAGS) -o $@ $< $(HDF5_LIBS) -lm

# The header compiles alone as strict C99 and as C++, and the C++ wrapper
# include/sompca.hpp alone as C++17.
$(CTEST_DIR)/header.stamp: include/sompca.h include/sompca.hpp
	@mkdir -p $(@D)
	printf '#include "sompca.h"\nint main(void) { return sompca_version_number() == 0; }\n' > $(CTEST_DIR)/header.c
	$(CC) $(C_WARN) -std=c99 -pedantic -I include -fsyntax-only $(CTEST_DIR)/header.c
	cp $(CTEST_DIR)/header.c $(CTEST_DIR)/header.cc
	c++ $(C_WARN) -std=c++17 -pedantic -I include -fsyntax-only $(CTEST_DIR)/header.cc
	printf '#include "sompca.hpp"\nint main() { return sompca::default_options().size == 0; }\n' > $(CTEST_DIR)/header_hpp.cc
	c++ $(C_WARN) -std=c++17 -pedantic -I include -fsyntax-only $(CTEST_DIR)/header_hpp.cc
	touch $@

# The C++ wrapper's test program (tests/cpp), g++ -std=c++17 as strict as the C.
$(CPPTEST_DIR)/test_sompca: tests/cpp/test_sompca.cpp include/sompca.hpp include/sompca.h $(SOMPCA_LIB)
	@mkdir -p $(@D)
	c++ $(C_WARN) -std=c++17 -pedantic -I include -o $@ $< -L $(BUILD) -lsompca -Wl,-rpath,'$$ORIGIN/../..'

test-capi: $(CTEST_DIR)/test_capi $(CTEST_DIR)/cgocheck2/test_capi $(CTEST_DIR)/mkdata $(CTEST_DIR)/test_dlopen \
           $(CTEST_DIR)/header.stamp $(C_EXAMPLES) $(CTEST_DIR)/failwrite.so $(CPPTEST_DIR)/test_sompca
	$(GO) vet ./capi ./tests/c/...
	@# The library exports exactly the functions that sompca.h declares.
	nm -D --defined-only $(SOMPCA_LIB) | awk '$$2 == "T" {print $$3}' | sort > $(CTEST_DIR)/exports.txt
	sed -n 's/^[a-z].*[ *]\(sompca_[a-z0-9_]*\)(.*/\1/p' include/sompca.h | sort > $(CTEST_DIR)/declared.txt
	diff $(CTEST_DIR)/declared.txt $(CTEST_DIR)/exports.txt
	@# Go exports are named sompca_go_*, reached through the fork guard of capi/guard.c.
	@! grep -n '^//export sompca_' capi/*.go | grep -v '//export sompca_go_' || \
	  { echo "error: export Go functions as sompca_go_NAME and add sompca_NAME to capi/guard.c" >&2; exit 1; }
	@test -z "$$(gofmt -l capi tests/c)" || { gofmt -l capi tests/c; echo "error: gofmt needed" >&2; exit 1; }
	$(CTEST_DIR)/test_dlopen $(SOMPCA_LIB)
	rm -rf $(CTEST_DIR)/go $(CTEST_DIR)/tmp && mkdir -p $(CTEST_DIR)/tmp
	CGO_ENABLED=0 $(GO) run ./tests/c/gofeatures -out $(CTEST_DIR)/go
	$(CTEST_DIR)/test_capi $(CTEST_DIR)/go $(CTEST_DIR)/tmp > $(CTEST_DIR)/test_capi.out || { cat $(CTEST_DIR)/test_capi.out; exit 1; }
	@cat $(CTEST_DIR)/test_capi.out
	@# README.md says the C test runs thousands of checks: hold it to that.
	@awk '/ passed, 0 failed$$/ { n = $$1 } END { if (n < 1000) { print "error: the C test ran " n + 0 " checks; README.md says thousands" > "/dev/stderr"; exit 1 } }' $(CTEST_DIR)/test_capi.out
	SOMPCA_TEST_PANIC_IN=sompca_model_n_samples $(CTEST_DIR)/test_capi --panic
	rm -rf $(CTEST_DIR)/limited && mkdir -p $(CTEST_DIR)/limited
	sh -c 'ulimit -f 64 && exec $(CTEST_DIR)/test_capi --file-size-limit $(CTEST_DIR)/limited'
	sh -c 'ulimit -v 3000000 && exec $(CTEST_DIR)/test_capi --address-space-limit'
	@# Failed writes: libhdf5's writes failing halfway (EIO, ENOSPC; failwrite.so), and a full disk
	@# (a 64 KiB tmpfs in a mount namespace, where unshare can make one).
	for fault in EIO:0 EIO:3000 EIO:30000 ENOSPC:3000; do \
	  rm -rf $(CTEST_DIR)/faulty $(CTEST_DIR)/faulty-in && mkdir -p $(CTEST_DIR)/faulty $(CTEST_DIR)/faulty-in && \
	  LD_PRELOAD=$(abspath $(CTEST_DIR))/failwrite.so FAILWRITE_PATH=$(abspath $(CTEST_DIR))/faulty/ \
	  FAILWRITE_ERRNO=$${fault%:*} FAILWRITE_AFTER=$${fault#*:} $(CTEST_DIR)/test_capi --write-fault \
	    $(abspath $(CTEST_DIR))/faulty $(abspath $(CTEST_DIR))/faulty-in \
	    "$$(test $${fault%:*} = EIO && echo 'input/output error' || echo 'no space left on device')" || exit 1; \
	done
	rm -rf $(CTEST_DIR)/full $(CTEST_DIR)/full-in && mkdir -p $(CTEST_DIR)/full $(CTEST_DIR)/full-in
	if unshare --mount --propagation private true 2>/dev/null; then ns="unshare --mount --propagation private"; \
	elif unshare --user --map-root-user --mount true 2>/dev/null; then ns="unshare --user --map-root-user --mount"; \
	else ns=""; echo "test-capi: NOT TESTED: the full disk (no mount namespace: unshare)"; fi; \
	test -z "$$ns" || $$ns sh -c 'mount -t tmpfs -o size=64k sompca-full "$$0" && exec "$$@"' $(abspath $(CTEST_DIR))/full \
	  $(CTEST_DIR)/test_capi --write-fault $(abspath $(CTEST_DIR))/full $(abspath $(CTEST_DIR))/full-in 'no space left on device'
	$(CTEST_DIR)/cgocheck2/test_capi $(CTEST_DIR)/go $(CTEST_DIR)/tmp
	rm -rf $(CPPTEST_DIR)/tmp && mkdir -p $(CPPTEST_DIR)/tmp
	$(CPPTEST_DIR)/test_sompca $(CPPTEST_DIR)/tmp
	sh tests/c/run_examples.sh $(BUILD) $(CTEST_DIR)
	rm -rf $(CTEST_DIR)/prefix
	$(MAKE) --no-print-directory install PREFIX=$(abspath $(CTEST_DIR))/prefix
	PKG_CONFIG_PATH=$(abspath $(CTEST_DIR))/prefix/lib/pkgconfig sh -c \
	  '$(CC) $(C_WARN) -std=c99 -o $(CTEST_DIR)/fit_memory_installed examples/c/fit_memory.c $$(pkg-config --cflags --libs sompca)'
	sh tests/c/check_install.sh $(CTEST_DIR)/prefix $(SOMPCA_VERSION) $(CTEST_DIR)/fit_memory_installed
	LD_LIBRARY_PATH=$(abspath $(CTEST_DIR))/prefix/lib $(CTEST_DIR)/fit_memory_installed > $(CTEST_DIR)/fit_memory_installed.out
	cmp $(CTEST_DIR)/fit_memory_installed.out $(CTEST_DIR)/examples/fit_memory.out
	@echo "test-capi: passed"

install: $(SOMPCA_LIB)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PCDIR)
	install -m 755 $(SOMPCA_LIB) $(DESTDIR)$(LIBDIR)/libsompca.so.$(SOMPCA_VERSION)
	ln -sf libsompca.so.$(SOMPCA_VERSION) $(DESTDIR)$(LIBDIR)/$(SOMPCA_SONAME)
	ln -sf $(SOMPCA_SONAME) $(DESTDIR)$(LIBDIR)/libsompca.so
	install -m 644 include/sompca.h $(DESTDIR)$(INCDIR)/sompca.h
	install -m 644 include/sompca.hpp $(DESTDIR)$(INCDIR)/sompca.hpp
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
	    -e 's|@VERSION@|$(SOMPCA_VERSION)|g' sompca.pc.in > $(DESTDIR)$(PCDIR)/sompca.pc
	chmod 644 $(DESTDIR)$(PCDIR)/sompca.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsompca.so $(DESTDIR)$(LIBDIR)/$(SOMPCA_SONAME) \
	      $(DESTDIR)$(LIBDIR)/libsompca.so.$(SOMPCA_VERSION) $(DESTDIR)$(INCDIR)/sompca.h \
	      $(DESTDIR)$(INCDIR)/sompca.hpp $(DESTDIR)$(PCDIR)/sompca.pc
