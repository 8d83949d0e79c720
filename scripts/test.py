#!/usr/bin/env python3
"""make test: harness self-tests, static checks and GPU tests.

Every test prints PASS / FAIL / SKIP with its name; the last line is
'N passed, M failed'. Skipped tests (the GPU part on a machine without a GPU)
never count as passed.

Environment: ARCH, NVCC, NVCCFLAGS come from the Makefile. STEPS="03_smem
06_vectorize" limits the step tests to those directories; GPU_ONLY=1 runs only
the command-line and GPU tests (to test another build, e.g. ARCH=sm_75, on a GPU).

    python3 scripts/test.py           # every test (make test)
    python3 scripts/test.py --help    # this text
"""
import concurrent.futures as cf
import csv
import glob
import io
import itertools
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps as stepinfo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
os.environ.pop("GEMM_TEST_B_OFFSET", None)  # the harness's hook: set only by the tests that name it

results = {"passed": 0, "failed": 0, "skipped": 0}


def record(ok, name, detail=""):
    if ok is None:
        results["skipped"] += 1
        print(f"SKIP {name}: {detail}", flush=True)
    elif ok:
        results["passed"] += 1
        print(f"PASS {name}", flush=True)
    else:
        results["failed"] += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def run(cmd, timeout=600, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "", f"timed out after {timeout} s")


def tail(text, lines=6):
    return " | ".join(text.strip().splitlines()[-lines:])


ALL_STEPS = sorted(d for d in glob.glob("[0-9][0-9]_*") if os.path.isfile(os.path.join(d, "gemm.cu")))
STEPS = os.environ.get("STEPS", "").split() or ALL_STEPS
if set(STEPS) - set(ALL_STEPS):
    print(f"test.py: STEPS names no step with a gemm.cu: {' '.join(sorted(set(STEPS) - set(ALL_STEPS)))} "
          f"(steps: {' '.join(ALL_STEPS)})", file=sys.stderr)
    sys.exit(2)




def uses_shared_memory(step):
    return "__shared__" in open(os.path.join(step, "gemm.cu")).read()


# ---- 1. harness self-tests (CPU) -------------------------------------------
def selftests():
    print("== harness self-tests (CPU)", flush=True)
    if not os.path.exists("build/selftest"):
        record(False, "selftest: build/selftest exists", "not built: run make test (it builds it first)")
        return
    p = run(["./build/selftest"])
    lines = [l for l in p.stdout.splitlines() if l.startswith(("ok - ", "not ok - "))]
    for line in lines:
        ok = line.startswith("ok - ")
        name, _, why = line.split(" - ", 1)[1].partition(": ") if not ok else (line[5:], "", "")
        record(ok, "selftest: " + name, why)
    if p.returncode != 0 and not any(l.startswith("not ok") for l in lines):
        record(False, "selftest exits cleanly", tail(p.stderr or p.stdout))
    if len(lines) < 68:  # a selftest that lost some of its tests from main() tested less
        record(False, "selftest reports its 68 tests", f"{len(lines)} ok / not ok lines")


# ---- 1b. the command line of the real binaries (CPU) ------------------------
BAD_USAGE = [["--bogus"], ["0", "5", "5"], ["-3"], ["12x"], ["1", "2", "3", "4"], ["--reps"],
             ["99999999999"], ["--alpha", "inf"], ["--path", "bogus"], ["--sms", "0"], ["--sms", "64"],
             ["1", "2147483647", "1"], ["2147483647", "1", "1"], ["1", "1073741825", "1"],
             ["1", "1", "1048577"], ["65536", "1", "32768"],
             ["--layout", "XY"], ["--out", "f64"]]
# Refused by a step that does not take the linear layer's options, in one line naming what it takes;
# a step that takes them refuses the combinations that cannot be.
NO_LINEAR_USAGE = [["--layout", "NT"], ["--out", "bf16"], ["--epilogue", "bias_gelu"]]
LINEAR_USAGE = [["--dtype", "bf16", "--out", "fp16"], ["--dtype", "bf16", "--out", "bf16", "--beta", "1"]]


def takes_linear(step):
    """Whether the step's gemm_step lists the linear layer's options (x W^T: GEMM_NT)."""
    return "GEMM_NT" in open(os.path.join(step, "gemm.cu")).read()
# The largest shapes the parser accepts along each dimension (M, N at most 2^30, K at most 2^20; each matrix
# below 2^31 elements): every step must run and verify them (GPU tests).
LIMIT_SHAPES = "1073741824x1x1,1x1073741824x1,1x1x1048576"


def cli_tests(have_gpu):
    print("== command line of every step (CPU)", flush=True)
    library = library_step()
    for step in STEPS:
        exe = os.path.join(step, "gemm")
        for args in BAD_USAGE + (LINEAR_USAGE if takes_linear(step) else NO_LINEAR_USAGE):
            p = run([exe] + args, timeout=60)
            lines = p.stderr.splitlines()
            # exactly one line of message, then the usage text from its first line on
            ok = (p.returncode == 2 and len(lines) >= 2 and lines[0].startswith(exe + ": ") and len(lines[0]) > len(exe) + 4
                  and lines[1].startswith("usage: ") and not p.stdout)
            record(ok, f"{step}: '{' '.join(args)}' exits 2 with a one-line message and the usage",
                   f"rc {p.returncode}, stderr '{tail(p.stderr, 2)}'")
        p = run([exe, "--plan"], timeout=60)
        record(p.returncode == (0 if step_paths(step) else 2)
               and (p.stdout.split()[1:2] and p.stdout.split()[1] in step_paths(step) if step_paths(step)
                    else "one kernel" in p.stderr and not p.stdout)
               and (p.stdout.startswith("4096x4096x4096 ") or not step_paths(step)),
               f"{step}: --plan {'prints its choice' if step_paths(step) else 'is refused: one kernel'}, no GPU",
               f"rc {p.returncode}, '{tail(p.stdout + p.stderr, 2)}'")
        if step == library:
            p = run([exe, "--plan", "--shapes", "8x8x8"], timeout=60,
                    env=dict(os.environ, GEMM_TEST_B_OFFSET="9"))
            record(p.returncode == 2 and not p.stdout and "GEMM_TEST_B_OFFSET=9" in p.stderr
                   and len(p.stderr.strip().splitlines()) == 1,
                   f"{step}: GEMM_TEST_B_OFFSET=9 (the test hook's 0-7 exceeded) stops with one line",
                   f"rc {p.returncode}, '{tail(p.stdout + p.stderr, 2)}'")
            # the library step plans on any SM count the parser takes: a rule that divides by the
            # clusters that fit (step 34: 30 of four on 132 SMs) must not divide by zero on 1-4
            shapes = "256x264x4104,227x3816x13192,4096x4096x4096"
            for sms in ("1", "3", "5"):
                p = run([exe, "--plan", "--sms", sms, "--shapes", shapes], timeout=60)
                got = [l for l in p.stdout.splitlines() if l.strip()]
                record(p.returncode == 0 and len(got) == 3,
                       f"{step}: --plan --sms {sms} plans {shapes}",
                       f"rc {p.returncode}, '{tail(p.stdout + p.stderr, 2)}'")
            # a forced cluster of four where the SMs hold none (3 SMs): refused, exit 2, named
            for path, shape in (("turned_quad", "1000x1000x2048"), ("quad_swap", "79x200x1000")):
                if path in step_paths(step):
                    p = run([exe, "--plan", "--sms", "3", "--path", path, "--shapes", shape], timeout=60)
                    record(p.returncode == 2 and "needs clusters of four SMs" in p.stdout + p.stderr,
                           f"{step}: --plan --sms 3 --path {path} is refused (no cluster of four)",
                           f"rc {p.returncode}, '{tail(p.stdout + p.stderr, 2)}'")
        p = run([exe, "--help"], timeout=60)
        listed = re.search(r"Paths of this step \(--path\): (.*)", p.stdout + p.stderr)
        listed = listed.group(1).split() if listed else []
        if listed or step_paths(step):
            record(listed == step_paths(step),
                   f"{step}: the paths the tests force ({len(step_paths(step))}) are those --help lists",
                   f"tests: {step_paths(step)}, --help: {listed}")
        if not have_gpu:
            p = run([exe, "64"], timeout=60)
            ok = p.returncode == 1 and "CUDA device" in p.stderr and len(p.stderr.strip().splitlines()) == 1
            record(ok, f"{step}: without a GPU, '64' exits 1 naming the missing CUDA device",
                   f"rc {p.returncode}, stderr '{tail(p.stderr, 2)}'")


# ---- 2. static checks (CPU) -------------------------------------------------
def ptx_table():
    """Rows of tests/ptx_checks.txt as (step, regex, what)."""
    rows = []
    for line in open("tests/ptx_checks.txt"):
        line = line.strip()
        if line and not line.startswith("#"):
            step, regex, what = (line.split(None, 2) + [""])[:3]
            rows.append((step, regex, what))
    return rows


# Every architecture CUDA 13 builds from Turing on; a GPU of each runs the steps its
# instructions allow (the others exit 3).
ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]


def step_archs(step):
    """The architectures a step is checked for: every one of ARCHS; a step that names its one
    architecture in its header ("BUILD_ARCH: sm_90a") is checked for that one."""
    src = open(os.path.join(step, "gemm.cu")).read()
    m = re.search(r"BUILD_ARCH:\s*(sm_\w+)", src)
    return [m.group(1)] if m else ARCHS


def step_configs(step):
    """A tuned step is checked in every configuration it ships (tuned/*.flags), for the
    architectures that would build it (the Makefile's lookup): (name, flags, archs). A GPU's
    file names its architecture in its comment, as "(sm_90a)"; an architecture's file
    (sm_90.flags) is its name; default.flags serves every architecture without a file."""
    configs, own = [], set()
    for f in sorted(glob.glob(os.path.join(step, "tuned", "*.flags"))):
        name = os.path.basename(f)[:-6]
        text = open(f).read()
        flags = " ".join(l.strip() for l in text.splitlines() if not l.startswith("#")).split()
        if re.fullmatch(r"sm_\d+a?", name):
            archs = [name]
        else:
            archs = re.findall(r"\((sm_\d+a?)\)", "".join(l for l in text.splitlines(True) if l.startswith("#")))
        if name != "default":
            own.update(a.rstrip("a") for a in archs)
        configs.append((name, flags, archs))
    configs = [(n, fl, [a for a in step_archs(step) if a not in own] if n == "default" else a)
               for n, fl, a in configs]
    return configs or [("", [], [])]


