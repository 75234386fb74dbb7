# SPDX-License-Identifier: GPL-2.0
"""txrdma-vm: boot QEMU guests that share the host root and talk over rxe.

Each guest boots the installed distribution kernel (or another kernel image
with its modules directory: the debug lane's, see debug_kernel()) with a
tiny initramfs (mkinitramfs.sh), mounts the host root read-only over 9p under a tmpfs
overlay and runs guest-init.sh as PID 1.  Every pair of guests is wired with
its own point-to-point Ethernet link (QEMU "dgram" netdevs over unix
sockets); guest-init puts an rxe device on each link.  The host talks to
each guest through a writable 9p share (the job directory) and QMP.

Stdlib only.  Typical host-side use::

    from txrdmavm import Cluster
    with Cluster(2, ["server-script", "client-script"], load_module=False) as c:
        c.start()
        c.wait_file(0, "g0/listening", 120)
        c.cut(0, 1)
        ...
        results = c.wait()
    assert all(r.ok for r in results)
"""

import itertools
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
GUEST_INIT = os.path.join(HERE, "guest-init.sh")
MKINITRAMFS = os.path.join(HERE, "mkinitramfs.sh")

# Kernel messages that fail a guest.  Word boundaries keep "DEBUG " from
# matching "BUG ".
PROBLEM_PATTERNS = [
    r"\bBUG:",
    r"\bBUG ",          # slub: "BUG kmalloc-64 (Tainted: ...): ..."
    r"\bWARNING:",
    r"\bOops\b",
    r"KASAN",
    r"general protection fault",
    r"Kernel panic",
    r"kernel BUG",
    r"Redzone",
    r"Poison overwritten",
    r"Object padding overwritten",
    r"slab_out_of_bounds",
    r"refcount_t:",
    r"list_add corruption",
    r"list_del corruption",
    r"UBSAN",
    # lockdep (most of its reports also carry "WARNING:")
    r"possible circular locking dependency",
    r"inconsistent lock state",
    r"possible recursive locking",
    r"suspicious RCU usage",
    r"lock held when returning to user space",
    # a lock never initialised; lockdep then turns itself off, so
    # nothing after it would be checked
    r"trying to register non-static key",
    r"turning off the locking correctness validator",
    # DEBUG_OBJECTS
    r"ODEBUG:",
    # kmemleak (guest-init's end-of-run scan; see kmemleak_problems)
    r"unreferenced object",
    # a task stuck in D state for the hung-task timeout (120 s): a
    # deadlock, or a virtual NIC whose transmit queue stalled (then
    # also "NETDEV WATCHDOG"); either way the run proves nothing
    r"blocked for more than \d+ seconds",
    r"NETDEV WATCHDOG",
]
IGNORE_PATTERNS = [
    r"module verification failed: signature and/or required key missing",
    r"loading out-of-tree module taints kernel",
]
_PROBLEM_RE = re.compile("|".join(PROBLEM_PATTERNS))
_IGNORE_RE = re.compile("|".join(IGNORE_PATTERNS))
# Lines guest-init itself prints to the console; never kernel problems.
_OWN_LINE_RE = re.compile(r"^txrdma-vm(\[g\d+\]| initramfs):")


def dmesg_problems(text):
    """Return the lines of kernel log TEXT that indicate a kernel problem."""
    out = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if _OWN_LINE_RE.match(line) or _IGNORE_RE.search(line):
            continue
        if _PROBLEM_RE.search(line):
            out.append(line)
    return out


_LEAK_HEAD_RE = re.compile(r"^unreferenced object (0x[0-9a-f]+) \(size (\d+)\):")
_LEAK_COMM_RE = re.compile(r'^\s+comm "(.*)", pid (\d+), jiffies (\d+)')
_LEAK_FRAME_RE = re.compile(r"^\s+\[<[0-9a-fx]+>\] (\S+)(.*)$")
_RAW_ADDR_RE = re.compile(r"^0x([0-9a-f]+)$")
# the allocator's own frames say nothing: a report starts at its caller
_ALLOC_FRAME_RE = re.compile(
    r"(kmemleak_|slab_post_alloc_hook|__kmem_cache_alloc|kmem_cache_alloc|"
    r"__kmalloc|kmalloc_trace|__alloc_pages|alloc_pages|__kasan|kasan_)")


def parse_modsyms(text):
    """Symbols of unloaded modules, from /proc/kallsyms lines saved before
    the unload ("ADDR TYPE NAME\t[MODULE]"): a sorted list of (address,
    name, module)."""
    syms = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) < 4 or not parts[3].startswith("["):
            continue
        try:
            syms.append((int(parts[0], 16), parts[2], parts[3].strip("[]")))
        except ValueError:
            continue
    syms.sort()
    return syms


