#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "multipath" suite (run_vm_tests.py, two guests wired
# by two links: eth0/rxe0 and eth1/rxe1 on each):
#
#   multipath_guest.sh client|server PEER_GUEST CUTS
#
# Each adds the other twice: peer gP through link 0 (dev rxe0) and gPb
# through link 1 (dev rxe1, "path-of gP"): two paths to one host.  The
# client (guest 0) streams to the server over an endpoint pair with
# TXRDMA_EP_F_SESSION made through gP (session_flap, mode short, grace
# $GRACE_MS) while the host partitions the link the pair is on, CUTS
# times, each time for longer than the grace (a session that could not
# move to the other path would fail), alternating links 0 and 1.
# Between cuts the client waits until both paths are Up again with
# ready QPs (mp-ready-N), so that every cut finds the other path there.
# After the last cut the client removes the device its session is on
# ("ep show" names the path; link 0 unless a stall's false Down moved
# it), under the stream: the session moves to the other path rather
# than fail (mp-devdel).
# The host then lets the stream end.
#
# Meanwhile the client's module refuses every ${QP_FAIL_EVERY}th QP post,
# $QP_FAIL_TIMES times (fault point qp_fail): a failed QP, which the
# session replaces on the path it is on.  And the server's module loses
# every ${DROP_EVERY}th received write of one frame, $DROP_TIMES times
# (frame_drop), and judges every ${CORRUPT_EVERY}th received write's
# first frame corrupt, $CORRUPT_TIMES times (frame_corrupt): it refuses
# the frame, replaces the QP, and the client sends the frame and those
# after it again (a session's SEND completes only once the receiving
# process released it).
#
# Checks: no SEND fails, every message arrives once, in order, byte for
# byte, and the longest gap between deliveries is printed
# (session_flap); both modules count a move to the other path for every
# cut, and a resume for every cut, every failed QP and every refused frame (path_moves and
# resumes in the tenant's traffic); the tenant holds nothing once the
# processes are gone.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
GRACE_MS=2000
MULT=${TXRDMA_MP_MULT:-4}
QP_FAIL_EVERY=1500
QP_FAIL_TIMES=3
# which device goes after the cuts: the session's, or the other one
DEL_MODE=${TXRDMA_MP_DEL:-session}
FI=/sys/kernel/debug/txrdma/fault/qp_fail
DROP_EVERY=80
DROP_TIMES=3
CORRUPT_EVERY=3000
CORRUPT_TIMES=2
FP=/sys/kernel/debug/txrdma/fault

role=$1
p=$2
cuts=$3
peer=g$p
path=g${p}b
addr0=$(txrdma_peer_addr "$p" 0)
addr1=$(txrdma_peer_addr "$p" 1)
rxe0=$(txrdma_rxe_to "$p" 0)
rxe1=$(txrdma_rxe_to "$p" 1)
# detection $MULT x 20 ms (default 80 ms, the module's): a stall that
# looks like a cut only makes the session move or resume, which is
# what is tested here
check "peer add $peer ($addr0, $rxe0) tx 20000 mult $MULT" \
	"$ADMIN" peer add "$peer" addr "$addr0" dev "$rxe0" \
	key "$TXRDMA_PEER_KEY" pool 2:4 tx 20000 rx 20000 mult "$MULT"
check "peer add $path ($addr1, $rxe1) path-of $peer" \
	"$ADMIN" peer add "$path" addr "$addr1" dev "$rxe1" \
	key "$TXRDMA_PEER_KEY" pool 2:4 tx 20000 rx 20000 mult "$MULT" \
	path-of "$peer"
check "peer show $path: path-of $peer" \
	test "$("$ADMIN" -j peer show "$path" | jq -r '.[0].path_of')" = "$peer"
mkdir -p /sys/fs/cgroup/txrdma-mp
echo $$ > /sys/fs/cgroup/txrdma-mp/cgroup.procs
check "tenant add mp-t" "$ADMIN" tenant add mp-t cgroup /txrdma-mp

