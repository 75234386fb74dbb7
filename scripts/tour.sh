#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A tour of the kernel module (the main job before the database came):
# install what is missing, build, boot a 2-guest QEMU
# cluster wired with Soft-RoCE, load txrdma.ko in each guest and show
# what txrdma does there:
#   - the RDMA devices it tracks (txrdma-admin dev show)
#   - a tenant bound to a cgroup, with a pinned-memory quota
#   - a database-like process of that tenant creating registered
#     regions through libtxrdma, until the quota refuses one
#   - the registration cost those regions save (tools/bench/reg_cost)
#   - the other guest as a peer: a pool of connected RC QPs, BFD-style
#     liveness with probe RTT, and a tenant process taking pooled QPs
#     (endpoints) in microseconds
#   - the data path rings of a tenant process: NOPs through libtxrdma
#     and the kernel's poller, and how rarely it needs a system call
#   - messages between the guests: an endpoint pair of the tenant's
#     processes, ping-pong and message rate (tools/bench/msg_pingpong),
#     the endpoints' and the tenant's counters (txrdma-admin)
#   - RDMA traffic between the guests over rdma_cm (rping)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# one cache for every step (CI may run without HOME)
HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME
export TXRDMA_CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
cd "$ROOT"

scripts/setup.sh
make -s all > /dev/null
make -s -C tools/bench > /dev/null
make -s -C selftests/txrdma region_hold > /dev/null 2>&1 ||
	make -s selftests > /dev/null

exec tools/vm/txrdma-vm run -n 2 --timeout 600 -- '
set -e
. tools/vm/guestlib.sh
g=$TXRDMA_GUEST
echo "== guest $g: txrdma-admin dev show"
txrdma-admin dev show

echo "== guest $g: a tenant for a database, 16 MiB of pinned memory"
mkdir -p /sys/fs/cgroup/db
txrdma-admin tenant add db cgroup /db pinned 16M qps 64 bw 1G ops 1000000
in_db() { sh -c "echo \$\$ > /sys/fs/cgroup/db/cgroup.procs; exec $*" < /dev/null; }
echo "   a process of the tenant creates 8 registered regions of 2 MiB:"
in_db selftests/txrdma/region_hold 8 | sed "s/^/   /"
echo "   one with 9 regions (18 MiB) is refused at the 9th:"
in_db selftests/txrdma/region_hold 9 | sed "s/^/   /" || true
echo "   outside every tenant:"
selftests/txrdma/region_hold 1 < /dev/null | sed "s/^/   /" || true
txrdma-admin tenant show db

echo "== guest $g: registration cost (one region vs ibv_reg_mr per message)"
N=300 tools/bench/reg_cost.sh 2>&1 | sed "s/^/   /"

other=$((1 - g))
echo "== guest $g: the other guest as a peer: pooled RC QPs, BFD liveness"
txrdma-admin monitor > "$TXRDMA_OUT/events.txt" &
# 500 ms detection: two TCG guests busy with messages stall for tens of ms
txrdma-admin peer add "g$other" addr "$(txrdma_peer_addr "$other")" key "$TXRDMA_PEER_KEY" pool 4:8 \
	tx 50000 rx 50000 mult 10
peer_full() {
	[ "$(txrdma-admin -j peer show "g$other" | jq ".[0] | .state == \"up\" and .pool.ready >= 4")" = true ]
}
txrdma_wait_until 120 peer_full
txrdma-admin peer show "g$other" | sed "s/^/   /"
echo "   a tenant process takes pooled QPs (endpoint create) 200 times:"
in_db tools/bench/pool_take -p "g$other" -n 200 | sed "s/^/   /"
txrdma_signal "peered-$g"
txrdma_wait_file "peered-$other" 120
echo "   liveness events seen:"
sed "s/^/   /" "$TXRDMA_OUT/events.txt"

echo "== guest $g: data path rings of a tenant process (NOPs: the machinery only)"
in_db tools/bench/ring_nop -n 20000 | sed "s/^/   /"

echo "== guest $g: messages between the guests (endpoint pair, SEND into the peer ring)"
if [ "$g" = 1 ]; then
	in_db tools/bench/msg_pingpong -s 7 > "$TXRDMA_OUT/msg-server.log" 2>&1 &
	srv=$!
	txrdma_wait_until 60 grep -q "server listening" "$TXRDMA_OUT/msg-server.log"
	txrdma_signal msg-ready
	txrdma_wait_file msg-done 300
	kill $srv 2>/dev/null || true
	echo "   served guest 0; server log:"
	sed "s/^/   /" "$TXRDMA_OUT/msg-server.log"
else
	txrdma_wait_file msg-ready 120
	echo "   ping-pong, 64 B and 4 KiB (RTT, and one-way = RTT/2):"
	in_db tools/bench/msg_pingpong -c g1 -S 7 -m 64 -n 2000 | sed "s/^/   /"
	in_db tools/bench/msg_pingpong -c g1 -S 7 -m 4096 -n 1000 | sed "s/^/   /"
	echo "   message rate, 1 KiB, 64 in flight:"
	in_db tools/bench/msg_pingpong -c g1 -S 7 -m 1024 -n 20000 -r | sed "s/^/   /"
	txrdma-admin ep show | sed "s/^/   /"
	txrdma-admin tenant show db | sed "s/^/   /"
	txrdma_signal msg-done
fi

if [ "$g" = 0 ]; then
	rping -s -a "$(txrdma_my_addr 1)" -C 5 -v > "$TXRDMA_OUT/rping.log" 2>&1 &
	txrdma_wait_cm_listen 7174 30
	txrdma_signal rping-ready
	wait $!
	echo "== guest 0: rping server, 5 pings"
else
	txrdma_wait_file rping-ready 60
	rping -c -a "$(txrdma_peer_addr 0)" -C 5 -v > "$TXRDMA_OUT/rping.log" 2>&1
	echo "== guest 1: rping client to $(txrdma_peer_addr 0), 5 pings"
fi
cat "$TXRDMA_OUT/rping.log"
'
