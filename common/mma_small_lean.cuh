/*
 * mma_small_lean.cuh: step 29's mma_small (mma_small.cuh, whose names it keeps: a step includes one
 * or the other, and `make diff N=30` shows this header against it) with fewer instructions a
 * warp. On a small grid an SM holds one block or none and a scheduler one warp, with nothing to
 * hide the latency of its instructions, and step 29's loads took several instructions an element
 * (a 64-bit address each, the operand's base reloaded from the constant bank, a 2-byte shared
 * store: docs/29_tiny_grids.md). Here a thread loads pairs of consecutive k, the two halves of one
 * 32-bit word of shared memory, from pointers that step by a fixed stride, with the bounds that do
 * not change across a slice tested once. And the tile is a template parameter: 32 x 32 where
 * 64 x 64 tiles would be few, four times the blocks, each warp a quarter of the MMAs and half the
 * loads a slice. Still no tensor map and no copy: A and B read where they lie, 2 bytes at a time,
 * predicated at every edge; C stored directly, 32 consecutive floats a warp.
 * Needs mma_m16n8k16 (stream_n.cuh); included before plan.h, which names its tile.
 */
#ifndef MMA_SMALL_CUH
#define MMA_SMALL_CUH

#include <stdint.h>

#include "gemm.h"

#define MMA_SMALL_TILE 64    /* a block's tile of C: 64 x 64, or on a small grid 32 x 32 */
#define MMA_SMALL_TILE_SMALL 32
#define MMA_SMALL_BK 32      /* K per slice: two m16n8k16 steps */
#define MMA_SMALL_THREADS 128 /* 4 warps, each a quarter of the tile (2 x 2) */
/* Blocks an SM holds: __launch_bounds__ gives each thread 128 registers at 4, 80 at 6 (there the
 * slice's two k steps run one at a time). 6 where the tiles make more than one wave of 4 an SM. */
#define MMA_SMALL_BLOCKS 4
#define MMA_SMALL_MORE_BLOCKS 6
/* Operand rows of BK + 8 elements (80 bytes, 20 words): the 8 rows g of a fragment read start 20 g
 * words apart, 8 distinct groups of 4 banks, so a warp's fragment load is conflict-free. */
#define MMA_SMALL_ROW (MMA_SMALL_BK + 8)

/* A TILE x TILE tile's work split among the threads: of each operand a thread loads PAIRS pairs
 * of consecutive k a slice; of A, A_PAIRS threads across a row of the slice and so A_ROWS rows a
 * pass; of B, a thread a column and B_KS k a pass. Each warp multiplies a WM x WN quarter. */
template <int TILE> struct mma_small_shape {
    static constexpr int PAIRS = TILE * MMA_SMALL_BK / MMA_SMALL_THREADS / 2;
    static constexpr int A_PAIRS = MMA_SMALL_BK / 2, A_ROWS = MMA_SMALL_THREADS / A_PAIRS;
    static constexpr int B_KS = 2 * MMA_SMALL_THREADS / TILE;
    static constexpr int WM = TILE / 2, WN = TILE / 2, MI = WM / 16, NJ = WN / 8; /* m16n8 tiles */
    static_assert(A_ROWS * PAIRS == TILE && B_KS * PAIRS == MMA_SMALL_BK,
                  "a thread's pairs cover A's TILE rows and B's 32 k of the slice once");
    static_assert(MMA_SMALL_THREADS % TILE == 0 && TILE % 32 == 0,
                  "B's columns a whole number of passes; C stored 32 floats of a row a warp");
};

/* The operands' slices during the K loop, then C on its way out: one buffer, used in turn. */
template <int TILE> union mma_small_smem {
    struct {
        uint16_t a[TILE][MMA_SMALL_ROW]; /* A's slice, [m][k] */
        uint16_t b[TILE][MMA_SMALL_ROW]; /* B's slice transposed, [n][k] */
    } in;
    /* Rows of TILE + 4 floats: a half-warp's float2 stores (rows g, g + 8 apart by 4 g banks)
     * meet 2-way conflicts, once per tile; the row reads for the stores to C are conflict-free. */
    float c[TILE][TILE + 4];
};

static_assert(MMA_SMALL_BK == 32,
              "a slice is two m16n8k16 steps, its rows 20 words apart (MMA_SMALL_ROW)");
static_assert((sizeof(mma_small_smem<MMA_SMALL_TILE>) + 1024) * MMA_SMALL_MORE_BLOCKS <=
                  228 * 1024,
              "the blocks an SM should hold fit its 228 KB, 1 KB reserved a block");

/* The thread's elements of the slice at k0, as pairs of consecutive k (each the two halves of a
 * 32-bit word of shared memory): of A, rows tid / 16 + 8 i, k 2 (tid % 16) and the next (a warp
 * reads two rows, 64 bytes of each); of B, column tid % TILE (a warp reads 32 consecutive
 * columns), k 2 (tid / TILE) + B_KS i and the next. Each pair from a pointer that steps by 8 K (A)
 * or B_KS N (B) elements; the bounds that hold across the slice are tested once. Zeros outside. */