def compile_for(step, arch, config=("", [])):
    out = os.path.join("build", "static", step, arch + (("-" + config[0]) if config[0] else ""))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    nvcc = os.environ.get("NVCC", "nvcc")
    flags = os.environ.get("NVCCFLAGS", "-O3 -std=c++17 -lineinfo -Icommon").split()
    extra = config[1]
    gencode = [f"-gencode=arch=compute_{arch[3:]},code={arch}"]
    cmd = [nvcc] + flags + extra + gencode + [f'-DSTEP_NAME="{step}"', "-Xptxas", "-v", "-cubin",
                                               "-keep", "-keep-dir", out, "-o", os.path.join(out, "gemm.cubin"),
                                               os.path.join(step, "gemm.cu")]
    p = run(cmd)
    ptx = "".join(open(f).read() for f in glob.glob(os.path.join(out, "*.ptx")))
    return p, ptx


def smem_check(step, arch, config, label, ptxas):
    """A step's shared memory per block fits the architecture's limit (steps.ARCH_LIMITS). ptxas
    reports static shared memory only; the dynamic part of a tuned step (08-10) is its formula in
    scripts/autotune.py (whose rules make test checks against the step's static_asserts), with
    the threads and registers per SM that fits() checks too. A step below its __CUDA_ARCH__ guard
    is empty there and refuses to run: nothing to fit."""
    import autotune
    need = stepinfo.min_cc(ROOT, step)
    if int(arch[3:].rstrip("a")) * 10 < need:
        return
    limit, _ = stepinfo.arch_limits(arch)
    static = max([int(x) for x in re.findall(r"(\d+) bytes smem", ptxas)] or [0])
    src = open(os.path.join(step, "gemm.cu")).read()
    space = autotune.SPACES.get(os.path.basename(step)[:2])
    if space and "extern __shared__" in src:
        values = dict(autotune.code_defaults(step), **dict(f[2:].split("=") for f in config[1]))
        c = tuple(int(values[p]) for p in space["params"])
        why = autotune.fits(space, c, autotune.limits_of_arch(arch, need))
        record(not why and static == 0, f"{step}: {label}: {space['smem'](*c) / 1024:.1f} KB of dynamic shared memory, "
               f"threads and registers fit {arch} ({limit // 1024} KB per block)", "; ".join(why) or f"{static} B static")
    elif "extern __shared__" in src:
        # an untuned step with dynamic shared memory (11-13): its build is the check that
        # SMEM_BYTES meets its static_assert; the bound must be within the architecture's limit
        bound = re.search(r"static_assert\(\s*SMEM_BYTES <= (\d+) \* 1024", src)
        record(bool(bound) and int(bound.group(1)) * 1024 <= limit,
               f"{step}: {label}: static_assert(SMEM_BYTES <= {bound.group(1) if bound else '?'} KB) is within "
               f"{arch}'s {limit // 1024} KB per block", "no static_assert(SMEM_BYTES <= N * 1024)" if not bound else "")
    else:  # a step that uses shared memory must have its static size read from ptxas's report
        read = bool(re.search(r"\d+ bytes smem", ptxas)) or not uses_shared_memory(step)
        record(read and static <= min(limit, 48 * 1024), f"{step}: {label}: {static} B of static shared memory "
               f"fit {arch} ({limit // 1024} KB per block, 48 KB static)",
               f"{static} B" if read else "ptxas reported no 'bytes smem'")


def static_checks():
    print("== static checks (CPU): build for each architecture, spills, PTX", flush=True)
    table = ptx_table()
    jobs = [(s, a, c[:2]) for s in STEPS for c in step_configs(s) for a in (c[2] or step_archs(s))]
    with cf.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        built = list(pool.map(lambda j: compile_for(*j), jobs))
    for (step, arch, config), (p, ptx) in zip(jobs, built):
        label = f"{arch} ({config[0]}: {' '.join(config[1])})" if config[0] else arch
        record(p.returncode == 0, f"{step}: builds for {label}", tail(p.stderr))
        if p.returncode != 0:
            continue
        spills = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr)]
        stack = [int(x) for x in re.findall(r"(\d+) bytes stack frame", p.stderr)]
        clean = bool(spills) and not any(spills) and not any(stack)
        record(clean, f"{step}: {label}: ptxas reports zero spill bytes and no stack frame",
               f"spill bytes {spills}, stack {stack}")
        if "wgmma.mma_async" in ptx:  # ptxas's C75xx: it waits for each wgmma before the next
            serialized = re.findall(r"wgmma\.mma_async instructions are serialized (.*?) in the "
                                    r"function '(\S+)'", p.stderr)
            record(not serialized, f"{step}: {label}: ptxas keeps the wgmmas asynchronous "
                   "(no serialization warning)", "; ".join(f"{f}: {why}" for why, f in serialized[:2]))
        smem_check(step, arch, config, label, p.stderr)
        record(".entry" in ptx, f"{step}: {label}: nvcc kept the PTX that the rows below read",
               f"{len(ptx)} characters of PTX")
        if ".entry" not in ptx:
            continue  # a missing PTX would pass every 'lacks' row
        if int(arch[3:].rstrip("a")) * 10 < stepinfo.min_cc(ROOT, step):
            # built for an architecture without the step's instructions: the kernel must be empty
            record(re.search(r"mma\.sync|cp\.async|ldmatrix", ptx) is None,
                   f"{step}: {label}: PTX has no tensor-core or cp.async code (the __CUDA_ARCH__ guard)", "found")
            continue
        for row_step, regex, what in table:
            if row_step != step:
                continue
            negate = regex.startswith("!")
            found = re.search(regex.lstrip("!"), ptx) is not None
            record(found != negate, f"{step}: {label}: PTX {'lacks' if negate else 'has'} {regex.lstrip('!')} ({what})",
                   "found" if negate else "not found")
    for step in STEPS:
        if not any(r[0] == step for r in table):
            record(False, f"{step}: has a row in tests/ptx_checks.txt", "no row")
    unknown = sorted({r[0] for r in table if r[0] not in ALL_STEPS})
    record(not unknown, "tests/ptx_checks.txt names only steps that exist", f"unknown: {unknown}")


# ---- 3. GPU tests -------------------------------------------------------------
# Every shape class the harness promises to handle: 1x1x1, GEMV (M = 1, N = 1), sizes that are no
# multiple of any tile, K below the K-tile, non-square, and aligned shapes that
# take the vector paths with partial tiles.
SHAPES = ("1x1x1,1x1000x129,1000x1x129,1x4096x64,4096x1x64,7x7x7,33x33x33,127x129x255,129x127x1000,"
          "255x1000x33,1000x255x127,128x128x1,129x130x3,64x64x5,31x17x7,17x1000x64,1000x17x64,3x4096x100,"
          "256x257x256,257x256x260,96x100x36,132x68x132,1024x1024x1024,512x768x256,1x3000000x1,3000000x1x1,"
          "136x264x72,8x8x8,2056x2056x136,17000x8x8,16x8456x64,32x8456x64,64x8456x64,20x8460x72,"
          "7x8x4500,5x3x3001,13x1x4096,8x33x293,2113x6x777,2113x3x777,1x2048x4096")
# 136x264x72 and 8x8x8: multiples of 8 (the 16-byte and TMA paths) with partial tiles in M, N and K.
# 2056x2056x136 and 17000x8x8: more output tiles than an H200 has SMs (153 and 133 tiles of 128 x 256),
# so that each block of step 12's persistent grid takes several, and strips of tile rows end early.
# 16x8456x64 ... 20x8460x72: 133 swapped tiles of 64 rows of N, one more than an H200's SMs (step
# 20: tiles of 128 rows, two consumer warpgroups; 64 rows of A under --path swap; B padded).
# 7x8x4500, 5x3x3001 and 13x1x4096: step 20's gemv_n cuts K (18, 12 and 16 ranges); K not a multiple
# of 8 (2-byte loads), then 16-byte loads with two blocks of rows. 8x33x293: gemv_m's 8-row K
# ranges (its forced path; step 20's rules copy B and take the swapped tiles). 2113x6x777 and
# 2113x3x777: gemv_n's blocks of 16 rows (133 on an H200, the last with one).
# 1x2048x4096: M = 1 within one gemv_m block of columns, which step 20 gives the swapped tiles, split.
SANITIZER_SHAPES = ("1x1x1,7x33x5,33x7x129,130x65x17,1x67x9,67x1x9,132x68x12,136x264x72,8x8x8,17000x8x8,72x136x576,"
                    "130x64x17,1x1000x129,16x8456x64,5x3x3001,2113x3x777,700x1500x3,1000x300x5,2000x24x800,"
                    "1100x2100x40,300x1700x23,78x475x89")
# 72x136x576: K of 9 slices of 64, the smallest kind of shape split-K takes. 130x64x17 and 1x1000x129:
# K alone not a multiple of 8 (step 20 copies A, not B). 700x1500x3 and 1000x300x5: step 25's small_k,
# forced, in its 64 x 128 and 64 x 32 tiles on 132 SMs (17000x8x8: 128 x 8; the smaller ones: 32 x 8).
# 2000x24x800: step 25's B copied into rows of 64 (WIDE_B) for the tile kernels.
# 1100x2100x40: step 28's small_k (forced) walks tiles: 306 of 64 x 128, more than the 264 blocks
# 132 SMs hold, so 42 blocks take two, each in three K slices, the next loaded under this one; and
# step 29's mma_small (forced) in its 6-blocks-an-SM instantiation (594 tiles, more than 4 x 132).
# 300x1700x23: step 29's own choice of mma_small (135 tiles, 4 an SM), C stored without TMA.
# 78x475x89: step 30's own choice of mma_small at three slices (16 tiles), the last one partial.


# The linear layer's options (--layout, --out, --epilogue): odd shapes (the CUDA-core kernel), M = 1,
# N = 1, K below a tile, and shapes with rows of 16-byte units and partial tiles that take the tile
# kernels, swapped (M <= 32) or not; 2056x520x64 has more tiles than SMs for steps 14-20's narrow
# tiles.
LINEAR_SHAPES = ("1x1x1,1x64x64,64x1x64,7x40x72,33x7x129,130x64x17,136x264x72,24x200x64,40x136x128,"
                 "257x264x136,1x4096x64,2056x520x64")
LINEAR_SANITIZER_SHAPES = "1x1x1,1x64x64,7x40x72,33x7x129,136x264x72,24x200x64,40x136x128,257x264x136"


# x W^T with fewer tiles than SMs, where a step splits K (step 22: the last block to arrive at a tile
# adds the others' sums and runs the epilogue): M = 1 and 16, partial tiles (100 x 1032, 300 rows),
# K from 512. The first shape comes again last: it runs after the timed launches of the others, so
# an arrival counter that was not put back to zero would leave C unwritten (poisoned). It has M = 16:
# x W^T at M <= 4 takes step 23's GEMV, which does not split. For the sanitizer, 1 x 512 x 1024 is
# a split in step 22 only; 5 x 512 x 1024 goes to the split tiles in 23 and 24 too.
SPLIT_SHAPES = "16x4096x4096,1x4096x4096,100x1032x4096,300x2048x2048,1x512x1024,16x4096x4096"
SPLIT_SANITIZER_SHAPES = "1x512x1024,5x512x1024,130x264x2048,16x1032x1024"


