#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run txrdma's KUnit suites on UML.
#
# Debian's kernel has no KUnit and the RDMA core does not build for UML,
# so the pure-logic files of kmod/ (no rdma/ headers) and their suites
# are staged into a kernel source tree kept in a cache directory outside
# the checkout, and kunit.py builds and boots a UML kernel with them.
# Files are copied only when their content changed, so reruns are
# incremental.
#
# Environment: TXRDMA_CACHE (default ~/.cache/txrdma), KUNIT_JOBS.
# Output: kunit.py's report; exit status is kunit.py's.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# one cache for every step (CI may run without HOME)
HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME
export TXRDMA_CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
BUILD=$CACHE/uml-build
# shellcheck source=scripts/kernel-src.sh
. "$ROOT/scripts/kernel-src.sh"
txrdma_kernel_src || { echo "kunit.sh: no kernel source" >&2; exit 1; }

# stage: copy a file only if its content differs (keeps mtimes stable)
stage() {
	local from=$1 to=$2
	mkdir -p "$(dirname "$to")"
	cmp -s "$from" "$to" || cp "$from" "$to"
}
DST=$SRC/lib/txrdma
stage "$ROOT/kmod/tests/kunit/Kconfig" "$DST/Kconfig"
stage "$ROOT/kmod/tests/kunit/Makefile" "$DST/Makefile"
stage "$ROOT/uapi/linux/txrdma.h" "$DST/uapi/linux/txrdma.h"
stage "$ROOT/uapi/linux/txrdma_ring.h" "$DST/uapi/linux/txrdma_ring.h"
for f in txrdma_tbucket.c txrdma_tbucket.h txrdma_abi.c txrdma_abi.h \
	 txrdma_quota.c txrdma_quota.h txrdma_bfd.c txrdma_bfd.h \
	 txrdma_pool.c txrdma_pool.h \
	 txrdma_peer_wire.c txrdma_peer_wire.h txrdma_auth.c txrdma_auth.h \
	 txrdma_frame.c txrdma_frame.h txrdma_credit.c txrdma_credit.h \
	 txrdma_ringmath.c txrdma_ringmath.h txrdma_range.h \
	 txrdma_stall.c txrdma_stall.h txrdma_fault.c txrdma_fault.h \
	 txrdma_session.c txrdma_session.h \
	 txrdma_handoff.c txrdma_handoff.h; do
	stage "$ROOT/kmod/$f" "$DST/$f"
done
for f in "$ROOT"/kmod/tests/*_kunit.c; do
	stage "$f" "$DST/tests/$(basename "$f")"
done
grep -q '^obj-y += txrdma/' "$SRC/lib/Makefile" ||
	echo 'obj-y += txrdma/' >> "$SRC/lib/Makefile"
grep -q 'lib/txrdma/Kconfig' "$SRC/lib/Kconfig.debug" ||
	echo 'source "lib/txrdma/Kconfig"' >> "$SRC/lib/Kconfig.debug"

cd "$SRC"
exec ./tools/testing/kunit/kunit.py run \
	--build_dir="$BUILD" \
	--kunitconfig="$ROOT/kmod/tests/kunit/kunitconfig" \
	--jobs="${KUNIT_JOBS:-$(nproc)}" "$@"
