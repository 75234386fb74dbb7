#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A poller per RDMA device (the "smp" suite: one guest, 2 vCPUs, so that
# a CPU can be chosen).  What the module did is read back from netlink
# (dev show) and from /proc, never taken from the command's exit alone:
#  - every device has its poller thread txrdma/<dev>: its pid is a
#    kernel thread of that name, bound to no CPU (-1), serving no ring;
#  - an endpoint pair over the device moves its process's ring to the
#    device's poller: a msg_pingpong server and client over the self
#    peer make "rings" 2 while they run, and "rings" is 0 again after
#    they exit;
#  - a stream keeps the poller awake: with poll_idle_us above the gaps
#    between the client's submissions (20 ms: TCG is slow), the poller
#    (woken when the pair binds the ring) never sleeps, takes the SQEs
#    itself (its count grows by the stream) and the client rings the
#    doorbell for less than 1% of its 40,000 messages: no system call
#    in the steady state;
#  - dev set poll-cpu 1 binds the thread to CPU 1 (Cpus_allowed_list),
#    and it runs there when the next traffic comes (a second pair after
#    the move: the poller serves its SQEs and the CPU it last ran on is
#    1); poll-cpu any gives it every CPU back;
#  - refused, with a message and no change: an offline CPU, a CPU
#    number out of range, an unprivileged caller.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ROOT=$(cd "$DIR/../.." && pwd)
. "$ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$ROOT/tools/txrdma-admin/txrdma-admin}
PP=$ROOT/tools/bench/msg_pingpong
CG_NAME=txrdma-pollerdev
CG=/sys/fs/cgroup/$CG_NAME
TENANT=pollerdev
SERVICE=4343
SRV=

IDLE=/sys/module/txrdma/parameters/poll_idle_us
IDLE0=$(cat "$IDLE")

cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	echo "$IDLE0" > "$IDLE"
	"$ADMIN" peer del pself >/dev/null 2>&1
	echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null
	"$ADMIN" tenant del "$TENANT" >/dev/null 2>&1 ||
		"$ADMIN" tenant del "$TENANT" force >/dev/null 2>&1
	rmdir "$CG" 2>/dev/null
}
trap cleanup EXIT

# pfield DEV JQ: a field of DEV's poller
pfield() {
	"$ADMIN" -j dev show "$1" | jq -r ".[0].poller.$2"
}

allowed() {	# PID: the CPUs it may run on
	awk '$1 == "Cpus_allowed_list:" {print $2}' "/proc/$1/status"
}

last_cpu() {	# PID: the CPU it last ran on (field 39 of stat)
	awk '{print $39}' "/proc/$1/stat"
}

NCPU=$(nproc)
diag "$NCPU CPUs online: $(cat /sys/devices/system/cpu/online)"
check "the guest has 2 or more CPUs (run in the smp suite)" test "$NCPU" -ge 2

txrdma_local_rdma
check "an ACTIVE RDMA device with an IPv4 address ($RXE $ME)" \
	test -n "$RXE" -a -n "$ME"

for dev in $("$ADMIN" -j dev show | jq -r '.[].name'); do
	pid=$(pfield "$dev" pid)
	comm=$(cat "/proc/$pid/comm" 2>/dev/null)
	diag "$dev: poller $("$ADMIN" -j dev show "$dev" | jq -c '.[0].poller')"
	check "$dev: poller pid $pid is thread txrdma/$dev" \
		test "$comm" = "txrdma/$dev"
	check "$dev: poller is a kernel thread (no parent but kthreadd)" \
		test "$(awk '{print $4}' "/proc/$pid/stat")" = \
		"$(pgrep -x kthreadd)"
	check "$dev: poller bound to no CPU (cpu -1)" test "$(pfield "$dev" cpu)" = -1
	check "$dev: poller serves no ring" test "$(pfield "$dev" rings)" = 0
done
line=$("$ADMIN" dev show "$RXE" | grep "^    poller ")
diag "plain: $line"
check "plain dev show: poller line" \
	grep -q "^    poller cpu any pid $(pfield "$RXE" pid) rings 0 " <<<"$line"

# ---- rings move to the device's poller -------------------------------

mkdir -p "$CG" && echo $$ > "$CG/cgroup.procs" &&
	"$ADMIN" tenant add "$TENANT" cgroup "/$CG_NAME" >/dev/null
check "tenant $TENANT" test $? -eq 0
"$ADMIN" peer add pself addr "$ME" key "$TXRDMA_PEER_KEY" pool 2:4 tx 50000 rx 50000 mult 10
peer_ready() {
	"$ADMIN" -j peer show pself 2>/dev/null |
		jq -e '.[0] | .state == "up" and .pool.ready >= 2' >/dev/null
}
txrdma_wait_until 60 peer_ready
check "self peer up with 2 ready QPs" peer_ready

