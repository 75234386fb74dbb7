#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "raft" suite (run_vm_tests.py raft, three guests):
# Raft replication (Debian's libraft on lib/raft's raft_io) over txrdma
# endpoint pairs between three hosts.  Every guest adds the others as
# peers "g<N>" (mesh.sh), makes a tenant and runs one server, node
# guest+1 (raft_guest.c): they elect a leader, which proposes
# TXRDMA_RAFT_COUNT commands (default 5000) of 64 B to 4 KiB, and every
# server applies them into a chained hash it writes to the job
# directory.  Halfway, the leader of the moment kills itself (SIGKILL)
# and is started again on its write-ahead file (synced; /tmp): it
# rejoins as the same server and catches up while the other two go
# on.  A quarter of the way in, the leader of the moment asks the host
# to cut its link to one follower for 2 s (run_vm_tests.py): commands
# go on through the other follower, and the cut-off one catches up.
# Guest 0 then checks that the three hashes are one: the same
# commands in the same order, byte for byte, on every host, the
# killed server included; every guest checks that its tenant holds
# nothing afterwards.
#
# Liveness detection is 5 s (25 x 200 ms): three TCG guests on two
# cores stall for whole seconds under load; Raft's own timeouts
# (election 1 s) decide leadership, not the peers' sessions.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}
. "$DIR/mesh.sh"
COUNT=${TXRDMA_RAFT_COUNT:-5000}
SERVICE=${TXRDMA_RAFT_SERVICE:-7300}
PROG=$DIR/raft_guest
TENANT=raft
me=$TXRDMA_GUEST
g=g$me
node=$((me + 1))

check "$g: raft_guest is built" test -x "$PROG"
mesh_up 2:8 tx 200000 rx 200000 mult 25
mesh_tenant "$TENANT"

WAL=/tmp/raft-node$node.wal
rm -f "$WAL"

# run_server [KILL_AT]: raft_guest on its file; its TAP lines as ours.
# Sets rc: its exit status.
run_server() {
	TAP_RELAYED_FAILS=0
	shopt -s lastpipe
	RAFT_GUEST_KILL_AT=${1:-} RAFT_GUEST_CUT_AT=$((COUNT / 4)) \
		timeout -k 10 900 "$PROG" "$node" \
		"$SERVICE" "$COUNT" "$TXRDMA_JOB" "$WAL" 2>&1 |
		tap_relay "$g raft"
	rc=${PIPESTATUS[0]}
	shopt -u lastpipe
}

# halfway, the leader of the moment kills itself (SIGKILL): it is
# started again on its write-ahead file and must catch up
run_server $((COUNT / 2))
if [ "$rc" -eq 137 ]; then
	ok "$g raft: node $node, the leader, was killed (SIGKILL) halfway"
	run_server
fi
if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
	not_ok "$g raft: raft_guest exited $rc"
fi

if [ "$me" = 0 ]; then
	for n in 1 2 3; do
		check "$g: node $n wrote what it applied" \
			txrdma_wait_file "raft-$n" 600
	done
	h1=$(cat "$TXRDMA_JOB/raft-1" 2>/dev/null)
	h2=$(cat "$TXRDMA_JOB/raft-2" 2>/dev/null)
	h3=$(cat "$TXRDMA_JOB/raft-3" 2>/dev/null)
	echo "# applied (count hash): node 1 '$h1', node 2 '$h2', node 3 '$h3'"
	check "$g: the three servers applied the same $COUNT commands in the same order" \
		test -n "$h1" -a "$h1" = "$h2" -a "$h1" = "$h3" -a "${h1%% *}" = "$COUNT"
	check "$g: one leader was killed halfway and rejoined from its file" \
		test -e "$TXRDMA_JOB/raft-kill"
	check "$g: the leader's link to a follower was cut for 2 s and came back ($(cat "$TXRDMA_JOB/raft-cut-done" 2>/dev/null))" \
		test -e "$TXRDMA_JOB/raft-cut-done"
fi

tenant_idle() {
	[ "$("$ADMIN" -j tenant show "$TENANT" |
		jq -r '.[0] | "\(.usage.qps) \(.usage.endpoints) \(.usage.pinned_bytes)"')" = "0 0 0" ]
}
check "$g: tenant $TENANT holds no QP, endpoint or pinned byte" \
	txrdma_wait_until 30 tenant_idle
mesh_tenant_del
mesh_down raft-done
tap_done
