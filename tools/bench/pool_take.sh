#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Pool benchmark, two QEMU guests over one rxe link, one run:
#   tools/vm/txrdma-vm run --bench -n 2 -- tools/bench/pool_take.sh   (or make bench)
# Guest 0 takes ready QPs from its pool to guest 1 (an endpoint create,
# TXRDMA_IOC_EP_CREATE) and, over the same link, connects new RC QPs
# with rdma_cm to guest 1's cmtime (rdmacm-utils), which times every
# step of connection setup.  Prints both and their ratio.
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ADMIN=$DIR/../txrdma-admin/txrdma-admin
. "$DIR/../vm/guestlib.sh"
N=${N:-1000}
CONNS=${CONNS:-100}
me=$TXRDMA_GUEST
other=$((1 - me))
mine=$(txrdma_my_addr "$other")
theirs=$(awk -v g="$me" -v p="$other" '$2 == g && $12 == p { print $14 }' \
	"$TXRDMA_JOB/topology")
"$ADMIN" peer add "g$other" addr "$theirs" key "$TXRDMA_PEER_KEY" pool 8:16

if [ "$me" = 1 ]; then
	cmtime -b "$mine" > "$TXRDMA_OUT/cmtime-server.log" 2>&1 &
	txrdma_wait_cm_listen 7471 60
	txrdma_signal cmtime-ready
	txrdma_wait_file bench-done 900
	kill %1 2>/dev/null || true
	exit 0
fi

CG=/sys/fs/cgroup/txrdma-bench
mkdir -p "$CG"
echo $$ > "$CG/cgroup.procs"
"$ADMIN" tenant add bench cgroup /txrdma-bench >/dev/null
trap '"$ADMIN" tenant del bench >/dev/null 2>&1 || true; txrdma_signal bench-done' EXIT
pool_full() {
	[ "$("$ADMIN" -j peer show g1 | jq '.[0] | .state == "up" and .pool.ready >= 8')" = true ]
}
txrdma_wait_until 120 pool_full
txrdma_wait_file cmtime-ready 120

take=$("$DIR/pool_take" -p g1 -n "$N")
cm=$(cmtime -s "$theirs" -b "$mine" -c "$CONNS")
echo "$cm" | sed 's/^/# cmtime: /'
# cmtime prints a table, "STEP   : total max min us/conn"; progress
# lines ("connecting") come before it
step_us() {
	echo "$cm" | awk -v s="$1" '$0 ~ ("^" s " *:") { print $NF; exit }'
}
resolve_addr=$(step_us "resolve addr")
resolve_route=$(step_us "resolve route")
create_qp=$(step_us "create qp")
connect=$(step_us "connect")
take_avg=$(echo "$take" | awk '/^take_us/ { print $7 }')
take_p50=$(echo "$take" | awk '/^take_us/ { print $5 }')
setup=$(echo "$resolve_addr + $resolve_route + $create_qp + $connect" | bc -l)

echo "QP for a transaction to a peer, over rxe between two TCG guests, one run:"
printf '%-44s %12s\n' "step" "us"
printf '%-44s %12.1f\n' "txrdma: take a pooled QP (EP_CREATE), p50" "$take_p50"
printf '%-44s %12.1f\n' "txrdma: take a pooled QP (EP_CREATE), avg" "$take_avg"
printf '%-44s %12.1f\n' "rdma_cm (cmtime): resolve addr" "$resolve_addr"
printf '%-44s %12.1f\n' "rdma_cm (cmtime): resolve route" "$resolve_route"
printf '%-44s %12.1f\n' "rdma_cm (cmtime): create qp" "$create_qp"
printf '%-44s %12.1f\n' "rdma_cm (cmtime): connect" "$connect"
printf '%-44s %12.1f\n' "rdma_cm (cmtime): new connected QP, total" "$setup"
printf 'ratio new connection / pool take (avg): %.0fx\n' \
	"$(echo "$setup / $take_avg" | bc -l)"
echo "$take" | sed 's/^/# pool_take: /'
echo "# txrdma: $N takes+give-backs; cmtime: $CONNS connections (us per connection, averages)"