both_ready() {
	txrdma_peer_ready "$peer" && txrdma_peer_ready "$path"
}
traffic() {
	"$ADMIN" -j tenant show mp-t |
		jq -r '.[0].traffic | "\(.path_moves // 0) \(.resumes // 0) \(.tx_resent // 0)"'
}
# "STATE PATH" of the tenant's session endpoint ("ep show")
session() {
	"$ADMIN" -j ep show |
		jq -r '[.[] | select(.tenant == "mp-t" and .session)][0].session |
		       "\(.state) \(.path)"'
}
session_is() {
	read -r st _ <<<"$(session)"
	[ "$st" = "$1" ]
}
usage_zero() {
	[ "$(txrdma_tenant_usage mp-t)" = "0 0 0" ]
}

T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo 0 > $T/tracing_on
echo > $T/trace
echo 4096 > $T/buffer_size_kb
# session_flap prints its longest gap's ends on this clock
echo mono > $T/trace_clock
for ev in txrdma_session txrdma_peer_state txrdma_conn; do
	echo 1 > $T/events/txrdma/$ev/enable
done
echo 1 > $T/tracing_on

check "both paths up with ready QPs" txrdma_wait_until 120 both_ready
check "tenant usage zero before" usage_zero
read -r m0 r0 x0 <<<"$(traffic)"

