#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The module's file tables list every file of kmod/, and only those.

Documentation/design.rst ("Module layout") and the comment at the top of
kmod/txrdma.h each name the files of the module: every .c file, and
every header that has no .c file of its own name.  A file added,
renamed or removed without its line in both tables is a reader's trap.
Prints TAP; exit 1 on a mismatch.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KMOD = os.path.join(ROOT, "kmod")


def module_files():
    names = set(os.listdir(KMOD))
    out = set()
    for n in names:
        if n.endswith(".mod.c") or not n.startswith("txrdma"):
            continue
        if n.endswith(".c"):
            out.add(n)
        elif n.endswith(".h") and n[:-2] + ".c" not in names \
                and n != "txrdma.h":
            out.add(n)
    return out


def design_table():
    text = open(os.path.join(ROOT, "Documentation", "design.rst")).read()
    part = text.split("Module layout", 1)[1]
    # the table: between its first rule and its last
    part = part.split("\n=====", 1)[1].split("\n=====", 2)[1]
    return set(re.findall(r"^``(txrdma\w*\.[ch])``", part, re.M))


def header_table():
    text = open(os.path.join(KMOD, "txrdma.h")).read()
    part = text.split("One file per concern", 1)[1].split("*/", 1)[0]
    return set(re.findall(r"^ \*   (txrdma\w*\.[ch])\s", part, re.M))


def main():
    files = module_files()
    n = 0
    bad = 0
    for what, listed in (("Documentation/design.rst", design_table()),
                         ("kmod/txrdma.h", header_table())):
        for f in sorted(files | listed):
            n += 1
            if f in files and f in listed:
                print("ok %d - %s lists %s" % (n, what, f))
            elif f in files:
                bad += 1
                print("not ok %d - %s does not list kmod/%s" % (n, what, f))
            else:
                bad += 1
                print("not ok %d - %s lists %s, which is not in kmod/" %
                      (n, what, f))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
