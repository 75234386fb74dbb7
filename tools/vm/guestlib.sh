# SPDX-License-Identifier: GPL-2.0
# Helpers for commands that run inside txrdma-vm guests.  Source it:
#   . "$TXRDMA_ROOT/tools/vm/guestlib.sh"
# Rendezvous files live in $TXRDMA_JOB, which every guest and the host see.
# All waits are bounded polls; they return 1 on timeout.

# txrdma_nap SECONDS: sleep without forking.  Polling loops call this
# ten times a second; a fork+exec of sleep(1) from the 9p root costs a
# TCG guest tens of milliseconds of CPU each, enough to stall its timers
# (and so its liveness probes) for the whole of a long wait.  bash waits
# on a private fifo that nobody writes; other shells (this file is also
# sourced by sh) fall back to sleep(1).
txrdma_nap() {
	if [ -z "${BASH_VERSION:-}" ]; then
		sleep "$1"
		return
	fi
	if [ -z "${_txrdma_napfd:-}" ]; then
		_txrdma_napfifo=$(mktemp -u /tmp/txrdma-nap.XXXXXX)
		mkfifo "$_txrdma_napfifo" || { sleep "$1"; return; }
		# opened read-write, so it never sees EOF; eval: bash syntax
		eval 'exec {_txrdma_napfd}<>"$_txrdma_napfifo"'
		rm -f "$_txrdma_napfifo"
	fi
	read -r -t "$1" -u "$_txrdma_napfd" _ || :
}

# txrdma_signal NAME [TEXT]: atomically create $TXRDMA_JOB/NAME.
txrdma_signal() {
	printf '%s\n' "${2:-$TXRDMA_GUEST}" > "$TXRDMA_JOB/.$1.tmp.$$" &&
		mv "$TXRDMA_JOB/.$1.tmp.$$" "$TXRDMA_JOB/$1"
}

# txrdma_wait_file NAME [TIMEOUT_S]: wait until $TXRDMA_JOB/NAME exists.
txrdma_wait_file() {
	_n=$(( ${2:-60} * 10 ))
	while [ $_n -gt 0 ]; do
		[ -e "$TXRDMA_JOB/$1" ] && return 0
		txrdma_nap 0.1
		_n=$((_n - 1))
	done
	echo "txrdma_wait_file: $1 did not appear within ${2:-60}s" >&2
	return 1
}

# txrdma_meet NAME ME OTHER [TIMEOUT_S]: create NAME-ME, then wait until
# the other guest has created NAME-OTHER (two guests that each checked
# what they must before either tears down what the other checks).
txrdma_meet() {
	txrdma_signal "$1-$2" && txrdma_wait_file "$1-$3" "${4:-60}"
}

# txrdma_wait_until TIMEOUT_S CMD...: poll CMD until it succeeds.
txrdma_wait_until() {
	_n=$(( $1 * 10 ))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		txrdma_nap 0.1
		_n=$((_n - 1))
	done
	echo "txrdma_wait_until: '$*' still failing" >&2
	return 1
}

_txrdma_tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# txrdma_wait_tcp_listen PORT [TIMEOUT_S]: a TCP listener on PORT (e.g.
# perftest without -R exchanges its parameters over TCP port 18515).
txrdma_wait_tcp_listen() {
	txrdma_wait_until "${2:-60}" _txrdma_tcp_listening "$1"
}

_txrdma_cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr [^ ]*:$1\b"
}

# txrdma_wait_cm_listen PORT [TIMEOUT_S]: an rdma_cm listener on PORT
# (perftest -R uses 18515, rping 7174).
txrdma_wait_cm_listen() {
	txrdma_wait_until "${2:-60}" _txrdma_cm_listening "$1"
}

# txrdma_port_state RXE: print the state of port 1 of RXE (ACTIVE, DOWN, ...).
txrdma_port_state() {
	rdma link show "$1/1" | sed -n 's/.* state \([A-Z_]*\) .*/\1/p'
}

# txrdma_peer_addr PEER [K]: this guest's peer address on its link to
# guest PEER (K: its K-th other link there, when the cluster has paths).
txrdma_peer_addr() {
	awk -v g="$TXRDMA_GUEST" -v p="$1" -v k="${2:-0}" \
		'$2 == g && $12 == p && k-- == 0 { print $14 }' \
		"$TXRDMA_JOB/topology"
}

# txrdma_my_addr PEER [K]: this guest's own address on its link to PEER.
txrdma_my_addr() {
	awk -v g="$TXRDMA_GUEST" -v p="$1" -v k="${2:-0}" \
		'$2 == g && $12 == p && k-- == 0 { sub("/.*", "", $10); print $10 }' \
		"$TXRDMA_JOB/topology"
}

# txrdma_rxe_to PEER [K]: name of the rxe device on the link to PEER.
txrdma_rxe_to() {
	awk -v g="$TXRDMA_GUEST" -v p="$1" -v k="${2:-0}" \
		'$2 == g && $12 == p && k-- == 0 { print $18 }' \
		"$TXRDMA_JOB/topology"
}

# txrdma_local_rdma: this host's first ACTIVE RDMA device with a netdev
# and that netdev's first IPv4 address, into RXE, NETDEV, ME and PREFIX
# (empty when there is none).  No process substitution: guests have no
# /dev/fd.
txrdma_local_rdma() {
	local addr

	RXE=$(rdma -j link show | jq -r '[.[] | select(.state == "ACTIVE" and .netdev)][0].ifname // empty')
	NETDEV=$(rdma -j link show | jq -r --arg d "$RXE" '.[] | select(.ifname == $d) | .netdev')
	addr=$(ip -j -4 addr show dev "$NETDEV" 2>/dev/null |
		jq -r '[.[0].addr_info[] | select(.family == "inet")][0] // empty | "\(.local) \(.prefixlen)"')
	read -r ME PREFIX <<<"$addr"
}

# txrdma_peer_ready NAME: peer NAME is Up with at least its pool's
# minimum of ready QPs (txrdma-admin's view; $TXRDMA_ADMIN or the tree's).
txrdma_peer_ready() {
	[ "$("${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}" \
		-j peer show "$1" |
		jq -r '.[0] | "\(.state) \(.pool.ready >= .pool.min)"')" = "up true" ]
}

# txrdma_tenant_usage NAME: "QPS ENDPOINTS PINNED_BYTES" tenant NAME holds.
txrdma_tenant_usage() {
	"${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}" \
		-j tenant show "$1" |
		jq -r '.[0].usage | "\(.qps) \(.endpoints) \(.pinned_bytes)"'
}
