#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the harness self-test, N guests: every guest pings every
# peer on its own link, and all rxe ports are ACTIVE.
set -e
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"

PING=ping
command -v ping >/dev/null || PING="busybox ping"
rdma link show
p=0
while [ $p -lt "$TXRDMA_NGUESTS" ]; do
	if [ $p != "$TXRDMA_GUEST" ]; then
		addr=$(txrdma_peer_addr $p)
		rxe=$(txrdma_rxe_to $p)
		[ "$(txrdma_port_state "$rxe")" = ACTIVE ]
		$PING -c 2 -W 5 "$addr" | grep -E 'packets transmitted'
		echo "guest $TXRDMA_GUEST -> guest $p ($addr via $rxe) OK"
	fi
	p=$((p + 1))
done
txrdma_signal "pinged-$TXRDMA_GUEST"
# Stay up until every guest is done, so nobody pings a powered-off peer.
p=0
while [ $p -lt "$TXRDMA_NGUESTS" ]; do
	txrdma_wait_file "pinged-$p" 120
	p=$((p + 1))
done
echo "mesh OK"
