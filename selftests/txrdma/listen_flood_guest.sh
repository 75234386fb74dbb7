#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "listen_flood" suite (run_vm_tests.py, one guest):
#
#   listen_flood_guest.sh MAX SECONDS
#
# Tenant "flood" on a cgroup with the memory controller; listen_flood
# runs in it, drops to uid 65534 and calls EP_LISTEN on up to MAX
# services for up to SECONDS, while another process times open() and
# close() of /dev/txrdma (see listen_flood.c for what it asserts).
# Then the tenant holds nothing and is deleted without force; rmmod.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

max=${1:-2000000}
secs=${2:-20}

check "memory controller for the tenants' cgroups" \
	sh -c "echo +memory > $CGROOT/cgroup.subtree_control"
at_tenant_add flood
diag "memory: $(grep -E '^(MemTotal|MemFree|Slab):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
at_tap "listen_flood" at_in_tenant flood \
	timeout -k 10 $((secs + 300)) "$DIR/listen_flood" flood "$CGROOT/at-flood" \
	"$max" "$secs" 200
diag "memory: $(grep -E '^(MemTotal|MemFree|Slab):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
at_finish
tap_done
