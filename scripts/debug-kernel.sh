#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the debug kernel of the debug lane and txrdma.ko
# against it.
#
# Debian's kernel has no KASAN, lockdep or kmemleak.  This builds an
# x86_64 kernel from the same linux-source-6.1, configured by
# scripts/debug-kernel.config merged onto allnoconfig: what a txrdma-vm
# guest needs, built in (virtio, 9p, overlayfs, rxe, uverbs, rdma_cm),
# plus KASAN, lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP,
# kmemleak, DEBUG_OBJECTS, failslab.  Everything lives in the cache:
#
#   $TXRDMA_CACHE/debug-kernel/build/   the kernel build tree (O=)
#   $TXRDMA_CACHE/debug-kernel/lib/modules/KVER/
#                                       modules.builtin* and depmod's
#                                       indexes: guests link it as their
#                                       /lib/modules/KVER, so modprobe of
#                                       a built-in driver succeeds; its
#                                       "build" links to the build tree
#   $TXRDMA_CACHE/debug-kernel/mod/     a copy of Kbuild, kmod/ and uapi/;
#                                       mod/kmod/txrdma.ko is built there,
#                                       so the checkout's kmod/txrdma.ko
#                                       (the Debian kernel's) is untouched
#   $TXRDMA_CACHE/debug-kernel/env      TXRDMA_KERNEL, TXRDMA_MODDIR,
#                                       TXRDMA_KO, KVER of the lane
#
# Both builds are incremental: make runs every time and rebuilds what
# changed (nothing: about 11 s); .config is regenerated only when the
# fragment or the source changed; the module's sources are copied only
# when their content changed.
#
# Usage: scripts/debug-kernel.sh [--kernel-only]
#   --kernel-only  do not build txrdma.ko
# Environment: TXRDMA_CACHE (default ~/.cache/txrdma), DEBUG_KERNEL_JOBS
# (make -j, default 2); to try a variant of the config beside the lane's:
# TXRDMA_DEBUG_KERNEL_DIR (default $TXRDMA_CACHE/debug-kernel) and
# DEBUG_KERNEL_CONFIG (default scripts/debug-kernel.config).
# Output: the env file's assignments on stdout, progress on stderr.
# Exit status non-zero when anything failed to build.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME
export TXRDMA_CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
CACHE=$TXRDMA_CACHE
FRAG=$(readlink -f "${DEBUG_KERNEL_CONFIG:-$ROOT/scripts/debug-kernel.config}")
JOBS=${DEBUG_KERNEL_JOBS:-2}
DK=${TXRDMA_DEBUG_KERNEL_DIR:-$CACHE/debug-kernel}
BUILD=$DK/build
MOD=$DK/mod
# the kernel is x86_64 whatever the host's make would default to
# (ARCH=x86 would let allnoconfig pick a 32-bit kernel)
export ARCH=x86_64

kernel_only=0
for a in "$@"; do
	case "$a" in
	--kernel-only) kernel_only=1 ;;
	-h | --help) sed -n '3,40p' "$0"; exit 0 ;;
	*) echo "debug-kernel.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done

log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: FAILED: $*" >&2; exit 1; }
now() { date +%s; }

mkdir -p "$DK" "$BUILD"
# one build of this tree at a time (two checkouts may share the cache)
exec 9>"$DK/lock"
if ! flock -n 9; then
	log "another debug kernel build holds $DK/lock, waiting"
	flock 9
fi

# shellcheck source=scripts/kernel-src.sh
. "$ROOT/scripts/kernel-src.sh"
txrdma_kernel_src || die "no kernel source"

KVER=
t0=$(now)
# .config: the fragment on allnoconfig; regenerated only when the
# fragment or the source changed, so make's own dependency tracking
# stays valid
frag_sum=$( { sha256sum < "$FRAG"; echo "$SRCVER"; stat -c %Y "$SRC/.txrdma-unpacked"; } |
	   sha256sum | cut -c1-16)
if [ ! -f "$BUILD/.config" ] || [ "$(cat "$DK/config.sum" 2>/dev/null)" != "$frag_sum" ]; then
	log "configuring $BUILD from $(basename "$FRAG") on allnoconfig"
	make -C "$SRC" O="$BUILD" KCONFIG_ALLCONFIG="$FRAG" allnoconfig \
		> "$DK/config.log" 2>&1 || { cat "$DK/config.log" >&2; die "allnoconfig"; }
	# every line of the fragment must have made it (a missing
	# dependency drops a symbol silently otherwise)
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		got=$(grep -E "^(# )?$sym( is not set|=)" "$BUILD/.config" || true)
		if [ "$got" != "$line" ] &&
		   ! { [ -z "$got" ] && [[ $line == "# "* ]]; }; then
			echo "debug-kernel: $sym: asked '$line', got '${got:-nothing}'" >&2
			missing=$((missing + 1))
		fi
	done < "$FRAG"
	[ $missing -eq 0 ] || die "$missing line(s) of $FRAG not in the final .config"
	echo "$frag_sum" > "$DK/config.sum"
