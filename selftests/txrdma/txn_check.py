#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""txn_check.py: the atomicity check of the "txn" suite over the logs of
a coordinator and its two participants (txn_guest.c says what each line
means):

  txn_check.py LABEL COUNT BOUND_MS COORD_LOG PART2_LOG PART3_LOG

prints TAP lines ("ok - LABEL: ...") and exits 1 if any check fails:
  - the coordinator decided every one of its COUNT transactions once;
  - it made every COMMIT durable before deciding it (an L line first);
  - no transaction committed at one participant and aborted at the
    other, none applied twice with different outcomes at one;
  - a COMMIT was applied by both participants, an ABORT by neither (a
    participant that prepared it applied the ABORT; one that voted no
    or never saw the PREPARE has nothing to apply);
  - no participant holds a prepared transaction without a decision;
  - no transaction took longer to decide than BOUND_MS (its vote
    timeouts and retries plus the peer's detection time);
  - about 10 % voted no (the participants' no votes are what aborted
    by vote), so the run exercised aborts at all.
"""

import sys


def read(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def main():
    if len(sys.argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    label, count, bound_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    coord, parts = sys.argv[4], {2: sys.argv[5], 3: sys.argv[6]}
    failed = 0

    def check(ok, what, detail=""):
        nonlocal failed
        print("%s - %s: %s" % ("ok" if ok else "not ok", label, what))
        if not ok:
            failed += 1
            if detail:
                print("#   " + detail)

    logged, decided, latency, why = set(), {}, {}, {}
    dup_decisions, unlogged_commits = [], []
    for f in read(coord):
        key = (int(f[1]), int(f[2]))
        if f[0] == "L":
            logged.add(key)
        elif f[0] == "D":
            if key in decided:
                dup_decisions.append(key)
            decided[key] = f[3]
            why[key] = int(f[4])
            latency[key] = int(f[5]) / 1000.0
            if f[3] == "C" and key not in logged:
                unlogged_commits.append(key)
    want = {(1, s) for s in range(1, count + 1)}
    check(set(decided) == want and not dup_decisions,
          "the coordinator decided each of its %d transactions once "
          "(%d decided)" % (count, len(decided)),
          "missing %s, extra %s, twice %s"
          % (sorted(want - set(decided))[:5], sorted(set(decided) - want)[:5],
             dup_decisions[:5]))
    check(not unlogged_commits,
          "every COMMIT was made durable (log hook) before it was decided",
          "not logged first: %s" % unlogged_commits[:5])

    # each participant's last word on each transaction, and conflicts
    final, prepared, novotes, conflicts = {}, {}, {}, []
    for n, path in parts.items():
        fin, prep, no = {}, set(), set()
        for f in read(path):
            key = (int(f[1]), int(f[2]))
            if f[0] == "P":
                prep.add(key)
            elif f[0] == "N":
                no.add(key)
                if key in fin and fin[key] == "C":
                    conflicts.append((n, key, "C then N"))
                fin.setdefault(key, "N")
            elif f[0] in "CA":
                old = fin.get(key)
                if old and old != f[0] and not (old == "N" and f[0] == "A"):
                    conflicts.append((n, key, old + " then " + f[0]))
                fin[key] = f[0]
        final[n], prepared[n], novotes[n] = fin, prep, no
    check(not conflicts,
          "no participant applied two outcomes to one transaction",
          "conflicts: %s" % conflicts[:5])

    split = [k for k in want
             if "C" in (final[2].get(k), final[3].get(k)) and
             {final[2].get(k), final[3].get(k)} & {"A", "N", None}]
    check(not split,
          "no transaction committed at one participant and aborted (or "
          "not applied) at the other (%d checked)" % count,
          "split: %s" % [(k, final[2].get(k), final[3].get(k))
                         for k in sorted(split)[:5]])

    wrong = []
    for k, d in decided.items():
        for n in parts:
            got = final[n].get(k)
            if d == "C" and got != "C":
                wrong.append((k, n, d, got))
            if d == "A" and got == "C":
                wrong.append((k, n, d, got))
    check(not wrong,
          "every participant applied what the coordinator decided "
          "(COMMIT at both, ABORT at neither)",
          "(txn, node, decided, applied): %s" % wrong[:5])

    blocked = [(n, k) for n in parts for k in prepared[n]
               if final[n].get(k) not in ("C", "A")]
    check(not blocked,
          "no participant holds a prepared transaction without a decision",
          "blocked: %s" % sorted(blocked)[:5])

    slow = sorted(((v, k) for k, v in latency.items()), reverse=True)
    worst = slow[0][0] if slow else 0.0
    check(worst <= bound_ms,
          "no transaction took longer to decide than %d ms (slowest %.1f ms)"
          % (bound_ms, worst),
          "slowest: %s" % slow[:5])

    commits = sum(1 for d in decided.values() if d == "C")
    by_vote = sum(1 for k, d in decided.items() if d == "A" and why[k] == 1)
    nos = {k for n in parts for k in novotes[n]}
    print("# %s: %d committed, %d aborted (%d by a no vote, %d for other "
          "reasons), %d transactions with a no vote" %
          (label, commits, count - commits, by_vote,
           count - commits - by_vote, len(nos)))
    check(0.05 * count <= len(nos) <= 0.15 * count and
          all(decided.get(k) == "A" for k in nos),
          "about 10%% voted no (%.1f %%) and each of those aborted"
          % (100.0 * len(nos) / count))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
