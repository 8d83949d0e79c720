#!/usr/bin/env python3
"""make autotune N=7: search a tuned step's tile sizes on this GPU.

    python3 scripts/autotune.py 07_autotune [--sizes 4096 2048] [--jobs 16] [--limit N] [--dry-run]

1. Enumerates BM, BN in {64, 128, 256}, BK in {8, 16, 32}, TM, TN in {4, 8, 16}
   and keeps the configurations that meet the step's static_asserts (the
   same rules, checked here before compiling) and a register budget
   (TM * TN <= 128 accumulators).
2. Builds every legal configuration in parallel with -D flags into
   build/autotune/<config>/ (the source is never edited).
3. Runs each build on odd shapes with verification (--beta 0.5, and 1x1x1,
   33x7x129, ...); a configuration that fails is reported and dropped.
4. Times the survivors at each size (median of 10 runs; the first size
   ranks them), prints a ranked table, and writes the winner's flags to
   <step>/tuned/<GPU>.flags and the whole ranking to
   <step>/tuned/<GPU>.ranking.csv.

The Makefile passes NVCC, NVCCFLAGS, ARCH, LDLIBS, COMMON_OBJS and GPU_KEY.
"""
import argparse
import concurrent.futures as cf
import csv
import datetime
import io
import itertools
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK_SHAPES = "1x1x1,33x7x129,129x127x1000,132x68x132,257x256x260,1x1000x64,1000x1x64"


def legal(bm, bn, bk, tm, tn):
    """The static_asserts of 07_autotune/gemm.cu, in the same order, plus a register budget."""
    threads = (bm // tm) * (bn // tn)
    return (bm % tm == 0 and bn % tn == 0
            and tm % 4 == 0 and tn % 4 == 0
            and bk % 4 == 0 and bn % 4 == 0
            and threads % (bk // 4) == 0 and bm % (threads // (bk // 4)) == 0
            and threads % (bn // 4) == 0 and bk % (threads // (bn // 4)) == 0
            and threads % 32 == 0 and threads <= 1024
            and bk * (bm + 4 + bn) * 4 <= 48 * 1024
            and tm * tn <= 128)


def name(c):
    return "bm{}_bn{}_bk{}_tm{}_tn{}".format(*c)


def flags(c):
    return "-DBM={} -DBN={} -DBK={} -DTM={} -DTN={}".format(*c)


def build(step, c):
    out = os.path.join(ROOT, "build", "autotune", step, name(c))
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "gemm")
    cmd = ([os.environ.get("NVCC", "nvcc")] + os.environ.get("NVCCFLAGS", "-O3 -std=c++17 -Icommon").split()
           + flags(c).split() + [f"-arch={os.environ.get('ARCH', 'sm_90')}", f'-DSTEP_NAME="{step}"', "-Xptxas", "-v",
                                 os.path.join(step, "gemm.cu")]
           + os.environ.get("COMMON_OBJS", "").split() + ["-o", exe] + os.environ.get("LDLIBS", "-lcublas -lgomp").split())
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    spill_bytes = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr)]
    return c, exe if p.returncode == 0 else None, p.stderr, bool(spill_bytes) and not any(spill_bytes)


def gflops(exe, size):
    p = subprocess.run([exe, str(size), "--no-check", "--csv", "--reps", "10", "--warmup", "1"], capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return float(rows[0]["gflops"]) if p.returncode == 0 and rows else 0.0


def main():
    ap = argparse.ArgumentParser(description="search a tuned step's tile sizes")
    ap.add_argument("step")
    ap.add_argument("--sizes", nargs="+", type=int, default=[4096, 2048])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--limit", type=int, default=0, help="try only the first N legal configurations")
    ap.add_argument("--dry-run", action="store_true", help="list the legal configurations and stop")
    args = ap.parse_args()
    step = args.step.rstrip("/")
    gpu = os.environ.get("GPU_KEY", "default")

    space = list(itertools.product([64, 128, 256], [64, 128, 256], [8, 16, 32], [4, 8, 16], [4, 8, 16]))
    configs = [c for c in space if legal(*c)]
    print(f"autotune {step} for {gpu}: {len(space)} configurations, {len(configs)} legal", flush=True)
    if args.limit:
        configs = configs[:args.limit]
    if args.dry_run:
        for c in configs:
            print("  " + flags(c))
        return 0

    t0 = time.time()
    built = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, (c, exe, err, no_spill) in enumerate(pool.map(lambda c: build(step, c), configs), 1):
            status = "ok" if exe and no_spill else ("spills" if exe else "build failed")
            print(f"[build {i}/{len(configs)} {time.time() - t0:5.0f}s] {name(c)}: {status}", flush=True)
            if exe and no_spill:
                built.append((c, exe))

    results = []
    for i, (c, exe) in enumerate(built, 1):
        p = subprocess.run([exe, "--shapes", CHECK_SHAPES, "--reps", "0", "--alpha", "-1.5", "--beta", "0.5"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"[time {i}/{len(built)}] {name(c)}: FAILS verification: "
                  + " | ".join(p.stderr.strip().splitlines()[:2]), flush=True)
            continue
        g = [gflops(exe, s) for s in args.sizes]
        results.append((c, g))
        print(f"[time {i}/{len(built)} {time.time() - t0:5.0f}s] {name(c)}: "
              + ", ".join(f"{s}^3 {x:.0f} GFLOPS" for s, x in zip(args.sizes, g)), flush=True)
    if not results:
        print("autotune: no configuration passed", file=sys.stderr)
        return 1

    results.sort(key=lambda r: -r[1][0])
    default = next((r for r in results if r[0] == (128, 128, 8, 8, 8)), None)
    print(f"\n{'rank':>4}  {'BM':>4} {'BN':>4} {'BK':>3} {'TM':>3} {'TN':>3} {'threads':>7}  "
          + "  ".join(f"{s}^3 GFLOPS" for s in args.sizes))
    for rank, (c, g) in enumerate(results[:15], 1):
        threads = (c[0] // c[3]) * (c[1] // c[4])
        print(f"{rank:>4}  {c[0]:>4} {c[1]:>4} {c[2]:>3} {c[3]:>3} {c[4]:>3} {threads:>7}  "
              + "  ".join(f"{x:12.0f}" for x in g))
    best = results[0]
    gain = f", {100 * (best[1][0] / default[1][0] - 1):+.1f}% over the default (step 06's sizes)" if default else ""
    print(f"\nwinner: {flags(best[0])}: {best[1][0]:.0f} GFLOPS at {args.sizes[0]}^3{gain}")

    tuned = os.path.join(ROOT, step, "tuned")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(tuned, f"{gpu}.flags"), "w") as f:
        f.write(f"# scripts/autotune.py on {gpu}, {date}: {len(configs)} legal configurations, {len(results)} passed; "
                f"winner {best[1][0]:.0f} GFLOPS at {args.sizes[0]}^3{gain}.\n{flags(best[0])}\n")
    with open(os.path.join(tuned, f"{gpu}.ranking.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["bm", "bn", "bk", "tm", "tn", "threads"] + [f"gflops_{s}" for s in args.sizes])
        for c, g in results:
            w.writerow(list(c) + [(c[0] // c[3]) * (c[1] // c[4])] + [f"{x:.0f}" for x in g])
    print(f"wrote {os.path.relpath(tuned, ROOT)}/{gpu}.flags and {gpu}.ranking.csv ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
