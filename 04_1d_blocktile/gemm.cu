/*
 * Step 04: 1-D block tiling. Each thread now computes TM results down one
 * column of C instead of one. Per k it loads the B element once into a
 * register and uses it TM times, so the inner loop does TM FMAs for
 * TM + 1 shared-memory loads instead of 1 FMA for 2.
 *
 * The block tile is BM x BN = 64 x 64 and K advances BK = 8 at a time, so the
 * 512 threads load exactly one element of each tile per step.
 *
 *     make step N=4 && ./04_1d_blocktile/gemm 4096 --cublas
 */
#include "gemm.h"

#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define THREADS (BM * BN / TM) /* 512: one thread per TM results */

static_assert(BM % TM == 0, "a thread's TM rows must not cross the block tile");
static_assert(BM * BK == THREADS, "each thread loads exactly one element of the A tile");
static_assert(BK * BN == THREADS, "each thread loads exactly one element of the B tile");

__global__ void __launch_bounds__(THREADS) gemm_kernel(int M, int N, int K, float alpha, const float *A,
                                                       const float *B, float beta, float *C) {
    __shared__ __align__(16) float As[BM][BK]; /* aligned: see README (nvcc reads a row of As with LDS.128) */
    __shared__ float Bs[BK][BN];
    /* Tiles are numbered along rows of C, one block each: neighbouring blocks share
     * a panel of A in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_n = ceil_div(N, BN);
    const int row0 = blockIdx.x / tiles_n * BM, col0 = blockIdx.x % tiles_n * BN;
    /* This thread's results: rows thread_row*TM .. +TM-1 of column thread_col of the tile. */
    const int thread_row = threadIdx.x / BN, thread_col = threadIdx.x % BN;
    /* The element of each tile this thread loads (consecutive threads: consecutive addresses). */
    const int a_row = threadIdx.x / BK, a_col = threadIdx.x % BK;
    const int b_row = threadIdx.x / BN, b_col = threadIdx.x % BN;

    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_row][a_col] = row0 + a_row < M && k0 + a_col < K ? A[(row0 + a_row) * K + k0 + a_col] : 0.0f;
        Bs[b_row][b_col] = k0 + b_row < K && col0 + b_col < N ? B[(k0 + b_row) * N + col0 + b_col] : 0.0f;
        __syncthreads(); /* the tiles are complete before anyone reads them */
        for (int k = 0; k < BK; k++) {
            const float b = Bs[k][thread_col]; /* one load, TM uses */
            for (int i = 0; i < TM; i++) acc[i] += As[thread_row * TM + i][k] * b;
        }
        __syncthreads(); /* everyone is done reading before the next slice overwrites them */
    }
    for (int i = 0; i < TM; i++) {
        const int row = row0 + thread_row * TM + i, col = col0 + thread_col;
        if (row < M && col < N)
            C[row * N + col] = beta == 0.0f ? alpha * acc[i] : alpha * acc[i] + beta * C[row * N + col];
    }
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(THREADS);
    dim3 grid(ceil_div(p->m, BM) * ceil_div(p->n, BN));
    gemm_kernel<<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a, (const float *)p->b,
                                 p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm};
    return gemm_main(argc, argv, &step);
}
