#!/usr/bin/env python3
"""make bench: every built step beside cuBLAS, a table, and results/<gpu>.csv.

    python3 scripts/bench.py [--steps 05,06 | --fastest] [--run bench|sweep|shapes]
                             [--no-check | --check-up-to N] [--shape-set | --batch] [SIZE ...]

SIZE is a square size (default 4096) or MxNxK. Each step is run as its own
process with --cublas --csv, so cuBLAS is timed in the same process on the
same inputs. The results file keeps one row per (run, step, dtype, m, n, k),
a dispatch row per commit too: a new measurement replaces the old row.
`run` names what produced it: make bench, make sweep (GFLOPS against size)
or make shapes (the shape-sensitivity table); the README tables and plots
select by it.
"""
import argparse
import csv
import datetime
import glob
import io
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps as stepinfo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.environ.get("GEMM_TEST_B_OFFSET", "0") not in ("", "0"):
    sys.exit("bench.py: GEMM_TEST_B_OFFSET is make test's hook (B stored off alignment); unset it to measure")
FIELDS = ["run", "step", "dtype", "m", "n", "k", "path", "kernel", "ms", "gflops", "cublas_gflops", "ratio", "check", "ref_s",
          "gpu", "driver", "cuda", "commit", "date", "config"]


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


def environment():
    name, _, driver = sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]).partition("\n")[0].partition(", ")
    cuda = re.search(r"release (\S+),", sh([os.environ.get("NVCC", "nvcc"), "--version"]))
    # GEMM_COMMIT names the commit where the tree was copied without its .git.
    commit = os.environ.get("GEMM_COMMIT") or sh(["git", "rev-parse", "--short=12", "HEAD"]) or "unknown"
    if not os.environ.get("GEMM_COMMIT") and sh(["git", "status", "--porcelain", "--untracked-files=no"]):
        commit += "-dirty"
    return {"gpu": name or "unknown GPU", "driver": driver or "unknown", "cuda": cuda.group(1) if cuda else "unknown",
            "commit": commit, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}


def results_path(gpu):
    return os.path.join(ROOT, "results", re.sub(r"[^A-Za-z0-9]+", "_", gpu).strip("_") + ".csv")


def key(row):
    """A row's identity: a new measurement with the same key replaces it. A dispatch row also keeps
    its commit: a step's rows of the run beside the step before and of the run beside the step after
    are two measurements, each read beside its partner from the same commit."""
    return ((row["run"], row["step"], row["dtype"], int(row["m"]), int(row["n"]), int(row["k"]))
            + ((row["commit"],) if row["run"] == "dispatch" else ()))


def load(path):
    """The results file as {key: row}; rows written before the run column existed came from make bench."""
    return {key(r): r for r in stepinfo.read_results(path)} if os.path.exists(path) else {}


def save(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for k in sorted(rows):
            w.writerow({f: rows[k].get(f, "") for f in FIELDS})


def parse_size(s):
    parts = s.lower().split("x")
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"bad size '{s}': N or MxNxK")
    return tuple(int(p) for p in parts)


def fastest(steps, rows, library=""):
    """The fastest FP32 step and the fastest tensor-core step before the library step at 4096^3 in
    make bench's rows (the last of a kind where none is recorded: the curriculum gets faster), and
    the library step (default the last), which chooses its kernel by shape (13): the shapes it was
    built for."""
    lib = library or steps[-1]
    picked = []
    for tensor in (False, True):
        kind = [s for s in steps if (stepinfo.step_dtypes(ROOT, s) != ["fp32"]) == tensor and s < lib]
        if not kind:
            continue
        speed = {s: max([float(r["gflops"]) for r in rows.values() if r["run"] == "bench" and r["step"] == s
                         and stepinfo.at_main_shape(r)] or [0.0]) for s in kind}
        picked.append(max(kind, key=lambda s: (speed[s], s)))
    return list(dict.fromkeys(picked + [lib]))


def result_row(r, env, run):
    """A results-file row from one line of a step's --csv output."""
    row = {f: r.get(f, "") for f in FIELDS}
    row.update(env, run=run)
    return row


