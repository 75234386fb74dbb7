#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Message latency and rate, txrdma against its peers, inside ONE QEMU
# guest over rxe loopback (server and client in the same guest):
#
#   tools/vm/txrdma-vm run --bench --smp 2 --timeout 900 -- tools/bench/msg_bench.sh
#   (or: make bench)
#
# For each message size: txrdma ping-pong latency and message rate
# (tools/bench/msg_pingpong over an endpoint pair with the guest itself
# as peer "self"), perftest ib_send_lat, ib_write_lat and ib_write_bw
# over the rxe device (rdma_cm, the guest's own address), and TCP
# ping-pong and throughput with sockperf over 127.0.0.1.  Raw outputs
# go to $TXRDMA_OUT/msg_bench; one table at the end: one-way latency
# (RTT/2) p50/p99/p99.9 and messages per second per (size, tool), then
# the txrdma/peer ratios.  Exits non-zero, naming the tool, if any run
# failed or its output could not be parsed (its cells read n/a).
#
# Environment: SIZES ("64 1024 4096"), LAT_N (10000 round trips),
# LAT_WARMUP (1000), RATE_N (50000 messages), TCP_SECONDS (3 per
# sockperf run), TXRDMA_MODES ("spin ahead yield doorbell": msg_pingpong
# busy-polls; "ahead" adds -A on both sides, frames read ahead of the
# kernel; "yield" adds -Y, sched_yield() when a poll finds nothing;
# "doorbell" busy-polls with the module's poll_idle_us at 0, so the
# pollers sleep at once and every post is a doorbell served in the
# process's own system call: io_uring without SQPOLL; "ahead-doorbell"
# both; "session" is "spin" over a pair that outlives a lost QP, -R:
# what keeping sent frames until they are acknowledged costs),
# NETDEV_MTU (unset: as the guest booted; 9000: RDMA MTU 4096),
# PEER_ATTRS (of the self peer), PERFTEST_CM ("-R": rdma_cm; "" for
# perftest's TCP exchange), SERVICE (4242), TCP_PORT (11111).
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
ADMIN=$ROOT/tools/txrdma-admin/txrdma-admin
PP=$DIR/msg_pingpong
. "$ROOT/tools/vm/guestlib.sh"
. "$DIR/selfpeer.sh"
. "$DIR/perftest.sh"

SIZES=${SIZES:-"64 1024 4096"}
LAT_N=${LAT_N:-10000}
LAT_WARMUP=${LAT_WARMUP:-1000}
RATE_N=${RATE_N:-50000}
TCP_SECONDS=${TCP_SECONDS:-3}
TXRDMA_MODES=${TXRDMA_MODES:-"spin ahead yield doorbell"}
# a longer BFD detection (500 ms) than the default 80 ms: busy-polling
# processes on few vCPUs must not flap the session under the benchmark
PEER_ATTRS=${PEER_ATTRS:-"pool 2:8 tx 50000 rx 50000 mult 10"}
PERFTEST_CM=${PERFTEST_CM--R}
SERVICE=${SERVICE:-4242}
TCP_PORT=${TCP_PORT:-11111}
PERFTEST_PORT=18515
RUN_LIMIT=180		# seconds, any one client run
CG_NAME=txrdma-msgbench
TENANT=msgbench
LOG=${TXRDMA_OUT:-$(mktemp -d)}/msg_bench
mkdir -p "$LOG"

FAILED=()
SRV_PID=		# the msg_pingpong server
IDLE_PARAM=/sys/module/txrdma/parameters/poll_idle_us
IDLE_SAVED=		# poll_idle_us to restore after the doorbell mode

fail() {	# TOOL: WHAT
	FAILED+=("$*")
	echo "msg_bench: $*" >&2
}

die() {
	echo "msg_bench: $*" >&2
	exit 1
}

