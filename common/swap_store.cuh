/*
 * swap_store.cuh: the swapped linear tile's epilogue (24_linear_swap/README.md). The block computed
 * C^T = W x^T in wgmma's accumulator layout; store_swapped writes each element to C(m, n) directly.
 */
#ifndef SWAP_STORE_CUH
#define SWAP_STORE_CUH

#include "linear_epilogue.cuh" /* activation_of */

/* The swapped tile's epilogue: the block computed C^T = W x^T, so row r of the tile is column
 * n0 + r of C (one row of W) and column c is row m0 + c of C (a token). Each lane stores its
 * elements straight to C, with the bias of its two rows: C has at most 64 rows, a small part
 * of the traffic, and 8 lanes of a warp write 8 adjacent columns of one row of C. */
template <typename OutT, gemm_epilogue EPI, int TN>
static __device__ __forceinline__ void store_swapped(const float *acc, int n0, int m0, int M,
                                                     int N, float alpha, float beta, OutT *C,
                                                     const float my_bias[2]) {
    const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < TN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) { /* rows g and g + 8 of C^T: columns of C */
            const int n = n0 + warp * 16 + lane / 4 + 8 * h;
#pragma unroll
            for (int e = 0; e < 2; e++) { /* columns 2 t and 2 t + 1 of C^T: rows of C */
                const int m = m0 + 8 * j + lane % 4 * 2 + e;
                if (m >= M || n >= N) continue;
                float v = alpha * acc[4 * j + 2 * h + e];
                if constexpr (std::is_same_v<OutT, float>) /* a 16-bit C is never read */
                    if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
                C[(size_t)m * N + n] = OutT(activation_of<EPI, OutT>(v + my_bias[h]));
            }
        }
}

#endif
