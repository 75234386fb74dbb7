#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Before and after in ONE guest: the message benchmark of an older
# build of txrdma against this tree's, the module swapped in between,
# rounds alternating (old then new, new then old, ...) so that a drift
# of the guest's speed shows as spread rather than as a difference:
#
#   git worktree add /tmp/txrdma-old REV && make -C /tmp/txrdma-old
#   OLD_TREE=/tmp/txrdma-old tools/vm/txrdma-vm run --bench --smp 2 \
#       --timeout 2400 -- tools/bench/module_ab.sh
#
# Each side runs its own tools/bench/msg_bench.sh with its own module,
# msg_pingpong and txrdma-admin (their ABIs may differ).  This tree's
# runs add the "session" mode (pairs that outlive a lost QP) beside
# "spin".  Printed at the end: per size, the median over the rounds of
# txrdma's one-way p50 and p99 and its message rate, for each (tree,
# mode), the same p50 over ib_send_lat's of the same run (perftest is
# the yardstick that does not change between the trees), and the
# ratios new / old.  Exits non-zero if any benchmark run failed.
#
# Environment: OLD_TREE (required: a built checkout), ROUNDS (3), SIZES
# ("64 1024"), OLD_MODES ("spin"), NEW_MODES ("spin session"), and
# msg_bench.sh's (LAT_N, RATE_N, ...).
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)

OLD_TREE=${OLD_TREE:-}
ROUNDS=${ROUNDS:-3}
export SIZES=${SIZES:-"64 1024"}
OLD_MODES=${OLD_MODES:-spin}
NEW_MODES=${NEW_MODES:-"spin session"}
LOG=${TXRDMA_OUT:-$(mktemp -d)}/module_ab
mkdir -p "$LOG"

die() {
	echo "module_ab: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (run it in a guest, see the header)"
[ -n "$OLD_TREE" ] || die "OLD_TREE is not set (a built checkout of an earlier commit)"
for t in "$OLD_TREE" "$ROOT"; do
	[ -f "$t/kmod/txrdma.ko" ] || die "no $t/kmod/txrdma.ko (make -C $t)"
	[ -x "$t/tools/bench/msg_bench.sh" ] || die "no $t/tools/bench/msg_bench.sh"
done

swap_module() {	# TREE: unload txrdma, load TREE's
	rmmod txrdma 2>/dev/null
	[ ! -d /sys/module/txrdma ] || die "txrdma.ko did not unload"
	# shellcheck disable=SC2086 # parameters as txrdma-vm gives them
	insmod "$1/kmod/txrdma.ko" ${TXRDMA_MODPARAMS:-} ||
		die "insmod $1/kmod/txrdma.ko"
}

FAILED=0
bench() {	# NAME TREE MODES ROUND
	local out=$LOG/$1-$4.log
	swap_module "$2"
	echo "# round $4: $1 ($2), modes $3"
	echo "round $4" | sed "s/^/$1 # /" >> "$LOG/lines"
	TXRDMA_MODES=$3 TXRDMA_OUT=$LOG/$1-$4 "$2/tools/bench/msg_bench.sh" \
		> "$out" 2>&1 || { echo "module_ab: $1 round $4 failed (see $out)" >&2; FAILED=1; }
	# the per-run lines the table below is made of
	grep -E '^# (txrdma-[a-z-]+|ib_send_lat -s [0-9]+ )' "$out" |
		sed "s/^/$1 /" >> "$LOG/lines"
}

: > "$LOG/lines"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then
		bench old "$OLD_TREE" "$OLD_MODES" "$r"
		bench new "$ROOT" "$NEW_MODES" "$r"
	else
		bench new "$ROOT" "$NEW_MODES" "$r"
		bench old "$OLD_TREE" "$OLD_MODES" "$r"
	fi
done
swap_module "$ROOT"
# every run's numbers, then the medians
sed 's/^/# /' "$LOG/lines"

# "old # txrdma-spin: txrdma pingpong size=64 ... lat_p50_us=X ...",
# "old # ib_send_lat -s 64 -n 10000: 64 10000 tmin tmax typ ...": the
# medians per (tree, mode, size), then the ratios new / old
awk -v sizes="$SIZES" -v oldm="$OLD_MODES" -v newm="$NEW_MODES" '
function kv(line, key,   i, n, f) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++)
		if (index(f[i], key "=") == 1)
			return substr(f[i], length(key) + 2)
	return ""
}
function add(k, v) { if (v != "") { n[k]++; val[k, n[k]] = v + 0 } }
function med(k,   i, j, t, m) {
	m = n[k]
	if (!m)
		return ""
	for (i = 1; i <= m; i++)
		a[i] = val[k, i]
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function ratio(x, y) { return (x == "" || y == "" || y == 0) ? "n/a" : sprintf("%.3f", x / y) }
{
	tree = $1
	if ($3 == "ib_send_lat") {
		s = $5
		split($0, parts, ": ")
		split(parts[2], f, " ")
		add(tree SUBSEP "ib" SUBSEP s, f[5])
		next
	}
	mode = substr($3, 8, length($3) - 8)	# "txrdma-spin:" -> "spin"
	s = kv($0, "size")
	if ($5 == "pingpong") {
		add(tree SUBSEP mode SUBSEP s SUBSEP "p50", kv($0, "lat_p50_us"))
		add(tree SUBSEP mode SUBSEP s SUBSEP "p99", kv($0, "lat_p99_us"))
	} else if ($5 == "msgrate") {
		add(tree SUBSEP mode SUBSEP s SUBSEP "rate", kv($0, "msgs_per_s"))
	}
}
END {
	printf "%-5s %-4s %-8s %10s %10s %12s %12s\n", "size", "tree", "mode",
	       "p50_us", "p99_us", "msgs/s", "p50/ib_lat"
	ns = split(sizes, S, " ")
	for (i = 1; i <= ns; i++) {
		s = S[i]
		for (t = 1; t <= 2; t++) {
			tree = t == 1 ? "old" : "new"
			nm = split(t == 1 ? oldm : newm, M, " ")
			ib = med(tree SUBSEP "ib" SUBSEP s)
			for (j = 1; j <= nm; j++) {
				k = tree SUBSEP M[j] SUBSEP s
				p50[tree, M[j], s] = med(k SUBSEP "p50")
				rate[tree, M[j], s] = med(k SUBSEP "rate")
				norm[tree, M[j], s] = ratio(p50[tree, M[j], s], ib)
				printf "%-5s %-4s %-8s %10s %10s %12s %12s\n", s,
				       tree, M[j], p50[tree, M[j], s],
				       med(k SUBSEP "p99"), rate[tree, M[j], s],
				       norm[tree, M[j], s]
			}
		}
	}
	printf "\nnew / old (medians over the rounds; p50 over ib_send_lat in the same run):\n"
	printf "%-5s %-14s %10s %10s %14s\n", "size", "new mode", "p50", "msgs/s", "p50/ib_lat"
	ns = split(sizes, S, " ")
	nm = split(newm, M, " ")
	for (i = 1; i <= ns; i++)
		for (j = 1; j <= nm; j++) {
			s = S[i]
			printf "%-5s %-14s %10s %10s %14s\n", s, M[j] " / spin",
			       ratio(p50["new", M[j], s], p50["old", "spin", s]),
			       ratio(rate["new", M[j], s], rate["old", "spin", s]),
			       ratio(norm["new", M[j], s], norm["old", "spin", s])
		}
}' "$LOG/lines" | tee "$LOG/table"
[ "$FAILED" -eq 0 ] || die "a benchmark run failed (see $LOG)"
