# SPDX-License-Identifier: GPL-2.0-only
# Shell helpers of the adversarial suites' guest scripts (ep_race,
# pair_churn, listen_flood, cross_tenant, hostile).  Source it after
# tap.sh and guestlib.sh.  Each script makes its tenants and peers with
# txrdma-admin, runs its programs inside the tenants' cgroups, and ends
# with what the module must have given back: every tenant's QPs,
# endpoints and pinned bytes at 0, "tenant del" without force, every
# peer deleted, and rmmod.  Nothing here waits blindly: every wait is
# a bounded poll of the module's own report.

ADMIN=${TXRDMA_ADMIN:-$TXRDMA_ROOT/tools/txrdma-admin/txrdma-admin}
CGROOT=/sys/fs/cgroup
# liveness detection of 5 s: a busy TCG guest stalls for whole
# seconds, and a flap would fail endpoints for a reason not theirs
AT_BFD="tx 200000 rx 200000 mult 25"
AT_TENANTS=""

# at_wait_until SECS CMD...: poll CMD until it succeeds, SECS of wall
# time at most (txrdma_wait_until counts naps, and each txrdma-admin |
# jq from the 9p root costs a busy TCG guest most of a second)
at_wait_until() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "at_wait_until: '$*' still failing" >&2
			return 1
		fi
		txrdma_nap 0.2
	done
}

# at_pshow NAME JQ: a field of peer NAME
at_pshow() {
	at_admin -j peer show "$1" | jq -r ".[0] | $2"
}

# Up, with at least the pool's minimum of ready QPs
at_peer_ready() {
	[ "$(at_pshow "$1" '"\(.state) \(.pool.ready >= .pool.min)"')" = "up true" ]
}

# at_self_addr: this guest's own IPv4 address (its first link)
at_self_addr() {
	awk -v g="$TXRDMA_GUEST" '$2 == g { sub("/.*", "", $10); print $10; exit }' \
		"$TXRDMA_JOB/topology"
}

# at_peer_add NAME ADDR POOL: add, wait until Up with ready QPs
at_peer_add() {
	# shellcheck disable=SC2086 # AT_BFD is split into words on purpose
	check "peer add $1 ($2) pool $3 $AT_BFD" \
		"$ADMIN" peer add "$1" addr "$2" key "$TXRDMA_PEER_KEY" \
		pool "$3" $AT_BFD &&
		check "peer $1 up with ready QPs" \
			at_wait_until 120 at_peer_ready "$1"
}

# at_tenant_add NAME [LIMITS...]: cgroup /at-NAME and tenant NAME on it
at_tenant_add() {
	local name=$1
	shift
	mkdir -p "$CGROOT/at-$name"
	AT_TENANTS="$AT_TENANTS $name"
	check "tenant add $name cgroup /at-$name $*" \
		"$ADMIN" tenant add "$name" cgroup "/at-$name" "$@"
}

# at_admin ARGS...: txrdma-admin, bounded (a module that oopsed may
# leave a lock held: the test then fails instead of hanging the guest)
at_admin() {
	timeout -k 5 60 "$ADMIN" "$@"
}

# at_usage NAME: "qps endpoints pinned_bytes" in use by tenant NAME
at_usage() {
	at_admin -j tenant show "$1" |
		jq -r '.[0].usage | "\(.qps) \(.endpoints) \(.pinned_bytes)"'
}

at_usage_zero() {
	[ "$(at_usage "$1")" = "0 0 0" ]
}

# at_in_tenant NAME CMD...: run CMD (exec'd) inside tenant NAME's cgroup
at_in_tenant() {
	local cg=$CGROOT/at-$1
	shift
	bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$cg" "$@"
}

# at_tap PREFIX CMD...: run CMD, pass its TAP lines on as ours with
# PREFIX, the rest as comments; a non-zero exit without a "not ok" of
# its own is a failure too.  AT_RC: its exit status.
at_tap() {
	local prefix=$1 line failed=0
	shift
	shopt -s lastpipe
	"$@" 2>&1 |
		while IFS= read -r line; do
			if [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ (-\ )?(.*)$ ]]; then
				if [ "${BASH_REMATCH[1]}" = ok ]; then
					ok "$prefix: ${BASH_REMATCH[3]}"
				else
					not_ok "$prefix: ${BASH_REMATCH[3]}"
					failed=$((failed + 1))
				fi
			elif [[ $line =~ ^1\.\.[0-9]+$ ]]; then
				:
			elif [[ $line == \#* ]]; then
				echo "$line"
			else
				echo "# $line"
			fi
		done
	AT_RC=${PIPESTATUS[0]}
	shopt -u lastpipe
	if [ "$AT_RC" -ne 0 ] && [ "$failed" -eq 0 ]; then
		not_ok "$prefix: exited $AT_RC"
	fi
}

# at_tap_file PREFIX FILE STATUS: at_tap of a program that ran already
# (in the background), from its output FILE and exit STATUS
at_tap_file() {
	# shellcheck disable=SC2016 # expanded by that bash, not this one
	at_tap "$1" bash -c 'cat "$1"; exit "$2"' _ "$2" "$3"
}

# at_tenant_released NAME: usage back to 0 (bounded), del without force
at_tenant_released() {
	check "tenant $1: qps, endpoints, pinned bytes back to 0 once its processes are gone" \
		at_wait_until 30 at_usage_zero "$1"
	diag "tenant $1 usage (qps endpoints pinned): $(at_usage "$1")"
	check "tenant del $1 (without force)" at_admin tenant del "$1"
	rmdir "$CGROOT/at-$1" 2>/dev/null
	AT_TENANTS=${AT_TENANTS/ $1/}
}

# at_finish: release every tenant left, delete every peer, rmmod
at_finish() {
	local t p
	for t in $AT_TENANTS; do
		at_tenant_released "$t"
	done
	for p in $(at_admin -j peer show | jq -r '.[].name'); do
		at_admin peer show "$p" | sed 's/^/# /'
		check "peer del $p" at_admin peer del "$p"
	done
	diag "module refcount: $(cat /sys/module/txrdma/refcnt)"
	check "rmmod txrdma" timeout -k 5 60 rmmod txrdma
	check "the module is gone" test ! -e /sys/module/txrdma
}
