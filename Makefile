# SPDX-License-Identifier: GPL-2.0
#
# mwin: the module (Kbuild), the tools, the kselftest suite and the VM
# test bed. `make help` lists the targets.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

# The kernel tree to build against: the running kernel's unless KDIR says
# otherwise (never a guess: a module built for another kernel would be
# installed where the running one does not look).
KDIR ?= /lib/modules/$(shell uname -r)/build

PREFIX ?= /usr/local
DESTDIR ?=

TOOLS_CFLAGS := -O2 -g -Wall -Wextra -Werror -Wshadow -Wformat=2 \
		-I$(TOP)/uapi -I$(TOP)/tools/lib $(EXTRA_CFLAGS)
# The kselftest harness is written for -Wall, as in the kernel tree.
SELFTEST_CFLAGS = -O2 -g -Wall -Werror -I$(TOP)/uapi \
		  -I$(TOP)/tools/lib -I$(KSFT)
RDMA_LIBS := -lrdmacm -libverbs -lcrypto

# Guest kernel for the VM: what the Debian archive offers now.
VM := $(TOP)/tools/testing/vm
VM_KVER = $(shell cat $(BUILD)/vm/kver 2>/dev/null)
VM_KDIR = $(BUILD)/vm/k/$(VM_KVER)/usr/src/linux-headers-$(VM_KVER)
# The other guest kernels (the newest Debian 12 kernel), each with its own
# mwin.ko and mwin-test.ko in build/vm/k/KVER/.
VM_KVERS_MORE = $(filter-out $(VM_KVER),$(shell cat $(BUILD)/vm/kvers 2>/dev/null))
VM_KVDIR = $(BUILD)/vm/k/$(1)/usr/src/linux-headers-$(1)

.PHONY: all modules tools selftests clean install uninstall check demo deps \
	vm-modules help lint compat-check dkms-check dkms-install man \
	install-peer uninstall-peer install-lib uninstall-lib host-snapshot \
	peerlib lib examples

all: modules

