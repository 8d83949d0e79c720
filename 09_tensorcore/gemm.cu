/*
 * Step 09: tensor cores. FP16 or BF16 inputs (--dtype fp16|bf16), FP32
 * accumulation, FP32 C. Step 08's block -> warp structure and its loads
 * through registers, with the inner product done by the tensor cores. The
 * diff from step 08 has five parts, marked "step 09, part N" where they sit:
 *  1. mma.sync.m16n8k16 through inline PTX (a 16 x 8 x 16 multiply-add per
 *     instruction, 2048 FMAs), its operand fragments read from shared memory
 *     with ldmatrix (four 8 x 8 matrices per instruction, already spread over
 *     the lanes the way mma wants them).
 *  2. Rows of the shared tiles padded by 16 bytes, so that the 8 rows an
 *     8 x 8 matrix comes from fall in 8 different bank groups.
 *  3. A third stage in the shared ring, so that the one barrier per slice
 *     sits halfway through the slice's mma instead of between a deposit and
 *     the reads it publishes: the math of a slice is now short.
 *  4. C leaves through shared memory, as whole rows of float4.
 *  5. The order in which threads store A's chunks, chosen so that a 16-byte
 *     store phase meets no bank twice.
 *
 *     make step N=9 && ./09_tensorcore/gemm 4096 --dtype bf16 --cublas
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <type_traits>

#include "gemm.h"

#ifndef BM /* the defaults: a 128 x 256 block tile, 8 warps of 64 x 64 */
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM /* a warp's tile of C */
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef MIN_BLOCKS /* blocks per SM that the register allocation must leave room for */
#define MIN_BLOCKS 1
#endif
#define MMA_M 16 /* the shape of one mma.sync.m16n8k16 */
#define MMA_N 8
#define MMA_K 16
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define M_TILES (WM / MMA_M) /* mma tiles of a warp, down and across */
#define N_TILES (WN / MMA_N)
#ifndef PAD   /* step 09, part 2 */
#define PAD 8 /* elements (16 bytes) of padding per shared-memory row */
#endif
#define STAGES                                                                                     \
    3 /* Step 09, part 3: the slice being multiplied, the next one (published), the one being      \
         deposited */
#define A_STRIDE (BK + PAD)
#define B_STRIDE (BN + PAD)
#define A_CHUNKS                                                                                   \
    (BM * BK / 8 / THREADS) /* 16-byte chunks of 8 elements each thread copies per slice */
#define B_CHUNKS (BK * BN / 8 / THREADS)
#define CONFIG                                                                                     \
    "BM=" GEMM_STR(BM) " BN=" GEMM_STR(BN) " BK=" GEMM_STR(BK) " WM=" GEMM_STR(                    \
        WM) " WN=" GEMM_STR(WN) " STAGES=" GEMM_STR(STAGES) " MIN_BLOCKS=" GEMM_STR(MIN_BLOCKS)

static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles must cover the block tile exactly");
static_assert(WM % MMA_M == 0, "a warp tile is whole m16 tiles down");
static_assert(WN % (2 * MMA_N) == 0,
              "a warp tile is whole pairs of n8 tiles across (one ldmatrix.x4.trans loads two)");
static_assert(
    BK % (2 * MMA_K) == 0,
    "a K slice is whole k16 steps, an even number: the barrier sits after the first half");
static_assert(BK % 8 == 0 && BN % 8 == 0, "tiles are copied in 16-byte chunks of 8 elements");
static_assert((BM * BK / 8) % THREADS == 0 && (BK * BN / 8) % THREADS == 0,
              "the chunks of a tile divide evenly among the threads");
static_assert(A_STRIDE * 2 % 16 == 0 && B_STRIDE * 2 % 16 == 0,
              "ldmatrix and 16-byte stores need 16-byte aligned rows");
/* -DPAD=0 builds the unpadded layout, to measure what the padding buys (README). */
static_assert(PAD == 0 || (A_STRIDE * 2 / 16 % 2 == 1 && B_STRIDE * 2 / 16 % 2 == 1),
              "an odd number of 16-byte units per row: the 8 rows of an 8 x 8 matrix land in 8 "
              "different bank groups");
static_assert(THREADS <= 1024, "a block is at most 1024 threads");
static_assert(MIN_BLOCKS >= 1 && THREADS * MIN_BLOCKS <= 2048, "an SM holds at most 2048 threads");
#define STAGE_ELEMS (BM * A_STRIDE + BK * B_STRIDE) /* one stage: an A tile, then a B tile */
#define RING_BYTES (STAGES * STAGE_ELEMS * 2)       /* STAGES stages of 2-byte elements */
/* Step 09, part 4: the epilogue stages C through the same shared memory once the ring is drained:
 * per warp, half its tile's columns at a time, rows padded by 8 floats (09's README, part 4). */
