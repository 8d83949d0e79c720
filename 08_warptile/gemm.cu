/*
 * Step 08: warp tiling. Step 07's block tile and thread tile get a level in
 * between: each warp owns a WM x WN piece of the block tile, and walks it in
 * WMITER x WNITER sub-tiles of WSUBM x WSUBN, in each of which its 32 threads
 * hold TM x TN results. A warp's shared-memory reads then cover a small,
 * contiguous region of As and Bs (few distinct addresses per instruction,
 * broadcasts, no bank conflicts), and the sizes at every level are
 * compile-time parameters searched per GPU, as in step 07.
 *
 * Second idea, needed to reach the target (README: which part gains what):
 * the tiles are double-buffered. While the block multiplies the tiles in one
 * half of shared memory, each thread already has the next slice's global
 * loads in flight into registers; they are stored into the other half after
 * the math, so a K step costs one __syncthreads instead of two and the
 * global-memory latency hides behind the FMAs. Third, the k loop is
 * unrolled so that the shared loads of k + 1 overlap the FMAs of k.
 *
 *     make autotune N=8      # writes 08_warptile/tuned/<GPU>.flags
 *     make step N=8 && ./08_warptile/gemm 4096 --cublas
 */
#include "gemm.h"

#ifndef BM /* the defaults: step 06's block tile, split among 8 warps */
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM /* a warp's tile of C */
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef WNITER /* sub-tiles across the warp tile; WMITER follows from the others */
#define WNITER 2
#endif
#ifndef TM /* a thread's results in one sub-tile */
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define CONFIG                                                                                     \
    "BM=" GEMM_STR(BM) " BN=" GEMM_STR(BN) " BK=" GEMM_STR(BK) " WM=" GEMM_STR(                    \
        WM) " WN=" GEMM_STR(WN) " WNITER=" GEMM_STR(WNITER) " TM=" GEMM_STR(TM) " TN=" GEMM_STR(TN)
#define WMITER                                                                                     \
    ((WM * WN) / (32 * TM * TN * WNITER)) /* every thread holds WMITER * TM x WNITER * TN results  \
                                           */
#define WSUBM (WM / WMITER)               /* one sub-tile: 32 threads x TM x TN results */
#define WSUBN (WN / WNITER)

static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles must cover the block tile exactly");
static_assert(WN % WNITER == 0 && WSUBN % TN == 0, "a sub-tile row holds whole thread tiles");
static_assert((WM * WN) % (32 * TM * TN * WNITER) == 0 && WMITER >= 1,
              "a warp tile splits into whole sub-tiles of 32 thread tiles");
