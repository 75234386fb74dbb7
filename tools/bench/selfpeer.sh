# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared by the one-guest benchmarks (msg_bench.sh, hop_breakdown.sh):
# the guest is its own txrdma peer "self" over rxe loopback, and the
# benchmark runs in a tenant bound to a cgroup of its own.  Source it
# after setting ADMIN (txrdma-admin) and defining die MESSAGE; then
#
#   selfpeer_up CG_NAME TENANT PEER_ATTRS
#	finds the guest's ACTIVE rxe device, its netdev and that
#	netdev's IPv4 address (sets RXE, NETDEV, ME), moves the shell
#	into cgroup CG_NAME (sets CG), adds tenant TENANT for it and the
#	peer self with PEER_ATTRS, and waits until the peer is up with a
#	ready QP (dies, saying why, otherwise);
#   selfpeer_down	undoes it (for an EXIT trap; quiet, idempotent);
#   selfpeer_ready	the peer is up with a ready QP in its pool;
#   selfpeer_prereqs SCRIPT TOOL...
#	dies unless it runs as root in a guest with txrdma.ko loaded,
#	$PP (msg_pingpong) and $ADMIN built and every TOOL on PATH.
#
# The key is $TXRDMA_PEER_KEY (txrdma-vm gives every guest one).

RXE=''
NETDEV=''
ME=''
CG=''
SELFPEER_TENANT=''

selfpeer_prereqs() {
	local script=$1 t

	shift
	[ "$(id -u)" -eq 0 ] || die "needs root (run it in a guest: tools/vm/txrdma-vm run --bench --smp 2 -- $script)"
	[ -d /sys/module/txrdma ] || die "txrdma.ko is not loaded"
	[ -x "$PP" ] || die "no $PP (make -C tools/bench)"
	[ -x "$ADMIN" ] || die "no $ADMIN (make tools)"
	for t in "$@"; do
		command -v "$t" >/dev/null || die "needs $t"
	done
}

selfpeer_ready() {
	"$ADMIN" -j peer show self 2>/dev/null |
		jq -e '.[0] | .state == "up" and .pool.ready >= 1' >/dev/null
}

selfpeer_up() {	# CG_NAME TENANT PEER_ATTRS
	local attrs=$3

	RXE=$(rdma -j link show | jq -r '[.[] | select(.state == "ACTIVE" and .netdev)][0].ifname // empty')
	NETDEV=$(rdma -j link show | jq -r --arg d "$RXE" '.[] | select(.ifname == $d) | .netdev')
	ME=$(ip -j -4 addr show dev "$NETDEV" 2>/dev/null |
		jq -r '[.[0].addr_info[] | select(.family == "inet")][0].local // empty')
	if [ -z "$RXE" ] || [ -z "$ME" ]; then
		die "no ACTIVE rxe device with an IPv4 address on its netdev"
	fi
	CG=/sys/fs/cgroup/$1
	SELFPEER_TENANT=$2
	mkdir -p "$CG" || die "cannot create cgroup $CG"
	echo $$ > "$CG/cgroup.procs" || die "cannot enter cgroup $CG"
	"$ADMIN" tenant add "$2" cgroup "/$1" >/dev/null ||
		die "txrdma-admin tenant add $2 failed"
	# shellcheck disable=SC2086 # attrs is split on purpose
	"$ADMIN" peer add self addr "$ME" key "$TXRDMA_PEER_KEY" $attrs ||
		die "txrdma-admin peer add self addr $ME key $TXRDMA_PEER_KEY $attrs failed"
	txrdma_wait_until 60 selfpeer_ready ||
		die "peer self ($ME) not up with a ready QP within 60 s: $("$ADMIN" -j peer show self 2>&1)"
}

selfpeer_down() {
	"$ADMIN" peer del self >/dev/null 2>&1
	if [ -n "$SELFPEER_TENANT" ]; then
		"$ADMIN" tenant del "$SELFPEER_TENANT" >/dev/null 2>&1 ||
			"$ADMIN" tenant del "$SELFPEER_TENANT" force >/dev/null 2>&1
	fi
	echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null
	[ -z "$CG" ] || rmdir "$CG" 2>/dev/null
}
