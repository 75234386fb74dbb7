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

# skip "why": a test not run, said so (an optional extra, never a
# capability the suite needs)
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $*"
}

# tap_relay TAG [FN]: a program's TAP on stdin as ours ("TAG: text"),
# its comments passed on (and handed to function FN, if given, e.g. to
# signal another guest when the program says it listens), its plan and
# version line dropped, anything else as a comment; TAP_RELAYED_FAILS
# counts its "not ok" lines.  Run it in this shell (shopt -s lastpipe),
# or the counts are lost with the subshell.
TAP_RELAYED_FAILS=0
tap_relay() {
	local line

	while IFS= read -r line; do
		if [[ $line =~ ^(not\ ok|ok)\ ([0-9]+\ )?(-\ )?(.*)$ ]]; then
			if [ "${BASH_REMATCH[1]}" = ok ]; then
				ok "$1: ${BASH_REMATCH[4]}"
			else
				not_ok "$1: ${BASH_REMATCH[4]}"
				TAP_RELAYED_FAILS=$((TAP_RELAYED_FAILS + 1))
			fi
		elif [[ $line == \#* ]]; then
			echo "$line"
			[ -z "$2" ] || "$2" "$line"
		elif [[ $line == "TAP version"* || $line =~ ^1\.\.[0-9]+$ ]]; then
			:
		else
			echo "# $1: $line"
		fi
	done
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# wait_for FILE REGEX SECONDS: until a line of FILE matches (file grows)
wait_for() {
	timeout "$3" tail -n +1 -F "$1" 2>/dev/null | grep -E -q -m1 -- "$2"
}
