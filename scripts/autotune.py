#!/usr/bin/env python3
"""make autotune N=7: search a tuned step's tile sizes on this GPU.

    python3 scripts/autotune.py 07_autotune [--sizes 4096 2048] [--jobs 16] [--limit N] [--dry-run]

1. Enumerates the step's parameter values (SPACES below: BM, BN, BK, TM, TN
   for step 07; BM, BN, BK, WM, WN, WNITER, TM, TN for step 08) and keeps
   the configurations that meet the step's static_asserts (the same rules,
   checked here before compiling; make test compiles every candidate against
   the static_asserts to keep the two in step) and the search's limits
   (registers, threads per block).
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

import steps as stepinfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK_SHAPES = "1x1x1,33x7x129,129x127x1000,132x68x132,257x256x260,1x1000x64,1000x1x64"


def rules_07(bm, bn, bk, tm, tn):
    """The static_asserts of 07_autotune/gemm.cu, in the same order (make test checks that they agree)."""
    threads = threads_07(bm, bn, bk, tm, tn)
    return (bm % tm == 0 and bn % tn == 0
            and tm % 4 == 0 and tn % 4 == 0
            and bk % 4 == 0 and bn % 4 == 0
            and threads % (bk // 4) == 0 and bm % (threads // (bk // 4)) == 0
            and threads % (bn // 4) == 0 and bk % (threads // (bn // 4)) == 0
            and threads % 32 == 0 and threads <= 1024
            and bk * (bm + 4 + bn) * 4 <= 48 * 1024)


def limits_07(bm, bn, bk, tm, tn):
    """The search's own limit: at most 128 accumulators per thread (more spills)."""
    return tm * tn <= 128


