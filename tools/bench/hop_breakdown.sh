#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Where one 64-byte hop's time goes, txrdma against ib_send_lat, inside
# ONE QEMU guest over rxe loopback (the setup of msg_bench.sh):
#
#   tools/vm/txrdma-vm run --bench --smp 2 --timeout 1200 -- tools/bench/hop_breakdown.sh
#
# Both ping-pongs run twice: untraced (their own one-way p50) and with
# ftrace's function tracer on a curated list of functions (entries, raw
# output: nanoseconds on trace_clock "mono") plus return probes on the
# receive handler (kretprobe events), for ITERS round trips.  msg_pingpong
# (spin mode) also logs when each process posts and sees a message (-T:
# CLOCK_MONOTONIC, no system call added), so the user-space ends of a
# hop are on the same time line.  hop_breakdown.py turns it into one
# table per tool, the median of each stage of a hop and its share, and
# a side-by-side of the stages both tools have.  Exits non-zero when a
# run failed or a trace could not be parsed.
#
# Why the function tracer, not function_graph: it records entries only
# (no return trampolines), its raw output has nanosecond timestamps
# where function_graph prints microseconds, and the few exits needed
# come from kretprobes.  Functions that run on every idle pass of a
# polling loop (the txrdma poller's) would flood the buffer and slow the
# poller: a short calibration run under the full list finds those
# entered more than 8 times per message, and they go to
# set_ftrace_notrace.  Tracing makes everything slower: the table
# gives the one-way p50 of the traced run beside the untraced one.
#
# Raw outputs, traces included, go to $TXRDMA_OUT/hop_breakdown.
# Environment: ITERS (2000 round trips), WARMUP (200), CAL_ITERS (100),
# SIZE (64), BUF_KB (32768 per CPU), PEER_ATTRS, SERVICE (4243), and
# the trace list below.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin
PP=$DIR/msg_pingpong
PARSE=$DIR/hop_breakdown.py
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"

