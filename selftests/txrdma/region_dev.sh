#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Regions and devices: a region is registered on every device (dev show
# counts the MRs); deleting the device under live, mapped regions drops
# their MRs cleanly while the memory stays intact for the process; a
# device added later registers new regions.  Runs as root in a guest.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
CG=/sys/fs/cgroup/txrdma-rd
DEV=$(rdma -j link show | jq -r '.[0].ifname')
NETDEV=$(rdma -j link show | jq -r '.[0].netdev')
TMP=$(mktemp -d)
mrs() { "$ADMIN" -j dev show "$1" | jq -r '.[0].mrs'; }
pinned() { "$ADMIN" -j tenant show rd | jq -r '.[0].usage.pinned_bytes'; }

mkdir -p "$CG"
"$ADMIN" tenant add rd cgroup /txrdma-rd pinned 64M
check "device can register" \
	test "$("$ADMIN" -j dev show "$DEV" | jq -r '.[0].can_register')" = true
base=$(mrs "$DEV")
check "no registrations before ($base)" test "$base" = 0

mkfifo "$TMP/in"
# the holder runs in the tenant's cgroup; fd 3 keeps the fifo open
( echo $BASHPID > "$CG/cgroup.procs"; exec "$DIR/region_hold" 3 < "$TMP/in" > "$TMP/out" ) &
HOLD=$!
exec 3> "$TMP/in"
wait_for "$TMP/out" '^(ready|error)' 30
diag "holder: $(head -1 "$TMP/out")"
check "holder made 3 regions" grep -q '^ready [0-9]* [0-9]* [0-9]*$' "$TMP/out"
check "3 registrations on $DEV" test "$(mrs "$DEV")" = 3
check "tenant charged 6 MiB" test "$(pinned)" = $((6 << 20))

rdma link delete "$DEV"
check "$DEV gone from dev show" \
	test "$("$ADMIN" -j dev show | jq '[.[] | select(.name == "'"$DEV"'")] | length')" = 0
echo check >&3
wait_for "$TMP/out" '^(ok|bad)$' 30
check "mapped memory intact after the device went" grep -qx ok "$TMP/out"
check "tenant still charged 6 MiB" test "$(pinned)" = $((6 << 20))

rdma link add "$DEV" type rxe netdev "$NETDEV"
check "new $DEV has no registrations" test "$(mrs "$DEV")" = 0
echo create >&3
wait_for "$TMP/out" '^(created|error)' 30
check "a new region registers on the new device" test "$(mrs "$DEV")" = 1
echo quit >&3
exec 3>&-
wait $HOLD
check "holder exited 0" test $? -eq 0
check "registrations released" test "$(mrs "$DEV")" = 0
check "tenant back to 0 pinned" test "$(pinned)" = 0
"$ADMIN" tenant del rd
rmdir "$CG"
rm -rf "$TMP"
tap_done
