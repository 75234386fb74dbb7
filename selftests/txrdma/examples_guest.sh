#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "examples" suite (run_vm_tests.py, two guests): the
# programs of examples/, built against the installed library through
# pkg-config (scripts/test.sh), run as a user would run them: inside a
# tenant with "txrdma-admin tenant exec", talking across the two hosts.
#
#   examples_guest.sh server|client PEER_GUEST
#
# Server (guest 1): reqresp server, onesided server and epoll_server for
# two clients.  Client (guest 0): reqresp client (200 requests),
# onesided client, and two reqresp clients of the epoll server at once.
# What each program printed is checked, then both tenants hold nothing.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

role=$1
p=$2
EX=${TXRDMA_EXAMPLES:-$TXRDMA_ROOT/examples}
case "$role" in
server | client) ;;
*)
	echo "usage: $0 server|client PEER_GUEST" >&2
	exit 2
	;;
esac
peer=g$p
g=g$TXRDMA_GUEST

check "$g: the examples are built (make -C examples)" \
	test -x "$EX/reqresp" -a -x "$EX/onesided" -a -x "$EX/epoll_server"
diag "$(ldd "$EX/reqresp" | grep txrdma)"
# a staged install needs its rpath (examples/Makefile): say so, not
# "error while loading shared libraries" in each program's output
check "$g: the examples find libtxrdma (built with the rpath of a staged install?)" \
	bash -c "ldd '$EX/reqresp' | grep -q 'libtxrdma.so.0 => /'"
at_peer_add "$peer" "$(txrdma_peer_addr "$p")" 2:8
at_tenant_add ex
# run NAME CMD...: CMD inside tenant ex, as a user starts it
run() {
	local name=$1
	shift
	timeout -k 10 240 "$ADMIN" tenant exec ex -- "$@" > "/run/$name.out" 2>&1
}
# saw NAME REGEX: its output has a line matching REGEX
saw() {
	grep -qE "$2" "/run/$1.out"
}
show() {
	sed "s/^/# $1: /" "/run/$1.out"
}

if [ "$role" = server ]; then
	run reqresp-server "$EX/reqresp" server 501 &
	s1=$!
	run onesided-server "$EX/onesided" server 502 &
	s2=$!
	run epoll-server "$EX/epoll_server" 503 2 &
	s3=$!
	check "$g: the servers listen" at_wait_until 60 bash -c \
		'grep -q listening /run/reqresp-server.out &&
		 grep -q listening /run/onesided-server.out &&
		 grep -q listening /run/epoll-server.out'
	txrdma_signal ex-servers-ready
	wait $s1; r1=$?
	wait $s2; r2=$?
	wait $s3; r3=$?
	for n in reqresp-server onesided-server epoll-server; do show $n; done
	check "$g: reqresp server exited 0" test $r1 -eq 0
	check "$g: reqresp server answered 200 requests from $peer" \
		saw reqresp-server "^reqresp server: answered 200 requests from $peer\$"
	check "$g: onesided server exited 0" test $r2 -eq 0
	check "$g: onesided server found the client's WRITE in its table" \
		saw onesided-server "WRITE of 4096 bytes at [0-9]+ is there"
	check "$g: epoll_server exited 0" test $r3 -eq 0
	check "$g: epoll_server answered both clients' 300 requests" \
		saw epoll-server "^epoll_server: 2 clients, 300 requests answered"
else
	check "$g: the servers of guest $p listen" \
		txrdma_wait_file ex-servers-ready 300
	run reqresp-client "$EX/reqresp" client "$peer" 501 200
	r1=$?
	run onesided-client "$EX/onesided" client "$peer" 502
	r2=$?
	run epoll-client-a "$EX/reqresp" client "$peer" 503 100 &
	ca=$!
	run epoll-client-b "$EX/reqresp" client "$peer" 503 200 &
	cb=$!
	wait $ca; ra=$?
	wait $cb; rb=$?
	for n in reqresp-client onesided-client epoll-client-a epoll-client-b; do
		show $n
	done
	check "$g: reqresp client exited 0" test $r1 -eq 0
	check "$g: reqresp client: 200 round trips, every answer right" \
		saw reqresp-client "^reqresp client: 200 round trips with $peer, every answer right"
	check "$g: onesided client exited 0" test $r2 -eq 0
	check "$g: onesided client read the table right, its WRITE verified" \
		saw onesided-client "READ 65536 bytes of table [0-9]+ right, WRITE of 4096 bytes verified"
	check "$g: two clients of the epoll server at once exited 0" \
		test $ra -eq 0 -a $rb -eq 0
	check "$g: epoll clients: 100 and 200 round trips, every answer right" \
		bash -c 'grep -q "^reqresp client: 100 round trips .*every answer right" /run/epoll-client-a.out &&
			 grep -q "^reqresp client: 200 round trips .*every answer right" /run/epoll-client-b.out'
	txrdma_signal ex-clients-done
fi
at_tenant_released ex
txrdma_signal "$g-ex-done"
check "$g: $peer finished too" txrdma_wait_file "$peer-ex-done" 600
at_finish
tap_done
