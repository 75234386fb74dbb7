#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "vread" suite (run_vm_tests.py, three guests):
# consistent one-sided reads of versioned records between hosts.
#
#   vread_guest.sh
#
# Every guest adds every other as peer "g<N>" (mesh.sh) and makes a
# tenant for the program.  Guest 0 runs "vread_guest writer": a table
# of 1,000 versioned records, exported READ-only to each reader, that
# it rewrites for TXRDMA_VREAD_SECONDS (default 60) and until every
# reader finished.  The other guests wait until it listens (job
# directory), then run "vread_guest reader g0" for as long: records
# READ one-sided through lib/txn's txn_vread (half of them among the 8
# the writer rewrites most, so that reads race writes), one at a time
# and 8 at once, each checked byte for byte (see vread_guest.c).  The
# program's TAP lines are passed on with the guest and role in front.
# After it, no session may have gone Down meanwhile and the tenant must
# hold nothing; the guests wait for each other before deleting peers.
#
# Liveness detection is 5 s: a TCG guest that rewrites records as fast
# as it can, or READs them, stalls for whole seconds.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}
. "$DIR/mesh.sh"
SECONDS_RUN=${TXRDMA_VREAD_SECONDS:-60}
SERVICE=${TXRDMA_VREAD_SERVICE:-7101}
POOL=${TXRDMA_VREAD_POOL:-2:8}
# readers may finish up to 10 minutes after the writer's time
TIMEOUT=$((SECONDS_RUN + 900))
PROG=$DIR/vread_guest
TENANT=vread
CG=/sys/fs/cgroup/txrdma-vread

me=$TXRDMA_GUEST
g=g$me
readers=$((TXRDMA_NGUESTS - 1))
if [ "$me" = 0 ]; then role=writer; else role=reader; fi

check "$g: vread_guest is built" test -x "$PROG"
mesh_up "$POOL" tx 200000 rx 200000 mult 25
downs0=$(mesh_downs)
mkdir -p "$CG"
check "$g: tenant add $TENANT cgroup /txrdma-vread" \
	"$ADMIN" tenant add "$TENANT" cgroup /txrdma-vread

# run_prog ARGS...: vread_guest in the tenant; its TAP lines as ours,
# the rest as comments (lastpipe: the loop runs in this shell)
shopt -s lastpipe
# the writer's "listening" lets the readers go
listening() {
	[[ $1 != "# vread writer: listening"* ]] || txrdma_signal vread-listening
}
run_prog() {
	local rc

	TAP_RELAYED_FAILS=0
	timeout -k 10 "$TIMEOUT" "$ADMIN" tenant exec "$TENANT" -- \
		"$PROG" "$@" 2>&1 | tap_relay "$g vread $role" listening
	rc=${PIPESTATUS[0]}
	# a crash, or a timeout, without a "not ok" line of its own
	if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
		not_ok "$g vread $role: exited $rc"
	fi
}

if [ "$role" = writer ]; then
	run_prog writer "$SERVICE" "$SECONDS_RUN" "$readers"
	# readers that never saw it listen must not wait for ever
	txrdma_signal vread-listening
else
	if check "$g: the writer g0 listens" \
		txrdma_wait_file vread-listening 600; then
		run_prog reader g0 "$SERVICE" "$SECONDS_RUN"
	fi
fi

check "$g: no session went Down during the run" \
	test "$(mesh_downs)" = "$downs0"
tenant_idle() {
	[ "$("$ADMIN" -j tenant show "$TENANT" |
		jq -r '.[0] | "\(.usage.qps) \(.usage.endpoints) \(.usage.pinned_bytes)"')" = "0 0 0" ]
}
check "$g: tenant $TENANT holds no QP, endpoint or pinned byte" \
	txrdma_wait_until 30 tenant_idle
"$ADMIN" tenant show "$TENANT" | sed 's/^/# /'
check "$g: tenant del $TENANT" "$ADMIN" tenant del "$TENANT"
rmdir "$CG" 2>/dev/null
mesh_down vread-done
tap_done