template <int TILE, int PAIRS = mma_small_shape<TILE>::PAIRS>
__device__ __forceinline__ void mma_small_load(int M, int N, int K, const uint16_t *A,
                                               const uint16_t *B, int row0, int col0, int k0,
                                               uint32_t (&a)[PAIRS], uint32_t (&b)[PAIRS]) {
    using S = mma_small_shape<TILE>;
    const int ar = row0 + threadIdx.x / S::A_PAIRS, ak = k0 + 2 * (threadIdx.x % S::A_PAIRS);
    const int bk = k0 + 2 * (threadIdx.x / TILE), bn = col0 + threadIdx.x % TILE;
    const int rows_left = M - ar, ks_left = K - bk;
    const bool a_lo = ak < K, a_hi = ak + 1 < K, b_col = bn < N;
    const uint16_t *pa = A + (size_t)ar * K + ak, *pb = B + (size_t)bk * N + bn;
    const size_t a_step = (size_t)S::A_ROWS * K, b_step = (size_t)S::B_KS * N;
#pragma unroll
    for (int i = 0; i < PAIRS; i++) {
        const bool row = S::A_ROWS * i < rows_left;
        const bool b_lo = b_col && S::B_KS * i < ks_left, b_hi = b_col && S::B_KS * i + 1 < ks_left;
        const uint32_t lo = row && a_lo ? __ldg(pa) : 0u, hi = row && a_hi ? __ldg(pa + 1) : 0u;
        a[i] = lo | hi << 16;
        b[i] = (b_lo ? __ldg(pb) : 0u) | (b_hi ? __ldg(pb + N) : 0u) << 16;
        pa += a_step;
        pb += b_step;
    }
}

/* The pairs into shared memory, a 32-bit store each, B transposed: a warp's 32 columns land 20
 * words apart, on 8 banks, 4-way conflicts; the price of conflict-free fragment reads. */
template <int TILE, int PAIRS = mma_small_shape<TILE>::PAIRS>
__device__ __forceinline__ void mma_small_stage(mma_small_smem<TILE> &s, const uint32_t (&a)[PAIRS],
                                                const uint32_t (&b)[PAIRS]) {
    using S = mma_small_shape<TILE>;
    const int ar = threadIdx.x / S::A_PAIRS, ak = 2 * (threadIdx.x % S::A_PAIRS);
    const int bk = 2 * (threadIdx.x / TILE), bn = threadIdx.x % TILE;
#pragma unroll
    for (int i = 0; i < PAIRS; i++) {
        *reinterpret_cast<uint32_t *>(&s.in.a[ar + S::A_ROWS * i][ak]) = a[i];
        *reinterpret_cast<uint32_t *>(&s.in.b[bn][bk + S::B_KS * i]) = b[i];
    }
}

/* The warp's quarter of the slice: MI x NJ m16n8k16 tiles, two k steps. Lane (g, t) holds of A
 * rows g, g + 8, k pairs 2t and 2t + 8; of B column g, the same k pairs (step 09's layout). */
template <typename T, int TILE, int BLOCKS, typename S = mma_small_shape<TILE>>
__device__ __forceinline__ void mma_small_slice(const mma_small_smem<TILE> &s, int wm, int wn,
                                                float (&acc)[S::MI][S::NJ][4]) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    /* At 80 registers (6 blocks an SM) the two k steps unrolled spill: one at a time does not */
    constexpr int unrolled = BLOCKS > MMA_SMALL_BLOCKS ? 1 : MMA_SMALL_BK / 16;
#pragma unroll unrolled
    for (int kk = 0; kk < MMA_SMALL_BK; kk += 16) {
        uint32_t a[S::MI][4], b[S::NJ][2];
#pragma unroll
        for (int i = 0; i < S::MI; i++)
#pragma unroll
            for (int q = 0; q < 4; q++) /* rows g, g + 8; k 2t, then 2t + 8 */
                a[i][q] = *reinterpret_cast<const uint32_t *>(
                    &s.in.a[wm + 16 * i + g + 8 * (q % 2)][kk + 2 * t + 8 * (q / 2)]);
#pragma unroll
        for (int j = 0; j < S::NJ; j++)
#pragma unroll
            for (int q = 0; q < 2; q++)
                b[j][q] = *reinterpret_cast<const uint32_t *>(
                    &s.in.b[wn + 8 * j + g][kk + 2 * t + 8 * q]);
#pragma unroll
        for (int i = 0; i < S::MI; i++)
#pragma unroll
            for (int j = 0; j < S::NJ; j++)
                mma_m16n8k16<T>(acc[i][j], a[i][0], a[i][1], a[i][2], a[i][3], b[j][0], b[j][1]);
    }
}

/* One TILE x TILE tile of C per block, tiles down M first. The next slice's loads are issued
 * before this slice is multiplied, so they are in flight under the MMAs; then C goes through
 * shared memory, so that each warp stores whole rows. */
