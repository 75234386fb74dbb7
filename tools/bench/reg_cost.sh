#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Registration cost benchmark, inside one QEMU guest with rxe:
#   tools/vm/txrdma-vm run --bench -- tools/bench/reg_cost.sh
# (or: make bench).  Puts itself in a tenant, then runs reg_cost for
# several message sizes, all in this one run on the same device.
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ADMIN=$DIR/../txrdma-admin/txrdma-admin
N=${N:-1000}
CG=/sys/fs/cgroup/txrdma-bench
mkdir -p "$CG"
echo $$ > "$CG/cgroup.procs"
"$ADMIN" tenant add bench cgroup /txrdma-bench >/dev/null
trap '"$ADMIN" tenant del bench >/dev/null 2>&1 || true' EXIT

echo "registration cost on $(rdma -j link show | jq -r '.[0].ifname') (rxe, TCG guest), $N messages, 16 buffers"
printf '%-8s %6s %8s %12s %12s %14s %12s %10s\n' \
	msg_B msgs pool_KiB txrdma_us verbs_us/msg verbs_total_us verbs_once_us ratio
for s in 4096 65536 1048576; do
	"$DIR/reg_cost" -s "$s" -n "$N" -b 16
done
echo "txrdma_us: one region create (2 MiB pages allocated, pinned, FRWR-registered), median of 5"
echo "verbs_us/msg: ibv_reg_mr + ibv_dereg_mr of the message buffer, per message"
echo "ratio: verbs_total_us / txrdma_us (registration time per-send for $N messages vs once)"
