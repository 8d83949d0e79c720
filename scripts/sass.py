#!/usr/bin/env python3
"""make sass N=k: the step's machine code (SASS), and a count of the
instructions each lesson is about.

    python3 scripts/sass.py (NN_step | FILE.cubin | FILE.sass) [--out FILE]

Runs cuobjdump -sass on the step's binary (or a cubin), writes the whole
listing to build/sass/<name>.sass, and prints per kernel how many of these
it has: FFMA, LDS (32-bit) / LDS.64 / LDS.128, LDG (32-bit) / LDG.E.128,
STS / STS.128, STG.E.128, HMMA (mma.sync), LDSM, LDGSTS (cp.async), HGMMA
(wgmma), UTMALDG (TMA loads), BAR. The counts are static
(instructions in the code), not executed instructions: an unrolled loop
shows each copy once. A .sass file is counted as it is (for tests).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# /*0a40*/   @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;   -> LDG.E.128.CONSTANT
INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
COLUMNS = ["FFMA", "LDS", "LDS.64", "LDS.128", "LDG", "LDG.E.128", "STS", "STS.128", "STG.E.128", "HMMA", "LDSM",
           "LDGSTS", "HGMMA", "UTMALDG", "BAR"]


def classify(op):
    """The column an opcode (with its modifiers) is counted in, or None."""
    parts = op.split(".")
    base, mods = parts[0], set(parts[1:])
    wide = "128" in mods
    if base == "FFMA":
        return "FFMA"
    if base == "LDS":
        return "LDS.128" if wide else ("LDS.64" if "64" in mods else "LDS")
    if base == "LDG":
        return "LDG.E.128" if wide else "LDG"
    if base == "STS":
        return "STS.128" if wide else "STS"
    if base == "STG":
        return "STG.E.128" if wide else None
    if base in ("HMMA", "LDSM", "LDGSTS", "HGMMA", "UTMALDG", "BAR"):
        return base
    return None


def count(listing):
    """{kernel: Counter(column -> n)} for a cuobjdump -sass listing."""
    kernels = collections.OrderedDict()
    current = None
    for line in listing.splitlines():
        f = FUNCTION.match(line)
        if f:
            current = kernels.setdefault(f.group(1), collections.Counter())
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            column = classify(m.group(1))
            if column:
                current[column] += 1
    return kernels


def demangle(names):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt or not names:
        return {n: n for n in names}
    p = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True)
    out = p.stdout.splitlines()
    return dict(zip(names, out)) if p.returncode == 0 and len(out) == len(names) else {n: n for n in names}


def main():
    ap = argparse.ArgumentParser(description="SASS of a step with the lesson's instructions counted")
    ap.add_argument("target", help="a step directory, a cubin or executable, or a .sass listing")
    ap.add_argument("--out", help="where to write the listing (default build/sass/<name>.sass)")
    args = ap.parse_args()
    target = args.target.rstrip("/")
    if os.path.isdir(target):
        target = os.path.join(target, "gemm")
    if not os.path.exists(target):
        print(f"sass: {target} does not exist (build the step first: make step N=...)", file=sys.stderr)
        return 2
    if target.endswith(".sass"):
        listing = open(target).read()
    else:
        cuobjdump = shutil.which("cuobjdump")
        if not cuobjdump:
            print("sass: cuobjdump is not on PATH: it comes with the CUDA toolkit (Debian/Ubuntu package "
                  "cuda-cuobjdump, or the whole cuda-toolkit)", file=sys.stderr)
            return 2
        p = subprocess.run([cuobjdump, "-sass", target], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"sass: cuobjdump failed: {p.stderr.strip()[:500]}", file=sys.stderr)
            return 1
        listing = p.stdout
        name = os.path.basename(os.path.dirname(os.path.abspath(target))) if target.endswith("/gemm") or \
            os.path.basename(target) == "gemm" else os.path.splitext(os.path.basename(target))[0]
        out = args.out or os.path.join(ROOT, "build", "sass", name + ".sass")
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        open(out, "w").write(listing)
        print(f"sass: full listing in {os.path.relpath(out)}")
    kernels = count(listing)
    if not kernels:
        print("sass: no kernels in the listing", file=sys.stderr)
        return 1
    names = demangle(list(kernels))
    print(f"{'kernel':<44} " + " ".join(f"{c:>9}" for c in COLUMNS))
    for k, c in kernels.items():
        short = names[k] if len(names[k]) <= 44 else names[k][:41] + "..."
        print(f"{short:<44} " + " ".join(f"{c[col]:>9}" for col in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