def split_tests(step, exe):
    """A step that splits K (its gemm.cu has choose_splits): the split shapes verify, with the
    kernel's words naming more than one split, for each C type and epilogue kind, NN with beta too;
    compute-sanitizer finds nothing on the split path."""
    if "choose_splits" not in open(os.path.join(step, "gemm.cu")).read():
        return
    shapes = SPLIT_SHAPES.split(",")
    for dtype, layout, out, epilogue, beta in (("bf16", "NT", "bf16", "bias_gelu", "0"),
                                               ("fp16", "NT", "fp16", "bias_silu", "0"),
                                               ("bf16", "NT", "f32", "none", "0"),
                                               ("fp16", "NN", "f32", "bias", "0.5")):
        p = run([exe, "--shapes", SPLIT_SHAPES, "--reps", "2", "--dtype", dtype, "--csv", "--layout", layout,
                 "--out", out, "--epilogue", epilogue, "--beta", beta])
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        # (a step with a GEMV kernel for x W^T at M <= GEMV_MAX_M runs it there: gemv_tests)
        gemv = lambda r: layout == "NT" and int(r["m"]) <= GEMV_MAX_M and "kernel=gemv" in r["kernel"].split()
        wrong = [f"{r['m']}x{r['n']}x{r['k']}: {r['check']} ({r['kernel']})" for r in rows
                 if r["check"] != "pass" or not (re.search(r"\bsplits=([2-9]|1[0-9])\b", r["kernel"]) or gemv(r))]
        record(p.returncode == 0 and len(rows) == len(shapes) and not wrong,
               f"{step}: {dtype} {layout} --out {out} --epilogue {epilogue} --beta {beta}: K split across blocks "
               f"verifies on {SPLIT_SHAPES} (the first shape again after timed launches)",
               tail(p.stderr) + (f" wrong: {wrong[:3]}" if wrong else "") + f" ({len(rows)} rows)")
    for tool in ("memcheck", "racecheck"):
        p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes",
                 SPLIT_SANITIZER_SHAPES, "--reps", "1", "--dtype", "bf16", "--layout", "NT", "--out", "bf16",
                 "--epilogue", "bias_gelu"])
        record(p.returncode == 0, f"{step}: K split across blocks: compute-sanitizer {tool}", tail(p.stdout + p.stderr))

# x W^T at M <= 4 with rows of 16-byte units (K a multiple of 8), where a step has the GEMV kernel
# (step 23): N of 1, 7 and 1000 (warps whose four rows of W pass N), K from 8, past a multiple of
# 256 (a lane's last step) and of 1024 (a loop's); then shapes that must not take it (K not a
# multiple of 8; M = 5 and 8, where the tensor cores win).
GEMV_MAX_M = 4
GEMV_SHAPES = "1x1x8,1x4096x4096,2x7x8,3x1000x136,4x64x64,3x24x4104,4x4100x264,4x1x64"
NOT_GEMV_SHAPES = "2x64x12,5x64x64,8x4100x264"


def x_wt_kernel_tests(step, exe, path, shapes, row_ok, runs, not_shapes, not_what, sanitizer_shapes,
                      sanitizer_what):
    """x W^T on the kernel of one path: every C type and epilogue verifies on `shapes`, each row on
    that path with row_ok(row) true (`runs` says what that means), FP32 C with alpha and beta too;
    `not_shapes` take another path (`not_what`); memcheck and racecheck find nothing."""
    for dtype in stepinfo.step_dtypes(ROOT, step):
        for out, epilogue, beta in [(o, e, "0") for o in ("f32", dtype)
                                    for e in ("none", "bias", "bias_gelu", "bias_silu")] + [("f32", "bias", "0.5")]:
            alpha = "-1.5" if beta != "0" else "1"
            p = run([exe, "--shapes", shapes, "--reps", "0", "--dtype", dtype, "--csv", "--layout", "NT",
                     "--out", out, "--epilogue", epilogue, "--alpha", alpha, "--beta", beta])
            rows = list(csv.DictReader(io.StringIO(p.stdout)))
            wrong = [f"{r['m']}x{r['n']}x{r['k']}: {r['check']} ({r['kernel']})" for r in rows
                     if r["check"] != "pass" or r["path"] != path or not row_ok(r)]
            record(p.returncode == 0 and len(rows) == len(shapes.split(",")) and not wrong,
                   f"{step}: {dtype}: {runs}, --out {out} --epilogue {epilogue} --alpha {alpha} --beta {beta}: "
                   f"verified on {shapes}",
                   tail(p.stderr) + (f" wrong: {wrong[:3]}" if wrong else "") + f" ({len(rows)} rows)")
    p = run([exe, "--shapes", not_shapes, "--reps", "0", "--dtype", "bf16", "--csv", "--layout", "NT"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    record(p.returncode == 0 and len(rows) == len(not_shapes.split(","))
           and all(r["path"] != path and r["check"] == "pass" for r in rows),
           f"{step}: {not_what} ({not_shapes})",
           tail(p.stderr) + " " + "; ".join(f"{r['m']}x{r['n']}x{r['k']}: {r['path']}" for r in rows))
    for tool, out, beta in (("memcheck", "bf16", "0"), ("memcheck", "f32", "0.5"), ("racecheck", "bf16", "0")):
        p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes", sanitizer_shapes,
                 "--reps", "0", "--dtype", "bf16", "--layout", "NT", "--out", out, "--epilogue", "bias_gelu",
                 "--beta", beta])
        record(p.returncode == 0, f"{step}: {sanitizer_what}, --out {out}, beta {beta}: compute-sanitizer {tool}",
               tail(p.stdout + p.stderr))


def gemv_tests(step, exe):
    """A step with the GEMV kernel for x W^T (its gemm.cu includes linear_gemv.cuh): every C type
    and epilogue verifies on the GEMV shapes, each run on that kernel with R rows for its M (1, 2 or
    4), FP32 C with alpha and beta too; shapes it must not take run another kernel; memcheck
    and racecheck find nothing."""
    if '#include "linear_gemv.cuh"' not in open(os.path.join(step, "gemm.cu")).read():
        return
    rows_for = lambda m: 1 if m <= 1 else 2 if m <= 2 else 4
    x_wt_kernel_tests(step, exe, "gemv", GEMV_SHAPES,
                      lambda r: {"kernel=gemv", f"rows={rows_for(int(r['m']))}"} <= set(r["kernel"].split()),
                      f"x W^T at M <= {GEMV_MAX_M} on the GEMV kernel (R rows for M)", NOT_GEMV_SHAPES,
                      f"x W^T with K not a multiple of 8, or M > {GEMV_MAX_M}, takes another kernel",
                      GEMV_SHAPES, "the GEMV kernel")


# x W^T at GEMV_MAX_M < M <= 64 with rows of 16-byte units (K a multiple of 8), where a step swaps
# the operands (step 24: C^T = W x^T, C stored from the registers): M = 5, 32 (the 32-wide tile's
# last row), 33 and 64 (the 64-wide tile's first and last); N of 1, 7 and 4100 (not multiples of 8,
# past a 128-row tile), 130, 16400 and 17000 (129 and 133 tiles: at 133, a block takes a second
# unit on an H200); K from 8, past a BK slice (72, 520); 16 x 4096 x 4096 and 48 x 1032 x 1024 split
# K (few tiles). Then shapes that must not swap: M = 65, K not a multiple of 8.
SWAP_MAX_M = 64
SWAP_SHAPES = ("5x64x64,8x4100x264,16x4096x4096,32x7x8,33x130x72,48x1032x1024,64x1x64,64x16400x520,"
               "8x17000x136")
NOT_SWAP_SHAPES = "65x64x64,8x64x12"


def swap_tests(step, exe):
    """A step that swaps x W^T's operands at small M (its gemm.cu has store_swapped): every C type and
    epilogue verifies on the swap shapes, each run swapped with the tile width for its M (32 up to
    32 tokens, then 64), FP32 C with alpha and beta too; the two shapes that split K say so; shapes
    it must not take run another kernel; memcheck and racecheck find nothing."""
    if "store_swapped" not in open(os.path.join(step, "gemm.cu")).read():
        return
    width = lambda m: 32 if m <= 32 else 64
    row_ok = lambda r: ({f"tile=128x{width(int(r['m']))}", "swap=1"} <= set(r["kernel"].split())
                        and (f"{r['m']}x{r['n']}x{r['k']}" in ("16x4096x4096", "48x1032x1024"))
                        == bool(re.search(r"\bsplits=([2-9]|1[0-9])\b", r["kernel"])))
    x_wt_kernel_tests(step, exe, "swap", SWAP_SHAPES, row_ok,
                      f"x W^T at {GEMV_MAX_M} < M <= {SWAP_MAX_M} swapped (width for M, K split where few)",
                      NOT_SWAP_SHAPES, f"x W^T with M > {SWAP_MAX_M}, or K not a multiple of 8, is not swapped",
                      "5x64x64,32x7x8,33x130x72,48x1032x1024,64x1x64,8x17000x136", "the swapped tiles")


# x W^T above 64 tokens where a step picks the tile's width by its clock model (step 24's
# tile_width: 256, 192 or 128 rows of W), each shape with the width the model gives on a GPU of
# 132 SMs. 65 x 8 (one tile at any width) and 200 x 1000 (2 x 4 tiles 256 wide) are few tiles:
# the narrowest does least work. 65 x 304 x 520 and 128 x 1032 x 1024 split K in 128-wide tiles,
# 65 x 8512 x 1024 in 192-wide ones. 129 x 8456 is 68 tiles 256 wide or 90 tiles 192 wide, one
# wave either way; 513 x 8200 165 or 215, two waves: 192 does a quarter less work per tile.
# 257 x 8456 keeps 256: 102 tiles, where 192 would take 135, a second wave.
WIDTH_SHAPES = {"65x8x8": 128, "200x1000x136": 128, "65x304x520": 128, "128x1032x1024": 128,
                "65x8512x1024": 192, "129x8456x72": 192, "513x8200x72": 192, "257x8456x72": 256}
WIDTH_SPLIT_SHAPES = ("65x304x520", "128x1032x1024", "65x8512x1024")


# Step 36's rule on its own (unforced, so K split where the clusters are few), on 132 SMs:
# 79 x 4328 x 6144 (9 clusters of 128-row tiles, 3 K ranges) and 75 x 3168 x 5864 (13 of 64, 2).
SWAP_CLUSTER_SPLIT_SHAPES = "79x4328x6144,75x3168x5864"


