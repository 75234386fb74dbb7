#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build txrdma.ko the way a packaged install does: "dkms add" and "dkms
# build" of this checkout's dkms.conf against the installed headers of
# KVER (default: the newest with headers, as setup.sh picks).  DKMS runs
# with a private tree (--dkmstree/--sourcetree under $1, default a new
# temporary directory), so nothing is registered on the host and no
# other kernel's autoinstall picks it up.  Prints the built module's path
# on the last line; exit 0 only if DKMS built it.
#
#   scripts/dkms-build.sh [WORKDIR]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${1:-$(mktemp -d)}
KVER=${KVER:-$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1 |
	       awk -F/ '{print $4}')}
NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$ROOT/dkms.conf")
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ROOT/dkms.conf")

command -v dkms >/dev/null || { echo "dkms-build: dkms is not installed (scripts/setup.sh)" >&2; exit 1; }
[ -n "$KVER" ] || { echo "dkms-build: no kernel headers under /lib/modules/*/build" >&2; exit 1; }

# the source as a release tarball would hold it: sources, not objects
SRC=$WORK/src/$NAME-$VER
rm -rf "$WORK/src" "$WORK/dkms"
mkdir -p "$SRC/kmod" "$WORK/dkms"
cp "$ROOT/dkms.conf" "$ROOT/Kbuild" "$ROOT/Makefile" "$SRC/"
cp -r "$ROOT/uapi" "$SRC/"
cp "$ROOT"/kmod/*.[ch] "$ROOT/kmod/Kbuild" "$SRC/kmod/"

D=(dkms --dkmstree "$WORK/dkms" --sourcetree "$WORK/src")
"${D[@]}" add -m "$NAME" -v "$VER"
if ! "${D[@]}" build -m "$NAME" -v "$VER" -k "$KVER"; then
	cat "$WORK/dkms/$NAME/$VER/build/make.log" 2>/dev/null | tail -30 >&2
	exit 1
fi
"${D[@]}" status -m "$NAME" -v "$VER" -k "$KVER"
ko=$(find "$WORK/dkms/$NAME/$VER/$KVER" -name "$NAME.ko*" | head -1)
[ -n "$ko" ] || { echo "dkms-build: DKMS said built but left no $NAME.ko" >&2; exit 1; }
case "$ko" in
*.ko.xz) xz -dkf "$ko"; ko=${ko%.xz} ;;
*.ko.zst) zstd -dqf "$ko"; ko=${ko%.zst} ;;
esac
echo "$ko"
