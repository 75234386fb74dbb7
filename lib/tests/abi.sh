#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The shared library exports exactly the symbols of libtxrdma.map, each
# versioned, and carries the right soname.  Run from lib/tests.
LIB=../libtxrdma.so.0.1.0
MAP=../libtxrdma.map
fail=0
echo "TAP version 13"
echo "1..3"

soname=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = "libtxrdma.so.0" ]; then
	echo "ok 1 - soname is libtxrdma.so.0"
else
	echo "not ok 1 - soname is libtxrdma.so.0 (got '$soname')"; fail=1
fi

want=$(sed -n 's/^[[:space:]]*\(\(__\)\{0,1\}txrdma_[a-z0-9_]*\);.*/\1/p' "$MAP" | sort)
got=$(nm -D --defined-only "$LIB" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort)
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	echo "ok 2 - exported functions are exactly those in libtxrdma.map"
else
	echo "not ok 2 - exported functions are exactly those in libtxrdma.map"
	echo "# want: $(echo $want)"; echo "# got:  $(echo $got)"; fail=1
fi

# symbol -> node it is listed under in the map, e.g. "txrdma_open TXRDMA_0.1"
want_ver=$(awk '/^[A-Z0-9_.]+[[:space:]]*\{/ { node = $1 }
	/^[[:space:]]*(__)?txrdma_[a-z0-9_]*;/ { sub(/;.*/, "", $1); print $1, node }' "$MAP" | sort)
got_ver=$(nm -D --defined-only "$LIB" | awk '$2 == "T" && $3 ~ /@@/ { split($3, a, "@@"); print a[1], a[2] }' | sort)
if [ -n "$want_ver" ] && [ "$want_ver" = "$got_ver" ]; then
	echo "ok 3 - every export carries the version node of libtxrdma.map it is listed in"
else
	echo "not ok 3 - every export carries the version node of libtxrdma.map it is listed in"
	echo "# want: $(echo $want_ver)"; echo "# got:  $(echo $got_ver)"; fail=1
fi
exit $fail
