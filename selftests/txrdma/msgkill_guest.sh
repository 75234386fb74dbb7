#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "msgkill" suite (run_vm_tests.py, two guests):
#
#   msgkill_guest.sh server|client PEER_GUEST
#
# Both add each other as peers (detection 200 ms: 20 ms x 10, room for
# this host's stalls) and join a tenant.  The server (guest 1) accepts
# one endpoint pair and drains it; the client (guest 0) streams SENDs
# and, after 2000, creates $TXRDMA_JOB/streaming: the host then kills
# guest 1's QEMU (SIGKILL, as a crash).  The client checks (msg_kill)
# that the SENDs in flight fail with -ENOTCONN/-ECONNRESET within the
# detection time plus 300 ms of slack, once each, and that the ring
# reports it; then that the peer is Down and that its tenant's QPs,
# endpoints and pinned bytes are back to zero once the process is gone.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
SERVICE=77
BOUND_MS=500

role=$1
p=$2
peer=g$p
addr=$(txrdma_peer_addr "$p")
check "peer add $peer ($addr) tx 20000 rx 20000 mult 10" \
	"$ADMIN" peer add "$peer" addr "$addr" key "$TXRDMA_PEER_KEY" pool 2:4 tx 20000 rx 20000 mult 10
mkdir -p /sys/fs/cgroup/txrdma-kill
echo $$ > /sys/fs/cgroup/txrdma-kill/cgroup.procs
check "tenant add kill-t" "$ADMIN" tenant add kill-t cgroup /txrdma-kill

peer_ready() {
	txrdma_peer_ready "$peer"
}
usage() {
	txrdma_tenant_usage kill-t
}
usage_zero() {
	[ "$(usage)" = "0 0 0" ]
}
peer_down() {
	[ "$("$ADMIN" -j peer show "$peer" | jq -r '.[0].state')" != up ]
}

check "$peer up with ready QPs" txrdma_wait_until 120 peer_ready
check "tenant usage zero before" usage_zero

if [ "$role" = server ]; then
	# killed by the host while draining: nothing after this runs
	"$DIR/msg_kill" server $SERVICE | sed 's/^/# /'
	tap_done
	exit
fi

shopt -s lastpipe
"$DIR/msg_kill" client "$peer" $SERVICE "$TXRDMA_JOB/streaming" $BOUND_MS 2>&1 |
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "msg_kill:${line#ok [0-9]*}" ;;
		"not ok "*) not_ok "msg_kill:${line#not ok [0-9]*}" ;;
		*) echo "# $line" ;;
		esac
	done
check "$peer is Down after the kill" peer_down
check "tenant QPs, endpoints, pinned bytes back to 0 after the process" \
	txrdma_wait_until 10 usage_zero
diag "usage: $(usage)"
"$ADMIN" peer show "$peer" | sed 's/^/# /'
"$ADMIN" peer del "$peer"
"$ADMIN" tenant del kill-t
tap_done
