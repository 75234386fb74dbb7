#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 20 (TXRDMA_LOAD_CYCLES) load/unload cycles of txrdma.ko with RDMA
# devices deleted and added in between (and, in some cycles, while the
# module loads), checking
# each time that the module's view follows the RDMA core's, that add and
# delete events reach a listener, and that unload is refused only while
# /dev/txrdma is open.  Runs as root in a guest (needs TXRDMA_KO).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
KO=${TXRDMA_KO:?TXRDMA_KO must name txrdma.ko}
CYCLES=${TXRDMA_LOAD_CYCLES:-${CYCLES:-20}}
# odd and even cycles differ: at least one of each
[[ "$CYCLES" =~ ^[0-9]+$ ]] && [ "$CYCLES" -ge 2 ] || CYCLES=2
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

# the first rxe device and its netdev: cycled below, restored at the end
DEV=$(rdma -j link show | jq -r '.[0].ifname')
ORIG=$DEV
NETDEV=$(rdma -j link show | jq -r '.[0].netdev')
diag "cycling $DEV on $NETDEV"

names() { "$ADMIN" -j dev show | jq -r '.[].name' | sort | xargs; }
core_names() { ls /sys/class/infiniband | sort | xargs; }

# Start a JSON monitor and prove it is subscribed: toggle a device until
# the monitor prints the toggle (no sleeping on a guess).
start_monitor() {
	local out=$1 tries
	"$ADMIN" -j monitor > "$out" &
	MON=$!
	for tries in 1 2 3 4 5 6 7 8 9 10; do
		"$ADMIN" dev set "$2" enabled off
		"$ADMIN" dev set "$2" enabled on
		wait_for "$out" '"event":"dev_set"' 1 && return 0
	done
	return 1
}

lsmod | grep -q '^txrdma ' || insmod "$KO"
for i in $(seq 1 "$CYCLES"); do
	rmmod txrdma
	check "cycle $i: rmmod" test ! -e /sys/module/txrdma
	err=$("$ADMIN" dev show 2>&1); rc=$?
	check "cycle $i: admin says module not loaded (rc $rc)" \
		eval '[ $rc -eq 1 ] && grep -q "not loaded" <<<"$err"'

	# delete the device while the module is out; in odd cycles add it
	# back while the module is loading, in even cycles after
	new=rxc$i
	[ "$i" -eq "$CYCLES" ] && new=$ORIG
	rdma link delete "$DEV"
	if [ $((i % 2)) -eq 1 ]; then
		rdma link add "$new" type rxe netdev "$NETDEV" &
		insmod "$KO"
		wait $!
		check "cycle $i: insmod during rdma link add" test -d /sys/module/txrdma
		check "cycle $i: module sees exactly the core's devices" \
			test "$(names)" = "$(core_names)"
	else
		insmod "$KO"
		check "cycle $i: insmod" test -d /sys/module/txrdma
		any=$(core_names | awk '{print $1}')
		if [ -n "$any" ]; then
			start_monitor "$TMP/mon$i" "$any"
			check "cycle $i: monitor subscribed" test $? -eq 0
		fi
		rdma link add "$new" type rxe netdev "$NETDEV"
		[ -n "$any" ] && check "cycle $i: add event for $new" \
			wait_for "$TMP/mon$i" "\"event\":\"dev_add\".*\"dev\":\"$new\"" 10
		check "cycle $i: dev show lists $new" \
			eval '"$ADMIN" -j dev show "$new" | jq -e ".[0].name == \"$new\"" >/dev/null'
		check "cycle $i: module sees exactly the core's devices" \
			test "$(names)" = "$(core_names)"
		if [ -n "$any" ]; then
			# delete and re-add under the listener
			rdma link delete "$new"
			check "cycle $i: del event for $new" \
				wait_for "$TMP/mon$i" "\"event\":\"dev_del\".*\"dev\":\"$new\"" 10
			check "cycle $i: gone from dev show" \
				test "$(names)" = "$(core_names)"
			rdma link add "$new" type rxe netdev "$NETDEV"
			kill "$MON"; wait "$MON" 2>/dev/null
		fi
	fi
	DEV=$new
done

exec 9</dev/txrdma
rmmod txrdma 2>/dev/null
check "rmmod refused while /dev/txrdma is open" test -d /sys/module/txrdma
check "module still answers while busy" eval '"$ADMIN" dev show >/dev/null'
exec 9<&-
rmmod txrdma
check "rmmod after close" test ! -d /sys/module/txrdma
insmod "$KO"
check "final: refcount 0" test "$(cat /sys/module/txrdma/refcnt)" = 0
check "final: $DEV restored and ACTIVE" \
	eval '"$ADMIN" -j dev show "$DEV" | jq -e ".[0].ports[0].state == \"ACTIVE\"" >/dev/null'
check "final: module sees exactly the core's devices" \
	test "$(names)" = "$(core_names)"
tap_done
