#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The module's tracepoints (kmod/txrdma_trace.h) against its own
# counters: with events/txrdma enabled, a self peer is added (its
# liveness goes Up) and a msg_pingpong client and server of one tenant
# exchange 2,000 pings and echoes, then a stream; the trace must agree with what
# netlink counts for that tenant, event for event:
#  - every event of the family exists and can be enabled;
#  - txrdma_peer_state: the self peer's changes, ending in Up (3);
#  - txrdma_conn: the self peer's control QP established and taken as
#    its control QP, and at least its pool's 2 pooled QPs established;
#  - txrdma_frame_tx: as many as the tenant's tx_msgs grew, each with
#    the tenant's id, each endpoint's sequence numbers 0 .. n-1, each
#    once;
#  - txrdma_frame_rx with verdict 0 or 1 (accepted): as many as its
#    rx_msgs grew; txrdma_rx_publish: their frames sum to the same;
#  - txrdma_credit_stall: as many as its credit_stalls grew (msg_pingpong
#    keeps its window within the server's ring, so that is usually 0:
#    msg_test's stream makes stalls, ep_stats.sh counts them);
#  - txrdma_frame_tx with joined=1: as many as its tx_coalesced grew
#    (a second client streams 2,000 messages of 1 KiB);
#  - txrdma_tx_done: at least one, none failed; txrdma_send_done: one
#    per message sent, none failed; txrdma_doorbell: the pair's
#    doorbells (at least one: the poller sleeps between pings);
#  - with the events off again, the same traffic adds no event;
#  - tools/trace/txrdma-lat.bt (bpftrace) attached during 2,000 more
#    pings prints the tenant's latency histogram over exactly the
#    messages its tx_msgs counted, none failed (skipped only with
#    TXRDMA_TRACE_BPF=0: the debug kernel is built without BPF).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ROOT=$(cd "$DIR/../.." && pwd)
. "$ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$ROOT/tools/txrdma-admin/txrdma-admin}
PP=$ROOT/tools/bench/msg_pingpong
CG_NAME=txrdma-trace
CG=/sys/fs/cgroup/$CG_NAME
TENANT=tracetest
SERVICE=4545
COUNT=2000
T=/sys/kernel/tracing
EVENTS="txrdma_doorbell txrdma_frame_tx txrdma_credit_stall txrdma_tx_done txrdma_send_done txrdma_frame_rx txrdma_rx_publish txrdma_peer_state txrdma_conn txrdma_frame_again txrdma_session"
SRV=
BT=

cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	[ -n "$BT" ] && kill -INT "$BT" 2>/dev/null && wait "$BT" 2>/dev/null
	echo 0 > "$T/events/txrdma/enable" 2>/dev/null
	echo local > "$T/trace_clock" 2>/dev/null
	echo > "$T/trace" 2>/dev/null
	"$ADMIN" peer del tself >/dev/null 2>&1
	echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null
	"$ADMIN" tenant del "$TENANT" >/dev/null 2>&1 ||
		"$ADMIN" tenant del "$TENANT" force >/dev/null 2>&1
	rmdir "$CG" 2>/dev/null
}
trap cleanup EXIT

mountpoint -q "$T" || mount -t tracefs nodev "$T"
check "tracefs mounted at $T" test -d "$T/events"
for e in $EVENTS; do
	check "event $e exists" test -f "$T/events/txrdma/$e/enable"
done
n=$(ls -d "$T"/events/txrdma/txrdma_* 2>/dev/null | wc -l)
nwant=$(wc -w <<<"$EVENTS")
check "the family has exactly these $nwant events ($n)" test "$n" -eq "$nwant"

txrdma_local_rdma
check "an ACTIVE RDMA device with an IPv4 address ($RXE $ME)" \
	test -n "$RXE" -a -n "$ME"

mkdir -p "$CG" && echo $$ > "$CG/cgroup.procs" &&
	"$ADMIN" tenant add "$TENANT" cgroup "/$CG_NAME" >/dev/null
