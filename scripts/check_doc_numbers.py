#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that the numbers the docs give for header constants are the
headers' numbers.

The values come from the C compiler, not from reading the headers: a
small program that includes uapi/ and lib/include/ prints every
object-like TXRDMA_* macro that evaluates to an integer.  The docs
(Documentation/*.rst, README, man pages) give such a number next to
the constant's name, in one of these forms, which this checks:

    ``TXRDMA_RX_MAX_UNITS`` (16384)          also (16,384), (= 16384),
    TXRDMA_EP_MAX_EXPORTS (16)               (2 MiB), (64 KiB), (4096 bytes)
    ``TXRDMA_RX_MIN_UNITS``..``TXRDMA_RX_MAX_UNITS`` (16..16384)

and that every libtxrdma version node a doc names (TXRDMA_0.N) is one
of lib/libtxrdma.map, the newest of which the library docs must name.
It prints TAP; exit 1 on any mismatch, on a doc naming a constant that
does not exist, or when fewer than MIN_CHECKED numbers were found (a
checker that finds nothing checks nothing).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = ["uapi/linux/txrdma.h", "uapi/linux/txrdma_ring.h",
           "lib/include/txrdma.h", "lib/include/txrdma_ring.h"]
DOCS = (sorted(glob.glob(os.path.join(ROOT, "Documentation", "*.rst"))) +
        [os.path.join(ROOT, "README")] +
        sorted(glob.glob(os.path.join(ROOT, "Documentation", "man", "*.[0-9]"))))
MIN_CHECKED = 12

UNITS = {"": 1, "bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20,
         "GiB": 1 << 30, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
NUM = r"(0x[0-9a-fA-F]+|[0-9][0-9,]*)"
UNIT = r"(?:\s*(KiB|MiB|GiB|bytes|B|K|M|G))?"
NAME = r"``?(TXRDMA_[A-Z0-9_]+)``?"
SINGLE = re.compile(NAME + r"\s*\(\s*(?:=\s*)?" + NUM + UNIT +
                    r"\s*(?:,[^)]*)?\)")
RANGE = re.compile(NAME + r"\s*\.\.\s*" + NAME + r"\s*\(\s*" + NUM +
                   r"\s*\.\.\s*" + NUM + r"\s*\)")
NODE = re.compile(r"\bTXRDMA_(\d+\.\d+)\b")


def macros():
    """name -> integer value of every object-like integer TXRDMA_* macro"""
    names = []
    for h in HEADERS:
        with open(os.path.join(ROOT, h)) as f:
            for line in f:
                m = re.match(r"#define\s+(TXRDMA_[A-Z0-9_]+)\s+(\S.*)$", line)
                if not m or '"' in m.group(2):
                    continue
                names.append(m.group(1))
    prog = ["#include <stdio.h>", "#include <linux/txrdma.h>",
            "#include <linux/txrdma_ring.h>", "#include <txrdma.h>",
            "int main(void) {"]
    for n in names:
        # only what is an integer constant expression of an integer type
        prog.append('\t_Generic((%s), char *: 0, const char *: 0, '
                    'default: printf("%s %%llu\\n", '
                    '(unsigned long long)(%s)));' % (n, n, n))
    prog.append("\treturn 0;\n}")
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "m.c"), os.path.join(d, "m")
        with open(src, "w") as f:
            f.write("\n".join(prog) + "\n")
        cc = os.environ.get("CC", "cc")
        r = subprocess.run([cc, "-std=gnu11", "-w", "-I", os.path.join(ROOT, "uapi"),
                            "-I", os.path.join(ROOT, "lib", "include"),
                            "-o", exe, src], capture_output=True, text=True)
        if r.returncode:
            # a macro that is not an expression (a type, a statement)
            # breaks the build: drop the ones the compiler names
            bad = set(re.findall(r"(TXRDMA_[A-Z0-9_]+)", r.stderr))
            prog = [l for l in prog if not any(b in l for b in bad)]
            with open(src, "w") as f:
                f.write("\n".join(prog) + "\n")
            r = subprocess.run([cc, "-std=gnu11", "-w", "-I", os.path.join(ROOT, "uapi"),
                                "-I", os.path.join(ROOT, "lib", "include"),
                                "-o", exe, src], capture_output=True, text=True)
            if r.returncode:
                sys.exit("check_doc_numbers: cannot build the macro dump:\n" + r.stderr)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    vals = {}
    for line in out.splitlines():
        n, v = line.split()
        vals[n] = int(v)
    return names, vals


def num(s):
    s = s.replace(",", "")
    return int(s, 16) if s.lower().startswith("0x") else int(s)


def main():
    names, vals = macros()
    with open(os.path.join(ROOT, "lib", "libtxrdma.map")) as f:
        nodes = re.findall(r"^TXRDMA_(\d+\.\d+)\s*\{", f.read(), re.M)
    newest = max(nodes, key=lambda v: tuple(int(x) for x in v.split(".")))
    results = []		# (ok, text)
    checked = 0
    newest_named = False
    for path in DOCS:
        if not os.path.exists(path):
            continue
        rel = os.path.relpath(path, ROOT)
        with open(path) as f:
            text = f.read()
        flat = re.sub(r"\s+", " ", text)	# a number may wrap to the next line
        for m in RANGE.finditer(flat):
            for n, v in ((m.group(1), m.group(3)), (m.group(2), m.group(4))):
                checked += 1
                want = vals.get(n)
                results.append((want == num(v),
                                "%s: %s is %s (docs say %s)" % (rel, n, want, v)))
        for m in SINGLE.finditer(flat):
            n, v, unit = m.group(1), m.group(2), m.group(3) or ""
            checked += 1
            if n not in vals:
                results.append((False, "%s: %s (%s): no such integer constant in the headers"
                                % (rel, n, v)))
                continue
            got = num(v) * UNITS[unit]
            results.append((got == vals[n], "%s: %s is %d (docs say %s%s)"
                            % (rel, n, vals[n], v, " " + unit if unit else "")))
        for m in NODE.finditer(text):
            node = m.group(1)
            if node == newest:
                newest_named = True
            results.append((node in nodes, "%s: version node TXRDMA_%s is in libtxrdma.map"
                            % (rel, node)))
    results.append((newest_named, "the docs name the newest version node TXRDMA_%s" % newest))
    results.append((checked >= MIN_CHECKED,
                    "the docs give %d header numbers next to their names (at least %d)"
                    % (checked, MIN_CHECKED)))
    print("TAP version 13")
    print("1..%d" % len(results))
    failed = 0
    for i, (ok, t) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, t))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
