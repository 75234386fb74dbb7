#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "rogue" suite (run_vm_tests.py, one guest): checks
# that what the attacker needs is there - failing, never skipping, when
# it is not - then runs rogue_peer (a hostile peer against the module's
# rdma_cm port; rogue_peer.c says what it asserts) and passes its TAP
# lines on as ours, its summary line ("rogue: ...") as a comment.
#
# TXRDMA_ADMIN may name another txrdma-admin (e.g. today's main's, for
# a module without keys); TXRDMA_ROGUE_TIMEOUT bounds the program
# (default 3000 s).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
TIMEOUT=${TXRDMA_ROGUE_TIMEOUT:-3000}
KEY=${TXRDMA_PEER_KEY:-/run/txrdma-peer.key}

check "txrdma.ko is loaded (/dev/txrdma)" test -c /dev/txrdma
check "rdma_cm port $(cat /sys/module/txrdma/parameters/port 2>/dev/null)" \
	test -r /sys/module/txrdma/parameters/port
check "cluster key file $KEY" test -s "$KEY"
check "librdmacm and libibverbs" \
	sh -c 'ldconfig -p | grep -q librdmacm.so.1 && ldconfig -p | grep -q libibverbs.so.1'
check "rogue_peer is built (make selftests)" test -x "$DIR/rogue_peer"
check "an ACTIVE RDMA link" \
	sh -c 'rdma -j link show | jq -e "[.[] | select(.state == \"ACTIVE\")] | length > 0" >/dev/null'

shopt -s lastpipe
TXRDMA_PEER_KEY=$KEY timeout "$TIMEOUT" "$DIR/rogue_peer" 2>&1 |
	tap_relay rogue_peer
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ] && [ "$TAP_RELAYED_FAILS" -eq 0 ]; then
	not_ok "rogue_peer: exited $rc"
fi
check "no rdma_cm id of the attacker left" \
	txrdma_wait_until 30 sh -c '[ "$(rdma -j res show cm_id | jq "[.[] | select(.comm == \"rogue_peer\")] | length")" = 0 ]'
tap_done
