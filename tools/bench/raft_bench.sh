#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Raft commit latency and entries/s, libraft on txrdma against libraft
# on its own TCP backend, in the same guest and run (issue 16's
# benchmark):
#   tools/vm/txrdma-vm run --bench --smp 2 -- tools/bench/raft_bench.sh
#
# Three libraft servers, one process each (raft_bench.c), elect a
# leader that keeps WINDOW entries of SIZE bytes in flight for
# RUN_SECONDS and times each from raft_apply() to its apply callback,
# with the log on one backend at a time:
#   txrdma  lib/raft's raft_io on txrdma endpoint pairs (the guest is
#           its own peer "self" over rxe loopback);
#   uv      libraft's own raft_uv over TCP on 127.0.0.1: the baseline;
#   tcp     lib/raft's raft_io on lib/txn's TCP transport (127.0.0.1):
#           what the transport alone changes, the raft_io held equal.
# Every log lives under /tmp, the guest's tmpfs: an fdatasync costs no
# device time for any backend, so the numbers compare the paths to the
# replicas, not disks.  The table gives p50/p99 commit latency,
# entries/s and the guest's busy CPU (all three servers, the module's
# poller, softirqs: /proc/stat) per 1,000 entries, with the ratios
# txrdma/uv (latency: lower is better; rate: higher is better; the
# issue's goal is a p50 ratio of at most 0.5).
# Knobs: SIZES (64 4096), WINDOWS (1 32), BACKENDS (txrdma uv tcp),
# RUN_SECONDS (3), REPEAT (3: runs per cell, interleaved; the table
# takes each cell's median p50 run), AHEAD (1: txrdma endpoints read
# frames ahead), POLL_IDLE_US (the module's poll_idle_us during the
# txrdma runs, default 0; empty: the module's own), RAFT_BENCH
# (another build).
# Why poll_idle_us 0: three server processes and the module's poller
# share two vCPUs here, and a poller that spins 200 us after each
# piece of work takes a vCPU from a server: 64 B commit p50 644 us with
# the module's 200 against 532 us with 0, one guest, 3 runs each
# (2026-12-04).  Every submission is then posted in the process's own
# system call, as without io_uring's SQPOLL.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin
PP=${RAFT_BENCH:-$DIR/raft_bench}
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"

SIZES=${SIZES:-"64 4096"}
WINDOWS=${WINDOWS:-"1 32"}
BACKENDS=${BACKENDS:-"txrdma uv tcp"}
SECONDS_EACH=${RUN_SECONDS:-3}
REPEAT=${REPEAT:-3}
AHEAD=${AHEAD:-1}
POLL_IDLE_US=${POLL_IDLE_US-0}
IDLE_PARAM=/sys/module/txrdma/parameters/poll_idle_us
IDLE_SAVED=$(cat "$IDLE_PARAM" 2>/dev/null || true)
PEER_ATTRS=${PEER_ATTRS:-"pool 4:16 tx 50000 rx 50000 mult 10"}
CG_NAME=txrdma-raftbench
TENANT=raftbench
LOG=${TXRDMA_OUT:-$(mktemp -d)}/raft_bench
DATA=$(mktemp -d /tmp/raft_bench.XXXXXX)
mkdir -p "$LOG"
FAILED=0

die() {
	echo "raft_bench: $*" >&2
	exit 1
}

restore() {
	rm -rf "$DATA"
	[ -z "$IDLE_SAVED" ] || echo "$IDLE_SAVED" > "$IDLE_PARAM"
	selfpeer_down
}
trap restore EXIT
selfpeer_prereqs "$0" jq
selfpeer_up "$CG_NAME" "$TENANT" "$PEER_ATTRS"

