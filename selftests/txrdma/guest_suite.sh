#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs every single-host selftest inside a guest (txrdma.ko loaded,
# rxe up) and prints their TAP lines prefixed with the test's name.  A
# test that exits non-zero without a "not ok" line (a crash) still
# counts as a failure.
DIR=$(cd "$(dirname "$0")" && pwd)
cd "$DIR" || exit 1
TESTS=${TXRDMA_TESTS:-"probe_test netlink_test tenant_test tenant.sh region_test lib_region_test ep_test ring_test lib_ring_test ep_stats.sh region_dev.sh region_admin.sh region_stress dev_show.sh peer_admin.sh load_cycles.sh"}
# region_stress also deletes and re-adds the first rxe device
TXRDMA_STRESS_DEV=$(rdma -j link show | jq -r '.[0] | "\(.ifname):\(.netdev)"')
export TXRDMA_STRESS_DEV
failed=0
for t in $TESTS; do
	echo "# ===== $t"
	start=$(date +%s.%N)
	# fault_inject.sh on the debug kernel: 601 s on 2026-12-07
	tmo=600
	[ "$t" = fault_inject.sh ] && tmo=1200
	out=$(timeout "$tmo" "./$t" 2>&1)
	rc=$?
	sed -E "s/^(not ok|ok) [0-9]+ (- )?/\1 - $t: /" <<<"$out"
	echo "# $t: exit $rc in $(echo "$(date +%s.%N) - $start" | bc) s"
	if [ $rc -ne 0 ]; then
		failed=1
		grep -q '^not ok' <<<"$out" || echo "not ok - $t: exited $rc"
	fi
done
exit $failed
