#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what txrdma's build, tests and main job need on Debian 12.
# Idempotent: packages already present are not touched, and a second run
# installs nothing (it says so).  Needs root (or sudo) only to install.
set -euo pipefail

PKGS=(
	# build
	build-essential pkg-config kmod libelf-dev flex bison bc
	linux-image-amd64 linux-headers-amd64
	# KUnit on UML, kselftest_harness.h and checkpatch.pl
	linux-source-6.1 python3
	# the debug kernel (scripts/debug-kernel.sh): the build group above
	# (flex, bison, bc, libelf-dev for objtool), xz to unpack the source,
	# depmod (kmod) and flock (util-linux); no module signing, no BTF,
	# so neither libssl-dev nor dwarves
	xz-utils
	# the module as packages install it (scripts/dkms-build.sh); man
	# page lint
	dkms mandoc
	# user space
	libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev
	# the database layers: Raft replication on libraft's engine (lib/raft);
	# libuv's headers for libraft's own TCP backend, raft_uv, the
	# baseline raft_bench measures against
	libraft-dev libuv1-dev
	# guests and what runs in them
	qemu-system-x86 busybox-static cpio iproute2 util-linux jq
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
	# benchmarks: instructions per message of the ring fast path; TCP
	# ping-pong beside txrdma (msg_bench.sh)
	valgrind sockperf
	# the main job's latency chart (scripts/run.sh)
	gnuplot-nox
	# tools/trace/txrdma-lat.bt, run in a guest by trace_events.sh
	bpftrace
)

missing=()
for p in "${PKGS[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#PKGS[@]} packages present, nothing to install"
else
	echo "setup: installing ${missing[*]}"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# a kernel image with its headers: what the module builds against and
# the guests boot (never the running kernel: the host may be a sandbox)
KVER=${KVER:-$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1 |
	       awk -F/ '{print $4}')}
if [ -z "$KVER" ] || [ ! -e "/boot/vmlinuz-$KVER" ]; then
	echo "setup: no kernel image with matching headers found" >&2
	exit 1
fi
echo "setup: kernel $KVER (image and headers present)"
