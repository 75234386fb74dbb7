#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The main job: a replicated, sharded, transactional database on
# txrdma, against the same database on TCP, in one run.  Installs what
# is missing, builds, boots three QEMU guests wired with Soft-RoCE and
# loads txrdma.ko in each; each guest runs a node of txkv
# (tools/txkv: two shards and a decision log, each replicated on all
# three guests by Raft; TPC-C-like new orders across both shards by
# two-phase commit), over txrdma and over TCP, each alone and then
# beside a bulk tenant's backup stream on the same link.  Prints
# transactions/s, latency (p50, p99, p99.9) and CPU seconds per 1,000
# transactions for every run, checks that the three guests' replicas
# are identical, that no committed order was lost and that the history
# is strictly serializable, and writes the results and a latency chart
# (latency.png, with gnuplot) to out/main.
#
# Environment: TXKV_SECONDS (20: per run), TXKV_WINDOW (8: orders in
# flight), TXKV_RUNS (see tools/txkv/txkv_guest.sh), TXRDMA_MAIN_OUT
# (out/main).  scripts/tour.sh is the older
# tour of the module's pieces (regions, quotas, pools, rings, rping).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# one cache for every step (CI may run without HOME)
HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME
export TXRDMA_CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
cd "$ROOT"
SECS=${TXKV_SECONDS:-20}
WINDOW=${TXKV_WINDOW:-8}
OUT=${TXRDMA_MAIN_OUT:-$ROOT/out/main}

scripts/setup.sh
echo "== building (module, libraries, txrdma-admin, txkv)"
make -s all > /dev/null
make -s -C tools/bench msg_pingpong > /dev/null
RUNS=${TXKV_RUNS:-"txrdma tcp txrdma+bulk tcp+bulk"}

rm -rf "$OUT"
mkdir -p "$OUT"
echo "== three guests, txkv: $RUNS, ${SECS} s each (a few minutes)"
rc=0
# per run at most SECS + 300 (txkv_guest.sh), and the boot
tools/vm/txrdma-vm run -n 3 --bench --timeout $((SECS * 4 + 1500)) \
	--outdir "$OUT/vm" -- \
	"TXKV_SECONDS=$SECS TXKV_WINDOW=$WINDOW TXKV_RUNS='$RUNS' TXKV_PERF=${TXKV_PERF:-} tools/txkv/txkv_guest.sh" \
	> "$OUT/guests.log" 2>&1 || rc=$?

# guest 0's table, then what failed anywhere
sed -n '/^txkv: TPC-C-like/,/^$/p' "$OUT/guests.log"
grep -E '^(not ok|guest [0-9]+: exit)' "$OUT/guests.log" || true
plots=''
for r in $RUNS; do
	d=$OUT/vm/job/txkv-$r
	[ -e "$d/txkv-result" ] && cp "$d/txkv-result" "$OUT/result-$r.txt"
	[ -s "$d/txkv-lat" ] || continue
	sort -n "$d/txkv-lat" > "$OUT/latency-$r.txt"
	n=$(wc -l < "$OUT/latency-$r.txt")
	plots="$plots${plots:+, }\"$OUT/latency-$r.txt\" using 1:(\$0 / $n) with lines lw 2 title \"$r\""
done

# the latency distribution of committed orders, per run
if command -v gnuplot > /dev/null && [ -n "$plots" ]; then
	gnuplot <<-EOF || echo "chart: gnuplot failed"
		set terminal png size 900,600
		set output "$OUT/latency.png"
		set title "txkv new-order latency, 3 guests (Raft x3, 2PC), ${SECS} s each"
		set xlabel "latency (us, log)"
		set ylabel "fraction of committed orders at or below"
		set logscale x
		set grid
		set key bottom right
		plot $plots
	EOF
	[ -s "$OUT/latency.png" ] && echo "chart: $OUT/latency.png"
else
	echo "chart: not drawn (gnuplot missing or no run has results)"
fi
echo "logs: $OUT/guests.log; each guest's: $OUT/vm/job/g*/"
if [ "$rc" -ne 0 ] || grep -q '^not ok' "$OUT/guests.log"; then
	echo "main job: FAILED (see above)"
	exit 1
fi
echo "main job: done"
