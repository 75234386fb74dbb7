# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared by the one-guest benchmarks (msg_bench.sh, txn_bench.sh): a
# perftest tool against the guest's own address, server in the
# background, and the parsing of its result line.  Source it after
# guestlib.sh; the caller sets LOG (raw outputs), ME (the rxe netdev's
# address, selfpeer.sh), PERFTEST_CM ("-R": rdma_cm, "" for perftest's
# own TCP exchange), PERFTEST_PORT (18515, perftest's default),
# RUN_LIMIT (seconds, one client run) and defines fail MESSAGE (report a
# failure, do not exit).  BG_PID is the server while one runs, for the
# caller's EXIT trap.

BG_PID=

tail_of() {	# FILE: its last lines, indented, on stderr
	tail -n 5 "$1" 2>/dev/null | sed 's/^/    /' >&2
}

# bounded_wait PID SECONDS: wait for a background process, kill it after
bounded_wait() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		txrdma_nap 0.1
	done
	kill "$1" 2>/dev/null
	wait "$1"
	return 124
}
perftest_listening() {
	if [ -n "$PERFTEST_CM" ]; then
		txrdma_wait_cm_listen "$PERFTEST_PORT" 30
	else
		txrdma_wait_tcp_listen "$PERFTEST_PORT" 30
	fi
}

# perftest TOOL SIZE ITERS: server in the background, client to our
# own address; the client's output in $LOG/TOOL-SIZE.log.  0, 1 when
# the server did not listen, 2 when the client failed (both reported)
perftest() {
	local t=$1 s=$2 n=$3 rc
	local out=$LOG/$t-$s.log
	# shellcheck disable=SC2086 # PERFTEST_CM may be empty
	"$t" $PERFTEST_CM -s "$s" -n "$n" -F > "$LOG/$t-$s-server.log" 2>&1 &
	BG_PID=$!
	if ! perftest_listening; then
		fail "$t size $s: the server did not listen on port $PERFTEST_PORT"
		tail_of "$LOG/$t-$s-server.log"
		kill "$BG_PID" 2>/dev/null
		wait "$BG_PID" 2>/dev/null
		BG_PID=
		return 1
	fi
	# shellcheck disable=SC2086
	timeout "$RUN_LIMIT" "$t" $PERFTEST_CM -s "$s" -n "$n" -F "$ME" > "$out" 2>&1
	rc=$?
	# the server ends with the test (port free for the next one)
	bounded_wait "$BG_PID" 30 >/dev/null 2>&1
	BG_PID=
	[ $rc -eq 0 ] || { fail "$t size $s: exited $rc"; tail_of "$out"; return 2; }
	return 0
}

# the first result line after perftest's "#bytes" header, with at least
# N fields: "bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9"
# for *_lat (one-way: perftest halves the RTT of send/write latency),
# "bytes iters bw_peak bw_avg msg_rate_Mpps" for *_bw
perftest_row() {	# FILE NFIELDS
	awk -v nf="$2" '/#bytes/ { h = 1; next }
		h && $1 ~ /^[0-9]+$/ && NF >= nf { print; exit }' "$1"
}
