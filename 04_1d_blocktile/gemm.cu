/*
 * Step 04: 1-D block tiling. Each thread now computes TM results down one
 * column of C instead of one. Per k it loads the B element once into a
 * register and uses it TM times, so the inner loop does TM FMAs for
 * TM + 1 shared-memory loads instead of 1 FMA for 2.
 *
 * The block tile is BM x BN = 64 x 64 and K advances BK = 16 at a time: the
 * 512 threads load two elements of each tile per step, in two passes of
 * consecutive (coalesced) elements. (BK = 8, one element each, measured
 * slower: README.md.)
 *
 *     make step N=4 && ./04_1d_blocktile/gemm 4096 --cublas
 */
#include "gemm.h"

#define BM 64
#define BN 64
#define BK 16
#define TM 8
#define THREADS (BM * BN / TM) /* 512: one thread per TM results */
#define CONFIG "BM=" GEMM_STR(BM) " BN=" GEMM_STR(BN) " BK=" GEMM_STR(BK) " TM=" GEMM_STR(TM)

static_assert(BM % TM == 0, "a thread's TM rows must not cross the block tile");
static_assert(THREADS % BK == 0 && BM % (THREADS / BK) == 0,
              "the A tile loads in whole passes of full rows");
static_assert(THREADS % BN == 0 && BK % (THREADS / BN) == 0,
              "the B tile loads in whole passes of full rows");

__global__ void __launch_bounds__(THREADS)
    gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                float *C) {
    __shared__ __align__(
        16) float As[BM][BK]; /* aligned: see README (nvcc reads a row of As with LDS.128) */
    __shared__ float Bs[BK][BN];
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    /* This thread's results: rows thread_row*TM .. +TM-1 of column thread_col of the tile. */
    const int thread_row = threadIdx.x / BN, thread_col = threadIdx.x % BN;
    /* The elements of each tile this thread loads: one per pass, passes a_stride (b_stride) rows
     * apart. */
    const int a_row = threadIdx.x / BK, a_col = threadIdx.x % BK, a_stride = THREADS / BK;
    const int b_row = threadIdx.x / BN, b_col = threadIdx.x % BN, b_stride = THREADS / BN;

    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int pass = 0; pass < BM; pass += a_stride) { /* a compile-time number of passes */
            const int r = pass + a_row;
            As[r][a_col] = row0 + r < M && k0 + a_col < K ? A[(row0 + r) * K + k0 + a_col] : 0.0f;
        }
        for (int pass = 0; pass < BK; pass += b_stride) {
            const int r = pass + b_row;
            Bs[r][b_col] = k0 + r < K && col0 + b_col < N ? B[(k0 + r) * N + col0 + b_col] : 0.0f;
        }
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
            C[row * N + col] =
                beta == 0.0f ? alpha * acc[i] : alpha * acc[i] + beta * C[row * N + col];
    }
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(THREADS);
    dim3 grid(ceil_div(p->m, BM) * ceil_div(p->n, BN));
    gemm_kernel<<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a,
                                 (const float *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm, CONFIG,
                                   (const void *)gemm_kernel};
    return gemm_main(argc, argv, &step);
}