restore_idle() {	# poll_idle_us as it was before the doorbell mode
	[ -z "$IDLE_SAVED" ] || echo "$IDLE_SAVED" > "$IDLE_PARAM"
	IDLE_SAVED=
}

cleanup() {
	local p
	for p in $SRV_PID $BG_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	restore_idle
	selfpeer_down
}
trap cleanup EXIT

# ---- prerequisites -------------------------------------------------

selfpeer_prereqs "$0" jq
HAVE=()
for t in ib_send_lat ib_write_lat ib_write_bw sockperf; do
	if command -v "$t" >/dev/null; then
		HAVE+=("$t")
	else
		fail "$t: not installed (perftest, sockperf packages): its rows read n/a"
	fi
done
have() {
	[[ " ${HAVE[*]} " == *" $1 "* ]]
}

NCPU=$(nproc)

# ---- tenant, self peer (RXE, NETDEV, ME: selfpeer.sh) ----------------

# NETDEV_MTU: the link as RoCE deployments run it (9000: jumbo frames,
# an RDMA MTU of 4096), set before the self peer's QPs take their path
# MTU from the port; every tool below then runs on that link
if [ -n "${NETDEV_MTU:-}" ]; then
	nd=$(rdma -j link show | jq -r '[.[] | select(.state == "ACTIVE" and .netdev)][0].netdev // empty')
	[ -n "$nd" ] && ip link set "$nd" mtu "$NETDEV_MTU" ||
		die "cannot set the MTU of the RDMA device's netdev ($nd) to $NETDEV_MTU"
fi
selfpeer_up "$CG_NAME" "$TENANT" "$PEER_ATTRS"
DOWNS0=$("$ADMIN" -j peer show self | jq -r '.[0].downs')

echo "msg_bench: one guest, $NCPU vCPU(s), kernel $(uname -r); $RXE on $NETDEV ($ME, MTU $(cat "/sys/class/net/$NETDEV/mtu"), RDMA MTU $(ibv_devinfo -d "$RXE" 2>/dev/null | awk '$1 == "active_mtu:" {print $2; exit}')), rxe loopback"
echo "msg_bench: peer self: $PEER_ATTRS; sizes $SIZES; latency $LAT_N round trips (+$LAT_WARMUP warm-up), rate $RATE_N messages, TCP $TCP_SECONDS s per run"
[ "$NCPU" -ge 2 ] || echo "msg_bench: WARNING: $NCPU vCPU: a spinning client, server and kernel poller share it; latencies measure the scheduler (use --smp 2 or more)"

# ---- helpers ---------------------------------------------------------

# kv LINE KEY: the value of KEY=value in LINE
kv() {
	awk -v k="$2" '{ for (i = 1; i <= NF; i++) { n = index($i, "=");
		if (n && substr($i, 1, n - 1) == k) { print substr($i, n + 1); exit } } }' <<<"$1"
}

