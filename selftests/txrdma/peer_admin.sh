#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Peers through txrdma-admin, in one guest, checked against what the
# module and the RDMA core report:
#
#   self peer    a peer whose address is this host's own connects to
#                itself over rxe loopback and comes up: state, pool, role,
#                its QPs as "rdma res" lists them, probes with RTT
#                samples, and the monitor's events
#   set          BFD parameters and pool sizes change what "peer show"
#                reports; state down/up give AdminDown and back, with
#                events
#   bad input    refusals exit non-zero with a readable reason and
#                change nothing; unprivileged users may only look
#   delete up    deleting a peer that is up with a full pool completes
#                and leaves no QP behind
#   port clash   the module does not load when its rdma_cm port is taken
#                (and says so), loads on another port and listens there
#   cycles       many add/del cycles of a self peer without waiting leave
#                no peer, QP, cm_id, slab object or module reference
#                behind; the module unloads and loads again afterwards
#
# Runs as root in a txrdma-vm guest with txrdma.ko loaded (TXRDMA_KO names
# it; the module is reloaded twice, at the end with the parameters the
# harness used) and an rxe device whose netdev has an IPv4 address.  Test
# peers are "self", "self2", "p" and pa-*; they, a dummy netdev txpa0, the
# route 10.77.0.0/21 (TXRDMA_PEER_FILL=1 only) and the processes started
# here are removed at the end.
#
# TXRDMA_PEER_CYCLES (default 500): add/del cycles; TXRDMA_PEER_FILL=1:
# also fill the module up to its 1024 peers (takes about 5 minutes in TCG).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ROOT=${TXRDMA_ROOT:-$(cd "$DIR/../.." && pwd)}
. "$ROOT/tools/vm/guestlib.sh"
ADMIN0=${TXRDMA_ADMIN:-$ROOT/tools/txrdma-admin/txrdma-admin}
KO=${TXRDMA_KO:-$ROOT/kmod/txrdma.ko}
CYCLES=${TXRDMA_PEER_CYCLES:-500}
UP_S=20			# a self peer is up with its pool within this
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
DUMMY=txpa0
FILL_NET=10.77.0.0/21
# caches that hold what a peer allocates, directly or through rdma_cm,
# ib_cm and rxe (each rxe QP has a UDP socket); vmap_area (freed lazily)
# and radix_tree_node (xarray nodes shared with other users) are left out
SLAB_CACHES="kmalloc-8 kmalloc-16 kmalloc-32 kmalloc-64 kmalloc-96
	kmalloc-128 kmalloc-192 kmalloc-256 kmalloc-512 kmalloc-1k kmalloc-2k
	kmalloc-4k kmalloc-8k UDP sock_inode_cache lsm_inode_cache"

