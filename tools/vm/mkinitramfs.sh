#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the tiny initramfs that txrdma-vm boots guests with.
#
# Usage: mkinitramfs.sh [KVER]
#
# The image holds a static busybox, the virtio/9p/overlay modules of KVER
# (from $TXRDMA_MODDIR if set, else /lib/modules/KVER; a module the
# kernel has built in is left out, so a kernel with all of them built in,
# like the debug lane's, gets an image with no module at all) and an
# /init that mounts the host root file system (9p tag "hostroot")
# read-only under a tmpfs overlay and switch_roots into the script named
# by "txrdmavm.init=" on the kernel command line.
#
# The image is written to ${TXRDMA_CACHE:-$HOME/.cache/txrdma}/initramfs-KVER.cpio.gz
# and rebuilt only when it is missing or older than one of its inputs.
# The path of the image is printed on stdout; progress goes to stderr.

set -eu

KVER=${1:-${KVER:-}}
if [ -z "$KVER" ]; then
	# Newest /lib/modules entry that has a bootable kernel image.  Never
	# `uname -r`: the host may run a kernel that guests cannot boot.
	# shellcheck disable=SC2012 # version directory names, sorted by version
	for d in $(ls -1 /lib/modules 2>/dev/null | sort -V -r); do
		if [ -e "/boot/vmlinuz-$d" ]; then
			KVER=$d
			break
		fi
	done
fi
[ -n "$KVER" ] || { echo "mkinitramfs: no kernel found in /lib/modules + /boot" >&2; exit 1; }

MODDIR=${TXRDMA_MODDIR:-/lib/modules/$KVER}
[ "$(basename "$MODDIR")" = "$KVER" ] ||
	{ echo "mkinitramfs: modules directory $MODDIR is not KVER $KVER's" >&2; exit 1; }
[ -d "$MODDIR" ] || { echo "mkinitramfs: $MODDIR missing" >&2; exit 1; }

CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
OUT=$CACHE/initramfs-$KVER.cpio.gz
SELF=$(readlink -f "$0")

BUSYBOX=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ]; then BUSYBOX=$b; break; fi
done
[ -n "$BUSYBOX" ] || { echo "mkinitramfs: busybox not found (apt-get install busybox-static)" >&2; exit 1; }
# The image has no shared libraries: busybox must be the static build.

MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"
# Libraries of the modules above that a kernel may lack altogether (9p
# without FSCACHE, virtio-pci without legacy support): neither a file nor
# built in is fine for these, not for the others.
OPTIONAL="fscache virtio_pci_legacy_dev"

# Resolve each module to its file (or to "builtin").
resolved=""
inputs="$SELF $BUSYBOX"
for m in $MODULES; do
	f=$(find "$MODDIR/kernel" \( -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" -o -name "$m.ko.gz" \) 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		if grep -q "/$m\.ko\$" "$MODDIR/modules.builtin" 2>/dev/null; then
			resolved="$resolved builtin:$m"
			continue
		fi
		case " $OPTIONAL " in
		*" $m "*)
			echo "mkinitramfs: $m not in this kernel, not needed" >&2
			continue
			;;
		esac
		echo "mkinitramfs: module $m neither in $MODDIR nor built in" >&2
		exit 1
	fi
	resolved="$resolved $f"
	inputs="$inputs $f"
done
[ -e "$MODDIR/modules.builtin" ] && inputs="$inputs $MODDIR/modules.builtin"

if [ -e "$OUT" ]; then
	stale=0
	for i in $inputs; do
		if [ -n "$(find "$i" -newer "$OUT" 2>/dev/null)" ]; then
			stale=1
			break
		fi
	done
	if [ $stale -eq 0 ]; then
		echo "$OUT"
		exit 0
	fi
fi

echo "mkinitramfs: building $OUT" >&2
mkdir -p "$CACHE"
TMP=$(mktemp -d "$CACHE/initramfs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/bin" "$TMP/dev" "$TMP/proc" "$TMP/sys" "$TMP/mods" \
	"$TMP/lower" "$TMP/rw" "$TMP/newroot"
cp "$BUSYBOX" "$TMP/bin/busybox"
for applet in sh mount umount insmod mkdir cat echo sleep switch_root \
		poweroff ls dmesg grep; do
	ln -s busybox "$TMP/bin/$applet"
done

: > "$TMP/mods/order"
for f in $resolved; do
	case "$f" in
	builtin:*)
		echo "mkinitramfs: ${f#builtin:} is built in, skipped" >&2
		continue
		;;
	esac
	base=$(basename "$f")
	case "$base" in
	*.ko.xz)  m=${base%.ko.xz};  xz -dc "$f" > "$TMP/mods/$m.ko" ;;
	*.ko.zst) m=${base%.ko.zst}; zstd -q -dc "$f" > "$TMP/mods/$m.ko" ;;
	*.ko.gz)  m=${base%.ko.gz};  gzip -dc "$f" > "$TMP/mods/$m.ko" ;;
	*.ko)     m=${base%.ko};     cp "$f" "$TMP/mods/$m.ko" ;;
	esac
	echo "$m" >> "$TMP/mods/order"
done

cat > "$TMP/init" <<'EOF'
#!/bin/sh
# txrdma-vm initramfs: mount the host root (9p) under a tmpfs overlay and
# switch_root into the guest init script named on the kernel command line.
export PATH=/bin

die() {
	echo "txrdma-vm initramfs: FATAL: $*"
	echo "txrdma-vm initramfs: powering off"
	poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 1000000
}

mount -t proc proc /proc || die "mount /proc"
mount -t sysfs sysfs /sys || die "mount /sys"
mount -t devtmpfs devtmpfs /dev || die "mount /dev"
# The image has no /dev/console node: reopen stdio on the real console.
exec </dev/console >/dev/console 2>&1

for m in $(cat /mods/order); do
	insmod "/mods/$m.ko" || die "insmod $m"
done

INIT=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	txrdmavm.init=*) INIT=${arg#txrdmavm.init=} ;;
	esac
done
[ -n "$INIT" ] || die "no txrdmavm.init= on the kernel command line"

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 hostroot /lower ||
	die "mount of the host root (9p tag hostroot) failed"
mount -t tmpfs -o mode=0755 rw /rw || die "mount tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	die "overlay mount failed"
[ -e "/newroot$INIT" ] || die "$INIT not found in the host root"

umount /proc /sys /dev 2>/dev/null
exec switch_root /newroot /bin/sh "$INIT"
die "switch_root failed"
EOF
chmod 0755 "$TMP/init"

(cd "$TMP" && find . -mindepth 1 ! -name 'initramfs.*' | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -9 > "$TMP/initramfs.cpio.gz"
mv "$TMP/initramfs.cpio.gz" "$OUT"
echo "$OUT"