def linear_flags(args, dtype):
    """--linear E: the linear layer x W^T (layout NT), C in the inputs' type, epilogue E; the rows
    are recorded as run 'linear:E' ('linear-unfused:E' with --unfused, whose cuBLASLt baseline
    applies the activation in a kernel of its own)."""
    if not args.linear:
        return []
    return ["--layout", "NT", "--out", dtype, "--epilogue", args.linear] + (["--unfused"] if args.unfused else [])


def run_name(args):
    if args.linear:
        return f"linear{'-unfused' if args.unfused else ''}:{args.linear}"
    return f"path:{args.path}" if args.path else args.run


def run_batches(args, steps, env, rows, path):
    """The shape set (or, with --batch, the sizes given), BATCH shapes per process (one cuBLAS
    handle, one CUDA context): those small enough for the float64 check (--check-up-to) verified,
    the others timed only. The results file is written after every batch, so that a run stopped
    part way keeps the rows it measured."""
    import shape_set
    if args.batch:
        shapes = args.sizes
    else:
        shapes = (shape_set.generated() if args.shape_set == "all" else []) + shape_set.model()
    checked = lambda s: not args.no_check and s[0] * s[1] * s[2] <= (args.check_up_to or 0) ** 3
    groups = [[s for s in shapes if checked(s)], [s for s in shapes if not checked(s)]]
    status = 0
    for step in steps:
        for dtype in stepinfo.step_dtypes(ROOT, step):
            for group, verify in zip(groups, (True, False)):
                for i in range(0, len(group), BATCH):
                    batch = group[i:i + BATCH]
                    cmd = [os.path.join(ROOT, step, "gemm"), "--shapes", ",".join("x".join(map(str, s)) for s in batch),
                           "--cublas", "--csv", "--dtype", dtype] + ([] if verify else ["--no-check"]) \
                        + linear_flags(args, dtype)
                    p = subprocess.run(cmd, capture_output=True, text=True)
                    got = list(csv.DictReader(io.StringIO(p.stdout)))
                    if p.returncode != 0:
                        print(f"{step:<20} {dtype:<5} batch of {len(batch)} from {batch[0]}: exit {p.returncode} "
                              + " | ".join(p.stderr.strip().splitlines()[:3]), flush=True)
                        status = 1
                    for r in got:
                        row = result_row(r, env, run_name(args))
                        rows[key(row)] = row
                    save(path, rows)
                    print(f"{step:<20} {dtype:<5} {len(got)} of {len(batch)} shapes recorded "
                          f"({'verified' if verify else 'timed only'})", flush=True)
    return status