pid=$(pfield "$RXE" pid)
sqes0=$(pfield "$RXE" sqes)
echo 20000 > "$IDLE"
"$PP" -s "$SERVICE" -o -Y > /tmp/pollerdev-srv.log 2>&1 &
SRV=$!
server_up() { grep -q "server listening" /tmp/pollerdev-srv.log; }
txrdma_wait_until 30 server_up
check "msg_pingpong server listening" server_up
# a client that keeps its pair busy for a while: a stream of 40,000
"$PP" -c pself -S "$SERVICE" -m 64 -n 40000 -w 100 -r -Y > /tmp/pollerdev-cli.log 2>&1 &
CLI=$!
two_rings() { [ "$(pfield "$RXE" rings)" = 2 ]; }
txrdma_wait_until 30 two_rings
check "while the pair runs: the device's poller serves both rings" two_rings
# move it while it serves: the thread follows at its next wake-up
"$ADMIN" dev set "$RXE" poll-cpu 1
check "dev set poll-cpu 1: cpu 1 reported" test "$(pfield "$RXE" cpu)" = 1
check "dev set poll-cpu 1: thread may run on CPU 1 only" \
	test "$(allowed "$pid")" = 1
if kill -0 "$CLI" 2>/dev/null; then
	diag "poll-cpu 1 set while the stream still ran"
else
	diag "the stream had ended before poll-cpu 1 was set"
fi
wait "$CLI"; rc=$?
diag "client: $(tail -3 /tmp/pollerdev-cli.log | tr '\n' ' ')"
check "msg_pingpong client: 40,000 messages (exit 0)" test "$rc" -eq 0
wait "$SRV"; SRV=
db=$(grep -o 'doorbells=[0-9]*' /tmp/pollerdev-cli.log | cut -d= -f2)
check "the client rang the doorbell for < 1% of 40,100 messages (${db:-?})" \
	test -n "$db" -a "${db:-999999}" -lt 401
sqes1=$(pfield "$RXE" sqes)
diag "poller SQEs $sqes0 -> $sqes1; tenant traffic $("$ADMIN" -j tenant show "$TENANT" | jq -c '.[0].traffic')"
# the client's 40,100 SENDs and the server's acks, less what the
# doorbells served inline
check "the device's poller consumed the stream's SQEs ($((sqes1 - sqes0)))" \
	test "$((sqes1 - sqes0))" -gt 39000
# A running thread is migrated at once; a sleeping one moves when it
# next wakes.  The stream may have ended before the move (it is short on
# a fast host), so a second pair makes sure the poller wakes after it
# (binding a pair wakes it; poll_idle_us is still 20 ms): it serves that
# pair's SQEs and can do so on CPU 1 only.
"$PP" -s "$SERVICE" -o -Y > /tmp/pollerdev-srv2.log 2>&1 &
SRV=$!
server2_up() { grep -q "server listening" /tmp/pollerdev-srv2.log; }
txrdma_wait_until 30 server2_up
"$PP" -c pself -S "$SERVICE" -m 64 -n 2000 -w 10 -r -Y > /tmp/pollerdev-cli2.log 2>&1
rc=$?
wait "$SRV"; SRV=
sqes2=$(pfield "$RXE" sqes)
check "a second pair after the move: 2,000 messages (exit 0)" test "$rc" -eq 0
check "the poller served the second pair ($((sqes2 - sqes1)) SQEs)" \
	test "$((sqes2 - sqes1))" -gt 1000
check "the poller ran on CPU 1 (last CPU $(last_cpu "$pid"))" \
	test "$(last_cpu "$pid")" = 1
echo "$IDLE0" > "$IDLE"
no_rings() { [ "$(pfield "$RXE" rings)" = 0 ]; }
txrdma_wait_until 10 no_rings
check "after both processes exit: no ring left on the poller" no_rings

# ---- bad input changes nothing ----------------------------------------

err=$("$ADMIN" dev set "$RXE" poll-cpu "$NCPU" 2>&1); rc=$?
diag "poll-cpu $NCPU (offline): rc=$rc: $err"
check "offline CPU: exit 1" test "$rc" -eq 1
check "offline CPU: the kernel's message" grep -q "not an online CPU" <<<"$err"
check "offline CPU: still cpu 1" test "$(pfield "$RXE" cpu)" = 1
err=$("$ADMIN" dev set "$RXE" poll-cpu 4000000000 2>&1); rc=$?
check "CPU number out of range: usage error (exit 2)" test "$rc" -eq 2
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ADMIN" dev set "$RXE" poll-cpu 0 2>&1); rc=$?
check "unprivileged poll-cpu: exit 1, not permitted" \
	test "$rc" -eq 1 -a -n "$(grep -i 'not permitted' <<<"$err")"
check "unprivileged poll-cpu: still cpu 1, CPU 1 only" \
	test "$(pfield "$RXE" cpu)/$(allowed "$pid")" = 1/1

"$ADMIN" dev set "$RXE" poll-cpu any
check "poll-cpu any: cpu -1 reported" test "$(pfield "$RXE" cpu)" = -1
check "poll-cpu any: every online CPU allowed ($(allowed "$pid"))" \
	test "$(allowed "$pid")" = "$(cat /sys/devices/system/cpu/online)"
"$ADMIN" -j dev show "$RXE" | jq -e '.[0].poller | (.sleeps >= 1 and .passes >= 1)' >/dev/null
check "JSON: passes and sleeps counted" test $? -eq 0

tap_done
