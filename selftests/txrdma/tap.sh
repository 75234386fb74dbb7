# SPDX-License-Identifier: GPL-2.0-only
# TAP output for the shell selftests: source it, call ok/not_ok/check,
# finish with tap_done (prints the plan and returns the exit status).
TAP_N=0
TAP_FAILED=0
echo "TAP version 13"

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N $*"
}

# check "description" command...: ok when the command succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

diag() {
	echo "# $*"
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# wait_for FILE REGEX SECONDS: until a line of FILE matches (file grows)
wait_for() {
	timeout "$3" tail -n +1 -F "$1" 2>/dev/null | grep -E -q -m1 -- "$2"
}
