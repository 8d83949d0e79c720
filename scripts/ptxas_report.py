#!/usr/bin/env python3
"""One line per architecture from ptxas's resource report (nvcc -Xptxas -v): each kernel's
registers, its shared memory and any spills. The Makefile prints it after every build.

    python3 scripts/ptxas_report.py 08_warptile/ptxas.txt
"""
import os
import re
import shutil
import subprocess
import sys


def demangle(names):
    """Kernel names without their argument lists: gemm_kernel<true>, not _Z11gemm_kernelILb1E..."""
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if not tool or not names:
        return dict(zip(names, names))
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    pretty = {}
    for mangled, full in zip(names, out):
        full = re.sub(r"^void ", "", full.strip())
        depth, cut = 0, len(full)
        for i, ch in enumerate(full):  # drop the argument list: the first '(' outside <...>
            depth += ch == "<"
            depth -= ch == ">"
            if ch == "(" and depth == 0:
                cut = i
                break
        pretty[mangled] = (full[:cut] or mangled).replace("(bool)0", "false").replace("(bool)1", "true")
    return pretty


def parse(text):
    """[(arch, kernel, registers, smem bytes, spill bytes, stack bytes)] in the report's order."""
    rows, cur = [], None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)' for '(sm_\w+)'", line)
        if m:
            cur = {"kernel": m.group(1), "arch": m.group(2), "regs": 0, "smem": 0, "spill": 0, "stack": 0}
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill"] = int(m.group(1)), int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
    return rows


def report(text):
    rows = parse(text)
    names = demangle(sorted({r["kernel"] for r in rows}))
    lines = []
    for arch in dict.fromkeys(r["arch"] for r in rows):
        parts = []
        for r in (r for r in rows if r["arch"] == arch):
            extra = f", {r['smem']} B static smem" if r["smem"] else ""
            if r["spill"] or r["stack"]:
                extra += f", SPILLS {r['spill']} B, stack {r['stack']} B"
            parts.append(f"{names[r['kernel']]} {r['regs']} registers{extra}")
        lines.append(f"{arch}: " + "; ".join(parts))
    return lines


def main(argv):
    if len(argv) != 2 or not os.path.isfile(argv[1]):
        print("usage: ptxas_report.py NN_name/ptxas.txt", file=sys.stderr)
        return 2
    for line in report(open(argv[1]).read()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