BATCH = 32


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=parse_size, default=[(4096, 4096, 4096)])
    ap.add_argument("--steps", default="", help="comma-separated step numbers or directory names (default: all built)")
    ap.add_argument("--fastest", action="store_true", help="only the fastest FP32 and tensor-core steps, and the "
                    "library step")
    ap.add_argument("--library", default="", metavar="STEP",
                    help="with --fastest: the library step (default: the last built)")
    ap.add_argument("--run", choices=["bench", "sweep", "shapes", "dispatch"], default="bench",
                    help="what the rows are recorded as ('dispatch': two adjacent steps on the shapes whose "
                    "plan changed, for the later step's table)")
    ap.add_argument("--path", default="", help="force this path of a step that chooses by shape; recorded as run "
                    "'path:NAME'")
    ap.add_argument("--shape-set", nargs="?", const="all", choices=["all", "model"],
                    help="the generated and model shapes of scripts/shape_set.py, many per process "
                    "('model': the model shapes only)")
    ap.add_argument("--batch", action="store_true",
                    help="the sizes given, many per process, as --shape-set runs its shapes")
    ap.add_argument("--linear", choices=["none", "bias", "bias_gelu", "bias_silu"],
                    help="the linear layer x W^T (--layout NT), C in the inputs' type, this epilogue, "
                    "against cuBLASLt; recorded as run 'linear:EPILOGUE'")
    ap.add_argument("--unfused", action="store_true",
                    help="with --linear: cuBLASLt's baseline applies the activation in a kernel of its own")
    ap.add_argument("--no-check", action="store_true", help="skip verification (it costs a CPU reference per run)")
    ap.add_argument("--check-up-to", type=int, default=0, metavar="N",
                    help="verify only shapes with M*N*K <= N^3 (the float64 reference of 8192^3 takes ~40 s)")
    args = ap.parse_args()
    if args.batch and args.shape_set:
        ap.error("--batch runs the sizes given, --shape-set its own shapes: one or the other")

    steps = sorted(os.path.dirname(p)[len(ROOT) + 1:] for p in glob.glob(os.path.join(ROOT, "[0-9][0-9]_*", "gemm")))
    named = lambda s, w: s == w or s.startswith(w.zfill(2) + "_")  # '20' or '20_unaligned'
    wanted = [w for w in args.steps.split(",") if w]
    if wanted:
        steps = [s for s in steps if any(named(s, w) for w in wanted)]
    if not steps:
        print("bench: no built steps (run make first)", file=sys.stderr)
        return 2
    env = environment()
    if env["gpu"] == "unknown GPU":
        print("bench: no GPU found (nvidia-smi lists none); nothing to measure", file=sys.stderr)
        return 1
    path = results_path(env["gpu"])
    rows = load(path)
    if args.fastest:
        library = next((s for s in steps if args.library and named(s, args.library)), "")
        if args.library and not library:
            print(f"bench: --library {args.library}: no such built step", file=sys.stderr)
            return 2
        steps = fastest(steps, rows, library)
        print("fastest steps by the recorded 4096^3 results: " + ", ".join(steps), flush=True)
    print(f"{env['gpu']}, driver {env['driver']}, CUDA {env['cuda']}, commit {env['commit']}, {env['date']}", flush=True)
    print(f"{'step':<20} {'dtype':<5} {'M x N x K':<16} {'GFLOPS':>10} {'cuBLAS':>10} {'% cuBLAS':>9} {'vs prev':>8}  path: configuration",
          flush=True)
    if args.shape_set or args.batch:
        status = run_batches(args, steps, env, rows, path)  # saved after each batch
        print(f"recorded in {os.path.relpath(path, ROOT)}")
        return status
    status = 0
    for m, n, k in args.sizes:
        prev = {}
        for step in steps:
            for dtype in stepinfo.step_dtypes(ROOT, step):
                cmd = [os.path.join(ROOT, step, "gemm"), str(m), str(n), str(k), "--cublas", "--csv", "--dtype", dtype]
                cmd += linear_flags(args, dtype)
                if args.path:
                    cmd += ["--path", args.path]
                if args.no_check or (args.check_up_to and m * n * k > args.check_up_to ** 3):
                    cmd.append("--no-check")
                p = subprocess.run(cmd, capture_output=True, text=True)
                got = list(csv.DictReader(io.StringIO(p.stdout)))
                if p.returncode == stepinfo.EXIT_NEEDS_ARCH:  # a Hopper step on another GPU: it says so, nothing to record
                    print(f"{step:<20} {dtype:<5} {m}x{n}x{k}: skipped: " + p.stderr.strip(), flush=True)
                    continue
                if p.returncode != 0 or not got:
                    print(f"{step:<20} {dtype:<5} {m}x{n}x{k}: FAILED (exit {p.returncode}) "
                          + " | ".join(p.stderr.strip().splitlines()[:3]), flush=True)
                    status = 1
                    continue
                r = got[0]
                row = result_row(r, env, run_name(args))
                rows[key(row)] = row
                g = float(r["gflops"])
                speedup = f"{g / prev[dtype]:7.2f}x" if dtype in prev and prev[dtype] > 0 else f"{'':>8}"
                prev[dtype] = g
                print(f"{step:<20} {dtype:<5} {f'{m}x{n}x{k}':<16} {g:10.1f} {float(r['cublas_gflops']):10.1f} "
                      f"{100 * float(r['ratio']):8.1f}% {speedup}  {r['path']}: {r.get('config', '')}"
                      + ("" if r["check"] in ("pass", "off") else f"  check {r['check']}"), flush=True)
        save(path, rows)
    print(f"recorded in {os.path.relpath(path, ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
