#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "txrdma-admin dev show" agrees with the RDMA core as seen by other
# tools: rdma(8) for names, GUIDs, port states and net devices,
# ibv_devinfo for limits and MTU.  Errors read as sentences.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}

ours=$("$ADMIN" -j dev show) || { not_ok "dev show -j runs"; tap_done; exit; }
ok "dev show -j runs"
links=$(rdma -j link show)
devs=$(rdma -j dev show)

a=$(jq -r '.[].name' <<<"$ours" | sort | xargs)
b=$(jq -r '.[].ifname' <<<"$devs" | sort | xargs)
diag "txrdma: [$a] rdma: [$b]"
check "same devices as rdma dev show" test -n "$a" -a "$a" = "$b"

for dev in $a; do
	mine=$(jq -c --arg d "$dev" '.[] | select(.name == $d)' <<<"$ours")
	g1=$(jq -r .node_guid <<<"$mine")
	g2=$(jq -r --arg d "$dev" '.[] | select(.ifname == $d) | .node_guid' <<<"$devs")
	check "$dev node_guid $g1 = rdma's $g2" test "$g1" = "$g2"

	info=$(ibv_devinfo -v -d "$dev")
	mq=$(awk '$1 == "max_qp:" {print $2}' <<<"$info")
	mr=$(awk '$1 == "max_mr_size:" {print $2}' <<<"$info")
	check "$dev max_qp $(jq .max_qp <<<"$mine") = ibv_devinfo's $mq" \
		test "$(jq .max_qp <<<"$mine")" = "$mq"
	# jq 1.6 reads numbers as doubles: take the u64 from the text
	m=$("$ADMIN" -j dev show "$dev" | grep -o '"max_mr_size":[0-9]*' | cut -d: -f2)
	check "$dev max_mr_size $m = ibv_devinfo's $mr" \
		test "$(printf '0x%x' "$m")" = "$mr"

	for port in $(jq -r '.ports[].port' <<<"$mine"); do
		p=$(jq -c --argjson p "$port" '.ports[] | select(.port == $p)' <<<"$mine")
		l=$(jq -c --arg d "$dev" --argjson p "$port" \
			'.[] | select(.ifname == $d and .port == $p)' <<<"$links")
		s1=$(jq -r .state <<<"$p")
		s2=$(jq -r .state <<<"$l")
		check "$dev/$port state $s1 = rdma link's $s2" test "$s1" = "$s2"
		n1=$(jq -r .netdev <<<"$p")
		n2=$(jq -r .netdev <<<"$l")
		check "$dev/$port netdev $n1 = rdma link's $n2" test "$n1" = "$n2"
		m1=$(jq -r .active_mtu <<<"$p")
		m2=$(awk -v p="$port" '$1 == "port:" {cur = $2}
			$1 == "active_mtu:" && cur == p {print $2}' <<<"$info")
		check "$dev/$port active_mtu $m1 = ibv_devinfo's $m2" test "$m1" = "$m2"
	done

	plain=$("$ADMIN" dev show "$dev")
	check "plain dev show $dev names it and its GUID" \
		grep -q "^$dev: .*node_guid $g1" <<<"$plain"
done

err=$("$ADMIN" dev show nosuchdev0 2>&1 >/dev/null); rc=$?
diag "unknown device: rc=$rc: $err"
check "unknown device: exit 1" test "$rc" -eq 1
check "unknown device: kernel's message" grep -q "no such RDMA device" <<<"$err"

first=$(jq -r '.[0].name' <<<"$ours")
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ADMIN" dev set "$first" enabled off 2>&1); rc=$?
diag "unprivileged dev set: rc=$rc: $err"
check "unprivileged dev set: exit 1" test "$rc" -eq 1
check "unprivileged dev set: says not permitted" grep -qi "not permitted" <<<"$err"
check "unprivileged dev set: nothing changed" \
	test "$("$ADMIN" -j dev show "$first" | jq -r '.[0].enabled')" = true
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$ADMIN" -j dev show)
check "unprivileged dev show lists every device" \
	test "$(jq -r '.[].name' <<<"$out" | sort | xargs)" = "$a"

err=$("$ADMIN" dev set "$first" enabled maybe 2>&1); rc=$?
check "dev set with a bad value: usage error (exit 2)" test "$rc" -eq 2
check "dev set with a bad value: nothing changed" \
	test "$("$ADMIN" -j dev show "$first" | jq -r '.[0].enabled')" = true

"$ADMIN" dev set "$first" enabled off
check "dev set enabled off is shown" \
	test "$("$ADMIN" -j dev show "$first" | jq -r '.[0].enabled')" = false
"$ADMIN" dev set "$first" enabled on
check "dev set enabled on is shown" \
	test "$("$ADMIN" -j dev show "$first" | jq -r '.[0].enabled')" = true

tap_done
