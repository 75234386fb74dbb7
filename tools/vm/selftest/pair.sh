#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the harness self-test, two guests: guest 0 serves, guest 1
# runs rdma_cm clients (ib_send_lat -R, then rping) across the link.
set -e
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"

if [ "$TXRDMA_GUEST" = 0 ]; then
	me=$(txrdma_my_addr 1)
	ib_send_lat -R -n 100 > "$TXRDMA_OUT/send_lat_server.log" 2>&1 &
	txrdma_wait_cm_listen 18515 30
	txrdma_signal lat-ready
	wait $!
	echo "ib_send_lat server done"
	rping -s -a "$me" -C 5 > "$TXRDMA_OUT/rping_server.log" 2>&1 &
	txrdma_wait_cm_listen 7174 30
	txrdma_signal rping-ready
	wait $!
	echo "rping server done"
else
	peer=$(txrdma_peer_addr 0)
	echo "guest 1: peer $peer via $(txrdma_rxe_to 0)"
	txrdma_wait_file lat-ready 60
	ib_send_lat -R -n 100 "$peer" | grep -A1 '#bytes'
	txrdma_wait_file rping-ready 60
	rping -c -a "$peer" -C 5 -v | tail -2
fi
echo "pair OK"
