/* harness.c: what gemm_main does for every step: inputs, one verified run,
 * timed runs beside cuBLAS, and the report. See gemm.h and gemm_usage(). */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "host.h"

#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "error: CUDA: %s (%s at %s:%d)\n", cudaGetErrorString(e_), #call,  \
                    __FILE__, __LINE__);                                                       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* cuBLAS and cuBLASLt calls alike (one status type) */
#define CUBLAS_OK(call)                                                                        \
    do {                                                                                       \
        cublasStatus_t s_ = (call);                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "error: cuBLAS: %s (%s at %s:%d)\n", cublasGetStatusString(s_),    \
                    #call, __FILE__, __LINE__);                                                \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* baseline.cu: the activation over C in place, as a kernel after cuBLASLt's bias GEMM */
cudaError_t gemm_activation_kernel(void *c, size_t count, gemm_out out, gemm_epilogue epilogue);

/* A plan is made before the buffers exist; cudaMalloc's are aligned to 256 bytes, as this is. */
#define ALIGNED_PTR ((float *)256)

/* Everything one shape needs on the device. */
typedef struct {
    gemm_args args;
    const gemm_step *step;
    cublasHandle_t cublas;
    size_t c_bytes;       /* C in its type (FP32, or 16-bit with --out) */
    float *c_in;          /* device copy of C_in, restored before each timed run (beta != 0) */
    void *flush;          /* written between timed runs so that no run finds its inputs in L2 */
    size_t flush_bytes;
    /* The linear layer's baseline (--layout, --out or --epilogue given): cuBLASLt's matmul with
     * the same layouts, C's type and the epilogue fused where cuBLASLt has it. */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t lt_op;
    cublasLtMatrixLayout_t lt_a, lt_b, lt_c;
    cublasLtMatmulAlgo_t lt_algo;
    void *lt_workspace;
    int unfused; /* --unfused */
} device_problem;

enum { LT_WORKSPACE_BYTES = 32 << 20 };

static int is_linear(const gemm_options *o) {
    return o->layout != GEMM_NN || o->out != GEMM_OUT_F32 || o->epilogue != GEMM_EPI_NONE;
}

static cudaDataType_t out_type(gemm_out out) {
    return out == GEMM_OUT_BF16 ? CUDA_R_16BF : out == GEMM_OUT_F16 ? CUDA_R_16F : CUDA_R_32F;
}

/* cuBLASLt is column-major: the row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T,
 * so B is cuBLASLt's first operand, and m and n swap. B stored k x n (NN) is, column-major, the
 * n x k matrix it needs (OP_N); stored n x k (NT), it is k x n and needs OP_T. Likewise A: stored
 * m x k it is the k x m it needs, stored k x m (TN) it needs OP_T. A bias per column of C is a
 * bias per row of C^T, which is what cuBLASLt's bias epilogues add. SiLU has no cuBLASLt
 * epilogue: bias there, then gemm_activation_kernel (baseline.cu) on C; --unfused does the same
 * for GELU. */
static void lt_setup(device_problem *p, cublasLtHandle_t lt) {
    const gemm_args *a = &p->args;
    const cudaDataType_t in = a->dtype == GEMM_F16 ? CUDA_R_16F : CUDA_R_16BF,
                         out = out_type(a->out);
    const int b_t = (a->layout & (GEMM_NT | GEMM_TT)) != 0, a_t = (a->layout & (GEMM_TN | GEMM_TT)) != 0;
    const cublasOperation_t op_b = b_t ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = a_t ? CUBLAS_OP_T : CUBLAS_OP_N;
    p->lt = lt;
    CUBLAS_OK(cublasLtMatmulDescCreate(&p->lt_op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_OK(cublasLtMatmulDescSetAttribute(p->lt_op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
    CUBLAS_OK(cublasLtMatmulDescSetAttribute(p->lt_op, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a));
    if (a->epilogue != GEMM_EPI_NONE) {
        const cublasLtEpilogue_t e = a->epilogue == GEMM_EPI_BIAS_GELU && !p->unfused
                                         ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
        CUBLAS_OK(cublasLtMatmulDescSetAttribute(p->lt_op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e));
        /* the bias in C's type, cuBLASLt's default for it */
        CUBLAS_OK(cublasLtMatmulDescSetAttribute(p->lt_op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &a->bias,
                                                   sizeof a->bias));
    }
    CUBLAS_OK(cublasLtMatrixLayoutCreate(&p->lt_a, in, b_t ? a->k : a->n, b_t ? a->n : a->k,
                                           b_t ? a->k : a->n));
    CUBLAS_OK(cublasLtMatrixLayoutCreate(&p->lt_b, in, a_t ? a->m : a->k, a_t ? a->k : a->m,
                                           a_t ? a->m : a->k));
    CUBLAS_OK(cublasLtMatrixLayoutCreate(&p->lt_c, out, a->n, a->m, a->n));
    cublasLtMatmulPreference_t pref;
    const size_t ws = LT_WORKSPACE_BYTES;
    CUBLAS_OK(cublasLtMatmulPreferenceCreate(&pref));
    CUBLAS_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                     sizeof ws));
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    CUBLAS_OK(cublasLtMatmulAlgoGetHeuristic(lt, p->lt_op, p->lt_a, p->lt_b, p->lt_c, p->lt_c, pref, 1,
                                               &best, &found));
    CUBLAS_OK(cublasLtMatmulPreferenceDestroy(pref));
    if (!found) {
        fprintf(stderr, "error: cuBLASLt has no algorithm for %dx%dx%d with these options\n", a->m,
                a->n, a->k);
        exit(1);
    }
    p->lt_algo = best.algo;
    CUDA_OK(cudaMalloc(&p->lt_workspace, ws));
}

static void lt_teardown(device_problem *p) {
    if (!p->lt_op) return;
    cublasLtMatrixLayoutDestroy(p->lt_a);
    cublasLtMatrixLayoutDestroy(p->lt_b);
    cublasLtMatrixLayoutDestroy(p->lt_c);
    cublasLtMatmulDescDestroy(p->lt_op);
    CUDA_OK(cudaFree(p->lt_workspace));
}

static void run_lt(device_problem *p) {
    const gemm_args *a = &p->args;
    CUBLAS_OK(cublasLtMatmul(p->lt, p->lt_op, &a->alpha, a->b, p->lt_a, a->a, p->lt_b, &a->beta, a->c,
                               p->lt_c, a->c, p->lt_c, &p->lt_algo, p->lt_workspace, LT_WORKSPACE_BYTES,
                               0));
    if (a->epilogue == GEMM_EPI_BIAS_SILU || (a->epilogue == GEMM_EPI_BIAS_GELU && p->unfused))
        CUDA_OK(gemm_activation_kernel(a->c, (size_t)a->m * a->n, a->out, a->epilogue));
}

typedef struct {
    double median, min, max; /* milliseconds */
    int reps;
} timing;

static double seconds_since(double t0) { return omp_get_wtime() - t0; }

static void run_step(device_problem *p) {
    cudaError_t e = p->step->launch(&p->args);
    if (e != cudaSuccess) {
        fprintf(stderr, "error: CUDA: %s (launching %s)\n", cudaGetErrorString(e), p->step->name);
        exit(1);
    }
}

static void run_cublas(device_problem *p) {
    const gemm_args *a = &p->args;
    if (p->lt_op) {
        run_lt(p);
        return;
    }
    /* cuBLAS is column-major: a row-major C = A B is the column-major
     * C^T = B^T A^T, so pass B first and swap m and n. */
    if (a->dtype == GEMM_F32) {
        CUBLAS_OK(cublasSgemm(p->cublas, CUBLAS_OP_N, CUBLAS_OP_N, a->n, a->m, a->k, &a->alpha,
                              (const float *)a->b, a->n, (const float *)a->a, a->k, &a->beta, a->c, a->n));
    } else {
        const cudaDataType_t t = a->dtype == GEMM_F16 ? CUDA_R_16F : CUDA_R_16BF;
        CUBLAS_OK(cublasGemmEx(p->cublas, CUBLAS_OP_N, CUBLAS_OP_N, a->n, a->m, a->k, &a->alpha, a->b, t,
                               a->n, a->a, t, a->k, &a->beta, a->c, CUDA_R_32F, a->n, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
    }
}

/* Puts C back to its input (or to NaN when beta == 0, so unwritten elements
 * show) and evicts A, B and C from L2. */
static void prepare_run(device_problem *p, int rep) {
    if (p->args.beta != 0.0f)
        CUDA_OK(cudaMemcpyAsync(p->args.c, p->c_in, p->c_bytes, cudaMemcpyDeviceToDevice, 0));
    if (p->flush) CUDA_OK(cudaMemsetAsync(p->flush, rep & 0xff, p->flush_bytes, 0));
}

static int compare_floats(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

static timing time_runs(device_problem *p, void (*run)(device_problem *), const gemm_options *o) {
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    float ms = 0.0f;
    for (int w = 0; w < o->warmup; w++) {
        prepare_run(p, w);
        CUDA_OK(cudaEventRecord(start, 0));
        run(p);
        CUDA_OK(cudaEventRecord(stop, 0));
    }
    CUDA_OK(cudaDeviceSynchronize());
    int reps = o->reps;
    if (reps < 0) { /* enough for ~0.4 s of timed runs, at least 5 */
        if (o->warmup == 0) {
            prepare_run(p, 0);
            CUDA_OK(cudaEventRecord(start, 0));
            run(p);
            CUDA_OK(cudaEventRecord(stop, 0));
            CUDA_OK(cudaEventSynchronize(stop));
        }
        CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
        reps = ms > 0.0f ? (int)(400.0f / ms) : 100;
        reps = reps < 5 ? 5 : reps > 100 ? 100 : reps;
    }
    float *times = malloc((size_t)reps * sizeof *times);
    if (!times) { fprintf(stderr, "error: out of host memory\n"); exit(1); }
    for (int r = 0; r < reps; r++) {
        prepare_run(p, r);
        CUDA_OK(cudaEventRecord(start, 0));
        run(p);
        CUDA_OK(cudaEventRecord(stop, 0));
        CUDA_OK(cudaEventSynchronize(stop));
        CUDA_OK(cudaEventElapsedTime(&times[r], start, stop));
    }
    qsort(times, (size_t)reps, sizeof *times, compare_floats);
    timing t = {reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]), times[0],
                times[reps - 1], reps};
    free(times);
    CUDA_OK(cudaEventDestroy(start));
    CUDA_OK(cudaEventDestroy(stop));
    return t;
}

static double gflops(const gemm_args *a, double ms) {
    return ms > 0.0 ? 2.0 * a->m * a->n * (double)a->k / (ms * 1e-3) / 1e9 : 0.0;
}

/* One correctness run: C poisoned (beta == 0) or C_in, then the output back on the host, as
 * floats (a 16-bit C widened exactly). */
static void run_once(device_problem *p, void (*run)(device_problem *), float *c_out) {
    /* all-ones bits: NaN in FP32, FP16 and BF16 alike */
    if (p->args.beta == 0.0f) CUDA_OK(cudaMemset(p->args.c, 0xff, p->c_bytes));
    prepare_run(p, 0);
    run(p);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(c_out, p->args.c, p->c_bytes, cudaMemcpyDeviceToHost));
    if (p->args.out == GEMM_OUT_F32) return;
    const size_t count = (size_t)p->args.m * p->args.n;
    const uint16_t *h = (const uint16_t *)c_out; /* the first half of c_out; widen from the end */
    for (size_t i = count; i-- > 0;)
        c_out[i] = p->args.out == GEMM_OUT_F16 ? gemm_half_to_float(h[i]) : gemm_bf16_to_float(h[i]);
}

static void *host_alloc(size_t bytes, const char *prog, unsigned dtypes, const int *shape) {
    void *x = malloc(bytes ? bytes : 1);
    if (!x) {
        fprintf(stderr, "%s: shape %dx%dx%d does not fit in host memory (%.1f GiB more needed)\n", prog,
                shape[0], shape[1], shape[2], bytes / 1073741824.0);
        gemm_usage(stderr, prog, dtypes);
        exit(2);
    }
    return x;
}

/* make test's hook for the paths that take a B that is not 16-byte aligned: GEMM_TEST_B_OFFSET=E
 * stores B E elements (0-7) past its allocation's aligned start. */
static size_t test_b_offset(void) {
    const char *v = getenv("GEMM_TEST_B_OFFSET");
    if (!v || !*v) return 0;
    if (strlen(v) != 1 || v[0] < '0' || v[0] > '7') {
        fprintf(stderr, "error: GEMM_TEST_B_OFFSET=%s: expected a number of elements, 0 to 7\n", v);
        exit(2);
    }
    static int told = 0;
    if (v[0] != '0' && !told++) /* never silent: a run with it is not a measurement of the step */
        fprintf(stderr, "note: GEMM_TEST_B_OFFSET=%s: B starts %s element(s) past an aligned address\n",
                v, v);
    return (size_t)(v[0] - '0');
}

/* Copies a rows x cols row-major float matrix to the device in the type t, stored transposed
 * (cols x rows) if asked: the column-major operands of --layout. It starts `offset` elements past
 * the allocation's (256-byte aligned) start. */
static void *upload_matrix(const float *x, size_t rows, size_t cols, int transposed, gemm_dtype t,
                           size_t offset) {
    const size_t count = rows * cols, esize = t == GEMM_F32 ? 4 : 2;
    void *d = NULL, *h = malloc(count > 0 ? count * esize : 1);
    if (!h) { fprintf(stderr, "error: out of host memory\n"); exit(1); }
    CUDA_OK(cudaMalloc(&d, (count + offset) * esize));
    /* the elements before the matrix are NaN in 16-bit types: a kernel that reads them fails */
    CUDA_OK(cudaMemset(d, 0xFF, offset * esize));
    d = (char *)d + offset * esize;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)count; i++) {
        /* element i of the stored matrix: (r, c) of x, or (c, r) stored transposed */
        const size_t src = transposed ? (size_t)i % rows * cols + (size_t)i / rows : (size_t)i;
        if (t == GEMM_F32)
            ((float *)h)[i] = x[src];
        else
            ((uint16_t *)h)[i] = t == GEMM_F16 ? gemm_float_to_half(x[src]) : gemm_float_to_bf16(x[src]);
    }
    CUDA_OK(cudaMemcpy(d, h, count * esize, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

static int save_matrix(const char *dir, const char *name, const float *x, int rows, int cols) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (gemm_write_npy(path, x, rows, cols) == 0) return 0;
    fprintf(stderr, "error: cannot write %s: %s\n", path, strerror(errno));
    return -1;
}

static const char csv_header[] =
    "step,dtype,m,n,k,path,kernel,alpha,beta,reps,ms,gflops,gflops_min,gflops_max,cublas_ms,cublas_gflops,"
    "ratio,check,ref_s,config\n";

/* Runs one shape; returns 0 ok, 1 verification failure. */
static int run_shape(const gemm_step *step, const gemm_options *o, const int *shape, const char *prog,
                     const struct cudaDeviceProp *prop, const char *code, cublasHandle_t *cublas,
                     cublasLtHandle_t *lt) {
    const int m = shape[0], n = shape[1], k = shape[2];
    const gemm_dtype t = o->dtype;
    const size_t esize = t == GEMM_F32 ? 4 : 2;
    const size_t a_count = (size_t)m * k, b_count = (size_t)k * n, c_count = (size_t)m * n;
    const size_t c_esize = o->out == GEMM_OUT_F32 ? 4 : 2;
    const int timed = o->reps != 0;
    const int a_t = (o->layout & (GEMM_TN | GEMM_TT)) != 0, b_t = (o->layout & (GEMM_NT | GEMM_TT)) != 0;
    const size_t b_offset = test_b_offset();
    if (b_offset && is_linear(o)) { /* cuBLASLt's baseline is set up for aligned operands */
        fprintf(stderr, "%s: GEMM_TEST_B_OFFSET takes no --layout, --out or --epilogue\n", prog);
        return 2;
    }

    /* A step that chooses by shape plans first: a forced path that cannot run on this shape is a
     * usage error, and what the launch reports below must be this plan. */
    gemm_args planned = {m, n, k, o->alpha, o->beta, t, ALIGNED_PTR,
                         (const char *)ALIGNED_PTR + b_offset * esize, ALIGNED_PTR, "default",
                         o->path, "", o->layout, o->out, o->epilogue,
                         o->epilogue != GEMM_EPI_NONE ? ALIGNED_PTR : NULL};
    if (step->plan && step->plan(&planned, prop->multiProcessorCount)) {
        if (o->path)
            fprintf(stderr, "%s: --path %s cannot run %dx%dx%d: %s\n", prog, o->path, m, n, k,
                    planned.kernel);
        else /* the linear layer's options: an output type the step does not write */
            fprintf(stderr, "%s: cannot run %dx%dx%d with these options: %s\n", prog, m, n, k,
                    planned.kernel);
        return 2;
    }

    /* Device memory first: a shape that cannot fit is a usage error. */
    size_t flush_bytes = timed ? 2 * (size_t)prop->l2CacheSize : 0;
    size_t need = (a_count + b_count) * esize + c_count * c_esize * (o->beta != 0.0f ? 2 : 1) +
                  flush_bytes + (is_linear(o) && o->cublas ? LT_WORKSPACE_BYTES : 0);
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes / 100 * 95) {
        fprintf(stderr, "%s: shape %dx%dx%d needs %.1f GiB of device memory; %.1f GiB are free\n", prog, m,
                n, k, need / 1073741824.0, free_bytes / 1073741824.0);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }

    float *a = host_alloc(a_count * 4, prog, step->dtypes, shape);
    float *b = host_alloc(b_count * 4, prog, step->dtypes, shape);
    float *c_in = host_alloc(c_count * 4, prog, step->dtypes, shape);
    float *c_out = host_alloc(c_count * 4, prog, step->dtypes, shape);
    /* the bias, exactly representable in C's type, in which it is stored */
    const gemm_dtype bias_t = o->out == GEMM_OUT_BF16 ? GEMM_BF16 : o->out == GEMM_OUT_F16 ? GEMM_F16
                                                                                         : GEMM_F32;
    float *bias = o->epilogue != GEMM_EPI_NONE ? host_alloc((size_t)n * 4, prog, step->dtypes, shape)
                                               : NULL;
    gemm_fill_random(a, a_count, o->seed * 3 + 0, t);
    gemm_fill_random(b, b_count, o->seed * 3 + 1, t);
    gemm_fill_random(c_in, c_count, o->seed * 3 + 2, GEMM_F32);
    if (bias) gemm_fill_random(bias, (size_t)n, o->seed * 3 + 3, bias_t);

    device_problem p = {.step = step, .c_bytes = c_count * c_esize, .unfused = o->unfused};
    p.args = (gemm_args){m, n, k, o->alpha, o->beta, t, NULL, NULL, NULL, "default", o->path, "",
                         o->layout, o->out, o->epilogue, NULL};
    p.args.a = upload_matrix(a, m, k, a_t, t, 0);
    p.args.b = upload_matrix(b, k, n, b_t, t, b_offset);
    if (bias) p.args.bias = upload_matrix(bias, 1, n, 0, bias_t, 0);
    CUDA_OK(cudaMalloc((void **)&p.args.c, p.c_bytes));
    if (o->beta != 0.0f) { /* FP32 C only (a 16-bit C takes beta 0) */
        CUDA_OK(cudaMalloc((void **)&p.c_in, c_count * 4));
        CUDA_OK(cudaMemcpy(p.c_in, c_in, c_count * 4, cudaMemcpyHostToDevice));
    }
    if (flush_bytes) {
        CUDA_OK(cudaMalloc(&p.flush, flush_bytes));
        p.flush_bytes = flush_bytes;
    }
    if (o->cublas) {
        if (!*cublas) {
            CUBLAS_OK(cublasCreate(cublas));
            CUBLAS_OK(cublasSetMathMode(*cublas, CUBLAS_DEFAULT_MATH)); /* FP32 steps: no TF32 */
            /* make test plants a TF32 baseline, which the RMS check must catch */
            if (getenv("GEMM_TEST_CUBLAS_TF32"))
                CUBLAS_OK(cublasSetMathMode(*cublas, CUBLAS_TF32_TENSOR_OP_MATH));
        }
        p.cublas = *cublas;
        if (is_linear(o)) {
            if (!*lt) CUBLAS_OK(cublasLtCreate(lt));
            lt_setup(&p, *lt);
        }
    }

    int status = 0;
    const char *check = "off";
    gemm_verdict verdict = {0, 0, 0.0};
    double ref_seconds = 0.0;
    if (o->check || o->save_dir) run_once(&p, run_step, c_out);
    if (o->check) {
        double *ref = host_alloc(c_count * sizeof(double), prog, step->dtypes, shape);
        double *mag = host_alloc(c_count * sizeof(double), prog, step->dtypes, shape);
        double t0 = omp_get_wtime();
        gemm_reference(m, n, k, o->alpha, a, b, o->beta, c_in, ref, mag);
        gemm_apply_epilogue(m, n, bias, o->epilogue, ref, mag);
        ref_seconds = seconds_since(t0);
        /* k products plus the scaling by alpha and the addition of beta*C; with an epilogue, the
         * bias and the activation's few roundings in float. A 16-bit C adds its own rounding. */
        const long long ops = (long long)k + 2 + (o->epilogue != GEMM_EPI_NONE ? 4 : 0);
        const double factor = gemm_error_factor(ops, gemm_unit_roundoff(t));
        const double out_u = gemm_out_roundoff(o->out);
        verdict = gemm_verify_rounded(m, n, c_out, ref, mag, factor, out_u, NULL, 0);
        /* A product far above FP32 accumulation's error (reduced-precision inputs such as TF32)
         * can stay inside the per-element bound: its RMS error must also stay near u. A 16-bit C's
         * own rounding is far larger than that limit: there the check does not apply. */
        const double rms_limit = gemm_rms_limit_for((long long)m * n, k, gemm_unit_roundoff(t));
        const double rms = o->out == GEMM_OUT_F32 ? gemm_rms_error(m, n, c_out, ref, mag) : 0.0;
        if (!verdict.failed && rms > rms_limit) {
            fprintf(stderr, "FAIL %s %s %dx%dx%d: RMS error %.3g u above the FP32-accumulation limit "
                    "%.3g u (reduced-precision inputs?)\n", step->name, gemm_dtype_name(t), m, n, k,
                    rms / gemm_unit_roundoff(t), rms_limit / gemm_unit_roundoff(t));
            status = 1;
        }
        check = verdict.failed || rms > rms_limit ? "FAIL" : "pass";
        if (verdict.failed) {
            fprintf(stderr, "FAIL %s %s %dx%dx%d alpha=%g beta=%g path=%s: %lld of %zu elements wrong (%lld NaN/Inf)\n",
                    step->name, gemm_dtype_name(t), m, n, k, o->alpha, o->beta, p.args.path, verdict.failed,
                    c_count, verdict.nonfinite);
            gemm_verify_rounded(m, n, c_out, ref, mag, factor, out_u, stderr, 5);
            status = 1;
        }
        if (o->cublas) { /* the same check on cuBLAS guards the harness itself (layout, reference) */
            float *c_blas = host_alloc(c_count * 4, prog, step->dtypes, shape);
            run_once(&p, run_cublas, c_blas);
            /* cuBLASLt's bias epilogue with a 16-bit C behaves as if it rounds the product to C's
             * type before it adds the bias (inferred: at 33x7x129 in bf16 its failures are exactly
             * those of that double rounding): its bound allows the second rounding, out_u * mag. */
            const double blas_factor = factor + (o->epilogue != GEMM_EPI_NONE ? out_u : 0.0);
            gemm_verdict vb = gemm_verify_rounded(m, n, c_blas, ref, mag, blas_factor, out_u, stderr, 3);
            if (!vb.failed && o->out == GEMM_OUT_F32 &&
                gemm_rms_error(m, n, c_blas, ref, mag) > rms_limit)
                vb.failed = 1; /* e.g. a baseline in TF32 math mode */
            if (vb.failed) {
                fprintf(stderr, "FAIL cuBLAS itself fails the check on %dx%dx%d: %lld elements\n", m, n, k,
                        vb.failed);
                status = 1;
            }
            free(c_blas);
        }
        free(ref);
        free(mag);
    }
    if (o->save_dir) { /* the directory was checked while parsing */
        if (save_matrix(o->save_dir, "A", a, m, k) || save_matrix(o->save_dir, "B", b, k, n) ||
            save_matrix(o->save_dir, "C_in", c_in, m, n) ||
            save_matrix(o->save_dir, "C_out", c_out, m, n))
            status = 1;
    }

    timing tk = {0, 0, 0, 0}, tb = {0, 0, 0, 0};
    if (timed) {
        tk = time_runs(&p, run_step, o);
        if (o->cublas) tb = time_runs(&p, run_cublas, o);
    }
    const double ratio = tb.median > 0.0 && tk.median > 0.0 ? tb.median / tk.median : 0.0;
    const int launched = p.args.kernel[0] != '\0'; /* --reps 0 --no-check launches nothing */
    if (step->plan && launched &&
        (strcmp(p.args.kernel, planned.kernel) || strcmp(p.args.path, planned.path))) {
        fprintf(stderr, "FAIL %s %dx%dx%d: launched %s (%s), but the plan is %s (%s)\n", step->name,
                m, n, k, p.args.path, p.args.kernel, planned.path, planned.kernel);
        status = 1;
    }

    if (o->csv) {
        printf("%s,%s,%d,%d,%d,%s,%s,%g,%g,%d,%.6f,%.1f,%.1f,%.1f,%.6f,%.1f,%.4f,%s,%.2f,\"%s\"\n", step->name,
               gemm_dtype_name(t), m, n, k, p.args.path, p.args.kernel, o->alpha, o->beta, tk.reps,
               tk.median,
               gflops(&p.args, tk.median), gflops(&p.args, tk.max), gflops(&p.args, tk.min), tb.median,
               gflops(&p.args, tb.median), ratio, check, ref_seconds, step->config);
    } else {
        printf("%s  %s  M=%d N=%d K=%d  alpha=%g beta=%g  path=%s  (%s)\n", step->name, gemm_dtype_name(t),
               m, n, k, o->alpha, o->beta, p.args.path, prop->name);
        if (is_linear(o)) printf("  linear  %s\n", gemm_linear_name(o->layout, o->out, o->epilogue));
        if (step->plan) printf("  kernel  %s\n", p.args.kernel);
        printf("  config  %s; kernel code %s\n", step->config, code);
        if (timed)
            printf("  kernel  %9.3f ms median of %d (min %.3f, max %.3f)  %10.1f GFLOPS (%.1f .. %.1f)\n",
                   tk.median, tk.reps, tk.min, tk.max, gflops(&p.args, tk.median), gflops(&p.args, tk.max),
                   gflops(&p.args, tk.min));
        if (timed && o->cublas)
            printf("  cuBLAS  %9.3f ms median of %d (min %.3f, max %.3f)  %10.1f GFLOPS  -> step = %.1f%% of cuBLAS\n",
                   tb.median, tb.reps, tb.min, tb.max, gflops(&p.args, tb.median), 100.0 * ratio);
        if (o->check)
            printf("  check   %s: %lld of %zu elements outside the bound (worst |err|/bound %.3g); reference %.2f s\n",
                   check, verdict.failed, c_count, verdict.worst_ratio, ref_seconds);
    }
    fflush(stdout);

    CUDA_OK(cudaFree((void *)p.args.a));
    CUDA_OK(cudaFree((char *)p.args.b - b_offset * esize));
    CUDA_OK(cudaFree(p.args.c));
    CUDA_OK(cudaFree(p.c_in));
    CUDA_OK(cudaFree(p.flush));
    CUDA_OK(cudaFree((void *)p.args.bias));
    lt_teardown(&p);
    free(bias);
    free(a);
    free(b);
    free(c_in);
    free(c_out);
    return status;
}

/* Whether this GPU, and this binary's code for it, have the step's instructions; 0, or the
 * exit code after a one-line message. `code` receives what the kernel was compiled for. */
static int check_arch(const gemm_step *step, const struct cudaDeviceProp *prop, const char *prog,
                      char *code, size_t codelen) {
    const int cc = 10 * prop->major + prop->minor;
    if ((step->min_cc && cc < step->min_cc) || (step->max_cc && cc > step->max_cc)) {
        fprintf(stderr, "%s: needs %s; this GPU (%s) is sm_%d\n", prog, step->needs, prop->name, cc);
        return GEMM_EXIT_NEEDS_ARCH;
    }
    struct cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, step->kernel);
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: this binary has no code this GPU (%s, sm_%d) can run (%s): rebuild it "
                "for this GPU (make clean && make)\n", prog, prop->name, cc, cudaGetErrorString(e));
        return 1;
    }
    /* PTX compiled for an older architecture is JIT-compiled by the driver for this GPU; code
     * guarded by __CUDA_ARCH__ was left out of it, so the kernel would do nothing. */
    if (step->min_cc && attr.ptxVersion < step->min_cc) {
        fprintf(stderr, "%s: needs %s; this binary's kernel was compiled for compute_%d, without "
                "them: rebuild it for this GPU (make clean && make ARCH=sm_%d)\n", prog, step->needs,
                attr.ptxVersion, cc);
        return GEMM_EXIT_NEEDS_ARCH;
    }
    if (attr.binaryVersion == attr.ptxVersion)
        snprintf(code, codelen, "sm_%d", attr.binaryVersion);
    else
        snprintf(code, codelen, "sm_%d, JIT-compiled from compute_%d PTX", attr.binaryVersion,
                 attr.ptxVersion);
    return 0;
}

