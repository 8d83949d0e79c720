#!/usr/bin/env python3
"""make autotune [N=7]: search a tuned step's tile sizes on this GPU (no N: 07, 08, 09, 10 in turn).

    python3 scripts/autotune.py 07_autotune [--sizes 4096 2048] [--jobs 16] [--limit N] [--dry-run]
    python3 scripts/autotune.py --all
    python3 scripts/autotune.py --pick-flags ARCH GPU_ARCH GPU_KEY    (the Makefile's flags lookup)

1. Asks the GPU for its limits (opt-in shared memory per block, registers and
   threads per SM) before compiling anything; without a GPU it stops there.
2. Enumerates the step's parameter values (SPACES below) and keeps the
   configurations that meet the step's static_asserts (the same rules, checked
   here before compiling; make test compiles every candidate against the
   static_asserts to keep the two in step), the search's own limits, and this
   GPU's limits (fits() below).
3. Builds every configuration that fits in parallel with -D flags into
   build/autotune/<config>/ (the source is never edited).
4. Runs each build on odd shapes with verification (--beta 0.5, and 1x1x1,
   33x7x129, ...); a configuration that fails is reported and dropped.
5. Times the survivors at each size (median of 10 runs; the first size
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps as stepinfo  # noqa: E402

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


def smem_07(bm, bn, bk, tm, tn):
    return bk * (bm + 4 + bn) * 4


def smem_08(bm, bn, bk, *rest):
    return 2 * bk * (bm + 4 + bn) * 4


def smem_09(bm, bn, bk, wm, wn, min_blocks):
    return max(3 * stage_bytes_tc(bm, bn, bk), epi_bytes_tc(bm, bn, wm, wn))


def smem_10(bm, bn, bk, wm, wn, stages, min_blocks):
    return max(stages * stage_bytes_tc(bm, bn, bk), epi_bytes_tc(bm, bn, wm, wn))


def search_space(params, values, rules, limits, threads, smem, default, default_name):
    """min_blocks: the blocks per SM that __launch_bounds__ asks for (MIN_BLOCKS, else 1)."""
    min_blocks = (lambda *c: c[params.index("MIN_BLOCKS")]) if "MIN_BLOCKS" in params else (lambda *c: 1)
    return dict(params=params, values=values, rules=rules, limits=limits, threads=threads, smem=smem,
                min_blocks=min_blocks, default=default, default_name=default_name)


# What a GPU allows a block; from the GPU itself (gpu_limits) or from an architecture's
# row of steps.ARCH_LIMITS (arch_limits).
def limits_of_arch(arch, min_cc=0):
    smem, threads_per_sm = stepinfo.arch_limits(arch, min_cc)
    return dict(name=arch, smem=smem, threads_per_sm=threads_per_sm, threads_per_block=1024,
                regs_per_sm=65536)


def gpu_limits():
    """This GPU's limits, asked through the CUDA runtime; (None, why) without a GPU."""
    import ctypes
    lib = None
    for name in [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so"),
                 "libcudart.so", "libcudart.so.13", "libcudart.so.12"]:
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        return None, "the CUDA runtime (libcudart.so) was not found: install the CUDA toolkit"
    count = ctypes.c_int(0)
    err = lib.cudaGetDeviceCount(ctypes.byref(count))
    if err != 0 or count.value == 0:
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        why = {35: "the NVIDIA driver is missing or older than this CUDA runtime", 100: "no CUDA device"}.get(
            err, lib.cudaGetErrorString(err).decode() if err else "no CUDA device")
        return None, f"no GPU to time on: {why}"

    def attr(code):
        v = ctypes.c_int(0)
        lib.cudaDeviceGetAttribute(ctypes.byref(v), code, 0)
        return v.value
    # cudaDevAttr*: MaxSharedMemoryPerBlockOptin 97, MaxThreadsPerMultiProcessor 39,
    # MaxThreadsPerBlock 1, MaxRegistersPerMultiprocessor 82, ComputeCapabilityMajor/Minor 75/76,
    # MultiProcessorCount 16
    cc = attr(75) * 10 + attr(76)
    arch = f"sm_{cc}" + ("a" if cc == 90 else "")  # as the Makefile builds for this GPU
    return dict(name=arch, arch=arch, smem=attr(97), threads_per_sm=attr(39),
                threads_per_block=attr(1), regs_per_sm=attr(82), sms=attr(16)), ""


def accumulators(space, c):
    """FP32 results a thread holds: TM x TN (07), a warp tile's share (WM x WN / 32) otherwise."""
    p = space["params"]
    return c[p.index("TM")] * c[p.index("TN")] if "WM" not in p else c[p.index("WM")] * c[p.index("WN")] // 32