fi
log "make -j$JOBS bzImage modules in $BUILD (log: $DK/build.log)"
if ! make -C "$SRC" O="$BUILD" -j"$JOBS" bzImage modules > "$DK/build.log" 2>&1; then
	grep -E 'error|Error' "$DK/build.log" | head -20 >&2
	tail -20 "$DK/build.log" >&2
	die "kernel build (see $DK/build.log)"
fi
KVER=$(make -s -C "$SRC" O="$BUILD" kernelrelease 2>/dev/null | tail -1)
case "$KVER" in
*-txrdma-debug) ;;
*) die "kernel release '$KVER' lacks -txrdma-debug" ;;
esac
# modules.builtin*, modules.order and depmod's indexes, nothing else
# (every driver is built in); a fresh tree each time
rm -rf "$DK/lib.new"
make -C "$SRC" O="$BUILD" INSTALL_MOD_PATH="$DK/lib.new" modules_install \
	> "$DK/install.log" 2>&1 || { cat "$DK/install.log" >&2; die "modules_install"; }
[ -f "$DK/lib.new/lib/modules/$KVER/modules.builtin.bin" ] ||
	die "modules_install made no modules.builtin.bin for $KVER"
ln -sfn "$BUILD" "$DK/lib.new/lib/modules/$KVER/build"
rm -rf "${DK:?}/lib"
mv "$DK/lib.new/lib" "$DK/lib"
rmdir "$DK/lib.new"
echo "$KVER" > "$DK/kver"
t_kernel=$(($(now) - t0))
log "kernel $KVER: make took ${t_kernel}s"
BZIMAGE=$BUILD/arch/x86/boot/bzImage
MODDIR=$DK/lib/modules/$KVER

KO=$MOD/kmod/txrdma.ko
if [ $kernel_only -eq 0 ]; then
	t0=$(now)
	# stage the module's sources: copy a file only when its content
	# changed (keeps mtimes, so the build is incremental); drop files
	# the checkout no longer has
	stage() {
		mkdir -p "$(dirname "$2")"
		cmp -s "$1" "$2" || cp "$1" "$2"
	}
	mkdir -p "$MOD/kmod" "$MOD/uapi/linux"
	stage "$ROOT/Kbuild" "$MOD/Kbuild"
	stage "$ROOT/kmod/Kbuild" "$MOD/kmod/Kbuild"
	for f in "$ROOT"/kmod/*.[ch] "$ROOT"/uapi/linux/*.h; do
		case "$f" in *.mod.c) continue ;; esac
		stage "$f" "$MOD/${f#"$ROOT"/}"
	done
	for f in "$MOD"/kmod/*.[ch] "$MOD"/uapi/linux/*.h; do
		[ -e "$f" ] || continue
		case "$f" in *.mod.c) continue ;; esac
		[ -e "$ROOT/${f#"$MOD"/}" ] || rm -f "$f"
	done
	log "building txrdma.ko against $KVER in $MOD (log: $DK/kmod.log)"
	if ! make -C "$BUILD" M="$MOD" W=1 -j"$JOBS" modules > "$DK/kmod.log" 2>&1; then
		grep -E 'error|warning' "$DK/kmod.log" | head -20 >&2
		die "txrdma.ko against the debug kernel (see $DK/kmod.log)"
	fi
	[ -f "$KO" ] || die "$KO missing after the build"
	if grep -q 'warning:' "$DK/kmod.log"; then
		grep 'warning:' "$DK/kmod.log" >&2
		die "txrdma.ko against the debug kernel: warnings (see $DK/kmod.log)"
	fi
	log "txrdma.ko built in $(($(now) - t0))s"
fi

cat > "$DK/env.tmp" <<EOF
KVER=$KVER
TXRDMA_KERNEL=$BZIMAGE
TXRDMA_MODDIR=$MODDIR
TXRDMA_KO=$KO
TXRDMA_DEBUG_KERNEL_BUILD=$BUILD
TXRDMA_DEBUG_KERNEL_SECONDS=$t_kernel
EOF
mv "$DK/env.tmp" "$DK/env"
cat "$DK/env"
