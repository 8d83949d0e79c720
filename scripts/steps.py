"""What the scripts need to know about a step directory."""
import os


def step_dtypes(root, step):
    """fp32 steps, or the tensor-core steps that take --dtype fp16|bf16."""
    src = open(os.path.join(root, step, "gemm.cu")).read()
    return ["fp16", "bf16"] if "GEMM_F16 | GEMM_BF16" in src else ["fp32"]
