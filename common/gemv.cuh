/*
 * gemv.cuh: step 18's GEMV kernels (18_gemv/README.md) for M or N of at most GEMV_ROWS, shared
 * from 18 on. CUDA-core code, nothing of Hopper: the large matrix streams in 16-byte loads.
 */
#ifndef GEMV_CUH
#define GEMV_CUH

#include <stdint.h>

#include "gemm.h"

/* ---- GEMV: M or N of at most GEMV_ROWS. Per element of the large matrix there are 2 M (or 2 N)
 * FLOPs, at most 16: these kernels only have to keep enough 16-byte loads in flight. ---- */
#define GEMV_ROWS 8 /* rows of C per gemv_m block (columns per gemv_n block) */
#define GEMV_THREADS 256
#define GEMV_UNROLL 16 /* 16-byte loads a gemv_m thread issues before it uses the first */
#define GEMV_SCALAR_UNROLL 4 /* ... rows of 2-byte loads, where B's rows are not 16-byte units */
#define GEMV_N_UNROLL 4 /* ... and a gemv_n lane */

/* Eight 16-bit elements as floats. */
template <typename T> static __device__ __forceinline__ void unpack8(uint4 u, float x[8]) {
    const T *h = reinterpret_cast<const T *>(&u);
#pragma unroll
    for (int e = 0; e < 8; e++) x[e] = static_cast<float>(h[e]);
}

/* x[i .. i + 7] of a row of `len` elements as they are stored, zeros past the end, for unpack8
 * later, so that a thread can have many in flight before it waits for the first: one streaming
 * 16-byte load (read once: evict first) where the row allows it (vec: the row starts on 16 bytes
 * and i is a multiple of 8), else eight 2-byte loads. */
template <typename T>
static __device__ __forceinline__ uint4 load8_raw(const T *row, int i, int len, bool vec) {
    if (vec && i + 8 <= len) return __ldcs(reinterpret_cast<const uint4 *>(row + i));
    union { uint4 raw; T h[8]; } u;
#pragma unroll
    for (int e = 0; e < 8; e++) u.h[e] = i + e < len ? row[i + e] : static_cast<T>(0.0f);
    return u.raw;
}

/* acc[r][e] += a[r * a_stride + u] * b(u, e) over U rows u of B (8 columns each, b_stride apart,
 * `cols` of them inside the matrix), their loads issued before the first FMA. */
template <typename T, int R, int U>
static __device__ __forceinline__ void gemv_m_rows(float (&acc)[R][8], const T *b, int b_stride,
                                                   int cols, const float *a, int a_stride,
                                                   bool vec) {
    uint4 raw[U];
#pragma unroll
    for (int u = 0; u < U; u++) /* vec: the caller knows all 8 are inside */
        raw[u] = vec ? __ldcs(reinterpret_cast<const uint4 *>(b + (size_t)u * b_stride))
                     : load8_raw(b + (size_t)u * b_stride, 0, cols, false);
#pragma unroll
    for (int u = 0; u < U; u++) {
        float x[8];
        unpack8<T>(raw[u], x);
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int e = 0; e < 8; e++) acc[r][e] += a[r * a_stride + u] * x[e];
    }
}

/* M small: B streamed. A thread owns 8 consecutive columns of C for R rows (blockIdx.x /
 * col_blocks) and walks the rows k of B in its block's K range (blockIdx.y), 16 bytes of each (a
 * warp: 512 contiguous bytes a row, GEMV_UNROLL rows before it multiplies), A's rows staged in
 * shared memory as floats. One K range writes C; more write plane blockIdx.y for splitk_reduce. */
template <typename T, int R>
__global__ void __launch_bounds__(GEMV_THREADS, 1) /* 1: else ptxas caps R = 1 at 32 and spills */
    gemv_m_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta, float *C,
                  int k_chunk, float *partial) {
    extern __shared__ float a_rows[]; /* [R][k_chunk] */
    /* blockIdx.x numbers (column block, row block) pairs: gridDim.y and z stop at 65535 */
    const int col_blocks = ceil_div(ceil_div(N, 8), GEMV_THREADS);
    const int col = (blockIdx.x % col_blocks * GEMV_THREADS + threadIdx.x) * 8;
    const int m0 = blockIdx.x / col_blocks * R;
    const int k0 = blockIdx.y * k_chunk, k1 = min(K, k0 + k_chunk), rows = min(R, M - m0);
    for (int i = threadIdx.x; i < R * k_chunk; i += GEMV_THREADS) {
        const int r = i / k_chunk, k = k0 + i % k_chunk;
        a_rows[i] = r < rows && k < k1 ? static_cast<float>(A[(size_t)(m0 + r) * K + k]) : 0.0f;
    }
    __syncthreads();
    float acc[R][8] = {};
    if (col < N) {
        const bool vec = N % 8 == 0 && (size_t)B % 16 == 0 && col + 8 <= N;
        int k = k0;
        /* loads, then FMAs: GEMV_UNROLL 16-byte rows, else GEMV_SCALAR_UNROLL of 2-byte loads */
        if (vec)
            for (; k + GEMV_UNROLL <= k1; k += GEMV_UNROLL) gemv_m_rows<T, R, GEMV_UNROLL>(
                acc, B + (size_t)k * N + col, N, N - col, a_rows + k - k0, k_chunk, true);
        for (; k + GEMV_SCALAR_UNROLL <= k1; k += GEMV_SCALAR_UNROLL)
            gemv_m_rows<T, R, GEMV_SCALAR_UNROLL>(acc, B + (size_t)k * N + col, N, N - col,
                                                  a_rows + k - k0, k_chunk, false);
        for (; k < k1; k++) /* the rest of the range */
            gemv_m_rows<T, R, 1>(acc, B + (size_t)k * N + col, N, N - col, a_rows + k - k0,
                                 k_chunk, false);
    }
    /* C (or the K range's plane) a row at a time through shared memory: stored from registers,
     * a lane's 8 adjacent columns put a warp's 32 floats 32 bytes apart; staged, 128 bytes a row */
    __shared__ float4 staged[GEMV_THREADS / 32][32 * 2]; /* per warp: one row's 256 columns */
    float4 *const mine = staged[threadIdx.x / 32];
    const float *const mine_f = reinterpret_cast<const float *>(mine);
    const int lane = threadIdx.x % 32, warp_col = col - 8 * lane;
    float *const out = gridDim.y > 1 ? partial + (size_t)blockIdx.y * M * N : C;
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r >= rows) break; /* the same for the whole block */
        mine[2 * lane] = make_float4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
        mine[2 * lane + 1] = make_float4(acc[r][4], acc[r][5], acc[r][6], acc[r][7]);
        __syncwarp();
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int c = warp_col + 32 * j + lane;
            const float v = mine_f[32 * j + lane];
            const size_t at = (size_t)(m0 + r) * N + c;
            if (c >= N) continue;
            if (gridDim.y > 1)
                out[at] = v;
            else
                out[at] = beta == 0.0f ? alpha * v : alpha * v + beta * out[at];
        }
        __syncwarp();
    }
}

