#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "peers" suite (run_vm_tests.py, 2 or 3 guests,
# every pair linked).  Each guest adds the others as peers and checks
# that every session comes Up with its pool full and that "peer show"
# agrees with the RDMA core's own QP list.
#
# Two guests (CI): first the soak, SOAK seconds of RDMA traffic (rping
# rounds from guest 0 to guest 1) and no cut: every Down of the link
# must be explained, once the session is Up again, by a stall one side
# reported (downs_unexplained stays 0).  Then the host cuts the link
# twenty times and times each Down; most of those Downs must stay
# unexplained (a cut is not a stall).  Then the host pauses guest 1,
# and kills it; guest 0 must see it go Down (and come back, after the
# pause).
#
# Three guests: while the host cuts the link
# between guests 0 and 1 twenty times (and times each Down), RDMA
# traffic runs on the other links for the soak time.  Three TCG guests
# on two host cores stall for 100-225 ms now and then, and their peers
# declare them Down: each such Down must be explained, once the session
# is Up again, by a stall that one side reported (the module's
# downs_unexplained stays 0 on the uncut links), while most Downs of
# the cut link must stay unexplained (a cut is not a stall).  Then the
# host pauses guest 2 and kills guest 1; the survivors must see those
# peers go Down and come back (pause).
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
MON=$TXRDMA_OUT/events.jsonl
# 0: no traffic on the uncut links while the cuts run
SOAK=${TXRDMA_SOAK_S:-300}
POOL_MIN=2
POOL_MAX=4
me=$TXRDMA_GUEST
g=g$me
others=$(seq 0 $((TXRDMA_NGUESTS - 1)) | grep -vx "$me")

peer_addr() {
	awk -v g="$me" -v p="$1" '$2 == g && $12 == p { print $14 }' \
		"$TXRDMA_JOB/topology"
}

# pshow NAME JQ: a field of peer NAME
pshow() {
	"$ADMIN" -j peer show "$1" | jq -r ".[0] | $2"
}

# the peer is Up and its pool holds at least MIN ready QPs
peer_ready() {
	[ "$(pshow "$1" '"\(.state) \(.pool.ready >= .pool.min)"')" = "up true" ]
}

# "down" events (leaving up) of peer NAME so far
downs_of() {
	grep -c "\"event\":\"peer\",.*\"name\":\"$1\",.*\"old_state\":\"up\"" \
		"$MON"
}

"$ADMIN" -j monitor > "$MON" &
monpid=$!
# the monitor is subscribed once it prints our own first event
for p in $others; do
	check "$g: peer add g$p ($(peer_addr "$p"))" \
		"$ADMIN" peer add "g$p" addr "$(peer_addr "$p")" key "$TXRDMA_PEER_KEY" \
		pool "$POOL_MIN:$POOL_MAX"
done
txrdma_signal "$g-added"
for p in $others; do
	check "$g: g$p reaches up with a full pool" \
		txrdma_wait_until 120 peer_ready "g$p"
done

# roles: the lower address initiates, the higher accepts
for p in $others; do
	mine=$(txrdma_my_addr "$p")
	if [ "$(printf '%s\n%s\n' "$mine" "$(peer_addr "$p")" |
		sort -V | head -1)" = "$mine" ]; then
		want=initiator
	else
		want=acceptor
	fi
	check "$g: g$p role $want (local $mine)" \
		test "$(pshow "g$p" .role)" = "$want"
	check "$g: g$p local address is $mine" \
		test "$(pshow "g$p" .local_addr)" = "$mine"
done

