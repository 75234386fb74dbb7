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
# directory.  A quarter of the way in, the leader of the moment asks
# the host to cut its link to one follower for 2 s (run_vm_tests.py):
# commands go on through the other follower, and the cut-off one
# catches up.  Then the host kills the leader's QEMU (SIGKILL) and
# powers the guest on again, TXRDMA_RAFT_KILLS times: this script runs
# again in the new boot (TXRDMA_BOOT > 0) and starts the server on its
# write-ahead file, kept in the job directory on the host so that it
# outlives the guest; the server tells the host when it has caught up.
# Guest 0 then checks that the three hashes are one: the same commands
# in the same order, byte for byte, on every host, the killed servers
# included; every guest checks that its tenant holds nothing
# afterwards.
#
# Liveness is 350 ms (7 x 50 ms; TXRDMA_RAFT_LIVENESS="TX_US MULT",
# run_vm_tests.py --raft-liveness): a killed leader's Down reaches both
# followers in about that, and each stands for election at once,
# staggered by node (txraft_io_watch_leader).  A TCG guest that stalls
# longer makes a false Down: its pairs are made again, and pre-vote
# keeps a follower that wrongly lost its leader from deposing it;
# Raft's terms decide, not the Downs.  With 5 x 20 ms, three busy
# guests flapped every few seconds and changed leader as often.
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
read -r live_us live_mult <<< "${TXRDMA_RAFT_LIVENESS:-50000 7}"
mesh_up 2:8 tx "$live_us" rx "$live_us" mult "$live_mult"
mesh_tenant "$TENANT"

# on the host: a killed guest's next boot finds it
WAL=$TXRDMA_JOB/g$me/raft.wal
boot=${TXRDMA_BOOT:-0}
[ "$boot" -gt 0 ] || rm -f "$WAL"

# run_server: raft_guest on its file; its TAP lines as ours.
# Sets rc: its exit status.
run_server() {
	TAP_RELAYED_FAILS=0
	shopt -s lastpipe
	RAFT_GUEST_BACK=$boot RAFT_GUEST_CUT_AT=$((COUNT / 4)) \
		RAFT_GUEST_TRACE=${TXRDMA_RAFT_TRACE:-0} \
		timeout -k 10 1500 "$PROG" "$node" \
		"$SERVICE" "$COUNT" "$TXRDMA_JOB" "$WAL" 2>&1 |
		tap_relay "$g raft"
	rc=${PIPESTATUS[0]}
	shopt -u lastpipe
}

[ "$boot" -eq 0 ] || ok "$g raft: node $node, boot $boot: the guest was killed and powered on again"
run_server
if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
	not_ok "$g raft: raft_guest exited $rc"
fi

# false Downs (a stalled guest looks dead) cost elections: say how many
echo "# $g: its peers went Down $(mesh_downs) times in this boot (liveness ${live_us} us x $live_mult)"

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
