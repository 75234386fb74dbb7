# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by guest scripts of multi-guest suites (after tap.sh and
# tools/vm/guestlib.sh): every guest adds every other as peer "g<N>"
# and waits until each session is Up with its pool's minimum of ready
# QPs, so that endpoint pairs can be taken at once.
#
#   mesh_up POOL [BFD words...]   add all other guests, wait for Up
#   mesh_downs                    Downs of all our peers so far (a sum)
#   mesh_barrier TAG              signal TAG, wait until every guest
#                                 signalled it
#   mesh_down TAG                 wait until every guest signalled TAG,
#                                 then delete our peers (so that no
#                                 guest sees another's deletion as a
#                                 Down while it still runs)
#   mesh_tenant NAME              move this shell into cgroup
#                                 /txrdma-NAME and add tenant NAME for
#                                 it: processes started from here on
#                                 may open /dev/txrdma
#   mesh_tenant_del               delete that tenant (after its
#                                 processes ended)
#
# ADMIN names txrdma-admin; TXRDMA_PEER_KEY is the key file the VM
# runner gives every guest.

MESH_ADMIN=${ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}
mesh_me=$TXRDMA_GUEST
mesh_others=$(seq 0 $((TXRDMA_NGUESTS - 1)) | grep -vx "$mesh_me")

_mesh_ready() {
	[ "$("$MESH_ADMIN" -j peer show "$1" |
		jq -r '.[0] | "\(.state) \(.pool.ready >= .pool.min)"')" = "up true" ]
}

mesh_up() {
	local pool=$1 p
	shift
	for p in $mesh_others; do
		check "g$mesh_me: peer add g$p pool $pool $*" \
			"$MESH_ADMIN" peer add "g$p" addr "$(txrdma_peer_addr "$p")" \
			key "$TXRDMA_PEER_KEY" pool "$pool" "$@"
	done
	for p in $mesh_others; do
		check "g$mesh_me: g$p up with ready QPs" \
			txrdma_wait_until 120 _mesh_ready "g$p"
	done
}

mesh_downs() {
	local p n=0 d
	for p in $mesh_others; do
		d=$("$MESH_ADMIN" -j peer show "g$p" | jq -r '.[0].downs')
		n=$((n + d))
	done
	echo "$n"
}

mesh_barrier() {
	local tag=$1 p
	txrdma_signal "g$mesh_me-$tag"
	for p in $mesh_others; do
		check "g$mesh_me: g$p reached $tag" \
			txrdma_wait_file "g$p-$tag" 900
	done
}

mesh_down() {
	local p
	mesh_barrier "$1"
	for p in $mesh_others; do
		check "g$mesh_me: peer del g$p" "$MESH_ADMIN" peer del "g$p"
	done
}

mesh_tenant_name=''

mesh_tenant() {
	mkdir -p "/sys/fs/cgroup/txrdma-$1" &&
		echo $$ > "/sys/fs/cgroup/txrdma-$1/cgroup.procs" &&
		check "g$mesh_me: tenant add $1" \
			"$MESH_ADMIN" tenant add "$1" cgroup "/txrdma-$1" &&
		mesh_tenant_name=$1
}

mesh_tenant_del() {
	[ -n "$mesh_tenant_name" ] || return 0
	check "g$mesh_me: tenant del $mesh_tenant_name" \
		"$MESH_ADMIN" tenant del "$mesh_tenant_name"
	echo $$ > /sys/fs/cgroup/cgroup.procs
	rmdir "/sys/fs/cgroup/txrdma-$mesh_tenant_name" 2>/dev/null
	mesh_tenant_name=''
}