def swap_cluster_tests(step, exe):
    """A step with swapped tiles in clusters along N (its plan.h has swap_clusters): the rule's own plans
    that split K verify in both dtypes, beta 0 with C poisoned and beta != 0, and launch clustered
    swapped tiles with two or more K ranges; memcheck finds nothing."""
    plan = os.path.join(step, "plan.h")
    if not os.path.isfile(plan) or "swap_clusters" not in open(plan).read():
        return
    for dtype in stepinfo.step_dtypes(ROOT, step):
        for label, scal in (("beta = 0, C poisoned with NaN", ["--alpha", "1", "--beta", "0"]),
                            ("alpha = -1.5, beta = 0.75", ["--alpha", "-1.5", "--beta", "0.75"])):
            p = run([exe, "--shapes", SWAP_CLUSTER_SPLIT_SHAPES, "--reps", "0", "--dtype", dtype, "--csv"]
                    + scal)
            rows = list(csv.DictReader(io.StringIO(p.stdout)))
            ok = [r for r in rows if r["path"] == "quad_swap" and "cluster=4n" in r["kernel"].split()
                  and int(dict(x.split("=", 1) for x in r["kernel"].split() if "=" in x)["splits"]) >= 2]
            record(p.returncode == 0 and len(ok) == len(SWAP_CLUSTER_SPLIT_SHAPES.split(",")),
                   f"{step}: {dtype}: swapped clusters that split K ({SWAP_CLUSTER_SPLIT_SHAPES}) verify, {label}",
                   tail(p.stderr) + f" ({[r['kernel'] for r in rows]})")
    p = run(["compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "99", exe, "--shapes",
             SWAP_CLUSTER_SPLIT_SHAPES, "--reps", "0", "--dtype", "bf16", "--beta", "0.5"])
    record(p.returncode == 0, f"{step}: bf16: swapped clusters that split K: compute-sanitizer memcheck",
           tail(p.stdout + p.stderr))


# Step 38: B read by rows where its rows are not 16-byte units and the swapped kernel of one
# consumer warpgroup would copy 2^23 elements or more of it: N 4, 1 and 7 mod 8 and odd; K a
# multiple of 64 and 2048, 4 mod 8 and odd (A copied too), 12048 split in two K ranges; at 17 x 4097
# x 2049 B ends 2 bytes into a 16-byte unit, which its loads may not read past.
ROWS_B_SHAPES = "31x4148x2100,17x4097x2049,24x8191x1152,9x4099x2048,11x3921x12048"
# with B stored off 16-byte alignment (GEMM_TEST_B_OFFSET): the first two have N a multiple of 8,
# read by rows only because of the offset; the third also has an odd N
ROWS_B_OFFSET_SHAPES = "17x4096x2048,24x4104x2056,9x4099x2048"


def reads_b_by_rows(step):
    """Whether the step's plan.h has the rows path for B (ROWS_B, step 38 on)."""
    plan_h = os.path.join(ROOT, step, "plan.h")
    return os.path.exists(plan_h) and "ROWS_B" in open(plan_h).read()


def rows_b_tests(step, exe):
    """A step whose plan.h reads B by rows (ROWS_B): its plans on the shapes above verify in both
    dtypes, beta 0 with C poisoned and beta != 0, each launching the swapped tile with rows=B and no
    copy of B, also where B starts 2 or 6 bytes past a 16-byte boundary (GEMM_TEST_B_OFFSET);
    memcheck and racecheck find nothing."""
    if not reads_b_by_rows(step):
        return
    sms = gpu_sm_count()
    if sms != 132:  # the plans below are those of 132 SMs (H200, H100 SXM and NVL)
        record(None, f"{step}: B read by rows on the plans of 132 SMs", f"skipped: {sms} SMs")
        return
    cases = [("", ROWS_B_SHAPES, scal) for scal in
             (["--alpha", "1", "--beta", "0"], ["--alpha", "-1.5", "--beta", "0.75"])]
    cases += [(offset, ROWS_B_OFFSET_SHAPES, ["--alpha", "-1.5", "--beta", "0.75"])
              for offset in ("1", "3")]
    for dtype in stepinfo.step_dtypes(ROOT, step):
        for offset, shapes, scal in cases:
            p = run([exe, "--shapes", shapes, "--reps", "0", "--dtype", dtype, "--csv"] + scal,
                    env=dict(os.environ, GEMM_TEST_B_OFFSET=offset))
            rows = list(csv.DictReader(io.StringIO(p.stdout)))
            ok = [r for r in rows if r["path"] == "padded" and r["check"] == "pass"
                  and {"swap=1", "wg=1", "rows=B"} <= set(r["kernel"].split()) and "B" not in
                  dict(x.split("=", 1) for x in r["kernel"].split() if "=" in x).get("pad", "")]
            where = f", B {2 * int(offset)} bytes off 16-byte alignment" if offset else ""
            record(p.returncode == 0 and len(ok) == len(shapes.split(",")),
                   f"{step}: {dtype}: B read by rows ({shapes}) verifies, {' '.join(scal)}{where}",
                   tail(p.stderr) + f" ({[r['kernel'] for r in rows]})")
    for tool, beta, offset, shapes in (("memcheck", "0.5", "", "17x4097x2049,9x4099x2048"),
                                       ("racecheck", "0", "", "17x4097x2049,9x4099x2048"),
                                       ("memcheck", "0", "3", "17x4096x2048,9x4099x2048")):
        p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes",
                 shapes, "--reps", "0", "--dtype", "bf16", "--beta", beta],
                env=dict(os.environ, GEMM_TEST_B_OFFSET=offset))
        where = f", B {2 * int(offset)} bytes off alignment" if offset else ""
        record(p.returncode == 0,
               f"{step}: bf16: B read by rows: compute-sanitizer {tool}, beta {beta}{where}",
               tail(p.stdout + p.stderr))


def gpu_limit(key):
    """One of the first GPU's limits (autotune.gpu_limits, in a child process so that this one holds
    no CUDA context), as text; None without a GPU."""
    code = ("import sys; sys.path.insert(0, 'scripts'); import autotune\n"
            "lim, _ = autotune.gpu_limits()\n"
            f"print(lim[{key!r}] if lim else '')\n")
    out = run([sys.executable, "-c", code], timeout=60).stdout.split()
    return out[0] if out else None


def gpu_sm_count():
    """The first GPU's SM count; None without a GPU."""
    sms = gpu_limit("sms")
    return int(sms) if sms and sms.isdigit() else None


def width_tests(step, exe):
    """A step that picks x W^T's tile width (its gemm.cu has tile_width): every C type and epilogue
    verifies on WIDTH_SHAPES, each run unswapped at its width, those that split K say so; M <= 64
    and K not a multiple of 8 take other paths; the NN layout stays 256 wide; memcheck and
    racecheck find nothing. The widths are those of 132 SMs (H200, H100 SXM and NVL); on another
    GPU the shapes still verify, at whatever width its SMs give."""
    if "tile_width" not in open(os.path.join(step, "gemm.cu")).read():
        return
    sms = gpu_sm_count()
    sms132 = sms == 132
    record(sms is not None, f"{step}: the GPU's SM count is read (the widths below depend on it)", "none read")
    if not sms132:  # the widths themselves are checked only where they are known
        record(None, f"{step}: x W^T's widths for 132 SMs", f"skipped: {sms} SMs")
    shapes = ",".join(WIDTH_SHAPES)
    words = lambda r: r["kernel"].split()
    shape = lambda r: f"{r['m']}x{r['n']}x{r['k']}"
    row_ok = lambda r: "swap=1" not in words(r) and (not sms132 or (
        f"tile=128x{WIDTH_SHAPES[shape(r)]}" in words(r)
        and (shape(r) in WIDTH_SPLIT_SHAPES) == ("splits=2" in words(r))))
    x_wt_kernel_tests(step, exe, "tma", shapes, row_ok, "x W^T above 64 tokens at the width the clock model picks"
                      + ("" if sms132 else f" (widths not checked: {sms} SMs)"),
                      "64x1x64,65x64x12", "x W^T at M <= 64, or K not a multiple of 8, takes another path",
                      "65x304x520,129x8456x72,200x1000x136", "the narrow tiles")
    p = run([exe, "--shapes", "513x8200x72", "--reps", "0", "--dtype", "bf16", "--csv", "--layout", "NN"])
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    record(p.returncode == 0 and len(rows) == 1 and "tile=128x256" in rows[0]["kernel"].split()
           and rows[0]["check"] == "pass", f"{step}: the NN layout at 513 x 8200 x 72 keeps 128 x 256 tiles",
           tail(p.stderr) + " " + " ".join(r["kernel"] for r in rows))


def linear_words(layout, out, epilogue):
    """The words a linear-layer run adds to its kernel description (plan.h's describe_linear)."""
    return ((["a=mmajor"] if layout[0] == "T" else []) + (["b=kmajor"] if layout[1] == "T" else [])
            + ([f"out={out}"] if out != "f32" else []) + ([f"epilogue={epilogue}"] if epilogue != "none" else []))


