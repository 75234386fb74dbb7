#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What authenticated peers and scoped rkeys cost: two builds of the
# module, one after the other in ONE guest (times across TCG guests are
# not comparable), each with its own txrdma-admin:
#
#   KO_A=old/txrdma.ko ADMIN_A=old/txrdma-admin \
#   tools/vm/txrdma-vm run --bench --smp 2 --no-module -- tools/bench/trust_cost.sh
#
# B is this checkout's module and tool unless KO_B/ADMIN_B say
# otherwise.  For each build: a self peer (with the cluster key when its
# tool takes one), then
#   - pool fill: from "peer add" until 16 pooled QPs are ready (every QP
#     is an rdma_cm connection, and with authentication a handshake);
#   - pair set-up: pair_setup, 200 connects (EP_CONNECT/ACCEPT, a QP
#     bound on both sides, each ring registered for the peer) and the
#     export that follows each (a registration and EXPORT/EXPORT_ACK);
#   - message latency: msg_pingpong, 64-byte ping-pong round trips.
# Prints a table per build and B/A ratios.  Exit 0 only if both ran.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$DIR/../..
. "$ROOT/tools/vm/guestlib.sh"
KO_B=${KO_B:-$ROOT/kmod/txrdma.ko}
ADMIN_B=${ADMIN_B:-$ROOT/tools/txrdma-admin/txrdma-admin}
PAIRS=${PAIRS:-200}
LAT_N=${LAT_N:-5000}
POOL=16
CG_NAME=txrdma-trustcost
CG=/sys/fs/cgroup/$CG_NAME

die() {
	echo "trust_cost: $*" >&2
	exit 1
}

[ -n "${KO_A:-}" ] && [ -n "${ADMIN_A:-}" ] ||
	die "KO_A and ADMIN_A must name the build to compare with"
for f in "$KO_A" "$KO_B" "$ADMIN_A" "$ADMIN_B" "$DIR/pair_setup" \
	 "$DIR/msg_pingpong"; do
	[ -e "$f" ] || die "missing $f (make; make -C tools/bench)"
done
RXE=$(rdma -j link show | jq -r '[.[] | select(.state == "ACTIVE" and .netdev)][0].ifname // empty')
NETDEV=$(rdma -j link show | jq -r --arg d "$RXE" '.[] | select(.ifname == $d) | .netdev')
ME=$(ip -j -4 addr show dev "$NETDEV" | jq -r '[.[0].addr_info[] | select(.family == "inet")][0].local // empty')
[ -n "$ME" ] || die "no ACTIVE rxe device with an IPv4 address"
mkdir -p "$CG" && echo $$ > "$CG/cgroup.procs" || die "cannot enter $CG"

declare -A R
# measure NAME KO ADMIN: one build's numbers into R[NAME,*]
measure() {
	local name=$1 ko=$2 admin=$3 key=() t0 t1 out line srv
	insmod "$ko" || die "$name: insmod $ko"
	"$admin" tenant add tc cgroup "/$CG_NAME" >/dev/null ||
		die "$name: tenant add"
	"$admin" help 2>&1 | grep -q "key FILE" && key=(key "$TXRDMA_PEER_KEY")
	t0=$EPOCHREALTIME
	"$admin" peer add self addr "$ME" "${key[@]}" pool "$POOL:$POOL" \
		tx 50000 rx 50000 mult 10 || die "$name: peer add"
	full() {
		"$admin" -j peer show self | jq -e --argjson n "$POOL" \
			'.[0] | .state == "up" and .pool.ready >= $n' >/dev/null
	}
	# a tight poll: what is measured is how long the pool takes
	while ! full; do
		[ "$(echo "$EPOCHREALTIME - $t0 > 120" | bc)" = 1 ] &&
			die "$name: pool not full in 120 s"
	done
	t1=$EPOCHREALTIME
	R[$name,fill_ms]=$(echo "($t1 - $t0) * 1000" | bc -l | xargs printf '%.0f')
	out=$("$DIR/pair_setup" -p self -n "$PAIRS") ||
		die "$name: pair_setup: $out"
	R[$name,connect_p50]=$(awk '/^connect_us/ { print $5 }' <<<"$out")
	R[$name,connect_p99]=$(awk '/^connect_us/ { print $9 }' <<<"$out")
	R[$name,export_p50]=$(awk '/^export_us/ { print $5 }' <<<"$out")
	R[$name,export_p99]=$(awk '/^export_us/ { print $9 }' <<<"$out")
	srv=$(mktemp)
	"$DIR/msg_pingpong" -s 0x7c > "$srv" 2>&1 &
	txrdma_wait_until 30 grep -q "server listening" "$srv" ||
		die "$name: msg_pingpong server"
	out=$("$DIR/msg_pingpong" -c self -S 0x7c -m 64 -n "$LAT_N" -w 1000 2>&1)
	kill %1 2>/dev/null
	wait 2>/dev/null
	rm -f "$srv"
	line=$(grep '^txrdma pingpong ' <<<"$out" | tail -n 1)
	R[$name,lat_p50]=$(tr ' ' '\n' <<<"$line" | awk -F= '$1 == "lat_p50_us" { print $2 }')
	R[$name,lat_p99]=$(tr ' ' '\n' <<<"$line" | awk -F= '$1 == "lat_p99_us" { print $2 }')
	"$admin" peer del self
	"$admin" tenant del tc >/dev/null 2>&1 || "$admin" tenant del tc force
	rmmod txrdma || die "$name: rmmod"
}

measure A "$KO_A" "$ADMIN_A"
measure B "$KO_B" "$ADMIN_B"

echo "trust_cost: one guest, $(nproc) vCPU(s), $RXE ($ME), rxe loopback; A = $KO_A, B = $KO_B"
printf '%-34s %12s %12s %8s\n' "" A B "B/A"
for k in fill_ms connect_p50 connect_p99 export_p50 export_p99 lat_p50 lat_p99; do
	case $k in
	fill_ms) what="pool fill, $POOL QPs (ms)" ;;
	connect_p50) what="pair set-up p50 (us)" ;;
	connect_p99) what="pair set-up p99 (us)" ;;
	export_p50) what="export p50 (us)" ;;
	export_p99) what="export p99 (us)" ;;
	lat_p50) what="64 B one-way p50 (us)" ;;
	lat_p99) what="64 B one-way p99 (us)" ;;
	esac
	printf '%-34s %12s %12s %8s\n' "$what" "${R[A,$k]}" "${R[B,$k]}" \
		"$(echo "scale=2; ${R[B,$k]} / ${R[A,$k]}" | bc -l 2>/dev/null)"
done