def fits(space, c, lim):
    """Why configuration c does not fit a GPU with limits lim ([] when it fits): its shared memory,
    its threads and blocks per SM, and the registers per thread __launch_bounds__ leaves it."""
    threads, blocks, smem = space["threads"](*c), space["min_blocks"](*c), space["smem"](*c)
    why = []
    if smem > lim["smem"]:
        why.append(f"{smem / 1024:.1f} KB of shared memory per block, {lim['smem'] // 1024} KB allowed")
    if threads > lim["threads_per_block"] or threads * blocks > lim["threads_per_sm"]:
        why.append(f"{blocks} x {threads} threads per SM, {lim['threads_per_sm']} allowed")
    if blocks > 1 and blocks * (smem + 1024) > lim["smem"] + 1024:  # 1 KB per block is reserved
        why.append(f"{blocks} blocks of {smem / 1024:.1f} KB of shared memory per SM")
    budget = min(255, lim["regs_per_sm"] // (threads * blocks))
    acc = accumulators(space, c)
    if acc + 64 > budget:
        why.append(f"{acc} accumulators per thread and 64 registers for the rest, "
                   f"{budget} registers per thread at {blocks} x {threads} threads per SM")
    return why


# Per tuned step (by its number): the parameters, the values searched, the legality rules
# (the step's static_asserts) and the search's limits, the thread count, and the
# configuration the ranking compares the winner with.
SPACES = {
    "07": search_space(["BM", "BN", "BK", "TM", "TN"],
                      [[64, 128, 256], [64, 128, 256], [8, 16, 32], [4, 8, 16], [4, 8, 16]],
                      rules_07, limits_07, threads_07, smem_07, (128, 128, 8, 8, 8), "step 06's sizes"),
    # TN = 4: with TN = 8 the lanes of a row read float4s 32 bytes apart from Bs, two lanes per bank group.
    "08": search_space(["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN"],
                      [[64, 128, 256], [64, 128, 256], [16, 32], [32, 64, 128], [32, 64, 128], [1, 2, 4], [4, 8], [4]],
                      rules_08, limits_08, threads_08, smem_08, (128, 128, 16, 64, 32, 2, 4, 4), "tuned/default.flags"),
    "09": search_space(["BM", "BN", "BK", "WM", "WN", "MIN_BLOCKS"],
                      [[64, 128, 256], [64, 128, 256], [32, 64], [32, 64, 128], [32, 64, 128], [1, 2]],
                      rules_09, limits_tc, threads_tc, smem_09, (128, 256, 32, 64, 64, 1), "tuned/default.flags"),
    "10": search_space(["BM", "BN", "BK", "WM", "WN", "STAGES", "MIN_BLOCKS"],
                      [[128, 256], [128, 256], [32, 64], [32, 64, 128], [32, 64, 128], [2, 3, 4], [1, 2]],
                      rules_10, limits_tc, threads_tc, smem_10, (128, 128, 32, 64, 64, 3, 1), "tuned/default.flags"),
}


def name(space, c):
    return "_".join(f"{p.lower()}{v}" for p, v in zip(space["params"], c))


def flags(space, c):
    return " ".join(f"-D{p}={v}" for p, v in zip(space["params"], c))


def build(step, space, c, arch):
    out = os.path.join(ROOT, "build", "autotune", step, name(space, c))
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "gemm")
    cmd = ([os.environ.get("NVCC", "nvcc")] + os.environ.get("NVCCFLAGS", "-O3 -std=c++17 -Icommon").split()
           + flags(space, c).split() + [f"-arch={arch}", f'-DSTEP_NAME="{step}"', "-Xptxas", "-v",
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


def flags_file_values(path):
    """The -D values of a flags file, in the order of its step's parameters."""
    text = " ".join(line for line in open(path).read().splitlines() if not line.startswith("#"))
    return dict(re.findall(r"-D(\w+)=(\d+)", text))


def code_defaults(step):
    """A tuned step's in-code defaults: '#ifndef BM' then '#define BM 128' in its gemm.cu."""
    src = open(os.path.join(ROOT, step, "gemm.cu")).read()
    return dict(re.findall(r"#ifndef (\w+)[^\n]*\n#define \1 (\d+)", src))


def pick_flags(arch, gpu_arch, gpu_key):
    """The Makefile's lookup, for every tuned step: the first of tuned/<GPU>.flags (only when ARCH is
    the GPU's architecture), tuned/<arch>.flags and tuned/default.flags that fits ARCH's limits
    (none to fit where the step's instructions are missing: it refuses to run there). Prints
    step:file pairs on one line; a file passed over is named on stderr with the reason."""
    picked = []
    if arch != "portable":
        try:
            row, stand_in = stepinfo.arch_row(arch)
        except ValueError as e:
            print(f"make: {e}", file=sys.stderr)
            return 2
        if stand_in:
            print(f"{arch} is not in scripts/steps.py's table: the steps are checked against {row}'s "
                  "limits (shared memory, threads)", file=sys.stderr)
    for key, space in sorted(SPACES.items()):
        step = next((d for d in sorted(os.listdir(ROOT)) if d.startswith(key + "_")), None)
        if step is None:
            continue
        need = stepinfo.min_cc(ROOT, step)
        runs = arch == "portable" or int(stepinfo.arch_row(arch)[0][3:]) * 10 >= need
        lim = limits_of_arch(arch, need)
        names = ([gpu_key] if arch == gpu_arch else []) + [arch.rstrip("a"), "default"]  # sm_90a: sm_90
        for n in names:
            path = os.path.join(step, "tuned", n + ".flags")
            if not os.path.isfile(os.path.join(ROOT, path)):
                continue
            values = dict(code_defaults(step), **flags_file_values(os.path.join(ROOT, path)))
            c = tuple(int(values[p]) for p in space["params"])
            why = fits(space, c, lim) if runs else []
            if why:
                print(f"{path} does not fit {arch} ({'; '.join(why)}): not used", file=sys.stderr)
                continue
            picked.append(f"{step}:{path}")
            break
    print(" ".join(picked))
    return 0


def tune(step, args, lim):
    key = os.path.basename(step)[:2]
    space = SPACES[key]
    gpu = os.environ.get("GPU_KEY", "default")
    candidates = list(itertools.product(*space["values"]))
    legal = [c for c in candidates if space["rules"](*c) and space["limits"](*c)]
    configs = [c for c in legal if not fits(space, c, lim)]
    print(f"autotune {step} for {gpu} ({lim['arch']}: {lim['smem'] // 1024} KB of shared memory per block, "
          f"{lim['threads_per_sm']} threads and {lim['regs_per_sm']} registers per SM): {len(candidates)} "
          f"configurations, {len(legal)} legal, {len(configs)} fit this GPU", flush=True)
    if args.limit:
        configs = configs[:args.limit]
    if args.dry_run:
        for c in configs:
            print("  " + flags(space, c))
        return 0

    t0 = time.time()
    built = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, (c, exe, err, no_spill) in enumerate(pool.map(lambda c: build(step, space, c, lim["arch"]), configs), 1):
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
        f.write(f"# scripts/autotune.py on {gpu} ({lim['arch']}), {date}: {len(configs)} configurations fit, {len(results)} passed; "
                f"winner {best[1][0]:.0f} GFLOPS at {args.sizes[0]}^3{gain}.\n{flags(space, best[0])}\n")
    with open(os.path.join(tuned, f"{gpu}.ranking.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([p.lower() for p in space["params"]] + ["threads"] + [f"gflops_{s}" for s in args.sizes])
        for c, g in results:
            w.writerow(list(c) + [space["threads"](*c)] + [f"{x:.0f}" for x in g])
    print(f"wrote {os.path.relpath(tuned, ROOT)}/{gpu}.flags and {gpu}.ranking.csv ({time.time() - t0:.0f} s)")
    return 0


def main():
    ap = argparse.ArgumentParser(description="search a tuned step's tile sizes on this GPU")
    ap.add_argument("step", nargs="?", help="a tuned step's directory (07_autotune ... 10_double_buffer)")
    ap.add_argument("--all", action="store_true", help="every tuned step in turn")
    ap.add_argument("--sizes", nargs="+", type=int, default=[4096, 2048])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--limit", type=int, default=0, help="try only the first N legal configurations")
    ap.add_argument("--dry-run", action="store_true", help="list the configurations that fit and stop")
    ap.add_argument("--arch", help="with --dry-run: an architecture's limits instead of this GPU's")
    ap.add_argument("--pick-flags", nargs=3, metavar=("ARCH", "GPU_ARCH", "GPU_KEY"),
                    help="print the flags file each tuned step builds with (the Makefile's lookup)")
    args = ap.parse_args()
    if args.pick_flags:
        return pick_flags(*args.pick_flags)
    tuned = [d for k in sorted(SPACES) for d in sorted(os.listdir(ROOT)) if d.startswith(k + "_")]
    if args.all == bool(args.step):
        print("autotune: name one tuned step or --all (tuned steps: " + ", ".join(tuned) + ")", file=sys.stderr)
        ap.print_usage(sys.stderr)
        return 2
    steps = tuned if args.all else [args.step.rstrip("/")]
    for step in steps:
        if os.path.basename(step)[:2] not in SPACES or not os.path.isfile(os.path.join(ROOT, step, "gemm.cu")):
            print(f"autotune: no search space for step {step} (tuned steps: {', '.join(tuned)})", file=sys.stderr)
            return 2
    if args.arch and args.dry_run:
        lim = dict(limits_of_arch(args.arch), arch=args.arch)
    else:
        lim, why = gpu_limits()  # before compiling anything: the search needs a GPU to time on
        if lim is None:
            print(f"autotune: {why}", file=sys.stderr)
            return 2
    t0 = time.time()
    for step in steps:
        t = time.time()
        rc = tune(step, args, lim)
        if rc:
            return rc
        if len(steps) > 1:
            print(f"autotune {step}: {time.time() - t:.0f} s\n", flush=True)
    if len(steps) > 1:
        print(f"autotune: {len(steps)} steps ({', '.join(steps)}) in {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