isnum() {
	[[ ${1:-} =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]
}

# per "SIZE|TOOL"; read through a nameref in v()
# shellcheck disable=SC2034
declare -A P50 P99 P999 RTT50 RATE
TOOLS_ALL=()
tool_seen() {	# TOOL: keep the order tools were first measured in
	[[ " ${TOOLS_ALL[*]} " == *" $1 "* ]] || TOOLS_ALL+=("$1")
}

# set_lat SIZE TOOL P50 P99 P999 [RTT50]: one-way microseconds
set_lat() {
	local k="$1|$2" v
	tool_seen "$2"
	for v in "$3" "$4" "$5"; do
		isnum "$v" || { fail "$2 size $1: latency output not understood (see $LOG)"; return 1; }
	done
	# shellcheck disable=SC2034
	P50[$k]=$3 P99[$k]=$4 P999[$k]=$5
	# shellcheck disable=SC2034
	RTT50[$k]=${6:-$(awk -v a="$3" 'BEGIN { printf "%.2f", 2 * a }')}
}

set_rate() {	# SIZE TOOL MSGS_PER_S
	tool_seen "$2"
	isnum "$3" || { fail "$2 size $1: rate output not understood (see $LOG)"; return 1; }
	# shellcheck disable=SC2034
	RATE["$1|$2"]=$3
}

# ---- txrdma ----------------------------------------------------------

server_up() {
	grep -q "server listening" "$1" 2>/dev/null
}

pp_failed() {	# WHAT RC OUT SERVER_LOG: a client run failed; say why
	fail "$1 exited $2"
	tail_of "$3"
	grep -h "ERROR" "$4" 2>/dev/null | tail -n 3 | sed 's/^/    server: /' >&2
}

pp_ready() {	# a ready QP in the pool before each endpoint
	txrdma_wait_until 30 selfpeer_ready ||
		fail "peer self has no ready QP (state: $("$ADMIN" -j peer show self 2>&1 | jq -c '.[0] | {state, pool}'))"
}

run_txrdma() {	# MODE (spin | ahead | yield | doorbell | ahead-doorbell | session)
	local mode=$1 tool="txrdma-$1" y='' c='' s out line slog rc
	tool_seen "$tool"
	[ "$mode" = yield ] && y=-Y
	case $mode in ahead*) y=-A ;; esac
	# the connector asks for the session; the server takes what it asks
	[ "$mode" = session ] && c=-R
	if [ "${mode#*doorbell}" != "$mode" ]; then
		IDLE_SAVED=$(cat "$IDLE_PARAM") && echo 0 > "$IDLE_PARAM" ||
			{ fail "$tool: cannot set $IDLE_PARAM"; return; }
	fi
	slog=$LOG/pp-server-$mode.log
	# shellcheck disable=SC2086 # $y: an option or nothing
	"$PP" -s "$SERVICE" $y > "$slog" 2>&1 &
	SRV_PID=$!
	if ! txrdma_wait_until 30 server_up "$slog"; then
		fail "$tool: msg_pingpong server did not start"
		tail_of "$slog"
		kill "$SRV_PID" 2>/dev/null
		SRV_PID=
		return
	fi
	for s in $SIZES; do
		pp_ready
		out=$LOG/pp-lat-$mode-$s.log
		# shellcheck disable=SC2086
		timeout "$RUN_LIMIT" "$PP" -c self -S "$SERVICE" -m "$s" \
			-n "$LAT_N" -w "$LAT_WARMUP" $y $c > "$out" 2>&1
		rc=$?
		[ $rc -eq 0 ] || pp_failed "$tool size $s: msg_pingpong latency" $rc "$out" "$slog"
		line=$(grep '^txrdma pingpong ' "$out" | tail -n 1)
		if [ "$y" = -A ] && [ "$(kv "$line" ahead)" = 0 ]; then
			fail "$tool size $s: no frame was read ahead (ahead=0)"
		fi
		if [ -n "$line" ] || [ $rc -eq 0 ]; then
			echo "# $tool: $line"
			set_lat "$s" "$tool" "$(kv "$line" lat_p50_us)" \
				"$(kv "$line" lat_p99_us)" "$(kv "$line" lat_p999_us)" \
				"$(kv "$line" p50_us)"
		fi

		pp_ready
		out=$LOG/pp-rate-$mode-$s.log
		# shellcheck disable=SC2086
		timeout "$RUN_LIMIT" "$PP" -c self -S "$SERVICE" -m "$s" -r \
			-n "$RATE_N" -w "$LAT_WARMUP" $y $c > "$out" 2>&1
		rc=$?
		[ $rc -eq 0 ] || pp_failed "$tool size $s: msg_pingpong rate" $rc "$out" "$slog"
		line=$(grep '^txrdma msgrate ' "$out" | tail -n 1)
		if [ -n "$line" ] || [ $rc -eq 0 ]; then
			echo "# $tool: $line"
			set_rate "$s" "$tool" "$(kv "$line" msgs_per_s)"
		fi
	done
	if ! kill -0 "$SRV_PID" 2>/dev/null; then
		fail "$tool: the msg_pingpong server died"
		tail_of "$slog"
	fi
	kill "$SRV_PID" 2>/dev/null
	wait "$SRV_PID" 2>/dev/null
	SRV_PID=
	restore_idle
}

