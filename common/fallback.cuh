/*
 * fallback.cuh: step 03's 32 x 32 shared-memory tiling on 16-bit inputs, FP32 sums, any shape and
 * alignment: the `fallback` path, forced only since step 30 (mma_small takes its shapes). Moved
 * out of gemm.cu unchanged in step 36, to keep gemm.cu within 600 lines.
 */
#ifndef FALLBACK_CUH
#define FALLBACK_CUH

#include "gemm.h" /* ceil_div */

/* step 03's tiling: a block of 32 x 32 threads, an element of C each */
template <typename T>
__global__ void __launch_bounds__(1024)
    fallback_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                    float *C) {
    __shared__ float As[32][32], Bs[32][33];
    const int tiles_m = ceil_div(M, 32);
    const int row = (blockIdx.x % tiles_m) * 32 + threadIdx.y,
              col = (blockIdx.x / tiles_m) * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        const int ar = row, ac = k0 + threadIdx.x, br = k0 + threadIdx.y, bc = col;
        As[threadIdx.y][threadIdx.x] =
            ar < M && ac < K ? static_cast<float>(A[(size_t)ar * K + ac]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] =
            br < K && bc < N ? static_cast<float>(B[(size_t)br * N + bc]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) {
        float *c = &C[(size_t)row * N + col];
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

#endif /* FALLBACK_CUH */
