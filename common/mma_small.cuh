/*
 * mma_small.cuh: step 29's kernel for problems of small K whose rows are not 16-byte units (K or N
 * not a multiple of 8, or operands on 2-byte boundaries), on the tensor cores of step 09:
 * mma.sync m16n8k16 on 64 x 64 tiles, 4 warps of 32 x 32. No tensor map and no copy: A and B are
 * read where they lie, an element per 2-byte load, predicated at every edge, and C is stored
 * directly, a warp writing 32 consecutive floats of a row. Small blocks, many an SM: a block has
 * one slice in flight, and other blocks' loads and C stores overlap its own (6 blocks an SM
 * measured faster than 4 where the tiles make several waves: README.md).
 * Needs mma_m16n8k16 (stream_n.cuh); included before plan.h, which names its tile.
 */
#ifndef MMA_SMALL_CUH
#define MMA_SMALL_CUH

#include <stdint.h>

#include "gemm.h"

#define MMA_SMALL_TILE 64    /* a block's tile of C: 64 x 64 */
#define MMA_SMALL_BK 32      /* K per slice: two m16n8k16 steps */
#define MMA_SMALL_THREADS 128 /* 4 warps, each a 32 x 32 quarter of the tile */
/* Blocks an SM holds: __launch_bounds__ gives each thread 128 registers at 4, 80 at 6 (there the
 * slice's two k steps run one at a time). 6 where the tiles make more than one wave of 4 an SM. */
#define MMA_SMALL_BLOCKS 4
#define MMA_SMALL_MORE_BLOCKS 6
/* Operand rows of BK + 8 elements (80 bytes, 20 words): the 8 rows g of a fragment read start 20 g
 * words apart, 8 distinct groups of 4 banks, so a warp's fragment load is conflict-free. */
#define MMA_SMALL_ROW (MMA_SMALL_BK + 8)
#define MMA_SMALL_LOADS (MMA_SMALL_TILE * MMA_SMALL_BK / MMA_SMALL_THREADS) /* of A, and of B */

/* The operands' slices during the K loop, then C on its way out: one buffer, used in turn. */
union mma_small_smem {
    struct {
        uint16_t a[MMA_SMALL_TILE][MMA_SMALL_ROW]; /* A's slice, [m][k] */
        uint16_t b[MMA_SMALL_TILE][MMA_SMALL_ROW]; /* B's slice transposed, [n][k] */
    } in;
    /* Rows of 68 floats: a half-warp's float2 stores (rows g, g + 8 apart by 4 g banks) meet
     * 2-way conflicts, once per tile; the row reads for the stores to C are conflict-free. */
    float c[MMA_SMALL_TILE][MMA_SMALL_TILE + 4];
};

static_assert(MMA_SMALL_THREADS == 2 * MMA_SMALL_TILE &&
                  MMA_SMALL_TILE * MMA_SMALL_TILE == 4 * 32 * 32,
              "the load mapping and the warps' 32 x 32 quarters assume 128 threads");
static_assert(MMA_SMALL_BK == 32,
              "a slice is whole m16n8k16 steps; a thread loads column tid % 32 of A's rows");
static_assert(MMA_SMALL_LOADS % 2 == 0, "loads are packed two 16-bit elements a register");
static_assert((sizeof(mma_small_smem) + 1024) * MMA_SMALL_MORE_BLOCKS <= 228 * 1024,
              "the blocks an SM should hold fit its 228 KB, 1 KB reserved a block");

/* The thread's elements of the slice at k0, packed two a register: A at rows tid / 32 + 4 i,
 * column tid % 32 (a warp reads 32 consecutive k of a row); B at k rows tid / 64 + 2 i, column
 * tid % 64 (a warp reads 32 consecutive columns). Zeros outside the matrices. */
__device__ __forceinline__ void mma_small_load(int M, int N, int K, const uint16_t *A,
                                               const uint16_t *B, int row0, int col0, int k0,
                                               uint32_t (&a)[MMA_SMALL_LOADS / 2],
                                               uint32_t (&b)[MMA_SMALL_LOADS / 2]) {
    const int ar = row0 + threadIdx.x / MMA_SMALL_BK, ak = k0 + threadIdx.x % MMA_SMALL_BK;
    const int bk = k0 + threadIdx.x / MMA_SMALL_TILE, bn = col0 + threadIdx.x % MMA_SMALL_TILE;
    const uint16_t *const pa = A + (size_t)ar * K + ak, *const pb = B + (size_t)bk * N + bn;
#pragma unroll
    for (int i = 0; i < MMA_SMALL_LOADS; i++) {
        const uint32_t va = ar + 4 * i < M && ak < K ? __ldg(pa + (size_t)4 * i * K) : 0u;
        const uint32_t vb = bk + 2 * i < K && bn < N ? __ldg(pb + (size_t)2 * i * N) : 0u;
        a[i / 2] = i % 2 ? a[i / 2] | va << 16 : va;
        b[i / 2] = i % 2 ? b[i / 2] | vb << 16 : vb;
    }
}

/* The loaded elements into shared memory, B transposed: a warp's 32 columns land 20 words apart,
 * on 8 banks, 4-way conflicts in its 2-byte stores; the price of conflict-free fragment reads. */
__device__ __forceinline__ void mma_small_stage(mma_small_smem &s,
                                                const uint32_t (&a)[MMA_SMALL_LOADS / 2],
                                                const uint32_t (&b)[MMA_SMALL_LOADS / 2]) {
    const int ar = threadIdx.x / MMA_SMALL_BK, ak = threadIdx.x % MMA_SMALL_BK;
    const int bk = threadIdx.x / MMA_SMALL_TILE, bn = threadIdx.x % MMA_SMALL_TILE;
#pragma unroll
    for (int i = 0; i < MMA_SMALL_LOADS; i++) {
        s.in.a[ar + 4 * i][ak] = (uint16_t)(a[i / 2] >> 16 * (i % 2));
        s.in.b[bn][bk + 2 * i] = (uint16_t)(b[i / 2] >> 16 * (i % 2));
    }
}

