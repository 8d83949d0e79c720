#!/usr/bin/env python3
"""make test's check of what a learner reads: each step README is a lesson in the same five
sections, within its word budget, with no lab bookkeeping; the front page within its budget;
and no document or script names a repository path that does not exist, nor points at a line
of a file ([`name`](file#L12)) that does not hold that name.

    python3 scripts/check_docs.py          # one line per README, then PASS/FAIL lines

Words are counted in prose only: fenced code blocks, table rows and the generated tables
between <!-- name:begin --> and <!-- name:end --> markers are left out.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ["## What changed", "## Why it is", "## Numbers", "## What to look for", "## Tried"]
# Lab bookkeeping a lesson must not carry: run numbers, notebook paths, git archaeology.
BOOKKEEPING = re.compile(r"\bruns? \d+|notes/|git show|SPEC\.md|\.dev/")


def budget(path):
    rel = os.path.relpath(path, ROOT)
    if rel == "README.md":
        return 1200
    step = re.match(r"(\d\d)_", rel)
    return (1000 if int(step.group(1)) <= 8 else 1800) if step else None


def prose(text):
    text = re.sub(r"<!--\s*(\w+):begin\s*-->.*?<!--\s*\1:end\s*-->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("|"))


def tracked_files():
    p = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return p.stdout.split()
    return [os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(ROOT)
            if "/.git" not in d and "/build" not in d for f in fs]


TOP = ("common/", "scripts/", "tests/", "results/", "docs/", "Makefile", "README.md", ".ci/")
PATHISH = re.compile(r"`((?:\.\./)?(?:[0-9][0-9]_[a-z0-9_]+|" + "|".join(re.escape(t.rstrip("/")) for t in TOP)
                     + r")(?:/[A-Za-z0-9_.\-]+)*/?)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")  # a path, with or without an #anchor
# [`name`](../common/hopper.cuh#L109): a pointer at the line that defines name.
LINE_LINK = re.compile(r"\[`([A-Za-z_]\w*)[^`]*`\]\(([^)#\s]+)#L(\d+)\)")


def missing_paths(path, text):
    """Repository paths named in backticks or links that do not exist (URLs and patterns skipped)."""
    base = os.path.dirname(path)
    out = []
    for m in LINK.finditer(text) if path.endswith(".md") else []:
        target = m.group(1)
        if "://" in target or target.startswith("mailto:"):
            continue
        if not os.path.exists(os.path.normpath(os.path.join(base, target))):
            out.append(target)
    for m in LINE_LINK.finditer(text) if path.endswith(".md") else []:
        name, target, line = m.group(1), m.group(2), int(m.group(3))
        full = os.path.normpath(os.path.join(base, target))
        lines = open(full).read().splitlines() if os.path.isfile(full) else []
        if not (0 < line <= len(lines) and re.search(r"\b" + name + r"\b", lines[line - 1])):
            out.append(f"{target}#L{line} (no {name} there)")
    for m in PATHISH.finditer(text):
        target = m.group(1)
        full = os.path.normpath(os.path.join(base if target.startswith("../") else ROOT, target))
        # build outputs and per-GPU files a learner's run creates are named as such, not required
        if target.startswith(("build/", "../build/")) or re.search(r"/gemm$|ptxas\.txt$", target):
            continue
        if not os.path.exists(full):
            out.append(target)
    return out


def main():
    failed = 0
    readmes = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "[0-9][0-9]_*", "README.md")))
    for path in readmes:
        rel = os.path.relpath(path, ROOT)
        text = open(path).read()
        p = prose(text)
        words, lim = len(p.split()), budget(path)
        refs = BOOKKEEPING.findall(p)
        ok = words <= lim and not refs
        print(f"{'PASS' if ok else 'FAIL'} docs: {rel}: {words} words of prose (budget {lim}), "
              f"{len(refs)} lab references" + (f": {refs[:3]}" if refs else ""))
        failed += not ok
        if rel != "README.md":
            heads = [next((i for i, l in enumerate(text.splitlines()) if l.startswith(s)), -1) for s in SECTIONS]
            ok = all(h >= 0 for h in heads) and heads == sorted(heads)
            print(f"{'PASS' if ok else 'FAIL'} docs: {rel}: sections {', '.join(s[3:] for s in SECTIONS)} in order")
            failed += not ok
    for rel in tracked_files():
        if not rel.endswith((".md", ".py", ".c", ".h", ".cu", ".txt", "Makefile", "run")) or rel.startswith("tests/data/"):
            continue
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            continue
        bad = missing_paths(path, open(path, errors="replace").read())
        if bad:
            print(f"FAIL docs: {rel} names paths that are not in the repository: {', '.join(sorted(set(bad))[:5])}")
            failed += 1
    if not failed:
        print("PASS docs: every path named in the repository's files exists")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