check "tenant $TENANT" test $? -eq 0
TID=$("$ADMIN" -j tenant show "$TENANT" | jq -r '.[0].id')
traffic() {	# FIELD: the tenant's counter
	"$ADMIN" -j tenant show "$TENANT" | jq -r ".[0].traffic.$1 // 0"
}

# ---- the events on: a peer comes up, a pair talks -------------------

echo 4096 > "$T/buffer_size_kb"
# one clock for both CPUs, so that the merged trace is in event order
echo global > "$T/trace_clock"
echo > "$T/trace"
echo 1 > "$T/events/txrdma/enable"
check "events/txrdma enabled" grep -q 1 "$T/events/txrdma/enable"
# liveness of 10 x 50 ms, as poller_dev.sh: a loaded TCG guest stalls
"$ADMIN" peer add tself addr "$ME" key "$TXRDMA_PEER_KEY" pool 2:4 tx 50000 rx 50000 mult 10
peer_ready() {
	"$ADMIN" -j peer show tself 2>/dev/null |
		jq -e '.[0] | .state == "up" and .pool.ready >= 2' >/dev/null
}
txrdma_wait_until 60 peer_ready
check "self peer up with 2 ready QPs" peer_ready

tx0=$(traffic tx_msgs); rx0=$(traffic rx_msgs); cs0=$(traffic credit_stalls)
co0=$(traffic tx_coalesced)
"$PP" -s "$SERVICE" -o -Y > /tmp/trace-srv.log 2>&1 &
SRV=$!
server_up() { grep -q "server listening" /tmp/trace-srv.log; }
txrdma_wait_until 30 server_up
"$PP" -c tself -S "$SERVICE" -m 64 -n "$COUNT" -w 0 -Y > /tmp/trace-cli.log 2>&1
rc=$?
wait "$SRV"; SRV=
check "msg_pingpong: $COUNT pings and echoes (exit $rc)" test "$rc" -eq 0
# a stream of 1 KiB messages (rings of 64 units: 3 frames), whose
# SENDs may join a write in flight (txrdma_tx_coalesce())
"$PP" -s "$SERVICE" -o -Y -u 64 > /tmp/trace-srv.log 2>&1 &
SRV=$!
txrdma_wait_until 30 server_up
"$PP" -c tself -S "$SERVICE" -m 1024 -n "$COUNT" -w 0 -r -W 16 -u 64 -Y \
	> /tmp/trace-cli.log 2>&1
rc=$?
wait "$SRV"; SRV=
[ "$rc" -eq 0 ] || diag "client: $(tail -3 /tmp/trace-cli.log | tr '\n' ' ')"
check "msg_pingpong: a stream of $COUNT into 4 KiB rings (exit $rc)" \
	test "$rc" -eq 0
echo 0 > "$T/events/txrdma/enable"
tx=$(( $(traffic tx_msgs) - tx0 )); rx=$(( $(traffic rx_msgs) - rx0 ))
cs=$(( $(traffic credit_stalls) - cs0 ))
co=$(( $(traffic tx_coalesced) - co0 ))
cat "$T/trace" > /tmp/trace-events.txt
diag "tenant $TENANT (id $TID): tx_msgs +$tx, rx_msgs +$rx, credit_stalls +$cs, tx_coalesced +$co; $(grep -c 'txrdma_' /tmp/trace-events.txt) events"
diag "$(grep -o 'txrdma_[a-z_]*:' /tmp/trace-events.txt | sort | uniq -c | tr '\n' ' ')"
check "the ring buffer lost no event" \
	test "$(grep -c 'LOST' /tmp/trace-events.txt)" -eq 0