/* The warp's 32 x 32 quarter of the slice: 2 x 4 m16n8k16 tiles, two k steps. Lane (g, t) holds
 * of A rows g, g + 8, k pairs 2t and 2t + 8; of B column g, the same k pairs (step 09's layout). */
template <typename T, int BLOCKS>
__device__ __forceinline__ void mma_small_slice(const mma_small_smem &s, int wm, int wn,
                                                float (&acc)[2][4][4]) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    /* At 80 registers (6 blocks an SM) the two k steps unrolled spill: one at a time does not */
    constexpr int unrolled = BLOCKS > MMA_SMALL_BLOCKS ? 1 : MMA_SMALL_BK / 16;
#pragma unroll unrolled
    for (int kk = 0; kk < MMA_SMALL_BK; kk += 16) {
        uint32_t a[2][4], b[4][2];
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
            for (int q = 0; q < 4; q++) /* rows g, g + 8; k 2t, then 2t + 8 */
                a[i][q] = *reinterpret_cast<const uint32_t *>(
                    &s.in.a[wm + 16 * i + g + 8 * (q % 2)][kk + 2 * t + 8 * (q / 2)]);
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int q = 0; q < 2; q++)
                b[j][q] = *reinterpret_cast<const uint32_t *>(
                    &s.in.b[wn + 8 * j + g][kk + 2 * t + 8 * q]);
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                mma_m16n8k16<T>(acc[i][j], a[i][0], a[i][1], a[i][2], a[i][3], b[j][0], b[j][1]);
    }
}

/* One 64 x 64 tile of C per block, tiles down M first. The next slice's loads are issued before
 * this slice is multiplied, so they are in flight under the MMAs; then C goes through shared
 * memory, so that each warp stores whole rows. */
template <typename T, int BLOCKS>
__global__ void __launch_bounds__(MMA_SMALL_THREADS, BLOCKS)
    mma_small_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                     float *C) {
    __shared__ __align__(16) mma_small_smem s;
    const int tiles_m = ceil_div(M, MMA_SMALL_TILE);
    const int row0 = blockIdx.x % tiles_m * MMA_SMALL_TILE;
    const int col0 = blockIdx.x / tiles_m * MMA_SMALL_TILE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp % 2 * 32, wn = warp / 2 * 32;
    const uint16_t *const a16 = reinterpret_cast<const uint16_t *>(A);
    const uint16_t *const b16 = reinterpret_cast<const uint16_t *>(B);
    uint32_t a[MMA_SMALL_LOADS / 2], b[MMA_SMALL_LOADS / 2];
    float acc[2][4][4] = {};
    mma_small_load(M, N, K, a16, b16, row0, col0, 0, a, b);
    for (int k0 = 0; k0 < K; k0 += MMA_SMALL_BK) {
        __syncthreads(); /* every warp is done with the last slice */
        mma_small_stage(s, a, b);
        __syncthreads();
        if (k0 + MMA_SMALL_BK < K)
            mma_small_load(M, N, K, a16, b16, row0, col0, k0 + MMA_SMALL_BK, a, b);
        mma_small_slice<T, BLOCKS>(s, wm, wn, acc);
    }
    __syncthreads(); /* the operands' buffer becomes C's */
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *reinterpret_cast<float2 *>(&s.c[wm + 16 * i + g + 8 * h][wn + 8 * j + 2 * t]) =
                    make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
    __syncthreads();
    for (int r = warp; r < MMA_SMALL_TILE && row0 + r < M; r += MMA_SMALL_THREADS / 32) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int col = col0 + lane + 32 * h;
            if (col >= N) continue;
            float *const c = &C[(size_t)(row0 + r) * N + col];
            const float v = alpha * s.c[r][lane + 32 * h];
            *c = beta == 0.0f ? v : v + beta * *c;
        }
    }
}

/* Host arithmetic, shared by the launch and the plan. */
static int mma_small_tiles(int m, int n) {
    return ceil_div(m, MMA_SMALL_TILE) * ceil_div(n, MMA_SMALL_TILE);
}
/* the tiles all fit the SMs at once, MMA_SMALL_BLOCKS an SM */
static bool mma_small_one_wave(int m, int n, int sms) {
    return mma_small_tiles(m, n) <= MMA_SMALL_BLOCKS * sms;
}
static int mma_small_blocks(int m, int n, int sms) {
    return mma_small_one_wave(m, n, sms) ? MMA_SMALL_BLOCKS : MMA_SMALL_MORE_BLOCKS;
}
static void describe_mma_small(char *out, int blocks_per_sm) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=mma_small tile=%dx%d blocks=%d",
             MMA_SMALL_TILE, MMA_SMALL_TILE, blocks_per_sm);
}

template <typename T> static cudaError_t launch_mma_small(gemm_args *p, int sms) {
    const int per_sm = mma_small_blocks(p->m, p->n, sms);
    describe_mma_small(p->kernel, per_sm);
    const auto kernel = per_sm == MMA_SMALL_BLOCKS ? mma_small_kernel<T, MMA_SMALL_BLOCKS>
                                                   : mma_small_kernel<T, MMA_SMALL_MORE_BLOCKS>;
    kernel<<<mma_small_tiles(p->m, p->n), MMA_SMALL_THREADS>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

#endif /* MMA_SMALL_CUH */
