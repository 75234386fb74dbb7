#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "logship" suite (run_vm_tests.py, three guests):
#
#   logship_guest.sh reader|writer
#
# Log shipping (lib/txn/txn_ship.c) by real RDMA WRITEs: guest 0 is the
# reader, guests 1 and 2 the writers (ids 0 and 1 of the group), which
# connect to peer "g0".  Every guest adds the others as peers (mesh.sh)
# and makes tenant "logship"; the reader signals once it listens, the
# writers wait for that.  logship_guest's TAP lines are passed on with
# the guest and role in front (see logship_guest.c for its checks).
# After it, no session may have gone Down meanwhile, the tenant must
# hold nothing and deletes without force, and the guests wait for each
# other before deleting their peers.
#
# TXRDMA_LOGSHIP_COUNT: entries in all (default 1000000), half per
# writer.  Liveness detection is 5 s: a TCG guest busy with rxe stalls
# for whole seconds, and a flap would fail the pairs for a reason not
# theirs (as msg_guest.sh).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
. "$DIR/mesh.sh"
BFD=${TXRDMA_LOGSHIP_BFD-"tx 200000 rx 200000 mult 25"}
COUNT=${TXRDMA_LOGSHIP_COUNT:-1000000}
SERVICE=${TXRDMA_LOGSHIP_SERVICE:-7301}
TIMEOUT=${TXRDMA_LOGSHIP_TIMEOUT:-1400}
TENANT=logship
CG=/sys/fs/cgroup/txrdma-$TENANT

role=$1
case "$role" in
reader | writer) ;;
*)
	echo "usage: $0 reader|writer" >&2
	exit 2
	;;
esac
g=g$TXRDMA_GUEST

check "$g: logship_guest is built (make selftests)" test -x "$DIR/logship_guest"
# shellcheck disable=SC2086 # BFD is split into words on purpose
mesh_up 2:4 $BFD
downs0=$(mesh_downs)
mkdir -p "$CG"
check "$g: tenant add $TENANT cgroup /txrdma-$TENANT" \
	"$ADMIN" tenant add "$TENANT" cgroup "/txrdma-$TENANT"

if [ "$role" = reader ]; then
	set -- reader "$SERVICE" "$COUNT"
else
	check "$g: the reader listens" txrdma_wait_file logship-listening 600
	set -- writer g0 "$SERVICE" $((TXRDMA_GUEST - 1)) "$COUNT"
fi

# logship_guest's TAP lines, as ours (lastpipe: tap_relay runs in this
# shell, so its counts stay); the reader's "listening" lets the writers go
listening() {
	[[ $1 != *"listening on service"* ]] || txrdma_signal logship-listening
}
shopt -s lastpipe
diag "$g: logship_guest $*"
TXRDMA_ADMIN=$ADMIN TXRDMA_LOGSHIP_TIMEOUT=$TIMEOUT timeout -k 10 $((TIMEOUT + 60)) \
	"$ADMIN" tenant exec "$TENANT" -- "$DIR/logship_guest" "$@" 2>&1 |
	tap_relay "$g logship $role" listening
rc=${PIPESTATUS[0]}
shopt -u lastpipe
# a crash, or a timeout, without a "not ok" line of its own
if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
	not_ok "$g logship $role: exited $rc"
fi
# on failure: the tenant's counters, its pairs' errors (crc seq proto
# qp sqe) among them; logship_guest printed its side and its endpoints
if [ "$rc" -ne 0 ]; then
	"$ADMIN" tenant show "$TENANT" 2>&1 | sed 's/^/# /'
fi

check "$g: no session went Down during the run" test "$(mesh_downs)" = "$downs0"
usage() {
	"$ADMIN" -j tenant show "$TENANT" |
		jq -r '.[0].usage | "\(.qps) \(.endpoints) \(.pinned_bytes)"'
}
usage_zero() {
	[ "$(usage)" = "0 0 0" ]
}
check "$g: tenant $TENANT holds no QP, endpoint or pinned byte" \
	txrdma_wait_until 30 usage_zero
diag "$g: tenant $TENANT usage (qps endpoints pinned): $(usage)"
check "$g: tenant del $TENANT (without force)" "$ADMIN" tenant del "$TENANT"
rmdir "$CG" 2>/dev/null
mesh_down logship-done
tap_done