/* N small: A streamed. A warp owns a row of C and CN of its columns; each lane reads 16 bytes of
 * A's row a step (eight 2-byte loads where rows are not 16-byte units), GEMV_N_UNROLL steps in
 * flight. The block stages GEMV_N_CHUNK rows of B by column in shared memory (a lane's 8 values of
 * a column: one 16-byte load); a warp reduction adds the lanes' sums. CN = 1, 4 or 8: fewer sums,
 * more warps, more loads in flight. Step 20: SPLIT (k_chunk > 0) sums K range y into plane y of
 * partial; THREADS / 32 rows a block (16 where gemv_n_shape says: B staged less often). */
#define GEMV_N_CHUNK (256 * GEMV_N_UNROLL) /* rows of B per stage: a warp's loads in flight */
template <typename T, int CN, bool SPLIT = false, int THREADS = GEMV_THREADS>
__global__ void __launch_bounds__(THREADS)
    gemv_n_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta, float *C,
                  int k_chunk = 0, float *partial = nullptr) {
    __shared__ uint4 b_cols[CN][GEMV_N_CHUNK / 8]; /* [column][row / 8], 8 elements per unit */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    /* blockIdx.x numbers (row block, column group) pairs: gridDim.y stops at 65535 */
    const int row_blocks = ceil_div(M, THREADS / 32);
    const int row = blockIdx.x % row_blocks * (THREADS / 32) + warp;
    const int n0 = blockIdx.x / row_blocks * CN, cols = min(CN, N - n0);
    /* a warp past the last row reads that row and stores nothing: all meet the block's barriers */
    const T *a_row = A + (size_t)min(row, M - 1) * K;
    const bool vec = K % 8 == 0 && (size_t)A % 16 == 0;
    float acc[CN] = {};
    const int k_begin = SPLIT && k_chunk ? blockIdx.y * k_chunk : 0;
    const int k_end = SPLIT && k_chunk ? min(K, k_begin + k_chunk) : K;
    for (int k0 = k_begin; k0 < k_end; k0 += GEMV_N_CHUNK) {
        const int k1 = min(k_end, k0 + GEMV_N_CHUNK);
        /* A is read once: streaming loads, issued before the block waits to stage B */
        uint4 raw[GEMV_N_UNROLL];
#pragma unroll
        for (int u = 0; u < GEMV_N_UNROLL; u++)
            raw[u] = load8_raw(a_row, k0 + 8 * lane + 256 * u, k1, vec);
        __syncthreads(); /* every warp is done with the previous rows of B */
        /* the rows the warps' steps below reach: whole steps of 256 (zeros past k1) */
        const int rows = min(GEMV_N_CHUNK, ceil_div(k1 - k0, 256) * 256);
        T *const staged = reinterpret_cast<T *>(b_cols);
        for (int i = threadIdx.x; i < CN * rows; i += THREADS) {
            const int c = i / rows, k = k0 + i % rows;
            staged[c * GEMV_N_CHUNK + k - k0] =
                c < cols && k < k1 ? B[(size_t)k * N + n0 + c] : static_cast<T>(0.0f);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < GEMV_N_UNROLL; u++) {
            if (256 * u >= rows) break;
            float a[8], b[8];
            unpack8<T>(raw[u], a);
#pragma unroll
            for (int c = 0; c < CN; c++) {
                unpack8<T>(b_cols[c][lane + 32 * u], b);
#pragma unroll
                for (int e = 0; e < 8; e++) acc[c] += a[e] * b[e];
            }
        }
    }
#pragma unroll
    for (int c = 0; c < CN; c++)
        for (int o = 16; o > 0; o /= 2) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o);
    if (row < M && lane < cols) {
        float v = acc[0];
#pragma unroll
        for (int c = 1; c < CN; c++)
            if (lane == c) v = acc[c];
        float *c = SPLIT && gridDim.y > 1 ? partial + (size_t)blockIdx.y * M * N : C;
        c += (size_t)row * N + n0 + lane;
        *c = SPLIT && gridDim.y > 1 ? v : beta == 0.0f ? alpha * v : alpha * v + beta * *c;
    }
}

#endif /* GEMV_CUH */
