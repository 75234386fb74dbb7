#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "txn" suite (run_vm_tests.py txn, three guests):
# two-phase commit of the transaction layer (lib/txn) over txrdma
# endpoint pairs between three hosts.  Guest 0 coordinates (node 1),
# guests 1 and 2 take part (nodes 2 and 3); see txn_guest.c.  Each run
# is COUNT transactions on both participants, about 10 % voted no:
#
#   plain  nothing else happens;
#   cut    when half are done the host cuts the link between guests 0
#          and 1 for 2 s (QMP set_link; the host waits for the file
#          txn-cut-half);
#   kill   once half the transactions reached it, guest 2's participant
#          kills itself (SIGKILL) at a moment it holds prepared ones
#          without a decision, and is started again with a higher
#          epoch, restoring from its log what it had prepared.
#
# After each run guest 0 runs txn_check.py over the three logs: every
# transaction decided, none committed at one participant and aborted
# at the other, none blocked past its timeouts plus the peer's
# detection time, no prepared one left without a decision.
#
# Environment: TXRDMA_TXN_COUNT (100000), TXRDMA_TXN_RUNS ("plain cut
# kill"), TXRDMA_TXN_WINDOW (64), TXRDMA_TXN_SEED.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/mesh.sh"
PROG=$DIR/txn_guest
COUNT=${TXRDMA_TXN_COUNT:-100000}
RUNS=${TXRDMA_TXN_RUNS:-"plain cut kill"}
WINDOW=${TXRDMA_TXN_WINDOW:-64}
SEED=${TXRDMA_TXN_SEED:-20261202}
# liveness: 5 x 100 ms.  Three TCG guests on two cores stall for up to
# ~225 ms (Documentation/testing.rst), so an 80 ms window would abort
# transactions for false Downs; what matters here is that every Down,
# false or real, leaves the transactions atomic and decided.
BFD="tx 100000 rx 100000 mult 5"
DETECT_MS=500
# txn_guest.c: a vote waits 1 s, twice retried; the bound adds the
# detection time and 2 s of TCG scheduling slack
BOUND_MS=$((3 * 1000 + DETECT_MS + 2000))
me=$TXRDMA_GUEST
node=$((me + 1))
LOGDIR=/tmp/txn-logs
mkdir -p "$LOGDIR"

coordinate() {	# RUN SERVICE
	local run=$1 service=$2 half=()

	[ "$run" = plain ] || half=("$TXRDMA_JOB/txn-$run-half")
	check "g0 $run: coordinator ran $COUNT transactions" \
		"$PROG" coord "$COUNT" "$service" "$WINDOW" \
		"$LOGDIR/$run-coord.log" "$TXRDMA_JOB/txn-$run-done" "${half[@]}"
	cp "$LOGDIR/$run-coord.log" "$TXRDMA_OUT/"
	check "g0 $run: participants' logs are in" \
		txrdma_wait_file "g1-txn-$run-end" 300
	txrdma_wait_file "g2-txn-$run-end" 300
	shopt -s lastpipe
	python3 "$DIR/txn_check.py" "$run" "$COUNT" "$BOUND_MS" \
		"$TXRDMA_OUT/$run-coord.log" \
		"$TXRDMA_JOB/g1/$run-part2.log" "$TXRDMA_JOB/g2/$run-part3.log" |
		tap_relay "g0"
	check "g0 $run: the atomicity check passed" test "${PIPESTATUS[0]}" = 0
	shopt -u lastpipe
}

# run a participant; in the kill run guest 2's kills itself (SIGKILL)
# once half the transactions reached it and it holds prepared ones
# without a decision, and is started again with epoch 2
take_part() {	# RUN SERVICE
	local run=$1 service=$2 log=$LOGDIR/$1-part$node.log st n

	rm -f "$log"
	if [ "$run" = kill ] && [ "$me" = 2 ]; then
		TXN_GUEST_CRASH_AT=$((COUNT / 2)) "$PROG" part "$node" 1 \
			"$COUNT" "$service" "$SEED" "$log" "$TXRDMA_JOB/txn-$run-done"
		st=$?
		check "g2 kill: participant killed by SIGKILL (status $st)" \
			test "$st" = 137
		"$PROG" part "$node" 2 "$COUNT" "$service" "$SEED" "$log" \
			"$TXRDMA_JOB/txn-$run-done" | tee "$LOGDIR/kill-restart.out"
		st=${PIPESTATUS[0]}
		n=$(sed -n 's/.*epoch 2: \([0-9]*\) prepared transactions restored.*/\1/p' \
			"$LOGDIR/kill-restart.out")
		check "g2 kill: the restarted participant restored ${n:-no} prepared transactions" \
			test "${n:-0}" -gt 0
	else
		"$PROG" part "$node" 1 "$COUNT" "$service" "$SEED" "$log" \
			"$TXRDMA_JOB/txn-$run-done"
		st=$?
	fi
	check "g$me $run: participant $node finished with every prepared transaction decided" \
		test "$st" = 0
	cp "$log" "$TXRDMA_OUT/"
	txrdma_signal "g$me-txn-$run-end"
}

[ -x "$PROG" ] || { not_ok "g$me: $PROG not built"; tap_done; exit 1; }
mesh_tenant txn
# shellcheck disable=SC2086 # BFD is split into words on purpose
mesh_up 2:4 $BFD
downs0=$(mesh_downs)
service=5000
for run in $RUNS; do
	service=$((service + 16))
	diag "g$me: run $run, $COUNT transactions, service $service"
	if [ "$me" = 0 ]; then
		coordinate "$run" "$service"
	else
		take_part "$run" "$service"
	fi
	# the next run starts when every guest is done with this one
	mesh_barrier "txn-$run-over"
done
diag "g$me: sessions went Down $(($(mesh_downs) - downs0)) times during the runs"
mesh_tenant_del
mesh_down txn-end
tap_done