# count EVENT [AWK-CONDITION]: this tenant's events of that kind
count() {
	awk -v ev="$1:" -v tid="tenant=$TID" "
		\$0 ~ ev && index(\$0, tid \" \") ${2:+&& $2} { n++ }
		END { print n + 0 }" /tmp/trace-events.txt
}
ftx=$(count txrdma_frame_tx)
check "txrdma_frame_tx: one per message the tenant sent ($ftx, tx_msgs +$tx)" \
	test "$ftx" -eq "$tx" -a "$tx" -ge $((3 * COUNT))
# per endpoint, its seqs must be 0 .. n-1, each once (in any order: the
# events of two CPUs interleave by timestamp)
gaps=$(awk -v tid="tenant=$TID " '
	/txrdma_frame_tx:/ && index($0, tid) {
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "ep") ep = kv[2]
			if (kv[1] == "seq") seq = kv[2]
		}
		if ((ep SUBSEP seq) in seen) bad++
		seen[ep, seq] = 1
		n[ep]++
		if (!(ep in max) || seq + 0 > max[ep]) max[ep] = seq + 0
	}
	END { for (ep in n) if (max[ep] + 1 != n[ep]) bad++; print bad + 0 }' \
	/tmp/trace-events.txt)
check "txrdma_frame_tx: each endpoint's seqs 0 .. n-1, each once ($gaps wrong)" \
	test "$gaps" -eq 0
frx=$(count txrdma_frame_rx '/verdict=[01]$/')
check "txrdma_frame_rx accepted: one per message the tenant received ($frx, rx_msgs +$rx)" \
	test "$frx" -eq "$rx" -a "$rx" -ge $((3 * COUNT))
bad=$(count txrdma_frame_rx '!/verdict=[012]$/')
check "txrdma_frame_rx: no frame refused ($bad)" test "$bad" -eq 0
pub=$(awk -v tid="tenant=$TID " '
	/txrdma_rx_publish:/ && index($0, tid) {
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "frames") n += kv[2]
		}
	}
	END { print n + 0 }' /tmp/trace-events.txt)
check "txrdma_rx_publish: the frames published sum to rx_msgs ($pub)" \
	test "$pub" -eq "$rx"
stalls=$(count txrdma_credit_stall)
check "txrdma_credit_stall: one per credit stall counted ($stalls, +$cs)" \
	test "$stalls" -eq "$cs"
joined=$(count txrdma_frame_tx '/joined=1$/')
check "txrdma_frame_tx joined=1: one per SEND coalesced into a write ($joined, tx_coalesced +$co)" \
	test "$joined" -eq "$co"
done_ok=$(count txrdma_tx_done '/status=0$/')
done_bad=$(count txrdma_tx_done '!/status=0$/')
check "txrdma_tx_done: writes completed ($done_ok), none failed ($done_bad)" \
	test "$done_ok" -ge 1 -a "$done_bad" -eq 0
sent=$(count txrdma_send_done '/status=0$/')
sent_bad=$(count txrdma_send_done '!/status=0$/')
check "txrdma_send_done: one per message sent ($sent, tx_msgs +$tx), none failed ($sent_bad)" \
	test "$sent" -eq "$tx" -a "$sent_bad" -eq 0
bells=$(count txrdma_doorbell)
check "txrdma_doorbell: the pair's doorbells ($bells)" test "$bells" -ge 1
up=$(grep 'txrdma_peer_state:' /tmp/trace-events.txt | grep ' name=tself ' | tail -1)
diag "last state change of tself: ${up#*txrdma_peer_state: }"
check "txrdma_peer_state: the self peer's last change is to Up (3)" \
	grep -q ' state=3 ' <<<"$up"
PID_SELF=$("$ADMIN" -j peer show tself | jq -r '.[0].id')
conns() {	# AWK_CONDITION over txrdma_conn events of the self peer
	awk -v p="peer=$PID_SELF " "/txrdma_conn:/ && index(\$0, p) && $1 { n++ }
		END { print n + 0 }" /tmp/trace-events.txt
}
cr=$(conns '/ kind=1 .* state=1 .* ctrl=1$/')
pr=$(conns '/ kind=2 passive=0 .* state=1 /')
check "txrdma_conn: the self peer's control QP established as its control QP ($cr) and its pooled QPs, initiating halves ($pr, pool min 2)" \
	test "$cr" -ge 1 -a "$pr" -ge 2

