#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two-phase commit through the transaction layer, txrdma against TCP
# in the same guest and run (issue 15's benchmark):
#   tools/vm/txrdma-vm run --bench --smp 2 -- tools/bench/txn_bench.sh
#
# For 1, 2 and 4 participants and windows 1, 8 and 64, txn_bench runs
# a coordinator and its participants (a node per thread) over txrdma
# endpoint pairs (the guest is its own peer "self" over rxe loopback)
# and over TCP on 127.0.0.1, and the table gives commit latency (p50,
# p99) and transactions per second for both, with the ratios
# txrdma/TCP (latency: lower is better; rate: higher is better).
# Knobs: PARTS, WINDOWS, RUN_SECONDS (per run), DATA (payload bytes),
# MODE (spin: one thread polls every node; wait: a thread per node
# waiting in its transport), AHEAD (1: txrdma reads frames ahead),
# DOORBELL (1: poll_idle_us 0 during the txrdma runs), POLL_IDLE_US
# (the module's poll_idle_us during the txrdma runs; 1000000: the
# poller keeps a vCPU while the run lasts, io_uring's SQPOLL with a
# long sq_thread_idle; empty: the module's own), BACKENDS (both,
# or one: its raw lines, no ratios; e.g. to profile it), FLOOR_N
# (ib_send_lat iterations, 10000; 0: no floor), TXN_BENCH (another
# build of txn_bench, e.g. a worktree's, to compare two in one guest).
#
# The floor: a commit needs at least one round trip (PREPARE out, VOTE
# back), so with one participant no layer over this device can commit
# faster than a raw-verbs round trip, twice perftest's one-way
# ib_send_lat of the same size, measured in the same run.  The table's
# last line sets that floor against TCP's window-1 commit.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin
PP=${TXN_BENCH:-$DIR/txn_bench}	# another build, to compare two
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"
. "$DIR/perftest.sh"

PARTS=${PARTS:-"1 2 4"}
WINDOWS=${WINDOWS:-"1 8 64"}
SECONDS_EACH=${RUN_SECONDS:-3}
AHEAD=${AHEAD:-1}	# txrdma endpoints read frames ahead (-A)
# 1: the module's poll_idle_us is 0 for the txrdma runs, so that every
# submission is served in the process's system call and no poller
# thread spins beside the benchmark's on the guest's two vCPUs
DOORBELL=${DOORBELL:-0}
POLL_IDLE_US=${POLL_IDLE_US:-}
[ "$DOORBELL" = 1 ] && POLL_IDLE_US=0
IDLE_PARAM=/sys/module/txrdma/parameters/poll_idle_us
IDLE_SAVED=$(cat "$IDLE_PARAM" 2>/dev/null || true)
MODE=${MODE:-spin}
BACKENDS=${BACKENDS:-"txrdma tcp"}	# a subset, e.g. to profile one
DATA=${DATA:-64}
PEER_ATTRS=${PEER_ATTRS:-"pool 4:16 tx 50000 rx 50000 mult 10"}
CG_NAME=txrdma-txnbench
TENANT=txnbench
LOG=${TXRDMA_OUT:-$(mktemp -d)}/txn_bench
mkdir -p "$LOG"
FAILED=0
FLOOR_N=${FLOOR_N:-10000}
PERFTEST_CM=${PERFTEST_CM--R}
PERFTEST_PORT=18515
RUN_LIMIT=180

fail() {
	echo "txn_bench: $*" >&2
	FAILED=$((FAILED + 1))
}

die() {
	echo "txn_bench: $*" >&2
	exit 1
}

restore() {
	[ -z "$BG_PID" ] || kill "$BG_PID" 2>/dev/null
	[ -z "$IDLE_SAVED" ] || echo "$IDLE_SAVED" > "$IDLE_PARAM"
	selfpeer_down
}
trap restore EXIT
selfpeer_prereqs "$0" jq
selfpeer_up "$CG_NAME" "$TENANT" "$PEER_ATTRS"

