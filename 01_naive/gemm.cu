/*
 * Step 01: the naive kernel. One thread computes one element of C as a dot
 * product of a row of A and a column of B, reading both straight from global
 * memory.
 *
 * The lesson is what goes wrong: threadIdx.x walks down the rows of C, so the
 * 32 threads of a warp read 32 different rows of A (32 separate memory
 * transactions per load instead of one) and write C a column at a time.
 *
 *     make step N=1 && ./01_naive/gemm 4096 --cublas
 */
#include "gemm.h"

#define BLOCK 32 /* a block is BLOCK x BLOCK threads and computes a BLOCK x BLOCK tile of C */
#define CONFIG "BLOCK=" GEMM_STR(BLOCK) " (threads per block: BLOCK x BLOCK)"

__global__ void gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B,
                            float beta, float *C) {
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BLOCK);
    const int row =
        (blockIdx.x % tiles_m) * BLOCK + threadIdx.x; /* neighbouring threads: neighbouring rows */
    const int col = (blockIdx.x / tiles_m) * BLOCK + threadIdx.y;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(BLOCK, BLOCK);
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