# ---- what is traced: the one place to edit when kmod/ renames ----------
# Functions traced at entry: globs, as set_ftrace_filter takes them.
TRACE_FUNCS=${TRACE_FUNCS:-"txrdma_* ib_uverbs_write ib_uverbs_post_send
	rxe_post_send rxe_requester rxe_responder rxe_completer rxe_cq_post
	ib_cq_completion_softirq ib_poll_handler rxe_poll_cq"}
# Which traced function plays which part (extended regular expressions,
# whole names).  The receive handler is also traced at its return.
ROLE_SEND_EXEC=${ROLE_SEND_EXEC:-'txrdma_(msg|tx)_send'}	# executes a SEND SQE
ROLE_RECV_DONE=${ROLE_RECV_DONE:-'txrdma_(msg_recv|rx)_done'}	# CQ handler: frame in
ROLE_SEND_DONE=${ROLE_SEND_DONE:-'txrdma_(msg_send|tx)_done'}	# CQ handler: SEND done
ROLE_RING_COMPLETE=${ROLE_RING_COMPLETE:-'txrdma_ring_complete'}	# CQE to the process
# -------------------------------------------------------------------------

ITERS=${ITERS:-2000}
WARMUP=${WARMUP:-200}
CAL_ITERS=${CAL_ITERS:-100}
SIZE=${SIZE:-64}
BUF_KB=${BUF_KB:-32768}
PEER_ATTRS=${PEER_ATTRS:-"pool 2:8 tx 50000 rx 50000 mult 10"}
SERVICE=${SERVICE:-4243}
PERFTEST_PORT=18515
RUN_LIMIT=300		# seconds, any one client run
LOG=${TXRDMA_OUT:-$(mktemp -d)}/hop_breakdown
T=/sys/kernel/tracing
KPGROUP=txbd
mkdir -p "$LOG"

SRV_PID=
CLI_PID=

die() {
	echo "hop_breakdown: $*" >&2
	exit 1
}

tr_reset() {	# tracing off, nothing traced, buffer empty
	echo 0 > "$T/tracing_on"
	echo nop > "$T/current_tracer"
	[ -d "$T/events/$KPGROUP" ] && echo 0 > "$T/events/$KPGROUP/enable"
	: > "$T/set_ftrace_filter"
	: > "$T/set_ftrace_notrace"
	: > "$T/trace"
}

cleanup() {
	local p
	for p in $CLI_PID $SRV_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [ -w "$T/tracing_on" ]; then
		tr_reset
		: > "$T/kprobe_events" 2>/dev/null
	fi
	selfpeer_down
}
trap cleanup EXIT

# ---- prerequisites -------------------------------------------------

selfpeer_prereqs "$0" jq python3 ib_send_lat
[ -e "$T/trace" ] || mount -t tracefs nodev "$T" || die "cannot mount tracefs on $T"
[ -e "$T/available_filter_functions" ] || die "no function tracer in this kernel"
grep -qw mono "$T/trace_clock" || die "no trace_clock mono"

selfpeer_up txrdma-hopbd hopbd "$PEER_ATTRS"
NCPU=$(nproc)
echo "hop_breakdown: one guest, $NCPU vCPU(s), kernel $(uname -r); $RXE on $NETDEV ($ME), rxe loopback"
echo "hop_breakdown: $SIZE B, $ITERS round trips (+$WARMUP warm-up) per run; clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# ---- helpers ---------------------------------------------------------

gone() {
	! kill -0 "$1" 2>/dev/null
}

# finish PID: wait for a background client at most RUN_LIMIT s; its status
finish() {
	txrdma_wait_until "$RUN_LIMIT" gone "$1" >/dev/null 2>&1 || kill "$1" 2>/dev/null
	wait "$1"
}

server_up() {
	grep -q "server listening" "$1" 2>/dev/null
}

# pingpong NAME [-T]: a msg_pingpong server (one endpoint) and client;
# NAME.out the client's result line, NAME.pids their pids, with -T the
# run_client NAME CMD...: the server (SRV_PID) is up: run CMD as its
# client, traced if TRACING is set, writing NAME-client.log and
# NAME.pids; wait for both to end.  Return: the client's status.
run_client() {
	local name=$1 rc

	shift
	[ -n "${TRACING:-}" ] && echo 1 > "$T/tracing_on"
	"$@" > "$LOG/$name-client.log" 2>&1 &
	CLI_PID=$!
	printf 'client %s\nserver %s\n' "$CLI_PID" "$SRV_PID" > "$LOG/$name.pids"
	finish "$CLI_PID"
	rc=$?
	echo 0 > "$T/tracing_on"
	CLI_PID=
	finish "$SRV_PID" >/dev/null 2>&1
	SRV_PID=
	return $rc
}

# time logs NAME-client.ts and NAME-server.ts.  Nonzero on failure.
pingpong() {
	local name=$1 ts=${2:-} n=$ITERS w=$WARMUP rc
	local ta=() tb=()
	[ "$name" = cal ] && n=$CAL_ITERS w=0
	[ -n "$ts" ] && ta=(-T "$LOG/$name-server.ts") tb=(-T "$LOG/$name-client.ts")
	"$PP" -s "$SERVICE" -o "${ta[@]}" > "$LOG/$name-server.log" 2>&1 &
	SRV_PID=$!
	txrdma_wait_until 30 server_up "$LOG/$name-server.log" ||
		{ echo "hop_breakdown: $name: msg_pingpong server did not start" >&2; return 1; }
	txrdma_wait_until 30 selfpeer_ready
	run_client "$name" "$PP" -c self -S "$SERVICE" -m "$SIZE" -n "$n" \
		-w "$w" "${tb[@]}"
	rc=$?
	grep '^txrdma pingpong ' "$LOG/$name-client.log" > "$LOG/$name.out"
	if [ $rc -ne 0 ]; then
		echo "hop_breakdown: $name: msg_pingpong client exited $rc:" >&2
		tail -n 5 "$LOG/$name-client.log" "$LOG/$name-server.log" >&2
		return 1
	fi
}

# sendlat NAME: ib_send_lat server and client (rdma_cm); NAME.out gets
# "lat_p50_us=t_typical", NAME.pids their pids
sendlat() {
	local name=$1 rc row
	ib_send_lat -R -s "$SIZE" -n "$ITERS" -F > "$LOG/$name-server.log" 2>&1 &
	SRV_PID=$!
	txrdma_wait_cm_listen "$PERFTEST_PORT" 30 ||
		{ echo "hop_breakdown: $name: ib_send_lat server did not listen" >&2; return 1; }
	run_client "$name" ib_send_lat -R -s "$SIZE" -n "$ITERS" -F "$ME"
	rc=$?
	# bytes iters t_min t_max t_typical ...: one-way (perftest halves)
	row=$(awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ && NF >= 9 { print; exit }' \
		"$LOG/$name-client.log")
	[ -n "$row" ] && awk '{ print "ib_send_lat lat_p50_us=" $5 }' <<<"$row" > "$LOG/$name.out"
	if [ $rc -ne 0 ] || [ -z "$row" ]; then
		echo "hop_breakdown: $name: ib_send_lat exited $rc:" >&2
		tail -n 5 "$LOG/$name-client.log" >&2
		return 1
	fi
}

# save NAME: the raw trace to NAME.trace; complain about lost events
save() {
	local lost
	cat "$T/trace" > "$LOG/$1.trace"
	lost=$(cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	[ "$lost" -eq 0 ] || echo "hop_breakdown: $1: $lost events lost (BUF_KB $BUF_KB too small)" >&2
	: > "$T/trace"
}

FAILED=0

# ---- untraced ----------------------------------------------------------

tr_reset
pingpong untraced-txrdma || FAILED=1
sendlat untraced-perftest || FAILED=1
echo "# untraced txrdma: $(cat "$LOG/untraced-txrdma.out")"
echo "# untraced ib_send_lat: $(cat "$LOG/untraced-perftest.out")"

# ---- the tracer ------------------------------------------------------

cp /proc/kallsyms "$LOG/kallsyms"
echo mono > "$T/trace_clock"
echo 1 > "$T/options/raw"
echo "$BUF_KB" > "$T/buffer_size_kb"
for p in $TRACE_FUNCS; do
	echo "$p" >> "$T/set_ftrace_filter" 2>/dev/null ||
		echo "hop_breakdown: nothing traceable matches $p" >&2
done
# an empty filter would trace every function of the kernel
[ -n "$(head -n 1 "$T/set_ftrace_filter")" ] || die "no function of TRACE_FUNCS is traceable"
: > "$T/kprobe_events"
: > "$LOG/kprobe_ids"
for f in $(sed 's/ .*//' "$T/available_filter_functions" | grep -E "^($ROLE_RECV_DONE)\$" | sort -u); do
	echo "r:$KPGROUP/ret_$f $f" >> "$T/kprobe_events" ||
		die "cannot add a return probe on $f"
	echo "$(cat "$T/events/$KPGROUP/ret_$f/id") $f" >> "$LOG/kprobe_ids"
done
[ -s "$LOG/kprobe_ids" ] || die "no function matches ROLE_RECV_DONE ($ROLE_RECV_DONE)"
echo "hop_breakdown: $(wc -l < "$T/set_ftrace_filter") functions traced at entry, returns of $(awk '{ print $2 }' "$LOG/kprobe_ids" | paste -sd' ')"
echo 1 > "$T/events/$KPGROUP/enable"
echo function > "$T/current_tracer"
: > "$T/trace"
TRACING=1

# calibration: what runs on every idle pass of a loop stays out
pingpong cal || die "calibration run failed"
save cal
SPIN=$(python3 "$PARSE" spin --kallsyms "$LOG/kallsyms" --trace "$LOG/cal.trace" \
	--messages $((2 * CAL_ITERS + 4))) || die "could not parse the calibration trace"
for f in $SPIN; do
	echo "$f" >> "$T/set_ftrace_notrace" || echo "hop_breakdown: cannot exclude $f" >&2
done
echo "hop_breakdown: left out (entered more than 8 times a message): ${SPIN:-none}" | tr '\n' ' '
echo

# ---- traced ------------------------------------------------------------

pingpong txrdma -T || FAILED=1
save txrdma
sendlat perftest || FAILED=1
save perftest
TRACING=
tr_reset

for n in txrdma perftest; do
	mv "$LOG/untraced-$n.out" "$LOG/$n.untraced" 2>/dev/null
	mv "$LOG/$n.out" "$LOG/$n.traced" 2>/dev/null
done
echo "# traced txrdma: $(cat "$LOG/txrdma.traced" 2>/dev/null)"
echo "# traced ib_send_lat: $(cat "$LOG/perftest.traced" 2>/dev/null)"

python3 "$PARSE" table --dir "$LOG" --rst \
	--send-exec "$ROLE_SEND_EXEC" --recv-done "$ROLE_RECV_DONE" \
	--send-done "$ROLE_SEND_DONE" --ring-complete "$ROLE_RING_COMPLETE" |
	tee "$LOG/table.txt"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "hop_breakdown: could not parse the traces (see $LOG)" >&2; FAILED=1; }
echo "raw outputs: $LOG"
exit $FAILED