#define EPI_COLS (WN / 2)
#define EPI_STRIDE (EPI_COLS + 8)
#define EPI_BYTES (WARPS * WM * EPI_STRIDE * 4)
#define SMEM_BYTES (RING_BYTES > EPI_BYTES ? RING_BYTES : EPI_BYTES)
/* A tuned configuration may use more than the 99 KB every sm_80+ GPU allows (the launch
 * checks this GPU's limit); tuned/default.flags stays within 99 KB, so it runs anywhere. */
static_assert(
    SMEM_BYTES <= 227 * 1024,
    "the stages must fit the largest opt-in shared memory of sm_80+ GPUs (227 KB on sm_90)");
/* In the epilogue a half-warp's float2 writes cover 4 staged rows of 8 floats; rows EPI_STRIDE
 * floats apart start in 4 different groups of 8 banks, so together they fill the 32 banks. */
static_assert(EPI_STRIDE % 32 == 8 || EPI_STRIDE % 32 == 24,
              "4 consecutive staged rows start in 4 different 8-bank groups");

/* Elements (row, col .. col+7) of a row-major rows x cols matrix, as one 16-byte chunk;
 * zeros outside the matrix. VEC: one 16-byte load, legal when cols % 8 == 0 (then a
 * chunk is wholly inside or wholly outside). */
template <typename T, bool VEC>
__device__ uint4 load8(const T *X, int rows, int cols, int row, int col) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if constexpr (VEC) {
        if (row < rows && col < cols) v = *reinterpret_cast<const uint4 *>(&X[row * cols + col]);
    } else {
        T *e = reinterpret_cast<T *>(&v);
        for (int i = 0; i < 8; i++)
            if (row < rows && col + i < cols) e[i] = X[row * cols + col + i];
    }
    return v;
}

/* Step 09, part 5. The A tile's chunk c (8 elements, 16 bytes): its row and its first column, {row,
 * col}. Row-major order, except when a row is 4 chunks (BK = 32: 5 16-byte units per padded row):
 * the 8 threads of one 16-byte store phase then take rows r and r + 4 instead of r and r + 1. Rows
 * 1 apart start 5 units apart, so a phase's 8 units would meet twice in one of the 8 bank groups (a
 * 2-way conflict); rows 4 apart start 20 units apart and fill all 8. */
__device__ int2 a_chunk(int c) {
    if (BK / 8 != 4) return make_int2(c / (BK / 8), c % (BK / 8) * 8);
    return make_int2(c / 32 * 8 + c % 32 / 8 + c / 4 % 2 * 4, c % 4 * 8);
}

/* Step 09, part 1. Four 8 x 8 matrices of 16-bit elements from shared memory; lane i supplies the
 * address of row i % 8 of matrix i / 8, and receives two elements of each matrix. .trans hands out
 * columns instead of rows (B is stored n-contiguous, MN-major; mma wants it K-major). */
__device__ void ldmatrix_x4(uint32_t r[4], const void *row) {
    const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}