busy_ticks() {	# the guest's busy time, in USER_HZ ticks
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# one_run BACKEND SIZE WINDOW RUN: three servers; prints the leader's
# line with "cpu_ms_per_k X" appended, or fails
one_run() {
	local b=$1 s=$2 w=$3 r=$4 d n pids=() rc=0 t0 t1 line applied
	local out=$LOG/$b-s$s-w$w-r$r flags=()

	d=$DATA/$b-s$s-w$w-r$r
	mkdir -p "$d"
	if [ "$b" = txrdma ]; then
		[ "$AHEAD" = 1 ] && flags=(-A)
		[ -z "$POLL_IDLE_US" ] || echo "$POLL_IDLE_US" > "$IDLE_PARAM" ||
			die "cannot set $IDLE_PARAM"
	elif [ -n "$IDLE_SAVED" ]; then
		echo "$IDLE_SAVED" > "$IDLE_PARAM"
	fi
	t0=$(busy_ticks)
	for n in 1 2 3; do
		{
			timeout $((SECONDS_EACH + 90)) "$PP" -b "$b" -n "$n" \
				-d "$d" -s "$s" -w "$w" -t "$SECONDS_EACH" \
				-S $((7400 + RUNNO * 4)) \
				-P $((20000 + RUNNO * 4)) "${flags[@]}"
			ret=$?
			echo "raft_bench node $n exit $ret"
			exit "$ret"
		} > "$out.node$n" 2>&1 &
		pids+=($!)
	done
	for n in "${pids[@]}"; do
		wait "$n" || rc=1
	done
	t1=$(busy_ticks)
	rm -rf "$d"
	line=$(grep -h '^raft_bench backend' "$out".node*)
	applied=$(grep -h '^raft_bench node 1 cpu_s' "$out.node1" |
		awk '{ print $7 }')
	if [ "$rc" -ne 0 ] || [ -z "$line" ] || [ -z "$applied" ]; then
		echo "raft_bench: $b size $s window $w failed: $(tail -qn 2 "$out".node* | tr '\n' ' ')" >&2
		return 1
	fi
	echo "$line cpu_ms_per_k $(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" \
		-v a="$applied" 'BEGIN { printf "%.1f", t / hz * 1e6 / a }')"
}

field() {	# LINE NAME
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<< "$1"
}

declare -A R
RUNNO=0
for r in $(seq 1 "$REPEAT"); do
	for s in $SIZES; do
		for w in $WINDOWS; do
			for b in $BACKENDS; do
				RUNNO=$((RUNNO + 1))
				if line=$(one_run "$b" "$s" "$w" "$r"); then
					R[$b,$s,$w,$r]=$line
					echo "# $line"
				else
					FAILED=$((FAILED + 1))
				fi
			done
		done
	done
done

# the run of a cell whose p50 is the median of its REPEAT runs
median_run() {	# BACKEND SIZE WINDOW
	local r
	for r in $(seq 1 "$REPEAT"); do
		[ -n "${R[$1,$2,$3,$r]:-}" ] || continue
		echo "$(field "${R[$1,$2,$3,$r]}" p50_us) $r"
	done | sort -n | awk '{ a[NR] = $2 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

echo
echo "Raft commit (raft_apply to apply callback on the leader), 3 servers as processes, one guest (2 vCPUs, rxe loopback), logs on tmpfs, ${SECONDS_EACH} s per run, median p50 of $REPEAT"
printf '%-5s %-3s %-7s | %9s %9s %9s %7s | %8s %8s %8s\n' size win backend \
	"p50 us" "p99 us" "entries/s" "cpu/1k" "p50/uv" "p99/uv" "eps/uv"
for s in $SIZES; do
	for w in $WINDOWS; do
		ur=$(median_run uv "$s" "$w")
		u=${R[uv,$s,$w,${ur:-0}]:-}
		for b in $BACKENDS; do
			br=$(median_run "$b" "$s" "$w")
			x=${R[$b,$s,$w,${br:-0}]:-}
			[ -n "$x" ] || continue
			printf '%-5s %-3s %-7s | %9s %9s %9s %7s |' "$s" "$w" "$b" \
				"$(field "$x" p50_us)" "$(field "$x" p99_us)" \
				"$(field "$x" eps)" "$(field "$x" cpu_ms_per_k)"
			if [ -n "$u" ]; then
				awk -v a="$(field "$x" p50_us)" -v b="$(field "$u" p50_us)" \
				    -v c="$(field "$x" p99_us)" -v d="$(field "$u" p99_us)" \
				    -v e="$(field "$x" eps)" -v f="$(field "$u" eps)" \
				    'BEGIN { printf " %8.2f %8.2f %8.2f\n", a / b, c / d, e / f }'
			else
				echo
			fi
		done
	done
done
echo "(cpu/1k: the guest's busy CPU ms per 1,000 entries, all servers and the kernel; txrdma$([ "$AHEAD" = 1 ] && echo " reading ahead")$([ -n "$POLL_IDLE_US" ] && echo ", poll_idle_us $POLL_IDLE_US"); logs in $LOG)"
[ "$FAILED" -eq 0 ] || die "$FAILED runs failed"
