#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run txrdma's kselftests in QEMU guests and print TAP lines.

Suites:
  single  - 2 guests, each runs half of the single-host tests
            (guest_suite.sh: probe, netlink, tenants, endpoints, regions,
            rings, peers, dev show, load/unload cycles) on its own host
  link    - 2 guests; the host cuts and restores the link between them
            through QEMU's monitor; each guest checks the port events
            and then RDMA traffic crosses the link (link_events_guest.sh)
  smp     - 1 guest with 2 vCPUs, so that races really run in parallel:
            region_stress (twice) and region_test; and the device's
            poller moved between CPUs while it serves a pair
            (poller_dev.sh); the tracepoints against the module's
            counters (trace_events.sh)
  msg     - 2 guests (2 vCPUs each) add each other as peers, first with
            a wrong key (never Up); guest 1 serves and guest 0
            connects endpoint pairs and SENDs (msg_guest.sh, msg_test):
            100,000 messages checked byte by byte with 20,000 the other
            way, a slow receiver, bad input, a close while connected
  msgkill - 2 guests; guest 0 streams SENDs to guest 1, the host kills
            guest 1 (SIGKILL) mid-stream; guest 0 checks its error
            completions, the Down and its tenant's counts
  ep_race - 1 guest, twice (1 vCPU with preempt=full, then 2 vCPUs):
            a tenant's threads pair endpoints over a self peer while
            another destroys the ids being paired and a third replaces
            the files under their fds (ep_race_guest.sh, ep_race); then
            the tenant holds nothing, is deleted without force, rmmod
  pair_churn
          - 2 guests of 2 vCPUs: guest 0 makes an endpoint pair with
            guest 1, sends one message and closes, ~10 a second and
            then as fast as it can; guest 1 checks every message byte by
            byte; the peer stays Up, the tenants hold nothing after,
            rmmod (pair_churn_guest.sh, pair_churn)
  listen_flood
          - 1 guest: an unprivileged process of a tenant listens on up to
            2,000,000 services in 20 s; listeners must be bounded per
            tenant and charged to its memory cgroup, others' open() and
            close() of /dev/txrdma must stay fast, and so must closing
            the flooding file (listen_flood_guest.sh, listen_flood)
  cross_tenant
          - 2 guests: on guest 1 tenants ct-a and ct-b both listen on
            service 100 (ct-a first); a ct-b client on guest 0 must be
            paired with ct-b's process, and ct-a's must read nothing
            (cross_tenant_guest.sh, cross_tenant)
  examples
          - 2 guests: examples/ (built against the installed library
            through pkg-config) run in a tenant with tenant exec:
            reqresp, onesided (an export READ and WRITTEN), and an
            epoll server with two clients at once; their output is
            checked (examples_guest.sh)
  vread   - 3 guests: guest 0 rewrites 1,000 versioned records in a
            table it exports READ-only; guests 1 and 2 READ them
            one-sided through lib/txn's txn_vread (one at a time, and
            8 at once validated by their versions) for --vread-seconds,
            checking every record returned byte for byte: no torn
            record, no READ error (vread_guest.sh, vread_guest)
  raft    - 3 guests: Raft replication (libraft on lib/raft's
            raft_io over lib/txn's txrdma transport), a server per
            guest: a leader is elected and --raft-count commands of
            64 B-4 KiB are applied by all three in the same order,
            byte for byte (one hash), through a 2 s cut of the
            leader's link to one follower and then --raft-kills
            SIGKILLs of the leader's QEMU: each time a new leader
            must serve within --raft-serve-ms of the kill (host
            clock), and the guest boots again, rejoins from its file
            (kept on the host) and catches up before the next kill;
            every tenant ends empty (raft_guest.sh, raft_guest)
  txkv    - 3 guests: the main job's database (tools/txkv) on txrdma
            for --txkv-seconds: TPC-C-like new orders across two
            shards, each replicated on all three guests by Raft, by
            two-phase commit; the client reads a remote leader's
            records by RDMA READ from its exported tables (most reads
            one-sided, checked), then the replicas must be identical,
            no committed order lost, the history strictly
            serializable, every tenant empty (txkv_guest.sh)
  hostile - 1 guest of 2 vCPUs: a tenant's process scribbles over
            every word it shares with the module, calls every ioctl
            with bad arguments, maps, forks, closes while blocked and
            SIGKILLs itself with work in flight, under three seeds,
            while another tenant's stream over the same self peer must
            stay byte-exact; then both tenants hold nothing, rmmod
            (hostile_guest.sh, hostile, legit_stream)
  peers   - 3 guests add each other as peers (peers_guest.sh); the host
            cuts the link between guests 0 and 1 twenty times and times
            each Down event at both ends, while RDMA traffic runs on the
            other links for the soak time (no Down allowed there); then
            it pauses guest 2 and kills guest 1 and times the survivors'
            Down events
  rogue   - 1 guest whose module has a self peer; rogue_peer (librdmacm
            and libibverbs, no txrdma code) attacks the module's rdma_cm
            port: forged and replayed requests, 100 at once, an attacker
            with the key reading and writing with stale and guessed
            rkeys (rogue_guest.sh)
  txn     - 3 guests: two-phase commit of lib/txn over txrdma, guest 0
            coordinating, 1 and 2 taking part, 100,000 transactions per
            run, ~10 % voted no; runs plain, with the link g0-g1 cut for
            2 s at half-time, and with guest 2's participant killed
            (SIGKILL, with transactions in doubt) and restarted at
            half-time; an atomicity check over the three logs after
            each (txn_guest.sh, txn_guest, txn_check.py)
  logship - 3 guests: log shipping of lib/txn (txn_ship) by RDMA
            WRITEs: guests 1 and 2 append --logship-count entries in
            all into rings that guest 0 exports to them; guest 0 merges
            them in causal order and checks each entry's sequence, clock and
            payload byte for byte (logship_guest.sh, logship_guest)
  handoff - 3 guests: session hand-off.  Guest 0 streams --handoff-count
            messages (1 B-16 KiB) over a session to guest 1, which
            checks each byte for byte, in order, once; --handoffs times
            the mover's end is exported mid-stream (SENDs in flight)
            and imported by a process on the other mover guest (0 -> 2
            -> 0 ...), the state passed through the job directory.
            Every SEND completes exactly once over the hosts; each
            hand-off's pause at the receiver must stay below
            --handoff-bound-ms; a forged state, SENDs outside their
            region, replays of used states and an unknown peer are
            refused without disturbing the session (handoff_guest.sh,
            handoff.c)
  debug   - the debug-kernel lane: the ring, region and endpoint tests
            (guest_suite.sh, split over 2 guests), the smp suite (2
            vCPUs) and the msg suite (its fuzz case included) booted on
            the debug kernel (KASAN, lockdep, kmemleak, DEBUG_OBJECTS;
            scripts/debug-kernel.sh builds it and txrdma.ko against it);
            each guest unloads txrdma.ko at the end and kmemleak scans,
            any report fails the guest

--debug-kernel runs the suites named on the debug kernel instead of the
installed one (their TAP lines then say "debug-SUITE").

Every guest's TAP lines are printed as "ok - gG <suite>: ..." and every
guest adds "dmesg clean" and "exit status" lines of its own.  Exit 0 only
if nothing failed.
"""
import argparse
import contextlib
import io
import json
import os
import re
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
import txrdmavm  # noqa: E402

# lines of a failed test's own words repeated under its "not ok"
DETAIL_LINES = 12
TAP_LINE = re.compile(r"^(not ok|ok)\b(?:\s+\d+)?(?:\s+-)?\s*(.*)$")


# A guest's virtio-net transmit queue can stall for tens of seconds
# (environment.md, "Guests under load"): the kernel says "NETDEV
# WATCHDOG", rxe's frames stop, and whatever the suite was timing or
# waiting for fails.  That is the virtual NIC, not txrdma, so a suite
# whose failures come with it runs once more; the first attempt's
# lines stay in the log as comments, so they count neither way.  A
# second stall fails the suite: a rerun is not a pass.
NIC_STALL = re.compile(r"^#   dmesg: .*NETDEV WATCHDOG", re.M)


class Tee(io.StringIO):
    """Holds what is written, and writes it on to LIVE as well."""

    def __init__(self, live):
        super().__init__()
        self.live = live

    def write(self, text):
        if self.live:
            self.live.write(text)
        return super().write(text)


def run_suite(name, fn):
    """FN() (a suite; returns its failures), run again once if it failed
    while a guest's virtual NIC stalled; return the failures of the
    attempt that counts."""
    live = sys.stdout.isatty()  # a person watching: nothing counts lines
    for attempt in (1, 2):
        buf = Tee(sys.stdout if live else None)
        done = False
        try:
            with contextlib.redirect_stdout(buf):
                failed = fn()
            done = True
        finally:
            if not done and not live:   # an exception: keep what it said
                sys.stdout.write(buf.getvalue())
        out = buf.getvalue()
        if attempt == 2 or not (failed and NIC_STALL.search(out)):
            if not live:
                sys.stdout.write(out)
            sys.stdout.flush()
            return failed
        if not live:
            for line in out.splitlines():
                print("# attempt 1: " + line)
        print("# %s: %d failures while a guest's virtio-net transmit queue "
              "stalled (NETDEV WATCHDOG: the virtual NIC, not txrdma); "
              "running it once more, and only that attempt counts"
              % (name, failed))
        sys.stdout.flush()
    return failed

def report(suite, results, extra_fail=None):
    """Print every guest's TAP lines and its own checks; return failures."""
    failed = 0
    for r in results:
        tag = "g%d %s" % (r.guest, suite)
        print("# ----- %s: output" % tag)
        detail = []     # a kselftest's lines since its RUN line
        for line in r.output.splitlines():
            m = TAP_LINE.match(line)
            if m:
                print("%s - %s: %s" % (m.group(1), tag, m.group(2)))
                if m.group(1) == "not ok":
                    failed += 1
                    # what the test said, where CI's short log shows it
                    for d in detail[-DETAIL_LINES:]:
                        print("#   detail: " + d)
                detail = []
            else:
                print("# " + line)
                if "#  RUN " in line:
                    detail = []
                else:
                    detail.append(line)
        if r.problems:
            print("not ok - %s: dmesg clean" % tag)
            for p in r.problems:
                print("#   dmesg: " + p)
            failed += 1
        else:
            print("ok - %s: dmesg clean" % tag)
        if r.status != 0 or r.error is not None:
            # the module's own account of what it reset or lost
            for line in r.module_lines():
                print("#   module: " + line)
        if r.status == 0 and r.error is None:
            print("ok - %s: guest command exited 0 (boot %.1fs, run %.1fs)"
                  % (tag, r.boot_s or 0, r.cmd_s or 0))
        else:
            print("not ok - %s: guest command: status %s %s"
                  % (tag, r.status, r.error or ""))
            print("# console tail:")
            for line in r.console_tail(60).splitlines():
                print("#   console: " + line)
            failed += 1
    if extra_fail:
        print("not ok - %s: host side: %s" % (suite, extra_fail))
        failed += 1
    return failed


def cluster(args, n, cmds, **kw):
    """A Cluster on the kernel the run uses (args.kernel_kw: the debug
    kernel's image, modules directory and module, or nothing).  On the
    debug kernel each guest's command ends by unloading txrdma.ko
    (unload_end.sh), so the kmemleak scan that follows sees whatever the
    module did not free."""
    if args.kernel_kw:
        end = "; st=$?; \"$TXRDMA_ROOT\"/selftests/txrdma/unload_end.sh; exit $st"
        if isinstance(cmds, str):
            cmds = "(%s)%s" % (cmds, end)
        else:
            cmds = ["(%s)%s" % (c, end) for c in cmds]
    kw.update(args.kernel_kw)
    return txrdmavm.Cluster(n, cmds, **kw)


# The single-host tests split between the two guests of the single
# suite: none needs the other guest, and each guest takes about half of
# the time (peer_admin.sh and load_cycles.sh, which unload the module,
# run last in theirs).
SINGLE_TESTS = [
    "probe_test netlink_test tenant_test region_test "
    "lib_region_test ep_test ring_test lib_ring_test fault_inject.sh",
    "probe_test tenant.sh ep_stats.sh region_dev.sh region_admin.sh "
    "region_stress dev_show.sh peer_admin.sh load_cycles.sh",
]


def suite_single(args, name="single", tests=SINGLE_TESTS):
    """guest_suite.sh in 2 guests, TESTS (a list of two strings, one per
    guest) split between them."""
    env = ""
    if args.cycles is not None:
        env = "TXRDMA_TENANT_CYCLES=%d TXRDMA_PEER_CYCLES=%d " % (
            args.cycles, args.cycles)
    if args.load_cycles is not None:
        env += "TXRDMA_LOAD_CYCLES=%d " % args.load_cycles
    if args.fault_scale is not None:
        env += "TXRDMA_FAULT_SCALE=%d " % args.fault_scale
    cmd = ["%sTXRDMA_TESTS='%s' selftests/txrdma/guest_suite.sh" % (env, t)
           for t in tests]
    with cluster(args, 2, cmd, timeout=args.timeout) as c:
        c.start()
        results = c.wait()
    return report(args.prefix + name, results)


def suite_link(args):
    cmd = "selftests/txrdma/link_events_guest.sh"
    err = None
    with cluster(args, 2, cmd, timeout=args.timeout) as c:
        c.start()
        try:
            for g in range(2):
                c.wait_file(g, "g%d-ready" % g, 240)
            t0 = time.monotonic()
            c.cut(0, 1)
            for g in range(2):
                c.wait_file(g, "g%d-down" % g, 120)
            print("# both guests saw DOWN %.0f ms after the cut"
                  % ((time.monotonic() - t0) * 1000))
            c.restore(0, 1)
        except (TimeoutError, RuntimeError) as e:
            err = str(e)
        results = wait_failfast(c, err)
    return report(args.prefix + "link", results, err)


def suite_msg(args):
    """Guest 0 is the client, guest 1 the server (msg_guest.sh); each is
    given the other as its peer.  They pace each other through the
    protocol itself; the host only collects their TAP and kernel logs."""
    env = "TXRDMA_MSG_COUNT=%d " % args.msg_count
    if args.msg_rev_count is not None:
        env += "TXRDMA_MSG_REV_COUNT=%d " % args.msg_rev_count
    if args.msg_skip:
        env += "TXRDMA_MSG_SKIP='%s' " % args.msg_skip
    if args.msg_seed is not None:
        env += "TXRDMA_MSG_SEED=%d " % args.msg_seed
    if args.msg_fuzz_count is not None:
        env += "TXRDMA_MSG_FUZZ_COUNT=%d " % args.msg_fuzz_count
    cmds = [env + "selftests/txrdma/msg_guest.sh client 1",
            env + "selftests/txrdma/msg_guest.sh server 0"]
    # 2 vCPUs each: completions, the poller and the processes really
    # run in parallel (a CQ use-after-free in pair teardown only ever
    # showed with 2)
    with cluster(args, 2, cmds, timeout=args.timeout, smp=2) as c:
        c.start()
        results = wait_failfast(c)
    return report(args.prefix + "msg", results)


def suite_msgkill(args):
    """Guest 0 streams SENDs to guest 1; once 2000 are done the host
    kills guest 1's QEMU (SIGKILL) and guest 0 checks its error
    completions, the Down and its tenant's counts (msgkill_guest.sh)."""
    killed = "killed by the test (msgkill suite)"
    cmds = ["selftests/txrdma/msgkill_guest.sh client 1",
            "selftests/txrdma/msgkill_guest.sh server 0"]
    err = None
    with cluster(args, 2, cmds, timeout=args.timeout) as c:
        c.start()
        try:
            c.wait_file(0, "streaming", 300)
            c.kill(1, killed, hard=True)
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
        results = c.wait()
    for r in results:
        if r.guest == 1 and r.error == killed:
            r.error = None
            r.status = 0
    return report(args.prefix + "msgkill", results, err)


# The session suite's cuts (session_guest.sh gives each run its grace
# and a detection time of 500 ms): a partition shorter than the grace
# (2 s; the peer's Down comes 500 ms into it), a carrier flap as short
# (the guests' kernels then hold the link down for up to 1 s more: a
# grace of 5 s), and a partition longer than the grace (1 s).
# (mode, seconds, partition: else the carrier goes)
SESSION_CUTS = (("short", 1.0, True), ("carrier", 1.0, False),
                ("long", 3.0, True))


def suite_session(args):
    """Guest 0 streams to guest 1 over an endpoint pair with
    TXRDMA_EP_F_SESSION (session_guest.sh, session_flap.c) while the host
    cuts their link, once for less than the grace and once for longer;
    the guests check what each cut did to the SENDs, the messages and
    the tenant."""
    ft = os.environ.get("TXRDMA_SESSION_FTRACE", "")
    # the debug kernel is built without BPF: no bpftrace there
    bpf = "0" if args.prefix.startswith("debug") else "1"
    cmds = ["TXRDMA_SESSION_FTRACE='%s' TXRDMA_TRACE_BPF=%s "
            "selftests/txrdma/session_guest.sh %s" % (ft, bpf, who)
            for who in ("client 1", "server 0")]
    err = None
    with cluster(args, 2, cmds, timeout=args.timeout, smp=2) as c:
        c.start()
        try:
            for mode, cut_s, part in SESSION_CUTS:
                c.wait_file(0, "%s-streaming" % mode, 300)
                t0 = time.monotonic()
                (c.partition if part else c.cut)(0, 1)
                # the cut's length is what the test is about
                time.sleep(cut_s)
                (c.heal if part else c.restore)(0, 1)
                print("# %s: %s for %.0f ms" % (
                    mode, "partition" if part else "carrier off",
                    (time.monotonic() - t0) * 1000))
                c.write_file("%s-done" % mode, "\n")
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
            for mode, _, _ in SESSION_CUTS:
                if not os.path.exists(c.job_path("%s-done" % mode)):
                    c.write_file("%s-done" % mode, "\n")
        results = wait_failfast(c, err)
    return report(args.prefix + "session", results, err)


def suite_multipath(args):
    """Two guests wired by two links (two rxe devices on each, one peer
    per path, the second "path-of" the first): guest 0 streams to guest 1
    over an endpoint pair with TXRDMA_EP_F_SESSION (multipath_guest.sh,
    session_flap.c) while the host partitions the link the pair is on,
    --mp-cuts times (links 0, 1, 0, ...), each time for longer than the
    session's grace; the guests check that no SEND failed, every message
    arrived once in order byte for byte, and that the pair moved to the
    other path at every cut; at the end guest 0 removes the device its
    session is on (rdma link del) under the stream, and the pair moves
    again (TXRDMA_MP_DEL=other: the device it is not on, and it stays
    where it is).  Each guest copies its trace of session, connection and
    liveness events to job/trace-client.txt and job/trace-server.txt;
    TXRDMA_MP_KEEP=1 in the environment keeps the run directory."""
    keep = os.environ.get("TXRDMA_MP_KEEP", "") == "1"
    # TXRDMA_MP_DEL=other: remove the device the session is not on
    mode = os.environ.get("TXRDMA_MP_DEL", "session")
    if mode not in ("session", "other"):
        raise SystemExit("TXRDMA_MP_DEL must be session or other")
    cmds = ["TXRDMA_MP_DEL=%s selftests/txrdma/multipath_guest.sh %s %d" % (
        mode, who, args.mp_cuts) for who in ("client 1", "server 0")]
    err = None
    with cluster(args, 2, cmds, timeout=args.timeout, smp=2,
                 paths=2, keep=keep) as c:
        if keep:
            print("# multipath: run directory kept: %s" % c.jobdir)
        c.start()
        try:
            c.wait_file(0, "mp-streaming", 300)
            for i in range(1, args.mp_cuts + 1):
                k = (i - 1) % 2
                t0 = time.monotonic()
                c.partition(0, 1, k)
                # the cut's length is what the test is about
                time.sleep(args.mp_cut_s)
                c.heal(0, 1, k)
                print("# cut %d: link %d partitioned for %.0f ms" % (
                    i, k, (time.monotonic() - t0) * 1000))
                c.write_file("mp-healed-%d" % i, "\n")
                c.wait_file(0, "mp-ready-%d" % i, 300)
            # guest 0 removes the device its session is on, under the stream
            c.wait_file(0, "mp-devdel", 300)
            print("# guest 0 removed the device its session was on")
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
        c.write_file("mp-done", "\n")
        results = wait_failfast(c, err)
    return report(args.prefix + "multipath", results, err)


def suite_txn(args):
    """Two-phase commit of lib/txn over txrdma across three guests
    (txn_guest.sh): runs plain, with the coordinator's link to one
    participant cut for 2 s at half-time, and with the other
    participant's process killed and restarted at half-time; guest 0
    checks atomicity over the three logs after each run."""
    runs = args.txn_runs.split()
    env = "TXRDMA_TXN_COUNT=%d TXRDMA_TXN_RUNS='%s' TXRDMA_TXN_SEED=%d " % (
        args.txn_count, args.txn_runs, args.seed)
    err = None
    with cluster(args, 3, env + "selftests/txrdma/txn_guest.sh",
                 timeout=args.timeout, smp=args.txn_smp) as c:
        c.start()
        try:
            if "cut" in runs:
                c.wait_file(None, "txn-cut-half", args.timeout)
                c.cut(0, 1)
                t0 = time.monotonic()
                time.sleep(2.0)     # the outage itself, not a wait
                c.restore(0, 1)
                print("# txn cut: link g0-g1 down for %.2f s"
                      % (time.monotonic() - t0))
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
        results = wait_failfast(c, err)
    return report(args.prefix + "txn", results, err)


def suite_logship(args):
    """Guest 0 reads, guests 1 and 2 write (logship_guest.sh); they
    meet through the job directory, the host only collects their TAP."""
    env = "TXRDMA_LOGSHIP_COUNT=%d " % args.logship_count
    cmds = [env + "selftests/txrdma/logship_guest.sh reader",
            env + "selftests/txrdma/logship_guest.sh writer",
            env + "selftests/txrdma/logship_guest.sh writer"]
    with cluster(args, 3, cmds, timeout=args.timeout) as c:
        c.start()
        results = wait_failfast(c)
    return report(args.prefix + "logship", results)


def suite_handoff(args):
    """Guest 1 receives, guests 0 and 2 move the sending end between
    them (handoff_guest.sh); they meet through the job directory and
    their own link, the host only collects their TAP (the receiver's
    includes the interruption bound).  TXRDMA_HANDOFF_TRACE=1 in the
    environment: every txrdma event traced, each guest's trace kept in
    the run directory (kept, and printed) as job/trace-gN.txt."""
    trace = os.environ.get("TXRDMA_HANDOFF_TRACE", "") == "1"
    env = ("TXRDMA_HANDOFF_COUNT=%d TXRDMA_HANDOFF_N=%d "
           "TXRDMA_HANDOFF_BOUND_MS=%d TXRDMA_HANDOFF_GRACE_MS=%d "
           "TXRDMA_HANDOFF_TRACE=%d " % (
               args.handoff_count, args.handoffs, args.handoff_bound_ms,
               args.handoff_grace_ms, trace))
    with cluster(args, 3, env + "selftests/txrdma/handoff_guest.sh",
                 timeout=args.timeout, keep=trace) as c:
        if trace:
            print("# handoff: traces kept in %s" % c.jobdir)
        c.start()
        results = wait_failfast(c)
    return report(args.prefix + "handoff", results)


def suite_smp(args):
    # trace_events.sh runs tools/trace/txrdma-lat.bt under bpftrace,
    # except on the debug kernel, which is built without BPF
    bpf = "0" if args.prefix.startswith("debug") else "1"
    cmd = ("cd selftests/txrdma && TXRDMA_TRACE_BPF=" + bpf + " "
           "TXRDMA_TESTS='region_stress region_test region_stress "
           "poller_dev.sh trace_events.sh' "
           "./guest_suite.sh")
    with cluster(args, 1, cmd, timeout=args.timeout, smp=2) as c:
        c.start()
        results = c.wait()
    return report(args.prefix + "smp", results)


def guest_failed(c, g):
    """Whether guest g has written a non-zero exit status."""
    status = c._read_job(g, "status")
    try:
        return status is not None and int(status.strip()) != 0
    except ValueError:
        return True


def wait_failfast(c, err=None, grace=120):
    """Cluster.wait() for guests that work together: once the host's part
    of the test has failed (ERR) or a guest has exited with a non-zero
    status, the others cannot finish what they wait for (a peer's
    entries, a rendezvous file), so they get GRACE seconds to finish
    their own checks and are then stopped, rather than each running out
    its whole timeout (1,500 s by default: a CI run that took 1,400 s
    longer than it should)."""
    failed_at = time.monotonic() if err else None
    while c.running():
        now = time.monotonic()
        if failed_at is None and any(guest_failed(c, g)
                                     for g in range(c.n)):
            failed_at = now
            print("# a guest failed: the others get %d s" % grace)
        if failed_at is not None and now - failed_at > grace:
            for g in c.running():
                c.kill(g, "stopped %d s after %s" % (
                    grace, "the host's part failed (%s)" % err if err
                    else "another guest failed"))
        for g in c.running():
            if now - c.started[g] > c.timeout:
                c.kill(g, "timed out after %ds" % c.timeout)
        time.sleep(0.5)
    return c.wait()


def wait_watching(c, grace=60, problem_grace=150):
    """Cluster.wait() for suites that expect to break the module: once a
    guest's QEMU has exited without its status (a kernel panic ends it:
    panic=-1 with -no-reboot), the others get GRACE seconds; once a
    guest's console shows a kernel problem (an Oops, a soft lockup, a
    slub report), every guest gets PROBLEM_GRACE seconds to finish its
    checks.  Then they are stopped, rather than waiting for timeouts
    that a guest whose CPU is stuck in the kernel would only run out."""
    dead_at = problem_at = None
    last_read = 0
    while c.running():
        now = time.monotonic()
        for g in range(c.n):
            p = c.procs[g]
            if (dead_at is None and p is not None and p.poll() is not None
                    and not os.path.exists(c.job_path("g%d/status" % g))):
                dead_at = now
                print("# guest %d died (no exit status): the others get "
                      "%d s" % (g, grace))
            if p is not None and p.poll() is None and (
                    now - c.started[g] > c.timeout):
                c.kill(g, "timed out after %ds" % c.timeout)
        if problem_at is None and now - last_read > 5:
            last_read = now
            for g in range(c.n):
                try:
                    with open(c.console_path(g), errors="replace") as f:
                        bad = txrdmavm.dmesg_problems(f.read())
                except OSError:
                    bad = []
                if bad:
                    problem_at = now
                    print("# guest %d: kernel problem on its console (%s): "
                          "%d s to finish" % (g, bad[0].strip(),
                                              problem_grace))
                    break
        if dead_at is not None and now - dead_at > grace:
            for g in c.running():
                c.kill(g, "stopped %d s after another guest died" % grace)
        if problem_at is not None and now - problem_at > problem_grace:
            for g in c.running():
                c.kill(g, "stopped %d s after a kernel problem (see the "
                       "dmesg lines)" % problem_grace)
        time.sleep(0.5)
    return c.wait()


def suite_ep_race(args):
    """The same race on one vCPU with full preemption (where it was seen
    to oops) and on two vCPUs, each in a guest of its own."""
    failed = 0
    cmd = "selftests/txrdma/ep_race_guest.sh %d %d" % (args.race_seconds,
                                                       args.seed)
    for smp, append in ((1, "preempt=full"), (2, "")):
        tag = "ep_race/smp%d%s" % (smp, "-" + append if append else "")
        with cluster(args, 1, cmd, timeout=args.race_seconds + 400,
                     smp=smp, append=append) as c:
            c.start()
            results = wait_watching(c)
        failed += report(args.prefix + tag, results)
    return failed


def suite_pair_churn(args):
    """Guest 0 churns pairs to guest 1 (pair_churn_guest.sh); two vCPUs
    each, where teardown races run in parallel."""
    cmds = ["selftests/txrdma/pair_churn_guest.sh client 1 %d %d"
            % (args.churn_seconds, args.seed),
            "selftests/txrdma/pair_churn_guest.sh server 0 %d %d"
            % (args.churn_seconds, args.seed)]
    with cluster(args, 2, cmds, timeout=args.churn_seconds + 900,
                 smp=2) as c:
        c.start()
        results = wait_watching(c)
    return report(args.prefix + "pair_churn", results)


def suite_listen_flood(args):
    cmd = "selftests/txrdma/listen_flood_guest.sh %d %d" % (
        args.flood_max, args.flood_seconds)
    with cluster(args, 1, cmd, timeout=args.flood_seconds + 600, smp=2,
                 mem=2048) as c:
        c.start()
        results = wait_watching(c)
    return report(args.prefix + "listen_flood", results)


def suite_cross_tenant(args):
    cmds = ["selftests/txrdma/cross_tenant_guest.sh client 1 %d" % args.seed,
            "selftests/txrdma/cross_tenant_guest.sh server 0 %d" % args.seed]
    with cluster(args, 2, cmds, timeout=900) as c:
        c.start()
        results = wait_watching(c)
    return report(args.prefix + "cross_tenant", results)


def suite_examples(args):
    cmds = ["selftests/txrdma/examples_guest.sh client 1",
            "selftests/txrdma/examples_guest.sh server 0"]
    with cluster(args, 2, cmds, timeout=900) as c:
        c.start()
        results = wait_watching(c)
    return report(args.prefix + "examples", results)


def suite_vread(args):
    """Guest 0 writes versioned records, guests 1 and 2 READ them
    one-sided and check each (vread_guest.sh); they meet through the
    job directory, the host only collects their TAP."""
    cmd = ("TXRDMA_VREAD_SECONDS=%d selftests/txrdma/vread_guest.sh"
           % args.vread_seconds)
    with cluster(args, 3, [cmd] * 3, timeout=args.timeout) as c:
        c.start()
        results = wait_failfast(c)
    return report(args.prefix + "vread", results)


def raft_served(c, above=0):
    """{term: (node, applied, down_ms, led_ms)} of the job's
    raft-serves.TERM files whose TERM is above ABOVE (only those are
    read): the leader's node, what it had applied when it began to
    serve, and on its own clock the ms from its Down of the last leader
    to leading (-1: it saw none) and from leading to serving."""
    out = {}
    for name in os.listdir(c.job_path()):
        m = re.fullmatch(r"raft-serves\.(\d+)", name)
        if not m or int(m.group(1)) <= above:
            continue
        try:
            with open(c.job_path(name)) as f:
                node, term, applied, down_ms, led_ms = f.read().split()
            out[int(m.group(1))] = (int(node), int(applied),
                                    float(down_ms), float(led_ms))
        except (OSError, ValueError):
            continue
    return out


def raft_downs(c):
    """The job's raft-down.* files: followers' Downs of their leader."""
    return {n for n in os.listdir(c.job_path())
            if re.fullmatch(r"raft-down\.\d+\.\d+\.\d+", n)}


def raft_kills(c, kills, lines):
    """Phase (a): KILLS times, once the leader of the moment says its
    pairs to both followers are up and neither lacks two windows (64)
    or more of its entries (raft-even.K), SIGKILL
    its QEMU, time the next leader's first applied command (its
    raft-serves file; the host's clock from the kill), power the guest
    on again and wait until it says it caught up.  Returns the seconds
    from each kill to the next leader serving; LINES gets TAP lines."""
    served_s = []
    for k in range(1, kills + 1):
        if any(os.path.exists(c.job_path("raft-%d" % n)) for n in (1, 2, 3)):
            lines.append("not ok - raft: the stream ended after %d of %d "
                         "kills (raise --raft-count)" % (k - 1, kills))
            break
        # the leader of the moment says when its followers are level
        c.write_file("raft-even-req", "%d\n" % k)
        even = c.wait_file(None, "raft-even.%d" % k, 300, interval=0.01)
        leader, term, last, lag = (int(v) for v in even.split())
        g = leader - 1
        downs = raft_downs(c)
        c.kill(g, "killed by the test (raft suite, kill %d)" % k, hard=True)
        t0 = time.monotonic()
        down_s = None
        while True:
            now = time.monotonic()
            if down_s is None and raft_downs(c) - downs:
                down_s = now - t0
            later = raft_served(c, term)
            if later:
                break
            if now - t0 > 120:
                raise TimeoutError("kill %d: no leader served within 120 s"
                                   % k)
            time.sleep(0.002)
        new_term = min(later)
        new_node, _, new_down_ms, new_led_ms = later[new_term]
        served_s.append(now - t0)
        boot = c.restart(g)
        t1 = time.monotonic()
        back = c.wait_file(g, "raft-back.%d.%d" % (leader, boot), 600)
        lines.append("ok - raft: kill %d: node %d (leader, term %d, g%d, "
                     "last index %d, no follower more than %d behind) "
                     "killed; a follower saw its Down after %s, node %d "
                     "served in term %d after %.0f ms (on its clock: led "
                     "%s ms after its Down, first commit %.0f ms after "
                     "that); the guest booted again and caught up in "
                     "%.1f s (applied %s)" % (
                         k, leader, term, g, last, lag,
                         "%.0f ms" % (down_s * 1000) if down_s is not None
                         else "- (none before a leader served)",
                         new_node, new_term, served_s[-1] * 1000,
                         "%.0f" % new_down_ms if new_down_ms >= 0
                         else "- (no Down seen)", new_led_ms,
                         time.monotonic() - t1, back.split()[1]))
    return served_s


def suite_raft(args):
    """Raft replication (libraft on lib/raft's raft_io) over txrdma
    across three guests (raft_guest.sh): a leader is elected, its
    commands are applied by all three in the same order (guest 0
    compares their hashes), every tenant ends empty.  A quarter in, the
    leader's link to one follower is cut for 2 s (QMP set_link): the
    leader commits on through the other.  Then --raft-kills times the
    leader's QEMU is SIGKILLed: the next leader must serve within
    --raft-serve-ms of the kill, and the guest is powered on again and
    rejoins from its file on the host before the next kill."""
    cmd = ("TXRDMA_RAFT_COUNT=%d TXRDMA_RAFT_LIVENESS='%s' "
           "TXRDMA_RAFT_TRACE=%d selftests/txrdma/raft_guest.sh"
           % (args.raft_count, args.raft_liveness, bool(args.raft_trace)))
    err = None
    lines = []
    with cluster(args, 3, [cmd] * 3, timeout=args.timeout) as c:
        c.start()
        try:
            # the leader a quarter in asks: its link to one follower is
            # cut for 2 s (the phase's length, not a wait for anything)
            leader = int(c.wait_file(None, "raft-cut-req", 600).split()[0])
            follower = min(n for n in (1, 2, 3) if n != leader)
            t0 = time.monotonic()
            c.cut(leader - 1, follower - 1)
            time.sleep(2.0)
            c.restore(leader - 1, follower - 1)
            c.write_file("raft-cut-done", "%d %d\n" % (leader, follower))
            print("# raft: link between node %d (leader, g%d) and node %d "
                  "(g%d) cut for %.2f s" % (leader, leader - 1, follower,
                                           follower - 1,
                                           time.monotonic() - t0))
        except (TimeoutError, RuntimeError, OSError, ValueError,
                IndexError) as e:
            err = "the cut phase: %r" % e
        if err is None and args.raft_kills:
            try:
                served = raft_kills(c, args.raft_kills, lines)
                if len(served) == args.raft_kills:
                    bound = args.raft_serve_ms / 1000.0
                    lines.append(
                        "%s - raft: after each of %d leader kills a new "
                        "leader served within %d ms: %s" % (
                            "ok" if max(served) <= bound else "not ok",
                            len(served), args.raft_serve_ms,
                            stats_ms(served)))
            except (TimeoutError, RuntimeError, OSError, ValueError) as e:
                err = "the kill phase: %r" % e
        results = wait_failfast(c, err)
        if args.raft_trace:
            os.makedirs(args.raft_trace, exist_ok=True)
            names = [n for n in os.listdir(c.job_path())
                     if n.startswith("raft-trace.")]
            for n in names:
                shutil.copy(c.job_path(n), args.raft_trace)
            print("# raft: %d trace files in %s" % (len(names),
                                                    args.raft_trace))
    for line in lines:
        print(line)
    failed = sum(line.startswith("not ok") for line in lines)
    return failed + report(args.prefix + "raft", results, err)


def suite_txkv(args):
    """The main job's database on txrdma across three guests: its own
    checks (replicas, orders, history, one-sided reads) are TAP lines
    of txkv_guest.sh."""
    cmd = ("TXKV_RUNS=txrdma TXKV_SECONDS=%d tools/txkv/txkv_guest.sh"
           % args.txkv_seconds)
    with cluster(args, 3, cmd, timeout=args.timeout) as c:
        c.start()
        results = wait_failfast(c)
    return report(args.prefix + "txkv", results)


def suite_hostile(args):
    seeds = " ".join(str(args.seed + k) for k in range(args.hostile_seeds))
    cmd = "selftests/txrdma/hostile_guest.sh %d %d %d %s" % (
        args.hostile_ops, args.hostile_seconds,
        min(100000, args.hostile_seeds * args.hostile_ops), seeds)
    with cluster(args, 1, cmd,
                 timeout=args.hostile_seeds * args.hostile_seconds + 900,
                 smp=2, mem=2048) as c:
        c.start()
        results = wait_watching(c)
    return report(args.prefix + "hostile", results)


def suite_rogue(args):
    """A hostile peer against the module's rdma_cm port, in one guest
    whose module pairs with itself (rogue_guest.sh, rogue_peer.c)."""
    cmd = "selftests/txrdma/rogue_guest.sh"
    with cluster(args, 1, cmd, timeout=args.timeout) as c:
        c.start()
        results = c.wait()
    return report(args.prefix + "rogue", results)


class EventLog:
    """A guest's "txrdma-admin -j monitor" output, read by the host as
    the guest writes it (the job directory is shared)."""

    def __init__(self, cluster, g):
        self.path = cluster.job_path("g%d/events.jsonl" % g)

    def peer_events(self, peer):
        """Every JSON event of PEER's session, in order."""
        out = []
        try:
            with open(self.path, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            return out
        for line in lines:
            if not line.endswith("\n"):
                break       # being written
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == "peer" and e.get("name") == peer:
                out.append(e)
        return out

    def events(self, peer, kind):
        """The JSON events of PEER going down (leaving up) or up."""
        return [e for e in self.peer_events(peer)
                if (kind == "down" and e.get("old_state") == "up") or
                (kind == "up" and e.get("state") == "up")]

    def is_up(self, peer):
        """Whether PEER's session is Up by the last event written."""
        evs = self.peer_events(peer)
        return bool(evs) and evs[-1].get("state") == "up"


def wait_up(pairs, timeout, what):
    """Wait until every (EventLog, peer) of PAIRS is Up by its last
    event: a flap's Up read late must not pass for the end of a cut."""
    deadline = time.monotonic() + timeout
    while not all(log.is_up(peer) for log, peer in pairs):
        if time.monotonic() > deadline:
            raise TimeoutError("%s: sessions not Up within %ds" %
                               (what, timeout))
        time.sleep(0.01)


def wait_settled(pairs, timeout, what, quiet=1.0):
    """wait_up(), and then no event of those sessions for QUIET seconds:
    a session that comes back from a cut may flap once more (its peer
    saw the cut's end later, or its pool is refilling), and a cut made
    then finds one side already Down, told so by the other."""
    deadline = time.monotonic() + timeout
    while True:
        wait_up(pairs, max(1, deadline - time.monotonic()), what)
        before = [len(log.peer_events(peer)) for log, peer in pairs]
        time.sleep(quiet)
        if ([len(log.peer_events(peer)) for log, peer in pairs] == before
                and all(log.is_up(peer) for log, peer in pairs)):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("%s: sessions not settled Up within %ds" %
                               (what, timeout))


def wait_events(waits, t0, timeout):
    """waits: {key: (EventLog, peer, kind, count_before)}.  Poll every 2 ms
    until each log has a new event; return {key: (seconds since t0, event)}.
    Raises TimeoutError naming what did not come."""
    seen = {}
    while len(seen) < len(waits):
        now = time.monotonic()
        for key, (log, peer, kind, before) in waits.items():
            if key in seen:
                continue
            evs = log.events(peer, kind)
            if len(evs) > before:
                seen[key] = (now - t0, evs[before])
        if len(seen) == len(waits):
            break
        if now - t0 > timeout:
            missing = [k for k in waits if k not in seen]
            raise TimeoutError("no %s event within %ds for %s" % (
                "/".join(sorted({w[2] for w in waits.values()})), timeout,
                ", ".join(missing)))
        time.sleep(0.002)
    return seen


def stats_ms(values):
    v = sorted(values)
    return "min %.1f median %.1f max %.1f ms (n=%d)" % (
        v[0] * 1000, statistics.median(v) * 1000, v[-1] * 1000, len(v))


def down_phase(c, logs, waits_spec, action, undo, label, results):
    """Run ACTION (cut, pause, kill), time the Down event at every
    (guest, peer) of WAITS_SPEC, run UNDO, wait for the Up events."""
    # each cut starts from sessions that are Up, and have been for a
    # second, not from one still coming back from the last (CI once cut
    # while a session flapped after the cut before: one side's Down was
    # then its peer's word, sent before the cut, not a detection)
    wait_settled([(logs[g], peer) for g, peer in waits_spec], 120,
                 label + ": before")
    waits = {}
    ups = {}
    for g, peer in waits_spec:
        key = "g%d:%s" % (g, peer)
        waits[key] = (logs[g], peer, "down",
                      len(logs[g].events(peer, "down")))
        ups[key] = (logs[g], peer, "up", len(logs[g].events(peer, "up")))
    t0 = time.monotonic()
    action()
    qmp_ms = (time.monotonic() - t0) * 1000
    try:
        seen = wait_events(waits, t0, 10)
    except (TimeoutError, RuntimeError, OSError):
        # a guest left paused or a link left cut would hold every
        # later wait: undo before failing
        if undo:
            undo()
        raise
    for key, (dt, ev) in seen.items():
        results.setdefault("host", []).append(dt)
        # the module's own measure: time since the last probe heard, for
        # a Down by detection (a peer that said "down" is not detected)
        if ev.get("diag") == "detect_expired":
            results.setdefault("silence", []).append(ev["silence_ns"] / 1e9)
        print("# %s: %s down after %.1f ms (QMP %.1f ms; guest: %.1f ms "
              "after the last probe, %s)" % (
                  label, key, dt * 1000, qmp_ms, ev["silence_ns"] / 1e6,
                  ev.get("reason")))
    if undo:
        t1 = time.monotonic()
        undo()
        seen = wait_events(ups, t1, 120)
        # an Up counted may be a flap's, written late: wait for the
        # sessions to be Up by their last events, and read those
        wait_up([(logs[g], peer) for g, peer in waits_spec], 120,
                label + ": after")
        for g, peer in waits_spec:
            key = "g%d:%s" % (g, peer)
            seen[key] = (seen[key][0], logs[g].events(peer, "up")[-1])
        # the module explains a Down at the next Up (a stall either
        # side reported, or none: probes lost while both ran)
        for _, ev in seen.values():
            results.setdefault("causes", []).append(
                ev.get("down_cause", "none"))
        print("# %s: up again after %s" % (label, ", ".join(
            "%s %.2f s (%s, down %.1f ms%s)" % (
                k, v[0], v[1].get("down_cause", "no cause"),
                v[1].get("down_ns", 0) / 1e6,
                ", stall %.1f ms" % (v[1]["down_stall_ns"] / 1e6)
                if v[1].get("down_stall_ns") else "")
            for k, v in sorted(seen.items()))))


PEERS_KILLED = "killed by the test (peers suite)"


def cut_link(c, logs, n, cuts):
    """N cuts of the link between guests 0 and 1, both sides' Downs timed
    into CUTS; CUTS["done"] counts the cuts finished, also after a
    failure."""
    for i in range(n):
        down_phase(c, logs, [(0, "g1"), (1, "g0")],
                   lambda: c.cut(0, 1), lambda: c.restore(0, 1),
                   "cut %d" % (i + 1), cuts)
        cuts["done"] = cuts.get("done", 0) + 1


def suite_peers(args):
    if args.peers_guests == 2:
        return suite_peers2(args)
    cmd = "TXRDMA_SOAK_S=%d selftests/txrdma/peers_guest.sh" % args.soak
    killed = PEERS_KILLED
    err = None
    cuts, pause, kill = {}, {}, {}
    with cluster(args, 3, cmd, timeout=args.timeout + args.soak) as c:
        logs = [EventLog(c, g) for g in range(3)]
        c.start()
        try:
            for g in range(3):
                c.wait_file(g, "g%d-up" % g, 300)
            c.write_file("soak-start", "\n")
            c.wait_file(None, "bw-ready", 120)
            cut_link(c, logs, args.cuts, cuts)
            c.write_file("cuts-done", "%d\n" % cuts.get("done", 0))
            for g in range(3):
                c.wait_file(g, "g%d-soaked" % g, args.soak + 300)
            down_phase(c, logs, [(0, "g2"), (1, "g2")],
                       lambda: c.pause(2), lambda: c.resume(2),
                       "pause g2", pause)
            c.write_file("pause-done", "\n")
            down_phase(c, logs, [(0, "g1"), (2, "g1")],
                       lambda: c.kill(1, killed, hard=True), None, "kill g1", kill)
            c.write_file("kill-done", "\n")
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
            if not cuts.get("done"):
                c.write_file("cuts-done", "0\n")
        results = c.wait()
    return peers_report(args, results, err, [
        ("%d link cuts" % cuts.get("done", 0), cuts, 2 * args.cuts),
        ("pause of g2", pause, 2), ("kill of g1", kill, 2)])


def suite_peers2(args):
    """Two guests, one link: --soak seconds of rping traffic and no cut
    (every Down explained by a stall, in the guests' checks), then
    --cuts cuts of the link, a pause of guest 1 and its kill, each Down
    timed."""
    cmd = "TXRDMA_SOAK_S=%d selftests/txrdma/peers_guest.sh" % args.soak
    err = None
    cuts, pause, kill = {}, {}, {}
    with cluster(args, 2, cmd, timeout=args.timeout + args.soak) as c:
        logs = [EventLog(c, g) for g in range(2)]
        c.start()
        try:
            for g in range(2):
                c.wait_file(g, "g%d-up" % g, 300)
            t0 = time.monotonic()
            c.write_file("soak-start", "\n")
            for g in range(2):
                c.wait_file(g, "g%d-soaked" % g, args.soak + 300)
            print("# soak: %.0f s of traffic without a cut" %
                  (time.monotonic() - t0))
            cut_link(c, logs, args.cuts, cuts)
            c.write_file("cuts-done", "%d\n" % cuts.get("done", 0))
            for g in range(2):
                c.wait_file(g, "g%d-cut" % g, 300)
            down_phase(c, logs, [(0, "g1")], lambda: c.pause(1),
                       lambda: c.resume(1), "pause g1", pause)
            c.write_file("pause-done", "\n")
            # guest 0 checks the pause's end before the kill
            c.wait_file(0, "g0-paused", 120)
            down_phase(c, logs, [(0, "g1")],
                       lambda: c.kill(1, PEERS_KILLED, hard=True), None,
                       "kill g1", kill)
            c.write_file("kill-done", "\n")
        except (TimeoutError, RuntimeError, OSError) as e:
            err = str(e)
            # the guests wait for these: let them end now
            for name in ("soak-start", "bw-ready", "traffic-done",
                         "cuts-done", "pause-done", "kill-done"):
                if not os.path.exists(c.job_path(name)):
                    c.write_file(name, "%d\n" % cuts.get("done", 0))
        results = wait_failfast(c, err)
    return peers_report(args, results, err, [
        ("%d link cuts" % cuts.get("done", 0), cuts, 2 * args.cuts),
        ("pause of g1", pause, 1), ("kill of g1", kill, 1)])


def peers_report(args, results, err, phases):
    """The guests' TAP, then the host's timing of each phase (NAME,
    RESULTS, Downs expected)."""
    # guest 1 was killed on purpose: its TAP lines up to then still count,
    # its kernel log is checked from the console
    for r in results:
        if r.guest == 1 and r.error == PEERS_KILLED:
            r.error = None
            r.status = 0
    failed = report(args.prefix + "peers", results, err)
    checks = []

    def phase(name, res, n_expected):
        if not res:
            return
        print("# %s -> Down event as the host saw it (QMP command to the "
              "line in the guest's monitor output): %s"
              % (name, stats_ms(res["host"])))
        det = res.get("silence", [])
        if det:
            print("# %s -> Down by detection, in the module (last probe "
                  "heard to the event): %s" % (name, stats_ms(det)))
        good = len(det) == n_expected and max(det) < 0.100
        checks.append(("%s: %d of %d Down events by detection, all within "
                       "100 ms of the last probe (max %s ms)" % (
                           name, len(det), n_expected,
                           "%.1f" % (max(det) * 1000) if det else "-"),
                       good))
        causes = res.get("causes", [])
        if causes:
            print("# %s -> what the module said explained the Down, at "
                  "the next Up: %s" % (name, ", ".join(
                      "%s %d" % (cause, causes.count(cause))
                      for cause in sorted(set(causes)))))

    for name, res, n in phases:
        phase(name, res, n)
    if not checks:
        checks.append(("liveness timings measured", False))
    for what, good in checks:
        print("%s - %speers: %s" % ("ok" if good else "not ok",
                                    args.prefix, what))
        failed += not good
    return failed


def suite_soak(args):
    """The peers suite with --soak seconds (default 300) of rping
    traffic."""
    if not args.soak:
        args.soak = 300
    return suite_peers(args)


# The debug lane's share of guest_suite.sh, one list per guest (they run
# side by side, so the lane lasts as long as the longer list): fault
# injection and the region tests in one, the endpoint, ring and tenant
# tests and the module's load cycles in the other, each with the
# module's basics first.  region_test and region_stress are not here:
# debug-smp runs them on 2 vCPUs, where their races run in parallel.
# In a CI run of b36efc0 the debug kernel took fault_inject.sh 856 s
# (its streams at full size, now at --debug-fault-scale), ep_test
# 530 s, load_cycles.sh 294 s (20 cycles, now --debug-load-cycles) and
# tenant_test 96 s; with the smaller runs (this change's first try)
# fault_inject.sh 431 s, region_admin.sh 48, region_dev.sh 24, ep_test
# 322, load_cycles.sh 87, tenant_test 47, ep_stats.sh 32.
DEBUG_TESTS = [
    "probe_test lib_region_test region_dev.sh region_admin.sh "
    "fault_inject.sh",
    "probe_test ep_test ring_test lib_ring_test ep_stats.sh tenant_test "
    "load_cycles.sh",
]


def suite_debug(args):
    """The debug-kernel lane: ring, region and endpoint tests, the smp
    suite (2 vCPUs), the msg suite (its fuzz case included) and the
    hostile tenant on the debug kernel."""
    dargs = argparse.Namespace(**vars(args))
    dargs.kernel_kw = debug_kernel_kw()
    dargs.prefix = "debug-"
    dargs.msg_count = args.debug_msg_count
    dargs.msg_rev_count = max(1, args.debug_msg_count // 5)
    dargs.msg_fuzz_count = args.debug_msg_fuzz_count
    # KASAN makes every message and module load slower: fewer load
    # cycles and shorter fault-injection streams, the same points
    dargs.load_cycles = args.debug_load_cycles
    dargs.fault_scale = args.debug_fault_scale
    # rate checks, not memory or locking: the debug kernel under TCG
    # carried 0.27 of the 2 MiB/s and 188 of the 1,000 ops/s limits
    dargs.msg_skip = "throttle"
    # the hostile tenant: more time per seed on a kernel that checks
    # every access, fewer seeds than the vm stage's
    dargs.hostile_seconds = max(args.hostile_seconds,
                                args.debug_hostile_seconds)
    dargs.hostile_seeds = args.debug_hostile_seeds
    failed = 0
    for name, fn in (("single", lambda: suite_single(dargs, "single",
                                                     DEBUG_TESTS)),
                     ("smp", lambda: suite_smp(dargs)),
                     ("msg", lambda: suite_msg(dargs)),
                     ("hostile", lambda: suite_hostile(dargs))):
        t0 = time.monotonic()
        failed += run_suite("debug-" + name, fn)
        print("# debug-%s took %.0f s" % (name, time.monotonic() - t0))
    return failed


def debug_kernel_kw():
    try:
        return txrdmavm.debug_kernel()
    except RuntimeError as e:
        print("not ok - debug kernel: %s" % e)
        sys.exit(1)


SUITES = {"single": suite_single, "link": suite_link, "smp": suite_smp,
          "msg": suite_msg, "msgkill": suite_msgkill, "peers": suite_peers,
          "session": suite_session, "multipath": suite_multipath,
          "soak": suite_soak,
          "ep_race": suite_ep_race,
          "pair_churn": suite_pair_churn,
          "listen_flood": suite_listen_flood,
          "cross_tenant": suite_cross_tenant,
          "hostile": suite_hostile,
          "examples": suite_examples,
          "vread": suite_vread,
          "rogue": suite_rogue, "txn": suite_txn,
          "logship": suite_logship, "raft": suite_raft,
          "txkv": suite_txkv,
          "handoff": suite_handoff,
          "debug": suite_debug}
# "peers" runs two guests by default, and in CI (scripts/test.sh gives it
# a 300 s soak): every Down of the soak must be explained by a stall.
# "soak" and "peers --peers-guests 3" run by name only: on a 2-core host
# three TCG guests stall and their queues delay probes on the way, so
# Downs stay unexplained there; see testing.rst.  "debug" runs in
# its own stage of scripts/test.sh (after the kernel build it needs).
# CI runs the functional suites, then the regression suites of issue
# 12's trust boundaries (the adversarial ones and the rogue peer), then
# the database layers across three guests (scripts/test.sh gives them
# smaller counts than the issue's, which are the defaults here), then
# the session hand-off across three guests.
DEFAULT_SUITES = ["single", "link", "smp", "peers", "msg", "msgkill", "session",
                  "multipath", "examples",
                  "ep_race", "pair_churn", "listen_flood", "cross_tenant",
                  "hostile", "rogue", "txn", "vread", "logship", "raft",
                  "txkv", "handoff"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites", nargs="*", default=DEFAULT_SUITES,
                    help="suites to run (default: %s; also: soak, rogue): "
                    % " ".join(DEFAULT_SUITES) + " ".join(SUITES))
    ap.add_argument("--timeout", type=int, default=1500,
                    help="per-guest timeout in seconds (default 1500)")
    ap.add_argument("--soak", type=int, default=0,
                    help="peers: seconds of rping traffic without a cut "
                    "(2 guests, before the cuts) or on the uncut links (3 "
                    "guests, during them); every Down meanwhile must be "
                    "explained by a stall (default 0: no traffic; the "
                    "soak suite and CI: 300)")
    ap.add_argument("--cuts", type=int, default=20,
                    help="peers: link cuts to time (default 20)")
    ap.add_argument("--peers-guests", type=int, default=2, choices=(2, 3),
                    help="peers: 2 guests (a soak of --soak seconds "
                    "without cuts, then the cuts on the same link), or 3 "
                    "(the cuts on one link while the others carry --soak "
                    "seconds of traffic); default 2")
    ap.add_argument("--cycles", type=int, default=None,
                    help="single: add/del cycles of tenant.sh and "
                    "peer_admin.sh (default: theirs, 500)")
    ap.add_argument("--load-cycles", type=int, default=None,
                    help="single: module load/unload cycles of "
                    "load_cycles.sh (default: its own, 20)")
    ap.add_argument("--fault-scale", type=int, default=None,
                    help="single: percent of fault_inject.sh's runs that "
                    "must end well (default: its own, 100)")
    ap.add_argument("--debug-load-cycles", type=int, default=8,
                    help="debug: --load-cycles on the debug kernel "
                    "(default 8)")
    ap.add_argument("--debug-fault-scale", type=int, default=25,
                    help="debug: --fault-scale on the debug kernel "
                    "(default 25)")
    ap.add_argument("--msg-count", type=int, default=100000,
                    help="msg: messages from client to server in the "
                    "stream case (default 100000)")
    ap.add_argument("--msg-rev-count", type=int, default=None,
                    help="msg: messages from server to client meanwhile "
                    "(default: msg_test's, 20000)")
    ap.add_argument("--msg-skip", default="", metavar="CASES",
                    help="msg: msg_test cases to skip (TXRDMA_MSG_SKIP)")
    ap.add_argument("--debug-msg-count", type=int, default=2000,
                    help="debug: messages in the msg suite's stream case "
                    "on the debug kernel, a fifth of them back (default "
                    "2000), and no throttle case")
    ap.add_argument("--msg-fuzz-count", type=int, default=None,
                    help="msg: SQEs of the fuzz case (default: "
                    "msg_test's, 100000)")
    ap.add_argument("--debug-msg-fuzz-count", type=int, default=20000,
                    help="debug: SQEs of the msg suite's fuzz case on "
                    "the debug kernel (default 20000)")
    ap.add_argument("--debug-hostile-seeds", type=int, default=2,
                    help="debug: seeds of the hostile suite on the debug "
                    "kernel (default 2)")
    ap.add_argument("--debug-hostile-seconds", type=int, default=240,
                    help="debug: seconds per seed of the hostile suite on "
                    "the debug kernel (default 240)")
    ap.add_argument("--debug-kernel", action="store_true",
                    help="run the suites named on the debug kernel "
                    "(scripts/debug-kernel.sh) with its txrdma.ko")
    ap.add_argument("--msg-seed", type=lambda v: int(v, 0), default=None,
                    help="msg: seed of the message sizes (default: "
                    "msg_test's fixed one, printed)")
    ap.add_argument("--mp-cuts", type=int, default=20,
                    help="multipath: partitions of the pair's link, "
                    "alternating links 0 and 1 (default 20; even, so "
                    "that the pair ends on link 0, whose device guest 0 "
                    "then removes)")
    ap.add_argument("--mp-cut-s", type=float, default=3.0,
                    help="multipath: seconds each partition lasts, longer "
                    "than the session's grace of 2 s (default 3)")
    ap.add_argument("--txn-count", type=int, default=100000,
                    help="txn: transactions per run (default 100000)")
    ap.add_argument("--txn-smp", type=int, default=1,
                    help="txn: vCPUs per guest (default 1)")
    ap.add_argument("--txn-runs", default="plain cut kill",
                    help="txn: runs, of plain cut kill (default all)")
    ap.add_argument("--race-seconds", type=int, default=45,
                    help="ep_race: seconds of racing per guest (default 45; "
                    "on d8755f3 the oops came after 17-27 s)")
    ap.add_argument("--vread-seconds", type=int, default=60,
                    help="vread: seconds of writing and reading (default 60)")
    ap.add_argument("--raft-liveness", default="50000 7",
                    help="raft: the peers' liveness, \"TX_US MULT\" "
                    "(default \"50000 7\": 350 ms)")
    ap.add_argument("--raft-kills", type=int, default=10,
                    help="raft: leader QEMU kills (default 10)")
    ap.add_argument("--raft-serve-ms", type=int, default=500,
                    help="raft: a new leader must serve within this "
                    "many ms of each kill (default 500)")
    ap.add_argument("--raft-trace", metavar="DIR",
                    help="raft: keep libraft's trace around each Down "
                    "(raft_guest's RAFT_GUEST_TRACE) in DIR")
    ap.add_argument("--raft-count", type=int, default=100000,
                    help="raft: commands the leader proposes and every "
                    "server applies (default 100000)")
    ap.add_argument("--txkv-seconds", type=int, default=20,
                    help="txkv: seconds of new orders (default 20)")
    ap.add_argument("--churn-seconds", type=int, default=60,
                    help="pair_churn: seconds of churn (default 60: half "
                    "at ~10 pairs/s, half as fast as possible)")
    ap.add_argument("--flood-max", type=int, default=2000000,
                    help="listen_flood: most listeners to try (2000000)")
    ap.add_argument("--flood-seconds", type=int, default=20,
                    help="listen_flood: longest flood in seconds (20)")
    ap.add_argument("--hostile-ops", type=int, default=35000,
                    help="hostile: operations per seed (35000)")
    ap.add_argument("--hostile-seconds", type=int, default=90,
                    help="hostile: most seconds per seed (90)")
    ap.add_argument("--hostile-seeds", type=int, default=3,
                    help="hostile: seeds, one run each: --seed, --seed+1, "
                    "... (3)")
    ap.add_argument("--logship-count", type=int, default=1000000,
                    help="logship: entries shipped in all, half by each "
                    "writer (default 1000000)")
    ap.add_argument("--handoff-count", type=int, default=20000,
                    help="handoff: messages in the stream (default 20000)")
    ap.add_argument("--handoffs", type=int, default=10,
                    help="handoff: times the sending end moves, guest 0 "
                    "-> 2 -> 0 ... (default 10)")
    ap.add_argument("--handoff-bound-ms", type=int, default=300,
                    help="handoff: the pause each hand-off may cause at "
                    "the receiver, last delivery before to first after "
                    "(default 300; failing it fails the suite)")
    ap.add_argument("--handoff-grace-ms", type=int, default=10000,
                    help="handoff: the session's grace, how long its end "
                    "may be away (default 10000)")
    ap.add_argument("--seed", type=lambda v: int(v, 0), default=0x20261201,
                    help="seed of the adversarial suites' random choices "
                    "(default 0x20261201; printed by each program)")
    args = ap.parse_args()
    args.prefix = ""
    args.kernel_kw = {}
    if args.debug_kernel:
        args.kernel_kw = debug_kernel_kw()
        args.prefix = "debug-"
    ko = args.kernel_kw.get("module") or txrdmavm.default_module()
    # "debug" alone needs only its own module (it checks it)
    if [s for s in args.suites if s != "debug"] and not os.path.exists(ko):
        print("not ok - vm: %s not built (run make)" % ko)
        return 1
    failed = 0
    for s in args.suites:
        if s not in SUITES:
            ap.error("unknown suite " + s)
        t0 = time.monotonic()
        print("# ===== suite %s" % s)
        sys.stdout.flush()
        if s == "debug":    # reruns its parts, not the whole lane
            failed += SUITES[s](args)
        else:
            failed += run_suite(s, lambda: SUITES[s](args))
        print("# suite %s took %.0f s" % (s, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
