#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "msg" suite (run_vm_tests.py, two guests):
#
#   msg_guest.sh server|client PEER_GUEST
#
# Adds guest PEER_GUEST as peer "g<PEER_GUEST>" and waits until the
# session is Up with its pool's ready QPs (endpoint pairs take pooled
# QPs on both hosts), then runs msg_test in the role given: the client
# connects to the server's services, the server accepts and checks what
# arrives (see msg_test.c).  msg_test's TAP lines are passed on with the
# guest and role in front.  After it, the session must not have gone
# Down meanwhile (a liveness flap would fail endpoints for a reason
# that is not theirs) and no QP of the pool may still be lent.  The two
# guests wait for each other (job directory) before deleting the peer,
# so that neither sees the other's deletion as a Down.
#
# Liveness detection is 5 s here (TXRDMA_MSG_BFD, "" for the module's
# defaults): 100,000 messages through rxe keep a TCG vCPU busy, and
# an 80 ms window would flap.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
BFD=${TXRDMA_MSG_BFD-"tx 200000 rx 200000 mult 25"}
POOL=${TXRDMA_MSG_POOL:-4:8}
TIMEOUT=${TXRDMA_MSG_TIMEOUT:-1400}

role=$1
p=$2
case "$role" in
server | client) ;;
*)
	echo "usage: $0 server|client PEER_GUEST" >&2
	exit 2
	;;
esac
[ -n "$p" ] || { echo "usage: $0 server|client PEER_GUEST" >&2; exit 2; }
me=$TXRDMA_GUEST
g=g$me
peer=g$p

# pshow NAME JQ: a field of peer NAME
pshow() {
	"$ADMIN" -j peer show "$1" | jq -r ".[0] | $2"
}

# Up, with at least the pool's minimum of ready QPs
peer_ready() {
	[ "$(pshow "$1" '"\(.state) \(.pool.ready >= .pool.min)"')" = "up true" ]
}

# no QP of the pool lent to an endpoint
pool_idle() {
	[ "$(pshow "$1" .pool.in_use)" = 0 ]
}

rdma_cm_qps() {
	# what txrdma initiated (rdma_cm's) and accepted (its own, not the
	# registration QP, which is connected to itself)
	rdma -j res show qp |
		jq '[.[] | select((.comm == "rdma_cm" or ((.comm | test("txrdma")) and .lqpn != .rqpn)))] | length'
}

no_qps() {
	[ "$(rdma_cm_qps)" = 0 ]
}

addr=$(txrdma_peer_addr "$p")

# A peer with the wrong key never comes up: its connections are refused
# (the acceptor, the higher address, counts them), nothing is pooled.
wrong=$(mktemp)
chmod 600 "$wrong"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$wrong"
check "$g: peer add $peer with a wrong key" \
	"$ADMIN" peer add "$peer" addr "$addr" key "$wrong" pool 2:2
ever_up=0
for _ in $(seq 40); do
	[ "$(pshow "$peer" .state)" = up ] && ever_up=1
	txrdma_nap 0.2
done
diag "$g: wrong key: $(pshow "$peer" '"state \(.state) qps \(.qps) auth_fails \(.bfd.auth_fails)"')"
check "$g: wrong key: never up in 8 s" test "$ever_up" = 0
check "$g: wrong key: no QP pooled" test "$(pshow "$peer" .pool.ready)" = 0
# guest g has address .(g+1) on the link: the higher one accepts
if [ "$me" -gt "$p" ]; then
	check "$g: wrong key: the acceptor refused and counted them" \
		test "$(pshow "$peer" .bfd.auth_fails)" -gt 0
fi
"$ADMIN" peer del "$peer"
rm -f "$wrong"

# shellcheck disable=SC2086 # BFD is split into words on purpose
check "$g: peer add $peer ($addr) pool $POOL $BFD" \
	"$ADMIN" peer add "$peer" addr "$addr" key "$TXRDMA_PEER_KEY" pool "$POOL" $BFD
check "$g: $peer up with ready QPs" txrdma_wait_until 120 peer_ready "$peer"
"$ADMIN" peer show "$peer" | sed 's/^/# /'
downs0=$(pshow "$peer" .downs)

# msg_test's TAP lines, as ours; the rest as comments (lastpipe: the
# loop runs in this shell, so ok/not_ok count)
shopt -s lastpipe
TXRDMA_MSG_ROLE=$role TXRDMA_MSG_PEER=$peer \
	timeout "$TIMEOUT" "$DIR/msg_test" 2>&1 |
	tap_relay "$g msg_test $role"
rc=${PIPESTATUS[0]}
# a crash, or a timeout, without a "not ok" line of its own
if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
	not_ok "$g msg_test $role: exited $rc"
fi

"$ADMIN" peer show "$peer" | sed 's/^/# /'
check "$g: $peer never went down during msg_test" \
	test "$(pshow "$peer" .downs)" = "$downs0"
check "$g: no QP of $peer's pool still lent" \
	txrdma_wait_until 30 pool_idle "$peer"

# both guests are done with the peer before either deletes it
txrdma_signal "$g-msg-done"
check "$g: $peer finished msg_test too" txrdma_wait_file "$peer-msg-done" 900
check "$g: peer del $peer" "$ADMIN" peer del "$peer"
check "$g: no rdma_cm QP left after the peer's deletion" \
	txrdma_wait_until 30 no_qps
tap_done