declare -A R
run=0
for p in $PARTS; do
	for w in $WINDOWS; do
		for b in $BACKENDS; do
			run=$((run + 1))
			out=$LOG/$b-p$p-w$w.txt
			# a service and port range of its own per run: the last
			# run's pairs and sockets may still be closing
			flags=()
			[ "$b" = txrdma ] && [ "$AHEAD" = 1 ] && flags=(-A)
			if [ "$b" = txrdma ] && [ -n "$POLL_IDLE_US" ]; then
				echo "$POLL_IDLE_US" > "$IDLE_PARAM" ||
					die "cannot set $IDLE_PARAM"
			elif [ -n "$IDLE_SAVED" ]; then
				echo "$IDLE_SAVED" > "$IDLE_PARAM"
			fi
			timeout $((SECONDS_EACH + 60)) "$PP" "${flags[@]}" -b "$b" -p "$p" \
				-w "$w" -m "$MODE" -t "$SECONDS_EACH" -d "$DATA" \
				-S $((7000 + run * 16)) -P $((17000 + run * 16)) \
				> "$out" 2>&1
			if ! grep -q '^txn_bench backend' "$out"; then
				echo "txn_bench: $b parts $p window $w failed: $(tail -3 "$out")" >&2
				FAILED=$((FAILED + 1))
				continue
			fi
			R[$b,$p,$w]=$(grep '^txn_bench backend' "$out")
		done
	done
done

# the floor: ib_send_lat of the participant's payload size, one way
FLOOR=
if [ "$FLOOR_N" -gt 0 ]; then
	if ! command -v ib_send_lat >/dev/null; then
		fail "ib_send_lat: not installed (perftest): no floor"
	elif perftest ib_send_lat "$DATA" "$FLOOR_N"; then
		row=$(perftest_row "$LOG/ib_send_lat-$DATA.log" 9)
		echo "# ib_send_lat -s $DATA -n $FLOOR_N: $row"
		read -r _ _ _ _ FLOOR _ <<<"$row"
		[[ "${FLOOR:-}" =~ ^[0-9.]+$ ]] ||
			{ fail "ib_send_lat: output not understood (see $LOG)"; FLOOR=; }
	fi
fi

field() {	# LINE NAME
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<< "$1"
}

echo
echo "two-phase commit, one guest (2 vCPUs, rxe loopback), mode $MODE, ${SECONDS_EACH} s per run, ${DATA} B per participant"
printf '%-5s %-6s | %9s %9s %9s | %9s %9s %9s | %8s %8s %8s\n' \
	parts window "x p50 us" "x p99 us" "x txn/s" "t p50 us" "t p99 us" \
	"t txn/s" "p50 x/t" "p99 x/t" "tps x/t"
for p in $PARTS; do
	for w in $WINDOWS; do
		x=${R[txrdma,$p,$w]:-}
		t=${R[tcp,$p,$w]:-}
		[ -n "$x" ] && [ -n "$t" ] || continue
		xp50=$(field "$x" p50_us); xp99=$(field "$x" p99_us); xt=$(field "$x" tps)
		tp50=$(field "$t" p50_us); tp99=$(field "$t" p99_us); tt=$(field "$t" tps)
		printf '%-5s %-6s | %9s %9s %9s | %9s %9s %9s | %8.2f %8.2f %8.2f\n' \
			"$p" "$w" "$xp50" "$xp99" "$xt" "$tp50" "$tp99" "$tt" \
			"$(awk -v a="$xp50" -v b="$tp50" 'BEGIN { print a / b }')" \
			"$(awk -v a="$xp99" -v b="$tp99" 'BEGIN { print a / b }')" \
			"$(awk -v a="$xt" -v b="$tt" 'BEGIN { print a / b }')"
	done
done
t=${R[tcp,1,1]:-}
x=${R[txrdma,1,1]:-}
if [ -n "$FLOOR" ] && [ -n "$t" ]; then
	tp50=$(field "$t" p50_us)
	awk -v f="$FLOOR" -v t="$tp50" -v x="$(field "$x" p50_us)" 'BEGIN {
		printf "floor, 1 participant, window 1: a raw-verbs round trip (2 x ib_send_lat typical %.1f us) = %.1f us = %.2f x TCP'"'"'s commit p50 (%.1f us)", f, 2 * f, 2 * f / t, t
		if (x != "") printf "; txrdma'"'"'s commit p50 is %.2f x the floor", x / (2 * f)
		printf "\n" }'
fi
echo "(x: txrdma$([ "$AHEAD" = 1 ] && echo ", reading ahead")$([ -n "$POLL_IDLE_US" ] && echo ", poll_idle_us $POLL_IDLE_US"), t: TCP over 127.0.0.1; logs in $LOG)"
grep -h '^txn_bench backend' "$LOG"/*.txt
[ "$FAILED" -eq 0 ] || die "$FAILED runs failed"
