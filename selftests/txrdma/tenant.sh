#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tenants through txrdma-admin: what the module reports after add, set and
# del (read back with "tenant show -j"), what it refuses (with a readable
# reason, exit 1, and nothing changed), who may change it, and that many
# add/del cycles leak neither tenants nor module references.
#
# Runs as root in a guest with txrdma.ko loaded and cgroup2 mounted at
# /sys/fs/cgroup.  Test cgroups live under /sys/fs/cgroup/txrdma-test and
# test tenants are named tt*; both are removed at the end.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
CGROOT=/sys/fs/cgroup
CGDIR=txrdma-test
CYCLES=${TXRDMA_TENANT_CYCLES:-500}
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

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

# the module's tenants named tt*, as compact JSON, sorted by name
tt_tenants() {
	"$ADMIN" -j tenant show |
		jq -c '[.[] | select(.name | startswith("tt"))] | sort_by(.name)'
}

# jq -e without the output: a filter as a check
jqe() {
	jq -e "$@" >/dev/null
}

# one tenant as compact JSON ("" if the module does not know it)
tenant() {
	"$ADMIN" -j tenant show "$1" 2>/dev/null | jq -c '.[0] // empty'
}

# run CMD...: sets rc and err (stderr; stdout is dropped)
run() {
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
}

# expect_refused "what" WANT_REGEX CMD...: exit 1, a message matching
# WANT_REGEX (grep -E, case-insensitive), and no tt* tenant changed
expect_refused() {
	local what=$1 want=$2 before after
	shift 2
	before=$(tt_tenants)
	run "$@"
	after=$(tt_tenants)
	diag "$what: rc=$rc: $err"
	check "$what: exit 1" test "$rc" -eq 1
	check "$what: says why" grep -qiE -- "$want" <<<"$err"
	check "$what: nothing changed" test "$before" = "$after"
}