# ---- the events off: the same traffic leaves no trace ---------------

echo > "$T/trace"
"$PP" -s "$SERVICE" -o -Y > /tmp/trace-srv.log 2>&1 &
SRV=$!
txrdma_wait_until 30 server_up
"$PP" -c tself -S "$SERVICE" -m 64 -n 200 -w 0 -Y > /tmp/trace-cli.log 2>&1
rc=$?
wait "$SRV"; SRV=
n=$(grep -c 'txrdma_' "$T/trace")
check "events off: 200 more pings (exit $rc) and no event ($n)" \
	test "$rc" -eq 0 -a "$n" -eq 0

# ---- bpftrace: the latency script during a ping-pong ----------------

if [ "${TXRDMA_TRACE_BPF:-1}" = 0 ]; then
	skip "tools/trace/txrdma-lat.bt: TXRDMA_TRACE_BPF=0 (a kernel without BPF, the debug lane's)"
	tap_done
	exit
fi
BTOUT=/tmp/trace-bt.txt
bpftrace "$ROOT/tools/trace/txrdma-lat.bt" > "$BTOUT" 2>&1 &
BT=$!
# its BEGIN prints once every probe is attached
bt_up() { grep -q "^txrdma-lat: tracing" "$BTOUT"; }
txrdma_wait_until 120 bt_up
check "bpftrace attached tools/trace/txrdma-lat.bt" bt_up ||
	diag "bpftrace: $(tail -5 "$BTOUT" | tr '\n' ' ')"
tx0=$(traffic tx_msgs); txb0=$(traffic tx_bytes)
"$PP" -s "$SERVICE" -o -Y > /tmp/trace-srv.log 2>&1 &
SRV=$!
txrdma_wait_until 30 server_up
"$PP" -c tself -S "$SERVICE" -m 256 -n "$COUNT" -w 0 -Y > /tmp/trace-cli.log 2>&1
rc=$?
wait "$SRV"; SRV=
tx=$(( $(traffic tx_msgs) - tx0 )); txb=$(( $(traffic tx_bytes) - txb0 ))
check "msg_pingpong: $COUNT pings and echoes of 256 B under bpftrace (exit $rc)" \
	test "$rc" -eq 0
kill -INT "$BT"
wait "$BT"
btrc=$?
BT=
check "bpftrace ended on SIGINT (exit $btrc)" test "$btrc" -eq 0
diag "$(grep -A30 "^@send_us\[$TID\]" "$BTOUT" | head -20 | sed 's/^/  /')"
# @sent[tenant]: N, and the histogram's buckets: [lo, hi)  N |@@@|
bt_sent=$(awk -v k="@sent[$TID]:" '$1 == k { print $2 }' "$BTOUT")
bt_hist=$(awk -v k="@send_us[$TID]:" '
	$1 == k { on = 1; next }
	on && /^\[/ { sub(/^[^)\]]*[)\]][ \t]*/, ""); n += $1; next }
	on { on = 0 }
	END { print n + 0 }' "$BTOUT")
bt_bytes=$(awk -v k="@bytes[$TID]:" '$1 == k { print $2 }' "$BTOUT")
check "txrdma-lat.bt: @sent[$TID] is the tenant's tx_msgs growth (${bt_sent:-none}, +$tx)" \
	test "${bt_sent:-0}" -eq "$tx" -a "$tx" -ge $((2 * COUNT))
check "txrdma-lat.bt: its latency histogram holds every one of them ($bt_hist)" \
	test "$bt_hist" -eq "$tx"
# msg_pingpong's HELLOs and BYE are SENDs of a 16-byte header: counted
check "txrdma-lat.bt: @bytes[$TID] is the tenant's tx_bytes growth (${bt_bytes:-none}, +$txb)" \
	test "${bt_bytes:-0}" -eq "$txb" -a "$txb" -ge $((2 * 256 * COUNT))
check "txrdma-lat.bt: no send failed" \
	test "$(grep -c '^@failed' "$BTOUT")" -eq 0

tap_done
