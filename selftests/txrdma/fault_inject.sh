#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The module's fault-injection points (kmod/txrdma_inject.c,
# Documentation/admin.rst "Fault injection"), each armed in turn against
# a workload that reaches it, checked by what the module then did and
# what it left behind, not by the command having run:
#
#   files        /sys/kernel/debug/txrdma/fault/<point>/ of every point,
#                its 8 files at their defaults (probability 0, interval
#                1, times 1, space 0, delay_us 0, verbose 0, calls 0,
#                injected 0); values out of range or not numbers are
#                refused and change nothing; what is accepted reads back
#   reg_fail     a region_hold asks for a second region: EIO, the
#                tenant's pinned bytes and the device's MRs as before,
#                the first region intact; the next create works
#   alloc_fail   a msg_pingpong connect fails with ENOMEM: no endpoint,
#                no QP lent from tself's pool, no quota refusal counted
#   qp_fail      the 100th QP post of a ping-pong (space 100) is refused:
#                err_qp grows, the client sees ECONNRESET, the pool
#                gets its QPs back; with a session (msg_pingpong -R)
#                the ping-pong goes on byte for byte on a new QP and
#                both ends count a resume; the same under a stream
#                both ways (msg_pingpong -r), nothing lost or reordered
#   frame_corrupt the 50th received frame (interval 50) is judged
#                corrupt: err_crc +1, EPROTO on the receiver, the other
#                side's pair fails too
#   frame_drop   a received write of one frame, after ~1,920 bytes of
#                such frames (space), is lost: err_seq +1, EPROTO on
#                the receiver; on a session (msg_pingpong -R, a stream
#                both ways) the same drop and a corrupt frame cost a
#                resume at both ends and the frames sent again, and the
#                stream ends whole
#   probe_drop   every probe of the self peer dropped: it goes Down
#                (downs +1, tx_skipped grows by at least the faults);
#                disarmed, it comes back Up with its pool
#   poller_stall the poller sleeps 200 ms once, during a ping-pong:
#                every ping still completes byte for byte
#   verbose      the dmesg line "txrdma: fault alloc_fail injected";
#                the points with verbose 0 logged nothing
# After every fault the point has fired once (injected +1) and disarmed
# itself (times 0), the tenant holds nothing (qps, endpoints, pinned
# bytes, listeners 0, no endpoint listed), tself is Up with its pool,
# and a ping-pong of 1000-byte messages, every echo compared byte for
# byte by msg_pingpong, works with the point still at probability 100
# and times 0.
#
# Runs as root in a txrdma-vm guest with txrdma.ko loaded, debugfs and
# an rxe device whose netdev has an IPv4 address; TXRDMA_PEER_KEY is
# the key file.  TXRDMA_FAULT_SCALE (percent, default 100) scales the
# runs that must end well: the good ping-pongs, the poller stall's and
# the qp_fail session runs (never below what puts the fault mid-run);
# the debug-kernel lane, where KASAN makes every message slower, runs
# them at 25.  The cgroup txrdma-fault, tenant faulttest and self peer
# tself are removed at the end and every point is reset to its defaults.
#
# shellcheck disable=SC2016 # check ... eval '...': expanded when it runs
# shellcheck source-path=SCRIPTDIR
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ROOT=$(cd "$DIR/../.." && pwd)
# shellcheck source=../../tools/vm/guestlib.sh
. "$ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$ROOT/tools/txrdma-admin/txrdma-admin}
PP=$ROOT/tools/bench/msg_pingpong
HOLD=$DIR/region_hold
FLAP=$DIR/session_flap
CG_NAME=txrdma-fault
CG=/sys/fs/cgroup/$CG_NAME
TENANT=faulttest
PEER=tself
SERVICE=4646
FI=/sys/kernel/debug/txrdma/fault
POINTS="reg_fail alloc_fail qp_fail frame_corrupt frame_drop probe_drop poller_stall"
FILES="probability interval times space delay_us verbose calls injected"
# the rule's defaults; calls and injected only grow (0 after a load)
DEFAULTS="probability=0 interval=1 times=1 space=0 delay_us=0 verbose=0"
SCALE=${TXRDMA_FAULT_SCALE:-100}
[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || SCALE=100
# scaled N MIN: N scaled, at least MIN
scaled() {
	local n=$(($1 * SCALE / 100))

	echo $((n < $2 ? $2 : n))
}
GOOD_N=$(scaled 300 50)	# ping-pongs of the runs after a fault
# the session runs: a ping-pong past its 100th post, a stream past its
# 300th post, READ/WRITE past its 100th post.  The session streams of
# frame_drop and frame_corrupt stay whole: frame_drop takes only writes
# of one frame, and a session's writes mostly carry several (1,250
# messages on the debug kernel made 77 calls, and its 1,920 bytes of
# budget were not spent).
SESS_PP_N=$(scaled 1000 200)
SESS_STREAM_N=$(scaled 20000 2000)
SESS_FRAME_N=5000
RW_N=$(scaled 400 200)
STALL_N=$(scaled 3000 500)
TMP=
SRV=
CPID=
HOLD_PID=
HOLD_FD=

# bail WHY: a failure that leaves nothing sensible to check after it
# (a missing tool or module fails too: CI must not skip this quietly)
bail() {
	not_ok "$*"
	tap_done
	exit 1
}

[ "$(id -u)" -eq 0 ] || bail "needs root"
command -v jq >/dev/null || bail "needs jq"
[ -x "$ADMIN" ] || bail "no $ADMIN (make -C tools/txrdma-admin)"
[ -x "$PP" ] || bail "no $PP (make -C tools/bench)"
[ -x "$HOLD" ] || bail "no $HOLD (make -C selftests/txrdma)"
[ -d /sys/module/txrdma ] || bail "txrdma.ko is not loaded"

TMP=$(mktemp -d)

# ---- the points' files ----------------------------------------------

fi_get() {	# POINT FILE
	cat "$FI/$1/$2" 2>/dev/null
}

fi_write() {	# POINT FILE VALUE: fails as the write fails
	{ printf '%s\n' "$3" > "$FI/$1/$2"; } 2>/dev/null
}

fi_vals() {	# POINT: "probability=0 interval=1 ..." (all 8 files)
	local f out=
	for f in $FILES; do
		out+="$f=$(fi_get "$1" "$f") "
	done
	echo "${out% }"
}

# fi_reset POINT: off first, then the rest back to the defaults
fi_reset() {
	local kv rc=0
	for kv in probability=0 interval=1 times=1 space=0 delay_us=0 verbose=0; do
		fi_write "$1" "${kv%=*}" "${kv#*=}" || rc=1
	done
	return $rc
}

# arm POINT [FILE VALUE]...: those files first, probability 100 last
arm() {
	local p=$1
	shift
	while [ $# -ge 2 ]; do
		fi_write "$p" "$1" "$2" || return 1
		shift 2
	done
	fi_write "$p" probability 100
}

cleanup() {
	local p
	for p in $POINTS; do
		fi_reset "$p"
	done
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	if [ -n "$HOLD_PID" ]; then
		exec {HOLD_FD}>&-
		kill "$HOLD_PID" 2>/dev/null
		wait "$HOLD_PID" 2>/dev/null
	fi
	"$ADMIN" peer del "$PEER" >/dev/null 2>&1
	echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null
	"$ADMIN" tenant del "$TENANT" >/dev/null 2>&1 ||
		"$ADMIN" tenant del "$TENANT" force >/dev/null 2>&1
	rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# kernel log lines that are problems, since this test started
DMESG0=$(dmesg | wc -l)
PROBLEMS='\bBUG:|\bBUG |\bWARNING:|\bOops\b|KASAN|general protection fault|Kernel panic|kernel BUG|Redzone|Poison overwritten|Object padding overwritten|slab_out_of_bounds|refcount_t:|list_add corruption|list_del corruption|UBSAN'
kernel_problems() {
	dmesg | tail -n +$((DMESG0 + 1)) | grep -E "$PROBLEMS"
}
# fault_lines [POINT]: "txrdma: fault ... injected" lines since the start
fault_lines() {
	dmesg | tail -n +$((DMESG0 + 1)) |
		grep -c "txrdma: fault ${1:-[a-z_]*} injected"
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -d "$FI" ] || bail "$FI exists (debugfs mounted, module with fault injection)"

# ---- 1. every point: its files, defaults and refusals -----------------

n=$(find "$FI" -mindepth 1 -maxdepth 1 -type d | wc -l)
check "$FI holds the 7 points ($n directories)" test "$n" -eq 7
for p in $POINTS; do
	missing=
	for f in $FILES; do
		[ -f "$FI/$p/$f" ] || missing+=" $f"
	done
	check "$p: its 8 files${missing:+ (missing:$missing)}" \
		test -d "$FI/$p" -a -z "$missing"
	vals=$(fi_vals "$p")
	check "$p: defaults ($vals)" test "${vals% calls=*}" = "$DEFAULTS"

	# out of range, not a number, read-only: EINVAL (EACCES), unchanged
	wrong=
	for w in "probability 101" "probability abc" "probability -1" \
		 "times -2" "times abc" "interval abc" "space -1" \
		 "verbose 2" "calls 5" "injected 5"; do
		read -r f v <<<"$w"
		before=$(fi_get "$p" "$f")
		fi_write "$p" "$f" "$v" && wrong+=" $f=$v:accepted"
		after=$(fi_get "$p" "$f")
		[ "$after" = "$before" ] || wrong+=" $f=$v:$before->$after"
	done
	check "$p: refuses probability 101/abc/-1, times -2/abc, interval abc, space -1, verbose 2, writes to calls and injected; nothing changed${wrong:+ (wrong:$wrong)}" \
		test -z "$wrong"

	# accepted values read back (times 0 first: never armed meanwhile)
	fi_write "$p" times 0 && fi_write "$p" probability 50 &&
		fi_write "$p" interval 7 && fi_write "$p" space 4096
	a=$(fi_vals "$p")
	fi_write "$p" probability 0 && fi_write "$p" times -1
	b=$(fi_get "$p" times)
	fi_reset "$p"
	c=$(fi_vals "$p")
	check "$p: probability 50, interval 7, space 4096, times -1 read back; reset to the defaults" \
		test "${a%% calls=*}" = "probability=50 interval=7 times=0 space=4096 delay_us=0 verbose=0" \
		-a "$b" = -1 -a "${c% calls=*}" = "$DEFAULTS"
	[ "${c% calls=*}" = "$DEFAULTS" ] || diag "$p after the round trip: $a; times -1 read $b; reset: $c"
done
check "delay_us of poller_stall: 1000000 taken, 1000001 refused" \
	eval 'fi_write poller_stall delay_us 1000000 &&
	      ! fi_write poller_stall delay_us 1000001 &&
	      [ "$(fi_get poller_stall delay_us)" = 1000000 ] &&
	      fi_write poller_stall delay_us 0'

# ---- the tenant, the self peer and the workloads --------------------

txrdma_local_rdma
if [ -z "$RXE" ] || [ -z "$ME" ] || [ "$ME" = null ]; then
	bail "an ACTIVE RDMA device with an IPv4 address"
fi

mkdir -p "$CG" && echo $$ > "$CG/cgroup.procs" &&
	"$ADMIN" tenant add "$TENANT" cgroup "/$CG_NAME" >/dev/null
check "tenant $TENANT (this shell in cgroup $CG_NAME)" test $? -eq 0
# liveness of 10 x 50 ms, as trace_events.sh: a loaded TCG guest stalls
check "self peer $PEER ($ME) added" \
	"$ADMIN" peer add "$PEER" addr "$ME" key "$TXRDMA_PEER_KEY" pool 2:4 \
	tx 50000 rx 50000 mult 10

tenant_json() {
	"$ADMIN" -j tenant show "$TENANT"
}
# the tenant's error counters (its endpoints', the closed ones' included)
resumes() {	# -> "resumes tx_resent"
	tenant_json | jq -r '.[0].traffic | "\(.resumes // 0) \(.tx_resent // 0)"'
}
errs() {	# -> "err_qp err_crc err_seq err_proto"
	tenant_json | jq -r '.[0].traffic |
		"\(.err_qp // 0) \(.err_crc // 0) \(.err_seq // 0) \(.err_proto // 0)"'
}
usage() {	# -> "qps endpoints pinned_bytes listeners"
	tenant_json | jq -r '.[0].usage |
		"\(.qps) \(.endpoints) \(.pinned_bytes) \(.listeners)"'
}
peer_json() {
	"$ADMIN" -j peer show "$PEER" 2>/dev/null
}
peer_field() {	# JQ_PATH of tself, e.g. .downs
	peer_json | jq -r ".[0]$1"
}
pool() {
	peer_json | jq -r '.[0] |
		"\(.state), pool ready \(.pool.ready)/\(.pool.min), in use \(.pool.in_use)"'
}
# tself Up with at least its minimum of ready QPs and none lent out
peer_ready() {
	peer_json | jq -e '.[0] | .state == "up" and
		.pool.ready >= .pool.min and .pool.in_use == 0' >/dev/null
}
peer_state_is() {
	[ "$(peer_field .state)" = "$1" ]
}
ep_count() {
	"$ADMIN" -j ep show tenant "$TENANT" | jq length
}
mrs() {	# registrations on the RDMA device
	"$ADMIN" -j dev show "$RXE" | jq -r '.[0].mrs'
}
# nothing of the tenant left and the pool whole again
settled() {
	[ "$(usage)" = "0 0 0 0" ] && [ "$(ep_count)" = 0 ] && peer_ready
}
# check_settled WHAT: wait for it (bounded), then say so
check_settled() {
	txrdma_wait_until 30 settled
	check "$1: the tenant holds nothing (qps endpoints pinned listeners: $(usage); endpoints listed: $(ep_count)); $PEER $(pool)" \
		settled
}

server_up() {
	grep -q "server listening" "$TMP/srv.log"
}
# server_start: a msg_pingpong server of one endpoint
server_start() {
	: > "$TMP/srv.log"
	"$PP" -s "$SERVICE" -o -Y > "$TMP/srv.log" 2>&1 &
	SRV=$!
	txrdma_wait_until 30 server_up
}
server_gone() {
	! kill -0 "$SRV" 2>/dev/null
}
# server_wait: its exit status in srv_rc (124: still running after 30 s,
# then killed)
server_wait() {
	srv_rc=124
	if txrdma_wait_until 30 server_gone; then
		wait "$SRV"
		srv_rc=$?
	else
		kill "$SRV" 2>/dev/null
		wait "$SRV" 2>/dev/null
	fi
	SRV=
}
# client NAME [OPTIONS]: a msg_pingpong client of tself; rc, and the
# output in $TMP/NAME.out and .err
client() {
	local name=$1
	shift
	timeout 120 "$PP" -c "$PEER" -S "$SERVICE" -Y "$@" \
		> "$TMP/$name.out" 2> "$TMP/$name.err"
	rc=$?
	[ -s "$TMP/$name.err" ] &&
		diag "$name: exit $rc: $(tail -n 3 "$TMP/$name.err" | tr '\n' ' ')"
	return $rc
}

# good_run POINT: with the point spent (probability 100, times 0) or
# off: a ping-pong of 1000-byte messages, each echo
# compared with what was sent (msg_pingpong's run_latency()), and no
# further fault
good_run() {
	local p=$1 n0 n
	n0=$(fi_get "$p" injected)
	if ! server_start; then
		not_ok "$p: then a msg_pingpong server (none listening)"
		server_wait
		return
	fi
	client good -m 1000 -n "$GOOD_N" -w 0
	server_wait
	n=$(fi_get "$p" injected)
	check "$p: then (probability $(fi_get "$p" probability), times $(fi_get "$p" times)) $GOOD_N echoes of 1000 B byte for byte (client exit $rc, server exit $srv_rc), nothing injected (+$((n - n0)))" \
		eval '[ $rc -eq 0 ] && [ $srv_rc -eq 0 ] && [ "$n" = "$n0" ] &&
		      grep -q "^txrdma pingpong size=1000 n=$GOOD_N " "$TMP/good.out"'
	grep -q "closed" "$TMP/srv.log" ||
		diag "server: $(tail -n 3 "$TMP/srv.log" | tr '\n' ' ')"
	check_settled "$p: after the good run"
}

# fired_once POINT INJECTED0: injected +1 and times back to 0
fired_once() {
	local n n0=$2 t
	n=$(fi_get "$1" injected)
	t=$(fi_get "$1" times)
	check "$1: injected once (+$((n - n0))), times back to 0 ($t)" \
		test "$((n - n0))" -eq 1 -a "$t" = 0
}

# disarm POINT: probability 0 and the defaults again
disarm() {
	check "$1: disarmed, defaults again" fi_reset "$1"
}

# fault_run POINT "ATTR VALUE ..." NAME CLIENT-OPTIONS...: arm POINT
# with the attributes, run client NAME against a fresh server and wait
# for both.  Leaves the tenant's error counters before (q0 c0 s0 p0)
# and after (q1 c1 s1 p1), the point's calls meanwhile in calls, and
# checks that it fired exactly once.
fault_run() {
	local point=$1 attrs=$2 name=$3 n0 calls0
	shift 3
	read -r q0 c0 s0 p0 <<<"$(errs)"
	n0=$(fi_get "$point" injected)
	calls0=$(fi_get "$point" calls)
	server_start
	check "$point: server listening" server_up
	# shellcheck disable=SC2086 # the pairs are words
	check "$point: armed ($attrs)" arm "$point" $attrs
	client "$name" "$@"
	server_wait
	read -r q1 c1 s1 p1 <<<"$(errs)"
	calls=$(($(fi_get "$point" calls) - calls0))
	diag "$point: err_qp +$((q1 - q0)) err_crc +$((c1 - c0)) err_seq +$((s1 - s0)) err_proto +$((p1 - p0)); calls +$calls; server exit $srv_rc"
	fired_once "$point" "$n0"
}

# the Up of a self peer takes seconds in a TCG guest
txrdma_wait_until 60 peer_ready
peer_ready || bail "$PEER up with its pool ($(pool)): nothing to inject into"
ok "$PEER up with its pool ($(pool))"
check "tenant $TENANT holds nothing before ($(usage))" \
	test "$(usage)" = "0 0 0 0"

# ---- 2. each point in turn ------------------------------------------

# -- reg_fail: a region's registration fails ------------------------------
diag "---- reg_fail"
mrs0=$(mrs)
rm -f "$TMP/hold.in"
mkfifo "$TMP/hold.in"
"$HOLD" 1 < "$TMP/hold.in" > "$TMP/hold.out" 2>&1 &
HOLD_PID=$!
exec {HOLD_FD}>"$TMP/hold.in"
hold_lines_over() {
	[ "$(wc -l < "$TMP/hold.out")" -gt "$1" ]
}
# hold_say CMD: the holder's answer in $reply ("" if none in 30 s)
hold_say() {
	local n
	n=$(wc -l < "$TMP/hold.out")
	echo "$1" >&"$HOLD_FD"
	reply=
	txrdma_wait_until 30 hold_lines_over "$n" &&
		reply=$(tail -n 1 "$TMP/hold.out")
}
txrdma_wait_until 30 hold_lines_over 0
check "region_hold: one region of 2 MiB ($(head -n 1 "$TMP/hold.out"))" \
	eval 'grep -q "^ready [0-9]" "$TMP/hold.out" &&
	      [ "$(usage)" = "0 0 $((2 << 20)) 0" ]'
mrs1=$(mrs)
n0=$(fi_get reg_fail injected)
c0=$(fi_get reg_fail calls)
check "reg_fail: armed (times 1)" arm reg_fail times 1
hold_say create
check "reg_fail: region create fails with EIO ($reply)" \
	test "$reply" = "error create Input/output error"
fired_once reg_fail "$n0"
diag "reg_fail: calls +$(($(fi_get reg_fail calls) - c0))"
check "reg_fail: nothing charged: pinned_bytes still 2 MiB, no endpoint ($(usage))" \
	test "$(usage)" = "0 0 $((2 << 20)) 0"
check "reg_fail: nothing left registered on $RXE (mrs $(mrs), were $mrs1)" \
	test "$(mrs)" = "$mrs1"
hold_say check
check "reg_fail: the first region still holds its bytes ($reply)" test "$reply" = ok
hold_say create
check "reg_fail: times 0: the next create works ($reply), 4 MiB pinned ($(usage | cut -d' ' -f3)), one more MR ($(mrs), were $mrs1)" \
	eval '[[ $reply == created\ * ]] &&
	      [ "$(usage)" = "0 0 $((4 << 20)) 0" ] && [ "$(mrs)" = $((mrs1 + 1)) ]'
echo quit >&"$HOLD_FD"
exec {HOLD_FD}>&-
wait "$HOLD_PID"
hold_rc=$?
HOLD_PID=
hold_released() {
	[ "$(usage)" = "0 0 0 0" ] && [ "$(mrs)" = "$mrs0" ]
}
txrdma_wait_until 10 hold_released
check "region_hold: exit $hold_rc; its regions released (pinned $(usage | cut -d' ' -f3), mrs $(mrs), were $mrs0)" \
	eval '[ $hold_rc -eq 0 ] && [ "$(usage)" = "0 0 0 0" ] && [ "$(mrs)" = "$mrs0" ]'
good_run reg_fail
disarm reg_fail

# -- alloc_fail: an endpoint's allocation fails -----------------------
diag "---- alloc_fail"
n0=$(fi_get alloc_fail injected)
takes0=$(peer_field .pool.takes)
refused0=$(tenant_json | jq -r '.[0].refused.endpoints')
check "alloc_fail: armed (times 1)" arm alloc_fail times 1
# no server: the connect allocates its endpoint before it asks the peer
client alloc -m 64 -n 10 -w 0
check "alloc_fail: msg_pingpong's connect fails with ENOMEM (exit $rc)" \
	eval '[ $rc -eq 1 ] &&
	      grep -q "connect to service $SERVICE at peer $PEER: Cannot allocate memory" "$TMP/alloc.err"'
fired_once alloc_fail "$n0"
check "alloc_fail: no QP lent from $PEER's pool (takes $(peer_field .pool.takes), were $takes0)" \
	test "$(peer_field .pool.takes)" = "$takes0"
check "alloc_fail: no quota refusal counted (refused.endpoints $(tenant_json | jq -r '.[0].refused.endpoints'), was $refused0)" \
	test "$(tenant_json | jq -r '.[0].refused.endpoints')" = "$refused0"
check_settled alloc_fail
good_run alloc_fail
disarm alloc_fail

# -- qp_fail: a pair's QP refuses a chain of work requests ----------------
diag "---- qp_fail"
# the pings and echoes of both ends post: the 100th post fails
# (space 100 lets 99 calls of size 1 pass, as lib/fault-inject.c)
fault_run qp_fail "space 100 times 1" qpfail -m 256 -n 1000 -w 0
check "qp_fail: after the space budget: the 100th call failed (calls +$calls, space left $(fi_get qp_fail space))" \
	test "$calls" -eq 100
check "qp_fail: the client's pair failed with ECONNRESET mid-run (exit $rc)" \
	eval '[ $rc -eq 1 ] && grep -q "Connection reset by peer" "$TMP/qpfail.err" &&
	      ! grep -q "^txrdma pingpong" "$TMP/qpfail.out"'
check "qp_fail: the tenant's err_qp grew (+$((q1 - q0))), not err_crc/err_seq (+$((c1 - c0))/+$((s1 - s0)))" \
	test "$((q1 - q0))" -ge 1 -a "$c1" = "$c0" -a "$s1" = "$s0"
check "qp_fail: the server's endpoint ended without BYE" \
	grep -Eq "FAILED|without BYE" "$TMP/srv.log"
check_settled "qp_fail: the QP closed"
good_run qp_fail
disarm qp_fail

# -- qp_fail on a session: the pair moves to a new QP, nothing fails ----
# session_run NAME CALLS OUT_LINE CLIENT_ARGS...: the CALLS-th QP post
# refused while msg_pingpong -R runs; it must end well, with OUT_LINE,
# both ends counting one resume each, and nothing held after
session_run() {
	local name=$1 n=$2 line=$3 r0 x0 r1 x1
	shift 3
	diag "---- qp_fail, $name"
	read -r r0 x0 <<<"$(resumes)"
	fault_run qp_fail "space $n times 1" "$name" -R "$@"
	read -r r1 x1 <<<"$(resumes)"
	check "qp_fail, $name: the ${n}th call failed (calls +$calls)" \
		test "$calls" -eq "$n"
	check "qp_fail, $name: the client and the server ended well (exit $rc and $srv_rc) with \"$line\"" \
		eval '[ $rc -eq 0 ] && [ $srv_rc -eq 0 ] &&
		      grep -q "^$line " "$TMP/$name.out"'
	check "qp_fail, $name: err_qp grew (+$((q1 - q0))), both ends resumed (resumes +$((r1 - r0)), frames sent again +$((x1 - x0)))" \
		test "$((q1 - q0))" -ge 1 -a "$((r1 - r0))" -eq 2
	check_settled "qp_fail, $name: the QPs closed"
	disarm qp_fail
}
# a ping-pong: msg_pingpong compares every echo byte for byte
session_run session 100 "txrdma pingpong size=256 n=$SESS_PP_N" \
	-m 256 -n "$SESS_PP_N" -w 0
# a stream both ways (DATA, the server's ACKs): the server checks every
# sequence number (a lost, doubled or reordered message ends it)
session_run stream 300 "txrdma msgrate size=256 n=$SESS_STREAM_N" \
	-m 256 -n "$SESS_STREAM_N" -w 0 -r

# rw_run MODE: READ and WRITE of exported memory on a session
# (session_flap rw-server/rw-client, one operation in flight at a
# time), the 100th QP post refused: with TXRDMA_SQE_F_IDEMPOTENT
# (MODE idempotent) the operation in flight runs again and none fails;
# without (plain) it fails with -ECONNABORTED and the session goes on.
# session_flap checks every block read back byte for byte.
rw_run() {
	local mode=$1 svc=$((SERVICE + 1)) srv crc src n0 r0 x0 r1 x1
	diag "---- qp_fail, READ/WRITE, $mode"
	read -r r0 x0 <<<"$(resumes)"
	n0=$(fi_get qp_fail injected)
	"$FLAP" rw-server $svc > "$TMP/rw-srv.out" 2>&1 &
	srv=$!
	check "qp_fail, READ/WRITE, $mode: armed (space 100 times 1)" \
		arm qp_fail space 100 times 1
	# tap_relay counts in this shell
	shopt -s lastpipe
	timeout 120 "$FLAP" rw-client "$PEER" $svc "$RW_N" "$mode" 2>&1 |
		tap_relay "qp_fail, READ/WRITE, $mode"
	crc=${PIPESTATUS[0]}
	shopt -u lastpipe
	# the server ends when the client says so, or with the pair
	txrdma_wait_until 30 eval '! kill -0 $srv 2>/dev/null'
	kill "$srv" 2>/dev/null
	wait "$srv"
	src=$?
	tap_relay "qp_fail, READ/WRITE, $mode" < "$TMP/rw-srv.out"
	check "qp_fail, READ/WRITE, $mode: client and server exited 0 (all their checks ok; $crc and $src)" \
		test "$crc" = 0 -a "$src" = 0
	read -r r1 x1 <<<"$(resumes)"
	check "qp_fail, READ/WRITE, $mode: both ends resumed (resumes +$((r1 - r0)))" \
		test "$((r1 - r0))" -eq 2
	fired_once qp_fail "$n0"
	check_settled "qp_fail, READ/WRITE, $mode: the QPs closed"
	disarm qp_fail
}
rw_run idempotent
rw_run plain

# -- frame_corrupt: a received frame is judged corrupt ----------------
diag "---- frame_corrupt"
# every received frame is eligible: the 50th fails (interval 50)
fault_run frame_corrupt "interval 50 times 1" corrupt -m 64 -n 1000 -w 0
check "frame_corrupt: the 50th frame received (calls +$calls)" test "$calls" -eq 50
check "frame_corrupt: err_crc +1 ($((c1 - c0))), err_seq +0 ($((s1 - s0)))" \
	test "$((c1 - c0))" -eq 1 -a "$s1" = "$s0"
check "frame_corrupt: the receiver failed with EPROTO (Protocol error in client or server)" \
	grep -q "Protocol error" "$TMP/corrupt.err" "$TMP/srv.log"
check "frame_corrupt: both pairs failed: the client mid-run (exit $rc), the server without BYE" \
	eval '[ $rc -eq 1 ] && ! grep -q "^txrdma pingpong" "$TMP/corrupt.out" &&
	      grep -Eq "FAILED|without BYE" "$TMP/srv.log"'
check_settled frame_corrupt
good_run frame_corrupt
disarm frame_corrupt

# -- frame_drop: a received write is lost -----------------------------
diag "---- frame_drop"
# a stream (DATA frames of 64 B one way, ACKs of 16 B back) keeps
# frames coming after the lost one; the budget is spent by frame
# lengths: the write after some 1,920 bytes of them is lost
SPACE=1920
fault_run frame_drop "space $SPACE times 1" drop -r -m 64 -n 20000 -w 0 -W 64
left=$(fi_get frame_drop space)
# each call costs its frame's length (at most 64 here): at least
# SPACE/64 calls, and what is left is less than one frame
check "frame_drop: the budget spent by frame lengths (calls +$calls >= $((SPACE / 64)), space left $left <= 64)" \
	test "$calls" -ge $((SPACE / 64)) -a "$left" -le 64
check "frame_drop: the next frame out of sequence: err_seq +1 ($((s1 - s0))), err_crc +0 ($((c1 - c0)))" \
	test "$((s1 - s0))" -eq 1 -a "$c1" = "$c0"
check "frame_drop: the receiver failed with EPROTO (Protocol error in client or server)" \
	grep -q "Protocol error" "$TMP/drop.err" "$TMP/srv.log"
check "frame_drop: the stream did not finish (client exit $rc)" \
	eval '[ $rc -eq 1 ] && ! grep -q "^txrdma msgrate" "$TMP/drop.out"'
check_settled frame_drop
good_run frame_drop
disarm frame_drop

# -- frame_drop and frame_corrupt on a session: the frame comes again --
# session_frame_run POINT ATTRS NAME: a stream both ways on a session
# (msg_pingpong -R -r: the server checks every sequence number, a lost,
# doubled or reordered message ends it) while POINT refuses one frame;
# the receiver's kernel replaces the QP instead of failing the pair,
# and the sender, whose SEND completes only once the receiving process
# released it, sends the refused frame and those after it again
session_frame_run() {
	local point=$1 attrs=$2 name=$3 r0 x0 r1 x1
	diag "---- $point, session"
	read -r r0 x0 <<<"$(resumes)"
	fault_run "$point" "$attrs" "$name" -R -r -m 64 -n "$SESS_FRAME_N" -w 0 -W 64
	read -r r1 x1 <<<"$(resumes)"
	check "$point, session: the stream ended well (client exit $rc, server $srv_rc) with \"txrdma msgrate size=64 n=$SESS_FRAME_N\"" \
		eval '[ $rc -eq 0 ] && [ $srv_rc -eq 0 ] &&
		      grep -q "^txrdma msgrate size=64 n=$SESS_FRAME_N " "$TMP/$name.out"'
	check "$point, session: both ends resumed (resumes +$((r1 - r0))), the refused frame and those after it sent again (+$((x1 - x0)))" \
		test "$((r1 - r0))" -eq 2 -a "$((x1 - x0))" -ge 1
	check "$point, session: nothing failed for a protocol error (err_proto +$((p1 - p0)))" \
		test "$p1" = "$p0"
	check_settled "$point, session: the QPs closed"
	disarm "$point"
}
session_frame_run frame_drop "space $SPACE times 1" sdrop
check "frame_drop, session: no frame refused for a CRC (err_crc +$((c1 - c0)); err_seq +$((s1 - s0)): frames after the lost one on its QP)" \
	test "$c1" = "$c0"
session_frame_run frame_corrupt "interval 50 times 1" scorrupt
check "frame_corrupt, session: the corrupt frame counted (err_crc +$((c1 - c0)))" \
	test "$((c1 - c0))" -eq 1

# ---- 3. probe_drop: the self peer goes Down and comes back ----------
diag "---- probe_drop"
txrdma_wait_until 30 peer_ready
downs0=$(peer_field .downs)
ups0=$(peer_field .ups)
skipped0=$(peer_field .bfd.tx_skipped)
n0=$(fi_get probe_drop injected)
check "probe_drop: armed (times -1: every probe)" arm probe_drop times -1
txrdma_wait_until 30 peer_state_is down
state=$(peer_field .state)
downs=$(peer_field .downs)
# injected first: each fault is counted there, then in tx_skipped
inj=$(($(fi_get probe_drop injected) - n0))
skipped=$(peer_field .bfd.tx_skipped)
check "probe_drop: $PEER went Down ($state, downs +$((downs - downs0)))" \
	test "$state" = down -a "$((downs - downs0))" -eq 1
check "probe_drop: faults injected (+$inj), times still -1 ($(fi_get probe_drop times))" \
	test "$inj" -ge 1 -a "$(fi_get probe_drop times)" = -1
check "probe_drop: tx_skipped grew by at least the faults (+$((skipped - skipped0)) >= +$inj)" \
	test "$((skipped - skipped0))" -ge "$inj" -a "$inj" -ge 1
check "probe_drop: probability 0" fi_write probe_drop probability 0
txrdma_wait_until 60 peer_ready
check "probe_drop: disarmed, $PEER Up again with its pool ($(pool), ups +$(($(peer_field .ups) - ups0)))" \
	eval 'peer_ready && [ $(($(peer_field .ups) - ups0)) -ge 1 ]'
diag "probe_drop: since the Down: downs +$(($(peer_field .downs) - downs)), tx_skipped +$(($(peer_field .bfd.tx_skipped) - skipped)), injected $(fi_get probe_drop injected)"
disarm probe_drop
# a pair works over the peer that came back
good_run probe_drop

# ---- 4. poller_stall: a stalled data path loses nothing --------------
diag "---- poller_stall"
n0=$(fi_get poller_stall injected)
server_start
check "poller_stall: server listening" server_up
tx_msgs() {
	tenant_json | jq -r '.[0].traffic.tx_msgs // 0'
}
# the stall lands in the run: armed as the client starts, it fires at
# the poller's next wake (the new pair kicks it); the doorbell serves
# the pings themselves, the poller what a doorbell leaves
tx0=$(tx_msgs)
t0=$EPOCHREALTIME
client stall -m 64 -n "$STALL_N" -w 0 &
CPID=$!
check "poller_stall: armed as the client starts (delay_us 200000, times 1)" \
	arm poller_stall delay_us 200000 times 1
stalled() { [ "$(fi_get poller_stall injected)" -gt "$n0" ]; }
txrdma_wait_until 10 stalled
tx1=$(tx_msgs)
wait "$CPID"
rc=$?
CPID=
secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
server_wait
diag "poller_stall: the run took ${secs}s; $(grep -o 'max_us=[0-9.]*' "$TMP/stall.out")"
tx2=$(tx_msgs)
check "poller_stall: the stall came before the run ended (tx_msgs +$((tx1 - tx0)) at the stall, +$((tx2 - tx0)) at the end)" \
	eval 'stalled && [ $((tx1 - tx0)) -lt $((2 * STALL_N)) ] &&
	      [ $((tx2 - tx0)) -ge $((2 * STALL_N)) ]'
check "poller_stall: $STALL_N pings echoed byte for byte all the same (client exit $rc, server exit $srv_rc)" \
	eval '[ $rc -eq 0 ] && [ $srv_rc -eq 0 ] &&
	      grep -q "^txrdma pingpong size=64 n=$STALL_N " "$TMP/stall.out"'
fired_once poller_stall "$n0"
check_settled poller_stall
disarm poller_stall

# ---- 5. verbose: the injection is logged -----------------------------
diag "---- verbose"
quiet=$(fault_lines)
check "verbose 0: none of the injections so far was logged ($quiet lines)" \
	test "$quiet" -eq 0
n0=$(fi_get alloc_fail injected)
check "alloc_fail: armed (verbose 1, times 1)" arm alloc_fail verbose 1 times 1
client verbose -m 64 -n 10 -w 0
fired_once alloc_fail "$n0"
has_line() {
	[ "$(fault_lines alloc_fail)" -ge 1 ]
}
txrdma_wait_until 5 has_line
diag "dmesg: $(dmesg | tail -n +$((DMESG0 + 1)) | grep "txrdma: fault" | tail -n 1)"
check "verbose 1: dmesg says \"txrdma: fault alloc_fail injected\" once ($(fault_lines alloc_fail))" \
	test "$(fault_lines alloc_fail)" -eq 1 -a "$(fault_lines)" -eq 1
check "verbose: the connect failed with ENOMEM (exit $rc)" \
	grep -q "Cannot allocate memory" "$TMP/verbose.err"
disarm alloc_fail
check_settled verbose

# ---- the end: all off, nothing wrong in the kernel log ---------------
off=
for p in $POINTS; do
	[ "$(fi_vals "$p" | cut -d' ' -f1-6)" = "probability=0 interval=1 times=1 space=0 delay_us=0 verbose=0" ] ||
		off+=" $p"
done
check "every point disarmed, at its defaults${off:+ (not:$off)}" test -z "$off"
problems=$(kernel_problems)
[ -z "$problems" ] || diag "dmesg: $(head -n 5 <<<"$problems" | tr '\n' ' ')"
check "no kernel problems logged" test -z "$problems"

tap_done
