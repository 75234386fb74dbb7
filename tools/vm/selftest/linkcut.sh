#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the link-cut self-test (two guests).  The host cuts the
# link once both guests are ready and restores it once both saw DOWN.
set -e
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
g=$TXRDMA_GUEST
peer=$((1 - g))
rxe=$(txrdma_rxe_to $peer)

_state_is() { [ "$(txrdma_port_state "$rxe")" = "$1" ]; }

echo "$rxe: $(txrdma_port_state "$rxe")"
txrdma_signal "ready-$g"
txrdma_wait_until 60 _state_is DOWN
echo "$rxe: DOWN after cut"
txrdma_signal "down-$g"
txrdma_wait_until 60 _state_is ACTIVE
echo "$rxe: ACTIVE after restore"
# The link carries traffic again.
PING=ping
command -v ping >/dev/null || PING="busybox ping"
# shellcheck disable=SC2086 # "busybox ping" is two words
txrdma_wait_until 30 $PING -c 1 -W 2 "$(txrdma_peer_addr $peer)"
echo "ping $(txrdma_peer_addr $peer) OK"
txrdma_signal "up-$g"
txrdma_wait_file "up-$peer" 60
