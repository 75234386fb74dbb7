#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "cross_tenant" suite (run_vm_tests.py, two guests):
#
#   cross_tenant_guest.sh server|client PEER_GUEST SEED
#
# Server (guest 1): tenants ct-a and ct-b; ct-a's process listens on
# service 100 first, then ct-b's on the same service; both accept
# until the client is done.  Client (guest 0): tenant ct-b (same name)
# connects to service 100 of guest 1 and sends 50 messages.  ct-a's
# process must get nothing, ct-b's everything (see cross_tenant.c).
# Then the tenants hold nothing and are deleted without force; both
# guests wait for each other before deleting the peer; rmmod.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

role=$1
p=$2
seed=${3:-0x6374}
service=100
count=50
case "$role" in
server | client) ;;
*)
	echo "usage: $0 server|client PEER_GUEST SEED" >&2
	exit 2
	;;
esac
peer=g$p
g=g$TXRDMA_GUEST
J=$TXRDMA_JOB

at_peer_add "$peer" "$(txrdma_peer_addr "$p")" 2:8
if [ "$role" = server ]; then
	at_tenant_add ct-a
	at_tenant_add ct-b
	# ct-a first, then ct-b, each once the one before listens
	at_in_tenant ct-a timeout -k 10 300 "$DIR/cross_tenant" server ct-a \
		$service "$J/ct-a-ready" "$J/ct-client-done" 240 nothing \
		> /run/ct-a.out 2>&1 &
	pid_a=$!
	check "$g: ct-a's server started" txrdma_wait_file ct-a-ready 60
	at_in_tenant ct-b timeout -k 10 300 "$DIR/cross_tenant" server ct-b \
		$service "$J/ct-b-ready" "$J/ct-client-done" 240 all \
		> /run/ct-b.out 2>&1 &
	pid_b=$!
	check "$g: ct-b's server started" txrdma_wait_file ct-b-ready 60
	txrdma_signal ct-servers-ready
	wait $pid_a
	rc_a=$?
	wait $pid_b
	rc_b=$?
	at_tap_file "$g cross_tenant ct-a" /run/ct-a.out $rc_a
	at_tap_file "$g cross_tenant ct-b" /run/ct-b.out $rc_b
else
	at_tenant_add ct-b
	check "$g: the servers of guest $p started" \
		txrdma_wait_file ct-servers-ready 300
	at_tap "$g cross_tenant client" at_in_tenant ct-b \
		timeout -k 10 200 "$DIR/cross_tenant" client ct-b "$peer" \
		$service $count "$seed"
	txrdma_signal ct-client-done
fi
at_admin tenant show | sed 's/^/# /'
for t in $AT_TENANTS; do
	at_tenant_released "$t"
done
txrdma_signal "$g-ct-done"
check "$g: $peer finished too" txrdma_wait_file "$peer-ct-done" 600
at_finish
tap_done
