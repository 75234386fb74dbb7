#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Where the kernel time of a 64-byte ping-pong goes, txrdma against
# ib_send_lat, counted with bpftrace in ONE guest (issue 14):
#
#   tools/vm/txrdma-vm run --bench --smp 2 --timeout 1200 -- tools/bench/kernel_time.sh
#
# needs bpftrace on the host (the guest runs the host's binaries):
# apt-get install bpftrace.
#
# Two traced runs over the self peer of msg_bench.sh (selfpeer.sh):
# msg_pingpong reading ahead with poll_idle_us 0 (msg_bench's
# "ahead-doorbell": every post a doorbell ioctl served in the caller's
# system call, no poller thread), and ib_send_lat -R.  For each, only
# the two processes of the tool (by comm) are counted:
#   - system calls: count and time per call, by number;
#   - softirqs run in the processes' context (on their CPU while they
#     were current), by vector, and tasklets by function;
#   - calls of the functions in FUNCS (txrdma's doorbell, its CQ
#     handlers, rxe's requester/responder/completer, the CQ softirq
#     poll) with their inclusive time; functions the kernel does not
#     have are left out and named.
# Then a table per tool: count, count per round trip, mean and time per
# round trip, so the two columns compare the same work.  Every counted
# call is a real one; tracing slows both tools (kprobes most), so read
# the shares, not the absolute times.  Raw outputs in
# $TXRDMA_OUT/kernel_time.
#
# Environment: N (10000 round trips), WARMUP (1000), SIZE (64),
# FUNCS (below), SERVICE (4242).
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin	# selfpeer.sh uses it
export ADMIN
PP=$DIR/msg_pingpong
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"

