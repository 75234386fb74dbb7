#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "handoff" suite (run_vm_tests.py, three guests): a
# session's end moves between two hosts under a stream to a third.
#
#   handoff_guest.sh
#
# Guest 1 runs "handoff receiver" (B, the side that stays); guests 0 and
# 2 run "handoff mover" (A and C), guest 0 first: it connects a session
# to g1, and the session then moves to guest 2, back to guest 0, ...
# TXRDMA_HANDOFF_N times, each time exported mid-stream and imported on
# the other guest (see handoff.c for what is checked).  The movers hand
# each other the exported state over TCP on their own link, as a
# restored process gets its memory (handoff_blob.c says why not through
# the job directory); the importer keeps each in JOB/handoff-blob.K;
# JOB/handoff-failed ends a wait when the other side gave up.  The
# program's TAP lines are passed on with the guest in front.  After it:
# no peer went Down during the run (a move is not a Down: only the
# session's QP goes), the tenant holds nothing, and the guests wait for
# each other before deleting peers; guest 1 splits each interruption
# by its module's session events (split_gaps).
#
# Every guest adds every other as peer "g<N>", each pair of guests with
# a key of its own, derived from the run's key and the pair's names:
# a session's hand-off secret is derived from the key of the two hosts
# it runs between, and a key several hosts share would let each derive
# the others' (Documentation/design.rst, "Session hand-off").
# Liveness detection is 5 s, as in the other three-guest suites: a TCG
# guest busy with rxe stalls for whole seconds.
#
# TXRDMA_HANDOFF_COUNT (20000): messages in the stream;
# TXRDMA_HANDOFF_N (10): hand-offs; TXRDMA_HANDOFF_BOUND_MS (300): the
# interruption each may cause at the receiver; TXRDMA_HANDOFF_GRACE_MS
# (10000): the session's grace (its end may be away that long);
# TXRDMA_HANDOFF_TRACE=1: every txrdma event, kept as JOB/trace-gN.txt.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}
. "$DIR/mesh.sh"
COUNT=${TXRDMA_HANDOFF_COUNT:-20000}
N=${TXRDMA_HANDOFF_N:-10}
BOUND_MS=${TXRDMA_HANDOFF_BOUND_MS:-300}
GRACE_MS=${TXRDMA_HANDOFF_GRACE_MS:-10000}
SERVICE=${TXRDMA_HANDOFF_SERVICE:-7460}
TIMEOUT=${TXRDMA_HANDOFF_TIMEOUT:-1200}
PROG=$DIR/handoff
TENANT=handoff
CG=/sys/fs/cgroup/txrdma-$TENANT

me=$TXRDMA_GUEST
g=g$me
case "$me" in
0) role=mover first=0 ;;
1) role=receiver ;;
2) role=mover first=1 ;;
*)
	echo "handoff_guest.sh: three guests, not guest $me" >&2
	exit 2
	;;
esac

# pair_key P: a key file for the pair (this guest, guest P), the same
# on both sides: SHA-256 of the run's key and the pair's names, in hex
pair_key() {
	local a=$me b=$1 f
	[ "$a" -lt "$b" ] || { a=$1; b=$me; }
	f=/run/txrdma-handoff-g$a-g$b.key
	(umask 077 && printf '%s handoff g%s-g%s\n' \
		"$(cat "$TXRDMA_PEER_KEY")" "$a" "$b" |
		sha256sum | cut -d' ' -f1 > "$f")
	echo "$f"
}

check "$g: handoff is built (make -C selftests/txrdma handoff)" test -x "$PROG"
# shellcheck disable=SC2154 # mesh.sh sets mesh_others
for p in $mesh_others; do
	check "$g: peer add g$p with a key of this pair's" \
		"$ADMIN" peer add "g$p" addr "$(txrdma_peer_addr "$p")" \
		key "$(pair_key "$p")" pool 2:4 tx 200000 rx 200000 mult 25
done
for p in $mesh_others; do
	check "$g: g$p up with ready QPs" txrdma_wait_until 120 txrdma_peer_ready "g$p"
done
downs0=$(mesh_downs)
mkdir -p "$CG"
check "$g: tenant add $TENANT cgroup /txrdma-$TENANT" \
	"$ADMIN" tenant add "$TENANT" cgroup "/txrdma-$TENANT"

# The sessions' state changes, on the programs' clock (trace_clock
# mono): the receiver's interruptions are split by them below
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo 0 > $T/tracing_on
echo > $T/trace
echo mono > $T/trace_clock
echo 1 > $T/events/txrdma/txrdma_session/enable
echo 1 > $T/events/txrdma/txrdma_conn/enable
if [ "${TXRDMA_HANDOFF_TRACE:-0}" = 1 ]; then
	echo 32768 > $T/buffer_size_kb
	echo 1 > $T/events/txrdma/enable
fi
echo 1 > $T/tracing_on
GAPS=/tmp/handoff-gaps.txt
: > "$GAPS"

# run_prog ARGS...: handoff in the tenant; its TAP lines as ours (they
# name the role), the rest as comments (lastpipe: the loop runs in this
# shell, so its counts stay); the receiver's "listening" lets guest 0 go,
# its interruptions are kept for split_gaps
shopt -s lastpipe
listening() {
	[[ $1 != "# receiver: listening"* ]] || txrdma_signal handoff-listening
	[[ $1 != "# receiver: hand-off "*": interruption "* ]] ||
		echo "$1" >> "$GAPS"
}

