#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a txrdma-vm guest, started by the initramfs through switch_root.
# The root file system is the host's root (9p, read-only) under a tmpfs
# overlay, so every host tool and the repository are at their host paths.
#
# Inputs (written by the host, see txrdmavm.py):
#   kernel command line  txrdmavm.guest=N
#   9p tag "job"         the run's job directory, mounted at /txrdma-job
#   /txrdma-job/gN/env   shell assignments (TXRDMA_NGUESTS, TXRDMA_ROOT, ...)
#   /txrdma-job/gN/cmd   the command, run with sh -c
#   /txrdma-job/topology one line per guest NIC
# Outputs: /txrdma-job/gN/{output,dmesg,boot_time,status}; status is written
# last (after dmesg), so its presence means the guest is done.  On a kernel
# with kmemleak (the debug lane's) also kmemleak (the report of a scan at
# the end) and {module,cmd}_jiffies (when txrdma.ko was first loaded and
# the command started: the host counts leaks from then on).

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022

JOB=/txrdma-job
G=

log() {
	echo "txrdma-vm[g$G]: $*"
}

halt_now() {
	sync
	# /sbin/poweroff is systemctl on Debian; busybox powers off directly.
	busybox poweroff -f 2>/dev/null
	echo o > /proc/sysrq-trigger
	sleep 1000000
}

# Early failure: nowhere to report but the console.
early_die() {
	log "FATAL: $*"
	halt_now
}