N=${N:-10000}
WARMUP=${WARMUP:-1000}
SIZE=${SIZE:-64}
SERVICE=${SERVICE:-4242}
FUNCS=${FUNCS:-"txrdma_ioctl txrdma_tx_done txrdma_rx_done ib_uverbs_write
	rxe_requester rxe_responder rxe_completer rxe_send_complete
	ib_poll_handler"}
PEER_ATTRS="pool 2:8 tx 50000 rx 50000 mult 10"	# as msg_bench.sh
PERFTEST_PORT=18515
RUN_LIMIT=300
IDLE_PARAM=/sys/module/txrdma/parameters/poll_idle_us
LOG=${TXRDMA_OUT:-$(mktemp -d)}/kernel_time
mkdir -p "$LOG"
SRV_PID=
IDLE_SAVED=

die() {
	echo "kernel_time: $*" >&2
	exit 1
}

cleanup() {
	[ -z "$SRV_PID" ] || { kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; }
	[ -z "$IDLE_SAVED" ] || echo "$IDLE_SAVED" > "$IDLE_PARAM"
	selfpeer_down
}
trap cleanup EXIT

selfpeer_prereqs "$0" jq bpftrace ib_send_lat
[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs (--smp 2): with one, a ping-pong measures the scheduler"

# the functions this kernel has (kprobes on a missing one fail the run)
PROBES=()
MISSING=()
for f in $FUNCS; do
	if grep -qE " [tT] $f([[:space:]]|\$)" /proc/kallsyms; then
		PROBES+=("$f")
	else
		MISSING+=("$f")
	fi
done
[ ${#PROBES[@]} -gt 0 ] || die "none of FUNCS is in /proc/kallsyms: $FUNCS"
[ ${#MISSING[@]} -eq 0 ] || echo "kernel_time: not in this kernel, not traced: ${MISSING[*]}"

# bpftrace_prog COMM_A COMM_B: the program, counting for those two comms
bpftrace_prog() {
	local f i
	cat <<EOF
tracepoint:raw_syscalls:sys_enter /comm == "$1" || comm == "$2"/
{ @sys_t[tid] = nsecs; @sys_id[tid] = args->id; }
tracepoint:raw_syscalls:sys_exit /@sys_t[tid]/
{ @sys[comm, @sys_id[tid]] = stats(nsecs - @sys_t[tid]); delete(@sys_t[tid]); delete(@sys_id[tid]); }
tracepoint:irq:softirq_entry /comm == "$1" || comm == "$2"/ { @si_t[cpu] = nsecs; }
tracepoint:irq:softirq_exit /@si_t[cpu]/
{ @soft[comm, args->vec] = stats(nsecs - @si_t[cpu]); delete(@si_t[cpu]); }
tracepoint:irq:tasklet_entry /comm == "$1" || comm == "$2"/ { @tl_t[cpu] = nsecs; }
tracepoint:irq:tasklet_exit /@tl_t[cpu]/
{ @tasklet[comm, ksym(args->func)] = stats(nsecs - @tl_t[cpu]); delete(@tl_t[cpu]); }
kprobe:rxe_post_send /@sys_t[tid]/ { @to_post[comm, 0] = stats(nsecs - @sys_t[tid]); }
EOF
	# one pair of probes per function, keyed by its index in PROBES
	# (bpftrace's func builtin did not match between a kprobe and its
	# kretprobe; rows() turns the index back into the name)
	for i in "${!PROBES[@]}"; do
		f=${PROBES[$i]}
		cat <<EOF
kprobe:$f /comm == "$1" || comm == "$2"/ { @fn_t[tid, $i] = nsecs; }
kretprobe:$f /@fn_t[tid, $i]/
{ @fn[comm, $i] = stats(nsecs - @fn_t[tid, $i]); delete(@fn_t[tid, $i]); }
EOF
	done
	echo 'END { clear(@sys_t); clear(@sys_id); clear(@si_t); clear(@tl_t); clear(@fn_t); }'
}

# traced LABEL CLIENT...: run the client under bpftrace (tracing starts
# before it and ends with it); the server is already up and counted by
# comm.  bpftrace's maps and the client's output go to $LOG/LABEL.out.
traced() {
	local label=$1 comm bin
	shift
	comm=$(basename "$1")
	# one path: bpftrace refuses a name that /bin and /usr/bin both match
	bin=$(readlink -f "$(command -v "$1")")
	shift
	bpftrace_prog "$comm" "$comm" > "$LOG/$label.bt"
	timeout "$RUN_LIMIT" bpftrace "$LOG/$label.bt" -c "$bin $*" > "$LOG/$label.out" 2>&1 ||
		{ tail -n 20 "$LOG/$label.out" >&2; die "$label: bpftrace or its client failed"; }
}

server_up() {
	grep -q "server listening" "$1" 2>/dev/null
}

selfpeer_up txrdma-ktime ktime "$PEER_ATTRS"
IDLE_SAVED=$(cat "$IDLE_PARAM") || die "cannot read $IDLE_PARAM"
echo 0 > "$IDLE_PARAM" || die "cannot set $IDLE_PARAM"

# ---- txrdma, reading ahead, doorbells served in the caller --------------

"$PP" -s "$SERVICE" -A > "$LOG/pp-server.log" 2>&1 &
SRV_PID=$!
txrdma_wait_until 30 server_up "$LOG/pp-server.log" || die "msg_pingpong server did not start"
traced txrdma "$PP" -c self -S "$SERVICE" -m "$SIZE" -n "$N" -w "$WARMUP" -A
grep -q '^txrdma pingpong ' "$LOG/txrdma.out" || die "no result line from msg_pingpong (see $LOG/txrdma.out)"
kill "$SRV_PID"
wait "$SRV_PID" 2>/dev/null
SRV_PID=
echo "$IDLE_SAVED" > "$IDLE_PARAM"
IDLE_SAVED=

# ---- ib_send_lat over the same device --------------------------------------

ib_send_lat -R -s "$SIZE" -n "$((N + WARMUP))" -F > "$LOG/perftest-server.log" 2>&1 &
SRV_PID=$!
txrdma_wait_cm_listen "$PERFTEST_PORT" 30 || die "ib_send_lat server did not listen"
traced perftest ib_send_lat -R -s "$SIZE" -n "$((N + WARMUP))" -F "$ME"
wait "$SRV_PID"
SRV_PID=

# ---- the table -------------------------------------------------------------

# rows LABEL ROUND_TRIPS: "what count mean_ns total_ns" from bpftrace's
# "@map[comm, key]: count C, average A, total T" lines (both processes summed)
rows() {
	awk -v rt="$2" -v fns="${PROBES[*]}" '
	function name(map, key) {
		if (map == "@sys") return "syscall " key
		if (map == "@soft") {
			split("HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU", v, " ")
			return "softirq " v[key + 1]
		}
		if (map == "@tasklet") return "tasklet " key
		if (map == "@to_post") return "syscall entry -> rxe_post_send"
		split(fns, f, " ")
		return "call " f[key + 1]
	}
	/^@(sys|soft|tasklet|fn|to_post)\[/ {
		map = substr($0, 1, index($0, "[") - 1)
		inner = substr($0, index($0, "[") + 1)
		inner = substr(inner, 1, index(inner, "]") - 1)
		n = split(inner, p, ", ")
		key = p[n]
		k = name(map, key)
		for (i = 1; i <= NF; i++) {
			if ($i == "count") c[k] += $(i + 1)
			if ($i == "total") t[k] += $(i + 1)
		}
	}
	END { for (k in c) printf "%s|%d|%.2f|%.2f|%.1f\n", k, c[k], c[k] / rt,
			t[k] / c[k] / 1000, t[k] / rt / 1000 }' "$LOG/$1.out" | LC_ALL=C sort -t"|" -k1,1
}

RT=$((N + WARMUP))
line=$(grep '^txrdma pingpong ' "$LOG/txrdma.out" | tail -n 1)
echo "kernel_time: $SIZE B ping-pong, $RT round trips each (with warm-up), one guest, $(nproc) vCPUs, $RXE"
echo "kernel_time: txrdma (ahead, poll_idle_us 0): $line"
echo "kernel_time: ib_send_lat: $(grep -E '^ *[0-9]+ +[0-9]+ ' "$LOG/perftest.out" | tail -n 1)"
printf '%-34s %10s %7s %9s %9s   %10s %7s %9s %9s\n' "" txrdma per_RT mean_us us_per_RT \
	send_lat per_RT mean_us us_per_RT
rows txrdma "$RT" > "$LOG/txrdma.rows"
rows perftest "$RT" > "$LOG/perftest.rows"
LC_ALL=C join -t'|' -a1 -a2 -e- -o 0,1.2,1.3,1.4,1.5,2.2,2.3,2.4,2.5 \
	"$LOG/txrdma.rows" "$LOG/perftest.rows" |
	awk -F'|' '{ printf "%-34s %10s %7s %9s %9s   %10s %7s %9s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
echo "syscall numbers: 16 ioctl, 1 write, 0 read, 24 sched_yield; softirqs and tasklets: those run"
echo "  while the tool's process was current (work rxe and the CQs did in its system calls);"
echo "  call: inclusive time of each traced function, in any context of the two processes"
