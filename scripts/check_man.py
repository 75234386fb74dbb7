#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The man pages: mandoc -T lint clean; txrdma-admin(8) and
"txrdma-admin --help" list the same commands; libtxrdma(3) names every
function libtxrdma exports (libtxrdma.map) and every inline one of its
headers.  Prints TAP; exit 1 on a failure.  Needs mandoc and a built
tools/txrdma-admin/txrdma-admin."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAN = os.path.join(ROOT, "Documentation", "man")
ADMIN = os.environ.get("TXRDMA_ADMIN",
                       os.path.join(ROOT, "tools", "txrdma-admin", "txrdma-admin"))
OBJECTS = ("dev", "tenant", "peer", "ep", "monitor")
results = []


def check(ok, text):
    results.append((bool(ok), text))


def render(page):
    out = subprocess.run(["mandoc", "-T", "ascii", page], capture_output=True,
                         text=True, check=True).stdout
    return re.sub(r".\x08", "", out)	# no overstrike bold


def commands(lines):
    """{"tenant exec", "dev show", "monitor count", ...} of synopsis lines"""
    found = set()
    for line in lines:
        w = [t for t in line.split() if t not in ("[", "]", "{", "}", "|")]
        if len(w) < 2 or w[0] not in OBJECTS:
            continue
        if w[1].isupper() or w[1] in ("--",):
            continue
        found.add(w[0] + " " + w[1])
    return found


def main():
    pages = sorted(glob.glob(os.path.join(MAN, "*.[0-9]")))
    for want in ("txrdma.7", "txrdma-admin.8", "libtxrdma.3"):
        check(os.path.join(MAN, want) in pages, "man page %s exists" % want)
    for p in pages:
        r = subprocess.run(["mandoc", "-T", "lint", "-W", "warning", p],
                           capture_output=True, text=True)
        msg = (r.stdout + r.stderr).strip()
        check(r.returncode == 0 and not msg,
              "mandoc -T lint -W warning %s: clean%s" % (os.path.basename(p),
                                                          "" if not msg else " (" + msg.replace("\n", "; ") + ")"))
    # txrdma-admin: the commands of --help and of the page
    helptext = subprocess.run([ADMIN, "--help"], capture_output=True, text=True).stdout
    helpcmds = commands(l.replace("txrdma-admin", "", 1) for l in helptext.splitlines()
                        if "txrdma-admin " in l)
    man8 = render(os.path.join(MAN, "txrdma-admin.8"))
    mancmds = commands(l for l in man8.splitlines() if re.match(r"^ {7}\S", l))
    check(len(helpcmds) >= 15, "txrdma-admin --help lists %d commands" % len(helpcmds))
    check(helpcmds == mancmds,
          "txrdma-admin(8) and --help list the same commands (only in help: %s; only in the page: %s)"
          % (sorted(helpcmds - mancmds) or "none", sorted(mancmds - helpcmds) or "none"))
    # libtxrdma(3): every function
    with open(os.path.join(ROOT, "lib", "libtxrdma.map")) as f:
        exported = set(re.findall(r"^\s*(txrdma_[a-z0-9_]+);", f.read(), re.M))
    inline = set()
    for h in glob.glob(os.path.join(ROOT, "lib", "include", "*.h")):
        with open(h) as f:
            text = f.read()
        inline |= set(re.findall(r"^static inline [^(;]*?\b(txrdma_[a-z0-9_]+)\(", text, re.M))
        inline |= set(re.findall(r"^static inline [^\n]*\n(txrdma_[a-z0-9_]+)\(", text, re.M))
    man3 = render(os.path.join(MAN, "libtxrdma.3"))
    named = set(re.findall(r"\b(txrdma_[a-z0-9_]+)\(", man3))
    check(len(exported) >= 20, "libtxrdma.map exports %d functions" % len(exported))
    missing = sorted((exported | inline) - named)
    check(not missing, "libtxrdma(3) names all %d exported and %d inline functions (missing: %s)"
          % (len(exported), len(inline), missing or "none"))
    print("TAP version 13")
    print("1..%d" % len(results))
    for i, (ok, t) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, t))
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
