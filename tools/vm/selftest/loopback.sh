#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the harness self-test, one guest: rxe loopback to the
# guest's own address with perftest (verbs and rdma_cm) and rping.
set -e
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADDR=198.18.0.1

rdma link show
echo "== ib_send_lat (TCP exchange)"
ib_send_lat -n 100 > "$TXRDMA_OUT/send_lat_server.log" 2>&1 &
txrdma_wait_tcp_listen 18515 30
ib_send_lat -n 100 $ADDR | grep -A1 '#bytes'
wait $!

echo "== ib_send_lat -R (rdma_cm)"
ib_send_lat -R -n 100 > "$TXRDMA_OUT/send_lat_r_server.log" 2>&1 &
txrdma_wait_cm_listen 18515 30
ib_send_lat -R -n 100 $ADDR | grep -A1 '#bytes'
wait $!

echo "== rping to self"
rping -s -a $ADDR -C 5 > "$TXRDMA_OUT/rping_server.log" 2>&1 &
txrdma_wait_cm_listen 7174 30
rping -c -a $ADDR -C 5 -v | tail -2
wait $!
echo "loopback OK"