# split_gaps: each interruption the receiver measured, split by what
# its module did in it (enum txrdma_sess_ev: 0 the old QP lost, i.e.
# the mover's export closed it; 9 the HANDOFF from the new host, whose
# import began; 3 its RESUME, answered; then the next delivery).  Where
# the time of a slow hand-off goes: the movers (export, the state
# between guests, import) or the two modules.
split_gaps() {
	grep txrdma_session: $T/trace | awk -v gaps="$GAPS" '
	{
		for (i = 1; i < NF; i++)
			if ($(i + 1) == "txrdma_session:")
				ts = $i
		sub(/:$/, "", ts)
		ev = $0
		sub(/.* ev=/, "", ev)
		sub(/ .*/, "", ev)
		n++
		t[n] = ts * 1000
		e[n] = ev + 0
	}
	END {
		while ((getline line < gaps) > 0) {
			if (!match(line, /mono [0-9.]+\.\.[0-9.]+ ms/))
				continue
			span = substr(line, RSTART + 5, RLENGTH - 8)
			split(span, ab, /\.\./)
			a = ab[1] + 0
			b = ab[2] + 0
			k = line
			sub(/.*hand-off /, "", k)
			sub(/:.*/, "", k)
			lost = ho = res = -1
			for (i = 1; i <= n; i++) {
				if (t[i] < a || t[i] > b)
					continue
				if (e[i] == 0 && lost < 0)
					lost = t[i]
				if (e[i] == 9 && ho < 0)
					ho = t[i]
				if (e[i] == 3 && ho >= 0 && res < 0)
					res = t[i]
			}
			if (ho < 0 || res < 0) {
				printf("# g1: hand-off %s: %.1f ms, not split (not the move: events in it: old QP lost %s, HANDOFF %s, RESUME %s)\n",
				       k, b - a, lost >= 0 ? "yes" : "no",
				       ho >= 0 ? "yes" : "no",
				       res >= 0 ? "yes" : "no")
				continue
			}
			# the HANDOFF may come before the old QP is seen lost
			if (lost < 0 || lost > ho)
				lost = ho
			printf("# g1: hand-off %s: %.1f ms = %.1f to the old QP lost (export)%s + %.1f to the HANDOFF (state moved, import) + %.1f to its RESUME + %.1f to the next delivery\n",
			       k, b - a, lost - a,
			       lost == ho ? " or the HANDOFF, first" : "",
			       ho - lost, res - ho, b - res)
		}
	}'
}
rc=0
run_prog() {
	diag "$g: handoff $*"
	TAP_RELAYED_FAILS=0
	timeout -k 10 "$TIMEOUT" "$ADMIN" tenant exec "$TENANT" -- \
		"$PROG" "$@" 2>&1 | tap_relay "$g" listening
	rc=${PIPESTATUS[0]}
	# a crash, or a timeout, without a "not ok" line of its own
	if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
		not_ok "$g handoff $role: exited $rc"
	fi
	# the other guests must not wait for what will not come
	if [ "$rc" -ne 0 ]; then
		txrdma_signal handoff-failed
	fi
}

# guest 0 connects once the receiver listens (the receiver signals at
# its end too, so that a receiver that failed first ends the wait)
wait_listening() {
	local st

	txrdma_wait_file handoff-listening 600
	st=$?
	[ ! -e "$TXRDMA_JOB/handoff-failed" ] || st=1
	check "$g: the receiver g1 listens (and did not fail)" test "$st" = 0
	return "$st"
}

if [ "$role" = receiver ]; then
	run_prog receiver -s "$SERVICE" -n "$COUNT" -k "$N" -g "$GRACE_MS" \
		-b "$BOUND_MS" -j "$TXRDMA_JOB"
	split_gaps
	# a mover that never saw it listen must not wait for ever
	txrdma_signal handoff-listening
elif [ "$first" = 1 ] || wait_listening; then
	# the other mover: blobs go to it over TCP on our link to it
	run_prog mover -p g1 -m "$(txrdma_peer_addr $((2 - me)))" \
		-j "$TXRDMA_JOB" -f "$first" -s "$SERVICE" \
		-n "$COUNT" -k "$N" -g "$GRACE_MS" -G "$me"
fi
shopt -u lastpipe
echo 0 > $T/tracing_on
[ "${TXRDMA_HANDOFF_TRACE:-0}" != 1 ] || cp $T/trace "$TXRDMA_JOB/trace-$g.txt"
# the record: this guest's session and connection events
grep -E "txrdma_(session|conn):" $T/trace |
	sed -E 's/^ *([^ ]+ +){3}//; s/^/# '"$g"' trace: /'

# what the module counted for the tenant's sessions (traffic: resumes,
# frames sent again), for the record
"$ADMIN" tenant show "$TENANT" 2>&1 | sed 's/^/# /'
check "$g: no peer went Down during the run" test "$(mesh_downs)" = "$downs0"
tenant_idle() {
	[ "$(txrdma_tenant_usage "$TENANT")" = "0 0 0" ]
}
check "$g: tenant $TENANT holds no QP, endpoint or pinned byte" \
	txrdma_wait_until 30 tenant_idle
diag "$g: tenant $TENANT usage (qps endpoints pinned): $(txrdma_tenant_usage "$TENANT")"
check "$g: tenant del $TENANT (without force)" "$ADMIN" tenant del "$TENANT"
rmdir "$CG" 2>/dev/null
mesh_down handoff-done
tap_done
