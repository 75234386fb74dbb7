#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the "ep_race" suite (run_vm_tests.py, one guest):
#
#   ep_race_guest.sh SECONDS SEED
#
# Adds the guest itself as peer "self" (its own address: rxe loopback)
# and tenant "race", then runs ep_race in that tenant for SECONDS: its
# threads pair endpoints with each other over the self peer while
# another destroys the ids being paired and a third replaces the files
# under their fds (see ep_race.c).  After the process: the tenant's
# QPs, endpoints and pinned bytes are back to 0, "tenant del" works
# without force, the peer can be deleted and the module unloaded.
DIR=$(cd "$(dirname "$0")" && pwd)
. "$DIR/tap.sh"
. "$TXRDMA_ROOT/tools/vm/guestlib.sh"
. "$DIR/attack_lib.sh"

secs=${1:-100}
seed=${2:-0x6570}
service=0x7ace

diag "$(nproc) vCPU(s); preemption: $(cat /sys/kernel/debug/sched/preempt 2>/dev/null)"
at_peer_add self "$(at_self_addr)" 4:8
at_tenant_add race qps 64 endpoints 64 pinned 1G
at_tap "ep_race" at_in_tenant race \
	timeout -k 10 $((secs + 60)) "$DIR/ep_race" race self $service "$secs" "$seed"
"$ADMIN" tenant show race | sed 's/^/# /'
at_finish
tap_done