# the client tells the host when both paths are back after each cut
if [ "$role" = client ]; then
	(
		for ((i = 1; i <= cuts; i++)); do
			txrdma_wait_file "mp-healed-$i" 600 || exit 1
			txrdma_wait_until 120 both_ready || exit 1
			txrdma_signal "mp-ready-$i"
		done
		# the device under the session goes: whichever path it is
		# on now (a stall's false Down may have moved it since the
		# last cut), and it must move to the other one.  With
		# TXRDMA_MP_DEL=other the device it is not on goes instead
		# (it may have left it a moment ago): the session stays.
		# The counters first: a move after them counts.
		traffic > /tmp/mp-before-devdel
		txrdma_wait_until 30 session_is up || exit 3
		read -r _ from <<<"$(session)"
		if [ "$from" = "$peer" ]; then
			gone=$rxe0 to=$path
		else
			gone=$rxe1 to=$peer
		fi
		if [ "$DEL_MODE" = other ]; then
			gone=$([ "$gone" = "$rxe0" ] && echo "$rxe1" || echo "$rxe0")
			to=$from
		fi
		echo "$gone $from $to" > /tmp/mp-devdel
		rdma link del "$gone" &
		del=$!
		# the removal waits for the device's users: not for long
		if ! txrdma_wait_until 30 eval '! kill -0 $del'; then
			{
				echo "# rdma link del $gone: still running after 30 s"
				cat /proc/$del/task/*/stack
				echo w > /proc/sysrq-trigger
				dmesg | tail -n 300
			} > "$TXRDMA_JOB/mp-del-hung" 2>&1
			exit 4
		fi
		wait $del || exit 2
		# moved: one more path move, and up on the other path
		read -r mb _ _ < /tmp/mp-before-devdel
		moved() {
			read -r m _ _ <<<"$(traffic)"
			if [ "$DEL_MODE" = other ]; then
				[ "$(session)" = "up $to" ]
			else
				[ "$m" -gt "$mb" ] && [ "$(session)" = "up $to" ]
			fi
		}
		if ! txrdma_wait_until 60 moved; then
			# what the pair looked like when it did not move
			"$ADMIN" -j ep show > "$TXRDMA_JOB/mp-nomove-ep" 2>&1
			"$ADMIN" peer show > "$TXRDMA_JOB/mp-nomove-peer" 2>&1
			exit 3
		fi
		txrdma_signal "mp-devdel" "$(traffic)"
	) &
	WATCH=$!
fi

injected() {
	cat $FI/injected
}
if [ "$role" = client ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	check "fault point qp_fail there" test -d $FI
	i0=$(injected)
	echo "$QP_FAIL_EVERY" > $FI/interval
	echo "$QP_FAIL_TIMES" > $FI/times
	echo 1 > $FI/verbose
	echo 100 > $FI/probability
fi
# frame_arm POINT EVERY TIMES: on the receiving side
frame_arm() {
	echo "$2" > $FP/$1/interval
	echo "$3" > $FP/$1/times
	echo 1 > $FP/$1/verbose
	echo 100 > $FP/$1/probability
}
if [ "$role" = server ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	check "fault points frame_drop and frame_corrupt there" \
		test -d $FP/frame_drop -a -d $FP/frame_corrupt
	d0=$(cat $FP/frame_drop/injected)
	k0=$(cat $FP/frame_corrupt/injected)
	frame_arm frame_drop "$DROP_EVERY" "$DROP_TIMES"
	frame_arm frame_corrupt "$CORRUPT_EVERY" "$CORRUPT_TIMES"
fi

shopt -s lastpipe
if [ "$role" = server ]; then
	timeout 600 "$DIR/session_flap" server 91 short "$GRACE_MS" 2>&1 |
		tap_relay "multipath"
else
	timeout 600 "$DIR/session_flap" client "$peer" 91 short "$GRACE_MS" \
		"$TXRDMA_JOB/mp-streaming" "$TXRDMA_JOB/mp-done" 2>&1 |
		tap_relay "multipath"
fi
rc=${PIPESTATUS[0]}
check "session_flap $role exited 0 across $cuts cuts (all its checks ok; $rc)" \
	test "$rc" = 0
if [ -n "${WATCH:-}" ]; then
	wait "$WATCH"
	wrc=$?
	check "both paths came back after every cut" test "$wrc" != 1
	read -r gone from to < /tmp/mp-devdel
	check "rdma link del $gone (session on $from, mode ${DEL_MODE}) under the stream: the session is up on $to (rc $wrc: 2 del failed, 3 not there, 4 del hung)" \
		test "$wrc" = 0
	check "$gone is gone" eval '! rdma link show "$gone/1" >/dev/null 2>&1'
fi
qpf=0
if [ "$role" = client ]; then
	echo 0 > $FI/probability
	qpf=$(($(injected) - i0))
	check "qp_fail refused a QP post $qpf times (of $QP_FAIL_TIMES asked)" \
		test "$qpf" -ge 1
fi
if [ "$role" = server ]; then
	echo 0 > $FP/frame_drop/probability
	echo 0 > $FP/frame_corrupt/probability
	diag "frame_drop looked at $(cat $FP/frame_drop/calls) received writes of one frame, frame_corrupt at $(cat $FP/frame_corrupt/calls) writes"
	drops=$(($(cat $FP/frame_drop/injected) - d0))
	corrupt=$(($(cat $FP/frame_corrupt/injected) - k0))
	check "frame_drop lost $drops received frames, frame_corrupt spoiled $corrupt (of $DROP_TIMES and $CORRUPT_TIMES asked): each refused, sent again, and the stream whole (session_flap above)" \
		test "$drops" -ge 1 -a "$corrupt" -ge 1
	qpf=$((drops + corrupt))
fi
read -r m1 r1 x1 <<<"$(traffic)"
diag "path moves +$((m1 - m0)), resumes +$((r1 - r0)), frames sent again +$((x1 - x0)), QP posts refused or frames refused $qpf"
# the whole trace beside the logs: a failure needs more than the tail
cp $T/trace "$TXRDMA_JOB/trace-$role.txt"
grep -v '^#' $T/trace | grep -E 'txrdma_peer_state|ev=|state=' | tail -n 80 |
	sed 's/^ *//; s/^/# trace: /'
check "the pair moved to the other path at every cut (moves +$((m1 - m0)) >= $cuts)" \
	test "$((m1 - m0))" -ge "$cuts"
check "and resumed there each time, and after each failed QP or refused frame (resumes +$((r1 - r0)) >= $cuts + $qpf)" \
	test "$((r1 - r0))" -ge "$((cuts + qpf))"
check "tenant QPs, endpoints, pinned bytes back to 0 after the process" \
	txrdma_wait_until 10 usage_zero
"$ADMIN" peer show | sed 's/^/# /'
other=server
[ "$role" = server ] && other=client
check "the other guest has checked too (before our peers go)" \
	txrdma_meet mp-final "$role" "$other" 300
"$ADMIN" peer del "$path"
"$ADMIN" peer del "$peer"
"$ADMIN" tenant del mp-t
tap_done