cleanup() {
	local n
	for n in $("$ADMIN" -j tenant show 2>/dev/null |
		   jq -r '.[].name | select(startswith("tt"))'); do
		"$ADMIN" tenant del "$n" force 2>/dev/null
	done
	rmdir "$CGROOT/$CGDIR"/* "$CGROOT/$CGDIR" 2>/dev/null
}

cleanup
mkdir -p "$CGROOT/$CGDIR/a" "$CGROOT/$CGDIR/b" "$CGROOT/$CGDIR/c" \
	"$CGROOT/$CGDIR/d" || skip_all "cannot create cgroups under $CGROOT"
trap cleanup EXIT
refcnt0=$(cat /sys/module/txrdma/refcnt)
diag "module refcnt at start: $refcnt0"

check "no tt* tenant at start" test "$(tt_tenants)" = "[]"

# ---- add, then show round-trips every field -------------------------
run "$ADMIN" tenant add tta cgroup /$CGDIR/a prio critical qps 10 \
	endpoints 20 pinned 64M bw 100M:10M ops 1000:100
check "add with every field: exit 0" test "$rc" -eq 0
check "add with every field: quiet" test -z "$err"
a=$(tenant tta)
diag "tta: $a"
check "show tta: name" jqe '.name == "tta"' <<<"$a"
check "show tta: id is a positive number" jqe '(.id | type) == "number" and .id > 0' <<<"$a"
check "show tta: cgroup" jqe --arg c "/$CGDIR/a" '.cgroup == $c' <<<"$a"
check "show tta: prio critical" jqe '.prio == "critical"' <<<"$a"
check "show tta: every limit as given, listeners by default 1024" \
	jqe '.limits == {"qps":10,"endpoints":20,
	"pinned_bytes":67108864,"listeners":1024,"bw_rate":104857600,
	"bw_burst":10485760,"ops_rate":1000,"ops_burst":100}' <<<"$a"
check "fresh tenant: usage is 0" \
	jqe '.usage == {"qps":0,"endpoints":0,"pinned_bytes":0,"listeners":0}' <<<"$a"
check "fresh tenant: refused and throttled are 0" \
	jqe '.refused == {"qps":0,"endpoints":0,"pinned_bytes":0,"listeners":0,"bw":0,"ops":0}' <<<"$a"
check "dump lists tta once" \
	jqe 'map(select(.name == "tta")) | length == 1' <<<"$("$ADMIN" -j tenant show)"
plain=$("$ADMIN" tenant show tta)
diag "plain: $(tr '\n' '|' <<<"$plain")"
check "plain show: header line" \
	grep -qx "tta: id [0-9]* cgroup /$CGDIR/a prio critical" <<<"$plain"
check "plain show: quotas with suffixes" \
	grep -qx "    qps 0/10 refused 0  endpoints 0/20 refused 0  pinned 0/64M refused 0  listeners 0/1024 refused 0" <<<"$plain"
check "plain show: buckets" \
	grep -qx "    bw 100M/s burst 10M throttled 0  ops 1000/s burst 100 throttled 0" <<<"$plain"

run "$ADMIN" tenant add ttb cgroup /$CGDIR/b
check "add with defaults: exit 0" test "$rc" -eq 0
b=$(tenant ttb)
diag "ttb: $b"
check "defaults: prio normal" jqe '.prio == "normal"' <<<"$b"
# safe defaults: pinned memory a quarter of RAM (in 2 MiB), 1024
# listeners; the rest unlimited
ram_quarter=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 / 4 ))
ram_quarter=$(( ram_quarter / (2 << 20) * (2 << 20) ))
diag "a quarter of RAM, in 2 MiB: $ram_quarter"
check "defaults: pinned is a quarter of RAM, not unlimited" \
	jqe --argjson q "$ram_quarter" '.limits.pinned_bytes == $q' <<<"$b"
check "defaults: 1024 listeners" jqe '.limits.listeners == 1024' <<<"$b"
check "defaults: the other six limits unlimited (null)" \
	jqe '.limits | length == 8 and
	     ([.qps, .endpoints, .bw_rate, .bw_burst, .ops_rate, .ops_burst] |
	      all(.[]; . == null))' <<<"$b"
check "defaults: usage and refused 0" \
	jqe '(.usage | all(.[]; . == 0)) and (.refused | length == 6 and all(.[]; . == 0))' <<<"$b"
check "two tenants, two ids" \
	test "$(jq .id <<<"$a")" != "$(jq .id <<<"$b")"

# ---- what add refuses -------------------------------------------------
expect_refused "duplicate name" "exists" \
	"$ADMIN" tenant add tta cgroup /$CGDIR/c
expect_refused "second tenant on a bound cgroup" "cgroup" \
	"$ADMIN" tenant add ttc cgroup /$CGDIR/a
expect_refused "nonexistent cgroup" "cgroup" \
	"$ADMIN" tenant add ttc cgroup /$CGDIR/nonexistent
expect_refused "relative cgroup path" "cgroup" \
	"$ADMIN" tenant add ttc cgroup $CGDIR/c
long=tt$(printf 'x%.0s' $(seq 38))	# 40 characters
expect_refused "empty name" "name" "$ADMIN" tenant add "" cgroup /$CGDIR/c
expect_refused "40-character name" "name|range|length|invalid" \
	"$ADMIN" tenant add "$long" cgroup /$CGDIR/c
expect_refused "name with /" "name" "$ADMIN" tenant add "tt/x" cgroup /$CGDIR/c
expect_refused "name with a space" "name" "$ADMIN" tenant add "tt x" cgroup /$CGDIR/c
expect_refused "bw rate 0" "rate|burst" "$ADMIN" tenant add ttc cgroup /$CGDIR/c bw 0
expect_refused "bw burst 0" "rate|burst" "$ADMIN" tenant add ttc cgroup /$CGDIR/c bw 1M:0
expect_refused "ops rate 0" "rate|burst" "$ADMIN" tenant add ttc cgroup /$CGDIR/c ops 0:10
expect_refused "ops burst 0" "rate|burst" "$ADMIN" tenant add ttc cgroup /$CGDIR/c ops 10:0
check "nothing was added on cgroup c" test -z "$(tenant ttc)"

max=tt$(printf 'y%.0s' $(seq 29))	# 31 characters: the longest allowed
run "$ADMIN" tenant add "$max" cgroup /$CGDIR/c
check "31-character name accepted" test "$rc" -eq 0
check "31-character name shown" test "$(tenant "$max" | jq -r .name)" = "$max"
"$ADMIN" tenant del "$max"

run "$ADMIN" tenant add ttc cgroup /$CGDIR/c qps 1K
check "malformed number: usage error (exit 2)" test "$rc" -eq 2

# ---- set changes only what it names ---------------------------------
# set_expect "what" JQ_EDIT SET_ARGS...: tta afterwards == before | JQ_EDIT
set_expect() {
	local what=$1 edit=$2 before after
	shift 2
	before=$(tenant tta)
	run "$ADMIN" tenant set tta "$@"
	after=$(tenant tta)
	diag "set tta $*: rc=$rc $err"
	check "set $what: exit 0" test "$rc" -eq 0
	check "set $what: only that changed" \
		jqe --argjson old "$before" "(\$old | $edit) == ." <<<"$after"
}
set_expect "qps" '.limits.qps = 5' qps 5
set_expect "endpoints unlimited" '.limits.endpoints = null' endpoints unlimited
set_expect "pinned" '.limits.pinned_bytes = 1073741824' pinned 1G
set_expect "listeners" '.limits.listeners = 3' listeners 3
set_expect "listeners unlimited" '.limits.listeners = null' listeners unlimited
set_expect "ops rate and burst" '.limits.ops_rate = 2000 | .limits.ops_burst = 200' ops 2000:200
set_expect "bw unlimited" '.limits.bw_rate = null | .limits.bw_burst = null' bw unlimited
set_expect "bw back to a rate" '.limits.bw_rate = 1048576 | .limits.bw_burst = 65536' bw 1M:64K
set_expect "prio" '.prio = "bulk"' prio bulk
check "prio change shown in plain output" \
	grep -q "^tta: .* prio bulk$" <<<"$("$ADMIN" tenant show tta)"
set_expect "several at once" '.prio = "normal" | .limits.qps = 7 | .limits.endpoints = 3' \
	prio normal qps 7 endpoints 3
check "set left ttb alone" test "$(tenant ttb)" = "$b"

expect_refused "set with cgroup" "cgroup" \
	"$ADMIN" tenant set tta cgroup /$CGDIR/c
expect_refused "set bw rate 0" "rate|burst" "$ADMIN" tenant set tta bw 0
expect_refused "set ops burst 0" "rate|burst" "$ADMIN" tenant set tta ops 5:0
expect_refused "set of an unknown tenant" "no such tenant" \
	"$ADMIN" tenant set ttnone qps 1

# ---- unprivileged: tenants are namespaces ------------------------------
# nobody outside every tenant sees none; inside tta's cgroup, only tta
out=$("${NOBODY[@]}" "$ADMIN" -j tenant show); rc=$?
check "unprivileged show outside a tenant: exit 0" test "$rc" -eq 0
check "unprivileged show outside a tenant: no tenant at all" \
	test "$out" = "[]"
run "${NOBODY[@]}" "$ADMIN" -j tenant show tta
check "unprivileged show tta outside it: no such tenant" \
	test "$rc" -eq 1 -a -n "$(grep -i "no such tenant" <<<"$err")"
# in_cg DIR CMD...: CMD as nobody, in the cgroup DIR
in_cg() {
	local d=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh \
		"$CGROOT/$CGDIR/$d" "${NOBODY[@]}" "$@"
}
out=$(in_cg a "$ADMIN" -j tenant show); rc=$?
check "unprivileged show in tta's cgroup: exit 0" test "$rc" -eq 0
check "unprivileged show in tta's cgroup: tta alone, as root sees it" \
	test "$(jq -c '.[] | select(.name == "tta")' <<<"$out")" = \
	"$("$ADMIN" -j tenant show tta | jq -c '.[0]')" -a \
	"$(jq length <<<"$out")" = 1
run in_cg a "$ADMIN" -j tenant show ttb
check "unprivileged show ttb from tta's cgroup: no such tenant" \
	test "$rc" -eq 1 -a -n "$(grep -i "no such tenant" <<<"$err")"
check "unprivileged show ttb: its name does not leak" \
	test -z "$(grep -F "$CGDIR/b" <<<"$out$err")"
expect_refused "unprivileged add" "not permitted" \
	"${NOBODY[@]}" "$ADMIN" tenant add ttc cgroup /$CGDIR/c
expect_refused "unprivileged set" "not permitted" \
	"${NOBODY[@]}" "$ADMIN" tenant set tta qps 1
expect_refused "unprivileged del" "not permitted" \
	"${NOBODY[@]}" "$ADMIN" tenant del tta force

# ---- tenant exec: a command in the tenant's cgroup --------------------
mine=$(cat /proc/$$/cgroup)
out=$("$ADMIN" tenant exec tta -- cat /proc/self/cgroup); rc=$?
check "exec: exit 0" test "$rc" -eq 0
diag "exec: cat /proc/self/cgroup: $out"
check "exec: the command runs in tta's cgroup" test "$out" = "0::/$CGDIR/a"
check "exec: the caller stays where it was" \
	test "$(cat /proc/$$/cgroup)" = "$mine"
# what the module thinks: nobody in tta's cgroup sees tta alone
out=$("$ADMIN" tenant exec tta -- "${NOBODY[@]}" "$ADMIN" -j tenant show)
rc=$?
check "exec: the module counts the command as tta's" \
	test "$rc" -eq 0 -a "$(jq -c '[.[].name]' <<<"$out")" = '["tta"]'
"$ADMIN" tenant exec tta -- sh -c 'exit 7'; rc=$?
check "exec: the command's exit status is ours" test "$rc" -eq 7
run "$ADMIN" tenant exec tta -- /nonexistent/cmd
check "exec of a missing command: exit 127 and says so" \
	test "$rc" -eq 127 -a -n "$(grep -F "/nonexistent/cmd" <<<"$err")"
run "$ADMIN" tenant exec ttnone -- true
check "exec of an unknown tenant: exit 1, no such tenant" \
	test "$rc" -eq 1 -a -n "$(grep -i "no such tenant" <<<"$err")"
run "${NOBODY[@]}" "$ADMIN" tenant exec tta -- true
diag "unprivileged exec: rc=$rc: $err"
check "unprivileged exec from outside: refused (exit 1)" test "$rc" -eq 1
check "exec: nothing left in tta's cgroup" \
	test -z "$(cat "$CGROOT/$CGDIR/a/cgroup.procs")"

# ---- del ------------------------------------------------------------
run "$ADMIN" tenant del ttb
check "del: exit 0" test "$rc" -eq 0
check "del: gone from the dump" \
	jqe 'map(select(.name == "ttb")) | length == 0' <<<"$("$ADMIN" -j tenant show)"
run "$ADMIN" tenant show ttb
check "show of a deleted tenant: exit 1" test "$rc" -eq 1
check "show of a deleted tenant: no such tenant" grep -q "no such tenant" <<<"$err"
expect_refused "del of an unknown tenant" "no such tenant" \
	"$ADMIN" tenant del ttb
run "$ADMIN" tenant add ttb2 cgroup /$CGDIR/b
check "a deleted tenant's cgroup can be bound again" test "$rc" -eq 0
run "$ADMIN" tenant del ttb2 force
check "del force of an idle tenant: exit 0" test "$rc" -eq 0
run "$ADMIN" tenant del tta
check "del tta: exit 0" test "$rc" -eq 0
check "no tt* tenant left" test "$(tt_tenants)" = "[]"

# ---- many cycles ----------------------------------------------------
fail=0
for i in $(seq "$CYCLES"); do
	cg=/$CGDIR/$(printf '%s' abcd | cut -c$((i % 4 + 1)))
	"$ADMIN" tenant add "ttcycle$((i % 7))" cgroup "$cg" qps "$i" \
		pinned "${i}K" bw "${i}M:64K" ops "$i:$i" 2>/dev/null || fail=$((fail + 1))
	"$ADMIN" tenant del "ttcycle$((i % 7))" 2>/dev/null || fail=$((fail + 1))
done
diag "$CYCLES add/del cycles: $fail failures"
check "$CYCLES add/del cycles all succeed" test "$fail" -eq 0
check "after the cycles no tt* tenant is left" test "$(tt_tenants)" = "[]"
refcnt1=$(cat /sys/module/txrdma/refcnt)
check "module refcnt back to $refcnt0 (is $refcnt1)" test "$refcnt1" -eq "$refcnt0"

cleanup
trap - EXIT
check "test cgroups removed" test ! -e "$CGROOT/$CGDIR"

tap_done
