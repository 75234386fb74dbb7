#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The last step of every guest of the debug lane (run_vm_tests.py appends
# it to the guest's command): txrdma.ko must unload once the tests are
# done, and the kmemleak scan guest-init runs after this then sees every
# object the module allocated and never freed (with the module loaded,
# whatever its globals still point to looks referenced).  The module's
# symbols are saved first ($TXRDMA_OUT/modsyms): kmemleak's backtraces
# show an unloaded module's code as bare addresses.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
if [ ! -d /sys/module/txrdma ]; then
	ok "txrdma.ko unloads at the end # SKIP not loaded"
else
	# kmemleak prints bare addresses for the code of an unloaded
	# module: its symbols let the host name them (txrdmavm.py)
	grep '\[txrdma\]$' /proc/kallsyms > "$TXRDMA_OUT/modsyms"
	err=$(timeout 120 rmmod txrdma 2>&1)
	rc=$?
	check "txrdma.ko unloads at the end (rmmod: exit $rc${err:+, $err})" \
		test "$rc" -eq 0 -a ! -d /sys/module/txrdma
fi
tap_done
