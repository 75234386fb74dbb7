#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two builds of txrdma.ko, A ("before") and B ("after"), measured in ONE
# QEMU guest turn by turn (A B A B ...) with the runs msg_bench.sh makes
# for txrdma: msg_pingpong's busy-polling ping-pong latency and
# streaming message rate over the self peer.  Times across TCG guests
# are noise; within one guest, alternating, they show what a change to
# the module costs the data path.
#
#   git worktree add /tmp/before COMMIT && make -C /tmp/before modules
#   tools/vm/txrdma-vm run --bench --smp 2 --timeout 2400 -- \
#       'KO_A=/tmp/before/kmod/txrdma.ko tools/bench/ko_ab.sh'
#
# KO_A (required) and KO_B (default: this tree's kmod/txrdma.ko) are
# paths the guest sees (txrdma-vm shares the host's root read-only).
# Both run this tree's msg_pingpong and libtxrdma, so A must speak this
# tree's ABI for plain pairs.  Environment: ROUNDS (3), SIZES
# ("64 1024 4096"), LAT_N (10000), LAT_WARMUP (1000), RATE_N (50000),
# PEER_ATTRS (as msg_bench.sh's).  Prints every run, then per size the
# median over the rounds of each module's one-way p50 and p99 (RTT/2)
# and messages per second, and B/A.  Exits non-zero if a run failed.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
# shellcheck disable=SC2034 # selfpeer.sh's
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin
PP=$DIR/msg_pingpong
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"

KO_A=${KO_A:-}
KO_B=${KO_B:-$ROOT/kmod/txrdma.ko}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-"64 1024 4096"}
LAT_N=${LAT_N:-10000}
LAT_WARMUP=${LAT_WARMUP:-1000}
RATE_N=${RATE_N:-50000}
PEER_ATTRS=${PEER_ATTRS:-"pool 2:8 tx 50000 rx 50000 mult 10"}
SERVICE=4243
RUN_LIMIT=180
LOG=${TXRDMA_OUT:-$(mktemp -d)}/ko_ab
mkdir -p "$LOG"
FAILED=0
SRV_PID=

die() {
	echo "ko_ab: $*" >&2
	exit 1
}

cleanup() {
	[ -z "$SRV_PID" ] || { kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; }
	SRV_PID=
	selfpeer_down
}
trap cleanup EXIT

[ -n "$KO_A" ] || die "KO_A: the module to compare with (see the header)"
for ko in "$KO_A" "$KO_B"; do
	[ -r "$ko" ] || die "no module $ko"
done
selfpeer_prereqs "$0" jq

# load KO: the module in place, the self peer and tenant afresh
load() {
	cleanup
	rmmod txrdma 2>/dev/null
	[ ! -d /sys/module/txrdma ] || die "txrdma.ko would not unload"
	# shellcheck disable=SC2086 # the harness's parameters, as it loads
	insmod "$1" ${TXRDMA_MODPARAMS:-} || die "insmod $1 failed"
	selfpeer_up txrdma-koab koab "$PEER_ATTRS"
	"$PP" -s "$SERVICE" > "$LOG/server.log" 2>&1 &
	SRV_PID=$!
	txrdma_wait_until 30 grep -q "server listening" "$LOG/server.log" ||
		die "msg_pingpong server did not start with $1"
}

kv() {	# LINE KEY: the value of KEY=value in a msg_pingpong summary
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

declare -A V	# V[module|size|metric|round]

# pp WHAT LOGNAME SUMMARY-PREFIX MSG_PINGPONG-ARGS...: one client run
# on a ready pool; its summary line in $line, failures counted
pp() {
	local what=$1 out=$LOG/$2 prefix=$3 rc
	shift 3
	txrdma_wait_until 30 selfpeer_ready
	timeout "$RUN_LIMIT" "$PP" -c self -S "$SERVICE" "$@" > "$out" 2>&1
	rc=$?
	line=$(grep "^$prefix " "$out" | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "ko_ab: $what run exited $rc" >&2
		FAILED=$((FAILED + 1))
	fi
}

run() {	# MODULE ROUND
	local m=$1 r=$2 s line
	for s in $SIZES; do
		pp "$m size $s round $r: latency" "lat-$m-$s-$r.log" \
			"txrdma pingpong" -m "$s" -n "$LAT_N" -w "$LAT_WARMUP"
		V["$m|$s|p50|$r"]=$(kv "$line" lat_p50_us)
		V["$m|$s|p99|$r"]=$(kv "$line" lat_p99_us)
		pp "$m size $s round $r: rate" "rate-$m-$s-$r.log" \
			"txrdma msgrate" -m "$s" -r -n "$RATE_N" -w "$LAT_WARMUP"
		V["$m|$s|rate|$r"]=$(kv "$line" msgs_per_s)
		echo "# $m round $r size $s: p50 ${V[$m|$s|p50|$r]} us, p99 ${V[$m|$s|p99|$r]} us, ${V[$m|$s|rate|$r]} msgs/s"
	done
}

median() {	# MODULE SIZE METRIC
	local r
	for r in $(seq 1 "$ROUNDS"); do
		echo "${V[$1|$2|$3|$r]:-}"
	done | grep -E '^[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b != "") printf "%.2f", b / a; else print "n/a" }'
}

echo "# A: $KO_A (sha256 $(sha256sum < "$KO_A" | cut -c1-12))"
echo "# B: $KO_B (sha256 $(sha256sum < "$KO_B" | cut -c1-12))"
for r in $(seq 1 "$ROUNDS"); do
	load "$KO_A"
	run A "$r"
	load "$KO_B"
	run B "$r"
done
cleanup

echo "ko_ab: median of $ROUNDS rounds, one-way latency (RTT/2) and message rate, B/A"
printf '%-6s %-5s %10s %10s %6s\n' size what A B B/A
for s in $SIZES; do
	for w in p50 p99 rate; do
		a=$(median A "$s" "$w")
		b=$(median B "$s" "$w")
		printf '%-6s %-5s %10s %10s %6s\n' "$s" "$w" "${a:-n/a}" "${b:-n/a}" "$(ratio "$a" "$b")"
	done
done
[ "$FAILED" -eq 0 ] || die "$FAILED runs failed (logs in $LOG)"