for m in $TXRDMA_MODES; do
	run_txrdma "$m"
done

# ---- perftest ----------------------------------------------------------

for s in $SIZES; do
	for t in ib_send_lat ib_write_lat; do
		tool_seen "$t"
		have "$t" || continue
		perftest "$t" "$s" "$LAT_N"
		rc=$?
		row=$(perftest_row "$LOG/$t-$s.log" 9)
		[ -n "$row" ] || [ $rc -eq 0 ] || continue
		echo "# $t -s $s -n $LAT_N: $row"
		read -r _ _ _ _ typ _ _ p99 p999 _ <<<"$row"
		set_lat "$s" "$t" "${typ:-}" "${p99:-}" "${p999:-}"
	done
	t=ib_write_bw
	tool_seen "$t"
	have "$t" || continue
	perftest "$t" "$s" "$RATE_N"
	rc=$?
	row=$(perftest_row "$LOG/$t-$s.log" 5)
	[ -n "$row" ] || [ $rc -eq 0 ] || continue
	echo "# $t -s $s -n $RATE_N: $row"
	read -r _ _ _ _ mpps _ <<<"$row"
	isnum "${mpps:-}" && mpps=$(awk -v m="$mpps" 'BEGIN { printf "%.0f", m * 1e6 }')
	set_rate "$s" "$t" "${mpps:-}"
done

# ---- TCP (sockperf, loopback) -----------------------------------------

TCP=tcp-sockperf
pct() {		# FILE PERCENTILE: sockperf's "percentile 99.000 = X"
	awk -v p="$2" '$0 ~ ("percentile " p " =") { print $NF; exit }' "$1"
}
if have sockperf; then
	sockperf server -i 127.0.0.1 -p "$TCP_PORT" --tcp > "$LOG/sockperf-server.log" 2>&1 &
	BG_PID=$!
	if txrdma_wait_tcp_listen "$TCP_PORT" 30; then
		for s in $SIZES; do
			# half round trip by default, like perftest; ANSI colours
			# stripped; sockperf exits 0 even when it could not connect
			out=$LOG/sockperf-pp-$s.log
			timeout "$RUN_LIMIT" sockperf ping-pong -i 127.0.0.1 -p "$TCP_PORT" \
				--tcp -m "$s" -t "$TCP_SECONDS" 2>&1 |
				sed 's/\x1b\[[0-9;]*m//g' > "$out"
			echo "# sockperf ping-pong -m $s: $(grep -m1 'Summary' "$out")"
			set_lat "$s" "$TCP" "$(pct "$out" 50.000)" \
				"$(pct "$out" 99.000)" "$(pct "$out" 99.900)" ||
				tail_of "$out"

			out=$LOG/sockperf-tp-$s.log
			timeout "$RUN_LIMIT" sockperf throughput -i 127.0.0.1 -p "$TCP_PORT" \
				--tcp -m "$s" -t "$TCP_SECONDS" 2>&1 |
				sed 's/\x1b\[[0-9;]*m//g' > "$out"
			rate=$(awk '/Summary: Message Rate is/ {
				for (i = 1; i < NF; i++) if ($i == "is") { print $(i + 1); exit } }' "$out")
			echo "# sockperf throughput -m $s: $(grep -m1 'Message Rate' "$out")"
			set_rate "$s" "$TCP" "$rate" || tail_of "$out"
		done
	else
		fail "sockperf: the server did not listen on 127.0.0.1:$TCP_PORT"
		tail_of "$LOG/sockperf-server.log"
		tool_seen "$TCP"
	fi
	kill "$BG_PID" 2>/dev/null
	wait "$BG_PID" 2>/dev/null
	BG_PID=
