"""What the scripts share: what a step directory holds, and how a results file reads."""
import csv
import os
import re

# What a step that needs another GPU architecture exits with (the Hopper steps on other GPUs);
# make test and make bench report it as a skip.
EXIT_NEEDS_ARCH = 3

# What each architecture allows (the CUDA C++ Programming Guide's technical specifications per
# compute capability): opt-in shared memory per block in KB, resident threads per SM. Registers
# are 65536 per SM and 255 per thread on all of them. make test checks every step against this
# table; the Makefile uses a flags file only if it fits; the autotuner asks the GPU itself.
ARCH_LIMITS = {"sm_75": (64, 1024), "sm_80": (163, 2048), "sm_86": (99, 1536), "sm_89": (99, 1536),
               "sm_90": (227, 2048), "sm_100": (227, 2048), "sm_120": (99, 1536)}


def arch_row(arch):
    """The row of ARCH_LIMITS that an architecture (sm_90a, sm_87, ...) takes, and whether it is a
    stand-in: its own, else the nearest lower one of its major version (sm_87: sm_86, sm_121:
    sm_120), else the nearest lower one (sm_110: sm_100). ValueError names a malformed ARCH."""
    m = re.fullmatch(r"sm_(\d{2,3})[af]?", arch)
    if not m:
        raise ValueError(f"ARCH={arch} is not an architecture: write sm_75, sm_80, sm_90a, ... or portable")
    cc = int(m.group(1))
    known = sorted(int(a[3:]) for a in ARCH_LIMITS)
    lower = [k for k in known if k <= cc]
    if not lower:
        raise ValueError(f"ARCH={arch} is older than sm_75, the oldest architecture the course builds for")
    same_major = [k for k in lower if k // 10 == cc // 10]
    row = (same_major or lower)[-1]
    return f"sm_{row}", row != cc


def arch_limits(arch, min_cc=0):
    """(shared memory per block in bytes, threads per SM) of an architecture (sm_90a = sm_90). A
    portable build (no GPU at build time) runs on every architecture from min_cc on (a step's
    __CUDA_ARCH__ guard; below it the step refuses to run), so it must fit the smallest of them."""
    if arch == "portable":
        rows = [v for a, v in ARCH_LIMITS.items() if int(a[3:]) * 10 >= min_cc]
        smem_kb, threads = min(r[0] for r in rows), min(r[1] for r in rows)
    else:
        smem_kb, threads = ARCH_LIMITS[arch_row(arch)[0]]
    return smem_kb * 1024, threads


def min_cc(root, step):
    """The compute capability (x 100, as __CUDA_ARCH__ writes it) a step's kernels need: its '__CUDA_ARCH__ >= 800' guard, or 0.
    (A choice made for some architectures only is written otherwise, as 05's '/ 100 == 12'.)"""
    m = re.search(r"__CUDA_ARCH__ >= (\d+)", open(os.path.join(root, step, "gemm.cu")).read())
    return int(m.group(1)) if m else 0


# make bench's default shape, where the curriculum's targets are set.
MAIN_SHAPE = ("4096", "4096", "4096")


def at_main_shape(row):
    return (row["m"], row["n"], row["k"]) == MAIN_SHAPE


def read_results(path):
    """The rows of a results CSV; rows written before the run column existed came from make bench."""
    with open(path, newline="") as f:
        return [dict(r, run=r.get("run") or "bench") for r in csv.DictReader(f)]


def step_dtypes(root, step):
    """fp32 steps, or the tensor-core steps that take --dtype fp16|bf16."""
    src = open(os.path.join(root, step, "gemm.cu")).read()
    return ["fp16", "bf16"] if "GEMM_F16 | GEMM_BF16" in src else ["fp32"]


def builds_on(root, step):
    """The step a step's gemm.cu says it starts again from ("BUILDS_ON: 20_unaligned"), or None
    (also for a step that is not in the tree)."""
    path = os.path.join(root, step, "gemm.cu")
    m = os.path.isfile(path) and re.search(r"BUILDS_ON: *(\d\d_[a-z0-9_]+)", open(path).read())
    return m.group(1) if m else None


def library_step(root):
    """The step `make shapes` measures and the READMEs call the library step: the Makefile's
    LIBRARY_STEP, or None where the Makefile names none."""
    path = os.path.join(root, "Makefile")
    m = os.path.isfile(path) and re.search(r"^LIBRARY_STEP\s*[:?]?=\s*(\S+)", open(path).read(), re.M)
    return m.group(1) if m else None


if __name__ == "__main__":  # the Makefile's check of ARCH: nothing for a good one, else the reason
    import sys
    try:
        if sys.argv[1:] != ["portable"]:
            arch_row(sys.argv[1] if len(sys.argv) == 2 else "")
    except ValueError as e:
        print(e)
