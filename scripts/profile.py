#!/usr/bin/env python3
"""make profile N=k [SHAPE=4096] [DTYPE=fp16] [GEMM_PATH=gemv_m]: Nsight Compute on one step.

    python3 scripts/profile.py NN_step [--shape 4096 | MxNxK] [--dtype fp32] [--path NAME]

Profiles the step's first launch of its main kernel (gemm_kernel; for the steps that choose by
shape also a GEMV, small-K or fallback kernel, whichever the shape or --path takes) with the
full set of sections and the GPU's own clocks (--clock-control none: the numbers match make
bench), saves the report as build/profile/<step>_<shape>.ncu-rep for the
ncu GUI, and prints the counters the articles read:
SM and DRAM throughput, achieved occupancy, registers per thread,
shared-memory bank conflicts (loads and stores) and the top 3 warp stall
reasons (cycles a warp spends stalled per issued instruction).
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import parse_size  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (label, candidate metric names: the first the report has is used)
COUNTERS = [
    ("SM throughput (% of peak)", ["sm__throughput.avg.pct_of_peak_sustained_elapsed"]),
    ("DRAM throughput (% of peak)", ["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                                     "dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
    ("achieved occupancy (% of max warps)", ["sm__warps_active.avg.pct_of_peak_sustained_active"]),
    ("theoretical occupancy (%)", ["sm__maximum_warps_per_active_cycle_pct"]),
    ("registers per thread", ["launch__registers_per_thread"]),
    ("shared-memory bank conflicts, loads", ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]),
    ("shared-memory bank conflicts, stores", ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]),
    ("duration (us)", ["gpu__time_duration.sum"]),
]
EXTRA = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description="Nsight Compute on one step")
    ap.add_argument("step")
    ap.add_argument("--shape", default="4096", type=parse_size, help="N or MxNxK (default 4096)")
    ap.add_argument("--dtype", default="", help="fp32, fp16 or bf16 (default: the step's first)")
    ap.add_argument("--path", default="", help="a path of a step that chooses by shape (14 on), as --path")
    args = ap.parse_args()
    step = args.step.rstrip("/")
    exe = os.path.join(ROOT, step, "gemm")
    if not os.path.exists(exe):
        print(f"profile: {step}/gemm is not built (make step N=...)", file=sys.stderr)
        return 2
    ncu = shutil.which("ncu")
    if not ncu:
        print("profile: ncu (Nsight Compute) is not on PATH: it comes with the CUDA toolkit (Debian/Ubuntu "
              "package nsight-compute, or the whole cuda-toolkit)", file=sys.stderr)
        return 2
    dims = [str(d) for d in args.shape]
    out = os.path.join(ROOT, "build", "profile", f"{os.path.basename(step)}_{'x'.join(dims)}"
                       + (f"_{args.dtype}" if args.dtype else ""))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run = ([exe, *dims, "--reps", "1", "--warmup", "0", "--no-check"] + (["--dtype", args.dtype] if args.dtype else [])
           + (["--path", args.path] if args.path else []))
    # the step's first main kernel: gemm_kernel, or a GEMV, small-K, mma_small or fallback kernel
    cmd = [ncu, "--clock-control", "none", "-k",
           "regex:gemm_kernel|gemv_|fallback_kernel|small_k_kernel|small_k_walk_kernel|mma_small_kernel",
           "-c", "1", "--set", "full",
           "--metrics", ",".join(EXTRA), "-f", "-o", out] + run
    print("profile: " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(out + ".ncu-rep"):
        print(f"profile: ncu failed (exit {p.returncode}):\n" + (p.stdout + p.stderr)[-2000:], file=sys.stderr)
        return 1
    q = subprocess.run([ncu, "--import", out + ".ncu-rep", "--page", "raw", "--csv"], capture_output=True, text=True)
    table = list(csv.reader(io.StringIO(q.stdout)))
    if q.returncode != 0 or len(table) < 2:
        print("profile: could not read the report back:\n" + (q.stdout + q.stderr)[-2000:], file=sys.stderr)
        return 1
    # A header row, a row of units (when ncu prints them), one row per profiled launch.
    header, values = table[0], table[-1]
    units = table[1] if len(table) >= 3 else [""] * len(header)
    got = dict(zip(header, values))
    unit = dict(zip(header, units))
    kernel = got.get("Kernel Name", "?")
    print(f"\n{step}, {'x'.join(dims)}{' ' + args.dtype if args.dtype else ''}: {kernel}, "
          f"block {got.get('Block Size', '?')}, grid {got.get('Grid Size', '?')}")
    for label, names in COUNTERS:
        name = next((n for n in names if n in got), None)
        value = got.get(name, "n/a") if name else "n/a"
        print(f"  {label:<40} {value:>16} {unit.get(name, '') if name else ''}")
    stalls = sorted(((number(v) or 0.0, STALL.match(h).group(1)) for h, v in got.items() if STALL.match(h)),
                    reverse=True)
    stalls = [s for s in stalls if s[1] not in ("selected",)][:3]  # 'selected' is the issuing itself
    print("  top warp stall reasons (cycles per issued instruction):")
    for v, reason in stalls or [(0.0, "n/a (the report has no stall metrics)")]:
        print(f"    {reason:<38} {v:16.2f}")
    print(f"\nfull report: {os.path.relpath(out, ROOT)}.ncu-rep (ncu-ui, or ncu --import ... --page details)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
