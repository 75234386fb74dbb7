#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Endpoint and tenant statistics through txrdma-admin (TXRDMA_CMD_EP_GET
# and the TRAFFIC nest of TXRDMA_CMD_TENANT_GET), on a host where no
# process holds an endpoint: "ep show" is empty in every form, an unknown
# endpoint is refused with a readable reason, a fresh tenant's traffic
# has every counter at 0, and unprivileged users read their own
# tenant's, not another's.
# The checks of endpoints that carry traffic build on ep_keys_ok and
# traffic_keys_ok below.
#
# Runs as root in a guest with txrdma.ko loaded and cgroup2 mounted at
# /sys/fs/cgroup.  The test cgroup is /sys/fs/cgroup/txrdma-eptest and
# the test tenant ttep; both are removed at the end.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
CGROOT=/sys/fs/cgroup
CGDIR=txrdma-eptest
TENANT=ttep
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# the counters of an endpoint's "stats" and of a tenant's "traffic"
STAT_KEYS='["tx_msgs","tx_bytes","rx_msgs","rx_bytes","rw_ops","rw_bytes",
	"credit_stalls","credit_updates","slot_stalls","throttled",
	"err_crc","err_seq","err_proto","err_qp","err_sqe",
	"tx_coalesced","rx_batches","tx_resent","resumes","path_moves"]'
# the keys of an endpoint object of "ep show -j"
EP_KEYS='["id","tenant","peer","state","service","peer_ep","qpn","error",
	"stats"]'
EP_STATES='["plain","connecting","connected","rejected","closed"]'

