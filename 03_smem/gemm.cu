/*
 * Step 03: shared-memory tiling. A block walks K in BLOCK-wide slices: its
 * threads first copy a BLOCK x BLOCK tile of A and one of B into shared
 * memory (one element each, coalesced), wait at a barrier, then every thread
 * reads the row and column it needs from shared memory instead of from
 * global memory. Each element fetched from global memory is now used BLOCK
 * times.
 *
 * Second idea, needed for the target on the H200 (README: what each part
 * gains): each thread loads its element of the next slice into a register
 * right after the first barrier, before the FMAs, instead of at the top of
 * the next iteration; the load's latency then overlaps the multiplication.
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

__global__ void gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B,
                            float beta, float *C) {
    __shared__ float As[BLOCK][BLOCK];
    __shared__ float Bs[BLOCK][BLOCK];
    const int tile_row = threadIdx.x / BLOCK, tile_col = threadIdx.x % BLOCK;
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BLOCK);
    const int row = blockIdx.x % tiles_m * BLOCK + tile_row;
    const int col = blockIdx.x / tiles_m * BLOCK + tile_col; /* neighbouring threads: neighbouring columns */

    float acc = 0.0f;
    /* This thread's element of the next slice is loaded before the current slice is
     * multiplied, so its global-memory latency overlaps the FMAs. */
    float a_next = row < M && tile_col < K ? A[row * K + tile_col] : 0.0f;
    float b_next = tile_row < K && col < N ? B[tile_row * N + col] : 0.0f;
    for (int k0 = 0; k0 < K; k0 += BLOCK) {
        As[tile_row][tile_col] = a_next;
        Bs[tile_row][tile_col] = b_next;
        __syncthreads(); /* the tiles are complete before anyone reads them */
        const int k1 = k0 + BLOCK;
        a_next = row < M && k1 + tile_col < K ? A[row * K + k1 + tile_col] : 0.0f;
        b_next = k1 + tile_row < K && col < N ? B[(k1 + tile_row) * N + col] : 0.0f;
        for (int k = 0; k < BLOCK; k++) acc += As[tile_row][k] * Bs[k][tile_col];
        __syncthreads(); /* everyone is done reading before the next slice overwrites them */
    }
    if (row >= M || col >= N) return;
    C[row * N + col] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[row * N + col];
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(BLOCK * BLOCK);
    dim3 grid(ceil_div(p->m, BLOCK) * ceil_div(p->n, BLOCK));
    gemm_kernel<<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a, (const float *)p->b,
                                 p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm};
    return gemm_main(argc, argv, &step);
}
