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
# beside a bulk tenant's backup stream on the same link.  On txrdma the
# client reads a remote shard leader's records by RDMA READ from its
# memory; the run txrdma+svc reads them by message instead, as TCP
# does, in the same guests.  Prints
# transactions/s, latency (p50, p99, p99.9) and CPU seconds per 1,000
# transactions for every run, checks that the three guests' replicas
# are identical, that no committed order was lost and that the history
# is strictly serializable, and writes the results and a latency chart
# (latency.png, with gnuplot) to out/main.
#
# Then, on each backend, guest 2 (the leader of shard 1) is killed
# half-way through a run: the time without a commit is printed, and
# the two survivors' replicas are checked as above.
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
RUNS=${TXKV_RUNS:-"txrdma txrdma+svc tcp txrdma+bulk tcp+bulk txrdma+kill tcp+kill"}

rm -rf "$OUT"
mkdir -p "$OUT"
: > "$OUT/guests.log"
rc=0
# Runs go to one cluster of three guests until a "+kill" run, which
# kills guest 2 and so ends its cluster: the next runs boot another.
# run_cluster K RUNS...: cluster K (out/main/vm<K>)
run_cluster() {
	local k=$1 kill=() last
	shift
	last=${*: -1}
	if [ "$last" != "${last%+kill}" ]; then
		kill=(--kill-when "txkv-$last/txkv-kill:2")
	fi
	echo "== cluster $k: three guests, txkv: $*, ${SECS} s each"
	tools/vm/txrdma-vm run -n 3 --bench --timeout $((SECS * 4 + 1500)) \
		--outdir "$OUT/vm$k" "${kill[@]}" -- \
		"TXKV_SECONDS=$SECS TXKV_WINDOW=$WINDOW TXKV_RUNS='$*' TXKV_PERF=${TXKV_PERF:-} tools/txkv/txkv_guest.sh" \
		>> "$OUT/guests.log" 2>&1 || rc=$?
	for r in "$@"; do
		ln -s "vm$k/job/txkv-$r" "$OUT/run-$r"
	done
}
k=1
batch=()
for r in $RUNS; do
	batch+=("$r")
	if [ "$r" != "${r%+kill}" ]; then
		run_cluster $k "${batch[@]}"
		k=$((k + 1))
		batch=()
	fi
done
if [ ${#batch[@]} -gt 0 ]; then
	run_cluster $k "${batch[@]}"
fi

grep -E '^(not ok|guest [0-9]+: (exit|FAILED|killed))' "$OUT/guests.log" || true
echo
echo "txkv: TPC-C-like new orders (5 items on 2 shards, 11 records read, 2PC,"
echo "every shard and the decision log replicated on 3 guests by Raft), ${SECS} s, $WINDOW in flight"
echo "(+svc: records read by a message to the leader, not by RDMA READ;"
echo " +bulk: beside a backup streaming 4 KiB messages from guest 0 to 1;"
echo " +kill: guest 2, shard 1's leader, killed half-way; CPU not counted)"
printf '%-12s %9s %8s %8s %9s %9s %9s %12s\n' run committed aborted \
	'tx/s' 'p50 us' 'p99 us' 'p99.9 us' 'cpu s/1k tx'
for r in $RUNS; do
	d=$OUT/run-$r
	res=$(cat "$d/txkv-result" 2>/dev/null || true)
	cpu=$({ cat "$d"/cpu-1 "$d"/cpu-2 "$d"/cpu-3 2>/dev/null || true; } |
		awk '{ u += $1; k += $2 } END { print u + 0, k + 0 }')
	if [ "$r" != "${r%+kill}" ]; then
		cpu="- -"
	fi
	echo "$r $cpu $res" | awk '{
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["committed"]
		printf "%-12s %9d %8d %8.1f %9.1f %9.1f %9.1f ", $1,
			c, v["aborted"], v["tps"], v["p50_us"], v["p99_us"], v["p999_us"]
		if ($2 == "-" || !c)
			print "      -"
		else
			printf "%6.1f (%4.1f user, %4.1f kernel)\n",
				($2 + $3) * 1000 / c, $2 * 1000 / c, $3 * 1000 / c }'
done
# how the client read the records of its orders, on txrdma
for r in $RUNS; do
	[ "${r%%+*}" = txrdma ] || continue
	res=$(cat "$OUT/run-$r/txkv-result" 2>/dev/null || true)
	echo "$r $res" | awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["os_reads"] == "") exit
		printf "%s: shard reads by RDMA READ %d, by message %d, of its own replica %d; READs failed %d\n",
			$1, v["os_reads"], v["svc_reads"], v["local_reads"], v["os_errors"] }'
done
for r in $RUNS; do
	[ "$r" != "${r%+kill}" ] || continue
	res=$(cat "$OUT/run-$r/txkv-result" 2>/dev/null || true)
	echo "$r $res" | awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["kill_s"] == "") { print $1 ": no result"; exit }
		printf "%s: guest 2 killed at %.1f s (seen dead %d ms later); no commit for %d ms, then %d orders committed\n",
			$1, v["kill_s"], v["killed_ms"], v["outage_ms"], v["after_kill"] }'
	grep -hE '^txkv: (end check|history check|[0-9]+ decisions)' \
		"$OUT/run-$r/../g0/txkv-$r.log" 2>/dev/null | sed 's/^/  /' || true
done
echo
plots=''
for r in $RUNS; do
	d=$OUT/run-$r
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
echo "logs: $OUT/guests.log; each guest's: $OUT/vm*/job/g*/"
if [ "$rc" -ne 0 ] || grep -q '^not ok' "$OUT/guests.log"; then
	echo "main job: FAILED (see above)"
	exit 1
fi
echo "main job: done"