def linear_tests(step, exe):
    """A step that takes --layout, --out and --epilogue: every combination verifies on the linear
    shapes (and so does cuBLASLt, the baseline, on each); the kernel that ran carries the options'
    words; A stored M x K with rows of 16-byte units runs a tile kernel (or, x W^T at M <= 4 in a
    step that has it, the GEMV kernel), anything else the CUDA-core fallback; compute-sanitizer
    finds nothing."""
    if not takes_linear(step):
        return
    source = open(os.path.join(step, "gemm.cu")).read()
    has_gemv, has_swap = '#include "linear_gemv.cuh"' in source, "store_swapped" in source
    shapes = LINEAR_SHAPES.split(",")
    for dtype in stepinfo.step_dtypes(ROOT, step):
        for layout, out, epilogue in itertools.product(("NN", "NT", "TN", "TT"), ("f32", dtype),
                                                       ("none", "bias", "bias_gelu", "bias_silu")):
            if (layout, out, epilogue) == ("NN", "f32", "none"):
                continue  # the default: the tests above
            p = run([exe, "--shapes", LINEAR_SHAPES, "--reps", "0", "--dtype", dtype, "--csv", "--cublas",
                     "--layout", layout, "--out", out, "--epilogue", epilogue])
            rows = list(csv.DictReader(io.StringIO(p.stdout)))
            words = linear_words(layout, out, epilogue)
            wrong = []
            for r in rows:
                m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
                tiles = layout[0] == "N" and k % 8 == 0 and (n % 8 == 0 or layout == "NT" and (
                    has_gemv and m <= GEMV_MAX_M or has_swap and m <= SWAP_MAX_M))
                kernel = r["kernel"].split()
                if (r["check"] != "pass" or any(w not in kernel for w in words)
                        or ("kernel=fallback" in kernel) == tiles):
                    wrong.append(f"{m}x{n}x{k}: {r['check']} {r['path']} ({r['kernel']})")
            record(p.returncode == 0 and len(rows) == len(shapes) and not wrong,
                   f"{step}: {dtype}: --layout {layout} --out {out} --epilogue {epilogue}: the linear shapes "
                   f"verify (cuBLASLt too), on the tile kernels where A is M x K in 16-byte rows",
                   tail(p.stderr) + (f" wrong: {wrong[:3]}" if wrong else "") + f" ({len(rows)} rows)")
    # each layout (the tile kernel with B K-major or not, the CUDA-core kernel with either operand
    # transposed), as each shape takes them; racecheck where the tile kernels run
    for layout, tool in [(l, "memcheck") for l in ("NN", "NT", "TN", "TT")] + [("NN", "racecheck"),
                                                                              ("NT", "racecheck")]:
        p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes",
                 LINEAR_SANITIZER_SHAPES, "--reps", "0", "--dtype", "bf16", "--layout", layout, "--out", "bf16",
                 "--epilogue", "bias_gelu"])
        record(p.returncode == 0, f"{step}: --layout {layout}, bf16 out, bias_gelu: compute-sanitizer {tool}",
               tail(p.stdout + p.stderr))
    p = run(["compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "99", exe, "--shapes",
             LINEAR_SANITIZER_SHAPES, "--reps", "0", "--dtype", "fp16", "--layout", "NN", "--out", "f32",
             "--epilogue", "bias_silu", "--beta", "0.5"])
    record(p.returncode == 0, f"{step}: NN, FP32 out, beta 0.5, bias_silu: compute-sanitizer memcheck",
           tail(p.stdout + p.stderr))


def gpu_present():
    if not shutil.which("nvidia-smi"):
        return False, "nvidia-smi not found"
    p = run(["nvidia-smi", "-L"], timeout=60)
    if p.returncode != 0 or "GPU 0" not in p.stdout:
        return False, "nvidia-smi lists no GPU"
    return True, p.stdout.strip().splitlines()[0]


def step_paths(step):
    """The code paths a step can be forced to take (#define PATHS "a b c"), or []."""
    m = re.search(r'#define PATHS((?:\s|\\\n|"[^"]*")*)', open(os.path.join(step, "gemm.cu")).read())
    return "".join(re.findall(r'"([^"]*)"', m.group(1))).split() if m else []


def library_step():
    """The library step: the Makefile's LIBRARY_STEP, which must name a step of the tree."""
    named = stepinfo.library_step(ROOT)
    if named not in ALL_STEPS:
        sys.exit(f"test.py: the Makefile's LIBRARY_STEP ({named}) names no step with a gemm.cu")
    return named


def tile_path(path):
    """A path of one tensor-core kernel over tiles (every one of them needs a tensor map)."""
    return path.startswith(("tma_", "pair_", "quad_", "turned_")) or path in ("swap", "grouped_swap")


def feasible(path, m, n, k):
    """Whether a forced path can run on a shape; where it cannot, the step refuses (exit 2). A
    tensor map needs K and N multiples of 8; split-K needs at least 8 K-slices of 64; quad_swap
    17 to 128 rows of A (M) in the instruction's N, pair_swap at most 16."""
    if path == "quad_swap" and not 16 < m <= 128:  # A's rows in the instruction's N
        return False
    if path == "pair_swap" and m > 16:
        return False
    if tile_path(path) or path == "splitk":
        return k % 8 == 0 and n % 8 == 0 and (path != "splitk" or (k + 63) // 64 >= 8)
    if path == "stream_n":  # a warp holds all of a row's columns
        return n <= 64
    return True


def swap_width(m):
    """The rows of A a swapped tile holds (plan.h's swap_width): M rounded up to 16, 32, then
    multiples of 32 up to 128."""
    return 16 if m <= 16 else 32 if m <= 32 else min(128, (m + 31) // 32 * 32)


def kernel_matches(path, kernel, shape=(8, 8, 8), wide_b=False, rows_b=False):
    """Whether the instantiation a run reports (key=value words) is the one its path names:
    tma_nW, pair_nW, pair_m_nW, quad_nW and quad_m_nW a W-wide tile in one K range, alone or in a
    cluster of two or four (side by side, or along M); swap the swapped product; quad_swap four swapped tiles
    stacked along N ("4n"), M rounded up to 32, pair_swap two ("2n") of 16 rows; splitk two or more K ranges; padded a
    tile kernel; turned_n96 the 192 x 96 tile swapped, turned_pair two along M, turned_quad four; the others their own kernel. wide_b: the step copies B into rows of 64 where
    its rule (plan.h's copies_for) holds; rows_b: the step reads B by rows, not from a copy, where
    step 38's rule holds."""
    w = dict(x.split("=", 1) for x in kernel.split() if "=" in x)
    if path.startswith(("tma_n", "pair_n", "pair_m_n", "quad_n", "quad_m_n")):  # _m_: along M ("2m")
        size = "1" if path.startswith("tma_") else "4" if path.startswith("quad_") else "2"
        cluster = size + ("m" if path.startswith(("pair_m_", "quad_m_")) else "")
        return (w.get("tile", "").endswith("x" + path.split("_n")[1]) and w.get("swap") == "0"
                and w.get("splits") == "1" and w.get("cluster") == cluster)
    if path in ("swap", "grouped_swap"):  # step 45: in clusters of four that share nothing ("4g")
        cluster = "4g" if path == "grouped_swap" else "1"
        return (w.get("swap") == "1" and w.get("splits") == "1" and w.get("cluster") == cluster
                and (path == "swap" or w.get("tile", "").endswith("x" + str(swap_width(shape[0])))))
    if path in ("turned_n96", "turned_pair", "turned_quad"):  # step 39: 192 rows of N (three
        # consumer warpgroups) by 96 of M, swapped; step 40: in clusters of two along M; 41: four
        cluster = "cluster=" + {"turned_pair": "2", "turned_quad": "4"}.get(path, "1")
        return {"tile=192x96", "wg=3", "swap=1", cluster, "splits=1"} <= set(kernel.split())
    if path in ("quad_swap", "pair_swap"):  # four (two) swapped tiles along N, M rounded up to 32 (16)
        width = 16 if path == "pair_swap" else swap_width(shape[0])  # quad_swap: M > 16
        return ({"swap=1", "splits=1", "cluster=" + ("4n" if path == "quad_swap" else "2n")}
                <= set(kernel.split()) and w.get("tile", "").endswith("x" + str(width)))
    if path == "splitk":
        return w.get("splits", "0").isdigit() and int(w["splits"]) >= 2 and w.get("cluster") == "1"
    if path == "padded":  # a tile kernel, on copies of exactly the operands whose rows need them
        m, n, k = shape
        direct = n % 4 != 0 and w.get("swap") == "0" and w.get("splits") == "1"
        # step 25's WIDE_B ("B64"): B copied into rows of 64 exactly where its rule holds
        pad = w.get("pad", "")
        wide = pad.endswith("64")
        rule = wide_b and n < 64 and n % 16 != 0 and m * k >= 3 << 19 and w.get("swap") == "0"
        # step 38's ROWS_B: a swapped tile of one consumer warpgroup and at most 32 rows of A, no
        # cluster, N >= 1024, B of 2^23 elements or more
        rows = (rows_b and n % 8 != 0 and n >= 1024 and k * n >= 1 << 23 and w.get("swap") == "1" and w.get("wg") == "1"
                and w.get("cluster") == "1" and w.get("tile") in ("64x16", "64x32"))
        want = "A" * (k % 8 != 0) + "B" * ((n % 8 != 0 or wide) and not rows)
        return ("tile" in w and pad.removesuffix("64") == want and (w.get("rows") == "B") == rows
                and wide == rule and ("store" in w) == direct)
    return w.get("kernel") == path


# A forced path's extra shapes. splitk: a list run in one process, so that all but the first run
# with the kernels loaded (a first launch loads its module and starts late); step 20 launches the
# reduction to start while the product ends, and it must wait for the planes. A reduction that read
# early would find the previous shape's planes, which hold other sums: wrong elements, not NaN.
PATH_EXTRA_SHAPES = {"splitk": ["72x136x576", "128x4096x4096", "300x2048x2048", "16x4096x4096", "72x136x576"],
                     # quad_swap: clusters with empty blocks (N = 72, 136, 1032, 4104), a partial last tile
                     # (N = 200), each width, two consumer warpgroups (N > 7680)
                     "quad_swap": ["79x200x1000", "100x72x256", "33x136x520", "128x4104x2048", "97x1032x4096",
                                   "79x7752x136", "100x7752x72", "20x200x1000", "32x8456x72"],
                     # pair_swap: a partial tile (N = 200), an empty block (N = 136, 8456), two
                     # consumer warpgroups (N = 8456)
                     "pair_swap": ["1x200x1000", "16x136x520", "9x8456x72", "4x6144x4096"],
                     # swap: the tall widths 96 and 128, one and two consumer warpgroups
                     "swap": ["79x8456x136", "100x8456x72", "79x4096x1000", "100x4096x1000"],
                     # grouped_swap: the last cluster's blocks past the tiles (N = 72, 4160; 8456
                     # with two consumer warpgroups), a partial last tile (N = 200), more tiles
                     # than the clusters hold at once (N = 8448, 132 tiles)
                     "grouped_swap": ["8x4096x4096", "17x4160x1000", "32x200x136", "3x72x72",
                                      "1x8456x512", "9x8448x264", "100x4096x1000"],
                     # turned_n96: partial tiles both ways (N = 200 of 384, M = 300 of 384), one tile
                     # row of N, a K of 1000 (a part slice), and many tiles (more than the SMs)
                     "turned_n96": ["300x200x1000", "97x72x256", "1000x1000x1024", "2000x1600x136"],
                     # turned_pair: an odd count of tiles along M (the last pair's second block past
                     # M), one tile along M (its partner all zeros), more pairs than fit at once, and
                     # a last slice that ends inside the second block's half of the k-rows
                     "turned_pair": ["200x200x2048", "96x192x64", "97x72x256", "2000x1600x136",
                                     "1000x1000x2040"],
                     # turned_quad: three tiles along M (the fourth block past M), one (three blocks
                     # all zeros), more fours than fit at once, and a last slice that ends inside
                     # the fourth block's quarter of the k-rows, and inside the second's
                     "turned_quad": ["200x200x2048", "96x192x64", "97x72x256", "2000x1600x136",
                                     "1000x1000x2040", "300x600x2072"],
                     # tma_n224, pair_m_n224: a last tile column of 8 (N = 232 and 456: the second and
                     # third), two whole ones (448), one K slice of 8, tile rows 1-3 (an odd pair's
                     # partner empty)
                     "tma_n224": ["65x456x8", "129x448x136", "1x232x72"],
                     "pair_m_n224": ["129x456x520", "65x232x8", "257x448x136"],
                     # padded: step 39 turns this one's tile round on copies of A and B (K, N odd:
                     # C stored from the registers), partial tiles both ways
                     "padded": ["1497x1477x1033", "558x4183x2520"]}


def path_shapes(path):
    """The shapes of SHAPES a path can take, then its extra ones."""
    return [s for s in SHAPES.split(",") if feasible(path, *map(int, s.split("x")))] + PATH_EXTRA_SHAPES.get(path, [])


def path_tests(step, exe):
    """Every path of a step that chooses by shape, forced with --path on the shapes of the list it
    can take (both dtypes, beta 0 with C poisoned and beta != 0), each row reporting that path and
    an instantiation of it (the harness also checks that the kernel launched is the planned one);
    a shape it cannot take refused with exit 2; compute-sanitizer memcheck and racecheck on each.
    The library step (the Makefile's LIBRARY_STEP) is tested on every path, the other steps on
    the paths they add."""
    paths = step_paths(step)
    i = ALL_STEPS.index(step)
    library = library_step()
    if step != library and i > 0:
        paths = [p for p in paths if p not in step_paths(ALL_STEPS[i - 1])]
    plan_h = os.path.join(ROOT, step, "plan.h")
    with open(plan_h) if os.path.exists(plan_h) else io.StringIO() as f:
        text = f.read()
        wide_b, rows_b = "copies_for" in text, "ROWS_B" in text
    for path in paths:
        shapes = path_shapes(path)
        others = [s for s in SHAPES.split(",") if s not in shapes]
        for dtype in stepinfo.step_dtypes(ROOT, step):
            for label, scal in (("beta = 0, C poisoned with NaN", ["--alpha", "1", "--beta", "0"]),
                                ("alpha = -1.5, beta = 0.75", ["--alpha", "-1.5", "--beta", "0.75"])):
                p = run([exe, "--shapes", ",".join(shapes), "--reps", "0", "--dtype", dtype, "--csv",
                         "--path", path] + scal)
                rows = list(csv.DictReader(io.StringIO(p.stdout)))
                wrong = [f"{r['m']}x{r['n']}x{r['k']}: {r['path']} ({r['kernel']})" for r in rows
                         if r["path"] != path
                         or not kernel_matches(path, r["kernel"], (int(r["m"]), int(r["n"]), int(r["k"])),
                                               wide_b, rows_b)]
                record(p.returncode == 0 and len(rows) == len(shapes) and not wrong,
                       f"{step}: {dtype}: --path {path}: the {len(shapes)} shapes of the list it takes verify "
                       f"and launch its kernel, {label}",
                       tail(p.stderr) + (f" launched: {wrong[:3]}" if wrong else "") + f" ({len(rows)} rows)")
        if others:
            p = run([exe, "--shapes", others[0], "--reps", "0", "--path", path])
            record(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "cannot run" in p.stderr,
                   f"{step}: --path {path} on {others[0]}, which it cannot take: refused in one line, exit 2",
                   f"exit {p.returncode}: " + tail(p.stdout + p.stderr))
        small = ",".join(s for s in SANITIZER_SHAPES.split(",") if feasible(path, *map(int, s.split("x"))))
        for tool, beta in (("memcheck", "0.5"), ("racecheck", "0")):
            p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes", small,
                     "--reps", "0", "--dtype", "bf16", "--beta", beta, "--path", path])
            record(p.returncode == 0, f"{step}: bf16: --path {path}: compute-sanitizer {tool}, beta {beta}, small odd shapes",
                   tail(p.stdout + p.stderr))


