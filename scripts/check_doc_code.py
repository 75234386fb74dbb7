#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compile the C examples of the docs against the library's headers.

Every literal block of Documentation/*.rst that reads as C using the
library (it calls txrdma_* and has statements) must be preceded by an
RST comment that gives what it assumes from around it, e.g.

    .. compiled with: struct txrdma_ctx *ctx; __u32 ep;
       int build_message(void *p, __u32 len);

and every .EX/.EE block of Documentation/man/*.[0-9] that does, by a
man comment  .\\" compiled with: ...  on the lines before it.  The
block then goes into a function, the assumptions at file scope, and the
file is compiled with -Wall -Wextra -Werror (unused variables allowed).
Prints TAP; exit 1 when a block does not compile or has no such
comment.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "compiled with:"


def is_c(block):
    """C that uses the library: a statement calling txrdma_*(), no shell"""
    return (re.search(r"\btxrdma_\w+\(.*\)[^;\n]*;", block) is not None and
            "$(" not in block)


def rst_blocks(path):
    """(line, prelude or None, code) of each C literal block"""
    text = open(path).read()
    out = []
    for m in re.finditer(r"::\n\n((?:(?:[ \t]+.*)?\n)+)", text):
        code = m.group(1)
        if not is_c(code):
            continue
        before = text[:m.start()]
        # the comment is the last paragraph-level ".. compiled with:" in
        # the text just before the block (within the preceding 2000 chars)
        c = before.rfind(".. " + MARK)
        prelude = None
        if c >= 0 and len(before) - c < 2000 and "::\n\n" not in before[c:]:
            tail = before[c + len(".. " + MARK):]
            lines = [tail.split("\n")[0]]
            for l in tail.split("\n")[1:]:
                if l.startswith("   ") and l.strip():
                    lines.append(l)
                else:
                    break
            prelude = "\n".join(x.strip() for x in lines)
        out.append((before.count("\n") + 3, prelude, code))
    return out


def man_blocks(path):
    lines = open(path).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == ".EX":
            j = i + 1
            while j < len(lines) and lines[j].strip() != ".EE":
                j += 1
            code = "\n".join(lines[i + 1:j])
            code = code.replace("\\-", "-").replace("\\e", "\\")
            if is_c(code):
                prelude = None
                for k in range(i - 1, max(-1, i - 8), -1):
                    if lines[k].startswith('.\\" ' + MARK):
                        prelude = lines[k][len('.\\" ' + MARK):].strip()
                        if prelude.startswith("("):
                            prelude = ""	# "(nothing: ...)"
                        break
                out.append((i + 2, prelude, code))
            i = j
        i += 1
    return out


def compile_block(prelude, code):
    src = ("#include <errno.h>\n#include <stdio.h>\n#include <string.h>\n"
           "#include <err.h>\n#include <txrdma.h>\n\n" + prelude +
           "\n\nvoid doc_example(void);\nvoid doc_example(void)\n{\n" +
           code + "\n}\n")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "ex.c")
        with open(f, "w") as fh:
            fh.write(src)
        r = subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11",
                            "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                            "-Wno-unused-variable",
                            "-Wno-unused-but-set-variable",
                            "-I", os.path.join(ROOT, "lib", "include"),
                            "-I", os.path.join(ROOT, "uapi"), f],
                           capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def main():
    results = []
    files = sorted(glob.glob(os.path.join(ROOT, "Documentation", "*.rst")))
    man = sorted(glob.glob(os.path.join(ROOT, "Documentation", "man", "*.[0-9]")))
    total = 0
    for path, blocks in [(p, rst_blocks(p)) for p in files] + \
                        [(p, man_blocks(p)) for p in man]:
        rel = os.path.relpath(path, ROOT)
        for line, prelude, code in blocks:
            total += 1
            if prelude is None:
                results.append((False, "%s:%d: a C example without a '%s' comment"
                                % (rel, line, MARK), ""))
                continue
            ok, err = compile_block(prelude, code)
            results.append((ok, "%s:%d: the C example compiles" % (rel, line), err))
    results.append((total >= 3, "the docs have %d C examples (at least 3)" % total, ""))
    print("TAP version 13")
    print("1..%d" % len(results))
    for i, (ok, text, err) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, text))
        if not ok and err:
            for l in err.strip().split("\n")[:15]:
                print("# " + l)
    return 0 if all(r[0] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
