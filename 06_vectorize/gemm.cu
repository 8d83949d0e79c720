/*
 * Step 06: vectorized memory access. Step 05's kernel with every memory
 * access four floats wide:
 *   - A and B are read from global memory as float4 (LDG.E.128), C is read
 *     and written as float4 (STG.E.128);
 *   - the A tile is stored transposed, As[k][m], so that a thread's values
 *     of A for one k are contiguous: reg_m and reg_n are both filled with
 *     128-bit shared loads (LDS.128) instead of 4-byte ones.
 * For that a thread's results become blocks of 4 x 4 (stride 64) instead of
 * single elements (stride 16): one LDS.128 then fetches four of them, and
 * the 8 threads of a quarter-warp, which one LDS.128 serves at a time, read
 * 128 consecutive bytes of Bs. The transposed stores into As would hit one
 * bank twice; 4 floats of padding per As row move them apart.
 *
 * A float4 must be 16-byte aligned, which needs K % 4 == 0 (rows of A) and
 * N % 4 == 0 (rows of B and C). Other shapes take the same kernel with
 * element-wise, predicated global loads and stores (path "scalar" in the
 * output); the shared-memory side is vectorized on both paths.
 *
 *     make step N=6 && ./06_vectorize/gemm 4096 --cublas
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
static_assert(TM % 4 == 0 && TN % 4 == 0,
              "a thread's results come in blocks of 4 x 4 (one float4 each way)");
static_assert(BK % 4 == 0 && BN % 4 == 0, "tile rows are loaded as whole float4s");
static_assert(THREADS % (BK / 4) == 0 && BM % (THREADS / (BK / 4)) == 0,
              "the A tile loads in whole passes of full rows");
static_assert(THREADS % (BN / 4) == 0 && BK % (THREADS / (BN / 4)) == 0,
              "the B tile loads in whole passes of full rows");

/* Elements (row, col .. col+3) of a row-major matrix with `cols` columns;
 * zero outside it. VEC: one 16-byte load, legal when cols % 4 == 0 (then a
 * float4 is either wholly inside or wholly outside the matrix). */
template <bool VEC> __device__ float4 load4(const float *X, int rows, int cols, int row, int col) {
    if constexpr (VEC) {
        return row < rows && col < cols ? *reinterpret_cast<const float4 *>(&X[row * cols + col])
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
        float v[4];
        for (int e = 0; e < 4; e++)
            v[e] = row < rows && col + e < cols ? X[row * cols + col + e] : 0.0f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* C(row, col .. col+3) = alpha * acc + beta * C, inside the matrix only; C
 * is not read when beta == 0. VEC: one 16-byte load and store, as in load4. */
template <bool VEC>
__device__ void store4(float *C, int rows, int cols, int row, int col, float4 acc, float alpha,
                       float beta) {
    if (VEC) {
        if (row >= rows || col >= cols) return;
        float4 *c = reinterpret_cast<float4 *>(&C[row * cols + col]);
        const float4 old = beta != 0.0f ? *c : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *c = make_float4(alpha * acc.x + beta * old.x, alpha * acc.y + beta * old.y,
                         alpha * acc.z + beta * old.z, alpha * acc.w + beta * old.w);
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
    for (int e = 0; e < 4; e++)
        if (row < rows && col + e < cols) {
            float *c = &C[row * cols + col + e];
            *c = beta == 0.0f ? alpha * v[e] : alpha * v[e] + beta * *c;
        }
}

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

template <bool VEC>
__global__ void KERNEL_BOUNDS
    gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                float *C) {
    /* As is transposed, As[k][m]; its 4 floats of padding per row put the transposed
     * stores of two neighbouring threads (rows 4 apart) into different banks. */
    __shared__ __align__(16) float As[BK][BM + 4];
    __shared__ __align__(16) float Bs[BK][BN];
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    /* This thread's results: blocks of 4 x 4 at rows thread_row * 4 + i * (BM / TM), columns
     * thread_col * 4 + j * (BN / TN), for i, j = 0, 4, 8, ... */
    const int thread_row = threadIdx.x / (BN / TN), thread_col = threadIdx.x % (BN / TN);
    /* The float4 of each tile this thread loads: one per pass, passes a_stride (b_stride) rows
     * apart. */
    const int a_row = threadIdx.x / (BK / 4), a_col = threadIdx.x % (BK / 4) * 4,
              a_stride = THREADS / (BK / 4);
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4,
              b_stride = THREADS / (BN / 4);

    float acc[TM][TN] = {{0.0f}};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int pass = 0; pass < BM; pass += a_stride) { /* a compile-time number of passes */
            const int r = pass + a_row;
            const float4 a = load4<VEC>(A, M, K, row0 + r, k0 + a_col);
            As[a_col + 0][r] = a.x; /* transposed while storing */
            As[a_col + 1][r] = a.y;
            As[a_col + 2][r] = a.z;
            As[a_col + 3][r] = a.w;
        }
        for (int pass = 0; pass < BK; pass += b_stride) {
            const int r = pass + b_row;
            *reinterpret_cast<float4 *>(&Bs[r][b_col]) = load4<VEC>(B, K, N, k0 + r, col0 + b_col);
        }
        __syncthreads(); /* the tiles are complete before anyone reads them */
        for (int k = 0; k < BK; k++) {
            for (int i = 0; i < TM; i += 4) /* 128-bit shared loads */
                *reinterpret_cast<float4 *>(&reg_m[i]) =
                    *reinterpret_cast<const float4 *>(&As[k][thread_row * 4 + i * (BM / TM)]);
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4 *>(&reg_n[j]) =
                    *reinterpret_cast<const float4 *>(&Bs[k][thread_col * 4 + j * (BN / TN)]);
            for (int i = 0; i < TM; i++) /* outer product: TM * TN FMAs from TM + TN loads */
                for (int j = 0; j < TN; j++) acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads(); /* everyone is done reading before the next slice overwrites them */
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j += 4)
            store4<VEC>(C, M, N, row0 + thread_row * 4 + i / 4 * (4 * BM / TM) + i % 4,
                        col0 + thread_col * 4 + j * (BN / TN),
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]), alpha,
                        beta);
}

static cudaError_t launch_gemm(gemm_args *p) {
    dim3 block(THREADS);
    dim3 grid(ceil_div(p->m, BM) * ceil_div(p->n, BN));
    /* float4 global accesses need 16-byte aligned rows: K and N multiples of 4 (cudaMalloc aligns
     * the bases). */
    const bool vec =
        p->k % 4 == 0 && p->n % 4 == 0 && ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0;
    p->path = vec ? "float4" : "scalar";
    if (vec)
        gemm_kernel<true><<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a,
                                           (const float *)p->b, p->beta, p->c);
    else
        gemm_kernel<false><<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const float *)p->a,
                                            (const float *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm, CONFIG,
                                   (const void *)gemm_kernel<true>};
    return gemm_main(argc, argv, &step);
}
