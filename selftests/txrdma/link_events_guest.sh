#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of link_events.py (two guests).  The host cuts the link
# between the guests through QEMU's monitor and restores it; each guest
# checks that txrdma saw its port go DOWN and come back ACTIVE (events
# on the multicast group, and dev show), then RDMA traffic crosses the
# restored link.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
peer_g=$((1 - TXRDMA_GUEST))
RXE=$(txrdma_rxe_to "$peer_g")
MON=$TXRDMA_OUT/monitor.json
g=g$TXRDMA_GUEST

"$ADMIN" -j monitor > "$MON" &
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$ADMIN" dev set "$RXE" enabled off
	"$ADMIN" dev set "$RXE" enabled on
	wait_for "$MON" '"event":"dev_set"' 1 && break
done
check "$g: monitor subscribed" grep -q '"event":"dev_set"' "$MON"
state() { "$ADMIN" -j dev show "$RXE" | jq -r '.[0].ports[0].state'; }
check "$g: $RXE ACTIVE before the cut" test "$(state)" = ACTIVE
txrdma_signal "$g-ready"

check "$g: port DOWN event after the cut" wait_for "$MON" \
	"\"event\":\"port\".*\"dev\":\"$RXE\".*\"old_state\":\"ACTIVE\",\"state\":\"DOWN\"" 60
check "$g: dev show says DOWN" test "$(state)" = DOWN
check "$g: rdma link agrees" test "$(txrdma_port_state "$RXE")" = DOWN
txrdma_signal "$g-down"

check "$g: port ACTIVE event after the restore" wait_for "$MON" \
	"\"event\":\"port\".*\"dev\":\"$RXE\".*\"old_state\":\"DOWN\",\"state\":\"ACTIVE\"" 60
check "$g: dev show says ACTIVE" test "$(state)" = ACTIVE
check "$g: rdma link agrees" test "$(txrdma_port_state "$RXE")" = ACTIVE
diag "$(cat "$MON")"

# RDMA (rdma_cm, RC) traffic across the restored link, module loaded
if [ "$TXRDMA_GUEST" = 0 ]; then
	rping -s -a "$(txrdma_my_addr 1)" -C 10 -v > "$TXRDMA_OUT/rping.log" 2>&1 &
	srv=$!
	txrdma_wait_cm_listen 7174 30
	txrdma_signal rping-ready
	wait $srv
	check "$g: rping server served 10 pings" \
		test "$(grep -c 'ping data' "$TXRDMA_OUT/rping.log")" -eq 10
else
	txrdma_wait_file rping-ready 60
	rping -c -a "$(txrdma_peer_addr 0)" -C 10 -v > "$TXRDMA_OUT/rping.log" 2>&1
	check "$g: rping client got 10 pings back" \
		test "$(grep -c 'ping data' "$TXRDMA_OUT/rping.log")" -eq 10
fi
tap_done