static_assert(WM % WMITER == 0 && WSUBM % TM == 0, "a sub-tile column holds whole thread tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "each sub-tile is one thread tile per lane");
static_assert(TM % 4 == 0 && TN % 4 == 0,
              "thread tiles are read from shared memory as float4s and stored as float4s");
static_assert(BK % 4 == 0 && BN % 4 == 0, "tile rows are loaded as whole float4s");
static_assert(THREADS % (BK / 4) == 0 && BM % (THREADS / (BK / 4)) == 0,
              "the A tile loads in whole passes of full rows");
static_assert(THREADS % (BN / 4) == 0 && BK % (THREADS / (BN / 4)) == 0,
              "the B tile loads in whole passes of full rows");
static_assert(THREADS <= 1024, "a block is at most 1024 threads");
#define SMEM_BYTES (2 * BK * (BM + 4 + BN) * sizeof(float)) /* two stages of As and Bs */
static_assert(
    SMEM_BYTES <= 99 * 1024,
    "two stages must fit the smallest opt-in shared memory of sm_80+ GPUs (99 KB on sm_86/89)");

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

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
    gemm_kernel(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                float *C) {
    /* As is transposed, As[stage][k][m], with 4 floats of padding per row as in step 07. With
     * BK = 16 a warp's transposed stores still meet two to a bank (As[k][m] and As[k + 8][m]
     * are 8 * (BM + 4) floats apart, a multiple of 32): the store conflicts ncu counts. Dynamic
     * shared memory, because two stages of the larger tiles pass the 48 KB static limit. */
    extern __shared__ __align__(16) float smem[];
    float(*As)[BK][BM + 4] = reinterpret_cast<float(*)[BK][BM + 4]>(smem);
    float(*Bs)[BK][BN] = reinterpret_cast<float(*)[BK][BN]>(smem + 2 * BK * (BM + 4));
    /* Tiles are numbered down the columns of C, one block each: neighbouring blocks
     * share a panel of B in L2. A 1-D grid, because gridDim.y stops at 65535. */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    /* The warp's tile of C starts at (warp_row, warp_col) inside the block tile; within each
     * sub-tile, this lane's TM x TN results start at (lane_row, lane_col). */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / (BN / WN) * WM, warp_col = warp % (BN / WN) * WN;
    const int lane_row = lane / (WSUBN / TN) * TM, lane_col = lane % (WSUBN / TN) * TN;
    /* The float4 of each tile this thread loads: one per pass, passes a_stride (b_stride) rows
     * apart. */
    constexpr int a_stride = THREADS / (BK / 4), b_stride = THREADS / (BN / 4);
    const int a_row = threadIdx.x / (BK / 4), a_col = threadIdx.x % (BK / 4) * 4;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;

    float acc[WMITER * TM][WNITER * TN] = {{0.0f}};
    float reg_m[WMITER * TM], reg_n[WNITER * TN];
    /* The next slice's float4s wait in registers between its global load and its shared store. */
    constexpr int A_PASSES = BM / a_stride, B_PASSES = BK / b_stride;
    float4 a_next[A_PASSES], b_next[B_PASSES];
    auto fetch =
        [&](int k0) { /* global -> registers; nothing waits for these loads until deposit() */
                      for (int p = 0; p < A_PASSES; p++)
                          a_next[p] = load4<VEC>(A, M, K, row0 + p * a_stride + a_row, k0 + a_col);
                      for (int p = 0; p < B_PASSES; p++)
                          b_next[p] = load4<VEC>(B, K, N, k0 + p * b_stride + b_row, col0 + b_col);
        };
    auto deposit = [&](int stage) { /* registers -> shared, A transposed while storing */
                                    for (int p = 0; p < A_PASSES; p++) {
                                        const int r = p * a_stride + a_row;
                                        As[stage][a_col + 0][r] = a_next[p].x;
                                        As[stage][a_col + 1][r] = a_next[p].y;
                                        As[stage][a_col + 2][r] = a_next[p].z;
                                        As[stage][a_col + 3][r] = a_next[p].w;
                                    }
                                    for (int p = 0; p < B_PASSES; p++)
                                        *reinterpret_cast<float4 *>(
                                            &Bs[stage][p * b_stride + b_row][b_col]) = b_next[p];
    };

    fetch(0);
    deposit(0);
    __syncthreads();
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK, stage ^= 1) {
        const bool more = k0 + BK < K;
        if (more) fetch(k0 + BK); /* in flight during the math below */
            /* Unrolled, so that the compiler can issue the shared loads of k + 1 while the
             * FMAs of k run (left rolled, each k waits for its own loads). */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            /* A warp reads (WMITER * TM + WNITER * TN) / 4 float4s per k; in each, its lanes hit
             * WSUBM / TM (WSUBN / TN) distinct addresses, side by side. */
            for (int wi = 0; wi < WMITER; wi++)
                for (int i = 0; i < TM; i += 4)
                    *reinterpret_cast<float4 *>(&reg_m[wi * TM + i]) =
                        *reinterpret_cast<const float4 *>(
                            &As[stage][k][warp_row + wi * WSUBM + lane_row + i]);
            for (int wj = 0; wj < WNITER; wj++)
                for (int j = 0; j < TN; j += 4)
                    *reinterpret_cast<float4 *>(&reg_n[wj * TN + j]) =
                        *reinterpret_cast<const float4 *>(
                            &Bs[stage][k][warp_col + wj * WSUBN + lane_col + j]);
            for (int i = 0; i < WMITER * TM; i++) /* outer product over all sub-tiles */
                for (int j = 0; j < WNITER * TN; j++) acc[i][j] += reg_m[i] * reg_n[j];
        }
        /* The other stage was last read before the previous barrier, so it can be filled now;
         * one barrier per slice then orders both this deposit and the next slice's reads. */
        if (more) deposit(stage ^ 1);
        __syncthreads();
    }
    /* Unrolled by force: in the scalar path this loop is long enough that nvcc would keep it
     * rolled, and acc indexed by a run-time i would move to local memory (a stack frame). */
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
        for (int j = 0; j < WNITER * TN; j += 4)
            store4<VEC>(C, M, N, row0 + warp_row + i / TM * WSUBM + lane_row + i % TM,
                        col0 + warp_col + j / TN * WSUBN + lane_col + j % TN,
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
    /* Above 48 KB of dynamic shared memory a kernel must opt in, once per instantiation. */
    static bool opted_in = false;
    if (!opted_in) {
        cudaError_t err = cudaFuncSetAttribute(
            gemm_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        if (err == cudaSuccess)
            err = cudaFuncSetAttribute(
                gemm_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        if (err != cudaSuccess) return err;
        opted_in = true;
    }
    if (vec)
        gemm_kernel<true><<<grid, block, SMEM_BYTES>>>(
            p->m, p->n, p->k, p->alpha, (const float *)p->a, (const float *)p->b, p->beta, p->c);
    else
        gemm_kernel<false><<<grid, block, SMEM_BYTES>>>(
            p->m, p->n, p->k, p->alpha, (const float *)p->a, (const float *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F32, launch_gemm, CONFIG,
                                   (const void *)gemm_kernel<true>};
    return gemm_main(argc, argv, &step);
}