template <typename T, int TILE, int BLOCKS>
__global__ void __launch_bounds__(MMA_SMALL_THREADS, BLOCKS)
    mma_small_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                     float *C) {
    using S = mma_small_shape<TILE>;
    __shared__ __align__(16) mma_small_smem<TILE> s;
    const int tiles_m = ceil_div(M, TILE);
    const int row0 = blockIdx.x % tiles_m * TILE, col0 = blockIdx.x / tiles_m * TILE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp % 2 * S::WM, wn = warp / 2 * S::WN;
    const uint16_t *const a16 = reinterpret_cast<const uint16_t *>(A);
    const uint16_t *const b16 = reinterpret_cast<const uint16_t *>(B);
    uint32_t a[S::PAIRS], b[S::PAIRS];
    float acc[S::MI][S::NJ][4] = {};
    /* The test tells the compiler that the loop below runs at least once: without it, it kept a
     * path for K <= 0 and laid the loop out in more instructions (README.md). */
    if (K > 0)
        mma_small_load<TILE>(M, N, K, a16, b16, row0, col0, 0, a, b);
    for (int k0 = 0; k0 < K; k0 += MMA_SMALL_BK) {
        __syncthreads(); /* every warp is done with the last slice */
        mma_small_stage<TILE>(s, a, b);
        __syncthreads();
        if (k0 + MMA_SMALL_BK < K)
            mma_small_load<TILE>(M, N, K, a16, b16, row0, col0, k0 + MMA_SMALL_BK, a, b);
        mma_small_slice<T, TILE, BLOCKS>(s, wm, wn, acc);
    }
    __syncthreads(); /* the operands' buffer becomes C's */
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < S::MI; i++)
#pragma unroll
        for (int j = 0; j < S::NJ; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *reinterpret_cast<float2 *>(&s.c[wm + 16 * i + g + 8 * h][wn + 8 * j + 2 * t]) =
                    make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
    __syncthreads();
    for (int r = warp; r < TILE && row0 + r < M; r += MMA_SMALL_THREADS / 32) {
#pragma unroll
        for (int h = 0; h < TILE / 32; h++) {
            const int col = col0 + lane + 32 * h;
            if (col >= N) continue;
            float *const c = &C[(size_t)(row0 + r) * N + col];
            const float v = alpha * s.c[r][lane + 32 * h];
            *c = beta == 0.0f ? v : v + beta * *c;
        }
    }
}

/* Host arithmetic, shared by the launch and the plan. */
static int mma_small_tiles(int m, int n, int tile) {
    return ceil_div(m, tile) * ceil_div(n, tile);
}
/* the 64 x 64 tiles all fit the SMs at once, MMA_SMALL_BLOCKS an SM */
static bool mma_small_one_wave(int m, int n, int sms) {
    return mma_small_tiles(m, n, MMA_SMALL_TILE) <= MMA_SMALL_BLOCKS * sms;
}
/* 32 x 32 tiles where they number at most MMA_SMALL_SMALL_GRID an SM (a cut fitted on shapes;
 * at 72 registers an SM holds 7 such blocks): there 64 x 64 ones leave most SMs idle, and four
 * times the blocks, each a quarter of the MMAs a slice, finish sooner; on larger grids the SMs are
 * busy anyway, and the 64 x 64 tile's loads serve twice the MMAs (docs/30_lean_loads.md). */
#define MMA_SMALL_SMALL_GRID 5
static int mma_small_tile(int m, int n, int sms) {
    return mma_small_tiles(m, n, MMA_SMALL_TILE_SMALL) <= MMA_SMALL_SMALL_GRID * sms
               ? MMA_SMALL_TILE_SMALL
               : MMA_SMALL_TILE;
}
static int mma_small_blocks(int m, int n, int sms) {
    return mma_small_tile(m, n, sms) == MMA_SMALL_TILE_SMALL || mma_small_one_wave(m, n, sms)
               ? MMA_SMALL_BLOCKS
               : MMA_SMALL_MORE_BLOCKS;
}
/* blocks=: the instantiation's __launch_bounds__ minimum an SM */
static void describe_mma_small(char *out, int tile, int blocks_per_sm) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=mma_small tile=%dx%d blocks=%d", tile,
             tile, blocks_per_sm);
}

template <typename T> static cudaError_t launch_mma_small(gemm_args *p, int sms) {
    const int tile = mma_small_tile(p->m, p->n, sms), per_sm = mma_small_blocks(p->m, p->n, sms);
    describe_mma_small(p->kernel, tile, per_sm);
    const auto kernel = tile == MMA_SMALL_TILE_SMALL ? mma_small_kernel<T, 32, MMA_SMALL_BLOCKS>
                        : per_sm == MMA_SMALL_BLOCKS
                            ? mma_small_kernel<T, 64, MMA_SMALL_BLOCKS>
                            : mma_small_kernel<T, 64, MMA_SMALL_MORE_BLOCKS>;
    kernel<<<mma_small_tiles(p->m, p->n, tile), MMA_SMALL_THREADS>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

#endif /* MMA_SMALL_CUH */
