/*
 * Step 05: 2-D block tiling. Each thread now computes TM x TN = 8 x 8
 * results of C. Per k it loads TM values of A (reg_m) and TN values of B
 * (reg_n) into registers and multiplies them as an outer product: TM * TN
 * FMAs for TM + TN shared-memory loads (64 for 16, against 8 for 9 in step
 * 04).
 *
 * The block tile grows to BM x BN = 128 x 128 with 256 threads, and BK
 * goes back to 8: each thread still loads a tile in passes of consecutive
 * (coalesced) elements, four passes for each tile now.
 *
 * A thread's 8 x 8 results are spread over the tile with a stride of 16
 * (BM / TM) rather than packed in a square: then the 16 threads that share
 * a row of the thread grid read 16 consecutive words of Bs (16 banks, no
 * conflict) instead of words 8 apart (4-way conflicts). README.md has both
 * measured.
 *
 *     make step N=5 && ./05_2d_blocktile/gemm 4096 --cublas
 */
#include "gemm.h"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN)) /* 256: one thread per TM x TN results */
#define CONFIG                                                                                     \
    "BM=" GEMM_STR(BM) " BN=" GEMM_STR(BN) " BK=" GEMM_STR(BK) " TM=" GEMM_STR(                    \
        TM) " TN=" GEMM_STR(TN)

static_assert(BM % TM == 0 && BN % TN == 0,
              "a thread's TM x TN square must not cross the block tile");
static_assert(THREADS % BK == 0 && BM % (THREADS / BK) == 0,
              "the A tile loads in whole passes of full rows");
static_assert(THREADS % BN == 0 && BK % (THREADS / BN) == 0,
              "the B tile loads in whole passes of full rows");

/* An SM of compute capability 12.x holds 1536 threads, and there ptxas aims at 3 blocks of 256
 * (80 registers), where step 05's kernel spills; asking for 2 leaves it 128. Steps 06 and 07
 * need no hint (without it ptxas gives them about 100 registers and no spills) and keep it only
 * so that each diff holds one idea; step 08 would spill under it. Elsewhere the hint is left out:
 * on sm_90 the same minimum makes different code that runs slower. */
#if __CUDA_ARCH__ / 100 == 12 /* compute capability 12.x */
#define KERNEL_BOUNDS __launch_bounds__(THREADS, 2)
#else
#define KERNEL_BOUNDS __launch_bounds__(THREADS)
#endif

__global__ void KERNEL_BOUNDS
    gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                float *C) {
    __shared__ float As[BM][BK]; /* reg_m: one k of 8 rows, 16 rows apart: one LDS per float */
    __shared__ float Bs[BK][BN];
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    /* This thread's results: rows thread_row + i * (BM / TM), columns thread_col + j * (BN / TN).
     */
    const int thread_row = threadIdx.x / (BN / TN), thread_col = threadIdx.x % (BN / TN);
    /* The elements of each tile this thread loads: one per pass, passes a_stride (b_stride) rows
     * apart. */
    const int a_row = threadIdx.x / BK, a_col = threadIdx.x % BK, a_stride = THREADS / BK;
    const int b_row = threadIdx.x / BN, b_col = threadIdx.x % BN, b_stride = THREADS / BN;

    float acc[TM][TN] = {{0.0f}};
    float reg_m[TM], reg_n[TN];
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
            for (int i = 0; i < TM; i++) reg_m[i] = As[thread_row + i * (BM / TM)][k];
            for (int j = 0; j < TN; j++)
                reg_n[j] = Bs[k][thread_col + j * (BN / TN)]; /* consecutive words */
            for (int i = 0; i < TM; i++) /* outer product: TM * TN FMAs from TM + TN loads */
                for (int j = 0; j < TN; j++) acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads(); /* everyone is done reading before the next slice overwrites them */
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            const int row = row0 + thread_row + i * (BM / TM),
                      col = col0 + thread_col + j * (BN / TN);
            if (row < M && col < N)
                C[row * N + col] =
                    beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * C[row * N + col];
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