# --- basic mounts -----------------------------------------------------------
mount -t proc proc /proc || early_die "mount /proc"
mount -t sysfs sysfs /sys || early_die "mount /sys"
mount -t devtmpfs devtmpfs /dev || early_die "mount /dev"
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=0755 run /run
# /tmp stays the overlay's view of the host's /tmp (writes go to the
# guest's tmpfs upper layer): a checkout under /tmp must stay visible
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ip link set lo up 2>/dev/null
# shellcheck disable=SC2013 # the command line is split into words on purpose
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	txrdmavm.guest=*) G=${arg#txrdmavm.guest=} ;;
	esac
done
[ -n "$G" ] || early_die "no txrdmavm.guest= on the kernel command line"
echo "txrdma-g$G" > /proc/sys/kernel/hostname
# every SysRq key: a hung guest's tasks can be dumped to its console
# from the host (QMP send-key alt-sysrq-w, -t)
echo 1 > /proc/sys/kernel/sysrq

mkdir -p $JOB
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 job $JOB ||
	early_die "mount of the job share (9p tag job) failed"
OUT=$JOB/g$G
[ -r "$OUT/env" ] || early_die "$OUT/env missing"
. "$OUT/env"

TXRDMA_GUEST=$G
TXRDMA_MODDIR=${TXRDMA_MODDIR:-}
TXRDMA_JOB=$JOB
TXRDMA_OUT=$OUT
# the cluster's peer key (txrdmavm.py), private to root as a key must be
TXRDMA_PEER_KEY=/run/txrdma-peer.key
if [ -r "$JOB/peer.key" ]; then
	(umask 077 && cat "$JOB/peer.key" > "$TXRDMA_PEER_KEY")
fi
HOME=/root
TERM=${TXRDMA_TERM:-vt100}
PATH="$TXRDMA_ROOT/tools/txrdma-admin:$PATH"
# boots of this guest before this one (txrdmavm.Cluster.restart())
TXRDMA_BOOT=${TXRDMA_BOOT:-0}
export TXRDMA_GUEST TXRDMA_NGUESTS TXRDMA_JOB TXRDMA_OUT TXRDMA_ROOT \
	TXRDMA_KO TXRDMA_PEER_KEY TXRDMA_BOOT HOME TERM PATH

: > "$OUT/output"

# the kernel's jiffies now (kmemleak reports an object's allocation time
# in jiffies)
jiffies_now() {
	awk '/^jiffies:/ { print $2; exit }' /proc/timer_list 2>/dev/null
}

# kmemleak (debug kernels): scan twice at the end (what a single scan
# catches in flight, e.g. a pointer only in a register or mid-list, is
# referenced again by the second; kmemleak never reports an object
# younger than 5 s) and keep the report for the host (txrdmavm.py counts
# what was allocated after the module's load or names txrdma)
kmemleak_scan() {
	kl=/sys/kernel/debug/kmemleak
	[ -w $kl ] || return 0
	t0=$(cut -d' ' -f1 /proc/uptime)
	echo scan > $kl
	echo scan > $kl
	cat $kl > "$OUT/kmemleak.tmp" 2>&1
	mv "$OUT/kmemleak.tmp" "$OUT/kmemleak"
	log "kmemleak: scanned twice from ${t0}s, $(grep -c '^unreferenced object' "$OUT/kmemleak") object(s) reported (host filters)"
}

finish() {
	kmemleak_scan
	dmesg > "$OUT/dmesg" 2>&1
	echo "$1" > "$OUT/status.tmp"
	mv "$OUT/status.tmp" "$OUT/status"
	log "exit $1, powering off"
	halt_now
}

SETUP_ERR=
setup_fail() {
	SETUP_ERR="$*"
	log "setup failed: $*"
	echo "txrdma-vm: guest $G setup failed: $*" >> "$OUT/output"
	return 1
}

# --- the kernel's modules directory -------------------------------------------
# A kernel that is not the host's (the debug lane's) comes with its own
# modules directory (TXRDMA_MODDIR, a host path visible through the 9p
# root): it becomes /lib/modules/$(uname -r) in the overlay (the host's
# /lib is untouched), so modprobe finds modules.builtin and a built-in
# driver "loads".
link_moddir() {
	[ -n "$TXRDMA_MODDIR" ] || return 0
	kver=$(uname -r)
	[ "$(basename "$TXRDMA_MODDIR")" = "$kver" ] ||
		{ setup_fail "modules directory $TXRDMA_MODDIR is not for the running kernel $kver"; return 1; }
	[ -d "$TXRDMA_MODDIR" ] ||
		{ setup_fail "modules directory $TXRDMA_MODDIR missing"; return 1; }
	if [ ! -e "/lib/modules/$kver" ] &&
	   ! { mkdir -p /lib/modules && ln -s "$TXRDMA_MODDIR" "/lib/modules/$kver"; }; then
		setup_fail "cannot link /lib/modules/$kver"
		return 1
	fi
	log "kernel $kver, modules from $TXRDMA_MODDIR"
	return 0
}

# --- network and rxe ----------------------------------------------------------
# Topology line: guest G netdev ID link A-B mac MAC addr IP/24
#                peer_guest P peer_addr IP ifname ETH rxe RXE
mac_to_dev() {
	for d in /sys/class/net/*; do
		if [ "$(cat "$d/address" 2>/dev/null)" = "$1" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

wait_active() {
	# Bounded poll (20 s) for the rxe port to reach ACTIVE.
	i=0
	while [ $i -lt 200 ]; do
		if rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

setup_net() {
	modprobe virtio_net || { setup_fail "modprobe virtio_net"; return 1; }
	modprobe virtio_rng 2>/dev/null
	modprobe -a rdma_rxe ib_uverbs rdma_ucm rdma_cm ||
		{ setup_fail "modprobe rdma_rxe ib_uverbs rdma_ucm rdma_cm"; return 1; }
	[ -r $JOB/topology ] || { setup_fail "$JOB/topology missing"; return 1; }
	rxes=
	while read -r _ g _ nd _ _ _ mac _ addr _ _ _ _ _ ifn _ rxe; do
		[ "$g" = "$G" ] || continue
		dev=$(mac_to_dev "$mac") ||
			{ setup_fail "no NIC with MAC $mac (netdev $nd)"; return 1; }
		if [ "$dev" != "$ifn" ]; then
			setup_fail "NIC $mac is $dev, topology says $ifn"
			return 1
		fi
		ip link set dev "$dev" up ||
			{ setup_fail "ip link set $dev up"; return 1; }
		ip addr add "$addr" dev "$dev" ||
			{ setup_fail "ip addr add $addr dev $dev"; return 1; }
		rdma link add "$rxe" type rxe netdev "$dev" ||
			{ setup_fail "rdma link add $rxe type rxe netdev $dev"; return 1; }
		rxes="$rxes $rxe"
	done < $JOB/topology
	for r in $rxes; do
		wait_active "$r" ||
			{ setup_fail "$r did not become ACTIVE: $(rdma link show "$r/1" 2>&1)"; return 1; }
	done
	log "rxe up:$rxes"
	return 0
}

setup_module() {
	[ "${TXRDMA_LOAD_MODULE:-1}" = 1 ] || return 0
	[ -r "$TXRDMA_KO" ] ||
		{ setup_fail "module $TXRDMA_KO not found (build it, or use --no-module)"; return 1; }
	# before the load: what the module's init allocates counts too
	j=$(jiffies_now)
	# shellcheck disable=SC2086 # parameters are split on purpose
	if ! err=$(insmod "$TXRDMA_KO" ${TXRDMA_MODPARAMS:-} 2>&1); then
		setup_fail "insmod $TXRDMA_KO: $err"
		return 1
	fi
	echo "$j" > "$OUT/module_jiffies"
	log "loaded $TXRDMA_KO"
	return 0
}

link_moddir && setup_net && setup_module

cd "$TXRDMA_ROOT" || cd /

# --- interactive shell ------------------------------------------------------
if [ "${TXRDMA_SHELL:-0}" = 1 ]; then
	[ -n "$SETUP_ERR" ] && echo "*** setup failed: $SETUP_ERR (shell anyway)"
	if [ -n "${TXRDMA_ROWS:-}" ] && [ -n "${TXRDMA_COLS:-}" ]; then
		stty -F /dev/ttyS0 rows "$TXRDMA_ROWS" cols "$TXRDMA_COLS" 2>/dev/null
	fi
	echo "txrdma-vm: guest shell; 'exit' or Ctrl-D powers off (Ctrl-a x kills QEMU)"
	sh_bin=/bin/bash
	[ -x $sh_bin ] || sh_bin=/bin/sh
	setsid -w -c "$sh_bin" -l <>/dev/ttyS0 >&0 2>&0
	finish $?
fi

# --- the command ----------------------------------------------------------------
if [ -n "$SETUP_ERR" ]; then
	finish 125
fi
cut -d' ' -f1 /proc/uptime > "$OUT/boot_time"
jiffies_now > "$OUT/cmd_jiffies"
log "running command"
sh -c "$(cat "$OUT/cmd")" </dev/null >>"$OUT/output" 2>&1
st=$?
cut -d' ' -f1 /proc/uptime > "$OUT/end_time"
finish $st
