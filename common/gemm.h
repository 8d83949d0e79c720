/*
 * gemm.h: the one header a step includes.
 *
 * A step's gemm.cu defines a launch function and hands it to the harness:
 *
 *     int main(int argc, char **argv) {
 *         static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm, CONFIG,
 *                                        (const void *)gemm_kernel};
 *         return gemm_main(argc, argv, &step);
 *     }
 *
 * The harness (common/harness.c) parses the command line, makes seeded
 * inputs, runs and verifies the launch function against a float64 CPU
 * reference, times it with CUDA events and prints the result. Plain C, so it
 * is shared by every step unchanged.
 */
#ifndef GEMM_H
#define GEMM_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of A and B. C, alpha and beta are always float. */
typedef enum {
    GEMM_F32 = 1,  /* FP32 steps (01-08): FFMA on the CUDA cores */
    GEMM_F16 = 2,  /* tensor-core steps: IEEE half inputs, FP32 accumulation */
    GEMM_BF16 = 4  /* tensor-core steps: bfloat16 inputs, FP32 accumulation */
} gemm_dtype;

/* The linear layer's options (--layout, --out, --epilogue), as bit flags so that a step can list
 * the ones it takes (gemm_step.layouts, .outs, .epilogues; 0: the first of each only). */
typedef enum {
    GEMM_NN = 1, /* A row-major (M x K), B row-major (K x N): every step */
    GEMM_NT = 2, /* B column-major: stored N x K, K-major (x W^T, nn.Linear's weights) */
    GEMM_TN = 4, /* A column-major: stored K x M */
    GEMM_TT = 8
} gemm_layout;
typedef enum { GEMM_OUT_F32 = 1, GEMM_OUT_BF16 = 2, GEMM_OUT_F16 = 4 } gemm_out;
typedef enum {
    GEMM_EPI_NONE = 1,
    GEMM_EPI_BIAS = 2,      /* + bias[n], one float per column of C */
    GEMM_EPI_BIAS_GELU = 4, /* then GELU in its tanh form, as cuBLASLt computes it */
    GEMM_EPI_BIAS_SILU = 8  /* then SiLU, x sigmoid(x) */
} gemm_epilogue;

/* One problem: row-major C = alpha * A * B + beta * C (beta == 0: C not read). */
typedef struct {
    int m, n, k;
    float alpha, beta;
    gemm_dtype dtype;
    const void *a; /* m x k, row-major, device pointer */
    const void *b; /* k x n, row-major, device pointer */
    float *c;      /* m x n, row-major, device pointer (16-bit elements with out: see below) */
    /* Set by the launch function: which code path ran (e.g. "float4" or
     * "scalar"), so a shape-dependent choice is never hidden. */
    const char *path;
    /* --path NAME: the path the launch function must take (NULL: its own choice); only for a
     * step that lists its paths in gemm_step.paths. */
    const char *force_path;
    /* Set by the launch function of a step that chooses by shape: the instantiation it launched,
     * as key=value words ("tile=128x256 wg=2 swap=0 cluster=1 splits=1"), so that a test can
     * assert the kernel that ran and not only the name of its path. */
    char kernel[128];
    /* The linear layer, for a step that takes --layout, --out or --epilogue (the others see NN,
     * FP32 and none). GEMM_NT: b is stored n x k (row n of it is column n of B), GEMM_TN: a is
     * stored k x m. With out other than GEMM_OUT_F32, c holds 16-bit elements of that type and
     * beta is 0. bias: n elements of C's type (NULL without an epilogue). */
    gemm_layout layout;
    gemm_out out;
    gemm_epilogue epilogue;
    const void *bias;
} gemm_args;

/* Enqueues the kernel(s) on the default stream; returns cudaGetLastError(). */
typedef cudaError_t (*gemm_launch_fn)(gemm_args *args);

typedef struct {
    const char *name;      /* the step's directory, e.g. "05_2d_blocktile" */
    unsigned dtypes;       /* GEMM_F32, or GEMM_F16 | GEMM_BF16 */
    gemm_launch_fn launch;
    const char *config;    /* the compiled configuration (tile sizes), printed with every run */
    /* The step's main kernel. Its attributes say which architecture its code was compiled
     * for, so a binary whose kernel lacks the step's instructions is never launched. */
    const void *kernel;
    /* Compute capabilities whose instructions the kernels use, as 10 * major + minor:
     * min_cc 80 = sm_80 or newer; max_cc 90 = nothing newer than Hopper (0: no limit).
     * `needs` says which instructions and which GPUs have them. */
    int min_cc, max_cc;
    const char *needs;
    /* The code paths --path can force, space-separated (NULL: the step has one choice). */
    const char *paths;
    /* A step that chooses by shape: what its launch function would launch for args on a GPU of
     * `sms` SMs, host code only (no GPU needed: --plan). Sets args->path and args->kernel as the
     * launch does and returns 0; or returns 1 with a one-line reason in args->kernel (a forced
     * path that cannot run on the shape). NULL: the step has one choice. */
    int (*plan)(gemm_args *args, int sms);
    /* The linear layer's options the step takes (gemm_layout, gemm_out, gemm_epilogue flags); 0:
     * NN, FP32 out, no epilogue only. A step refuses the others in one line. */
    unsigned layouts, outs, epilogues;
} gemm_step;

/* What a step exits with on a GPU (or a build) that lacks its instructions: a skip. */
#define GEMM_EXIT_NEEDS_ARCH 3

/* Runs the whole program; returns the exit code (0 ok, 1 failure, 2 usage). */
int gemm_main(int argc, char **argv, const gemm_step *step);

#ifdef __CUDACC__ /* constexpr: a kernel's compile-time counts may use it too */
#define GEMM_HOST_DEVICE constexpr __host__ __device__
#else
#define GEMM_HOST_DEVICE
#endif

static inline GEMM_HOST_DEVICE int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* GEMM_STR(BM) is "128" when BM is 128: tile parameters given as -D flags, into CONFIG. */
#define GEMM_STR_(x) #x
#define GEMM_STR(x) GEMM_STR_(x)

/* The Makefile passes the step's directory name, so that every step's main()
 * is the same three lines. */
#ifndef STEP_NAME
#define STEP_NAME "gemm"
#endif

#ifdef __cplusplus
}
#endif

#endif /* GEMM_H */