def lesson_bounds():
    """From step 12 on, each lesson is one idea: `make diff` (gemm.cu, plan.h, a header of common/
    that the step is the first to include) changes at most 300 lines, no gemm.cu is over 600, and no
    line of gemm.cu or plan.h is over 100 characters."""
    print("== lesson bounds (CPU)", flush=True)
    for step in STEPS:
        lines = sum(1 for _ in open(os.path.join(step, "gemm.cu")))
        record(lines <= 600, f"{step}: gemm.cu has at most 600 lines", f"{lines} lines")
        for name in ("gemm.cu", "plan.h"):
            path = os.path.join(step, name)
            if not os.path.isfile(path):
                continue
            long = [i + 1 for i, l in enumerate(open(path).read().splitlines()) if len(l) > 100]
            record(not long, f"{step}: no line of {name} is over 100 characters",
                   f"lines {long[:5]}")
        n = int(step[:2])
        if n < 12 or ALL_STEPS.index(step) == 0:
            continue
        p = sub_make(["diff", f"N={n}"])
        changed = [l for l in p.stdout.splitlines() if l[:1] in "+-" and not l.startswith(("+++", "---"))]
        record(p.returncode == 0 and 0 < len(changed) <= 300,
               f"{step}: make diff N={n} changes at most 300 lines", f"{len(changed)} lines")


def sub_make(args, timeout=60):
    """make run from inside make test: without the parent's jobserver (MAKEFLAGS), whose absence a
    sub-make would report on stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return run(["make", "-s", "--no-print-directory"] + args, timeout=timeout, env=env)


def make_usage_tests():
    """The build's own errors: a malformed ARCH and a missing Python stop make with one line; an
    architecture the tables lack builds with the nearest one's limits and says so; N that is not a
    number names itself; the scripts' --help prints their usage."""
    print("== make and script usage (CPU)", flush=True)
    p = sub_make(["help", "ARCH=foo"])
    record(p.returncode == 2 and "not an architecture" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
           "make ARCH=foo stops with one line naming the malformed ARCH", f"rc {p.returncode}: {tail(p.stderr, 2)}")
    p = sub_make(["help", "ARCH=sm_121"])
    record(p.returncode == 0 and "sm_120's limits" in p.stderr,
           "make ARCH=sm_121 (not in the table) takes sm_120's limits and says so", f"rc {p.returncode}: {tail(p.stderr, 2)}")
    p = sub_make(["help", "PYTHON=/nonexistent/python3"])
    record(p.returncode == 2 and "Python 3.7 or newer is needed" in p.stderr,
           "make without Python stops, naming what is missing", f"rc {p.returncode}: {tail(p.stderr, 2)}")
    p = sub_make(["step", "N=abc"])
    record(p.returncode == 2 and "no step N=abc" in p.stderr and "expr" not in p.stderr,
           "make step N=abc names the bad N, without expr's noise", f"rc {p.returncode}: {tail(p.stderr, 2)}")
    for script in ("scripts/test.py", "scripts/results_table.py"):
        p = run([sys.executable, script, "--help"], timeout=60)
        ran = [l for l in p.stdout.splitlines() if l.startswith(("PASS ", "FAIL ", "== ", "rewrote"))]
        record(p.returncode == 0 and "python3 scripts/" in p.stdout and not ran,
               f"{script} --help prints its usage and runs nothing",
               f"rc {p.returncode}: {tail(p.stdout + p.stderr, 2)}")


def figure_tests():
    """Every step from 03 on has tiling.svg drawn from the configuration it is built with, and its
    README shows it; a figure that no longer matches its step's configuration fails."""
    p = run([sys.executable, "scripts/figures.py", "--check"], timeout=120)
    record(p.returncode == 0, "figures: every tiling.svg matches its step's configuration (make figures)",
           tail(p.stdout + p.stderr))
    for step in STEPS:
        if int(step[:2]) >= 3:
            readme = open(os.path.join(step, "README.md")).read()
            record(os.path.isfile(os.path.join(step, "tiling.svg")) and "](tiling.svg)" in readme,
                   f"{step}: README.md shows tiling.svg", "missing")


def shape_set_tests():
    """make shapes' broad set is what issue-sized claims are measured on: at least 200 generated
    shapes, the same every time, each dimension in 1 .. 16384, at least 40% with K or N not a
    multiple of 8, under the FLOPs cap; the model shapes cover both hidden sizes, the LM head and
    every token count; the summary's quantiles are the nearest-rank ones."""
    import results_table
    import shape_set
    g = shape_set.generated()
    unaligned = sum(map(shape_set.unaligned, g))
    record(len(g) >= 200 and g == shape_set.generated() and len(set(g)) > 0.9 * len(g),
           f"shape set: {len(g)} generated shapes, the same on every call", f"{len(g)} shapes")
    record(all(1 <= d <= 16384 for s in g for d in s) and all(2 * m * n * k <= shape_set.FLOP_CAP for m, n, k in g),
           "shape set: every generated dimension in 1 .. 16384, every product under the FLOPs cap", "out of range")
    record(unaligned >= 0.4 * len(g), f"shape set: {unaligned} of {len(g)} generated shapes have K or N not a multiple of 8",
           "fewer than 40%")
    # --fresh: another seed's draw, each shape past the floor, 64 to a line; bad input refused
    fresh = shape_set.generated(63, 70, 1e9)
    script = [sys.executable, os.path.join("scripts", "shape_set.py"), "--fresh"]
    lines = run(script + ["63", "--count", "70", "--min-gflop", "1"]).stdout.split()
    drawn = [tuple(map(int, x.split("x"))) for line in lines for x in line.split(",")]
    record(drawn == fresh and [len(line.split(",")) for line in lines] == [64, 6]
           and all(1e9 <= 2 * m * n * k <= shape_set.FLOP_CAP for m, n, k in fresh)
           and sum(map(shape_set.unaligned, fresh)) >= 0.4 * len(fresh) and not set(fresh) & set(g),
           "shape set: --fresh 63 --count 70 --min-gflop 1 prints 70 new shapes of 1 GFLOP or more, "
           "64 to a line, 40% or more unaligned", f"{lines[:1]}")
    bad = [run(script + a) for a in (["x"], ["1", "--count", "0"], ["1", "--min-gflop", "99"], ["1", "--seed", "2"])]
    record(all(p.returncode == 2 and not p.stdout and p.stderr.startswith("error: --fresh")
               and "--fresh SEED" in p.stderr.split("\n", 1)[1] for p in bad),
           "shape set: --fresh with a bad seed, count, floor or option: a one-line error, the usage, exit 2",
           str([(p.returncode, p.stderr[:80]) for p in bad]))
    mod = shape_set.model()
    heads = {(t, shape_set.VOCAB, h) for h in shape_set.MODELS for t in shape_set.TOKENS}
    record(heads <= set(mod) and {s[0] for s in mod} == set(shape_set.TOKENS) and len(mod) == 100,
           "shape set: the model shapes cover both hidden sizes, the LM head and every token count", f"{len(mod)} shapes")
    vals = list(range(1, 101))
    record(results_table.percentile(vals, 0.1) == 10 and results_table.percentile(vals, 0.5) == 50
           and results_table.percentile([7.0], 0.5) == 7.0, "results_table: nearest-rank percentiles", "wrong")
    # the targets table judges each row against its goal: a generated minimum of 74.9% (the worst
    # shape named) misses 75%, a median of 95.0% meets 95%
    env = {"gpu": "G", "driver": "1", "cuda": "1", "commit": "c", "date": "d", "step": "20_x", "run": "shapes"}
    fake = [dict(env, m=str(m), n=str(n), k=str(k), dtype=d, ratio=str(r))
            for (m, n, k), r in zip(g, [0.749] + [0.95] * (len(g) - 1)) for d in ("fp16", "bf16")]
    fake += [dict(env, m=str(m), n=str(n), k=str(k), dtype=d, ratio="1.0") for m, n, k in mod for d in ("fp16", "bf16")]
    table = results_table.targets_table(fake, "20_x") or ""
    name = "x".join(map(str, g[0]))
    partial = results_table.targets_table(fake[2:], "20_x") or ""
    marked = "<!-- targets:begin -->\nold\n<!-- targets:end -->"
    found = results_table.unmarked_tables({"a": marked, "b": "", "c": "<!-- targets:begin -->", "d": ""},
                                          {p: ["targets"] for p in "abcd"}, {"a": ["targets"], "b": ["targets"]})
    record(found == [("b", "targets"), ("c", "targets")],
           "results_table: a required table without its markers, or a table with one marker, fails --check",
           str(found))
    record(f"74.9% ({name}), missed" in table and "95.0%, met" in table and "100.0% (" in table
           and partial.startswith("Incomplete"),
           "results_table: the targets table marks a 74.9% minimum missed, a 95.0% median met, "
           "a set with a shape missing incomplete", table[:300] + partial[:100])
    # the summary is the library step's where it ran the set, though a later step ran it too;
    # on a GPU the library step never ran on, the last step that did
    library = stepinfo.library_step(ROOT)
    one = [dict(env, m=str(m), n=str(n), k=str(k), dtype="bf16", ratio="1.0") for m, n, k in g[:3]]
    both = [dict(r, step=library) for r in one] + [dict(r, step="99_later") for r in one]
    picked = (results_table.shape_set_rows(both)[1], results_table.shape_set_rows(both[3:])[1])
    record(picked == (library, "99_later"),
           "results_table: make shapes' summary is the library step's, else the last step's",
           str(picked))


