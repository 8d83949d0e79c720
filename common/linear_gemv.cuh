/*
 * linear_gemv.cuh: step 23's kernel (23_linear_gemv/README.md): the linear layer y = x W^T for at
 * most LINEAR_GEMV_ROWS tokens, on the CUDA cores. Each element of W (N x K, K-major) meets at
 * most 8 FLOPs, so the kernel only has to stream W at DRAM's rate: a warp owns LINEAR_GEMV_COLS
 * rows of W (columns of C) and reads each in contiguous 512-byte steps, a pass of
 * LINEAR_GEMV_UNROLL steps of every row in flight; the block stages the pass's columns of x (M x
 * K, at most 4 rows) in shared memory once for its four warps. The epilogue is
 * linear_epilogue.cuh's, as in the tile kernel.
 */
#ifndef LINEAR_GEMV_CUH
#define LINEAR_GEMV_CUH

#include <stdint.h>

#include "linear_epilogue.cuh"

#define LINEAR_GEMV_ROWS 4    /* tokens the kernel takes: R = 1, 2 or 4 rows of x (README: at 8
                                 * the FMAs and conversions, not DRAM, set its time) */
#define LINEAR_GEMV_COLS 4    /* rows of W per warp: each read of x serves four of them */
#define LINEAR_GEMV_UNROLL 4  /* 16-byte steps along K a lane has in flight for each row of W */
#define LINEAR_GEMV_THREADS 128
#define LINEAR_GEMV_PASS (LINEAR_GEMV_UNROLL * 32 * 8) /* elements of K per pass: 1024 */
static_assert(LINEAR_GEMV_ROWS * LINEAR_GEMV_COLS <= 32,
              "after the warp's sums, lane r * COLS + c finishes C(r, n + c): one value a lane");

/* The kernel's R for M rows of x: a power of two, so that few instantiations cover M <= 4. */
static inline int linear_gemv_rows(int m) { return m <= 1 ? 1 : m <= 2 ? 2 : 4; }

/* Eight 16-bit elements (one 16-byte load) as floats. */
template <typename T> static __device__ __forceinline__ void unpack8_linear(uint4 u, float x[8]) {
    const T *h = reinterpret_cast<const T *>(&u);
#pragma unroll
    for (int e = 0; e < 8; e++) x[e] = static_cast<float>(h[e]);
}

/* C = act(alpha x W^T + beta C + bias) for M <= R rows of x. The warp of global index w owns rows
 * n0 = 4 w .. 4 w + 3 of W; in step u of a pass, lane l reads elements 8 l .. 8 l + 7 of the
 * step's 256, so a warp's load is 512 contiguous bytes of one row (K a multiple of 8, rows on 16
 * bytes). Every warp takes part in the staging and the barriers, also one past N. */
