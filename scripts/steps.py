"""What the scripts share: what a step directory holds, and how a results file reads."""
import csv
import os

# What a step that needs another GPU architecture exits with (the Hopper steps on other GPUs);
# make test and make bench report it as a skip.
EXIT_NEEDS_ARCH = 3

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
