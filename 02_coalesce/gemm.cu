/*
 * Step 02: global memory coalescing. The same one-thread-per-element kernel,
 * but consecutive threads now take consecutive columns of C.
 *
 * A warp then reads 32 consecutive floats of a row of B (one 128-byte
 * transaction), all its threads read the same element of A (a broadcast), and
 * it writes 32 consecutive elements of C. Nothing else changes.
 *
 *     make step N=2 && ./02_coalesce/gemm 4096 --cublas
 */
#include "gemm.h"

#define BLOCK 32 /* a 1-D block of BLOCK * BLOCK threads computes a BLOCK x BLOCK tile of C */
#define CONFIG "BLOCK=" GEMM_STR(BLOCK) " (a 1-D block of BLOCK * BLOCK threads)"

__global__ void gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B,
                            float beta, float *C) {
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BLOCK);
    const int row = (blockIdx.x % tiles_m) * BLOCK + threadIdx.x / BLOCK;
    const int col = (blockIdx.x / tiles_m) * BLOCK +
                    threadIdx.x % BLOCK; /* neighbouring threads: neighbouring columns */
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(BLOCK * BLOCK);
    dim3 grid(ceil_div(p->m, BLOCK) * ceil_div(p->n, BLOCK));
    gemm_kernel<<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a,
                                 (const float *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm, CONFIG,
                                   (const void *)gemm_kernel};
    return gemm_main(argc, argv, &step);
}
