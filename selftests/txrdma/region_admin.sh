#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Regions seen by an operator: lowering the pinned limit below what a
# tenant uses is accepted with a warning, keeps what is in use and
# refuses new regions; user memory counts against RLIMIT_MEMLOCK for an
# unprivileged process; hugetlbfs memory can be registered.  Runs as
# root in a guest.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
ADMIN=${TXRDMA_ADMIN:-$DIR/../../tools/txrdma-admin/txrdma-admin}
CG=/sys/fs/cgroup/txrdma-ra
TMP=$(mktemp -d)
pinned() { "$ADMIN" -j tenant show ra | jq -r ".[0].$1"; }

# start_holder NAME N [setpriv args...]: region_hold in the tenant's cgroup
start_holder() {
	local name=$1 n=$2
	shift 2
	mkfifo "$TMP/$name.in"
	( echo $BASHPID > "$CG/cgroup.procs"
	  exec "$@" "$DIR/region_hold" "$n" < "$TMP/$name.in" > "$TMP/$name.out" ) &
	eval "exec {FD_$name}>\"$TMP/$name.in\""
	wait_for "$TMP/$name.out" '^(ready|error)' 30
}
# quit NAME: ask the holder to exit and wait for it
quit() {
	local fdvar=FD_$1
	echo quit >&"${!fdvar}"
	eval "exec ${!fdvar}>&-"
	wait
}
# say NAME CMD PATTERN: send a command, wait for the matching answer
say() {
	local fdvar=FD_$1
	echo "$2" >&"${!fdvar}"
	wait_for "$TMP/$1.out" "$3" 30
}

mkdir -p "$CG"
"$ADMIN" tenant add ra cgroup /txrdma-ra pinned 8M
start_holder a 3
check "3 regions, 6 MiB in use" test "$(pinned usage.pinned_bytes)" = $((6 << 20))

err=$("$ADMIN" tenant set ra pinned 4M 2>&1); rc=$?
diag "lowering below use: rc=$rc: $err"
check "lowering the limit below use succeeds" test $rc -eq 0
check "... and warns that it applies to new requests" \
	grep -q "warning: .*below current use" <<<"$err"
check "limit is now 4 MiB" test "$(pinned limits.pinned_bytes)" = $((4 << 20))
check "what is in use stays" test "$(pinned usage.pinned_bytes)" = $((6 << 20))
say a create '^(created|error)'
check "a new region is refused (EDQUOT)" grep -q '^error create Disk quota exceeded' "$TMP/a.out"
check "the refusal is counted" test "$(pinned refused.pinned_bytes)" = 1
say a check '^(ok|bad)$'
check "existing regions intact" grep -qx ok "$TMP/a.out"
quit a
check "after exit nothing is in use" test "$(pinned usage.pinned_bytes)" = 0
"$ADMIN" tenant set ra pinned 64M

# a cap on live regions per tenant (module parameter), whatever their size
P=/sys/module/txrdma/parameters/max_regions_per_tenant
old=$(cat "$P")
echo 4 > "$P"
start_holder e 4
say e create '^(created|error)'
check "the 5th live region is refused (ENOSPC)" \
	grep -q '^error create No space left on device' "$TMP/e.out"
check "the refusal charged nothing" test "$(pinned usage.pinned_bytes)" = $((8 << 20))
quit e
echo "$old" > "$P"
check "after exit nothing is in use" test "$(pinned usage.pinned_bytes)" = 0

# RLIMIT_MEMLOCK applies to user memory of unprivileged processes
start_holder b 0 prlimit --memlock=1048576:1048576 setpriv --reuid=65534 --regid=65534 --clear-groups
say b user '^(user|error)'
check "unprivileged with a 1 MiB memlock limit: 2 MiB refused" \
	grep -q '^error reg_user Cannot allocate memory' "$TMP/b.out"
check "nothing charged for the refusal" test "$(pinned usage.pinned_bytes)" = 0
quit b
start_holder c 0 prlimit --memlock=8388608:8388608 setpriv --reuid=65534 --regid=65534 --clear-groups
say c user '^(user|error)'
check "unprivileged within an 8 MiB memlock limit: registered" grep -q '^user [0-9]' "$TMP/c.out"
check "charged to the tenant" test "$(pinned usage.pinned_bytes)" = $((2 << 20))
quit c
check "released at exit" test "$(pinned usage.pinned_bytes)" = 0

# hugetlbfs memory
echo 4 > /proc/sys/vm/nr_hugepages
if [ "$(cat /proc/sys/vm/nr_hugepages)" -ge 1 ]; then
	start_holder d 0
	say d userhuge '^(user|error)'
	check "MAP_HUGETLB memory registered" grep -q '^user [0-9]' "$TMP/d.out"
	check "charged 2 MiB" test "$(pinned usage.pinned_bytes)" = $((2 << 20))
	quit d
	check "released at exit" test "$(pinned usage.pinned_bytes)" = 0
else
	not_ok "could not reserve a huge page in the guest"
fi
echo 0 > /proc/sys/vm/nr_hugepages

"$ADMIN" tenant del ra
rmdir "$CG"
rm -rf "$TMP"
tap_done