def plan_tests():
    """The dispatchers' rules on the CPU: tests/plans.txt lists shapes with the path and kernel each
    step that chooses by shape must plan for them on 132 SMs (--plan, no GPU), a forced path's
    too, and refusals; every path of such a step appears in the table."""
    print("== dispatch rules (--plan, CPU)", flush=True)
    table = {}
    for line in open(os.path.join("tests", "plans.txt")):
        if line.strip() and not line.startswith("#"):
            step, shape, forced, want = line.split(None, 3)
            table.setdefault((step, forced), []).append((shape, want.strip()))
    unknown = sorted({s for s, _ in table if s not in ALL_STEPS or not step_paths(s)})
    record(not unknown, "tests/plans.txt names only steps that choose by shape", f"unknown: {unknown}")
    for step in STEPS:
        if not step_paths(step):
            continue
        planned = set()
        for (s, forced), rows in sorted(table.items()):
            if s != step:
                continue
            for i in range(0, len(rows), 64):  # --shapes takes at most 64
                part = rows[i:i + 64]
                cmd = [os.path.join(step, "gemm"), "--plan", "--sms", "132", "--dtype", "bf16",
                       "--shapes", ",".join(r[0] for r in part)] + (["--path", forced] if forced != "-" else [])
                p = run(cmd)
                lines = [l.split() for l in p.stdout.splitlines()]
                got = [" ".join(l[1:]) if l and l[0] == shape else f"(for {l[0] if l else 'nothing'})"
                       for l, (shape, _) in zip(lines, part)]
                for (shape, want), g in zip(part, got + [""] * len(part)):
                    record(g == want, f"{step}: plan of {shape}{'' if forced == '-' else ' --path ' + forced}: {want}",
                           f"planned: {g or tail(p.stderr)}")
                    planned.add(want.split()[0])
        missing = [p for p in step_paths(step) if p not in planned]
        record(not missing and "refused:" in planned, f"{step}: tests/plans.txt plans every path and a refusal",
               f"never planned: {missing}")
        if reads_b_by_rows(step):
            # B's base, not only N, decides: the same shapes read B by rows only when it is off
            for offset, want in (("", False), ("1", True), ("7", True)):
                p = run([os.path.join(step, "gemm"), "--plan", "--sms", "132", "--dtype", "fp16",
                         "--shapes", ",".join(ROWS_B_OFFSET_SHAPES.split(",")[:2])],
                        env=dict(os.environ, GEMM_TEST_B_OFFSET=offset))
                rows_b = [l.split()[0] for l in p.stdout.splitlines() if "rows=B" in l.split()]
                record(p.returncode == 0 and len(rows_b) == (2 if want else 0),
                       f"{step}: plan with B {2 * int(offset or 0)} bytes past a 16-byte boundary"
                       f" {'reads B by rows' if want else 'reads B by TMA'}", tail(p.stdout + p.stderr))


def tf32_baseline_test():
    """A cuBLAS baseline in TF32 math mode passes the per-element bound at K = 4096 but not the RMS
    check: the harness must say that cuBLAS itself fails (an FP32 step runs it)."""
    step = next((s for s in STEPS if stepinfo.step_dtypes(ROOT, s) == ["fp32"]), None)
    if step is None:
        return
    p = run([os.path.join(step, "gemm"), "512", "512", "4096", "--reps", "0", "--cublas"],
            env=dict(os.environ, GEMM_TEST_CUBLAS_TF32="1"))
    record(p.returncode == 1 and "cuBLAS itself fails the check" in p.stderr,
           f"{step}: a cuBLAS baseline in TF32 math mode (planted) fails the RMS check at K = 4096",
           f"rc {p.returncode}: {tail(p.stdout + p.stderr)}")


def gpu_compute_capability():
    """The first GPU's compute capability x 10 (its architecture, sm_90a -> 90), or None."""
    arch = gpu_limit("arch")
    return int(arch[3:].rstrip("a")) if arch and arch.startswith("sm_") else None


def step_runs_on(step, cc):
    """Whether a step's kernels run on a GPU of compute capability cc (x 10): sm_90a code on 9.0
    alone (arch-specific), a '__CUDA_ARCH__ >= N' guard from N on, the others everywhere."""
    if "BUILD_ARCH: sm_90a" in open(os.path.join(step, "gemm.cu")).read():
        return cc == 90
    return cc * 10 >= stepinfo.min_cc(ROOT, step)  # min_cc is __CUDA_ARCH__'s number (800)


def gpu_tests():
    print("== GPU tests", flush=True)
    tf32_baseline_test()
    cc = gpu_compute_capability()
    # without it every step that exits 3 (needs another architecture) would count as skipped
    record(cc is not None, "GPU tests: the GPU's compute capability is read, to judge each step's exit 3 by",
           "not read: scripts/autotune.py's gpu_limits() found no GPU through the CUDA runtime")
    for step in STEPS:
        exe = os.path.join(step, "gemm")
        p = run([exe, "1", "--reps", "0", "--dtype", stepinfo.step_dtypes(ROOT, step)[0]])
        if p.returncode == stepinfo.EXIT_NEEDS_ARCH:  # a Hopper step on another GPU
            # exit 3 also means a binary built for another architecture: on a GPU that runs the
            # step, that is a failure, not a skip
            should = cc is not None and step_runs_on(step, cc)
            record(False if should else None, f"{step}: GPU tests" + (" run on this GPU" if should else ""),
                   ("exit 3 on a GPU of compute capability %.1f: " % (cc / 10) if should else "skipped: ")
                   + tail(p.stderr))
            continue
        for dtype in stepinfo.step_dtypes(ROOT, step):
            for label, scal in (("beta = 0, C poisoned with NaN", ["--alpha", "1", "--beta", "0"]),
                                ("alpha = -1.5, beta = 0.75", ["--alpha", "-1.5", "--beta", "0.75"])):
                p = run([exe, "--shapes", SHAPES, "--reps", "0", "--dtype", dtype] + scal)
                record(p.returncode == 0, f"{step}: {dtype}: every shape of the list, {label}",
                       tail(p.stderr))
            tools = ["memcheck"] + (["racecheck"] if uses_shared_memory(step) else [])
            for tool in tools:
                for beta in ("0", "0.5"):
                    if tool == "racecheck" and beta != "0":
                        continue
                    p = run(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99", exe, "--shapes",
                             SANITIZER_SHAPES, "--reps", "0", "--dtype", dtype, "--beta", beta])
                    record(p.returncode == 0, f"{step}: {dtype}: compute-sanitizer {tool}, beta {beta}, small odd shapes",
                           tail(p.stdout + p.stderr))
        path_tests(step, exe)
        linear_tests(step, exe)
        split_tests(step, exe)
        gemv_tests(step, exe)
        swap_tests(step, exe)
        width_tests(step, exe)
        swap_cluster_tests(step, exe)
        rows_b_tests(step, exe)
        p = run([exe, "--shapes", LIMIT_SHAPES, "--reps", "0", "--dtype", stepinfo.step_dtypes(ROOT, step)[0]])
        record(p.returncode == 0, f"{step}: the largest shapes the parser accepts run and verify ({LIMIT_SHAPES})",
               tail(p.stdout + p.stderr))
        p = run([exe, "64", "--reps", "1", "--warmup", "0", "--csv", "--dtype", stepinfo.step_dtypes(ROOT, step)[0]])
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        timed = (len(rows) == 1 and rows[0]["check"] == "pass" and rows[0]["reps"] == "1"
                 and 0 < float(rows[0]["ms"]) < float("inf"))
        record(p.returncode == 0 and timed, f"{step}: '64' runs, verifies and times",
               tail(p.stdout + p.stderr))


def static_assert_block(step):
    """The lines of a tuned step's gemm.cu from its first parameter (#ifndef BM) to the end of
    its last static_assert: the parameters, the derived sizes and every rule."""
    lines = open(os.path.join(step, "gemm.cu")).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#ifndef BM"))
    end = max(i for i, line in enumerate(lines) if line.startswith("static_assert("))
    while not lines[end].rstrip().endswith(");"):
        end += 1
    return "\n".join(lines[start:end + 1]) + "\n"


