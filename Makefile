# SPDX-License-Identifier: GPL-2.0-only
#
# txrdma: top-level build.
#   make              module, library, admin tool
#   make test         every test (host, KUnit, kselftests in QEMU)
#   make run          the main job: a QEMU cluster with txrdma loaded
#   make bench        benchmarks (QEMU, booted for benchmarks: registration
#                     cost, pool take, messages, two-phase commit; host:
#                     ring fast path instructions per message)
#   make ring-ipm     host-only: instructions per message of the ring fast
#                     path (callgrind; needs valgrind)
#   make install      module, library, headers, admin tool, man pages
#   make install-man  the man pages only (MANDIR, default PREFIX/share/man)
#
# The kernel defaults to the newest installed one that has headers
# (never `uname -r`: the build host may run another kernel).

KVER ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1 | cut -d/ -f4)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
export PREFIX DESTDIR
MANPAGES := $(wildcard Documentation/man/*.[0-9])

all: modules lib tools

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

lib:
	$(MAKE) -C lib
	$(MAKE) -C lib/txn
	$(MAKE) -C lib/raft

tools: lib
	$(MAKE) -C tools/txrdma-admin
	$(MAKE) -C tools/txkv

selftests:
	$(MAKE) -C selftests/txrdma

check: lib tools
	$(MAKE) -C lib check
	$(MAKE) -C lib/txn check
	$(MAKE) -C lib/raft check
	$(MAKE) -C tools/txrdma-admin check
	$(MAKE) -C tools/txkv check

CHECKPATCH_FILES = $(filter-out %.mod.c,$(wildcard kmod/*.[ch])) kmod/tests/*.c

checkpatch:
	$(KDIR)/scripts/checkpatch.pl --no-tree --strict -f \
		$(CHECKPATCH_FILES) 2>/dev/null || \
	$(lastword $(sort $(wildcard $(HOME)/.cache/txrdma/linux-source-*/scripts/checkpatch.pl))) \
		--no-tree --strict -f $(CHECKPATCH_FILES)

test:
	scripts/test.sh

# benchmarks run inside a QEMU guest (rxe), peers measured in the same run;
# --bench: no slub_debug (it traces every kernel allocation)
VMBENCH = tools/vm/txrdma-vm run --bench
bench: all
	$(MAKE) -C tools/bench
	$(VMBENCH) --timeout 600 -- tools/bench/reg_cost.sh
	$(VMBENCH) -n 2 --timeout 900 -- tools/bench/pool_take.sh
	$(VMBENCH) --smp 2 --timeout 900 -- tools/bench/msg_bench.sh
	$(VMBENCH) --smp 2 --timeout 1800 -- 'tools/bench/txn_bench.sh && \
		POLL_IDLE_US=1000000 tools/bench/txn_bench.sh'
	$(VMBENCH) --smp 2 --timeout 1200 -- tools/bench/raft_bench.sh
	tools/bench/ring_ipm.sh

# host-side, no VM: the ring fast path of libtxrdma under callgrind
ring-ipm: lib
	tools/bench/ring_ipm.sh

run:
	scripts/run.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	$(MAKE) -C lib install
	$(MAKE) -C lib/txn install
	$(MAKE) -C lib/raft install
	$(MAKE) -C tools/txrdma-admin install
	$(MAKE) install-man

install-man:
	for p in $(MANPAGES); do \
		s=$${p##*.}; \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$p) || exit 1; \
	done

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C lib clean
	$(MAKE) -C lib/txn clean
	$(MAKE) -C lib/raft clean
	$(MAKE) -C tools/txrdma-admin clean
	$(MAKE) -C tools/txkv clean
	$(MAKE) -C selftests/txrdma clean
	$(MAKE) -C tools/bench clean

.PHONY: all modules lib tools selftests check checkpatch test bench ring-ipm run install install-man \
	clean