skip_all() {
	echo "1..0 # SKIP $*"
	exit 4
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null || skip_all "needs jq"
[ -x "$ADMIN0" ] || skip_all "no $ADMIN0 (make -C tools/txrdma-admin)"
[ -d /sys/module/txrdma ] || skip_all "txrdma.ko is not loaded"
[ -r "$KO" ] || skip_all "no module file $KO (set TXRDMA_KO)"

# this host's RDMA device, its netdev and that netdev's IPv4 address
txrdma_local_rdma
[ -n "$RXE" ] && [ -n "$ME" ] && [ "$ME" != null ] ||
	skip_all "no ACTIVE rxe device with an IPv4 address on its netdev"

ip2int() {
	local IFS=.
	# shellcheck disable=SC2086 # split on the dots
	set -- $1
	echo $((($1 << 24) | ($2 << 16) | ($3 << 8) | $4))
}
int2ip() {
	echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"
}
# OTHER: an address of the same subnet that is not ours (the last one),
# routed through the rxe netdev but nobody's: refusals that come after
# the route check need it
mask=$(((0xffffffff << (32 - PREFIX)) & 0xffffffff))
other=$((($(ip2int "$ME") | (~mask & 0xffffffff)) - 1))
[ "$(int2ip $other)" = "$ME" ] && other=$((other - 1))
OTHER=$(int2ip $other)
PORT0=$(cat /sys/module/txrdma/parameters/port)

TMP=$(mktemp -d)
# a copy of the tool (the checkout's may be rebuilt while this runs),
# which the unprivileged user runs too
chmod 755 "$TMP"
ADMIN=$TMP/txrdma-admin
cp "$ADMIN0" "$ADMIN" || skip_all "cannot copy $ADMIN0"
MON=
RPING=
LOOP=

# ---- helpers --------------------------------------------------------

jqe() {
	jq -e "$@" >/dev/null
}

# run CMD...: sets rc and err (stderr; stdout is dropped)
run() {
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
}

# bounded SECONDS CMD...: like run, but gives up after SECONDS with rc
# 124 (a task stuck in the kernel ignores even SIGKILL: it is left)
bounded() {
	local s=$1 pid i
	shift
	"$@" >"$TMP/b.out" 2>"$TMP/b.err" &
	pid=$!
	for ((i = 0; i < s * 20; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			err=$(cat "$TMP/b.err")
			return $rc
		fi
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null
	rc=124
	err="(did not return within ${s}s)"
	return 124
}

# one peer as compact JSON ("" if the module does not know it)
peer() {
	"$ADMIN" -j peer show "$1" 2>/dev/null | jq -c '.[0] // empty'
}

# what "unchanged" means for refused commands: the set of peers and
# their configuration.  State and counters move while a peer is up, so
# they are cut out of "peer show -j" (with sed: jq takes ~0.3 s to start
# in a TCG guest, and this runs twice per refusal)
STRIP='s/"rtt":\{[^}]*\},?//g; s/"(local_addr|dev|role|state|remote_state|diag|neg_tx_us|detect_us|remote_disc|tx_pkts|rx_pkts|rx_dropped|tx_skipped|stalls|stall_max_ns|ready|in_use|connecting|closing|takes|misses|failures|errors|qps|ups|downs|flaps|downs_stalled|downs_unexplained|remote_stall_max_ns|last_change_ns)":("[^"]*"|[0-9]+),?//g'
cfg_of() {
	sed -E "$STRIP"
}
peers_cfg() {
	local out
	out=$("$ADMIN" -j peer show 2>&1) || { echo "peer show failed: $out"; return; }
	cfg_of <<<"$out"
}

# QPs and cm_ids as the RDMA core lists them.  rdma_cm creates the QPs of
# the connections txrdma initiates (comm "rdma_cm"); those it accepts are
# its own ("txrdma": they allow no remote access until the initiator
# proves the key), as is its registration QP, which is connected to
# itself (lqpn == rqpn); the GSI QP ("ib_core") is not a peer's.
cm_qps() {	# [STATE]: peers' QPs, all or in STATE
	rdma -j res show qp | jq --arg s "${1:-}" \
		'[.[] | select((.comm == "rdma_cm" or ((.comm | test("txrdma")) and .lqpn != .rqpn)) and ($s == "" or .state == $s))] | length'
}
cm_ids() {	# txrdma's cm_ids other than listeners
	rdma -j res show cm_id | jq '[.[] | select(.comm == "txrdma" and .state != "LISTEN")] | length'
}
listeners() {	# txrdma's listening ports, e.g. "7388"
	rdma -j res show cm_id |
		jq -r '[.[] | select(.comm == "txrdma" and .state == "LISTEN") | .["src-addr"] | sub(".*:"; "")] | join(" ")'
}

# the monitor's peer events (JSON lines; a partial last line is skipped)
ev_count() {	# JQ_CONDITION: how many peer events match
	jq -R -n "[inputs | fromjson? | select(.event == \"peer\") | select($1)] | length" \
		"$TMP/mon" 2>/dev/null || echo 0
}
ev_at_least() {	# N JQ_CONDITION
	[ "$(ev_count "$2")" -ge "$1" ]
}

# peer_is NAME [JQ_OPTIONS] JQ_CONDITION: NAME's JSON object meets the
# condition (one jq: it takes ~0.3 s to start in a TCG guest)
peer_is() {
	local name=$1 cond=${!#}
	shift
	"$ADMIN" -j peer show "$name" 2>/dev/null |
		jq -e "${@:1:$#-1}" ".[0] | $cond" >/dev/null
}

# qps of NAME equals the rdma_cm QPs in RTS
qps_match() {
	local q
	q=$(peer "$1" | jq -r .qps)
	[ -n "$q" ] && [ "$q" = "$(cm_qps RTS)" ]
}

# probes are flowing: rx_pkts of NAME grows
probes_flow() {
	local a
	a=$(peer "$1" | jq -r .bfd.rx_pkts)
	txrdma_wait_until 5 peer_is "$1" ".bfd.rx_pkts > $a"
}

# seconds since $1 (an $EPOCHREALTIME), 2 decimals
since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}

# kernel log lines txrdma-vm counts as problems, since this test started
DMESG0=$(dmesg | wc -l)
PROBLEMS='\bBUG:|\bBUG |\bWARNING:|\bOops\b|KASAN|general protection fault|Kernel panic|kernel BUG|Redzone|Poison overwritten|Object padding overwritten|slab_out_of_bounds|refcount_t:|list_add corruption|list_del corruption|UBSAN'
kernel_problems() {
	dmesg | tail -n +$((DMESG0 + 1)) | grep -E "$PROBLEMS"
}

# slab_scan FILE: live slab objects with txrdma on the allocation stack,
# from the allocation traces of slub_debug=U (the harness boots with
# it): one line per trace entry "cache site txrdma-frame count own" to
# FILE (own: 1 if the allocation site is a txrdma function), and prints
# "OWN ALL": the objects txrdma allocated itself, and all of them (also
# cm_ids, QPs, CQs, sockets of rxe QPs).  Neighbour entries are the
# neighbour table's, however they were created.  Shrinking first puts
# the objects of per-CPU slabs on the lists the traces walk, as
# region_test does for its count.
slab_scan() {
	local c
	for c in $SLAB_CACHES; do
		echo 1 > "/sys/kernel/slab/$c/shrink" 2>/dev/null
		awk -v c="$c" 'BEGIN { RS = "" }
			/\[txrdma\]/ && $2 !~ /^___neigh_create/ {
				n = split($0, l, "\n"); f = ""
				for (i = 2; i <= n; i++) if (l[i] ~ /\[txrdma\]/) { f = l[i]; break }
				gsub(/^ +|\+.*/, "", f); s = $2; sub(/\+.*/, "", s)
				print c, s, f, $1, ($3 == "[txrdma]") }' \
			"/sys/kernel/debug/slab/$c/alloc_traces" 2>/dev/null
	done > "$1"
	awk '{ all += $4; own += $4 * $5 } END { print own + 0, all + 0 }' "$1"
}
# slab_settle WANT FILE: slab_scan FILE once it prints WANT, or its last
# result after 6 tries, 1 s apart (each scan takes seconds too: long
# enough for kfree_rcu batches and ib_cm timewait info to go)
slab_settle() {
	local v i
	for i in 1 2 3 4 5 6; do
		v=$(slab_scan "$2")
		[ "$v" = "$1" ] && break
		sleep 1
	done
	echo "$v"
}
# slab_stable FILE: slab_scan FILE until two scans at least 7 s apart
# agree, at most 6 times: for a baseline, since what was just deleted
# may still be on its way out (kfree_rcu batches frees for up to 5 s,
# ib_cm keeps timewait info for seconds)
slab_stable() {
	local v w i t
	v=$(slab_scan "$1")
	t=$EPOCHREALTIME
	for i in 1 2 3 4 5 6; do
		sleep "$(awk -v t="$t" -v n="$EPOCHREALTIME" \
			'BEGIN { d = 7 - (n - t); printf "%.1f", (d > 0 ? d : 0) }')"
		w=$(slab_scan "$1")
		[ "$w" = "$v" ] && break
		v=$w
		t=$EPOCHREALTIME
	done
	echo "$v"
}
# slab_sites FILE: objects per cache, site and txrdma frame
slab_sites() {
	awk '{ k[$1 " " $2 " " $3] += $4 } END { for (x in k) print x, k[x] }' "$1" | sort
}

# load the module again as the harness did (default parameters unless
# it was given --module-params); 0 if it then listens on PORT0
reload_default() {
	if [ -d /sys/module/txrdma ]; then
		bounded 60 rmmod txrdma || return 1
	fi
	# shellcheck disable=SC2086 # parameters are split on purpose
	bounded 60 insmod "$KO" ${TXRDMA_MODPARAMS:-} || return 1
	txrdma_wait_cm_listen "$PORT0" 10
}

cleanup() {
	local n
	[ -n "$LOOP" ] && kill "$LOOP" 2>/dev/null
	[ -n "$MON" ] && kill "$MON" 2>/dev/null
	[ -n "$RPING" ] && kill "$RPING" 2>/dev/null
	if [ -d /sys/module/txrdma ]; then
		for n in $("$ADMIN" -j peer show 2>/dev/null | jq -r '.[].name |
			select(. == "self" or . == "self2" or . == "p" or startswith("pa-"))'); do
			bounded 30 "$ADMIN" peer del "$n"
		done
	fi
	ip link del "$DUMMY" 2>/dev/null
	ip route del "$FILL_NET" 2>/dev/null
	# leave the module loaded as it was for the tests after this one
	if [ ! -d /sys/module/txrdma ] ||
	   [ "$(cat /sys/module/txrdma/parameters/port)" != "$PORT0" ]; then
		reload_default
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

T0=$EPOCHREALTIME
section() {
	diag "---- $* (at $(since "$T0")s)"
}

bail() {
	not_ok "$*"
	kernel_problems | sed 's/^/# dmesg: /'
	tap_done
	exit 1
}

diag "rxe $RXE on $NETDEV, own address $ME/$PREFIX, spare address $OTHER, module port $PORT0"
check "no peers at start" test "$("$ADMIN" -j peer show)" = "[]"

# ---- self peer ------------------------------------------------------
section "self peer"
# the monitor runs from here on; toggle the device until it prints the
# toggle, so that it is known to be subscribed before the peer is added
"$ADMIN" -j monitor > "$TMP/mon" 2>&1 &
MON=$!
subscribed=1
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$ADMIN" dev set "$RXE" enabled off
	"$ADMIN" dev set "$RXE" enabled on
	wait_for "$TMP/mon" '"event":"dev_set"' 1 && { subscribed=0; break; }
done
check "monitor subscribed (saw a dev_set event)" test $subscribed -eq 0

t0=$EPOCHREALTIME
run "$ADMIN" peer add self addr "$ME" key "$TXRDMA_PEER_KEY" pool 2:4
check "add self ($ME) pool 2:4: exit 0" test "$rc" -eq 0
check "add self: quiet" test -z "$err"
txrdma_wait_until $UP_S peer_is self \
	'.state == "up" and .remote_state == "up" and .pool.ready >= 2 and .role == "initiator"'
up=$?
took=$(since "$t0")
s=$(peer self)
diag "self after $took s: $s"
check "self is up, remote up, pool ready >= 2, role initiator within ${UP_S}s (took ${took}s)" \
	test $up -eq 0
# the fields, with one jq (it is slow to start in TCG); "null" if missing
# shellcheck disable=SC2034 # some are used in eval
IFS='|' read -r st rst role pmin pmax ready addr laddr port dev admin dg tx rx \
	mult ldisc rdisc ups downs lc <<<"$(jq -r '[.state, .remote_state, .role,
	.pool.min, .pool.max, .pool.ready, .addr, .local_addr, .port, .dev,
	.admin, .diag, .bfd.tx_us, .bfd.rx_us, .bfd.mult, .bfd.local_disc,
	.bfd.remote_disc, .ups, .downs, .last_change_ns] | map(tostring) |
	join("|")' <<<"$s")"
check "self: state up" test "$st" = up
check "self: remote_state up" test "$rst" = up
check "self: role initiator" test "$role" = initiator
check "self: pool min 2 max 4, 2..4 ready ($pmin $pmax $ready)" \
	eval '[ "$pmin" = 2 ] && [ "$pmax" = 4 ] && [ "$ready" -ge 2 ] && [ "$ready" -le 4 ]'
check "self: addr and local_addr are $ME ($addr $laddr)" \
	eval '[ "$addr" = "$ME" ] && [ "$laddr" = "$ME" ]'
check "self: port is the module's ($PORT0)" test "$port" = "$PORT0"
check "self: uses $RXE ($dev)" test "$dev" = "$RXE"
check "self: admin up, diag none ($admin $dg)" eval '[ "$admin" = up ] && [ "$dg" = none ]'
check "self: default BFD parameters 20000us 20000us x4 ($tx $rx $mult)" \
	test "$tx $rx $mult" = "20000 20000 4"
# talking to itself, the discriminator it hears is its own
check "self: remote discriminator is its own ($ldisc $rdisc)" \
	eval '[ "$ldisc" != 0 ] && [ "$rdisc" = "$ldisc" ]'
# (a loaded TCG guest may stall past the 80 ms detection time and flap
# the session once in a while: count ups against downs, not absolutes)
check "self: up once more than down ($ups $downs), a last change time" \
	eval '[ "$ups" -ge 1 ] && [ "$ups" -eq $((downs + 1)) ] && [ "$lc" -gt 0 ]'

# Observed on rxe loopback with pool 2:4 (2 ready): qps 6, and "rdma res
# show qp" lists exactly 6 QPs of comm [rdma_cm] in RTS: the control QP
# and the 2 pooled QPs, each twice, because both the connecting half and
# the accepted half ("mirror") belong to this host and the peer counts
# both.  Besides them only txrdma's own registration QP (comm [txrdma])
# and the GSI QP ([ib_core]) are listed; every one of the 6 has a txrdma
# cm_id in state CONNECT.  Polled, in case the pool is just resizing.
txrdma_wait_until 10 qps_match self
s=$(peer self)
qps=$(jq .qps <<<"$s")
n_rts=$(cm_qps RTS)
diag "qps $qps, rdma_cm QPs in RTS $n_rts (of $(cm_qps)), txrdma cm_ids $(cm_ids)"
rdma res show qp | sed 's/^/#   /'
check "self: qps ($qps) = rdma_cm QPs in RTS ($n_rts)" test "$qps" = "$n_rts"
check "self: qps = 2 x (control + pooled QPs) on loopback" \
	jqe '.qps == 2 * (1 + .pool.ready + .pool.in_use)' <<<"$s"
txrdma_wait_until 5 eval '[ "$(cm_ids)" = "$(peer self | jq .qps)" ]'
check "self: one txrdma cm_id per QP" eval '[ "$(cm_ids)" = "$(peer self | jq .qps)" ]'
txrdma_wait_until 10 peer_is self '.rtt.samples > 0'
s=$(peer self)
diag "rtt: $(jq -c .rtt <<<"$s"), probes: tx $(jq .bfd.tx_pkts <<<"$s") rx $(jq .bfd.rx_pkts <<<"$s")"
check "self: rtt samples > 0" jqe '.rtt.samples > 0' <<<"$s"
check "self: rtt 0 < min <= avg <= max" \
	jqe '.rtt.min_ns > 0 and .rtt.min_ns <= .rtt.avg_ns and .rtt.avg_ns <= .rtt.max_ns' <<<"$s"
check "self: probes flowing (rx_pkts grows)" probes_flow self
txrdma_wait_until 5 ev_at_least 1 '.name == "self" and .state == "up"'
check "monitor: event self -> up" \
	ev_at_least 1 '.name == "self" and .state == "up" and .reason == "session up"'
diag "events: $(jq -c -R 'fromjson? | select(.event == "peer") | [.old_state, .state, .reason]' "$TMP/mon" | tr '\n' ' ')"

# ---- set ------------------------------------------------------------
section "set"
before=$(peer self)
run "$ADMIN" peer set self tx 30000 rx 40000 mult 5
check "set tx 30000 rx 40000 mult 5: exit 0" test "$rc" -eq 0
check "set tx/rx/mult: quiet" test -z "$err"
s=$(peer self)
check "set tx/rx/mult: shown" \
	jqe '.bfd.tx_us == 30000 and .bfd.rx_us == 40000 and .bfd.mult == 5' <<<"$s"
check "set tx/rx/mult: the rest of the configuration unchanged" \
	test "$(cfg_of <<<"$s" | sed -E 's/"(tx_us|rx_us|mult)":[0-9]+,?//g')" = \
	     "$(cfg_of <<<"$before" | sed -E 's/"(tx_us|rx_us|mult)":[0-9]+,?//g')"
# talking to itself: tx = max(own tx, own rx) = 40 ms, detection time =
# mult x max(own rx, own tx) = 200 ms, once the poll sequence is done
txrdma_wait_until 10 peer_is self '.bfd.neg_tx_us == 40000 and .bfd.detect_us == 200000'
check "set tx/rx/mult: negotiated tx 40000us, detect 200000us" \
	peer_is self '.bfd.neg_tx_us == 40000 and .bfd.detect_us == 200000'
txrdma_wait_until $UP_S peer_is self '.state == "up"'
check "set tx/rx/mult: session up" peer_is self '.state == "up"'
diag "downs during the change: $(($(peer self | jq .downs) - $(jq .downs <<<"$before")))"

before=$(peer self)
run "$ADMIN" peer set self state down
check "set state down: exit 0" test "$rc" -eq 0
s=$(peer self)
check "state down: state admin_down, admin down" \
	jqe '.state == "admin_down" and .admin == "down"' <<<"$s"
txrdma_wait_until 5 ev_at_least 1 '.name == "self" and .state == "admin_down"'
check "monitor: up -> admin_down, reason \"administratively down\"" \
	ev_at_least 1 '.name == "self" and .old_state == "up" and .state == "admin_down" and .reason == "administratively down"'
txrdma_wait_until 10 peer_is self '.pool.ready == 0 and .remote_state == "admin_down"'
check "state down: pool drained (ready 0)" peer_is self '.pool.ready == 0'
check "state down: it hears its own AdminDown (remote_state admin_down)" \
	peer_is self '.remote_state == "admin_down"'
txrdma_wait_until 10 qps_match self
diag "admin down: qps $(peer self | jq .qps), rdma_cm QPs in RTS $(cm_qps RTS)"
check "state down: qps = rdma_cm QPs in RTS" qps_match self

t0=$EPOCHREALTIME
run "$ADMIN" peer set self state up
check "set state up: exit 0" test "$rc" -eq 0
txrdma_wait_until $UP_S peer_is self '.state == "up" and .remote_state == "up" and .pool.ready >= 2'
up=$?
check "state up: up again with pool ready >= 2 within ${UP_S}s (took $(since "$t0")s)" test $up -eq 0
check "state up: one more up and down, ups = downs + 1" \
	peer_is self --argjson u "$(jq .ups <<<"$before")" --argjson d "$(jq .downs <<<"$before")" \
	'.ups >= $u + 1 and .downs >= $d + 1 and .ups == .downs + 1'
txrdma_wait_until 5 ev_at_least 2 '.name == "self" and .state == "up"'
check "monitor: admin_down -> down, reason \"administratively up\"" \
	ev_at_least 1 '.name == "self" and .old_state == "admin_down" and .reason == "administratively up"'
check "monitor: a second event to up" ev_at_least 2 '.name == "self" and .state == "up"'
txrdma_wait_until 10 qps_match self
check "state up: qps = rdma_cm QPs in RTS" qps_match self

before=$(peer self)
run "$ADMIN" peer set self pool 1:2
check "set pool 1:2: exit 0" test "$rc" -eq 0
s=$(peer self)
check "set pool 1:2: min 1 max 2 shown" jqe '.pool.min == 1 and .pool.max == 2' <<<"$s"
check "set pool 1:2: BFD parameters unchanged" \
	jqe '.bfd.tx_us == 30000 and .bfd.rx_us == 40000 and .bfd.mult == 5' <<<"$s"
txrdma_wait_until 10 peer_is self '.pool.ready >= 1 and .pool.ready + .pool.in_use + .pool.connecting <= 2'
check "set pool 1:2: 1..2 QPs in the pool" \
	peer_is self '.pool.ready >= 1 and .pool.ready + .pool.in_use + .pool.connecting <= 2'
txrdma_wait_until 10 qps_match self
check "set pool 1:2: qps = rdma_cm QPs in RTS" qps_match self
diag "after set: $(peer self | jq -c '{state, bfd: (.bfd | {tx_us, rx_us, mult, neg_tx_us, detect_us}), pool: (.pool | {min, max, ready}), qps, ups, downs}')"

# ---- bad input ------------------------------------------------------
section "bad input"
# expect_refused "what" RC WANT_REGEX CMD...: exit RC (1: the module
# refused, 2: the tool's own usage error), a message matching WANT_REGEX
# on stderr, and the set of peers and their configuration unchanged
# (the snapshot after one refusal is the one before the next)
LAST_CFG=
expect_refused() {
	local what=$1 want_rc=$2 want=$3 before after
	shift 3
	before=${LAST_CFG:-$(peers_cfg)}
	run "$@"
	after=$(peers_cfg)
	LAST_CFG=$after
	diag "$what: rc=$rc: ${err%%$'\n'*}"
	check "$what: exit $want_rc" test "$rc" -eq "$want_rc"
	check "$what: says why" grep -qiE -- "$want" <<<"$err"
	check "$what: nothing changed" test "$before" = "$after"
}
A=("$ADMIN" peer add pa-bad key "$TXRDMA_PEER_KEY")
self_downs=$(peer self | jq .downs)

if ip route get 203.0.113.7 >/dev/null 2>&1; then
	diag "203.0.113.7 is routed here: no unroutable address to try"
else
	expect_refused "addr without a route" 1 "no route to the peer address" \
		"${A[@]}" addr 203.0.113.7
fi
if ip link add "$DUMMY" type dummy 2>/dev/null &&
   ip addr add 10.99.0.1/24 dev "$DUMMY" && ip link set "$DUMMY" up; then
	expect_refused "addr routed through a netdev without RDMA" 1 \
		"net device without an RDMA device" "${A[@]}" addr 10.99.0.2
	expect_refused "own addr on a netdev without RDMA" 1 \
		"net device without an RDMA device" "${A[@]}" addr 10.99.0.1
	ip link del "$DUMMY"
else
	diag "no dummy netdev: skipped the netdev without RDMA"
fi
for a in 0.0.0.0 127.0.0.1 224.0.0.1 255.255.255.255; do
	expect_refused "addr $a" 1 "must be a unicast address of an RDMA interface" \
		"${A[@]}" addr "$a"
done
expect_refused "addr not IPv4" 2 "not an IPv4 address" "${A[@]}" addr 10.1.2
expect_refused "dev that the route does not use" 1 \
	"does not use the given RDMA device" "${A[@]}" addr "$OTHER" dev nosuchdev
expect_refused "tx 0" 1 "tx interval below 1 ms" "${A[@]}" addr "$OTHER" tx 0
expect_refused "tx 999" 1 "tx interval below 1 ms" "${A[@]}" addr "$OTHER" tx 999
expect_refused "tx 60000001" 1 "tx interval above 60 s" "${A[@]}" addr "$OTHER" tx 60000001
expect_refused "tx 4294967295" 1 "tx interval above 60 s" "${A[@]}" addr "$OTHER" tx 4294967295
expect_refused "tx beyond 32 bits" 2 "not a number of microseconds" \
	"${A[@]}" addr "$OTHER" tx 99999999999
expect_refused "rx 0" 1 "rx interval below 1 ms" "${A[@]}" addr "$OTHER" rx 0
expect_refused "rx 3600000000" 1 "rx interval above 60 s" "${A[@]}" addr "$OTHER" rx 3600000000
expect_refused "mult 0" 2 "not a detect multiplier" "${A[@]}" addr "$OTHER" mult 0
expect_refused "mult 51" 1 "detect multiplier above 50" "${A[@]}" addr "$OTHER" mult 51
expect_refused "mult 256" 2 "not a detect multiplier" "${A[@]}" addr "$OTHER" mult 256
expect_refused "duplicate name" 1 "a peer of that name exists" \
	"$ADMIN" peer add self addr "$OTHER" key "$TXRDMA_PEER_KEY"
expect_refused "duplicate address" 1 "another peer has that address" \
	"${A[@]}" addr "$ME"
expect_refused "pool 5:2" 2 "MIN 5 is above MAX 2" "${A[@]}" addr "$OTHER" pool 5:2
# "pool 0" alone is min 0 (no ready QPs kept), which is valid: max 0 is not
expect_refused "pool 0:0" 1 "pool max must be at least 1" "${A[@]}" addr "$OTHER" pool 0:0
expect_refused "pool 2000" 1 "pool max is at most 1024" "${A[@]}" addr "$OTHER" pool 2000
expect_refused "pool 1:1025" 1 "pool max is at most 1024" "${A[@]}" addr "$OTHER" pool 1:1025
expect_refused "name with /" 1 "peer names are 1-31 of" "$ADMIN" peer add pa/x addr "$OTHER" key "$TXRDMA_PEER_KEY"
expect_refused "name with a space" 1 "peer names are 1-31 of" "$ADMIN" peer add "pa x" addr "$OTHER" key "$TXRDMA_PEER_KEY"
expect_refused "32-character name" 2 "invalid peer name" \
	"$ADMIN" peer add "pa-$(printf 'x%.0s' $(seq 29))" addr "$OTHER" key "$TXRDMA_PEER_KEY"
expect_refused "empty name" 2 "invalid peer name" "$ADMIN" peer add "" addr "$OTHER" key "$TXRDMA_PEER_KEY"
expect_refused "add without addr" 2 "addr" "$ADMIN" peer add pa-bad key "$TXRDMA_PEER_KEY"
# a peer is who holds the key: none, a short one or a readable one is refused
expect_refused "add without a key" 2 "needs key" "$ADMIN" peer add pa-bad addr "$OTHER"
printf '%s\n' 00112233445566778899aabbccddee > "$TMP/short.key"
chmod 600 "$TMP/short.key"
expect_refused "15-byte key" 2 "key" \
	"$ADMIN" peer add pa-bad addr "$OTHER" key "$TMP/short.key"
cp "$TXRDMA_PEER_KEY" "$TMP/open.key" && chmod 644 "$TMP/open.key"
expect_refused "key file readable by others" 2 "accessible by others" \
	"$ADMIN" peer add pa-bad addr "$OTHER" key "$TMP/open.key"
expect_refused "set key" 2 "cannot be changed" \
	"$ADMIN" peer set self key "$TXRDMA_PEER_KEY"
check "peer show never shows key material" \
	eval '! "$ADMIN" -j peer show self | grep -qi -- "$(tr -d "\n" < "$TXRDMA_PEER_KEY" | cut -c1-16)"'
expect_refused "set tx 0" 1 "tx interval below 1 ms" "$ADMIN" peer set self tx 0
expect_refused "set rx 60000001" 1 "rx interval above 60 s" "$ADMIN" peer set self rx 60000001
expect_refused "set mult 51" 1 "detect multiplier above 50" "$ADMIN" peer set self mult 51
expect_refused "set pool 0:0" 1 "pool max must be at least 1" "$ADMIN" peer set self pool 0:0
expect_refused "set pool 2000" 1 "pool max is at most 1024" "$ADMIN" peer set self pool 2000
expect_refused "set addr" 2 "\"addr\" cannot be changed" "$ADMIN" peer set self addr "$OTHER"
expect_refused "set port" 2 "\"port\" cannot be changed" "$ADMIN" peer set self port 7000
expect_refused "set dev" 2 "\"dev\" cannot be changed" "$ADMIN" peer set self dev "$RXE"
# another path (path-of) names a peer that exists, and not this host
expect_refused "path-of an unknown peer" 1 "path-of: no such peer" \
	"${A[@]}" addr "$OTHER" path-of pa-none
expect_refused "path-of the self peer" 1 "no other path to itself" \
	"${A[@]}" addr "$OTHER" path-of self
expect_refused "set path-of" 2 "\"path-of\" cannot be changed" \
	"$ADMIN" peer set self path-of self
expect_refused "set of an unknown peer" 1 "no such peer" "$ADMIN" peer set pa-none tx 30000
expect_refused "set state of an unknown peer" 1 "no such peer" "$ADMIN" peer set pa-none state down
expect_refused "del of an unknown peer" 1 "no such peer" "$ADMIN" peer del pa-none
expect_refused "show of an unknown peer" 1 "no such peer" "$ADMIN" peer show pa-none

out=$("${NOBODY[@]}" "$ADMIN" -j peer show); rc=$?
check "unprivileged show: exit 0" test "$rc" -eq 0
check "unprivileged show: the same peers" test "$(cfg_of <<<"$out")" = "$(peers_cfg)"
out=$("${NOBODY[@]}" "$ADMIN" -j peer show self); rc=$?
check "unprivileged show self: exit 0, state up" eval '[ $rc -eq 0 ] && jqe ".[0].state == \"up\"" <<<"$out"'
# the cluster key is root's: nobody gets a copy of its own to try with
nobody_key=$(mktemp /tmp/pa-nobody-key.XXXXXX)
cp "$TXRDMA_PEER_KEY" "$nobody_key" && chown 65534:65534 "$nobody_key"
expect_refused "unprivileged add" 1 "not permitted" \
	"${NOBODY[@]}" "$ADMIN" peer add pa-nobody addr "$OTHER" key "$nobody_key"
rm -f "$nobody_key"
run "${NOBODY[@]}" "$ADMIN" peer add pa-nobody addr "$OTHER" key "$TXRDMA_PEER_KEY"
check "unprivileged users cannot read the cluster key file" \
	test "$rc" -eq 2 -a -n "$(grep "Permission denied" <<<"$err")"
expect_refused "unprivileged set" 1 "not permitted" \
	"${NOBODY[@]}" "$ADMIN" peer set self tx 50000
expect_refused "unprivileged set state down" 1 "not permitted" \
	"${NOBODY[@]}" "$ADMIN" peer set self state down
expect_refused "unprivileged del" 1 "not permitted" \
	"${NOBODY[@]}" "$ADMIN" peer del self
txrdma_wait_until $UP_S peer_is self '.state == "up"'
check "after the refusals: only self, and up" \
	eval '"$ADMIN" -j peer show | jqe "length == 1 and .[0].name == \"self\" and .[0].state == \"up\""'
diag "downs during the refusals: $(($(peer self | jq .downs) - self_downs))"

# the 1024-peer limit: costs minutes in TCG, so only on request
if [ "${TXRDMA_PEER_FILL:-0}" = 1 ]; then
	# addresses routed through the rxe netdev that nobody answers;
	# slow probes keep 1023 peers that never come up cheap
	ip route add "$FILL_NET" dev "$NETDEV"
	base=$(ip2int "${FILL_NET%/*}")
	t0=$EPOCHREALTIME
	fail=0
	for ((i = 1; i < 1024; i++)); do
		"$ADMIN" peer add "pa-f$i" addr "$(int2ip $((base + i)))" key "$TXRDMA_PEER_KEY" \
			tx 1000000 rx 1000000 2>/dev/null || fail=$((fail + 1))
	done
	diag "1023 more peers added in $(since "$t0")s, $fail failures"
	check "1024 peers fit" eval '[ $fail -eq 0 ] && [ "$("$ADMIN" -j peer show | jq length)" -eq 1024 ]'
	LAST_CFG=
	expect_refused "peer 1025" 1 "too many peers" \
		"$ADMIN" peer add pa-full addr "$(int2ip $((base + 1500)))" key "$TXRDMA_PEER_KEY"
	t0=$EPOCHREALTIME
	fail=0
	for ((i = 1; i < 1024; i++)); do
		"$ADMIN" peer del "pa-f$i" 2>/dev/null || fail=$((fail + 1))
	done
	diag "1023 peers deleted in $(since "$t0")s, $fail failures"
	check "back to self alone" eval '[ $fail -eq 0 ] && [ "$("$ADMIN" -j peer show | jq -c "map(.name)")" = "[\"self\"]" ]'
	ip route del "$FILL_NET"
else
	ok "1024 peers then ENOSPC # SKIP takes minutes; TXRDMA_PEER_FILL=1 runs it"
fi

# ---- delete a peer that is up ---------------------------------------
section "delete a peer that is up"
run "$ADMIN" peer set self pool 4:4
check "set pool 4:4: exit 0" test "$rc" -eq 0
txrdma_wait_until $UP_S peer_is self '.state == "up" and .pool.ready == 4'
check "self: up with a full pool (4 of 4 ready)" peer_is self '.state == "up" and .pool.ready == 4'
txrdma_wait_until 10 qps_match self
n_rts=$(cm_qps RTS)
diag "before del: qps $(peer self | jq .qps), rdma_cm QPs in RTS $n_rts"
check "self: probes flowing before the delete" probes_flow self
deleted0=$(ev_count '.name == "self" and .reason == "peer deleted"')
t0=$EPOCHREALTIME
bounded 30 "$ADMIN" peer del self
took=$(since "$t0")
check "del of an up peer completes (exit $rc, ${took}s)" test "$rc" -eq 0
[ "$rc" -eq 124 ] && bail "txrdma stopped answering: peer del self hangs"
run "$ADMIN" peer show self
check "deleted: show says no such peer" eval '[ $rc -eq 1 ] && grep -q "no such peer" <<<"$err"'
check "deleted: its $n_rts QPs are gone from rdma res when del returns (left: $(cm_qps))" \
	test "$(cm_qps)" -eq 0
check "deleted: no txrdma cm_id but the listener" test "$(cm_ids)" -eq 0
txrdma_wait_until 5 ev_at_least $((deleted0 + 1)) '.name == "self" and .reason == "peer deleted"'
check "monitor: up -> admin_down, reason \"peer deleted\"" \
	ev_at_least $((deleted0 + 1)) '.name == "self" and .old_state == "up" and .state == "admin_down" and .reason == "peer deleted"'
check "no kernel problems logged so far" test -z "$(kernel_problems)"
kill "$MON" 2>/dev/null
wait "$MON" 2>/dev/null
MON=

# ---- port clash -----------------------------------------------------
section "port clash"
if ! command -v rping >/dev/null; then
	ok "port clash # SKIP no rping"
elif [ "$PORT0" = 7399 ] || [ "$PORT0" = 7400 ]; then
	ok "port clash # SKIP the module already uses port $PORT0"
else
	rping -s -a 0.0.0.0 -p 7399 >/dev/null 2>&1 &
	RPING=$!
	check "rping listens on rdma_cm port 7399" txrdma_wait_cm_listen 7399 10
	bounded 60 rmmod txrdma
	check "rmmod: exit 0" test "$rc" -eq 0
	check "rmmod: module gone" test ! -d /sys/module/txrdma
	n0=$(dmesg | grep -c "cannot listen on rdma_cm port 7399")
	bounded 60 insmod "$KO" port=7399
	diag "insmod port=7399: rc=$rc: $err"
	check "insmod port=7399 while rping has it: fails" \
		eval '[ $rc -ne 0 ] && [ $rc -ne 124 ]'
	check "insmod port=7399: no module left" test ! -d /sys/module/txrdma
	line=$(dmesg | grep "cannot listen on rdma_cm port 7399" | tail -1)
	diag "dmesg: $line"
	check "dmesg: \"cannot listen on rdma_cm port 7399\"" \
		test "$(dmesg | grep -c "cannot listen on rdma_cm port 7399")" -eq $((n0 + 1))
	# the module's hint for the in-use case (rdma_cm reports a clash of
	# two wildcard binds as -EADDRNOTAVAIL; the module says in use)
	check "dmesg: says the port is in use" grep -q "in use" <<<"$line"
	bounded 60 insmod "$KO" port=7400
	check "insmod port=7400: exit 0 ($err)" test "$rc" -eq 0
	check "parameter port is 7400" test "$(cat /sys/module/txrdma/parameters/port 2>/dev/null)" = 7400
	txrdma_wait_cm_listen 7400 10
	check "txrdma listens on 7400 only (rdma res: $(listeners))" test "$(listeners)" = 7400
	check "rping still listens on 7399" txrdma_wait_cm_listen 7399 1
	run "$ADMIN" peer add self2 addr "$ME" key "$TXRDMA_PEER_KEY" pool 1:1
	check "self peer on port 7400: add exit 0" test "$rc" -eq 0
	txrdma_wait_until $UP_S peer_is self2 '.state == "up" and .pool.ready == 1'
	check "self peer on port 7400: port 7400 and up" peer_is self2 '.port == 7400 and .state == "up"'
	bounded 30 "$ADMIN" peer del self2
	check "self peer on port 7400: del exit 0" test "$rc" -eq 0
	kill "$RPING" 2>/dev/null
	wait "$RPING" 2>/dev/null
	RPING=
	reload_default
	check "reloaded with the harness's parameters: listens on $PORT0" test $? -eq 0
	check "parameter port is $PORT0 again" test "$(cat /sys/module/txrdma/parameters/port)" = "$PORT0"
	check "txrdma listens on $PORT0 only" test "$(listeners)" = "$PORT0"
fi

# ---- cycles ---------------------------------------------------------
section "cycles"
if [ -r /sys/kernel/debug/slab/kmalloc-64/alloc_traces ]; then
	slab0=$(slab_stable "$TMP/slab0")
else
	slab0=
fi
qp0=$(cm_qps)
id0=$(cm_ids)
lis0=$(listeners)
ref0=$(cat /sys/module/txrdma/refcnt)
diag "before $CYCLES cycles: rdma_cm QPs $qp0, txrdma cm_ids $id0 + listener $lis0, slab objects (own, all) ${slab0:-n/a}, refcnt $ref0"

# the cycles run in the background, so that a command stuck in the
# kernel is reported (no progress for 30 s) instead of hanging the test
cycles() {
	local i fail=0 t0=$EPOCHREALTIME
	for ((i = 1; i <= CYCLES; i++)); do
		"$ADMIN" peer add p addr "$ME" key "$TXRDMA_PEER_KEY" 2>>"$TMP/cycles.err" || fail=$((fail + 1))
		"$ADMIN" peer del p 2>>"$TMP/cycles.err" || fail=$((fail + 1))
		echo "$i" > "$TMP/cycles.at"
	done
	echo "$fail $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" \
		> "$TMP/cycles.done"
}
cycles &
LOOP=$!
last=
still=0
while [ ! -e "$TMP/cycles.done" ] && [ $still -lt 30 ]; do
	sleep 1
	at=$(cat "$TMP/cycles.at" 2>/dev/null)
	if [ "$at" = "$last" ]; then still=$((still + 1)); else still=0; last=$at; fi
done
if [ ! -e "$TMP/cycles.done" ]; then
	kill "$LOOP" 2>/dev/null
	bail "$CYCLES add/del cycles: stuck after cycle ${last:-0} (no progress for 30 s)"
fi
wait "$LOOP"
LOOP=
read -r fail secs < "$TMP/cycles.done"
diag "$CYCLES add/del cycles took ${secs}s ($(awk -v s="$secs" -v n="$CYCLES" 'BEGIN { printf "%.0f", s * 1000 / n }') ms per cycle), $fail failures"
[ -s "$TMP/cycles.err" ] && sort "$TMP/cycles.err" | uniq -c | head -5 | sed 's/^/# /'
check "$CYCLES add/del cycles all succeed" test "$fail" -eq 0
check "after the cycles no peer is left" test "$("$ADMIN" -j peer show)" = "[]"
txrdma_wait_until 10 eval '[ "$(cm_qps)" = "$qp0" ] && [ "$(cm_ids)" = "$id0" ]'
check "rdma_cm QPs back to $qp0 (are $(cm_qps))" test "$(cm_qps)" = "$qp0"
check "txrdma cm_ids back to $id0 (are $(cm_ids)), listener $lis0" \
	eval '[ "$(cm_ids)" = "$id0" ] && [ "$(listeners)" = "$lis0" ]'
if [ -n "$slab0" ]; then
	slab1=$(slab_settle "$slab0" "$TMP/slab1")
	check "slab objects (own, all) from txrdma back to ($slab0) (are ($slab1))" \
		test "$slab1" = "$slab0"
	if [ "$slab1" != "$slab0" ]; then
		slab_sites "$TMP/slab0" > "$TMP/sites0"
		slab_sites "$TMP/slab1" > "$TMP/sites1"
		diff "$TMP/sites0" "$TMP/sites1" | sed 's/^/# /'
	fi
else
	ok "slab objects # SKIP no /sys/kernel/debug/slab/*/alloc_traces (slub_debug=U)"
fi
check "module refcnt back to $ref0" test "$(cat /sys/module/txrdma/refcnt)" = "$ref0"
check "no kernel problems logged" test -z "$(kernel_problems)"

bounded 60 rmmod txrdma
check "rmmod after the cycles: exit 0 ($err)" test "$rc" -eq 0
check "rmmod: module gone" test ! -d /sys/module/txrdma
# shellcheck disable=SC2086 # parameters are split on purpose
bounded 60 insmod "$KO" ${TXRDMA_MODPARAMS:-}
check "insmod again: exit 0 ($err)" test "$rc" -eq 0
check "listens on $PORT0 again" txrdma_wait_cm_listen "$PORT0" 10
check "no peers after the reload" test "$("$ADMIN" -j peer show)" = "[]"
section "done"

tap_done
