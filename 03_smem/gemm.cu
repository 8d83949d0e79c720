/*
 * Step 03: shared-memory tiling. A block walks K in BLOCK-wide slices: its
 * threads first copy a BLOCK x BLOCK tile of A and one of B into shared
 * memory (one element each, coalesced), wait at a barrier, then every thread
 * reads the row and column it needs from shared memory instead of from
 * global memory. Each element fetched from global memory is now used BLOCK
 * times.
 *
 * Edges: elements outside A or B are stored as 0, which adds nothing to a
 * dot product, so partial tiles need no special case in the inner loop. No
 * thread may leave early any more: all of them take part in the loads and in
 * __syncthreads().
 *
 *     make step N=3 && ./03_smem/gemm 4096 --cublas
 */
#include "gemm.h"

#define BLOCK 32 /* a block is BLOCK * BLOCK threads and computes a BLOCK x BLOCK tile of C */
#define CONFIG "BLOCK=" GEMM_STR(BLOCK) " (BLOCK x BLOCK tiles and threads)"

__global__ void gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B,
                            float beta, float *C) {
    __shared__ float As[BLOCK][BLOCK];
    __shared__ float Bs[BLOCK][BLOCK];
    const int tile_row = threadIdx.x / BLOCK, tile_col = threadIdx.x % BLOCK;
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BLOCK);
    const int row = (blockIdx.x % tiles_m) * BLOCK + tile_row;
    const int col =
        (blockIdx.x / tiles_m) * BLOCK + tile_col; /* neighbouring threads: neighbouring columns */

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BLOCK) {
        As[tile_row][tile_col] = row < M && k0 + tile_col < K ? A[row * K + k0 + tile_col] : 0.0f;
        Bs[tile_row][tile_col] = k0 + tile_row < K && col < N ? B[(k0 + tile_row) * N + col] : 0.0f;
        __syncthreads(); /* the tiles are complete before anyone reads them */
        for (int k = 0; k < BLOCK; k++) acc += As[tile_row][k] * Bs[k][tile_col];
        __syncthreads(); /* everyone is done reading before the next slice overwrites them */
    }
    if (row >= M || col >= N) return;
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