/* --plan: for each shape, the path and kernel the step would launch on a GPU of o->sms SMs (the
 * H100's and H200's 132 by default), host code only; 2 if a forced path cannot run on a shape. */
static int print_plans(const gemm_step *step, const gemm_options *o) {
    int status = 0;
    const size_t b_offset = test_b_offset() * (o->dtype == GEMM_F32 ? 4 : 2);
    for (int i = 0; i < o->nshapes; i++) {
        const int *s = o->shapes[i];
        gemm_args a = {s[0], s[1], s[2], o->alpha, o->beta, o->dtype, ALIGNED_PTR,
                       (const char *)ALIGNED_PTR + b_offset, ALIGNED_PTR, "default", o->path, "",
                       o->layout, o->out, o->epilogue,
                       o->epilogue != GEMM_EPI_NONE ? ALIGNED_PTR : NULL};
        if (step->plan(&a, o->sms ? o->sms : 132)) {
            printf("%dx%dx%d refused: %s\n", s[0], s[1], s[2], a.kernel);
            status = 2;
        } else {
            printf("%dx%dx%d %s %s\n", s[0], s[1], s[2], a.path, a.kernel);
        }
    }
    return status;
}

/* Whether name is one of the space-separated words of paths. */
static int has_path(const char *paths, const char *name) {
    const size_t len = strlen(name);
    for (const char *w = paths; w && *w;) {
        while (*w == ' ') w++;
        const char *end = strchr(w, ' ');
        const size_t n = end ? (size_t)(end - w) : strlen(w);
        if (n == len && n && !strncmp(w, name, n)) return 1;
        w += n;
    }
    return 0;
}

