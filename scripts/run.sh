#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The main job: install what is missing, build, boot a 2-guest QEMU
# cluster wired with Soft-RoCE, load txrdma.ko in each guest and print
# what txrdma sees there (txrdma-admin dev show), then send RDMA traffic
# between the guests (rping over rdma_cm) with the module loaded.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

scripts/setup.sh
make -s all > /dev/null

exec tools/vm/txrdma-vm run -n 2 --timeout 300 -- '
. tools/vm/guestlib.sh
peer=$((1 - TXRDMA_GUEST))
echo "== guest $TXRDMA_GUEST: txrdma-admin dev show"
txrdma-admin dev show
echo "== guest $TXRDMA_GUEST: txrdma-admin -j -p dev show"
txrdma-admin -j -p dev show
if [ "$TXRDMA_GUEST" = 0 ]; then
	rping -s -a "$(txrdma_my_addr 1)" -C 5 -v > "$TXRDMA_OUT/rping.log" 2>&1 &
	txrdma_wait_cm_listen 7174 30
	txrdma_signal rping-ready
	wait $!
	echo "== guest 0: rping server"
else
	txrdma_wait_file rping-ready 60
	rping -c -a "$(txrdma_peer_addr 0)" -C 5 -v > "$TXRDMA_OUT/rping.log" 2>&1
	echo "== guest 1: rping client to $(txrdma_peer_addr 0)"
fi
cat "$TXRDMA_OUT/rping.log"
'
