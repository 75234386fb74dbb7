#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of the txrdma-vm harness (no txrdma module needed).

Usage: selftest.py [TEST...]   (default: all; see TESTS below)
Prints one line per test with its wall time; exits non-zero on a failure.
"""

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import txrdmavm  # noqa: E402
from txrdmavm import format_result  # noqa: E402

ST = "tools/vm/selftest/"
# Every run directory goes under BASE, removed at the end if all passed.
os.makedirs(os.path.join(txrdmavm.cache_dir(), "runs"), exist_ok=True)
BASE = tempfile.mkdtemp(prefix="selftest-",
                        dir=os.path.join(txrdmavm.cache_dir(), "runs"))
_seq = itertools.count()


def Cluster(*args, **kw):
    kw.setdefault("rundir", os.path.join(BASE, "run%d" % next(_seq)))
    return txrdmavm.Cluster(*args, **kw)


def run(n, cmds, **kw):
    kw.setdefault("load_module", False)
    kw.setdefault("timeout", 240)
    with Cluster(n, cmds, **kw) as c:
        c.start()
        return c.wait()


def expect_ok(results):
    for r in results:
        if not r.ok:
            raise AssertionError(format_result(r))
    return "boot " + "/".join("%.1f" % (r.boot_s or -1) for r in results)


def t_loopback():
    return expect_ok(run(1, ST + "loopback.sh"))


def t_pair():
    return expect_ok(run(2, ST + "pair.sh"))


def t_mesh3():
    return expect_ok(run(3, ST + "mesh.sh"))


def t_linkcut():
    with Cluster(2, ST + "linkcut.sh", load_module=False, timeout=240) as c:
        c.start()
        for g in (0, 1):
            c.wait_file(g, "ready-%d" % g, 120)
        c.cut(0, 1)
        for g in (0, 1):
            c.wait_file(g, "down-%d" % g, 60)
        # A paused guest keeps its state; resume it before the restore.
        c.pause(1)
        time.sleep(1)
        c.resume(1)
        c.restore(0, 1)
        res = c.wait()
    return expect_ok(res)


def t_dmesg_catch():
    res = run(1, 'echo "WARNING: test" > /dev/kmsg; echo done')
    r = res[0]
    assert r.status == 0, format_result(r)
    assert not r.ok, "a WARNING in dmesg must fail the guest"
    assert any("WARNING: test" in p for p in r.problems), r.problems
    return "caught: %s" % r.problems[0].strip()


def t_clean_pass():
    res = run(1, 'echo "harmless message" > /dev/kmsg; dmesg | tail -1')
    return expect_ok(res)


def t_missing_module():
    res = run(1, "true", load_module=True,
              module="/nonexistent/txrdma.ko")
    r = res[0]
    assert r.status == 125, format_result(r)
    assert "not found" in r.output, r.output
    return "status 125: " + r.output.strip()


def t_timeout_kill():
    res = run(1, "sleep 1000", timeout=30)
    r = res[0]
    assert r.status is None and r.error and "timed out" in r.error, repr(r)
    return r.error


def t_kill():
    with Cluster(2, ["txrdma_x=1; sleep 1000", "true"],
                 load_module=False, timeout=240) as c:
        c.start()
        c.wait_file(1, "g1/status", 120)
        c.kill(0)
        res = c.wait()
    assert res[0].status is None and res[0].error == "killed", repr(res[0])
    assert res[1].ok, format_result(res[1])
    return "guest 0 killed, guest 1 ok"


def t_restart():
    """Guest 1 is killed mid-command and powered on again: its second
    boot runs the command again (TXRDMA_BOOT=1), reaches guest 0 over
    the same link (the survivor's dgram netdev reaches the new QEMU's
    socket), and the first boot's output is kept aside."""
    g1 = ('if [ "$TXRDMA_BOOT" = 0 ]; then echo first; '
          'txrdma_signal up-1; sleep 1000; fi; echo "boot $TXRDMA_BOOT"; '
          'txrdma_wait_until 60 busybox ping -c 1 -W 2 "$(txrdma_peer_addr 0)" && '
          'txrdma_signal back-1')
    g0 = "txrdma_wait_file back-1 300"
    with Cluster(2, [". $TXRDMA_ROOT/tools/vm/guestlib.sh; " + g0,
                     ". $TXRDMA_ROOT/tools/vm/guestlib.sh; " + g1],
                 load_module=False, timeout=400) as c:
        c.start()
        c.wait_file(1, "up-1", 120)
        c.kill(1, hard=True)
        assert c.restart(1) == 1
        res = c.wait()
        first = c._read_job(1, "output.boot0") or ""
    assert res[0].ok, format_result(res[0])
    assert res[1].ok and "boot 1" in res[1].output, format_result(res[1])
    assert "first" in first and "boot 1" not in first, first
    return "guest 1 killed, booted again, reached guest 0 (run %.1fs)" % (
        res[1].cmd_s or -1)