def _symbolize(frame, syms):
    """A raw address in FRAME (what kmemleak prints for code of a module
    unloaded since) as NAME+0xOFF [MODULE, unloaded], if SYMS has it."""
    m = _RAW_ADDR_RE.match(frame)
    if not m or not syms:
        return frame
    addr = int(m.group(1), 16)
    best = None
    for a, name, mod in syms:
        if a > addr:
            break
        best = (a, name, mod)
    # a module's code is well under 1 MiB: anything further is not its
    if best is None or addr - best[0] > 1 << 20 or addr > syms[-1][0] + (1 << 20):
        return frame
    return "%s+0x%x [%s, unloaded]" % (best[1], addr - best[0], best[2])


def kmemleak_problems(report, since=None, modsyms=""):
    """The objects of a kmemleak REPORT (/sys/kernel/debug/kmemleak after a
    scan) that count, one line each.

    An object counts when txrdma appears in its allocation backtrace, or
    when it was allocated at or after jiffies SINCE (guest-init: when
    txrdma.ko was first loaded, else when the command started).  Objects
    from earlier in boot are not txrdma's and include kmemleak's known
    early-boot false positives; they are left out.  Without SINCE every
    object counts.  MODSYMS (kallsyms lines of modules saved before they
    were unloaded, see unload_end.sh) names frames of unloaded modules."""
    try:
        since = int(str(since).strip()) if since is not None else None
    except ValueError:
        since = None
    syms = parse_modsyms(modsyms)
    out = []
    blocks = []
    for line in report.splitlines():
        if _LEAK_HEAD_RE.match(line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    for b in blocks:
        head = _LEAK_HEAD_RE.match(b[0])
        comm, jiffies, frames = "?", None, []
        for line in b[1:]:
            m = _LEAK_COMM_RE.match(line)
            if m:
                comm, jiffies = m.group(1), int(m.group(3))
            m = _LEAK_FRAME_RE.match(line)
            if m:
                frames.append(_symbolize(m.group(1), syms) + m.group(2))
        ours = any("txrdma" in f for f in frames)
        late = since is None or jiffies is None or jiffies >= since
        if not (ours or late):
            continue
        shown = [f for f in frames if not _ALLOC_FRAME_RE.match(f)] or frames
        out.append("kmemleak: unreferenced object %s (size %s): comm \"%s\" "
                   "jiffies %s: %s" % (head.group(1), head.group(2), comm,
                                       jiffies, " <- ".join(shown[:6])))
    return out


# Directories guest-init mounts over: host files there are invisible in guests.
GUEST_PRIVATE_DIRS = ("/run", "/dev", "/proc", "/sys")


def _shadowed(path):
    path = os.path.realpath(path)
    return any(path == d or path.startswith(d + "/")
               for d in GUEST_PRIVATE_DIRS)


def _version_key(s):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def default_kver():
    """KVER from the environment, else the newest bootable /lib/modules entry.

    Never uname -r: the host may run a kernel that guests cannot boot.
    """
    kver = os.environ.get("KVER")
    if kver:
        return kver
    try:
        names = os.listdir("/lib/modules")
    except OSError:
        names = []
    for name in sorted(names, key=_version_key, reverse=True):
        if os.path.exists("/boot/vmlinuz-" + name):
            return name
    raise RuntimeError("no kernel: need /lib/modules/KVER and /boot/vmlinuz-KVER")


def cache_dir():
    return os.environ.get("TXRDMA_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "txrdma")


def default_module():
    """$TXRDMA_KO, else the checkout's kmod/txrdma.ko."""
    return os.environ.get("TXRDMA_KO") or os.path.join(
        REPO_ROOT, "kmod", "txrdma.ko")


# slub_debug of every guest: red zones, poisoning, sanity checks and
# alloc/free traces on every cache but ACPI's (see testing.rst)
SLUB_DEBUG = "FZPU;-,Acpi-*"

DEBUG_KERNEL_SCRIPT = os.path.join(REPO_ROOT, "scripts", "debug-kernel.sh")


def debug_kernel():
    """The debug lane's kernel as Cluster keyword arguments, read from the
    env file scripts/debug-kernel.sh writes into the cache (or into
    $TXRDMA_DEBUG_KERNEL_DIR): kernel, moddir,
    module (txrdma.ko built against it), and

    - machine q35: the default i440fx machine's ACPI tables build the PCI
      interrupt routing (_PRT) in an AML loop that the debug kernel's ACPI
      interpreter, under TCG, does not finish within ACPI's 30 s loop
      timeout (three "ACPI Error ... AE_AML_LOOP_TIMEOUT", 90 s of boot);
      q35's _PRT is a constant;
    - no slub_debug: KASAN already has red zones, a quarantine for freed
      objects and alloc/free stacks in its reports, and slub_debug on top
      made every exec and allocation about 1.5x slower again.

    Raises RuntimeError when it has not been built."""
    path = os.path.join(os.environ.get("TXRDMA_DEBUG_KERNEL_DIR") or
                        os.path.join(cache_dir(), "debug-kernel"), "env")
    env = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                env[k] = v
    except OSError:
        raise RuntimeError("no debug kernel: %s missing (run %s)"
                           % (path, DEBUG_KERNEL_SCRIPT))
    kw = {"kernel": env.get("TXRDMA_KERNEL"),
          "moddir": env.get("TXRDMA_MODDIR"),
          "module": env.get("TXRDMA_KO")}
    for k, v in kw.items():
        if not v or not os.path.exists(v):
            raise RuntimeError("debug kernel: %s %r missing (run %s)"
                               % (k, v, DEBUG_KERNEL_SCRIPT))
    kw.update(machine="q35", slub_debug=None)
    return kw


def build_initramfs(kver, moddir=None):
    """Build (or reuse) the initramfs for KVER (its modules in MODDIR,
    default /lib/modules/KVER); return its path."""
    env = dict(os.environ, KVER=kver)
    if moddir:
        env["TXRDMA_MODDIR"] = moddir
    else:
        env.pop("TXRDMA_MODDIR", None)
    res = subprocess.run(["sh", MKINITRAMFS, kver], env=env,
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True)
    return res.stdout.strip().splitlines()[-1]


# The slub_debug boot banner ("**   NOTICE NOTICE ...") is noise in a tail.
_BANNER_RE = re.compile(r"^\[[ \d.]+\] \*\*")


def _console_lines(path):
    """The lines of a console log without QEMU's banners; None if it
    cannot be read."""
    try:
        with open(path, errors="replace") as f:
            return [l for l in f.readlines() if not _BANNER_RE.match(l)]
    except OSError:
        return None


def _tail(path, lines):
    text = _console_lines(path)
    if text is None:
        return "(no console log)"
    return "".join(text[-lines:]).rstrip("\n")


class Link:
    """A point-to-point link between guests a <= b (a == b: single guest);
    k > 0: the k-th other link between the same two guests (Cluster's
    paths)."""

    def __init__(self, index, a, b, k=0):
        self.index = index      # third octet of the subnet: 198.18.INDEX.0/24
        self.a = a
        self.b = b
        self.k = k
        self.id = "l%d%d" % (a, b) if max(a, b) < 10 else "l%d_%d" % (a, b)
        if k:
            self.id += "p%d" % k

    def addr(self, g):
        return "198.18.%d.%d" % (self.index, g + 1)

    def mac(self, g):
        return "52:54:%02x:%02x:%02x:%02x" % (self.k, self.a, self.b, g)

    def peer(self, g):
        return self.b if g == self.a else self.a


class GuestResult:
    """What one guest did.  status is None when the guest was killed,
    timed out or powered off without writing a status."""

    def __init__(self, guest):
        self.guest = guest
        self.status = None
        self.output = ""
        self.dmesg = ""
        self.console = None     # path of the console log
        self.problems = []      # kernel log lines that match PROBLEM_PATTERNS
        self.kmemleak = ""      # the end-of-run kmemleak report, if any
        self.error = None       # "timed out after Ns", "killed", ...
        self.boot_s = None      # guest uptime when its command started
        self.cmd_s = None       # command run time (guest clock)
        self.wall_s = None      # QEMU launch to QEMU exit (host clock)

    @property
    def ok(self):
        return self.status == 0 and not self.problems and self.error is None

    def console_tail(self, lines=40):
        return _tail(self.console, lines) if self.console else ""

    def module_lines(self, lines=20):
        """The last LINES kernel lines of txrdma.ko in the console (its
        pr_fmt prefix "txrdma: "): why a pair was reset or a peer went
        Down, which a console tail of a long run has often scrolled
        past."""
        text = _console_lines(self.console) if self.console else None
        hits = [l.rstrip("\n") for l in text or [] if "txrdma: " in l]
        return hits[-lines:]

    def __repr__(self):
        return "GuestResult(guest=%d, status=%r, error=%r, problems=%d)" % (
            self.guest, self.status, self.error, len(self.problems))


class QMPError(RuntimeError):
    pass


class Cluster:
    """N guests, fully meshed with point-to-point rxe links.

    cmds: one command string for every guest, or a list with one per guest.
    timeout: per-guest limit in seconds from launch to power-off; past it
    the guest's QEMU is killed and the guest fails ("timed out after Ns").
    kernel, moddir: a kernel image and its modules directory (host paths,
    .../lib/modules/KVER; KVER is its name) instead of the installed
    /boot/vmlinuz-KVER and /lib/modules/KVER; default $TXRDMA_KERNEL and
    $TXRDMA_MODDIR.  Guests see MODDIR as their /lib/modules/KVER.
    machine: QEMU's -machine (default: QEMU's, i440fx "pc").
    paths: links between each two guests (default 1; 2 gives every pair
    two NICs on each side, two rxe devices and two subnets: two paths).
    slub_debug: the guests' slub_debug= (None: none).
    debug_kernel() gives all of these for the debug lane's kernel.
    """

    def __init__(self, n, cmds, module=None, timeout=300, rundir=None,
                 load_module=True, append="", kver=None, mem=None, smp=None,
                 module_params="", shell=False, keep=False, verbose=False,
                 kernel=None, moddir=None, machine=None,
                 slub_debug=SLUB_DEBUG, paths=1):
        if n < 1:
            raise ValueError("need at least one guest")
        if isinstance(cmds, str):
            cmds = [cmds] * n
        cmds = list(cmds)
        if len(cmds) != n:
            raise ValueError("need %d commands, got %d" % (n, len(cmds)))
        if shell and n != 1:
            raise ValueError("shell mode is for one guest")
        self.n = n
        self.cmds = cmds
        self.module = os.path.abspath(module or default_module())
        self.load_module = load_module
        self.module_params = module_params
        self.timeout = timeout
        self.append = append
        kernel = kernel or os.environ.get("TXRDMA_KERNEL") or None
        moddir = moddir or os.environ.get("TXRDMA_MODDIR") or None
        if bool(kernel) != bool(moddir):
            raise ValueError("a kernel image needs its modules directory "
                             "and vice versa (kernel=%r moddir=%r)"
                             % (kernel, moddir))
        self.moddir = os.path.abspath(moddir) if moddir else None
        if self.moddir:
            name = os.path.basename(self.moddir.rstrip("/"))
            if kver and kver != name:
                raise ValueError("kver %s but modules directory %s"
                                 % (kver, self.moddir))
            kver = name
        self.kver = kver or default_kver()
        self.kernel = (os.path.abspath(kernel) if kernel
                       else "/boot/vmlinuz-" + self.kver)
        self.machine = machine
        self.slub_debug = slub_debug
        self.mem = int(mem or os.environ.get("TXRDMA_VM_MEM", 1536))
        self.smp = int(smp or os.environ.get("TXRDMA_VM_SMP", 1))
        self.shell = shell
        self.keep = keep or rundir is not None
        self.verbose = verbose
        if rundir is None:
            rundir = os.path.join(cache_dir(), "runs", "%s-%d" % (
                time.strftime("%Y%m%d-%H%M%S"), os.getpid()))
        self.rundir = os.path.abspath(rundir)
        self.jobdir = os.path.join(self.rundir, "job")
        if paths < 1 or (paths > 1 and n < 2):
            raise ValueError("paths: 1, or more between 2 or more guests")
        self.paths = paths
        self.links = self._make_links()
        self.procs = [None] * n
        self.started = [None] * n
        self.ended = [None] * n
        self.errors = [None] * n
        self.boots = [0] * n    # restarts of each guest so far
        self.initramfs = None
        self.sockdir = None
        self._own_sockdir = False
        self._results = None

    # -- wiring ---------------------------------------------------------------
    def _make_links(self):
        if self.n == 1:
            return [Link(0, 0, 0)]
        pairs = [(a, b, k) for a, b in
                 itertools.combinations(range(self.n), 2)
                 for k in range(self.paths)]
        if len(pairs) > 255:
            raise ValueError("too many guests for 198.18.X.0/24 links")
        return [Link(i + 1, a, b, k) for i, (a, b, k) in enumerate(pairs)]

    def guest_links(self, g):
        """The links of guest g in NIC order (eth0, eth1, ...)."""
        return [l for l in self.links if g in (l.a, l.b)]

    def link(self, a, b, k=0):
        a, b = min(a, b), max(a, b)
        for l in self.links:
            if (l.a, l.b, l.k) == (a, b, k):
                return l
        raise KeyError("no link %d between guests %d and %d" % (k, a, b))

    def topology_lines(self):
        lines = []
        for g in range(self.n):
            for k, l in enumerate(self.guest_links(g)):
                p = l.peer(g)
                lines.append(
                    "guest %d netdev %s link %d-%d mac %s addr %s/24 "
                    "peer_guest %d peer_addr %s ifname eth%d rxe rxe%d" % (
                        g, l.id, l.a, l.b, l.mac(g), l.addr(g), p, l.addr(p),
                        k, k))
        return lines

    def _sock(self, l, g):
        return os.path.join(self.sockdir, "%s-%d.sock" % (l.id, g))

    def qmp_path(self, g):
        return os.path.join(self.sockdir, "qmp-g%d.sock" % g)

    def _pick_sockdir(self):
        # sun_path holds 107 bytes; a deep rundir would not fit.
        longest = len(os.path.join(self.rundir, "l%d_%d-%d.sock" % (
            self.n, self.n, self.n)))
        if longest < 100:
            self.sockdir = self.rundir
        else:
            self.sockdir = tempfile.mkdtemp(prefix="txrdma-vm-")
            self._own_sockdir = True

    # -- paths ------------------------------------------------------------
    def job_path(self, relpath=""):
        return os.path.join(self.jobdir, relpath)

    def guest_dir(self, g):
        return os.path.join(self.rundir, "g%d" % g)

    def console_path(self, g):
        return os.path.join(self.guest_dir(g), "console.log")

    # -- start ------------------------------------------------------------
    def qemu_argv(self, g, initramfs):
        accel = os.environ.get("TXRDMA_VM_ACCEL", "tcg")
        if accel == "kvm":
            accel_args = ["-accel", "kvm", "-cpu", "host"]
        else:
            accel_args = ["-accel", "tcg,thread=multi", "-cpu", "max"]
        cmdline = "console=ttyS0 loglevel=5 "
        if self.slub_debug:
            cmdline += "slub_debug=%s " % self.slub_debug
        cmdline += "panic=-1 txrdmavm.init=%s txrdmavm.guest=%d" % (
            GUEST_INIT, g)
        if self.append:
            cmdline += " " + self.append
        # for a person chasing a problem: e.g. loglevel=7, so that a
        # hung task's stack (KERN_INFO) reaches the console too
        if os.environ.get("TXRDMA_VM_APPEND"):
            cmdline += " " + os.environ["TXRDMA_VM_APPEND"]
        serial = ("mon:stdio" if self.shell
                  else "file:" + self.console_path(g))
        if self.machine:
            accel_args += ["-machine", self.machine]
        argv = ["qemu-system-x86_64"] + accel_args + [
            "-m", str(self.mem), "-smp", str(self.smp),
            "-nodefaults", "-no-reboot", "-display", "none",
            "-serial", serial,
            "-kernel", self.kernel,
            "-initrd", initramfs,
            "-append", cmdline,
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
                       "readonly=on,multidevs=remap",
            "-virtfs", "local,path=%s,mount_tag=job,security_model=none,"
                       "multidevs=remap" % self.jobdir,
            "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path(g),
            "-device", "virtio-rng-pci",
        ]
        for l in self.guest_links(g):
            peer = l.peer(g)
            if l.a == l.b:
                # Single guest: the remote end is a path nobody binds.
                remote = os.path.join(self.sockdir, "%s-none.sock" % l.id)
            else:
                remote = self._sock(l, peer)
            argv += [
                "-netdev", "dgram,id=%s,local.type=unix,local.path=%s,"
                           "remote.type=unix,remote.path=%s" % (
                               l.id, self._sock(l, g), remote),
                "-device", "virtio-net-pci,netdev=%s,mac=%s,id=nic-%s,"
                          "speed=10000,duplex=full" % (
                    l.id, l.mac(g), l.id),
            ]
        return argv

    def _write_job(self):
        os.makedirs(self.jobdir, exist_ok=True)
        with open(self.job_path("topology"), "w") as f:
            f.write("\n".join(self.topology_lines()) + "\n")
        # one peer key for the whole cluster, fresh for each run: every
        # guest's peers prove it (guest-init installs it as
        # $TXRDMA_PEER_KEY, mode 600, for "txrdma-admin peer add ... key")
        fd = os.open(self.job_path("peer.key"),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(os.urandom(32).hex() + "\n")
        for g in range(self.n):
            os.makedirs(self.guest_dir(g), exist_ok=True)
            gj = self.job_path("g%d" % g)
            os.makedirs(gj, exist_ok=True)
            env = {
                "TXRDMA_NGUESTS": str(self.n),
                "TXRDMA_ROOT": REPO_ROOT,
                "TXRDMA_KO": self.module,
                "TXRDMA_LOAD_MODULE": "1" if self.load_module else "0",
                "TXRDMA_MODPARAMS": self.module_params,
                "TXRDMA_SHELL": "1" if self.shell else "0",
                "TXRDMA_TERM": os.environ.get("TERM", "vt100"),
                # guest-init links it as /lib/modules/$(uname -r)
                "TXRDMA_MODDIR": self.moddir or "",
            }
            if self.shell:
                try:
                    cols, rows = os.get_terminal_size(sys.stdin.fileno())
                    env["TXRDMA_ROWS"] = str(rows)
                    env["TXRDMA_COLS"] = str(cols)
                except OSError:
                    pass
            with open(os.path.join(gj, "env"), "w") as f:
                for k, v in sorted(env.items()):
                    f.write("%s=%s\n" % (k, shlex.quote(v)))
            with open(os.path.join(gj, "cmd"), "w") as f:
                f.write(self.cmds[g] + "\n")

    def start(self):
        """Build the initramfs, write the job directory, launch all QEMUs."""
        for what, path in (("repository", REPO_ROOT),
                           ("module", self.module if self.load_module
                            else None),
                           ("modules directory", self.moddir)):
            if path and _shadowed(path):
                raise RuntimeError(
                    "%s %s is under a directory the guest replaces with its "
                    "own (%s); guests cannot see it" % (
                        what, path, " ".join(GUEST_PRIVATE_DIRS)))
        if not os.path.exists(self.kernel):
            raise RuntimeError("kernel image %s missing" % self.kernel)
        initramfs = build_initramfs(self.kver, self.moddir)
        self.initramfs = initramfs
        if os.path.exists(self.rundir) and os.listdir(self.rundir):
            raise RuntimeError("rundir %s is not empty" % self.rundir)
        os.makedirs(self.rundir, exist_ok=True)
        self._pick_sockdir()
        self._write_job()
        for g in range(self.n):
            argv = self.qemu_argv(g, initramfs)
            with open(os.path.join(self.guest_dir(g), "qemu.argv"), "w") as f:
                f.write(" ".join(shlex.quote(a) for a in argv) + "\n")
            if self.shell:
                self.procs[g] = subprocess.Popen(argv)
                self.started[g] = time.monotonic()
            else:
                self._launch(g, argv, "w")
        return self

    def _launch(self, g, argv, mode):
        """Start guest g's QEMU on ARGV, its output to qemu.log (MODE)."""
        log = open(os.path.join(self.guest_dir(g), "qemu.log"), mode)
        self.procs[g] = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.started[g] = time.monotonic()
        self.ended[g] = None

    # files of a boot that the next boot of the guest would overwrite
    BOOT_FILES = ("output", "status", "dmesg", "boot_time", "end_time",
                  "cmd_jiffies", "module_jiffies", "kmemleak", "modsyms")

    def restart(self, g):
        """Power guest g on again after it was killed (a crash and a
        reboot): the same kernel, command and links.  What its earlier
        boot left (its job files, its console log) is kept with a
        ".boot<K>" suffix; its command finds TXRDMA_BOOT=<boots so far>
        in its environment.  Return that count."""
        p = self.procs[g]
        if p is None or p.poll() is None:
            raise RuntimeError("guest %d is not down" % g)
        k = self.boots[g]
        self.boots[g] = k + 1
        for name in self.BOOT_FILES:
            path = self.job_path("g%d/%s" % (g, name))
            if os.path.exists(path):
                os.rename(path, "%s.boot%d" % (path, k))
        con = self.console_path(g)
        if os.path.exists(con):
            os.rename(con, "%s.boot%d" % (con, k))
        env = self.job_path("g%d/env" % g)
        with open(env) as f:
            lines = [l for l in f if not l.startswith("TXRDMA_BOOT=")]
        lines.append("TXRDMA_BOOT=%d\n" % self.boots[g])
        with open(env, "w") as f:
            f.writelines(lines)
        # QEMU binds its own ends again: a killed one left them behind
        for l in self.guest_links(g):
            try:
                os.unlink(self._sock(l, g))
            except FileNotFoundError:
                pass
        try:
            os.unlink(self.qmp_path(g))
        except FileNotFoundError:
            pass
        self.errors[g] = None
        self._launch(g, self.qemu_argv(g, self.initramfs), "a")
        return self.boots[g]

    # -- rendezvous ---------------------------------------------------------
    def wait_file(self, g, relpath, timeout=60, interval=0.1):
        """Wait until RELPATH (relative to the job directory) exists; return
        its content.  Raises TimeoutError, or RuntimeError when guest g
        (None: any guest) has exited first."""
        path = self.job_path(relpath)
        deadline = time.monotonic() + timeout
        while True:
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    return f.read()
            guests = range(self.n) if g is None else [g]
            for i in guests:
                p = self.procs[i]
                if p is not None and p.poll() is not None \
                        and not os.path.exists(path):
                    raise RuntimeError("guest %d exited before %s appeared"
                                       % (i, relpath))
            if time.monotonic() >= deadline:
                raise TimeoutError("%s did not appear within %ss"
                                   % (relpath, timeout))
            time.sleep(interval)

    def write_file(self, relpath, text):
        """Atomically create RELPATH in the job directory (a host-side
        rendezvous for the guests)."""
        path = self.job_path(relpath)
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, path)

    # -- QMP ------------------------------------------------------------------
    def qmp(self, g, execute, **arguments):
        """Run one QMP command on guest g; return its "return" value."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        try:
            s.connect(self.qmp_path(g))
            f = s.makefile("rwb")

            def recv():
                while True:
                    line = f.readline()
                    if not line:
                        raise QMPError("guest %d: QMP connection closed" % g)
                    msg = json.loads(line)
                    if "event" in msg:
                        continue
                    return msg

            def send(cmd, args=None):
                msg = {"execute": cmd}
                if args:
                    msg["arguments"] = args
                f.write(json.dumps(msg).encode() + b"\n")
                f.flush()
                reply = recv()
                if "error" in reply:
                    raise QMPError("guest %d: %s: %s" % (
                        g, cmd, reply["error"].get("desc", reply["error"])))
                return reply.get("return")

            greeting = recv()
            if "QMP" not in greeting:
                raise QMPError("guest %d: bad QMP greeting %r" % (g, greeting))
            send("qmp_capabilities")
            return send(execute, arguments)
        finally:
            s.close()

    def set_link(self, g, netdev_id, up):
        """Set the link state of guest g's netdev (and its NIC) up or down."""
        self.qmp(g, "set_link", name=netdev_id, up=bool(up))

    def cut(self, a, b, k=0):
        """Take link k between guests a and b down on both ends."""
        l = self.link(a, b, k)
        self.set_link(a, l.id, False)
        self.set_link(b, l.id, False)

    def restore(self, a, b, k=0):
        l = self.link(a, b, k)
        self.set_link(a, l.id, True)
        self.set_link(b, l.id, True)

    def partition(self, a, b, k=0):
        """Drop every packet between guests a and b, the link itself
        staying up: a partition somewhere in the network, not a cable
        pulled.  (cut() takes the carrier away, and the guest's kernel
        then holds its link down for up to 1 s after it is back: its
        link-change events are rate-limited to one a second.)  A
        filter-redirector on each end sends the link's packets, both
        ways, to a null chardev.  k: which link (Cluster's paths)."""
        l = self.link(a, b, k)
        for g in (a, b):
            self.qmp(g, "chardev-add", id="drop-" + l.id,
                     backend={"type": "null", "data": {}})
            self.qmp(g, "object-add", **{
                "qom-type": "filter-redirector", "id": "cut-" + l.id,
                "netdev": l.id, "queue": "all", "outdev": "drop-" + l.id})

    def heal(self, a, b, k=0):
        """End a partition() of guests a and b (of their link k)."""
        l = self.link(a, b, k)
        for g in (a, b):
            self.qmp(g, "object-del", id="cut-" + l.id)
            self.qmp(g, "chardev-remove", id="drop-" + l.id)

    def pause(self, g):
        self.qmp(g, "stop")

    def resume(self, g):
        self.qmp(g, "cont")

    def kill(self, g, reason="killed", hard=False):
        """Stop guest g's QEMU now (QMP quit, else SIGKILL; HARD: SIGKILL
        at once, as a crash would)."""
        p = self.procs[g]
        if p is None or p.poll() is not None:
            return
        if self.errors[g] is None:
            self.errors[g] = reason
        if hard:
            p.kill()
        try:
            if not hard:
                self.qmp(g, "quit")
        except (OSError, QMPError, ValueError):
            pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        self.ended[g] = time.monotonic()

    # -- results ------------------------------------------------------------
    def running(self):
        return [g for g in range(self.n)
                if self.procs[g] is not None and self.procs[g].poll() is None]

    def wait(self):
        """Wait for every guest to power off (or time out); return a list of
        GuestResult, one per guest."""
        if self._results is not None:
            return self._results
        while True:
            now = time.monotonic()
            alive = False
            for g in range(self.n):
                p = self.procs[g]
                if p is None:
                    continue
                if p.poll() is not None:
                    if self.ended[g] is None:
                        self.ended[g] = now
                    continue
                if now - self.started[g] > self.timeout:
                    self.kill(g, "timed out after %ds" % self.timeout)
                    if not self.shell:
                        sys.stderr.write(
                            "txrdma-vm: guest %d timed out after %ds; "
                            "console tail:\n%s\n" % (
                                g, self.timeout,
                                _tail(self.console_path(g), 20)))
                    continue
                alive = True
            if not alive:
                break
            time.sleep(0.1)
        self._results = [self._collect(g) for g in range(self.n)]
        return self._results

    def _read_job(self, g, name):
        try:
            with open(self.job_path("g%d/%s" % (g, name)),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return None

    def _collect(self, g):
        r = GuestResult(g)
        r.console = None if self.shell else self.console_path(g)
        r.error = self.errors[g]
        r.output = self._read_job(g, "output") or ""
        r.dmesg = self._read_job(g, "dmesg") or ""
        status = self._read_job(g, "status")
        if status is not None and r.error is None:
            try:
                r.status = int(status.strip())
            except ValueError:
                r.error = "bad status %r" % status
        elif r.error is None:
            rc = self.procs[g].returncode if self.procs[g] else None
            r.error = "guest powered off without a status (qemu exit %s)" % rc
        boot = self._read_job(g, "boot_time")
        end = self._read_job(g, "end_time")
        try:
            r.boot_s = float(boot)
            r.cmd_s = float(end) - r.boot_s
        except (TypeError, ValueError):
            pass
        if self.started[g] is not None and self.ended[g] is not None:
            r.wall_s = self.ended[g] - self.started[g]
        r.problems = dmesg_problems(r.dmesg)
        r.kmemleak = self._read_job(g, "kmemleak") or ""
        if r.kmemleak:
            since = self._read_job(g, "module_jiffies") or \
                self._read_job(g, "cmd_jiffies")
            r.problems += kmemleak_problems(
                r.kmemleak, since, self._read_job(g, "modsyms"))
        # The console also sees what happened after dmesg was saved, or
        # everything when the guest died before saving it; so do the
        # consoles of its earlier boots (restart()), killed ones.
        seen = set(r.problems)
        consoles = ["%s.boot%d" % (self.console_path(g), k)
                    for k in range(self.boots[g])]
        for con in consoles + ([r.console] if r.console else []):
            try:
                with open(con, errors="replace") as f:
                    for line in dmesg_problems(f.read()):
                        if line not in seen:
                            seen.add(line)
                            r.problems.append(line)
            except OSError:
                pass
        return r

    def close(self):
        """Kill leftover guests; remove the rundir unless kept or failed."""
        for g in range(self.n):
            p = self.procs[g]
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        if self._own_sockdir:
            shutil.rmtree(self.sockdir, ignore_errors=True)
            self._own_sockdir = False
        ok = self._results is not None and all(r.ok for r in self._results)
        if ok and not self.keep and os.path.isdir(self.rundir):
            shutil.rmtree(self.rundir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def format_result(r, tail=40):
    """Human-readable report of one GuestResult (used by the CLI)."""
    out = ["===== guest %d output =====" % r.guest]
    out.append(r.output.rstrip("\n") if r.output else "(no output)")
    if r.error:
        line = "guest %d: FAILED: %s" % (r.guest, r.error)
    else:
        line = "guest %d: exit %s" % (r.guest, r.status)
    timing = []
    if r.boot_s is not None:
        timing.append("boot %.1fs" % r.boot_s)
    if r.cmd_s is not None:
        timing.append("cmd %.1fs" % r.cmd_s)
    if r.wall_s is not None:
        timing.append("total %.1fs" % r.wall_s)
    if timing:
        line += " (%s)" % ", ".join(timing)
    if r.problems:
        out.append("----- guest %d kernel problems -----" % r.guest)
        out.extend(r.problems[:50])
        if len(r.problems) > 50:
            out.append("... %d more" % (len(r.problems) - 50))
    if (r.error or r.status != 0 or r.problems) and r.console:
        out.append("----- guest %d console tail (%s) -----" % (
            r.guest, r.console))
        out.append(r.console_tail(tail).rstrip("\n"))
    out.append(line)
    if r.problems:
        out.append("guest %d: FAILED: %d kernel problem line(s)" % (
            r.guest, len(r.problems)))
    return "\n".join(out)