skip_all() {
	echo "1..0 # SKIP $*"
	exit 4
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null || skip_all "needs jq"
[ -x "$ADMIN" ] || skip_all "no $ADMIN (make -C tools/txrdma-admin)"
[ -d /sys/module/txrdma ] || skip_all "txrdma.ko is not loaded"
[ "$(stat -f -c %T "$CGROOT" 2>/dev/null)" = cgroup2fs ] ||
	skip_all "no cgroup2 at $CGROOT"

# jq -e without the output: a filter as a check
jqe() {
	jq -e "$@" >/dev/null
}

# run CMD...: sets rc, out (stdout) and err (stderr)
run() {
	local f
	f=$(mktemp)
	out=$("$@" 2>"$f")
	rc=$?
	err=$(cat "$f")
	rm -f "$f"
}

# ep_keys_ok < JSON array of "ep show -j": every object has exactly the
# endpoint keys with the right types, and a full "stats" object
ep_keys_ok() {
	# shellcheck disable=SC2016 # jq's variables
	jqe --argjson k "$EP_KEYS" --argjson s "$STAT_KEYS" \
		--argjson st "$EP_STATES" '
		type == "array" and all(.[];
			((keys - ["error_name"]) | sort) == ($k | sort) and
			(.id | type == "number" and . > 0) and
			(.tenant | type == "string") and
			(.peer | type == "string") and
			(.state as $x | $st | index($x) != null) and
			([.service, .peer_ep, .qpn, .error] |
			 all(type == "number")) and
			((.error == 0) == (has("error_name") | not)) and
			(.stats | (keys | sort) == ($s | sort) and
			 all(.[]; type == "number" and . >= 0)))'
}

# traffic_keys_ok < one tenant object: "traffic" holds every counter
traffic_keys_ok() {
	# shellcheck disable=SC2016 # jq's variables
	jqe --argjson s "$STAT_KEYS" '
		(.traffic | type == "object") and
		(.traffic | keys | sort) == ($s | sort) and
		(.traffic | all(.[]; type == "number" and . >= 0))'
}

cleanup() {
	"$ADMIN" tenant del "$TENANT" force 2>/dev/null
	rmdir "$CGROOT/$CGDIR" 2>/dev/null
}

cleanup
mkdir -p "$CGROOT/$CGDIR" || skip_all "cannot create $CGROOT/$CGDIR"
trap cleanup EXIT

# ---- no endpoints -----------------------------------------------------
run "$ADMIN" -j ep show
diag "ep show -j: rc=$rc: $out $err"
check "ep show -j: exit 0" test "$rc" -eq 0
check "ep show -j: [] without endpoints" test "$out" = "[]"
check "ep show -j: quiet" test -z "$err"
check "ep show -j: keys of every endpoint" ep_keys_ok <<<"$out"
run "$ADMIN" -j -p ep show
check "ep show -j -p: exit 0" test "$rc" -eq 0
check "ep show -j -p: an empty array" jqe '. == []' <<<"$out"
run "$ADMIN" ep show
check "ep show: exit 0" test "$rc" -eq 0
check "ep show: prints nothing" test -z "$out$err"
run "$ADMIN" ep
check "ep alone is ep show" test "$rc" -eq 0 -a -z "$out$err"
run "$ADMIN" -j ep show tenant "$TENANT"
check "ep show tenant NAME: exit 0" test "$rc" -eq 0
check "ep show tenant NAME: []" test "$out" = "[]"
run "$ADMIN" -j ep show tenant ttnone
check "ep show of an unknown tenant: [] (a filter, not a lookup)" \
	test "$rc" -eq 0 -a "$out" = "[]"

# ---- an unknown endpoint ----------------------------------------------
run "$ADMIN" ep show id 99999
diag "ep show id 99999: rc=$rc: $err"
check "ep show id 99999: exit 1" test "$rc" -eq 1
check "ep show id 99999: says why" \
	grep -qE '^txrdma-admin: ep show: no (such )?endpoint' <<<"$err"
check "ep show id 99999: errno as text, not a number" \
	grep -q "(No such file or directory)" <<<"$err"
check "ep show id 99999: nothing on stdout" test -z "$out"
run "$ADMIN" -j ep show id 99999
check "ep show -j id 99999: exit 1, no JSON" test "$rc" -eq 1 -a -z "$out"
run "$ADMIN" ep show id 99999 tenant "$TENANT"
check "ep show id 99999 tenant NAME: exit 1" test "$rc" -eq 1
check "ep show id 99999 tenant NAME: says why" grep -q "endpoint" <<<"$err"
run "$ADMIN" ep show id 2147483648
check "ep show id above every id: exit 1" test "$rc" -eq 1
check "ep show id above every id: says why" grep -q "endpoint" <<<"$err"

# bad command lines are the tool's: exit 2 with a usage message
run "$ADMIN" ep show id 0
check "ep show id 0: usage error (exit 2)" test "$rc" -eq 2
check "ep show id 0: says why" grep -q "not an endpoint id" <<<"$err"
run "$ADMIN" ep show id x
check "ep show id x: usage error (exit 2)" test "$rc" -eq 2
run "$ADMIN" ep show peer x
check "ep show peer x: usage error (exit 2)" test "$rc" -eq 2

# ---- a tenant's traffic -----------------------------------------------
run "$ADMIN" tenant add "$TENANT" cgroup "/$CGDIR"
check "tenant add: exit 0" test "$rc" -eq 0
t=$("$ADMIN" -j tenant show "$TENANT" | jq -c '.[0] // empty')
diag "$TENANT: $t"
check "tenant show -j: a traffic object" jqe '.traffic | type == "object"' <<<"$t"
check "tenant show -j: traffic has every counter" traffic_keys_ok <<<"$t"
check "fresh tenant: every counter 0" jqe '.traffic | all(.[]; . == 0)' <<<"$t"
check "fresh tenant: the other objects are still there" \
	jqe 'has("limits") and has("usage") and has("refused")' <<<"$t"
check "tenant dump: traffic in every tenant" \
	jqe 'length > 0 and all(.[]; .traffic | type == "object")' \
	<<<"$("$ADMIN" -j tenant show)"
check "tenant dump: ttep's traffic as in show NAME" \
	test "$("$ADMIN" -j tenant show | jq -c --arg n "$TENANT" \
		'.[] | select(.name == $n) | .traffic')" = "$(jq -c .traffic <<<"$t")"
plain=$("$ADMIN" tenant show "$TENANT")
diag "plain: $(tr '\n' '|' <<<"$plain")"
check "tenant show: a traffic line" grep -qx "    traffic tx 0 msgs 0 bytes 0 coalesced  rx 0 msgs 0 bytes 0 batches  rw 0 ops 0 bytes  credit stalls 0 updates 0  slot stalls 0  throttled 0  errors crc 0 seq 0 proto 0 qp 0 sqe 0  session 0 resumes 0 resent 0 moves" <<<"$plain"
check "tenant show: four lines" test "$(wc -l <<<"$plain")" -eq 4

# ---- unprivileged: only one's own tenant --------------------------------
run "${NOBODY[@]}" "$ADMIN" -j ep show
check "unprivileged ep show: exit 0" test "$rc" -eq 0
check "unprivileged ep show: []" test "$out" = "[]"
run "${NOBODY[@]}" "$ADMIN" ep show id 99999
check "unprivileged ep show id 99999: not found, not refused" \
	test "$rc" -eq 1 -a -n "$(grep "No such file" <<<"$err")"
run "${NOBODY[@]}" "$ADMIN" -j tenant show "$TENANT"
check "unprivileged tenant show outside the tenant: no such tenant" \
	test "$rc" -eq 1 -a -n "$(grep -i "no such tenant" <<<"$err")"
run sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh \
	"$CGROOT/$CGDIR" "${NOBODY[@]}" "$ADMIN" -j tenant show "$TENANT"
check "unprivileged tenant show in its cgroup: the traffic too" \
	traffic_keys_ok <<<"$(jq -c '.[0]' <<<"$out")"

run "$ADMIN" tenant del "$TENANT"
check "tenant del: exit 0" test "$rc" -eq 0
run "$ADMIN" -j ep show
check "still no endpoint after all this" test "$out" = "[]"

tap_done