# txrdma's QPs in RTS, against peer show: each peer holds its pooled QPs
# plus its control QP (those it initiated are rdma_cm's, those it
# accepted its own), and each device one registration QP, connected to
# itself.  Not told apart by lqpn == rqpn: two guests number their QPs
# alike, so an accepted QP often has its peer's number.
rdma_qps() {
	local devs
	devs=$(rdma -j dev show | jq length)
	rdma -j res show qp | jq --argjson devs "$devs" '[.[] |
		select((.comm == "rdma_cm" or (.comm | test("txrdma"))) and
		.state == "RTS")] | length - $devs'
}
peer_qps() {
	"$ADMIN" -j peer show | jq '[.[] | .qps] | add'
}
pool_qps() {
	"$ADMIN" -j peer show | jq '[.[] | .pool.ready + .pool.in_use + 1] | add'
}
no_qps() {
	[ "$(rdma_qps)" = 0 ]
}
qps_agree() {
	[ "$(rdma_qps)" = "$(peer_qps)" ] && [ "$(peer_qps)" = "$(pool_qps)" ]
}
check "$g: peer show qps = pool + control = rdma res show qp (RTS)" \
	txrdma_wait_until 30 qps_agree
diag "$g: rdma res: $(rdma_qps) QPs; peer show: $(peer_qps); pools+ctrl: $(pool_qps)"
"$ADMIN" peer show | sed 's/^/# /'
for p in $others; do
	check "$g: g$p probes carry RTT samples" \
		test "$(pshow "g$p" .rtt.samples)" -gt 0
done
txrdma_signal "$g-up"

sent_pkts() {
	rdma -j statistic show link "$1/1" | jq '.[0].sent_pkts'
}

# counts P: "downs stalled unexplained" of peer gP, from one read; a
# counter that is missing fails the read (never a silent 0)
counts() {
	"$ADMIN" -j peer show "g$1" | jq -er '.[0] |
		"\(.downs | numbers) \(.downs_stalled | numbers) \(.downs_unexplained | numbers)"'
}
# snap P [COUNTS]: the module's counters of peer gP (given, or read
# now) as NAME_P variables (the counters, not the monitor's lines: a
# session that flaps fast can overflow the module's event queue, 16
# events, never its counters)
snap() {
	local c
	c=${2:-$(counts "$1")}
	read -r "downs0_$1" "st0_$1" "un0_$1" <<<"$c"
}
# since P: d, st, un = Downs, stall-explained, unexplained since snap P;
# the counts they came from in $now_counts, for the next snap
since() {
	local dn sn un_
	now_counts=$(counts "$1") || return 1
	read -r dn sn un_ <<<"$now_counts"
	eval "d=\$((dn - downs0_$1)) st=\$((sn - st0_$1)) un=\$((un_ - un0_$1))"
}
peer_diag() {
	diag "$g: g$1 downs $(pshow "g$1" .downs) ups $(pshow "g$1" .ups) flaps $(pshow "g$1" .flaps) probes $(pshow "g$1" '.bfd | "tx \(.tx_pkts) rx \(.rx_pkts) skipped \(.tx_skipped) stalls \(.stalls) max \(.stall_max_ns / 1e6)ms"'); longest stall g$1 reported $(pshow "g$1" '.remote_stall_max_ns / 1e6')ms; pool failures $(pshow "g$1" .pool.failures) errors $(pshow "g$1" .pool.errors)"
}