int gemm_main(int argc, char **argv, const gemm_step *step) {
    const char *prog = argc > 0 ? argv[0] : step->name;
    gemm_options o;
    char err[256];
    if (gemm_parse_args(argc, argv, step->dtypes, &o, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }
    if (o.help) {
        gemm_usage(stdout, prog, step->dtypes);
        if (step->paths) printf("Paths of this step (--path): %s\n", step->paths);
        return 0;
    }
    if (gemm_check_options(&o, step->layouts, step->outs, step->epilogues, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }
    if (o.path && !has_path(step->paths, o.path)) {
        if (step->paths)
            fprintf(stderr, "%s: unknown --path '%s': this step's paths are %s\n", prog, o.path,
                    step->paths);
        else
            fprintf(stderr, "%s: --path: this step has one code path (the steps that choose by shape have several)\n",
                    prog);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }

    if ((o.plan || o.sms) && !step->plan) {
        fprintf(stderr, "%s: --plan/--sms: this step has one kernel; the steps that choose by shape "
                "plan\n", prog);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }
    if (o.sms && !o.plan) {
        fprintf(stderr, "%s: --sms is for --plan (a run uses this GPU's SMs)\n", prog);
        gemm_usage(stderr, prog, step->dtypes);
        return 2;
    }
    if (o.plan) return print_plans(step, &o);

    int devices = 0, runtime = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    cudaRuntimeGetVersion(&runtime);
    if (e == cudaErrorInsufficientDriver) {
        fprintf(stderr, "%s: no CUDA device: the NVIDIA driver is missing or older than this build's "
                "CUDA runtime %d.%d (nvidia-smi shows the driver)\n", prog, runtime / 1000, runtime % 1000 / 10);
        return 1;
    }
    if (e != cudaSuccess || devices == 0) {
        fprintf(stderr, "%s: no CUDA device found (%s)\n", prog,
                e != cudaSuccess ? cudaGetErrorString(e) : "the driver lists none");
        return 1;
    }
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    char code[96];
    int rc = check_arch(step, &prop, prog, code, sizeof code);
    if (rc) return rc;

    if (o.csv) fputs(csv_header, stdout);
    cublasHandle_t cublas = NULL;
    cublasLtHandle_t lt = NULL;
    int status = 0;
    for (int i = 0; i < o.nshapes; i++) {
        rc = run_shape(step, &o, o.shapes[i], prog, &prop, code, &cublas, &lt);
        if (rc == 2) return 2;
        if (rc) status = 1;
    }
    if (cublas) CUBLAS_OK(cublasDestroy(cublas));
    if (lt) CUBLAS_OK(cublasLtDestroy(lt));
    return status;
}
