#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn hop_breakdown.sh's traces into a per-stage table of one hop.

  hop_breakdown.py spin   --kallsyms F --trace F --messages N [--per-msg K]
  hop_breakdown.py table  --dir D [--rst] [role options]

spin: the functions of a calibration trace that were entered more than
K times per message (default 8): the poller's idle loop and the like,
which hop_breakdown.sh then puts in set_ftrace_notrace.  One name a line.

table: reads from D (written by hop_breakdown.sh) kallsyms, kprobe_ids
("ID NAME" of the return probes), and for each tool that was traced:
  txrdma.trace, txrdma-client.ts, txrdma-server.ts, txrdma.pids,
  txrdma.untraced, txrdma.traced        (msg_pingpong's result lines)
  perftest.trace, perftest.pids, perftest.untraced, perftest.traced
The traces are tracefs "trace" files with options/raw and trace_clock
mono: "PID CPU NS IP PARENT_IP" (function tracer, hexadecimal) or
"PID CPU NS type: ID" (a return probe).  *.ts are msg_pingpong -T logs
("post NS" / "seen NS", CLOCK_MONOTONIC: the same time line).  *.pids
are "client PID" and "server PID".

A hop is one message one way, from the moment the sending process
publishes it (txrdma: msg_pingpong's SQ tail store; ib_send_lat: its
post_send system call) to the moment the receiving process publishes
its answer; between them each stage starts at the first entry of its
function after the previous stage.  Hops where a stage is missing or
out of order are dropped and counted.  Prints, per tool, the median of
every stage (us), its share of the sum of the medians, and the median
of the whole hop, beside msg_pingpong's or perftest's one-way p50 of
the same run with and without tracing; then the stages grouped the same
way for both tools.  Exit 1 when a tool's trace gives no hop.
"""
import argparse
import bisect
import collections
import os
import re
import statistics
import sys


def load_kallsyms(path):
    """Sorted text symbol addresses and their names."""
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            a = int(p[0], 16)
            if a:
                syms.append((a, p[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


class Symbols:
    def __init__(self, path):
        self.addrs, self.names = load_kallsyms(path)
        self.cache = {}

    def name(self, ip):
        n = self.cache.get(ip)
        if n is None:
            i = bisect.bisect_right(self.addrs, ip) - 1
            n = self.names[i] if i >= 0 else hex(ip)
            self.cache[ip] = n
        return n


def read_kprobe_ids(path):
    ids = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 2:
                    ids[p[0]] = p[1]
    return ids


def read_trace(path, syms, kids):
    """[(ns, pid, name, kind)] in time order; kind 'e' entry, 'r' return."""
    ev = []
    bad = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            try:
                pid, ns = int(p[0]), int(p[2])
                if p[3] == "type:":
                    name = kids.get(p[4])
                    if name is None:
                        bad += 1
                        continue
                    ev.append((ns, pid, name, "r"))
                else:
                    ev.append((ns, pid, syms.name(int(p[3], 16)), "e"))
            except (IndexError, ValueError):
                bad += 1
    ev.sort(key=lambda e: e[0])
    return ev, bad


def read_pids(path):
    pids = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                pids[p[0]] = int(p[1])
    return pids


def read_ts(path, side):
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 2 and p[0] in ("post", "seen"):
                out.append((int(p[1]), side, p[0]))
    return out


def kv(path, key):
    """KEY=value from a result line file, or None."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"(?:^|\s)%s=([0-9.]+)" % re.escape(key), text)
    return float(m.group(1)) if m else None


class Index:
    """Entries (or returns) of each function, by time, for 'first after'."""

    def __init__(self, events):
        self.t = collections.defaultdict(list)
        self.pid = collections.defaultdict(list)
        for ns, pid, name, kind in events:
            self.t[(name, kind)].append(ns)
            self.pid[(name, kind)].append(pid)
        self.names = {n for n, _ in self.t}

    def resolve(self, regex):
        """The traced function names matching regex (anchored)."""
        r = re.compile(regex + r"\Z")
        return sorted(n for n in self.names if r.match(n))

    def first(self, names, t0, t1=None, kind="e", pid=None):
        """Earliest entry of any of names in [t0, t1], or None."""
        best = None
        for n in names:
            ts = self.t.get((n, kind), [])
            i = bisect.bisect_left(ts, t0)
            while i < len(ts):
                if t1 is not None and ts[i] > t1:
                    break
                if pid is None or self.pid[(n, kind)][i] == pid:
                    if best is None or ts[i] < best[0]:
                        best = (ts[i], self.pid[(n, kind)][i])
                    break
                i += 1
        return best

    def last(self, names, t0, t1, kind="e"):
        best = None
        for n in names:
            ts = self.t.get((n, kind), [])
            i = bisect.bisect_right(ts, t1) - 1
            if i >= 0 and ts[i] >= t0 and (best is None or ts[i] > best):
                best = ts[i]
        return best


def med(v):
    return statistics.median(v) if v else None


def fmt(x, nd=1):
    return "n/a" if x is None else "%.*f" % (nd, x)


class Tool:
    def __init__(self, title):
        self.title = title
        self.stages = []        # [(label, [us...])]
        self.side = []          # off the hop's path: [(label, [us...])]
        self.totals = []
        self.hops = 0
        self.dropped = collections.Counter()
        self.notes = []
        self.groups = {}        # group -> [us per hop]

    @staticmethod
    def _series(lst, label):
        """the values of @label in @lst, a new empty list at its end"""
        for lab, v in lst:
            if lab == label:
                return v
        v = []
        lst.append((label, v))
        return v

    def stage(self, label):
        return self._series(self.stages, label)

    def add_hop(self, seq, post, answer, rxe_post, recv_cqe):
        """one hop: its stages (label, start, end) and the groups both
        tools have, from the post to the answer (ns timestamps)"""
        for label, a, b in seq:
            self.stage(label).append((b - a) / 1e3)
        self.totals.append((answer - post) / 1e3)
        for group, a, b in (("post -> rxe_post_send", post, rxe_post),
                            ("rxe_post_send -> recv CQE", rxe_post,
                             recv_cqe),
                            ("recv CQE -> receiver posts the answer",
                             recv_cqe, answer)):
            self.groups.setdefault(group, []).append((b - a) / 1e3)
        self.hops += 1

    def sidev(self, label):
        return self._series(self.side, label)


def chain(ix, t0, steps, limit):
    """Follow steps [(label, names, kind)] from t0; [(label, t)] or why not."""
    out = []
    t = t0
    for label, names, kind in steps:
        hit = ix.first(names, t, limit, kind)
        if hit is None:
            return None, label
        t = hit[0]
        out.append((label, t))
    return out, None


def analyse_txrdma(d, syms, kids, roles):
    tool = Tool("txrdma (msg_pingpong, spin)")
    ev, bad = read_trace(os.path.join(d, "txrdma.trace"), syms, kids)
    if bad:
        tool.notes.append("%d trace lines not understood" % bad)
    ix = Index(ev)
    pids = read_pids(os.path.join(d, "txrdma.pids"))
    user = (read_ts(os.path.join(d, "txrdma-client.ts"), "client") +
            read_ts(os.path.join(d, "txrdma-server.ts"), "server"))
    user.sort()
    r = {k: ix.resolve(v) for k, v in roles.items()}
    for k in ("send_exec", "recv_done"):
        if not r[k]:
            tool.notes.append("no traced function matches %s (%s)" %
                              (k, roles[k]))
            return tool
    fn = {k: ix.resolve(k) for k in ("rxe_post_send", "rxe_requester",
                                     "rxe_responder", "rxe_cq_post",
                                     "ib_poll_handler", "rxe_completer")}
    posts = [(t, s) for t, s, k in user if k == "post"]
    seens = [(t, s) for t, s, k in user if k == "seen"]
    seen_t = [t for t, _ in seens]
    post_t = [t for t, _ in posts]
    pickup = collections.Counter()
    neg = 0
    for i, (tp, side) in enumerate(posts):
        # the other side's sighting, then its answer
        j = bisect.bisect_left(seen_t, tp)
        while j < len(seens) and seens[j][1] == side:
            j += 1
        if j >= len(seens):
            break
        ts = seens[j][0]
        k = bisect.bisect_right(post_t, ts)
        while k < len(posts) and posts[k][1] == side:
            k += 1
        if k >= len(posts):
            break
        ta = posts[k][0]
        # our own next post bounds our send completion
        nxt = post_t[i + 1] if i + 1 < len(posts) else None
        steps = [("exec", r["send_exec"], "e"),
                 ("rxe_post_send", fn["rxe_post_send"], "e"),
                 ("rxe_requester", fn["rxe_requester"], "e"),
                 ("rxe_responder", fn["rxe_responder"], "e"),
                 ("recv_cqe", fn["rxe_cq_post"], "e"),
                 ("recv_done", r["recv_done"], "e"),
                 ("recv_ret", r["recv_done"], "r")]
        got, miss = chain(ix, tp, steps, ts)
        if got is None:
            tool.dropped["no %s before the sighting" % miss] += 1
            continue
        t = dict(got)
        handler = ix.last(fn["ib_poll_handler"], t["recv_cqe"],
                          t["recv_done"])
        if handler is None:
            tool.dropped["no ib_poll_handler before recv_done"] += 1
            continue
        if ts < t["recv_ret"] or ta < ts:
            neg += 1
            tool.dropped["user and kernel clocks out of order"] += 1
            continue
        ex = ix.first(r["send_exec"], tp, ts)
        pickup["doorbell (the process's system call)"
               if ex[1] in (pids.get("client"), pids.get("server"))
               else "kernel poller thread"] += 1
        seq = [("user post -> SQE executed (%s)" % "|".join(r["send_exec"]),
                tp, t["exec"]),
               ("SQE -> rxe_post_send (frame, credits, region)",
                t["exec"], t["rxe_post_send"]),
               ("rxe_post_send -> rxe_requester (tasklet)",
                t["rxe_post_send"], t["rxe_requester"]),
               ("rxe_requester -> rxe_responder (packet, loopback)",
                t["rxe_requester"], t["rxe_responder"]),
               ("rxe_responder -> recv CQE (rxe_cq_post)",
                t["rxe_responder"], t["recv_cqe"]),
               ("recv CQE -> ib_poll_handler (irq_poll softirq)",
                t["recv_cqe"], handler),
               ("ib_poll_handler -> %s" % "|".join(r["recv_done"]),
                handler, t["recv_done"]),
               ("%s: checks, tail published" % "|".join(r["recv_done"]),
                t["recv_done"], t["recv_ret"]),
               ("tail published -> process sees it",
                t["recv_ret"], ts),
               ("process sees it -> posts the answer",
                ts, ta)]
        tool.add_hop(seq, tp, ta, t["rxe_post_send"], t["recv_cqe"])
        # the sender's own completion, off the hop's path
        comp = ix.first(fn["rxe_completer"], t["rxe_responder"], nxt)
        if comp:
            scqe = ix.first(fn["rxe_cq_post"], comp[0], nxt)
            sd = ix.first(r["send_done"], scqe[0], nxt) if scqe else None
            rc = ix.first(r["ring_complete"], sd[0], nxt) if sd else None
            if rc:
                tool.sidev("rxe_responder -> rxe_completer (ACK)").append(
                    (comp[0] - t["rxe_responder"]) / 1e3)
                tool.sidev("rxe_completer -> send CQE").append(
                    (scqe[0] - comp[0]) / 1e3)
                tool.sidev("send CQE -> %s" % "|".join(r["send_done"])).append(
                    (sd[0] - scqe[0]) / 1e3)
                tool.sidev("%s -> CQE in the process's ring (%s)" % (
                    "|".join(r["send_done"]),
                    "|".join(r["ring_complete"]))).append(
                    (rc[0] - sd[0]) / 1e3)
                tool.sidev("user post -> its CQE in the ring (total)").append(
                    (rc[0] - tp) / 1e3)
    if pickup:
        tool.notes.append("SQEs executed by: " + ", ".join(
            "%s %d" % kv_ for kv_ in pickup.most_common()))
    tool.untraced = kv(os.path.join(d, "txrdma.untraced"), "lat_p50_us")
    tool.traced = kv(os.path.join(d, "txrdma.traced"), "lat_p50_us")
    return tool


def analyse_perftest(d, syms, kids, roles):
    tool = Tool("ib_send_lat (perftest -R)")
    ev, bad = read_trace(os.path.join(d, "perftest.trace"), syms, kids)
    if bad:
        tool.notes.append("%d trace lines not understood" % bad)
    ix = Index(ev)
    pids = read_pids(os.path.join(d, "perftest.pids"))
    fn = {k: ix.resolve(k) for k in ("ib_uverbs_write", "ib_uverbs_post_send",
                                     "rxe_post_send", "rxe_requester",
                                     "rxe_responder", "rxe_cq_post",
                                     "rxe_completer")}
    if not fn["ib_uverbs_post_send"]:
        tool.notes.append("ib_uverbs_post_send not traced")
        return tool
    side = {pids.get("client"): "client", pids.get("server"): "server"}
    # the post system calls of the two processes, in order
    posts = []
    for ns, pid, name, kind in ev:
        if kind == "e" and name in fn["ib_uverbs_post_send"] and pid in side:
            w = ix.last(fn["ib_uverbs_write"], ns - 1000000, ns)
            posts.append((w if w is not None else ns, ns, side[pid]))
    writes = 0
    for name in fn["ib_uverbs_write"]:
        writes += len(ix.t.get((name, "e"), []))
    if posts:
        tool.notes.append("%d ib_uverbs_write entries, %d of them POST_SEND "
                          "(rxe's doorbell: the WQE is in user memory)"
                          % (writes, len(posts)))
    for i, (tw, tps, s) in enumerate(posts):
        k = i + 1
        while k < len(posts) and posts[k][2] == s:
            k += 1
        if k >= len(posts):
            break
        ta = posts[k][0]
        nxt = next((p[0] for p in posts[i + 1:] if p[2] == s), None)
        steps = [("rxe_post_send", fn["rxe_post_send"], "e"),
                 ("rxe_requester", fn["rxe_requester"], "e"),
                 ("rxe_responder", fn["rxe_responder"], "e"),
                 ("recv_cqe", fn["rxe_cq_post"], "e")]
        got, miss = chain(ix, tps, steps, ta)
        if got is None:
            tool.dropped["no %s before the answer" % miss] += 1
            continue
        t = dict(got)
        seq = [("post_send system call -> ib_uverbs_post_send", tw, tps),
               ("ib_uverbs_post_send -> rxe_post_send", tps,
                t["rxe_post_send"]),
               ("rxe_post_send -> rxe_requester (inline)",
                t["rxe_post_send"], t["rxe_requester"]),
               ("rxe_requester -> rxe_responder (packet, loopback)",
                t["rxe_requester"], t["rxe_responder"]),
               ("rxe_responder -> recv CQE (rxe_cq_post)",
                t["rxe_responder"], t["recv_cqe"]),
               ("recv CQE -> receiver polls it, posts the answer "
                "(user space) -> system call", t["recv_cqe"], ta)]
        tool.add_hop(seq, tw, ta, t["rxe_post_send"], t["recv_cqe"])
        comp = ix.first(fn["rxe_completer"], t["rxe_responder"], nxt)
        scqe = ix.first(fn["rxe_cq_post"], comp[0], nxt) if comp else None
        if scqe:
            tool.sidev("rxe_responder -> rxe_completer (ACK)").append(
                (comp[0] - t["rxe_responder"]) / 1e3)
            tool.sidev("rxe_completer -> send CQE (polled in user space)"
                       ).append((scqe[0] - comp[0]) / 1e3)
    tool.untraced = kv(os.path.join(d, "perftest.untraced"), "lat_p50_us")
    tool.traced = kv(os.path.join(d, "perftest.traced"), "lat_p50_us")
    return tool


def print_tool(tool, rst):
    print()
    print("%s: %d hops" % (tool.title, tool.hops) +
          (", dropped: " + "; ".join("%s %d" % x for x in
                                      tool.dropped.most_common())
           if tool.dropped else ""))
    for n in tool.notes:
        print("  " + n)
    if not tool.hops:
        return
    meds = [(lab, med(v)) for lab, v in tool.stages]
    tot = sum(m for _, m in meds)
    w = max(len(lab) for lab, _ in meds + [(x, 0) for x, _ in tool.side])
    w = max(w, 40)
    sep = "=" * w + "  " + "=" * 9 + "  " + "=" * 6
    if rst:
        print(sep)
    print("%-*s  %9s  %6s" % (w, "stage (one hop, 64 B)", "p50 us", "share"))
    if rst:
        print(sep)
    for lab, m in meds:
        print("%-*s  %9s  %5.1f%%" % (w, lab, fmt(m), 100.0 * m / tot))
    print("%-*s  %9s  %6s" % (w, "sum of the stage medians", fmt(tot), ""))
    print("%-*s  %9s  %6s" % (w, "median hop (post -> peer's answer)",
                              fmt(med(tool.totals)), ""))
    print("%-*s  %9s  %6s" % (w, "one-way p50 of this traced run",
                              fmt(tool.traced), ""))
    print("%-*s  %9s  %6s" % (w, "one-way p50 untraced (same guest)",
                              fmt(tool.untraced), ""))
    if tool.traced and tool.untraced:
        print("%-*s  %8.2fx  %6s" % (w, "tracing inflation (traced/untraced)",
                                     tool.traced / tool.untraced, ""))
    if tool.side:
        print("%-*s  %9s  %6s" % (w, "off the path: the sender's completion",
                                  "", ""))
        for lab, v in tool.side:
            print("%-*s  %9s  %6s" % (w, "  " + lab, fmt(med(v)),
                                      "n=%d" % len(v)))
    if rst:
        print(sep)


def print_groups(tools, rst):
    names = ["post -> rxe_post_send", "rxe_post_send -> recv CQE",
             "recv CQE -> receiver posts the answer"]
    good = [t for t in tools if t.hops]
    if len(good) < 2:
        return
    print()
    print("Side by side (p50 us of each group of stages, share of their sum)")
    w = 40
    sep = "=" * w + "".join("  " + "=" * 16 for _ in good)
    if rst:
        print(sep)
    print("%-*s" % (w, "stages") + "".join(
        "  %16s" % t.title.split()[0] for t in good))
    if rst:
        print(sep)
    sums = [sum(med(t.groups[n]) for n in names) for t in good]
    for n in names:
        print("%-*s" % (w, n) + "".join(
            "  %16s" % ("%.1f (%4.1f%%)" % (med(t.groups[n]),
                                            100 * med(t.groups[n]) / s))
            for t, s in zip(good, sums)))
    print("%-*s" % (w, "sum") + "".join("  %16s" % fmt(s) for s in sums))
    if rst:
        print(sep)


def cmd_spin(a):
    syms = Symbols(a.kallsyms)
    ev, _ = read_trace(a.trace, syms, {})
    n = collections.Counter(name for _, _, name, k in ev if k == "e")
    for name, c in sorted(n.items()):
        if c > a.per_msg * a.messages:
            print(name)
    return 0


def cmd_table(a):
    syms = Symbols(os.path.join(a.dir, "kallsyms"))
    kids = read_kprobe_ids(os.path.join(a.dir, "kprobe_ids"))
    roles = {"send_exec": a.send_exec, "recv_done": a.recv_done,
             "send_done": a.send_done, "ring_complete": a.ring_complete}
    tools = []
    if os.path.exists(os.path.join(a.dir, "txrdma.trace")):
        tools.append(analyse_txrdma(a.dir, syms, kids, roles))
    if os.path.exists(os.path.join(a.dir, "perftest.trace")):
        tools.append(analyse_perftest(a.dir, syms, kids, roles))
    if not tools:
        print("hop_breakdown: no trace in %s" % a.dir, file=sys.stderr)
        return 1
    for t in tools:
        print_tool(t, a.rst)
    print_groups(tools, a.rst)
    bad = [t.title for t in tools if not t.hops]
    if bad:
        print("hop_breakdown: no hop found in the trace of: " +
              ", ".join(bad), file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("spin")
    s.add_argument("--kallsyms", required=True)
    s.add_argument("--trace", required=True)
    s.add_argument("--messages", type=int, required=True)
    s.add_argument("--per-msg", type=float, default=8)
    t = sub.add_parser("table")
    t.add_argument("--dir", required=True)
    t.add_argument("--rst", action="store_true")
    # which traced function plays which part (regular expressions)
    t.add_argument("--send-exec", default=r"txrdma_(msg|tx)_send")
    t.add_argument("--recv-done", default=r"txrdma_(msg_recv|rx)_done")
    t.add_argument("--send-done", default=r"txrdma_(msg_send|tx)_done")
    t.add_argument("--ring-complete", default=r"txrdma_ring_complete")
    a = ap.parse_args()
    return cmd_spin(a) if a.cmd == "spin" else cmd_table(a)


if __name__ == "__main__":
    sys.exit(main())
