#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "hostile" suite (run_vm_tests.py, one guest of two
# vCPUs):
#
#   hostile_guest.sh OPS SECONDS MIN_TOTAL SEED...
#
# A self peer; tenant "legit" runs legit_stream (a server and a client
# streaming both ways over the self peer, every byte checked) for the
# whole run; tenant "hostile" runs hostile as uid 65534 once per SEED
# (OPS operations, at most SECONDS each: scribbles over every shared
# word, random ioctls, mmaps, forks, closes while blocked, SIGKILL with
# work in flight; see hostile.c), each ending by SIGKILLing itself.
# After each seed: the hostile tenant holds nothing, and the legit
# stream has seen no error.  At the end: at least MIN_TOTAL operations
# over the seeds; the legit stream was byte-exact from start to end;
# both tenants are deleted without force; rmmod.  Each seed's operations
# are logged to $TXRDMA_OUT/hostile-SEED.log (kept in the run directory
# when the suite fails) to replay from.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

ops=${1:-35000}
secs=${2:-90}
min_total=${3:-100000}
shift 3
seeds=${*:-"1 2 3"}
lsvc=7777
hsvc=16471
stop=/run/legit-stop
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

at_legit_running() {
	kill -0 "$pid_s" 2>/dev/null && kill -0 "$pid_c" 2>/dev/null &&
		! grep -q '^not ok' /run/legit-s.out /run/legit-c.out
}

at_peer_add self "$(at_self_addr)" 8:16
at_tenant_add legit qps 8 endpoints 8 pinned 256M
at_tenant_add hostile qps 32 endpoints 32 pinned 256M
at_in_tenant legit timeout -k 10 3000 "$DIR/legit_stream" server legit \
	$lsvc $stop /run/legit-s-ready 0x1e61 > /run/legit-s.out 2>&1 &
pid_s=$!
at_in_tenant legit timeout -k 10 3000 "$DIR/legit_stream" client legit \
	self $lsvc $stop /run/legit-c-ready 0x1e61 > /run/legit-c.out 2>&1 &
pid_c=$!
check "tenant legit's pair is streaming" \
	at_wait_until 120 test -e /run/legit-s-ready -a -e /run/legit-c-ready

total=0
for seed in $seeds; do
	log=$TXRDMA_OUT/hostile-$seed.log
	: > "$log" && chmod 666 "$log"
	at_in_tenant hostile "${nobody[@]}" timeout -k 10 $((secs + 120)) \
		"$DIR/hostile" hostile self $hsvc "$seed" "$ops" "$secs" "$log" \
		$lsvc > /run/hostile.out 2>&1
	rc=$?
	# its last act is to SIGKILL itself with SENDs in flight: 137
	[ "$rc" = 137 ] || echo "# exit $rc, not 137 (its own SIGKILL)" >> /run/hostile.out
	at_tap_file "hostile seed $seed" /run/hostile.out $((rc == 137 ? 0 : 1))
	n=$(sed -n 's/^# hostile ops: \([0-9]*\).*/\1/p' /run/hostile.out)
	total=$((total + ${n:-0}))
	# where to replay from: the log's last operations (more on a failure)
	diag "seed $seed: last operations logged ($log):"
	tail -n $((rc == 137 ? 3 : 30)) "$log" | sed 's/^/#   /'
	check "seed $seed: tenant hostile holds nothing once its processes are gone" \
		at_wait_until 60 at_usage_zero hostile
	diag "tenant hostile usage (qps endpoints pinned): $(at_usage hostile)"
	check "seed $seed: tenant legit's stream goes on without an error" \
		at_legit_running
done
check "$total hostile operations over seeds $seeds (at least $min_total)" \
	test "$total" -ge "$min_total"

touch $stop
wait $pid_s
rc_s=$?
wait $pid_c
rc_c=$?
at_tap_file "legit server" /run/legit-s.out $rc_s
at_tap_file "legit client" /run/legit-c.out $rc_c
at_admin tenant show | sed 's/^/# /'
at_finish
tap_done