def autotune_rules():
    """scripts/autotune.py rejects configurations before compiling them; its rules must be the
    step's static_asserts. Each candidate of the search space is compiled as the step's rule
    block alone (g++ -fsyntax-only, milliseconds each) and the verdicts are compared."""
    print("== the autotuner's rules against the static_asserts (CPU)", flush=True)
    import autotune
    cxx = shutil.which("g++") or shutil.which("c++")
    for key, space in sorted(autotune.SPACES.items()):
        step = next((s for s in STEPS if os.path.basename(s).startswith(key + "_")), None)
        if step is None:
            continue
        if cxx is None:
            record(None, f"{step}: autotune rules agree with the static_asserts", "no C++ compiler (g++) on PATH")
            continue
        os.makedirs("build", exist_ok=True)
        src = os.path.join("build", f"rules_{step}.cpp")
        open(src, "w").write(static_assert_block(step))
        candidates = list(itertools.product(*space["values"]))

        def compiles(c):
            flags = [f"-D{p}={v}" for p, v in zip(space["params"], c)]
            return run([cxx, "-std=c++17", "-fsyntax-only", "-x", "c++", src] + flags).returncode == 0

        with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            verdicts = list(pool.map(compiles, candidates))
        disagree = [c for c, ok in zip(candidates, verdicts) if ok != space["rules"](*c)]
        record(not disagree and any(verdicts) and not all(verdicts),
               f"{step}: scripts/autotune.py's rules agree with the static_asserts on all {len(candidates)} candidates "
               f"({sum(verdicts)} legal)", f"they disagree on {len(disagree)}, e.g. {space['params']} = {disagree[:3]}")


def flags_lookup_tests(have_gpu):
    """The Makefile's flags lookup (scripts/autotune.py --pick-flags) and the autotuner's GPU check."""
    print("== flags lookup and the autotuner (CPU)", flush=True)
    pick = lambda *a: run([sys.executable, "scripts/autotune.py", "--pick-flags"] + list(a))
    p = pick("sm_90a", "sm_90a", "NVIDIA_H100_80GB_HBM3")
    record(p.returncode == 0 and "09_tensorcore:09_tensorcore/tuned/sm_90.flags" in p.stdout.split(),
           "flags: an H100 (sm_90a, never tuned) builds 09 with tuned/sm_90.flags, the H200's search", p.stdout + p.stderr)
    p = pick("sm_86", "sm_86", "NVIDIA_H200")  # as if the H200's files were offered to a 99 KB GPU
    record(p.returncode == 0 and "09_tensorcore:09_tensorcore/tuned/default.flags" in p.stdout.split()
           and "NVIDIA_H200.flags does not fit sm_86" in p.stderr,
           "flags: a GPU file that does not fit the architecture (159 KB on sm_86) is passed over, and said so",
           p.stdout + p.stderr)
    p = pick("sm_75", "none", "default")
    record(p.returncode == 0 and all(f"{s}:{s}/tuned/default.flags" in p.stdout.split() for s in
                                      ("07_autotune", "08_warptile", "10_double_buffer")),
           "flags: sm_75 without a GPU builds 07, 08 and 10 with tuned/default.flags", p.stdout + p.stderr)
    if not have_gpu:
        shutil.rmtree(os.path.join("build", "autotune"), ignore_errors=True)
        p = run([sys.executable, "scripts/autotune.py", "--all"], timeout=120)
        record(p.returncode == 2 and "no GPU" in p.stderr and not os.path.exists(os.path.join("build", "autotune")),
               "autotune: without a GPU it exits 2 naming what is missing, before compiling anything",
               f"rc {p.returncode}, {tail(p.stderr, 2)}")


def docs_checks():
    """What a learner reads: scripts/check_docs.py's PASS / FAIL lines, one test each."""
    p = run([sys.executable, "scripts/check_docs.py"])
    lines = [l for l in p.stdout.splitlines() if l.startswith(("PASS ", "FAIL "))]
    for line in lines:
        record(line.startswith("PASS "), line[5:])
    if not lines or (p.returncode != 0) != any(l.startswith("FAIL ") for l in lines):
        record(False, "scripts/check_docs.py reports its checks", tail(p.stdout + p.stderr))
    import check_docs
    page = os.path.join(ROOT, "30_lean_loads", "README.md")
    found = check_docs.missing_paths(page, "[a](../28_no_such/README.md#x), [b](../28_small_k_prefetch/README.md#y), "
                                           "[c](../28_no_such/README.md), [d](#numbers)")
    record(found == ["../28_no_such/README.md"] * 2,
           "check_docs: a link to a missing file fails, with an #anchor or without", str(found))


def readme_tables():
    p = run([sys.executable, "scripts/results_table.py", "--check"])
    record(p.returncode == 0, "README numbers tables are generated from results/ (scripts/results_table.py --check)",
           tail(p.stdout + p.stderr))


def plot_python():
    """An interpreter that can import matplotlib: $PLOT_PYTHON (set by the Makefile), this one, or Debian's."""
    for py in [os.environ.get("PLOT_PYTHON", ""), sys.executable, "/usr/bin/python3"]:
        if py and shutil.which(py) and run([py, "-c", "import matplotlib"]).returncode == 0:
            return py
    return None


def results_file_tests():
    """bench.py's results file: a new measurement replaces the row of the same run, step, dtype and
    shape, except a dispatch row, which a step has in the run beside the step before and in the run
    beside the step after: each commit's stays, so both tables keep their pairs."""
    import bench  # noqa: E402 (scripts/ is on the path, as for steps)
    base = {**{f: "" for f in bench.FIELDS}, "dtype": "bf16", "m": "8", "n": "8", "k": "8"}
    made = [{**base, "run": "dispatch", "step": "35_short_pairs", "commit": "aaaaaaa"},
            {**base, "run": "dispatch", "step": "35_short_pairs", "commit": "bbbbbbb"},
            {**base, "run": "bench", "step": "35_short_pairs", "commit": "aaaaaaa"},
            {**base, "run": "bench", "step": "35_short_pairs", "commit": "bbbbbbb"}]
    rows = {bench.key(r): r for r in made}  # in order: a later row of the same key replaces
    path = os.path.join("build", "test_results.csv")
    bench.save(path, rows)
    kept = sorted((r["run"], r["commit"]) for r in bench.load(path).values())
    record(kept == [("bench", "bbbbbbb"), ("dispatch", "aaaaaaa"), ("dispatch", "bbbbbbb")],
           "bench.py: a bench row is replaced by the newer; a step's dispatch rows of two commits both stay",
           f"kept {kept}")


def tool_tests():
    print("== analysis tools (CPU)", flush=True)
    py = plot_python()
    if py is None:
        # CI installs python3-matplotlib (.ci/run), so there a missing matplotlib is a failure.
        record(False if os.environ.get("CI") else None, "plot: PNGs from tests/data/results_sample.csv",
               "no Python with matplotlib (apt-get install python3-matplotlib)")
    else:
        out = os.path.join("build", "test_plot")
        shutil.rmtree(out, ignore_errors=True)
        p = run([py, "scripts/plot.py", "tests/data/results_sample.csv", "--out", out])
        for kind in ("steps", "sizes", "shapes", "roofline"):
            png = os.path.join(out, f"results_sample_{kind}.png")
            ok = (p.returncode == 0 and os.path.isfile(png) and os.path.getsize(png) > 1000
                  and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
            record(ok, f"plot: writes a non-empty {kind} PNG from tests/data/results_sample.csv ({py})",
                   tail(p.stdout + p.stderr))

    # The counter itself, on a hand-written listing with known counts.
    p = run([sys.executable, "scripts/sass.py", "tests/data/sample.sass"])
    lines = [line for line in p.stdout.splitlines() if line.strip()]
    header = lines[0].split()[1:] if lines else []
    rows = {line.split()[0]: dict(zip(header, map(int, line.split()[-len(header):]))) for line in lines[1:]}
    want = {"probe(float": dict(FFMA=3, LDS=1, **{"LDS.128": 1, "LDG": 1, "LDG.E.128": 1, "STS": 1, "STS.128": 1,
                                                   "STG.E.128": 1, "BAR": 1}),
            "mma_sm(__half": dict(HMMA=2, LDSM=1, LDGSTS=1),
            "wgmma_tma(__half": dict(HGMMA=2, UTMALDG=2)}
    got = {k: {c: n for c, n in v.items() if n} for k, v in rows.items()}
    record(p.returncode == 0 and got == want, "sass: counts FFMA, LDS widths, LDG/STS/STG.128, HMMA, LDSM, LDGSTS, "
           "HGMMA, UTMALDG, BAR in tests/data/sample.sass", tail(p.stdout + p.stderr) + f" got {got}")
    # And on real cuobjdump output, where the toolkit has cuobjdump.
    if not shutil.which("cuobjdump"):
        record(None, "sass: counts a compiled cubin", "cuobjdump is not on PATH (it comes with the full CUDA toolkit)")
        return
    cubin = os.path.join("build", "sass_probe.cubin")
    p = run([os.environ.get("NVCC", "nvcc"), "-cubin", "-O3", "-arch=sm_90", "tests/data/sass_probe.cu", "-o", cubin])
    q = run([sys.executable, "scripts/sass.py", cubin, "--out", os.path.join("build", "sass_probe.sass")])
    line = next((l.split() for l in q.stdout.splitlines() if l.startswith("probe")), None)
    header = next((l.split()[1:] for l in q.stdout.splitlines() if l.startswith("kernel")), [])
    counts = dict(zip(header, map(int, line[-len(header):]))) if line and header else {}
    record(p.returncode == 0 and q.returncode == 0 and counts.get("FFMA", 0) >= 1 and counts.get("LDS.128", 0) >= 1,
           "sass: finds FFMA and LDS.128 in a compiled cubin (tests/data/sass_probe.cu)", tail(p.stderr + q.stdout + q.stderr))


def main():
    args = sys.argv[1:]
    if args:
        print(__doc__.strip(), file=sys.stdout if args in (["-h"], ["--help"]) else sys.stderr)
        return 0 if args in (["-h"], ["--help"]) else 2
    have_gpu, why = gpu_present()
    gpu_only = os.environ.get("GPU_ONLY") == "1"
    if not gpu_only:
        selftests()
        readme_tables()
        docs_checks()
        tool_tests()
        autotune_rules()
        flags_lookup_tests(have_gpu)
    cli_tests(have_gpu)
    if not gpu_only:
        make_usage_tests()
        shape_set_tests()
        results_file_tests()
        figure_tests()
    plan_tests()
    lesson_bounds()
    if not gpu_only:
        static_checks()
    if have_gpu:
        if not shutil.which("compute-sanitizer"):
            record(False, "compute-sanitizer is on PATH", "not found")
        gpu_tests()
    else:
        print(f"== GPU tests: skipped ({why}); they are not counted as passed", flush=True)
        results["skipped"] += 1
    skipped = f" ({results['skipped']} skipped)" if results["skipped"] else ""
    print(f"{results['passed']} passed, {results['failed']} failed{skipped}")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
