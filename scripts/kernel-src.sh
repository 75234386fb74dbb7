# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/kunit.sh and scripts/debug-kernel.sh: the Debian
# kernel source (package linux-source-6.1) unpacked once into the cache,
# shared by the KUnit (UML) build and the debug kernel build.  Both build
# out of tree (O=), so the source tree itself stays clean.
#
# txrdma_kernel_src: sets SRC (the unpacked tree) and SRCVER; unpacks
# /usr/src/linux-source-*.tar.xz when the tree is missing or older than
# the tarball.  Needs CACHE.  Returns 1 (with a message) without a tarball.
txrdma_kernel_src() {
	local tarball
	# shellcheck disable=SC2012 # versioned names, sorted by version
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$tarball" ]; then
		echo "no /usr/src/linux-source-*.tar.xz (run scripts/setup.sh)" >&2
		return 1
	fi
	SRCVER=$(basename "$tarball" .tar.xz)
	SRC=$CACHE/$SRCVER
	mkdir -p "$CACHE"
	# one unpacking at a time: scripts/test.sh builds the debug kernel
	# in the background while its other stages run kunit.sh
	local lock rc=0
	exec {lock}>"$CACHE/.$SRCVER.lock"
	flock "$lock"
	if [ ! -f "$SRC/.txrdma-unpacked" ] || [ "$tarball" -nt "$SRC/.txrdma-unpacked" ]; then
		echo "unpacking $tarball into $CACHE" >&2
		rm -rf "$SRC"
		if tar -C "$CACHE" -xf "$tarball"; then
			touch "$SRC/.txrdma-unpacked"
		else
			rc=1
		fi
	fi
	exec {lock}>&-
	return $rc
}
