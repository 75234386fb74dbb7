#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Instructions per message of libtxrdma's ring fast path, on the host
# (no module, no VM):
#   tools/bench/ring_ipm.sh            (or: make ring-ipm)
#   M=10000000 tools/bench/ring_ipm.sh  (more messages)
#
# Builds tools/bench/ring_ipm against lib/libtxrdma.a and runs it under
# `valgrind --tool=callgrind`, once per noinline wrapper, collecting only
# inside that wrapper (--toggle-collect): Ir / messages is the number of
# instructions one call executes, including the wrapper's own `ret` (the
# bench_empty line is that overhead: a call of an empty function).  The
# consumer runs in the same thread in alternation, so every poll finds
# its CQE at once and the count is exact (see ring_ipm.c).  The receive
# side (bench_recv: rx_peek + first payload byte + rx_release, 64-byte
# messages in a 4096-unit ring) is counted the same way: the fake kernel
# fills the ring in the same thread whenever everything published has
# been read, so every peek finds a message, and NEED_WAKEUP stays clear
# (no doorbell is rung: the bench checks it).
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
M=${M:-1000000}
RX_UNITS=4096	# as in ring_ipm.c

if ! command -v valgrind > /dev/null 2>&1; then
	echo "ring_ipm.sh: valgrind is not installed; it is needed to count instructions." >&2
	echo "ring_ipm.sh: install it with: sudo apt-get install valgrind" >&2
	exit 2
fi

make -s -C "$ROOT/lib" > /dev/null
make -s -C "$DIR" ring_ipm
BIN=$DIR/ring_ipm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# natively first: the path works, and wall-clock numbers for reference
"$BIN" -n "$M" > "$TMP/native"
"$BIN" -n "$M" -t > "$TMP/native-t"

# count FN: Ir per call of the noinline wrapper FN
count() {
	local fn=$1 out=$TMP/cg.$1 ir
	if ! valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="$fn" "$BIN" -n "$M" \
		> "$TMP/stdout.$fn" 2> "$TMP/stderr.$fn"; then
		echo "ring_ipm.sh: the run under callgrind failed:" >&2
		tail -20 "$TMP/stderr.$fn" >&2
		exit 1
	fi
	# every poll found its CQE at once: one call per message, exactly
	if ! grep -q "^messages $M consumer inline .* empty_polls 0 " "$TMP/stdout.$fn" ||
	   ! grep -q "^rx_messages $M producer inline .* empty_peeks 0 doorbells 0$" "$TMP/stdout.$fn"; then
		echo "ring_ipm.sh: unexpected bench output: $(cat "$TMP/stdout.$fn")" >&2
		exit 1
	fi
	ir=$(sed -n 's/^totals: *//p' "$out")
	[ -n "$ir" ] || ir=$(sed -n 's/^summary: *//p' "$out")
	if [ -z "$ir" ] || [ "$ir" -eq 0 ]; then
		echo "ring_ipm.sh: callgrind collected nothing in $fn" >&2
		exit 1
	fi
	awk -v ir="$ir" -v m="$M" 'BEGIN { printf "%.1f", ir / m }'
}

POST=$(count bench_post)
POLL=$(count bench_poll)
WAKE=$(count bench_wakeup)
RECV=$(count bench_recv)
EMPTY=$(count bench_empty)
BUF=$(count bench_buf)
wall() { sed -n 's/^messages .*wall_ns_per_msg \([0-9.]*\).*/\1/p' "$1"; }

CCV=$(${CC:-cc} --version | head -1)
echo "libtxrdma ring fast path, Ir per call of each noinline wrapper"
echo "(callgrind $(valgrind --version | sed 's/valgrind-//'), $M messages, consumer in the same thread; $CCV, CFLAGS ${CFLAGS:--O2 -g})"
printf '  %-13s %-46s %8s\n' wrapper "what it runs" Ir/call
printf '  %-13s %-46s %8s\n' bench_post "get_sqe + prep_send + sq_flush" "$POST"
printf '  %-13s %-46s %8s\n' bench_poll "peek_cqe + read user_data, res + cq_advance" "$POLL"
printf '  %-13s %-46s %8s\n' bench_recv "rx_peek + read first byte + rx_release" "$RECV"
printf '  %-13s %-46s %8s\n' bench_buf "buf_get + write first byte + buf_put" "$BUF"
printf '  %-13s %-46s %8s\n' bench_wakeup "sq_needs_wakeup (full fence + flags load)" "$WAKE"
printf '  %-13s %-46s %8s\n' bench_empty "an empty noinline call (the wrapper overhead)" "$EMPTY"
echo "  wall clock, this host: $(wall "$TMP/native") ns/msg for post+poll with the consumer inline," \
     "$(wall "$TMP/native-t") ns/msg round trip with a consumer thread"
echo "ring fast path: post+flush $POST instr/msg, poll+advance $POLL instr/msg, send buffer get+put $BUF instr/msg (callgrind, $M messages)"
echo "recv: peek+release $RECV instr/msg (64-byte messages, $RX_UNITS-unit ring; callgrind, $M messages)"
