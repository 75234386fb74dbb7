#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run txrdma's kselftests in QEMU guests and print TAP lines.

Suites:
  single  - 2 guests, each runs guest_suite.sh (probe, netlink, dev show,
            load/unload cycles) on its own host
  link    - 2 guests; the host cuts and restores the link between them
            through QEMU's monitor; each guest checks the port events
            and then RDMA traffic crosses the link (link_events_guest.sh)
  smp     - 1 guest with 2 vCPUs, so that races really run in parallel:
            region_stress (twice) and region_test

Every guest's TAP lines are printed as "ok - gG <suite>: ..." and every
guest adds "dmesg clean" and "exit status" lines of its own.  Exit 0 only
if nothing failed.
"""
import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
import txrdmavm  # noqa: E402

TAP_LINE = re.compile(r"^(not ok|ok)\b(?:\s+\d+)?(?:\s+-)?\s*(.*)$")


def report(suite, results, extra_fail=None):
    """Print every guest's TAP lines and its own checks; return failures."""
    failed = 0
    for r in results:
        tag = "g%d %s" % (r.guest, suite)
        print("# ----- %s: output" % tag)
        for line in r.output.splitlines():
            m = TAP_LINE.match(line)
            if m:
                print("%s - %s: %s" % (m.group(1), tag, m.group(2)))
                failed += m.group(1) == "not ok"
            else:
                print("# " + line)
        if r.problems:
            print("not ok - %s: dmesg clean" % tag)
            for p in r.problems:
                print("#   dmesg: " + p)
            failed += 1
        else:
            print("ok - %s: dmesg clean" % tag)
        if r.status == 0 and r.error is None:
            print("ok - %s: guest command exited 0 (boot %.1fs, run %.1fs)"
                  % (tag, r.boot_s or 0, r.cmd_s or 0))
        else:
            print("not ok - %s: guest command: status %s %s"
                  % (tag, r.status, r.error or ""))
            print("# console tail:")
            for line in r.console_tail(60).splitlines():
                print("#   " + line)
            failed += 1
    if extra_fail:
        print("not ok - %s: host side: %s" % (suite, extra_fail))
        failed += 1
    return failed


def suite_single(args):
    cmd = "selftests/txrdma/guest_suite.sh"
    with txrdmavm.Cluster(2, cmd, timeout=args.timeout) as c:
        c.start()
        results = c.wait()
    return report("single", results)


def suite_link(args):
    cmd = "selftests/txrdma/link_events_guest.sh"
    err = None
    with txrdmavm.Cluster(2, cmd, timeout=args.timeout) as c:
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
        results = c.wait()
    return report("link", results, err)


def suite_smp(args):
    cmd = ("cd selftests/txrdma && "
           "TXRDMA_TESTS='region_stress region_test region_stress' "
           "./guest_suite.sh")
    with txrdmavm.Cluster(1, cmd, timeout=args.timeout, smp=2) as c:
        c.start()
        results = c.wait()
    return report("smp", results)


SUITES = {"single": suite_single, "link": suite_link, "smp": suite_smp}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites", nargs="*", default=list(SUITES),
                    help="suites to run (default: all): " + " ".join(SUITES))
    ap.add_argument("--timeout", type=int, default=900,
                    help="per-guest timeout in seconds (default 900)")
    args = ap.parse_args()
    ko = txrdmavm.default_module()
    if not os.path.exists(ko):
        print("not ok - vm: %s not built (run make)" % ko)
        return 1
    failed = 0
    for s in args.suites:
        if s not in SUITES:
            ap.error("unknown suite " + s)
        t0 = time.monotonic()
        print("# ===== suite %s" % s)
        failed += SUITES[s](args)
        print("# suite %s took %.0f s" % (s, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