DEBUG_BUGS = {
    # bug=NAME of debugcheck.ko: what the guest's problems must show.  In
    # this order: a KASAN report turns lockdep off (the kernel is then
    # "unreliable" for it), so lockorder goes first and uaf last.
    "lockorder": "possible circular locking dependency",
    "odebug": "ODEBUG: free active",
    "atomic": "BUG: sleeping function called from invalid context",
    "leak": "kmemleak: unreferenced object",
    "uaf": "BUG: KASAN: use-after-free in debugcheck_uaf",
}


def t_debug_checks():
    """On the debug kernel (scripts/debug-kernel.sh), each bug of
    debugcheck.ko is reported and fails the guest; the leak is counted
    and names its allocator."""
    dk = txrdmavm.debug_kernel()
    src = os.path.join(HERE, "debugcheck")
    mod = os.path.join(BASE, "debugcheck")
    shutil.copytree(src, mod)
    build = os.path.join(dk["moddir"], "build")
    res = subprocess.run(["make", "-C", build, "M=" + mod, "modules"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    assert res.returncode == 0, res.stdout[-2000:]
    ko = os.path.join(mod, "debugcheck.ko")
    # its symbols saved before each unload, as unload_end.sh does
    cmd = ("for b in %s; do insmod %s bug=$b || exit 1; "
           "grep '\\[debugcheck\\]$' /proc/kallsyms > $TXRDMA_OUT/modsyms; "
           "rmmod debugcheck || exit 2; done" % (" ".join(DEBUG_BUGS), ko))
    dk.pop("module")
    r = run(1, cmd, timeout=600, **dk)[0]
    assert r.status == 0, format_result(r)
    assert not r.ok, "the bugs must fail the guest"
    missing = [b for b, what in DEBUG_BUGS.items()
               if not any(what in p for p in r.problems)]
    assert not missing, "not reported: %s\n%s" % (
        " ".join(missing), "\n".join(r.problems))
    leaks = [p for p in r.problems if p.startswith("kmemleak:")]
    assert any("debugcheck_leak" in p for p in leaks), leaks
    return "%d problem lines, all 5 bugs reported (boot %.1fs, run %.1fs)" % (
        len(r.problems), r.boot_s or -1, r.cmd_s or -1)


TESTS = [
    ("loopback", t_loopback),
    ("pair", t_pair),
    ("mesh3", t_mesh3),
    ("linkcut", t_linkcut),
    ("dmesg_catch", t_dmesg_catch),
    ("clean_pass", t_clean_pass),
    ("missing_module", t_missing_module),
    ("timeout_kill", t_timeout_kill),
    ("kill", t_kill),
    ("restart", t_restart),
    ("debug_checks", t_debug_checks),
]


def main():
    want = sys.argv[1:]
    failed = 0
    for name, fn in TESTS:
        if want and name not in want:
            continue
        t0 = time.monotonic()
        try:
            info = fn()
            verdict = "ok"
        except Exception as e:  # noqa: BLE001 - report any failure
            info = "%s: %s" % (type(e).__name__, e)
            verdict = "FAIL"
            failed += 1
        print("%-15s %-4s %6.1fs  %s" % (name, verdict,
                                          time.monotonic() - t0, info),
              flush=True)
    if failed:
        print("run directories kept under %s" % BASE)
    else:
        shutil.rmtree(BASE, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
