#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "pair_churn" suite (run_vm_tests.py, two guests of
# two vCPUs):
#
#   pair_churn_guest.sh server|client PEER_GUEST SECONDS SEED
#
# Adds the other guest as peer "g<PEER_GUEST>" (pool 4:16) and tenant
# "churn", then runs pair_churn in it: the client makes a pair, sends
# one message and closes, ~10 times a second and then as fast as it
# can, for SECONDS; the server accepts, checks the message byte by
# byte and closes (see pair_churn.c).  After it: the peer is still Up
# and never went Down, no QP of its pool is lent, the tenant holds
# nothing and is deleted without force; both guests wait for each
# other before deleting the peer; rmmod.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

role=$1
p=$2
secs=${3:-90}
seed=${4:-0x6368}
service=0x6368
results=$TXRDMA_JOB/churn-results
case "$role" in
server | client) ;;
*)
	echo "usage: $0 server|client PEER_GUEST SECONDS SEED" >&2
	exit 2
	;;
esac
peer=g$p
g=g$TXRDMA_GUEST

at_pool_idle() {
	[ "$(at_pshow "$1" .pool.in_use)" = 0 ]
}

at_peer_add "$peer" "$(txrdma_peer_addr "$p")" 4:16
downs0=$(at_pshow "$peer" .downs)
at_tenant_add churn qps 64 endpoints 64 pinned 1G
if [ "$role" = server ]; then
	at_tap "$g pair_churn server" at_in_tenant churn \
		timeout -k 10 $((secs + 700)) "$DIR/pair_churn" server churn \
		$service "$results" "$secs"
else
	at_tap "$g pair_churn client" at_in_tenant churn \
		timeout -k 10 $((secs + 300)) "$DIR/pair_churn" client churn \
		"$peer" $service "$results" "$secs" "$seed"
fi
"$ADMIN" tenant show churn | sed 's/^/# /'
"$ADMIN" peer show "$peer" | sed 's/^/# /'
check "$g: $peer still up" test "$(at_pshow "$peer" .state)" = up
check "$g: $peer never went down (downs $downs0 -> $(at_pshow "$peer" .downs))" \
	test "$(at_pshow "$peer" .downs)" = "$downs0"
check "$g: no QP of $peer's pool still lent" \
	at_wait_until 30 at_pool_idle "$peer"
at_tenant_released churn
# both guests are done with the peer before either deletes it
txrdma_signal "$g-churn-done"
check "$g: $peer finished too" txrdma_wait_file "$peer-churn-done" 900
at_finish
tap_done
