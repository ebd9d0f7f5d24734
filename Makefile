# SPDX-License-Identifier: GPL-2.0
#
# mwin: the module (Kbuild), the tools, the kselftest suite and the VM
# test bed. `make help` lists the targets.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

# The kernel tree to build against: the running kernel's, else the newest
# Debian linux-headers-*-amd64 tree on this machine.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	  $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

PREFIX ?= /usr/local
DESTDIR ?=

CC ?= gcc
TOOLS_CFLAGS := -O2 -g -Wall -Wextra -Werror -Wshadow -Wformat=2 \
		-I$(TOP)/uapi -I$(TOP)/tools/lib $(EXTRA_CFLAGS)
# The kselftest harness is written for -Wall, as in the kernel tree.
SELFTEST_CFLAGS := -O2 -g -Wall -Werror -I$(TOP)/uapi \
		   -I$(TOP)/tools/lib -I$(BUILD)/kselftest
RDMA_LIBS := -lrdmacm -libverbs

# Guest kernel for the VM: what the Debian archive offers now.
VM := $(TOP)/tools/testing/vm
VM_KVER = $(shell cat $(BUILD)/vm/kver 2>/dev/null)
VM_KDIR = /usr/src/linux-headers-$(VM_KVER)

.PHONY: all modules tools selftests clean install uninstall check demo deps \
	vm-modules help

all: modules

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "No kernel tree: install linux-headers-$$(uname -r) or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# ---- tools ---------------------------------------------------------------

LIB_SRCS := tools/lib/libmwin.c tools/lib/mwpeer.c
LIB_HDRS := uapi/linux/mwin.h tools/lib/libmwin.h tools/lib/mwpeer.h

$(BUILD)/tools/mwpeer: tools/mwpeer/mwpeer.c $(LIB_SRCS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(RDMA_LIBS)

tools: $(BUILD)/tools/mwpeer

# ---- selftests -----------------------------------------------------------

# The kernel's own kselftest harness, taken from the linux-source package.
KSRC_TAR := $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
KSFT := $(BUILD)/kselftest

$(KSFT)/kselftest_harness.h:
	@test -n "$(KSRC_TAR)" || { echo "linux-source is not installed: run make deps" >&2; exit 1; }
	@mkdir -p $(KSFT)
	tar -xJf $(KSRC_TAR) -C $(KSFT) --strip-components=4 --wildcards \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h'
	@touch $@

SELFTESTS := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(wildcard selftests/mwin_*.c))

$(BUILD)/selftests/%: selftests/%.c selftests/mwin_test.h $(LIB_SRCS) $(LIB_HDRS) \
		$(KSFT)/kselftest_harness.h
	@mkdir -p $(@D)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(LIB_SRCS) $(RDMA_LIBS) -lpthread

selftests: $(SELFTESTS)

# ---- VM test bed ---------------------------------------------------------

deps:
	@bash $(VM)/deps.sh

# Build the module for the guest kernel: build/vm/mwin.ko.
vm-modules: deps
	$(MAKE) -C $(VM_KDIR) M=$(TOP) modules
	cp $(TOP)/mwin.ko $(BUILD)/vm/mwin.ko

check: vm-modules selftests tools
	bash $(TOP)/selftests/run-vm.sh

demo: vm-modules tools
	bash $(TOP)/tools/demo.sh

# ---- install -------------------------------------------------------------

install: modules tools
	$(MAKE) -C $(KDIR) M=$(TOP) modules_install INSTALL_MOD_PATH=$(DESTDIR)
	install -D -m 0755 $(BUILD)/tools/mwpeer $(DESTDIR)$(PREFIX)/bin/mwpeer
	install -D -m 0644 uapi/linux/mwin.h $(DESTDIR)$(PREFIX)/include/linux/mwin.h

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/mwpeer $(DESTDIR)$(PREFIX)/include/linux/mwin.h
	rm -f $(DESTDIR)/lib/modules/*/updates/mwin.ko $(DESTDIR)/lib/modules/*/extra/mwin.ko

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(BUILD)

help:
	@echo "make            build mwin.ko against KDIR ($(KDIR))"
	@echo "make tools      build mwctl and mwpeer into build/tools"
	@echo "make selftests  build the kselftest suite into build/selftests"
	@echo "make check      boot the Debian kernel in QEMU with rxe and run the suite"
	@echo "make demo       boot the VM and walk through a window's life"
	@echo "make install    install the module, tools and uAPI header (DESTDIR, PREFIX)"
	@echo "make clean      remove build outputs"
