/*
 * Step 10: a cp.async pipeline. Step 09's tensor-core math, with the tiles
 * brought in by cp.async (16 bytes per instruction, global -> shared without
 * passing through registers) into a ring of STAGES shared-memory stages, so
 * that STAGES - 1 slices are in flight while one is multiplied. Each thread
 * commits its copies of a slice as one cp.async group; cp.async.wait_group
 * STAGES - 2 then tells it that its copies of the next slice have landed, and
 * the slice's one __syncthreads() makes everyone's copies visible to all.
 * The barrier moves to where a warp has loaded the slice's last fragments
 * (each k16 step's fragments are loaded while the step before multiplies):
 * once every warp has passed it nobody reads the stage again, so its refill
 * is issued at the start of the next slice, not after a barrier inside it.
 *
 *     make step N=10 && ./10_double_buffer/gemm 4096 --dtype fp16 --cublas
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
#ifndef STAGES /* shared-memory stages in the ring */
#define STAGES 3
#endif
#define A_STRIDE (BK + PAD)
#define B_STRIDE (BN + PAD)
#define A_CHUNKS                                                                                   \
    (BM * BK / 8 / THREADS) /* 16-byte chunks of 8 elements each thread copies per slice */
#define B_CHUNKS (BK * BN / 8 / THREADS)
#define CONFIG                                                                                     \
    "BM=" GEMM_STR(BM) " BN=" GEMM_STR(BN) " BK=" GEMM_STR(BK) " WM=" GEMM_STR(                    \
        WM) " WN=" GEMM_STR(WN) " STAGES=" GEMM_STR(STAGES) " MIN_BLOCKS=" GEMM_STR(MIN_BLOCKS)
#define K_STEPS (BK / MMA_K) /* k16 steps per slice */

static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles must cover the block tile exactly");
static_assert(WM % MMA_M == 0, "a warp tile is whole m16 tiles down");
static_assert(WN % (2 * MMA_N) == 0,
              "a warp tile is whole pairs of n8 tiles across (one ldmatrix.x4.trans loads two)");
static_assert(BK % (2 * MMA_K) == 0, "a K slice is whole k16 steps, an even number: the barrier "
                                     "sits in the second-to-last, and fragments alternate "
                                     "between two register sets");
static_assert(BK % 8 == 0 && BN % 8 == 0, "tiles are copied in 16-byte chunks of 8 elements");
static_assert((BM * BK / 8) % THREADS == 0 && (BK * BN / 8) % THREADS == 0,
              "the chunks of a tile divide evenly among the threads");
static_assert(A_STRIDE * 2 % 16 == 0 && B_STRIDE * 2 % 16 == 0,
              "ldmatrix and 16-byte stores need 16-byte aligned rows");
/* -DPAD=0 builds the unpadded layout, to measure what the padding buys (README). */
static_assert(PAD == 0 || (A_STRIDE * 2 / 16 % 2 == 1 && B_STRIDE * 2 / 16 % 2 == 1),
              "an odd number of 16-byte units per row: the 8 rows of an 8 x 8 matrix land in 8 "
              "different bank groups");
static_assert(
    THREADS % (BK / 8) == 0 && THREADS % (BN / 8) == 0,
    "a thread's next chunk is whole rows further down (the whole-slice path steps a pointer)");
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
static_assert(STAGES >= 2, "a pipeline needs a stage to fill while another is read");
/* A tuned configuration may use more than the 99 KB every sm_80+ GPU allows (the launch
 * checks this GPU's limit); tuned/default.flags stays within 99 KB, so it runs anywhere. */
static_assert(
    SMEM_BYTES <= 227 * 1024,
    "the stages must fit the largest opt-in shared memory of sm_80+ GPUs (227 KB on sm_90)");
/* In the epilogue a half-warp's float2 writes cover 4 staged rows of 8 floats; rows EPI_STRIDE
 * floats apart start in 4 different groups of 8 banks, so together they fill the 32 banks. */
static_assert(EPI_STRIDE % 32 == 8 || EPI_STRIDE % 32 == 24,
              "4 consecutive staged rows start in 4 different 8-bank groups");