# -- two guests: a soak without cuts, then the cuts, pause and kill -------
if [ "$TXRDMA_NGUESTS" = 2 ]; then
	p=$others
	txrdma_wait_file soak-start 300 || exit 1
	snap "$p"
	if [ "$me" = 1 ]; then
		if [ "$SOAK" -gt 0 ]; then
			rping -s -P -a "$(txrdma_my_addr 0)" -p 18600 -S 16384 \
				> "$TXRDMA_OUT/rping-server.log" 2>&1 &
			bw_pid=$!
			txrdma_wait_cm_listen 18600 30
		fi
		txrdma_signal bw-ready
		txrdma_wait_file traffic-done $((SOAK + 300)) || exit 1
		[ -n "$bw_pid" ] && kill "$bw_pid" 2>/dev/null
	else
		txrdma_wait_file bw-ready 60 || exit 1
		if [ "$SOAK" -gt 0 ]; then
			rxe1=$(txrdma_rxe_to 1)
			pkts0=$(sent_pkts "$rxe1")
			end=$((EPOCHSECONDS + SOAK))
			while [ "$EPOCHSECONDS" -lt "$end" ]; do
				timeout 60 rping -c -a "$(peer_addr 1)" -p 18600 \
					-S 16384 -C 200 || echo "rping round failed"
				txrdma_nap 0.1
			done > "$TXRDMA_OUT/rping-client.log" 2>&1
			pkts=$(($(sent_pkts "$rxe1") - pkts0))
			check "$g: traffic to g1 ($pkts packets sent by rping in ${SOAK}s)" \
				test "$pkts" -gt 10000
			check "$g: every rping round succeeded" \
				test "$(grep -c 'round failed' "$TXRDMA_OUT/rping-client.log")" = 0
		fi
		txrdma_signal traffic-done
	fi
	check "$g: g$p is up with a full pool after the soak" \
		txrdma_wait_until 60 peer_ready "g$p"
	since "$p" || exit 1
	diag "$g: g$p: soak of ${SOAK}s with traffic, no cut: $d Downs, $st explained by a stall, $un unexplained"
	check "$g: g$p: every Down of the ${SOAK}s soak explained by a stall ($d Downs, $st explained, $un unexplained)" \
		test "$un" = 0
	# the cuts count from where the soak's count ended: no Down between
	snap "$p" "$now_counts"
	peer_diag "$p"
	txrdma_signal "$g-soaked"
	txrdma_wait_file cuts-done 900 || exit 1
	ncuts=$(cat "$TXRDMA_JOB/cuts-done")
	check "$g: g$p is up with a full pool after the cuts" \
		txrdma_wait_until 60 peer_ready "g$p"
	since "$p"
	diag "$g: g$p: $ncuts cuts: $d Downs, $st explained by a stall, $un unexplained"
	check "$g: g$p went down at every cut ($d Downs, $ncuts cuts)" \
		test "$d" -ge "$ncuts"
	check "$g: g$p: a cut is not taken for a stall ($un of $d Downs unexplained, at least half)" \
		test "$((2 * un))" -ge "$d"
	peer_diag "$p"
	txrdma_signal "$g-cut"
	if [ "$me" = 0 ]; then
		txrdma_wait_file pause-done 600 || exit 1
		check "$g: g1 went down while paused" \
			test "$(pshow g1 .downs)" -gt "$((downs0_1 + d))"
		check "$g: g1 came back up after the pause" \
			txrdma_wait_until 60 peer_ready g1
		n=$(pshow g1 .downs)
		# the host kills g1 only once this count is taken
		txrdma_signal "$g-paused"
		txrdma_wait_file kill-done 300 || exit 1
		check "$g: g1 went down when killed" \
			test "$(pshow g1 .downs)" -gt "$n"
		check "$g: peer del g1" "$ADMIN" peer del g1
		check "$g: no QP left after deleting the peer" \
			txrdma_wait_until 30 no_qps
	else
		# killed by the host; until then it stays up
		txrdma_wait_file kill-done 900
	fi
	kill "$monpid" 2>/dev/null
	tap_done
	exit
fi

# -- three guests: cuts of link 0-1, with traffic on the other links ------
txrdma_wait_file soak-start 300 || exit 1
soak_end=$(($EPOCHSECONDS + SOAK))
for p in $others; do
	snap "$p"
done
# RDMA traffic on the links that are not cut, for the whole soak: rping
# rounds (rdma_cm connect, 200 x SEND + RDMA READ + RDMA WRITE of 16 KiB,
# disconnect) back to back from guests 0 and 1 to guest 2, with 100 ms
# between rounds: a steady load of connections and one-sided traffic,
# not a line-rate stream (which saturates a single TCG vCPU with rxe's
# softirq work and starves every timer; see testing.rst).  The packets
# rxe sent on those links are counted, so the soak cannot pass without
# traffic.
if [ "$SOAK" = 0 ]; then
	[ "$me" = 2 ] && txrdma_signal bw-ready
elif [ "$me" = 2 ]; then
	for p in 0 1; do
		rping -s -P -a "$(txrdma_my_addr "$p")" -p $((18600 + p)) \
			-S 16384 > "$TXRDMA_OUT/rping-server-$p.log" 2>&1 &
		bw_pids="$bw_pids $!"
	done
	txrdma_wait_cm_listen 18600 30 && txrdma_wait_cm_listen 18601 30
	txrdma_signal bw-ready