else
	tool_seen "$TCP"
fi

DOWNS=$("$ADMIN" -j peer show self | jq -r '.[0].downs')
isnum "$DOWNS" && isnum "$DOWNS0" && [ "$DOWNS" != "$DOWNS0" ] &&
	fail "peer self went down $((DOWNS - DOWNS0)) time(s) during the benchmark (liveness flapped)"

# ---- the table -------------------------------------------------------

v() {	# ARRAY KEY: the value or n/a
	local -n a=$1
	echo "${a[$2]:-n/a}"
}
ratio() {	# A B: A / B, or n/a
	if isnum "$1" && isnum "$2"; then
		awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
	else
		echo n/a
	fi
}
mbs() {		# RATE SIZE: MB/s (10^6 bytes) of payload
	if isnum "$1"; then
		awk -v r="$1" -v s="$2" 'BEGIN { printf "%.1f", r * s / 1e6 }'
	else
		echo n/a
	fi
}

echo
echo "Messages in one guest over rxe loopback ($RXE, $ME; TCP over 127.0.0.1), $NCPU vCPU(s), TCG"
printf '%-6s %-15s %9s %9s %9s %10s %12s %9s\n' \
	size tool p50_us p99_us p999_us rtt_p50_us rate_msg/s MB/s
for s in $SIZES; do
	for t in "${TOOLS_ALL[@]}"; do
		k="$s|$t"
		printf '%-6s %-15s %9s %9s %9s %10s %12s %9s\n' "$s" "$t" \
			"$(v P50 "$k")" "$(v P99 "$k")" "$(v P999 "$k")" \
			"$(v RTT50 "$k")" "$(v RATE "$k")" \
			"$(mbs "$(v RATE "$k")" "$s")"
	done
done
echo "latency: one-way = RTT/2 (perftest's and sockperf's own convention; msg_pingpong measures the RTT,"
echo "  rtt_p50_us); rate: messages per second delivered (txrdma: to the last ack of the server;"
echo "  ib_write_bw: send completions, MsgRate; sockperf throughput: sent, Nagle on)"
echo "txrdma-spin: msg_pingpong busy-polls; txrdma-ahead: busy-polls and reads frames ahead of the kernel"
echo "  (TXRDMA_EP_F_RX_AHEAD, up to 4096 bytes); txrdma-yield: sched_yield() when a poll finds nothing;"
echo "  txrdma-doorbell: busy-polls, poll_idle_us=0 (every post a system call served inline, no poller spin);"
echo "  txrdma-ahead-doorbell: both"

echo
echo "txrdma / peer (latency p50: below 1 is faster; rate: above 1 is more)"
printf '%-6s %-15s %12s %12s %12s %12s %12s\n' size txrdma \
	p50/send_lat p50/write_lat p50/tcp rate/write_bw rate/tcp
for s in $SIZES; do
	for m in $TXRDMA_MODES; do
		k="$s|txrdma-$m"
		printf '%-6s %-15s %12s %12s %12s %12s %12s\n' "$s" "txrdma-$m" \
			"$(ratio "$(v P50 "$k")" "$(v P50 "$s|ib_send_lat")")" \
			"$(ratio "$(v P50 "$k")" "$(v P50 "$s|ib_write_lat")")" \
			"$(ratio "$(v P50 "$k")" "$(v P50 "$s|$TCP")")" \
			"$(ratio "$(v RATE "$k")" "$(v RATE "$s|ib_write_bw")")" \
			"$(ratio "$(v RATE "$k")" "$(v RATE "$s|$TCP")")"
	done
done
echo "raw outputs: $LOG"

if [ ${#FAILED[@]} -gt 0 ]; then
	echo >&2
	echo "msg_bench: FAILED (${#FAILED[@]}):" >&2
	printf '  %s\n' "${FAILED[@]}" >&2
	exit 1
fi
exit 0