def threads_07(bm, bn, bk, tm, tn):
    return (bm // tm) * (bn // tn)


def rules_08(bm, bn, bk, wm, wn, wniter, tm, tn):
    """The static_asserts of 08_warptile/gemm.cu, in the same order (make test checks that they agree)."""
    if bm % wm or bn % wn or wn % wniter or (wn // wniter) % tn or (wm * wn) % (32 * tm * tn * wniter):
        return False
    wmiter = wm * wn // (32 * tm * tn * wniter)
    threads = threads_08(bm, bn, bk, wm, wn, wniter, tm, tn)
    return (wm % wmiter == 0 and (wm // wmiter) % tm == 0
            and (wm // wmiter // tm) * (wn // wniter // tn) == 32
            and tm % 4 == 0 and tn % 4 == 0
            and bk % 4 == 0 and bn % 4 == 0
            and threads % (bk // 4) == 0 and bm % (threads // (bk // 4)) == 0
            and threads % (bn // 4) == 0 and bk % (threads // (bn // 4)) == 0
            and threads <= 1024
            and 2 * bk * (bm + 4 + bn) * 4 <= 99 * 1024)


def limits_08(bm, bn, bk, wm, wn, wniter, tm, tn):
    """The search's own limits: 64 or 128 results per thread (fewer leaves the FMA units idle,
    more spills), 128 or 256 threads."""
    return wm * wn // 32 in (64, 128) and threads_08(bm, bn, bk, wm, wn, wniter, tm, tn) in (128, 256)


def threads_08(bm, bn, bk, wm, wn, wniter, tm, tn):
    return (bm // wm) * (bn // wn) * 32


def rules_09(bm, bn, bk, wm, wn, min_blocks):
    """The static_asserts of 09_tensorcore/gemm.cu, at the shipped PAD = 8: its ring of 3 stages."""
    return rules_ring(bm, bn, bk, wm, wn, 3, min_blocks)


def rules_10(bm, bn, bk, wm, wn, stages, min_blocks):
    """The static_asserts of 10_double_buffer/gemm.cu, at the shipped PAD = 8: a ring of STAGES >= 2
    stages, and a thread's chunks whole rows apart (the whole-slice copy path steps a pointer)."""
    threads = threads_tc(bm, bn, bk, wm, wn)
    return (stages >= 2 and rules_ring(bm, bn, bk, wm, wn, stages, min_blocks)
            and threads % (bk // 8) == 0 and threads % (bn // 8) == 0)


def rules_ring(bm, bn, bk, wm, wn, stages, min_blocks):
    """What 09 and 10 share: warp tiles of whole mma tiles, 16-byte copies divided evenly among the
    threads, odd 16-byte units per padded row, whole pairs of k16 steps per slice, staged rows of C
    8 or 24 banks apart, and the ring or the staged epilogue (half a warp's columns in FP32, rows
    padded by 8 floats), whichever is larger, within 227 KB."""
    if bm % wm or bn % wn:
        return False
    threads = threads_tc(bm, bn, bk, wm, wn)
    return (wm % 16 == 0 and wn % 16 == 0 and bk % 32 == 0
            and bk % 8 == 0 and bn % 8 == 0
            and (bm * bk // 8) % threads == 0 and (bk * bn // 8) % threads == 0
            and (bk + 8) * 2 % 16 == 0 and (bn + 8) * 2 % 16 == 0
            and (bk + 8) * 2 // 16 % 2 == 1 and (bn + 8) * 2 // 16 % 2 == 1
            and threads <= 1024
            and min_blocks >= 1 and threads * min_blocks <= 2048
            and (wn // 2 + 8) % 32 in (8, 24)
            and max(stages * stage_bytes_tc(bm, bn, bk), epi_bytes_tc(bm, bn, wm, wn)) <= 227 * 1024)


def epi_bytes_tc(bm, bn, wm, wn):
    """The staged epilogue of 09/10: per warp tile, half its columns in FP32, rows padded by 8 floats."""
    return (bm // wm) * (bn // wn) * wm * (wn // 2 + 8) * 4


def stage_bytes_tc(bm, bn, bk):
    """One shared-memory stage of 09/10: an A tile and a B tile of 2-byte elements, rows padded by 8."""
    return (bm * (bk + 8) + bk * (bn + 8)) * 2


def limits_tc(bm, bn, bk, wm, wn, *rest):
    """The search's own limits: 128 or 256 threads, at most 128 accumulators per thread (more spills);
    two blocks per SM only for 256 threads with at most 64 accumulators (the 128 registers that
    leaves), since 128 threads get two blocks per SM anyway."""
    threads, accumulators, min_blocks = threads_tc(bm, bn, bk, wm, wn), wm * wn // 32, rest[-1]
    return (threads in (128, 256) and accumulators <= 128
            and (min_blocks == 1 or (min_blocks == 2 and threads == 256 and accumulators <= 64)))


def threads_tc(bm, bn, bk, wm, wn, *stages):
    return (bm // wm) * (bn // wn) * 32


def search_space(params, values, rules, limits, threads, default, default_name):
    return dict(params=params, values=values, rules=rules, limits=limits, threads=threads, default=default,
                default_name=default_name, legal=lambda *c: rules(*c) and limits(*c))


# Per tuned step (by its number): the parameters, the values searched, the legality rules
# (the step's static_asserts) and the search's limits, the thread count, and the
# configuration the ranking compares the winner with.
SPACES = {
    "07": search_space(["BM", "BN", "BK", "TM", "TN"],
                      [[64, 128, 256], [64, 128, 256], [8, 16, 32], [4, 8, 16], [4, 8, 16]],
                      rules_07, limits_07, threads_07, (128, 128, 8, 8, 8), "step 06's sizes"),
    # TN = 4: with TN = 8 the lanes of a row read float4s 32 bytes apart from Bs, two lanes per bank group.
    "08": search_space(["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN"],
                      [[64, 128, 256], [64, 128, 256], [16, 32], [32, 64, 128], [32, 64, 128], [1, 2, 4], [4, 8], [4]],
                      rules_08, limits_08, threads_08, (128, 128, 16, 64, 32, 2, 4, 4), "tuned/default.flags"),
    "09": search_space(["BM", "BN", "BK", "WM", "WN", "MIN_BLOCKS"],
                      [[64, 128, 256], [64, 128, 256], [32, 64], [32, 64, 128], [32, 64, 128], [1, 2]],
                      rules_09, limits_tc, threads_tc, (128, 256, 32, 64, 64, 1), "tuned/default.flags"),
    "10": search_space(["BM", "BN", "BK", "WM", "WN", "STAGES", "MIN_BLOCKS"],
                      [[128, 256], [128, 256], [32, 64], [32, 64, 128], [32, 64, 128], [2, 3, 4], [1, 2]],
                      rules_10, limits_tc, threads_tc, (128, 128, 32, 64, 64, 3, 1), "tuned/default.flags"),
}


def name(space, c):
    return "_".join(f"{p.lower()}{v}" for p, v in zip(space["params"], c))


def flags(space, c):
    return " ".join(f"-D{p}={v}" for p, v in zip(space["params"], c))


def build(step, space, c):
    out = os.path.join(ROOT, "build", "autotune", step, name(space, c))
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "gemm")
    cmd = ([os.environ.get("NVCC", "nvcc")] + os.environ.get("NVCCFLAGS", "-O3 -std=c++17 -Icommon").split()
           + flags(space, c).split() + [f"-arch={os.environ.get('ARCH', 'sm_90')}", f'-DSTEP_NAME="{step}"', "-Xptxas", "-v",
                                 os.path.join(step, "gemm.cu")]
           + os.environ.get("COMMON_OBJS", "").split() + ["-o", exe] + os.environ.get("LDLIBS", "-lcublas -lgomp").split())
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    spill_bytes = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr)]
    stack_bytes = [int(x) for x in re.findall(r"(\d+) bytes stack frame", p.stderr)]  # make test rejects these too
    return c, exe if p.returncode == 0 else None, p.stderr, bool(spill_bytes) and not any(spill_bytes + stack_bytes)


def gflops(exe, sizes):
    """GFLOPS at each square size, timed in one process (median of 10 runs each)."""
    shapes = ",".join(f"{s}x{s}x{s}" for s in sizes)
    p = subprocess.run([exe, "--shapes", shapes, "--no-check", "--csv", "--reps", "10", "--warmup", "1"],
                       capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return [float(r["gflops"]) for r in rows] if p.returncode == 0 and len(rows) == len(sizes) else [0.0] * len(sizes)


def main():
    ap = argparse.ArgumentParser(description="search a tuned step's tile sizes")
    ap.add_argument("step")
    ap.add_argument("--sizes", nargs="+", type=int, default=[4096, 2048])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--limit", type=int, default=0, help="try only the first N legal configurations")
    ap.add_argument("--dry-run", action="store_true", help="list the legal configurations and stop")
    args = ap.parse_args()
    step = args.step.rstrip("/")
    key = os.path.basename(step)[:2]
    if key not in SPACES:
        print(f"autotune: no search space for step {step} (tuned steps: {', '.join(sorted(SPACES))})", file=sys.stderr)
        return 2
    space = SPACES[key]
    gpu = os.environ.get("GPU_KEY", "default")

    candidates = list(itertools.product(*space["values"]))
    configs = [c for c in candidates if space["legal"](*c)]
    print(f"autotune {step} for {gpu}: {len(candidates)} configurations, {len(configs)} legal", flush=True)
    if args.limit:
        configs = configs[:args.limit]
    if args.dry_run:
        for c in configs:
            print("  " + flags(space, c))
        return 0

    t0 = time.time()
    built = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, (c, exe, err, no_spill) in enumerate(pool.map(lambda c: build(step, space, c), configs), 1):
            status = "ok" if exe and no_spill else ("spills or stack frame" if exe else "build failed")
            print(f"[build {i}/{len(configs)} {time.time() - t0:5.0f}s] {name(space, c)}: {status}", flush=True)
            if exe and no_spill:
                built.append((c, exe))

    results = []
    for i, (c, exe) in enumerate(built, 1):
        for dtype in stepinfo.step_dtypes(ROOT, step):  # tensor-core steps: fp16 and bf16 (timed in fp16)
            p = subprocess.run([exe, "--shapes", CHECK_SHAPES, "--reps", "0", "--alpha", "-1.5", "--beta", "0.5",
                                "--dtype", dtype], capture_output=True, text=True)
            if p.returncode != 0:
                break
        if p.returncode != 0:
            print(f"[time {i}/{len(built)}] {name(space, c)}: FAILS verification: "
                  + " | ".join(p.stderr.strip().splitlines()[:2]), flush=True)
            continue
        g = gflops(exe, args.sizes)
        results.append((c, g))
        print(f"[time {i}/{len(built)} {time.time() - t0:5.0f}s] {name(space, c)}: "
              + ", ".join(f"{s}^3 {x:.0f} GFLOPS" for s, x in zip(args.sizes, g)), flush=True)
    if not results:
        print("autotune: no configuration passed", file=sys.stderr)
        return 1

    results.sort(key=lambda r: -r[1][0])
    default = next((r for r in results if r[0] == space["default"]), None)
    print("\n rank " + " ".join(f"{p:>6}" for p in space["params"]) + " threads  "
          + "  ".join(f"{s}^3 GFLOPS" for s in args.sizes))
    for rank, (c, g) in enumerate(results[:15], 1):
        print(f"{rank:>5} " + " ".join(f"{v:>6}" for v in c) + f" {space['threads'](*c):>7}  "
              + "  ".join(f"{x:12.0f}" for x in g))
    best = results[0]
    gain = (f", {100 * (best[1][0] / default[1][0] - 1):+.1f}% over the default ({space['default_name']})"
            if default else "")
    print(f"\nwinner: {flags(space, best[0])}: {best[1][0]:.0f} GFLOPS at {args.sizes[0]}^3{gain}")

    tuned = os.path.join(ROOT, step, "tuned")
    os.makedirs(tuned, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(tuned, f"{gpu}.flags"), "w") as f:
        f.write(f"# scripts/autotune.py on {gpu} ({os.environ.get('ARCH', 'sm_90')}), {date}: {len(configs)} legal configurations, {len(results)} passed; "
                f"winner {best[1][0]:.0f} GFLOPS at {args.sizes[0]}^3{gain}.\n{flags(space, best[0])}\n")
    with open(os.path.join(tuned, f"{gpu}.ranking.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([p.lower() for p in space["params"]] + ["threads"] + [f"gflops_{s}" for s in args.sizes])
        for c, g in results:
            w.writerow(list(c) + [space["threads"](*c)] + [f"{x:.0f}" for x in g])
    print(f"wrote {os.path.relpath(tuned, ROOT)}/{gpu}.flags and {gpu}.ranking.csv ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