else
	txrdma_wait_file bw-ready 60
	rxe2=$(txrdma_rxe_to 2)
	pkts0=$(sent_pkts "$rxe2")
	(
		end=$(($EPOCHSECONDS + SOAK - 10))
		while [ "$EPOCHSECONDS" -lt "$end" ]; do
			rping -c -a "$(peer_addr 2)" -p $((18600 + me)) \
				-S 16384 -C 200 || echo "rping round failed"
			txrdma_nap 0.1
		done
	) > "$TXRDMA_OUT/rping-client.log" 2>&1 &
	bw_pids=$!
fi
txrdma_wait_file cuts-done $((SOAK + 300)) || exit 1
ncuts=$(cat "$TXRDMA_JOB/cuts-done")
while [ "$EPOCHSECONDS" -lt "$soak_end" ]; do txrdma_nap 1; done
if [ "$SOAK" = 0 ]; then
	:
elif [ "$me" = 2 ]; then
	kill $bw_pids 2>/dev/null
else
	wait "$bw_pids"
	pkts=$(($(sent_pkts "$rxe2") - pkts0))
	check "$g: background traffic to g2 ($pkts packets sent by rping)" \
		test "$pkts" -gt 10000
	check "$g: every rping round succeeded" \
		test "$(grep -c 'round failed' "$TXRDMA_OUT/rping-client.log")" = 0
fi
for p in $others; do
	check "$g: g$p is up with a full pool after the cuts" \
		txrdma_wait_until 60 peer_ready "g$p"
	# what explained those Downs, counted at each return to Up (the
	# session is Up again: its last Down is counted)
	since "$p"
	diag "$g: g$p: $d Downs since the cuts began: $st explained by a stall, $un unexplained; in all $(pshow "g$p" .downs) Downs, $(pshow "g$p" .flaps) flaps; longest stall g$p reported $(pshow "g$p" '.remote_stall_max_ns / 1e6')ms, ours $(pshow "g$p" '.bfd.stall_max_ns / 1e6')ms"
	if [ $((me + p)) = 1 ]; then
		# a cut can cost more than one Down (flaps of a loaded TCG
		# guest while the link is down and QPs are rebuilt after), so
		# the count is at least ncuts
		check "$g: g$p went down at every cut ($d Downs, $ncuts cuts)" \
			test "$d" -ge "$ncuts"
		# a stall of either guest may happen to cover a cut's Down
		# (and then it did cause silence too); most must not
		check "$g: g$p: a cut is not taken for a stall ($un of $d Downs unexplained, at least half)" \
			test "$((2 * un))" -ge "$d"
	else
		check "$g: g$p: every Down of the uncut link explained by a stall ($d Downs, $st explained, $un unexplained, ${SOAK}s of traffic)" \
			test "$un" = 0
	fi
	peer_diag "$p"
done
rdma statistic show | while read -r l; do diag "$g: $l"; done
txrdma_signal "$g-soaked"

# -- pause of guest 2, kill of guest 1 ------------------------------------
if [ "$me" = 0 ]; then
	txrdma_wait_file pause-done 120 || exit 1
	check "$g: g2 went down while paused" test "$(downs_of g2)" -ge 1
	check "$g: g2 came back up after the pause" \
		txrdma_wait_until 60 peer_ready g2
	txrdma_wait_file kill-done 120 || exit 1
	check "$g: g1 went down when killed" \
		test "$(downs_of g1)" -gt "$ncuts"
	# deleting peers whose QPs are connected and busy with probes
	for p in $others; do
		check "$g: peer del g$p" "$ADMIN" peer del "g$p"
	done
	check "$g: no QP left after deleting the peers" \
		txrdma_wait_until 30 no_qps
elif [ "$me" = 2 ]; then
	txrdma_wait_file kill-done 180 || exit 1
	check "$g: g1 went down when killed" test "$(downs_of g1)" -ge 1
	check "$g: g0 is up" txrdma_wait_until 60 peer_ready g0
else
	# guest 1 is killed by the host; until then it stays up
	txrdma_wait_file kill-done 600
fi
kill "$monpid" 2>/dev/null
tap_done