__device__ void ldmatrix_x4_trans(uint32_t r[4], const void *row) {
    const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* d = a * b + d for one 16 x 8 tile of C, K = 16; a: 16 x 16 row-major, b: 16 x 8 "col"
 * (K-major: k contiguous in a column), 2 elements per 32-bit register. */
template <typename T>
__device__ void mma_16816(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    if constexpr (std::is_same_v<T, __half>)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, "
            "%7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* C(row, col .. col + 3) = alpha * acc + beta * C, inside the matrix only; C is not read when
 * beta == 0. col is a multiple of 4, so with N a multiple of 4 the four are one aligned float4. */
__device__ void store4(float *C, int M, int N, int row, int col, float4 acc, float alpha,
                       float beta) {
    if (row >= M) return;
    float *c = &C[row * N + col];
    if (N % 4 == 0 && col + 3 < N) {
        const float4 old =
            beta != 0.0f ? *reinterpret_cast<float4 *>(c) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *reinterpret_cast<float4 *>(c) =
            make_float4(alpha * acc.x + beta * old.x, alpha * acc.y + beta * old.y,
                        alpha * acc.z + beta * old.z, alpha * acc.w + beta * old.w);
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
    for (int e = 0; e < 4; e++)
        if (col + e < N) c[e] = beta == 0.0f ? alpha * v[e] : alpha * v[e] + beta * c[e];
}

template <typename T, bool VEC>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    gemm_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta, float *C) {
#if __CUDA_ARCH__ >= 800 /* bf16 mma.sync needs sm_80: older builds are never launched */
    /* Three stages of (A tile row-major (k contiguous), B tile MN-major (n contiguous)), both
     * padded; dynamic shared memory, because the stages pass the 48 KB static limit. */
    extern __shared__ __align__(16) unsigned char smem[];
    T *const ring = reinterpret_cast<T *>(smem);
    /* Tiles are numbered down the columns of C, one block each (as in steps 01-08). */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / (BN / WN) * WM, warp_col = warp % (BN / WN) * WN;

    /* acc[i][j]: this lane's 4 elements of the warp's 16 x 8 tile (i, j): rows lane / 4 and
     * lane / 4 + 8, columns lane % 4 * 2 and + 1 (the mma.sync accumulator layout). */
    float acc[M_TILES][N_TILES][4] = {};
    /* As in step 08, the next slice waits in registers between its global load and its
     * shared store; chunk c of a tile is row c / (chunks per row), so consecutive threads
     * read consecutive 16 bytes of a row. */
    uint4 a_next[A_CHUNKS], b_next[B_CHUNKS];
    auto fetch =
        [&](int k0) { /* global -> registers; nothing waits for these loads until deposit() */
#pragma unroll
                      for (int i = 0; i < A_CHUNKS; i++) {
                          const int2 at = a_chunk(threadIdx.x + i * THREADS);
                          a_next[i] = load8<T, VEC>(A, M, K, row0 + at.x, k0 + at.y);
                      }
#pragma unroll
                      for (int i = 0; i < B_CHUNKS; i++) {
                          const int c = threadIdx.x + i * THREADS;
                          b_next[i] =
                              load8<T, VEC>(B, K, N, k0 + c / (BN / 8), col0 + c % (BN / 8) * 8);
                      }
        };
    auto deposit =
        [&](int stage) { /* registers -> shared, 16 bytes per store */
                         T *As = ring + stage * STAGE_ELEMS, *Bs = As + BM * A_STRIDE;
#pragma unroll
                         for (int i = 0; i < A_CHUNKS; i++) {
                             const int2 at = a_chunk(threadIdx.x + i * THREADS);
                             *reinterpret_cast<uint4 *>(&As[at.x * A_STRIDE + at.y]) = a_next[i];
                         }
#pragma unroll
                         for (int i = 0; i < B_CHUNKS; i++) {
                             const int c = threadIdx.x + i * THREADS;
                             *reinterpret_cast<uint4 *>(
                                 &Bs[c / (BN / 8) * B_STRIDE + c % (BN / 8) * 8]) = b_next[i];
                         }
        };

    /* Step 09, part 3. Slice s lives in stage s % 3. Slices 0 and 1 go in before the loop;
     * iteration s deposits slice s + 2. Its one barrier sits after the first half of the slice's
     * k16 steps, and orders exactly what must be ordered: every thread's reads of slice s - 1
     * (iteration s - 1) before this iteration's deposit into the same stage, and the deposit of
     * slice s + 1 (end of iteration s - 1) before anyone reads it (iteration s + 1). No barrier
     * separates a deposit from the next slice's first ldmatrix, and a warp that reaches the barrier
     * early still has the first half's mma queued in the tensor pipe. (With two stages the barrier
     * must come after the deposit and before the next reads: measured 3-4% slower.) */
    fetch(0);
    deposit(0);
    if (BK < K) {
        fetch(BK);
        deposit(1);
    }
    __syncthreads();
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        const bool more = k0 + 2 * BK < K;
        if (more) fetch(k0 + 2 * BK); /* in flight during the math below */
        const T(*As)[A_STRIDE] = reinterpret_cast<const T(*)[A_STRIDE]>(ring + stage * STAGE_ELEMS);
        const T(*Bs)[B_STRIDE] =
            reinterpret_cast<const T(*)[B_STRIDE]>(ring + stage * STAGE_ELEMS + BM * A_STRIDE);
#pragma unroll
        for (int kk = 0; kk < BK; kk += MMA_K) {
            uint32_t a[M_TILES][4], b[N_TILES][2];
            /* A fragment of tile i: lanes 0-15 point at rows 0-15 (k 0-7), lanes 16-31 at the
             * same rows, k 8-15: the four matrices arrive as mma's a0..a3. */
#pragma unroll
            for (int i = 0; i < M_TILES; i++)
                ldmatrix_x4(a[i], &As[warp_row + i * MMA_M + lane % 16][kk + lane / 16 * 8]);
                /* B fragments of tiles j and j + 1: lanes 0-15 point at k rows 0-15 of columns
                 * n .. n+7, lanes 16-31 at the same rows of n+8 .. n+15; transposed on the way. */
#pragma unroll
            for (int j = 0; j < N_TILES; j += 2) {
                uint32_t r[4];
                ldmatrix_x4_trans(r, &Bs[kk + lane % 16][warp_col + j * MMA_N + lane / 16 * 8]);
                b[j][0] = r[0];
                b[j][1] = r[1];
                b[j + 1][0] = r[2];
                b[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < M_TILES; i++)
#pragma unroll
                for (int j = 0; j < N_TILES; j++) mma_16816<T>(acc[i][j], a[i], b[j]);
            if (kk + MMA_K == BK / 2) __syncthreads();
        }
        if (more)
            deposit(stage == 0 ? STAGES - 1
                               : stage - 1); /* stage (s + 2) % 3: slice s - 1 was there */
    }

    /* Step 09, part 4, the epilogue. Stored straight from the accumulators, one instruction writes
     * 32 bytes to each of 8 rows: 8 partial lines. Instead each warp puts half its columns at a
     * time into shared memory (the ring is free once the barrier has seen every warp's last
     * ldmatrix), then reads them back as rows of float4: a quarter-warp writes WN / 2 consecutive
     * floats of one row. */
    __syncthreads();
    float *const staged = reinterpret_cast<float *>(smem) + warp * WM * EPI_STRIDE;
#pragma unroll
    for (int half = 0; half < 2; half++) {
#pragma unroll
        for (int i = 0; i < M_TILES; i++)
#pragma unroll
            for (int j = 0; j < N_TILES / 2; j++) {
                float *at = &staged[(i * MMA_M + lane / 4) * EPI_STRIDE + j * MMA_N + lane % 4 * 2];
                const float *d = acc[i][half * N_TILES / 2 + j];
                *reinterpret_cast<float2 *>(at) = make_float2(d[0], d[1]);
                *reinterpret_cast<float2 *>(at + 8 * EPI_STRIDE) = make_float2(d[2], d[3]);
            }
        __syncwarp();
#pragma unroll 4
        for (int e = lane * 4; e < WM * EPI_COLS; e += 32 * 4) {
            const int r = e / EPI_COLS, c = e % EPI_COLS;
            store4(C, M, N, row0 + warp_row + r, col0 + warp_col + half * EPI_COLS + c,
                   *reinterpret_cast<const float4 *>(&staged[r * EPI_STRIDE + c]), alpha, beta);
        }
        __syncwarp(); /* read back before the next half overwrites it */
    }
#endif
}

template <typename T> static cudaError_t launch_typed(gemm_args *p, bool vec) {
    dim3 block(THREADS);
    dim3 grid(ceil_div(p->m, BM) * ceil_div(p->n, BN));
    /* Above 48 KB of dynamic shared memory a kernel must opt in, once per instantiation. */
    static bool opted_in = false;
    if (!opted_in) {
        int device = 0, optin = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        if (SMEM_BYTES > optin) {
            fprintf(stderr,
                    "%s: this build needs %d KB of shared memory per block, this GPU allows %d KB: "
                    "build it with tuned/default.flags\n",
                    STEP_NAME, SMEM_BYTES / 1024, optin / 1024);
            return cudaErrorInvalidConfiguration;
        }
        cudaError_t err = cudaFuncSetAttribute(
            gemm_kernel<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (err == cudaSuccess)
            err = cudaFuncSetAttribute(gemm_kernel<T, false>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (err != cudaSuccess) return err;
        opted_in = true;
    }
    if (vec)
        gemm_kernel<T, true><<<grid, block, SMEM_BYTES>>>(
            p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    else
        gemm_kernel<T, false><<<grid, block, SMEM_BYTES>>>(
            p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

static cudaError_t launch_gemm(gemm_args *p) {
    /* 16-byte global loads need 16-byte aligned rows: K and N multiples of 8 elements. */
    const bool vec = p->k % 8 == 0 && p->n % 8 == 0 && ((size_t)p->a | (size_t)p->b) % 16 == 0;
    p->path = vec ? "16-byte" : "scalar";
    return p->dtype == GEMM_F16 ? launch_typed<__half>(p, vec)
                                : launch_typed<__nv_bfloat16>(p, vec);
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME,
                                   GEMM_F16 | GEMM_BF16,
                                   launch_gemm,
                                   CONFIG,
                                   (const void *)gemm_kernel<__half, true>,
                                   80,
                                   0,
                                   "mma.sync.m16n8k16 with bf16 and ldmatrix (sm_80 or newer: "
                                   "A100, RTX 30/40/50, L4, H100, B200)"};
    return gemm_main(argc, argv, &step);
}