/* Elements (row, col .. col+7) of a row-major rows x cols matrix into shared memory
 * at dst; zeros outside the matrix. VEC: one asynchronous 16-byte copy, legal when
 * cols % 8 == 0 (then a chunk is wholly inside or wholly outside); outside, the
 * source size is 0 and cp.async writes 16 bytes of zeros without reading (the source
 * address is then X itself, a valid one). .ca, not .cg: .ca keeps the copies' sectors in
 * L1, which takes fewer L2 requests, as long as L1 keeps room for the copies in flight
 * (README, "Tried").
 * Otherwise plain loads and stores: the barrier that publishes a slice publishes them too. */
template <typename T, bool VEC>
__device__ void copy8(T *dst, const T *X, int rows, int cols, int row, int col) {
    if constexpr (VEC) {
        const bool inside = row < rows && col < cols;
        const uint32_t to = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(to),
                     "l"(inside ? &X[row * cols + col] : X), "r"(inside ? 16 : 0)
                     : "memory");
    } else {
        for (int i = 0; i < 8; i++)
            dst[i] = row < rows && col + i < cols ? X[row * cols + col + i] : static_cast<T>(0.0f);
    }
}

/* 16 bytes known to lie inside the matrix: no predicate, no source size, nothing to select. */
__device__ void copy16_inside(void *dst, const void *src) {
    const uint32_t to = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(to), "l"(src) : "memory");
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
    /* STAGES stages of (A tile row-major (k contiguous), B tile MN-major (n contiguous)), both
     * padded; dynamic shared memory, because the stages pass the 48 KB static limit. */
    extern __shared__ __align__(16) unsigned char smem[];
    T *const ring = reinterpret_cast<T *>(smem);
    /* Tiles are numbered down the columns of C, one block each (as in steps 01-08). */
    const int tiles_m = ceil_div(M, BM);
    const int row0 = (blockIdx.x % tiles_m) * BM, col0 = (blockIdx.x / tiles_m) * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / (BN / WN) * WM, warp_col = warp % (BN / WN) * WN;
    const int slices = ceil_div(K, BK);

    /* acc[i][j]: this lane's 4 elements of the warp's 16 x 8 tile (i, j): rows lane / 4 and
     * lane / 4 + 8, columns lane % 4 * 2 and + 1 (the mma.sync accumulator layout). */
    float acc[M_TILES][N_TILES][4] = {};
    /* Slice `slice` into stage `stage`, then one commit: the slice is this thread's newest
     * group. Past the last slice the group is empty, so that every iteration commits one and
     * wait_group's count keeps its meaning. */
    auto issue = [&](int slice, int stage) {
        if (slice < slices) {
            T *As = ring + stage * STAGE_ELEMS, *Bs = As + BM * A_STRIDE;
            const int k0 = slice * BK;
            if (VEC && row0 + BM <= M && col0 + BN <= N && k0 + BK <= K) {
                /* The whole slice lies inside A and B (every slice of an interior tile): no bounds
                 * to test and no zero-fill to select. Chunk i of this thread lies A_ROWS_APART rows
                 * below chunk i - 1, so each copy is a pointer step and the copy itself, where the
                 * general path below spends about 11 instructions, issued by the same warps that
                 * multiply. */
                constexpr int A_ROWS_APART = THREADS / (BK / 8), B_ROWS_APART = THREADS / (BN / 8);
                const int2 a0 = a_chunk(threadIdx.x);
                const int b_row = threadIdx.x / (BN / 8), b_col = threadIdx.x % (BN / 8) * 8;
                const T *a = &A[(size_t)(row0 + a0.x) * K + k0 + a0.y],
                        *b = &B[(size_t)(k0 + b_row) * N + col0 + b_col];
#pragma unroll
                for (int i = 0; i < A_CHUNKS; i++, a += (size_t)A_ROWS_APART * K)
                    copy16_inside(&As[(a0.x + i * A_ROWS_APART) * A_STRIDE + a0.y], a);
#pragma unroll
                for (int i = 0; i < B_CHUNKS; i++, b += (size_t)B_ROWS_APART * N)
                    copy16_inside(&Bs[(b_row + i * B_ROWS_APART) * B_STRIDE + b_col], b);
            } else {
                /* Chunk c of a tile is row c / (chunks per row): consecutive threads copy
                 * consecutive 16 bytes of a row. Unrolled by 2: fully unrolled, both kernels spill
                 * (the plain-load one 160 bytes at the H200's tiles). */
#pragma unroll 2
                for (int i = 0; i < A_CHUNKS; i++) {
                    const int2 at = a_chunk(threadIdx.x + i * THREADS);
                    copy8<T, VEC>(&As[at.x * A_STRIDE + at.y], A, M, K, row0 + at.x, k0 + at.y);
                }
#pragma unroll 2
                for (int i = 0; i < B_CHUNKS; i++) {
                    const int c = threadIdx.x + i * THREADS;
                    copy8<T, VEC>(&Bs[c / (BN / 8) * B_STRIDE + c % (BN / 8) * 8], B, K, N,
                                  k0 + c / (BN / 8), col0 + c % (BN / 8) * 8);
                }
            }
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    /* The fragments of one k16 step of the slice in `stage`, at depth kk. */
    auto load_fragments = [&](uint32_t(&a)[M_TILES][4], uint32_t(&b)[N_TILES][2], int stage,
                              int kk) {
        const T(*As)[A_STRIDE] = reinterpret_cast<const T(*)[A_STRIDE]>(ring + stage * STAGE_ELEMS);
        const T(*Bs)[B_STRIDE] =
            reinterpret_cast<const T(*)[B_STRIDE]>(ring + stage * STAGE_ELEMS + BM * A_STRIDE);
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
    };
    /* The mma of rows i0 .. i1 - 1 of the warp's mma tiles. */
    auto multiply = [&](const uint32_t(&a)[M_TILES][4], const uint32_t(&b)[N_TILES][2], int i0,
                        int i1) {
#pragma unroll
        for (int i = i0; i < i1; i++)
#pragma unroll
            for (int j = 0; j < N_TILES; j++) mma_16816<T>(acc[i][j], a[i], b[j]);
    };

    /* Slice s lives in stage s % STAGES. Slices 0 .. STAGES - 2 are issued before the loop;
     * iteration s issues slice s + STAGES - 1 into the stage slice s - 1 was read from. Its one
     * barrier sits in the second-to-last k16 step, once this warp has loaded the slice's last
     * fragments, and orders exactly what must be ordered:
     * - every warp's reads of slice s (its last ldmatrix) before anyone refills the stage, at
     *   the start of iteration s + 1;
     * - every thread's copies of slice s + 1 (its wait_group just before: all but the newest
     *   STAGES - 2 groups have landed, and slice s + 1 is older) before anyone reads them, at
     *   the end of iteration s, where each warp loads slice s + 1's first fragments while its
     *   last mma of slice s run.
     * So STAGES - 1 slices are in flight at the barrier, where step 09 could only have STAGES - 2
     * with its refill after a barrier in the middle of the slice. A warp that arrives early still
     * has the first half of a k16 step's mma queued in the tensor pipe. */
    for (int s = 0; s < STAGES - 1; s++) issue(s, s);
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
    __syncthreads();
    uint32_t a[2][M_TILES][4],
        b[2][N_TILES][2]; /* one k16 step's fragments multiplied, the next one's arriving */
    load_fragments(a[0], b[0], 0, 0);
    int stage = 0;
    for (int slice = 0; slice < slices; slice++) {
        const int next = stage == STAGES - 1 ? 0 : stage + 1;
#pragma unroll
        for (int step = 0; step < K_STEPS; step++) {
            const int now = step % 2, ahead = (step + 1) % 2;
            if (step + 1 < K_STEPS) load_fragments(a[ahead], b[ahead], stage, (step + 1) * MMA_K);
            if (step == 0) issue(slice + STAGES - 1, stage == 0 ? STAGES - 1 : stage - 1);
            if (step == K_STEPS - 2) {
                multiply(a[now], b[now], 0, M_TILES / 2);
                asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
                __syncthreads();
                multiply(a[now], b[now], M_TILES / 2, M_TILES);
            } else {
                multiply(a[now], b[now], 0, M_TILES);
            }
            if (step + 1 == K_STEPS && slice + 1 < slices)
                load_fragments(a[ahead], b[ahead], next, 0);
        }
        stage = next;
    }
    asm volatile("cp.async.wait_group 0;" ::
                     : "memory"); /* only empty groups are left; C reuses the ring */

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
                                   "mma.sync.m16n8k16 with bf16 and ldmatrix and cp.async (sm_80 "
                                   "or newer: A100, RTX 30/40/50, L4, H100, B200)"};
    return gemm_main(argc, argv, &step);
}