template <typename T, typename OutT, gemm_epilogue EPI, int R>
__global__ void __launch_bounds__(LINEAR_GEMV_THREADS)
    linear_gemv_kernel(int M, int N, int K, float alpha, const T *X, const T *W, float beta,
                       OutT *C, const OutT *bias) {
    constexpr int COLS = LINEAR_GEMV_COLS, U = LINEAR_GEMV_UNROLL, PASS = LINEAR_GEMV_PASS;
    __shared__ uint4 x_pass[R][PASS / 8]; /* the pass's columns of x, as stored: R x 2 KB */
    const int lane = threadIdx.x % 32;
    const int n0 = (blockIdx.x * (LINEAR_GEMV_THREADS / 32) + threadIdx.x / 32) * COLS;
    float acc[R][COLS] = {};
    for (int base = 0; base < K; base += PASS) {
        uint4 w[U][COLS]; /* every load of W first (read once: streaming), then the FMAs */
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int c = 0; c < COLS; c++) {
                const int k = base + u * 256 + 8 * lane;
                const T *row = W + (size_t)(n0 + c) * K;
                w[u][c] = k < K && n0 + c < N ? __ldcs(reinterpret_cast<const uint4 *>(row + k))
                                              : make_uint4(0, 0, 0, 0);
            }
        for (int i = threadIdx.x; i < R * PASS / 8; i += LINEAR_GEMV_THREADS) {
            const int r = i / (PASS / 8), k = base + i % (PASS / 8) * 8;
            x_pass[r][i % (PASS / 8)] =
                r < M && k < K ? __ldg(reinterpret_cast<const uint4 *>(X + (size_t)r * K + k))
                               : make_uint4(0, 0, 0, 0);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < U; u++) {
            float wf[COLS][8];
#pragma unroll
            for (int c = 0; c < COLS; c++) unpack8_linear<T>(w[u][c], wf[c]);
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (r >= M) break;
                float xf[8]; /* a quarter-warp reads 128 contiguous bytes: no bank conflicts */
                unpack8_linear<T>(x_pass[r][u * 32 + lane], xf);
#pragma unroll
                for (int c = 0; c < COLS; c++)
#pragma unroll
                    for (int e = 0; e < 8; e++) acc[r][c] += xf[e] * wf[c][e];
            }
        }
        __syncthreads(); /* everyone has read x_pass before the next pass overwrites it */
    }
    /* Each lane holds a part of every sum (past K, and past N, zeros): add them across the warp,
     * then lane r * COLS + c keeps C(r, n0 + c) and runs the epilogue on it. */
    float v = 0.0f;
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r >= M) break; /* the same for the whole warp */
#pragma unroll
        for (int c = 0; c < COLS; c++) {
            float s = acc[r][c];
#pragma unroll
            for (int d = 16; d > 0; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
            if (lane == r * COLS + c) v = s;
        }
    }
    const int r = lane / COLS, n = n0 + lane % COLS;
    if (r >= M || n >= N) return;
    v *= alpha;
    if constexpr (std::is_same_v<OutT, float>)
        if (beta != 0.0f) v += beta * C[(size_t)r * N + n];
    C[(size_t)r * N + n] =
        static_cast<OutT>(activation_of<EPI, OutT>(bias ? v + static_cast<float>(bias[n]) : v));
}

/* The launch for R rows of x and the epilogue (a template parameter, as in the tile kernel). */
template <typename T, typename OutT, gemm_epilogue EPI>
static cudaError_t launch_linear_gemv_epi(gemm_args *p) {
    const int cols = LINEAR_GEMV_COLS * LINEAR_GEMV_THREADS / 32, blocks = ceil_div(p->n, cols);
    const T *x = (const T *)p->a, *w = (const T *)p->b;
    OutT *c = (OutT *)p->c;
    const OutT *bias = (const OutT *)p->bias;
#define ROWS_CASE(R)                                                                               \
    case R:                                                                                        \
        linear_gemv_kernel<T, OutT, EPI, R><<<blocks, LINEAR_GEMV_THREADS>>>(                      \
            p->m, p->n, p->k, p->alpha, x, w, p->beta, c, bias);                                   \
        break;
    switch (linear_gemv_rows(p->m)) { ROWS_CASE(1) ROWS_CASE(2) ROWS_CASE(4) }
#undef ROWS_CASE
    return cudaGetLastError();
}
template <typename T, typename OutT> static cudaError_t launch_linear_gemv(gemm_args *p) {
    switch (p->epilogue) {
    case GEMM_EPI_BIAS: return launch_linear_gemv_epi<T, OutT, GEMM_EPI_BIAS>(p);
    case GEMM_EPI_BIAS_GELU: return launch_linear_gemv_epi<T, OutT, GEMM_EPI_BIAS_GELU>(p);
    case GEMM_EPI_BIAS_SILU: return launch_linear_gemv_epi<T, OutT, GEMM_EPI_BIAS_SILU>(p);
    default: return launch_linear_gemv_epi<T, OutT, GEMM_EPI_NONE>(p);
    }
}

#endif /* LINEAR_GEMV_CUH */