modules:
	@test -d "$(KDIR)" || { echo "No kernel tree at $(KDIR): install" \
		"linux-headers-$$(uname -r), or set KDIR to the tree of the kernel" \
		"the module is for" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# ---- tools ---------------------------------------------------------------

# The tools' libraries, each built once. libmwin (the ioctl wrappers,
# <mwin/mwin.h>) and libmwinpeer (tools/lib/peer, <mwin/peer.h>) are
# shared libraries with a soname and versioned symbols for applications
# (libmwinpeer with libmwin's names tables linked in), and static archives
# for the tests and benchmark of this tree, which link LIBS_A (libmwin.a
# holds mwctl's printer too). mwctl links libmwin.so and the printer
# alone (libmwprint.a), as an application would: nothing private.
PEER_SOVER := 1
PEER_VERSION := 1.0.0
LIBMWIN_SOVER := 1
LIBMWIN_VERSION := 1.0.0
LIBMWIN_SRCS := tools/lib/libmwin.c tools/lib/names.c tools/lib/events.c \
	tools/lib/errors.c
PRINT_SRCS := tools/lib/print.c
PEER_SRCS := $(wildcard tools/lib/peer/*.c)
LIB_HDRS := uapi/linux/mwin.h tools/lib/mwin/mwin.h tools/lib/print.h \
	    tools/lib/mwin/peer.h tools/lib/peer/internal.h
lib_objs = $(patsubst tools/lib/%.c,$(BUILD)/lib/obj/%.o,$(1))
LIBMWIN_A := $(BUILD)/lib/libmwin.a
LIBMWIN_SO := $(BUILD)/lib/libmwin.so.$(LIBMWIN_VERSION)
PRINT_A := $(BUILD)/lib/libmwprint.a
PEER_A := $(BUILD)/lib/libmwinpeer.a
PEER_SO := $(BUILD)/lib/libmwinpeer.so.$(PEER_VERSION)
LIBS_A := $(PEER_A) $(LIBMWIN_A)

$(BUILD)/lib/obj/%.o: tools/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(PEER_SO): $(call lib_objs,$(PEER_SRCS) tools/lib/names.c) \
		tools/lib/peer/libmwinpeer.map
	$(CC) -shared -Wl,-soname,libmwinpeer.so.$(PEER_SOVER) \
		-Wl,--version-script=tools/lib/peer/libmwinpeer.map -Wl,-z,defs \
		-o $@ $(filter %.o,$^) $(RDMA_LIBS)
	ln -sf $(@F) $(@D)/libmwinpeer.so.$(PEER_SOVER)
	ln -sf libmwinpeer.so.$(PEER_SOVER) $(@D)/libmwinpeer.so

$(PEER_A): $(call lib_objs,$(PEER_SRCS))
	rm -f $@
	$(AR) rcs $@ $^

$(LIBMWIN_SO): $(call lib_objs,$(LIBMWIN_SRCS)) tools/lib/libmwin.map
	$(CC) -shared -Wl,-soname,libmwin.so.$(LIBMWIN_SOVER) \
		-Wl,--version-script=tools/lib/libmwin.map -Wl,-z,defs \
		-o $@ $(filter %.o,$^)
	ln -sf $(@F) $(@D)/libmwin.so.$(LIBMWIN_SOVER)
	ln -sf libmwin.so.$(LIBMWIN_SOVER) $(@D)/libmwin.so

$(LIBMWIN_A): $(call lib_objs,$(LIBMWIN_SRCS) $(PRINT_SRCS))
	rm -f $@
	$(AR) rcs $@ $^

$(PRINT_A): $(call lib_objs,$(PRINT_SRCS))
	rm -f $@
	$(AR) rcs $@ $^

peerlib: $(PEER_SO) $(LIBS_A)
lib: $(LIBMWIN_SO) $(LIBMWIN_A)

# The examples link the shared library, as an application would.
EXAMPLES := $(patsubst tools/examples/%.c,$(BUILD)/examples/%,$(wildcard tools/examples/*.c))

$(BUILD)/examples/%: tools/examples/%.c tools/lib/mwin/peer.h $(PEER_SO)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $< -L$(BUILD)/lib $(EXAMPLE_LIBS) -lmwinpeer \
		-libverbs -Wl,-rpath,'$$ORIGIN/../lib'

# share_buffer is the owner's side too: it links libmwin as well.
$(BUILD)/examples/share_buffer: EXAMPLE_LIBS := -lmwin
$(BUILD)/examples/share_buffer: tools/lib/mwin/mwin.h $(LIBMWIN_SO)

examples: $(EXAMPLES)

$(BUILD)/tools/mwpeer: $(wildcard tools/mwpeer/*.c tools/mwpeer/*.h) $(LIBS_A)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(LIBS_A) $(RDMA_LIBS)

# mwctl finds libmwin.so.1 beside it in the tree (build/lib) and once
# installed ($(PREFIX)/lib).
$(BUILD)/tools/mwctl: $(wildcard tools/mwctl/*.c tools/mwctl/*.h) $(LIBMWIN_SO) \
		$(PRINT_A)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(PRINT_A) \
		-L$(BUILD)/lib -lmwin -Wl,-rpath,'$$ORIGIN/../lib'

tools: $(BUILD)/tools/mwpeer $(BUILD)/tools/mwctl peerlib lib examples

# ---- selftests -----------------------------------------------------------

# From a linux-source package: the kernel's own kselftest harness and the
# style checkers, extracted into build/ksrc (tools/testing/ksrc.sh; again
# when the package's version changes). The tests use the harness only
# through its public interface, and build with the harness of 6.1 and of
# 6.12 (make selftests-harnesses): the archive updates both under us.
KSRC_PKG := linux-source-6.1
KSRC := $(BUILD)/ksrc
KSFT = $(KSRC)/tools/testing/selftests

.PHONY: FORCE
$(KSRC)/.version: FORCE | deps
	@bash $(TOP)/tools/testing/ksrc.sh $(KSRC_PKG) $(@D)

# The binaries (and their objects) go to SELFTEST_OUT.
SELFTEST_OUT := $(BUILD)/selftests
SELFTESTS = $(patsubst selftests/%.c,$(SELFTEST_OUT)/%,$(wildcard selftests/mwin_*.c))
test_objs = $(patsubst selftests/%.c,$(SELFTEST_OUT)/obj/%.o,$(1))

# A helper file (a test's helpers below, libtest.a) includes the harness
# for its macros, and so defines again whatever the harness defines
# without static: every symbol its object defines is made weak, so that
# the linker takes the test's own (selftests/mwin_test.h). Only those it
# defines: a weak reference would not pull its definition from a library.
$(SELFTEST_OUT)/obj/%.o: selftests/%.c $(wildcard selftests/*.h selftests/*/*.h) \
		$(LIB_HDRS) $(KSRC)/.version
	@mkdir -p $(@D)
	$(CC) $(SELFTEST_CFLAGS) -c -o $@ $<
	nm --defined-only --extern-only --format=posix $@ | cut -d' ' -f1 > $@.defs
	objcopy --weaken-symbols=$@.defs $@

# mwin_conformance's helpers: its reference side (mwcore.c, shared with the
# crash-case program of selftests/conformance.sh), the two sides a case
# runs on, and the key-guessing case with its threads
$(SELFTEST_OUT)/mwin_conformance: $(call test_objs,$(addprefix \
	selftests/conformance/,mwcore.c side.c key_guess.c))
# mwin_faults keeps its tests; its framework is in selftests/faults/
$(SELFTEST_OUT)/mwin_faults: $(call test_objs,$(wildcard selftests/faults/*.c))
# mwin_fuzz's fuzzers, traffic peers and stranger, apart from its test
$(SELFTEST_OUT)/mwin_fuzz: $(call test_objs,selftests/fuzz/fuzz.c)

# What any test may use beside mwin_test.h, built once: running mwctl and
# mwpeer as programs (selftests/mwctl_run.h). A test links only what it
# calls.
TEST_A = $(SELFTEST_OUT)/lib/libtest.a
$(TEST_A): $(call test_objs,selftests/mwctl_run.c)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# A test's helpers are the objects among its prerequisites.
$(SELFTEST_OUT)/%: selftests/%.c $(wildcard selftests/*.h selftests/*/*.h) \
		$(LIB_HDRS) $(KSRC)/.version $(TEST_A) $(LIBS_A)
	@mkdir -p $(@D)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(filter %.o,$^) $(TEST_A) $(LIBS_A) \
		$(RDMA_LIBS) -ljson-c -lpthread

selftests: $(SELFTESTS)

# The suite against the harness of every linux-source make deps installs,
# each build apart (build/ksrc-VER, build/selftests-VER): building is the
# test; make check runs it.
HARNESS_PKGS := linux-source-6.12
.PHONY: selftests-harnesses
selftests-harnesses: deps
	@set -e; for p in $(HARNESS_PKGS); do \
		v=$${p#linux-source-}; \
		echo "selftests against the kselftest harness of $$p"; \
		$(MAKE) -s -o deps selftests KSRC_PKG=$$p KSRC=$(BUILD)/ksrc-$$v \
			SELFTEST_OUT=$(BUILD)/selftests-$$v; \
	done

# ---- VM test bed ---------------------------------------------------------

deps:
	@bash $(VM)/deps.sh

# mwin.ko and mwin-test.ko for every guest kernel: the first's in build/vm/,
# the others' in build/vm/k/KVER/. And siw.ko (soft-iWARP, which Debian's
# kernels lack) for every one, the first included, in build/vm/k/KVER/.
vm-modules: deps
	bash $(VM)/build-modules.sh $(VM_KDIR) $(BUILD)/vm
	@set -e; for k in $(VM_KVERS_MORE); do \
		echo "mwin.ko for $$k"; \
		bash $(VM)/build-modules.sh $(call VM_KVDIR,$$k) $(BUILD)/vm/k/$$k; \
	done
	@set -e; for k in $$(cat $(BUILD)/vm/kvers); do \
		bash $(VM)/siw.sh $$k $(BUILD)/vm/k/$$k; \
	done

# The style gates and builds first, then the suite and the demo in the VM.
# host-snapshot comes first: the end of the run checks that nothing of it
# (kernel images, /boot) changed.
check: host-snapshot inputs lint-check compat-check dkms-check vm-modules \
		selftests selftests-harnesses tools
	bash $(TOP)/tools/testing/lint-test.sh
	bash $(TOP)/tools/testing/install-check.sh
	bash $(TOP)/selftests/run-vm.sh
	bash $(VM)/host-unchanged.sh check $(BUILD)/host.before

host-snapshot:
	@mkdir -p $(BUILD)
	bash $(VM)/host-unchanged.sh snapshot $(BUILD)/host.before

# Window semantics side by side with rdma-core's Type 1 and 2 memory
# windows on the same rxe device; prints the table (Documentation/conformance.rst).
.PHONY: conformance
conformance: vm-modules selftests tools
	bash $(TOP)/selftests/conformance.sh

# The failure paths' suites under a debug kernel (KASAN, lockdep, kmemleak, ...) built from
# linux-source into build/debug-kernel/ (the first run builds it: 20 to 30 min on 2 cores).
.PHONY: check-debug
check-debug: deps selftests tools
	bash $(VM)/check-debug.sh

demo: vm-modules tools
	bash $(TOP)/tools/demo.sh

# The benchmark suite in the VM: figures, targets and plots in build/bench/.
.PHONY: bench
bench: vm-modules tools
	bash $(TOP)/tools/bench/run.sh

# Hardware qualification on this host's RDMA device (Documentation/qualify.rst):
# mwin.ko against KDIR, the tools and suite, then tools/qualify.sh as root
# writes build/qualify/report-HOST-DATE.md. QUALIFY_ARGS: its options.
.PHONY: qualify
qualify: modules tools selftests $(BUILD)/tools/mwbench
	$(if $(filter 0,$(shell id -u)),,sudo) bash $(TOP)/tools/qualify.sh $(QUALIFY_ARGS)

$(BUILD)/tools/mwbench: $(wildcard tools/bench/*.c) tools/bench/mwbench.h \
		$(LIB_HDRS) $(LIBS_A)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(LIBS_A) $(RDMA_LIBS) -lpthread -lm

# ---- style gates ---------------------------------------------------------

KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h tools/bench/kmod/*.c tools/bench/kmod/*.h) \
	uapi/linux/mwin.h
TOOL_SRCS := $(wildcard tools/lib/*.c tools/lib/peer/*.c tools/mwctl/*.c \
	tools/mwpeer/*.c tools/examples/*.c)
BENCH_SRCS := $(wildcard tools/bench/*.c)

# checkpatch --strict and kernel-doc of linux-source-6.1 on the module and
# uAPI (tools/testing/lint.sh), sparse on the module, cppcheck on the
# tools. make lint: any finding fails. make check's lint-check: the same,
# but the findings of a checker newer than the one the tree was verified
# with (tools/testing/inputs.verified) make one warning line instead,
# except under CI=true. CHECKER: another checker's tree (lint-test.sh).
.PHONY: lint-check inputs inputs-record
lint lint-check: $(KSRC)/.version deps
	bash $(TOP)/tools/testing/lint.sh $(if $(filter lint,$@),strict,check) \
		$(KMOD_SRCS)
	@$(MAKE) -s -C $(VM_KDIR) M=$(TOP) C=2 modules > $(BUILD)/sparse.log 2>&1 || \
		{ cat $(BUILD)/sparse.log; exit 1; }
	@if grep -E 'warning:|error:' $(BUILD)/sparse.log; then exit 1; fi
	cppcheck -q --error-exitcode=1 --enable=warning,style,performance,portability \
		--inline-suppr -I uapi -I tools/lib $(TOOL_SRCS)
	cppcheck -q --error-exitcode=1 --enable=warning,style,performance,portability \
		--suppress=variableScope -I uapi -I tools/lib $(BENCH_SRCS)

# What make check takes from the archive, against what the tree was
# verified with (tools/testing/inputs.sh); inputs-record writes it down.
inputs: $(KSRC)/.version deps
	@bash $(TOP)/tools/testing/inputs.sh show
inputs-record: $(KSRC)/.version deps
	@bash $(TOP)/tools/testing/inputs.sh record

# The module must build against every guest kernel's tree (deps.sh unpacks
# them) and every linux-headers tree installed here.
compat-check: deps
	@for k in $(sort $(wildcard $(BUILD)/vm/k/*/usr/src/linux-headers-*-amd64 \
			/usr/src/linux-headers-*-amd64)); do \
		echo "build against $$k"; \
		rm -rf $(BUILD)/compat && mkdir -p $(BUILD)/compat && \
		cp -r kmod uapi Kbuild $(BUILD)/compat/ && \
		$(MAKE) -s -C $$k M=$(BUILD)/compat modules || exit 1; \
	done

# DKMS: the version is dkms.conf's; only the module's sources are copied.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(TOP)/dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/mwin-$(DKMS_VERSION)
DKMS_FILES := kmod uapi Kbuild dkms.conf

dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(DKMS_FILES) $(DKMS_SRC)/
	dkms add mwin/$(DKMS_VERSION)
	dkms install mwin/$(DKMS_VERSION)

# DKMS builds the module from /usr/src/mwin-VERSION against the guest
# kernel's unpacked tree (build only: this host cannot load it).
dkms-check: deps
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(DKMS_FILES) $(DKMS_SRC)/
	dkms remove mwin/$(DKMS_VERSION) --all >/dev/null 2>&1 || true
	dkms add mwin/$(DKMS_VERSION)
	dkms build mwin/$(DKMS_VERSION) -k $(VM_KVER) --kernelsourcedir $(VM_KDIR)
	dkms remove mwin/$(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

# ---- install -------------------------------------------------------------

MWIN_GROUP ?= rdma
# libmwin's pages: libmwin(3), and one per call family in
# Documentation/libmwin/, each function of libmwin.map a link to its
# family's page (install-check.sh checks that none is left out).
LIB_MAN3 := libmwin mwin_region mwin_window mwin_tenant mwin_peer mwin_stats \
	mwin_events
LIB_MAN3_libmwin := mwin_open mwin_close mwin_ioctl mwin_strerror \
	mwin_window_state_name mwin_peer_state_name mwin_region_kind_name \
	mwin_revoke_reason_name \
	mwin_down_reason_name mwin_reject_reason_name mwin_access_str \
	mwin_access_parse
LIB_MAN3_mwin_region := mwin_region_create mwin_region_create_opts \
	mwin_region_create_near mwin_region_create_user mwin_region_create_file \
	mwin_region_destroy mwin_region_get mwin_region_mmap
LIB_MAN3_mwin_window := mwin_window_create mwin_window_rebind \
	mwin_window_invalidate mwin_window_destroy mwin_window_renew \
	mwin_window_get mwin_window_batch
LIB_MAN3_mwin_tenant := mwin_tenant_create mwin_tenant_set mwin_tenant_get \
	mwin_tenant_find mwin_tenant_destroy
LIB_MAN3_mwin_peer := mwin_peer_get mwin_peer_disconnect
LIB_MAN3_mwin_stats := mwin_info mwin_stat_name
LIB_MAN3_mwin_events := mwin_next_event mwin_event_name
LIB_MAN3_LINKS := $(foreach p,$(LIB_MAN3),$(LIB_MAN3_$(p)))
LIB_MAN_PAGES := $(patsubst %,$(BUILD)/man/%.3,$(LIB_MAN3))
MAN_PAGES := $(BUILD)/man/mwctl.8 $(BUILD)/man/mwpeer.1 $(BUILD)/man/libmwinpeer.3 \
	$(LIB_MAN_PAGES)

$(BUILD)/man/%.8 $(BUILD)/man/%.1 $(BUILD)/man/%.3: Documentation/%.rst
	@mkdir -p $(@D)
	rst2man $< > $@

$(BUILD)/man/%.3: Documentation/libmwin/%.rst
	@mkdir -p $(@D)
	rst2man $< > $@

man: $(MAN_PAGES)

# udev reads rules from the distribution's directory, not from PREFIX.
UDEV_RULES_DIR ?= $(or $(shell pkg-config --variable=udevdir udev 2>/dev/null),/lib/udev)/rules.d

# A host that only runs peers, no kernel headers: libmwinpeer (library,
# <mwin/peer.h> and the <linux/mwin.h> it includes, pkg-config file, man
# pages, Python module) and mwpeer. ldconfig only for the live system.
PYTHON_SITE ?= $(PREFIX)/lib/$(shell python3 -c \
	'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null || \
	echo python3)/dist-packages
PEER_MAN3_LINKS := mwpeer_open mwpeer_process mwpeer_post
PEER_INSTALLED := bin/mwpeer share/man/man1/mwpeer.1 \
	lib/libmwinpeer.so.$(PEER_VERSION) lib/libmwinpeer.so.$(PEER_SOVER) \
	lib/libmwinpeer.so lib/pkgconfig/mwinpeer.pc include/mwin/peer.h \
	include/linux/mwin.h share/man/man3/libmwinpeer.3 \
	$(patsubst %,share/man/man3/%.3,$(PEER_MAN3_LINKS))

install-peer: $(BUILD)/tools/mwpeer $(BUILD)/man/mwpeer.1 $(PEER_SO) \
		$(BUILD)/man/libmwinpeer.3
	install -D -m 0755 $(BUILD)/tools/mwpeer $(DESTDIR)$(PREFIX)/bin/mwpeer
	install -D -m 0644 $(BUILD)/man/mwpeer.1 $(DESTDIR)$(PREFIX)/share/man/man1/mwpeer.1
	install -D -m 0755 $(PEER_SO) $(DESTDIR)$(PREFIX)/lib/$(notdir $(PEER_SO))
	ln -sf $(notdir $(PEER_SO)) $(DESTDIR)$(PREFIX)/lib/libmwinpeer.so.$(PEER_SOVER)
	ln -sf libmwinpeer.so.$(PEER_SOVER) $(DESTDIR)$(PREFIX)/lib/libmwinpeer.so
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|; s|@VERSION@|$(PEER_VERSION)|' \
		tools/lib/peer/mwinpeer.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/mwinpeer.pc
	install -D -m 0644 tools/lib/mwin/peer.h $(DESTDIR)$(PREFIX)/include/mwin/peer.h
	install -D -m 0644 uapi/linux/mwin.h $(DESTDIR)$(PREFIX)/include/linux/mwin.h
	install -D -m 0644 $(BUILD)/man/libmwinpeer.3 $(DESTDIR)$(PREFIX)/share/man/man3/libmwinpeer.3
	for f in $(PEER_MAN3_LINKS); do \
		echo '.so man3/libmwinpeer.3' > $(DESTDIR)$(PREFIX)/share/man/man3/$$f.3; \
	done
	install -D -m 0644 tools/lib/python/mwinpeer.py $(DESTDIR)$(PYTHON_SITE)/mwinpeer.py
	test -n "$(DESTDIR)" || ldconfig

# <linux/mwin.h> is libmwin's as well as libmwinpeer's: the one removed
# last takes it along.
uninstall-peer:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(filter-out include/linux/mwin.h, \
		$(PEER_INSTALLED))) $(DESTDIR)$(PYTHON_SITE)/mwinpeer.py
	test -e $(DESTDIR)$(PREFIX)/include/mwin/mwin.h || \
		rm -f $(DESTDIR)$(PREFIX)/include/linux/mwin.h
	test -n "$(DESTDIR)" || ldconfig

# A host whose applications use the module, no kernel headers: libmwin
# (library, <mwin/mwin.h> and the <linux/mwin.h> it includes, pkg-config
# file, man pages, Python module). ldconfig only for the live system.
LIB_INSTALLED := lib/libmwin.so.$(LIBMWIN_VERSION) lib/libmwin.so.$(LIBMWIN_SOVER) \
	lib/libmwin.so lib/pkgconfig/mwin.pc include/mwin/mwin.h \
	include/linux/mwin.h \
	$(patsubst %,share/man/man3/%.3,$(LIB_MAN3) $(LIB_MAN3_LINKS))

install-lib: $(LIBMWIN_SO) $(LIB_MAN_PAGES)
	install -D -m 0755 $(LIBMWIN_SO) $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBMWIN_SO))
	ln -sf $(notdir $(LIBMWIN_SO)) $(DESTDIR)$(PREFIX)/lib/libmwin.so.$(LIBMWIN_SOVER)
	ln -sf libmwin.so.$(LIBMWIN_SOVER) $(DESTDIR)$(PREFIX)/lib/libmwin.so
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|; s|@VERSION@|$(LIBMWIN_VERSION)|' \
		tools/lib/mwin.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/mwin.pc
	install -D -m 0644 tools/lib/mwin/mwin.h $(DESTDIR)$(PREFIX)/include/mwin/mwin.h
	install -D -m 0644 uapi/linux/mwin.h $(DESTDIR)$(PREFIX)/include/linux/mwin.h
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 0644 $(LIB_MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man3/
	@set -e; $(foreach p,$(LIB_MAN3),for f in $(LIB_MAN3_$(p)); do \
		echo '.so man3/$(p).3' > $(DESTDIR)$(PREFIX)/share/man/man3/$$f.3; \
	done;)
	install -D -m 0644 tools/lib/python/mwin.py $(DESTDIR)$(PYTHON_SITE)/mwin.py
	test -n "$(DESTDIR)" || ldconfig

uninstall-lib:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(filter-out include/linux/mwin.h, \
		$(LIB_INSTALLED))) $(DESTDIR)$(PYTHON_SITE)/mwin.py
	test -e $(DESTDIR)$(PREFIX)/include/mwin/peer.h || \
		rm -f $(DESTDIR)$(PREFIX)/include/linux/mwin.h
	test -n "$(DESTDIR)" || ldconfig

# The module first: when it is refused (signatures required, no key),
# nothing at all is installed.
install: modules tools man
	DESTDIR=$(DESTDIR) bash $(TOP)/tools/install-module.sh $(KDIR)
	$(MAKE) -C $(TOP) install-peer
	$(MAKE) -C $(TOP) install-lib
	install -D -m 0755 $(BUILD)/tools/mwctl $(DESTDIR)$(PREFIX)/bin/mwctl
	install -D -m 0644 $(BUILD)/man/mwctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/mwctl.8
	install -d $(DESTDIR)$(UDEV_RULES_DIR)
	sed 's/@MWIN_GROUP@/$(MWIN_GROUP)/' tools/conf/60-mwin.rules.in \
		> $(DESTDIR)$(UDEV_RULES_DIR)/60-mwin.rules
	test -n "$(DESTDIR)" || ! command -v udevadm >/dev/null || udevadm control --reload
	install -D -m 0644 tools/conf/modprobe-mwin.conf \
		$(DESTDIR)$(PREFIX)/share/doc/mwin/examples/modprobe.d/mwin.conf
	install -D -m 0644 tools/conf/modules-load-mwin.conf \
		$(DESTDIR)$(PREFIX)/share/doc/mwin/examples/modules-load.d/mwin.conf

uninstall: uninstall-peer uninstall-lib
	rm -f $(DESTDIR)$(PREFIX)/bin/mwctl \
		$(DESTDIR)$(PREFIX)/include/linux/mwin.h \
		$(DESTDIR)$(PREFIX)/share/man/man8/mwctl.8 \
		$(DESTDIR)$(UDEV_RULES_DIR)/60-mwin.rules
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/mwin
	@# depmod only for the live system: a DESTDIR is a staging tree
	@set -e; for f in $(wildcard $(DESTDIR)/lib/modules/*/updates/mwin.ko* \
			$(DESTDIR)/lib/modules/*/extra/mwin.ko*); do \
		k=$${f#$(DESTDIR)/lib/modules/}; k=$${k%%/*}; \
		echo "rm $$f"; rm -f $$f; \
		$(if $(DESTDIR),:,depmod $$k); \
	done

clean:
	-test ! -d "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(BUILD)

help:
	@echo "make            build mwin.ko against KDIR ($(KDIR))"
	@echo "make tools      build mwctl, mwpeer (build/tools), libmwin and libmwinpeer (build/lib), the examples"
	@echo "make selftests  build the kselftest suite into build/selftests"
	@echo "make check      boot the Debian kernel in QEMU with rxe and run the suite"
	@echo "make demo       boot the VM and walk through a window's life"
	@echo "make bench      benchmarks in the VM: table, targets and plots in build/bench"
	@echo "make conformance  the conformance table: mwin windows against rdma-core MWs"
	@echo "make qualify    qualify this host's RDMA device: one report in build/qualify (root)"
	@echo "make lint       checkpatch, sparse, kernel-doc and cppcheck; any finding fails"
	@echo "make inputs     what make check takes from the archive, against what was verified"
	@echo "make inputs-record  record the inputs here now as verified (after make check and make lint)"
	@echo "make compat-check  build the module against every linux-headers-*-amd64 here"
	@echo "make dkms-check build the module through DKMS (root)"
	@echo "make dkms-install  copy the module's sources to /usr/src/mwin-$(DKMS_VERSION), dkms add + install"
	@echo "make install    module, tools, uAPI header, man pages, udev rule (DESTDIR, PREFIX, MWIN_GROUP)"
	@echo "make install-peer  libmwinpeer (library, headers, pkg-config, man pages, Python) and mwpeer:"
	@echo "                   a host that only runs peers (no kernel headers)"
	@echo "make uninstall-peer  remove what make install-peer installed"
	@echo "make install-lib   libmwin (library, headers, pkg-config, man pages, Python):"
	@echo "                   applications on the module's host (no kernel headers)"
	@echo "make uninstall-lib  remove what make install-lib installed"
	@echo "make uninstall  remove what make install installed"
	@echo "make clean      remove build outputs"
