/*
 * Step 13: one kernel does not fit every shape. Step 12's kernel fills the GPU only when there
 * are enough 128 x 256 tiles: at M = 16 (N = K = 8192) there are 32 for 132 SMs, and B, whose
 * streaming from DRAM is the shape's real cost, arrives at a quarter of the GPU's rate. A library
 * keeps a table of kernels chosen by shape; this step has these, and the rules that choose:
 * - step 12's kernel with the tile as template parameters: BN = 256, 192, 128, 96 or 64 (the
 *   wgmma instruction's N) and one to three consumer warpgroups (BM = 64 to 192), so that
 *   narrow outputs get narrower tiles and more of them, and 1536^3 gets one wave of 192 x 96;
 * - the same kernel on the swapped product C^T = B^T A^T for M <= 32, M in the instruction's N;
 * - pairs: clusters of two blocks on neighbouring tiles that multicast their shared A tile;
 * - split-K: K cut into `splits` ranges whose FP32 partial sums go to a workspace, added up by
 *   a second kernel that applies alpha and beta once;
 * - two GEMV kernels, for M <= 8 or N <= 8, which stream the large matrix with 16-byte loads on
 *   the CUDA cores: at 2 FLOPs per 2-byte element read, DRAM bounds them, not arithmetic;
 * - launch_gemm, which picks one by rules that count waves of work on this GPU's SMs.
 *
 *     make step N=13 && ./13_shape_dispatch/gemm 16 8192 8192 --dtype bf16 --cublas
 *     ./13_shape_dispatch/gemm 16 8192 8192 --dtype bf16 --cublas --path tma_n256
 *
 * BUILD_ARCH: sm_90a
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "hopper.cuh"

#ifndef GROUP_M /* tile rows in one strip of the persistent tile order */
#define GROUP_M 16
#endif
#define PRODUCER_REGISTERS 40 /* setmaxnreg: what the producer warpgroup keeps */
#define BK 64       /* one 128-byte swizzle row of 16-bit elements: the K extent of an A tile row */
#define RING_KB 200 /* every tile's ring: 4 stages (256 wide) to 20 (swapped, 16 rows of A) */
#define RING_BYTES (RING_KB * 1024)
#define CONFIG                                                                                     \
    "BM=192|128|64 BN=256|192|128|96|64 BK=" GEMM_STR(BK) " RING=" GEMM_STR(                       \
        RING_KB) "KB GROUP_M=" GEMM_STR(GROUP_M) " GEMV_ROWS=" GEMM_STR(GEMV_ROWS)
#define WGMMA_K 16
#define OUT_COLS 32 /* one 128-byte swizzle row of FP32: the width of an epilogue chunk */
#define PATHS                                                                                      \
    "tma_n256 tma_n192 tma_n128 tma_n96 tma_n64 pair_n256 pair_n128 pair_n64 splitk swap gemv_m "  \
    "gemv_n fallback"

/* What follows from the tile: WG consumer warpgroups of 64 rows each (BM = 64 WG), BN columns
 * (the wgmma instruction's N). */
template <int BN, int WG, bool SWAP = false> struct tiling {
    static constexpr int BM = 64 * WG;
    static constexpr int THREADS = 128 * (WG + 1); /* the producer warpgroup, then the consumers */
    /* setmaxnreg: what each consumer gets. __launch_bounds__(THREADS, 1) lets ptxas allocate up
     * to 65536 / THREADS registers (at most 255), and setmaxnreg.inc may only raise a count. */
    static constexpr int CONSUMER_REGISTERS = WG == 3 ? 152 : WG == 2 ? 232 : 248;
    /* B arrives as boxes of 64 columns x BK rows; a 96-wide tile loads two and reads 96 columns */
    static constexpr int B_ATOMS = (BN + 63) / 64;
    /* SWAP: the product C^T = B^T A^T. Its A operand (rows of C^T: columns n of C) is a tile of
     * B, WG boxes of 64 columns x BK rows (MN-major, as B above); its B operand (m) is a tile of
     * A, one box of BK x BN rows (K-major, as A above), BN = 16, 32 or 64. */
    static constexpr int A_TILE_BYTES = BM * BK * 2;
    static constexpr int B_TILE_BYTES = SWAP ? BK * BN * 2 : BK * B_ATOMS * 64 * 2;
    static constexpr int STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;
    static constexpr int STAGES = RING_BYTES / STAGE_BYTES;
    /* The epilogue's buffers: per consumer warpgroup, OUT_STAGES chunks of 64 rows x OUT_COLS of
     * C, as many as the shared memory beside the ring holds, up to a whole tile (the swapped
     * product stores from registers). */
    static constexpr int CHUNK_BYTES = 64 * OUT_COLS * 4;
    static constexpr int SPARE_BYTES = 227 * 1024 - STAGES * STAGE_BYTES - 2 * STAGES * 8 - 1024;
    static constexpr int OUT_STAGES =
        SWAP ? 0 : std::min(BN / OUT_COLS, SPARE_BYTES / (WG * CHUNK_BYTES));
    static constexpr int OUT_BYTES = WG * OUT_STAGES * CHUNK_BYTES;
    /* tiles, C's buffer, 2 mbarriers per stage, alignment slack */
    static constexpr int SMEM = STAGES * STAGE_BYTES + OUT_BYTES + 2 * STAGES * 8 + 1024;
    static_assert(SWAP ? BN == 64 || BN == 32 || BN == 16
                       : BN == 256 || BN == 192 || BN == 128 || BN == 96 || BN == 64,
                  "wgmma N of 256, 192, 128, 96 or 64; swapped: 64, 32 or 16 rows of A (a wrapper "
                  "each below)");
    static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
                  "every tile starts on 1024 bytes: the 128-byte swizzle pattern repeats every 8 "
                  "rows of 128 bytes");
    static_assert(STAGE_BYTES < (1 << 20),
                  "an mbarrier's transaction count holds less than 2^20 bytes per phase");
    static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
    static_assert(SWAP || (OUT_STAGES >= 1 && BN % OUT_COLS == 0),
                  "C leaves in whole chunks of OUT_COLS columns, through at least one buffer");
    static_assert(SMEM <= 227 * 1024,
                  "the ring must fit sm_90's 227 KB of shared memory per block");
    static_assert(WG >= 1 && WG <= 3, "one to three consumer warpgroups (64 to 192 rows)");
    static_assert(BM <= 256,
                  "a TMA box is at most 256 elements along each dimension (A's: BK x BM)");
    static_assert(CONSUMER_REGISTERS % 8 == 0 && CONSUMER_REGISTERS <= 256,
                  "setmaxnreg takes multiples of 8 from 24 to 256");
    static_assert(128 * (PRODUCER_REGISTERS + WG * CONSUMER_REGISTERS) <= 65536,
                  "after reallocation the block still fits the SM's 64 K registers");
    static_assert(std::min(255, 65536 / THREADS) / 8 * 8 <= CONSUMER_REGISTERS,
                  "the consumers' count is at least what ptxas may have allocated");
};
#define SMEM_BYTES (tiling<64, 2>::SMEM) /* the largest: 8 stages of 24 KB, 32 KB for C */
static_assert(SMEM_BYTES <= 227 * 1024, "the ring must fit sm_90's 227 KB of shared memory");

static_assert(BK * 2 == 128,
              "an A tile row is exactly one 128-byte swizzle row: the descriptors below assume it");
static_assert(PRODUCER_REGISTERS % 8 == 0 && PRODUCER_REGISTERS >= 24,
              "setmaxnreg takes multiples of 8 from 24 to 256");
static_assert(GROUP_M >= 1, "a strip is at least one tile row");

/* P(row, col), P(row, col + 1) = acc inside the M x N plane P (a split's partial sums; N is a
 * multiple of 8 on this path). */
static __device__ __forceinline__ void store2(float *P, int M, int N, int row, int col, float acc0,
                                              float acc1) {
    if (row < M && col < N) *reinterpret_cast<float2 *>(&P[(size_t)row * N + col]) = {acc0, acc1};
}

/* v += beta * (C(row, col), C(row, col + 1)), the elements inside the matrix. */
static __device__ __forceinline__ void add_beta_c(const float *C, int M, int N, int row, int col,
                                                  float beta, float2 &v) {
    if (row >= M) return;
    if (col < N) v.x += beta * C[(size_t)row * N + col];
    if (col + 1 < N) v.y += beta * C[(size_t)row * N + col + 1];
}

/* C(row, col) = alpha * acc + beta * C inside the matrix (the swapped product's transposed
 * store). */
static __device__ __forceinline__ void store1(float *C, int M, int N, int row, int col, float acc,
                                              float alpha, float beta) {
    if (row >= M || col >= N) return;
    float *c = &C[(size_t)row * N + col];
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* The output tile a persistent block takes as its `t`-th: strips of GROUP_M tile rows, walked
 * column by column, so that the blocks running at one time share a few panels of A and B in L2. */
static __device__ __forceinline__ int2 tile_coords(int t, int tiles_m, int tiles_n) {
    const int per_strip = GROUP_M * tiles_n, first = t / per_strip * GROUP_M;
    const int rows = min(GROUP_M, tiles_m - first), in_strip = t % per_strip;
    return make_int2(first + in_strip % rows, in_strip / rows);
}

/* The tile of unit t (of tiles_m x unit_cols) for block `rank` of a cluster of PAIR. */
template <int PAIR>
static __device__ __forceinline__ int2 unit_tile(int t, int tiles_m, int unit_cols, int rank) {
    const int2 unit = tile_coords(t, tiles_m, unit_cols);
    return make_int2(unit.x, unit.y * PAIR + rank);
}

/* A consumer warpgroup is done with a stage: one arrival on its empty barrier in every block of
 * the pair (each block's producer refills the A rows of both). Lane `cta` of the first warp arrives
 * in block `cta`, the arrivals one instruction. */
template <int PAIR> static __device__ __forceinline__ void release(uint64_t *bar) {
    if (threadIdx.x % 128 >= PAIR) return;
    if constexpr (PAIR == 1)
        mbar_arrive(bar);
    else
        mbar_arrive_in(bar, threadIdx.x % 128);
}

/* Step 12's kernel, BM x BN, over units of work: unit u is tile u % tiles (with PAIR = 2, a pair
 * of tiles, one per block of the cluster) and K range u / tiles of `splits` (slices
 * [split * slices / splits, (split + 1) * slices / splits), never empty since splits <= slices).
 * With splits == 1 a unit is a tile and C is written as in step 12; with more, each unit writes
 * its raw FP32 sums to its own M x N plane of `partial`, and splitk_reduce adds the planes and
 * applies alpha and beta. SWAP: the same on C^T = B^T A^T (tiles of BM columns of C by BN rows). */
template <typename T, int BN, int WG, bool SWAP = false, int PAIR = 1>
__global__ void __launch_bounds__(tiling<BN, WG, SWAP>::THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                float beta, float *C, int splits, float *partial) {
    using ring = tiling<BN, WG, SWAP>;
    constexpr int STAGES = ring::STAGES, BM = ring::BM, B_TILE = ring::B_TILE_BYTES / 2;
    extern __shared__ unsigned char smem_raw[];
    /* The 128-byte swizzle repeats every 1024 bytes, and TMA and wgmma agree on it only if
     * every tile starts on a multiple of 1024: align the base by hand. */
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    T *const a_tiles = reinterpret_cast<T *>(smem); /* [STAGES][BM][BK], swizzled */
    T *const b_tiles = reinterpret_cast<T *>(
        smem + STAGES * ring::A_TILE_BYTES); /* [STAGES][B_ATOMS][BK][64], swizzled */
    /* [WG][64][OUT_COLS] FP32, swizzled: C on its way out */
    unsigned char *const out_tiles = smem + STAGES * ring::STAGE_BYTES;
    uint64_t *const full = reinterpret_cast<uint64_t *>(out_tiles + ring::OUT_BYTES);
    uint64_t *const empty = full + STAGES;

    static_assert(PAIR == 1 || (PAIR == 2 && !SWAP), "pairs of blocks share the A tile");
    /* SWAP: the tiles cover C^T, N rows by M columns. PAIR = 2: a unit is two neighbouring tiles
     * of one tile row, one for each block of the cluster: (x, 2 j) and (x, 2 j + 1). */
    const int tiles_m = ceil_div(SWAP ? N : M, BM), tiles_n = ceil_div(SWAP ? M : N, BN);
    const int unit_cols = ceil_div(tiles_n, PAIR), tiles = tiles_m * unit_cols;
    const int slices = ceil_div(K, BK), units = tiles * splits;
    const int rank = PAIR > 1 ? cluster_rank() : 0, cluster = blockIdx.x / PAIR;
    const int warpgroup = threadIdx.x / 128; /* 0: the producer; 1 ..: consumers */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1); /* the producer's expect_bytes, then the TMA bytes */
            /* one arrival per consumer warpgroup of every block that reads the stage's A */
            mbar_init(&empty[s], WG * PAIR);
        }
        /* Make the initialized barriers visible to the async proxy (the TMA engine). */
        fence_mbarrier_init();
    }
    /* The last block-wide barrier (with PAIR, cluster-wide: the other block's barriers exist
     * before a copy or an arrival reaches them); from here on the roles only meet at mbarriers. */
    if constexpr (PAIR > 1)
        cluster_sync();
    else
        __syncthreads();

    if (warpgroup == 0) {
        setmaxnreg_dec<PRODUCER_REGISTERS>();
        if (threadIdx.x != 0) return;
        /* The producer waits for a free stage with the opposite parity: on the first pass round
         * the ring the stages are free, and waiting for "phase 1 of a fresh barrier" returns at
         * once. */
        ring_pos pos = {0, 0};
        for (int u = cluster; u < units; u += gridDim.x / PAIR) {
            const int2 tile = unit_tile<PAIR>(u % tiles, tiles_m, unit_cols, rank);
            const int split = u / tiles;
            for (int slice = split * slices / splits; slice < (split + 1) * slices / splits;
                 slice++) {
                mbar_wait(&empty[pos.stage], pos.phase ^ 1u);
                /* boxes past the edge still deliver all bytes */
                mbar_expect_bytes(&full[pos.stage], ring::STAGE_BYTES);
                if constexpr (SWAP) { /* A operand: columns n of B; B operand: rows m of A */
                    for (int j = 0; j < WG; j++)
                        tma_load(a_tiles + pos.stage * BM * BK + j * BK * 64, &map_b,
                                 tile.x * BM + 64 * j, slice * BK, &full[pos.stage]);
                    tma_load(b_tiles + pos.stage * B_TILE, &map_a, slice * BK, tile.y * BN,
                             &full[pos.stage]);
                } else {
                    if constexpr (PAIR > 1) /* each block brings BM / PAIR rows of A to both */
                        tma_load_multicast(a_tiles + pos.stage * BM * BK + rank * BM / PAIR * BK,
                                           &map_a, slice * BK, tile.x * BM + rank * BM / PAIR,
                                           &full[pos.stage], (1 << PAIR) - 1);
                    else
                        tma_load(a_tiles + pos.stage * BM * BK, &map_a, slice * BK, tile.x * BM,
                                 &full[pos.stage]);
                    for (int j = 0; j < ring::B_ATOMS; j++)
                        tma_load(b_tiles + pos.stage * B_TILE + j * BK * 64, &map_b,
                                 tile.y * BN + 64 * j, slice * BK, &full[pos.stage]);
                }
                pos = advance<STAGES>(pos);
            }
        }
        return;
    }

    setmaxnreg_inc<ring::CONSUMER_REGISTERS>();
    const int consumer = warpgroup - 1; /* its 64 rows of the block tile */
    ring_pos pos = {0, 0};
    for (int u = cluster; u < units; u += gridDim.x / PAIR) {
        const int2 tile = unit_tile<PAIR>(u % tiles, tiles_m, unit_cols, rank);
        const int split = u / tiles;
        float acc[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        ring_pos prev = pos;
        const int first = split * slices / splits, last = (split + 1) * slices / splits;
        for (int slice = first; slice < last; slice++) {
            mbar_wait(&full[pos.stage], pos.phase); /* the slice's bytes have landed */
            const T *a = a_tiles + pos.stage * BM * BK + consumer * 64 * BK;
            const T *b = b_tiles + pos.stage * B_TILE;
            fence_registers(acc, BN / 2);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; kk++)
                if constexpr (SWAP) /* the same two layouts, the operands' roles exchanged */
                    wgmma<BN, 1, 0, T>(acc, sw128_desc(a + kk * WGMMA_K * 64, BK * 128, 1024),
                                       sw128_desc(b + kk * WGMMA_K, 16, 1024));
                else
                    /* A: the k16 step is 32 bytes further along the swizzled rows; B: 16 k-rows
                     * (2 KB) further. */
                    wgmma<BN, 0, 1, T>(acc, sw128_desc(a + kk * WGMMA_K, 16, 1024),
                                       sw128_desc(b + kk * WGMMA_K * 64, BK * 128, 1024));
            wgmma_commit();
            /* One slice's wgmmas stay in flight; the previous slice's are done after this. */
            wgmma_wait<1>();
            fence_registers(acc, BN / 2);
            if (slice > first) release<PAIR>(&empty[prev.stage]);
            prev = pos;
            pos = advance<STAGES>(pos);
        }
        wgmma_wait<0>();
        fence_registers(acc, BN / 2);
        release<PAIR>(&empty[prev.stage]); /* the unit's last stage */

        /* The epilogue, while the producer already fills the ring for the next unit. The
         * accumulator layout of wgmma m64nN: warp w of the warpgroup holds rows 16 w .. 16 w + 15;
         * for each 8-column block j, lane (g = lane / 4, t = lane % 4) holds rows g and g + 8,
         * columns 8 j + 2 t and + 1: acc[4 j .. 4 j + 3]. */
        const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
        const int first_row = tile.x * BM + consumer * 64, row = first_row + warp * 16 + lane / 4;
        if constexpr (SWAP) { /* acc holds C^T: its rows are columns n of C, its columns rows m */
            float *const out = splits == 1 ? C : partial + (size_t)split * M * N;
            const float out_alpha = splits == 1 ? alpha : 1.0f;
            const float out_beta = splits == 1 ? beta : 0.0f;
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                const int m = tile.y * BN + 8 * j + lane % 4 * 2;
                store1(out, M, N, m, row, acc[4 * j], out_alpha, out_beta);
                store1(out, M, N, m + 1, row, acc[4 * j + 1], out_alpha, out_beta);
                store1(out, M, N, m, row + 8, acc[4 * j + 2], out_alpha, out_beta);
                store1(out, M, N, m + 1, row + 8, acc[4 * j + 3], out_alpha, out_beta);
            }
        } else if (splits > 1) { /* raw FP32 sums to this split's plane (alpha 1, beta 0: exact) */
            float *const out = partial + (size_t)split * M * N;
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                const int col = tile.y * BN + 8 * j + lane % 4 * 2;
                store2(out, M, N, row, col, acc[4 * j], acc[4 * j + 1]);
                store2(out, M, N, row + 8, col, acc[4 * j + 2], acc[4 * j + 3]);
            }
        } else if (first_row < M) {
            /* C leaves through shared memory, OUT_COLS columns of the warpgroup's 64 rows at a
             * time, each chunk one TMA store of full 128-byte lines: written straight from the
             * registers, every warp instruction would address 8 rows of 32 bytes. */
            constexpr int OUT_STAGES = ring::OUT_STAGES;
#pragma unroll
            for (int chunk = 0; chunk < BN / OUT_COLS; chunk++) {
                unsigned char *const buf =
                    out_tiles + (consumer * OUT_STAGES + chunk % OUT_STAGES) * ring::CHUNK_BYTES;
                /* The store that last read buf has finished reading it: the previous unit's (long
                 * done, the main loop lay between) or this unit's, OUT_STAGES chunks back. */
                if (chunk == 0 || chunk >= OUT_STAGES) {
                    if (threadIdx.x % 128 == 0) {
                        if (chunk == 0)
                            bulk_wait_read<0>();
                        else
                            bulk_wait_read<OUT_STAGES - 1>();
                    }
                    warpgroup_sync(consumer);
                }
#pragma unroll
                for (int jj = 0; jj < OUT_COLS / 8; jj++) {
                    const int j = chunk * OUT_COLS / 8 + jj, c = 8 * jj + lane % 4 * 2;
#pragma unroll
                    for (int h = 0; h < 2; h++) { /* rows g and g + 8 */
                        const int r = warp * 16 + lane / 4 + 8 * h;
                        float2 v =
                            make_float2(alpha * acc[4 * j + 2 * h], alpha * acc[4 * j + 2 * h + 1]);
                        if (beta != 0.0f)
                            add_beta_c(C, M, N, row + 8 * h, tile.y * BN + chunk * OUT_COLS + c,
                                       beta, v);
                        /* 128-byte swizzle: 16-byte chunk q of row r lies at q ^ (r % 8) */
                        *reinterpret_cast<float2 *>(buf + r * 128 + ((c / 4) ^ (r % 8)) * 16 +
                                                    c % 4 * 4) = v;
                    }
                }
                fence_async_shared(); /* the writes above, before the TMA engine reads them */
                warpgroup_sync(consumer);
                if (threadIdx.x % 128 == 0) {
                    tma_store(&map_c, buf, tile.y * BN + chunk * OUT_COLS, first_row);
                    bulk_commit();
                }
            }
        }
    }
    /* shared memory must outlive the stores' reads of it */
    if (threadIdx.x % 128 == 0) bulk_wait_read<0>();
    /* The other block of the pair may still arrive on this one's barriers: stay until it is done */
    if constexpr (PAIR > 1) cluster_sync();
}

/* C = alpha * (the sum of `planes` M x N planes of partial) + beta * C. A block takes 32
 * consecutive items (float4s where count allows: cudaMalloc'd planes and C start on 256 bytes),
 * its 8 warps a share of the planes each, added up in shared memory: gemv_m leaves up to 64. */
__global__ void __launch_bounds__(256) splitk_reduce(const float *partial, int planes, size_t count,
                                                     float alpha, float beta, float *C) {
    __shared__ float4 sums[8][32];
    const int lane = threadIdx.x % 32, group = threadIdx.x / 32;
    const bool wide = count % 4 == 0;
    const size_t items = wide ? count / 4 : count, item = blockIdx.x * (size_t)32 + lane;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (item < items)
        for (int s = group; s < planes; s += 8) {
            const float *plane = partial + s * count;
            const float4 v = wide ? reinterpret_cast<const float4 *>(plane)[item]
                                  : make_float4(plane[item], 0.0f, 0.0f, 0.0f);
            sum = make_float4(sum.x + v.x, sum.y + v.y, sum.z + v.z, sum.w + v.w);
        }
    sums[group][lane] = sum;
    __syncthreads();
    if (group != 0 || item >= items) return;
    for (int g = 1; g < 8; g++) {
        const float4 v = sums[g][lane];
        sum = make_float4(sum.x + v.x, sum.y + v.y, sum.z + v.z, sum.w + v.w);
    }
    if (!wide) {
        C[item] = beta == 0.0f ? alpha * sum.x : alpha * sum.x + beta * C[item];
        return;
    }
    float4 c = make_float4(alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w);
    if (beta != 0.0f) {
        const float4 old = reinterpret_cast<float4 *>(C)[item];
        c = make_float4(c.x + beta * old.x, c.y + beta * old.y, c.z + beta * old.z,
                        c.w + beta * old.w);
    }
    reinterpret_cast<float4 *>(C)[item] = c;
}

/* ---- GEMV: M or N of at most GEMV_ROWS. Per element of the large matrix there are 2 FLOPs, so
 * these kernels only have to keep enough 16-byte loads in flight to run at DRAM speed. ---- */
#define GEMV_ROWS 8 /* rows of C per gemv_m block (columns per gemv_n block) */
#define GEMV_THREADS 256
#define GEMV_UNROLL 16 /* 16-byte loads a gemv_m thread issues before it uses the first */
#ifndef GEMV_N_UNROLL
#define GEMV_N_UNROLL 4 /* ... and a gemv_n lane */
#endif

/* Eight 16-bit elements as floats. */
template <typename T> static __device__ __forceinline__ void unpack8(uint4 u, float x[8]) {
    const T *h = reinterpret_cast<const T *>(&u);
#pragma unroll
    for (int e = 0; e < 8; e++) x[e] = static_cast<float>(h[e]);
}

/* x[i .. i + 7] of a row of `len` elements as floats, zeros past the end; one 16-byte load where
 * the row allows it (vec: the row starts on 16 bytes and i is a multiple of 8). */
template <typename T>
static __device__ __forceinline__ void load8(const T *row, int i, int len, bool vec, float x[8]) {
    if (vec && i + 8 <= len) {
        unpack8<T>(__ldg(reinterpret_cast<const uint4 *>(row + i)), x);
        return;
    }
#pragma unroll
    for (int e = 0; e < 8; e++) x[e] = i + e < len ? static_cast<float>(row[i + e]) : 0.0f;
}

/* M small: B streamed. A thread owns 8 consecutive columns of C for R rows (blockIdx.z), and
 * walks the rows k of B in its block's K range (blockIdx.y), 16 bytes of each: a warp reads 512
 * contiguous bytes per row, GEMV_UNROLL rows before it multiplies (streaming loads: B is read
 * once). The rows of A it needs are
 * staged in shared memory as floats. It writes its raw sums to plane blockIdx.y of partial, which
 * splitk_reduce adds up. */
template <typename T, int R>
__global__ void __launch_bounds__(GEMV_THREADS, 1) /* 1: else ptxas caps R = 1 at 32 and spills */
    gemv_m_kernel(int M, int N, int K, const T *A, const T *B, int k_chunk, float *partial) {
    extern __shared__ float a_rows[]; /* [R][k_chunk] */
    /* blockIdx.x numbers (column block, row block) pairs: gridDim.y and z stop at 65535 */
    const int col_blocks = ceil_div(ceil_div(N, 8), GEMV_THREADS);
    const int col = (blockIdx.x % col_blocks * GEMV_THREADS + threadIdx.x) * 8;
    const int m0 = blockIdx.x / col_blocks * R;
    const int k0 = blockIdx.y * k_chunk, k1 = min(K, k0 + k_chunk), rows = min(R, M - m0);
    for (int i = threadIdx.x; i < R * k_chunk; i += GEMV_THREADS) {
        const int r = i / k_chunk, k = k0 + i % k_chunk;
        a_rows[i] = r < rows && k < k1 ? static_cast<float>(A[(size_t)(m0 + r) * K + k]) : 0.0f;
    }
    __syncthreads();
    float acc[R][8] = {};
    if (col < N) {
        const bool vec = N % 8 == 0 && (size_t)B % 16 == 0 && col + 8 <= N;
        int k = k0;
        if (vec)
            for (; k + GEMV_UNROLL <= k1; k += GEMV_UNROLL) { /* the loads first, then the FMAs */
                uint4 raw[GEMV_UNROLL];
#pragma unroll
                for (int u = 0; u < GEMV_UNROLL; u++)
                    raw[u] = __ldcs(reinterpret_cast<const uint4 *>(B + (size_t)(k + u) * N + col));
#pragma unroll
                for (int u = 0; u < GEMV_UNROLL; u++) {
                    float b[8];
                    unpack8<T>(raw[u], b);
#pragma unroll
                    for (int r = 0; r < R; r++) {
                        const float a = a_rows[r * k_chunk + k - k0 + u];
#pragma unroll
                        for (int e = 0; e < 8; e++) acc[r][e] += a * b[e];
                    }
                }
            }
        for (; k < k1; k++) { /* the rest of the range, and rows that are not 16-byte units */
            float b[8];
            load8(B + (size_t)k * N, col, N, vec, b);
#pragma unroll
            for (int r = 0; r < R; r++) {
                const float a = a_rows[r * k_chunk + k - k0];
#pragma unroll
                for (int e = 0; e < 8; e++) acc[r][e] += a * b[e];
            }
        }
    }
    float *const plane = partial + (size_t)blockIdx.y * M * N;
    for (int r = 0; r < rows; r++)
        for (int e = 0; e < 8; e++)
            if (col + e < N) plane[(size_t)(m0 + r) * N + col + e] = acc[r][e];
}

/* N small: A streamed. A warp owns one row of C and CN of its columns (blockIdx.y); its lanes
 * read 16 bytes of the row of A each, 512 contiguous bytes per step, GEMV_N_UNROLL steps before
 * they multiply, with the matching rows of B (N * 2 bytes each). Every warp reads all of B: for
 * N = 1 it is staged in shared memory once per block, where it does not compete with the stream
 * of A for L1. A warp reduction adds the lanes' sums. CN = 1, 4 or 8 columns: the sums are CN
 * registers, and fewer registers leave room for more warps, whose loads in flight are what keeps
 * DRAM busy. */
template <typename T, int CN>
__global__ void __launch_bounds__(GEMV_THREADS)
    gemv_n_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta, float *C,
                  bool b_staged) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    /* blockIdx.x numbers (row block, column group) pairs: gridDim.y stops at 65535 */
    const int row_blocks = ceil_div(M, GEMV_THREADS / 32);
    const int row = blockIdx.x % row_blocks * (GEMV_THREADS / 32) + warp;
    const int n0 = blockIdx.x / row_blocks * CN;
    extern __shared__ uint4 b_stage[]; /* b_staged: B (N = 1, K <= 24576) read once per block */
    if (CN == 1 && b_staged) {
        for (int i = threadIdx.x; i < K / 8; i += GEMV_THREADS)
            b_stage[i] = __ldg(reinterpret_cast<const uint4 *>(B) + i);
        __syncthreads();
    }
    if (row >= M) return;
    const int cols = min(CN, N - n0);
    const T *a_row = A + (size_t)row * K;
    const bool vec = K % 8 == 0 && (size_t)A % 16 == 0, b_vec = N == 1 && (size_t)B % 16 == 0;
    float acc[CN] = {};
    for (int k = lane * 8; k < K; k += 32 * 8 * GEMV_N_UNROLL) {
        /* A is read once: streaming loads (evict first) */
        uint4 raw[GEMV_N_UNROLL];
#pragma unroll
        for (int u = 0; u < GEMV_N_UNROLL; u++)
            if (vec && k + 256 * u + 8 <= K)
                raw[u] = __ldcs(reinterpret_cast<const uint4 *>(a_row + k + 256 * u));
#pragma unroll
        for (int u = 0; u < GEMV_N_UNROLL; u++) {
            const int ku = k + 256 * u;
            if (ku >= K) break;
            float a[8];
            if (vec && ku + 8 <= K)
                unpack8<T>(raw[u], a);
            else
                load8(a_row, ku, K, false, a);
            if (CN == 1 && b_vec) { /* N = 1: B is one contiguous column */
                float b[8];
                if (b_staged && ku + 8 <= K)
                    unpack8<T>(b_stage[ku / 8], b);
                else
                    load8(B, ku, K, true, b);
#pragma unroll
                for (int e = 0; e < 8; e++) acc[0] += a[e] * b[e];
                continue;
            }
#pragma unroll 2 /* (fully unrolled, CN = 8 hoists 256 loads of B into 228 registers) */
            for (int e = 0; e < 8; e++)
                if (ku + e < K)
#pragma unroll
                    for (int c = 0; c < CN; c++)
                        if (c < cols)
                            acc[c] += a[e] * static_cast<float>(B[(size_t)(ku + e) * N + n0 + c]);
        }
    }
#pragma unroll
    for (int c = 0; c < CN; c++)
        for (int o = 16; o > 0; o /= 2) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o);
    if (lane < cols) {
        float v = acc[0];
#pragma unroll
        for (int c = 1; c < CN; c++)
            if (lane == c) v = acc[c];
        float *c = &C[(size_t)row * N + n0 + lane];
        *c = beta == 0.0f ? alpha * v : alpha * v + beta * *c;
    }
}

/* Shapes whose rows are not whole 16-byte units (K or N not a multiple of 8) cannot be
 * described by a tensor map: they take a plain 32 x 32 shared-memory tiling (the idea of step 03),
 * correct and slow. */
template <typename T>
__global__ void __launch_bounds__(1024)
    fallback_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                    float *C) {
    __shared__ float As[32][32], Bs[32][33];
    const int tiles_m = ceil_div(M, 32);
    const int row = (blockIdx.x % tiles_m) * 32 + threadIdx.y,
              col = (blockIdx.x / tiles_m) * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        const int ar = row, ac = k0 + threadIdx.x, br = k0 + threadIdx.y, bc = col;
        As[threadIdx.y][threadIdx.x] =
            ar < M && ac < K ? static_cast<float>(A[(size_t)ar * K + ac]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] =
            br < K && bc < N ? static_cast<float>(B[(size_t)br * N + bc]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) {
        float *c = &C[(size_t)row * N + col];
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

/* The GPU's SM count, read once. */
static int sm_count(void) {
    static int count = 0;
    if (!count) {
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
            count = 1;
    }
    return count;
}

/* The FP32 workspace of split-K and gemv_m: grown when a problem needs more, kept otherwise (the
 * harness's untimed warm-up runs make it). */
static float *workspace(size_t floats) {
    static float *ws = NULL;
    static size_t have = 0;
    if (floats > have) {
        cudaFree(ws);
        ws = NULL;
        have = 0;
        if (cudaMalloc((void **)&ws, floats * sizeof(float)) != cudaSuccess) return NULL;
        have = floats;
    }
    return ws;
}

static cudaError_t reduce_planes(const gemm_args *p, const float *partial, int planes) {
    const size_t count = (size_t)p->m * p->n, items = count % 4 == 0 ? count / 4 : count;
    splitk_reduce<<<(unsigned)((items + 31) / 32), 256>>>(partial, planes, count, p->alpha, p->beta,
                                                          p->c);
    return cudaGetLastError();
}

/* Step 12's kernel on BM x BN tiles (BM = 64 WG) with `splits` K ranges, swapped or in pairs. */
template <typename T, int BN, int WG, bool SWAP = false, int PAIR = 1>
static cudaError_t launch_tma(gemm_args *p, int splits) {
    using ring = tiling<BN, WG, SWAP>;
    auto *const kernel = gemm_kernel<T, BN, WG, SWAP, PAIR>;
    const CUtensorMapDataType type = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    cudaLaunchAttribute pair_attr;
    pair_attr.id = cudaLaunchAttributeClusterDimension;
    pair_attr.val.clusterDim = {PAIR, 1, 1};
    cudaLaunchConfig_t config = {};
    config.blockDim = ring::THREADS;
    config.dynamicSmemBytes = ring::SMEM;
    config.attrs = &pair_attr;
    config.numAttrs = PAIR > 1;
    /* The maps depend only on the pointers and the shape: made once per problem, outside the timed
     * launches (one pair per instantiation: A's box is the same, B's is 64 columns wide). */
    static CUtensorMap map_a, map_b, map_c;
    static gemm_args made = {0};
    static int clusters = 0; /* how many clusters of PAIR blocks fit on the GPU at once */
    if (made.a != p->a || made.b != p->b || made.c != p->c || made.m != p->m || made.n != p->n ||
        made.k != p->k || made.dtype != p->dtype) {
        /* A's box: BK x BM / PAIR rows (each block of a pair loads its share), or (swapped, A is
         * the B operand) BK x BN rows */
        cudaError_t err = make_map(&map_a, p->a, p->m, p->k, BK, SWAP ? BN : ring::BM / PAIR, type);
        if (err == cudaSuccess) err = make_map(&map_b, p->b, p->k, p->n, 64, BK, type);
        /* C's box: 64 rows (a consumer warpgroup's) x OUT_COLS, FP32 */
        if (err == cudaSuccess)
            err = make_map(&map_c, p->c, p->m, p->n, OUT_COLS, 64, CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                           4);
        if (err != cudaSuccess) return err;
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ring::SMEM);
        if (err != cudaSuccess) return err;
        clusters = sm_count();
        if (PAIR > 1) {
            config.gridDim = PAIR * sm_count();
            err = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
            if (err != cudaSuccess) return err;
        }
        made = *p;
    }
    float *partial = NULL;
    if (splits > 1 && !(partial = workspace((size_t)splits * p->m * p->n)))
        return cudaErrorMemoryAllocation;
    /* Persistent: one block per SM (fewer when there are fewer units); a unit is PAIR tiles. */
    const int units = SWAP ? ceil_div(p->n, ring::BM) * ceil_div(p->m, BN) * splits
                           : ceil_div(p->m, ring::BM) * ceil_div(ceil_div(p->n, BN), PAIR) * splits;
    config.gridDim = PAIR * (units < clusters ? units : clusters);
    cudaError_t err = cudaLaunchKernelEx(&config, kernel, map_a, map_b, map_c, p->m, p->n, p->k,
                                         p->alpha, p->beta, p->c, splits, partial);
    if (err != cudaSuccess || splits == 1) return err;
    return reduce_planes(p, partial, splits);
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg, bool swap, int pair, int splits) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "tile=%dx%d wg=%d swap=%d cluster=%d splits=%d",
             64 * wg, bn, wg, swap, pair, splits);
}

template <typename T, int BN, int WG, bool SWAP, int PAIR>
static cudaError_t launch_tile(gemm_args *p, int splits) {
    describe_tile(p->kernel, BN, WG, SWAP, PAIR, splits);
    return launch_tma<T, BN, WG, SWAP, PAIR>(p, splits);
}

template <typename T> static cudaError_t launch_fallback(gemm_args *p) {
    dim3 grid(ceil_div(p->m, 32) * ceil_div(p->n, 32)), block(32, 32);
    fallback_kernel<T><<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const T *)p->a,
                                        (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

/* gemv_m: R = M up to 8 rows per block (a thread's sums are R x 8 registers), and K cut so that
 * the grid has about 4 blocks per SM, each K range a multiple of 8 rows from 128 (fewer planes to
 * add up) to 1024 (its rows of A in shared memory: R x 4 KB). Host arithmetic, shared by the
 * launch and the plan. */
struct gemv_m_grid {
    int rows, col_blocks, row_blocks, k_chunk, planes;
};
static gemv_m_grid gemv_m_shape(int m, int n, int k, int sms) {
    gemv_m_grid g;
    g.rows = m == 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
    g.col_blocks = ceil_div(ceil_div(n, 8), GEMV_THREADS);
    g.row_blocks = ceil_div(m, g.rows);
    const int splits = ceil_div(4 * sms, g.col_blocks * g.row_blocks);
    const int k_chunk = ceil_div(ceil_div(k, splits), 8) * 8;
    g.k_chunk = k_chunk < 128 ? 128 : k_chunk > 1024 ? 1024 : k_chunk;
    g.planes = ceil_div(k, g.k_chunk);
    return g;
}
template <typename T, int R> static cudaError_t launch_gemv_m_rows(gemm_args *p) {
    const gemv_m_grid g = gemv_m_shape(p->m, p->n, p->k, sm_count());
    snprintf(p->kernel, sizeof p->kernel, "kernel=gemv_m rows=%d splits=%d", R, g.planes);
    float *partial = workspace((size_t)g.planes * p->m * p->n);
    if (!partial) return cudaErrorMemoryAllocation;
    dim3 grid(g.col_blocks * g.row_blocks, g.planes);
    gemv_m_kernel<T, R><<<grid, GEMV_THREADS, R * g.k_chunk * sizeof(float)>>>(
        p->m, p->n, p->k, (const T *)p->a, (const T *)p->b, g.k_chunk, partial);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : reduce_planes(p, partial, g.planes);
}
template <typename T> static cudaError_t launch_gemv_m(gemm_args *p) {
    if (p->m == 1) return launch_gemv_m_rows<T, 1>(p);
    if (p->m <= 2) return launch_gemv_m_rows<T, 2>(p);
    if (p->m <= 4) return launch_gemv_m_rows<T, 4>(p);
    return launch_gemv_m_rows<T, 8>(p);
}

/* gemv_n: CN = 1, 4 or 8 columns per warp (CN = 2 would spill at ptxas's 64 registers). */
static int gemv_n_cols(int n) { return n == 1 ? 1 : n <= 4 ? 4 : GEMV_ROWS; }
template <typename T, int CN> static cudaError_t launch_gemv_n_cols(gemm_args *p) {
    snprintf(p->kernel, sizeof p->kernel, "kernel=gemv_n cols=%d", CN);
    dim3 grid(ceil_div(p->m, GEMV_THREADS / 32) * ceil_div(p->n, CN));
    const bool staged = CN == 1 && p->k % 8 == 0 && p->k * 2 <= 48 * 1024 && (size_t)p->b % 16 == 0;
    /* (48 KB: the dynamic shared memory a kernel gets without opting in) */
    gemv_n_kernel<T, CN><<<grid, GEMV_THREADS, staged ? p->k * 2 : 0>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c, staged);
    return cudaGetLastError();
}
template <typename T> static cudaError_t launch_gemv_n(gemm_args *p) {
    const int cols = gemv_n_cols(p->n);
    if (cols == 1) return launch_gemv_n_cols<T, 1>(p);
    if (cols == 4) return launch_gemv_n_cols<T, 4>(p);
    return launch_gemv_n_cols<T, GEMV_ROWS>(p);
}

/* ---- The dispatcher: host code only, so that --plan shows its choice without a GPU. ---- */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg, splits; /* for the tensor-core paths: tile width, consumer warpgroups, K ranges */
    int pair;           /* 2: clusters of two blocks that share the A tile */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, 0, 1, false, 0.0}; }

/* Every instantiation of the tile kernel; a plan names one of these or is refused. */
typedef cudaError_t (*tile_launch)(gemm_args *, int splits);
#define TILE(BN, WG, SWAP, PAIR)                                                                   \
    {BN, WG, SWAP, PAIR, launch_tile<__half, BN, WG, SWAP, PAIR>,                                  \
     launch_tile<__nv_bfloat16, BN, WG, SWAP, PAIR>}
static const struct {
    int bn, wg;
    bool swap;
    int pair;
    tile_launch f16, bf16;
} TILES[] = {TILE(256, 2, false, 1), TILE(256, 1, false, 1), TILE(192, 2, false, 1),
             TILE(192, 1, false, 1), TILE(128, 2, false, 1), TILE(128, 1, false, 1),
             TILE(96, 3, false, 1),  TILE(64, 2, false, 1),  TILE(64, 1, false, 1),
             TILE(16, 1, true, 1),   TILE(32, 1, true, 1),   TILE(64, 1, true, 1),
             TILE(16, 2, true, 1),   TILE(32, 2, true, 1),   TILE(64, 2, true, 1),
             TILE(256, 2, false, 2), TILE(256, 1, false, 2), TILE(128, 2, false, 2),
             TILE(128, 1, false, 2), TILE(64, 2, false, 2),  TILE(64, 1, false, 2)};
static int tile_index(const gemm_plan *plan) {
    for (int i = 0; i < (int)(sizeof TILES / sizeof TILES[0]); i++)
        if (TILES[i].bn == plan->bn && TILES[i].wg == plan->wg && TILES[i].swap == plan->swap &&
            TILES[i].pair == plan->pair)
            return i;
    return -1;
}

/* The forced paths of the tile kernel without swap or split-K: their width and cluster. */
static const struct {
    const char *name;
    int bn, pair;
} TILE_PATHS[] = {{"tma_n256", 256, 1},  {"tma_n192", 192, 1},  {"tma_n128", 128, 1},
                  {"tma_n96", 96, 1},    {"tma_n64", 64, 1},    {"pair_n256", 256, 2},
                  {"pair_n128", 128, 2}, {"pair_n64", 64, 2}};
static const char *tile_path(int bn, int pair) {
    for (const auto &t : TILE_PATHS)
        if (t.bn == bn && t.pair == pair) return t.name;
    return NULL;
}

/* The model behind the tensor-core choice, from measurements on an H200 (README.md):
 * - a 128 x BN tile computes at a fraction of the SM's wgmma rate that falls with BN (n256: 1,
 *   n128: 0.88, n64: 0.57, each against cuBLAS at 4096^3; n192 between), 5 TFLOPS per SM at
 *   n256; 192 x 96 at 0.77, from its time at 1536^3 against n192's (18.2 us and 19.6, one wave
 *   each, with a ring of 4 stages);
 * - A and B come from DRAM at 3 TB/s (cuBLAS's rate at M = 1) once half the SMs stream (64
 *   tiles of 128 x 64 at N = 16 reach it), in proportion to the SMs that have work below that;
 * - split-K writes and reads its planes (at the same rate) and costs a second launch (2 us).
 * A unit takes max(its compute, its share of the streaming); waves of units run one after
 * another. Each width and split count is tried; the least time wins. */
#define SM_FLOPS 5.0e12
#define DRAM_BYTES_PER_S 3.0e12
#define SPLIT_LAUNCH_US 2.0
/* M of at most SWAP_ROWS: the swapped product, 16 or 32 rows of A in the instruction's N and N in
 * tiles of 64 rows (at M = 9, 16 and 32 with N = K = 8192: 97-98% of cuBLAS, against 86-91% for
 * 64-row tiles of which M fills a quarter or less; at M = 64 the two are even). */
#define SWAP_ROWS 32
static double wgmma_efficiency(int bn) {
    return bn == 256 ? 1.0 : bn == 192 ? 0.95 : bn == 128 ? 0.88 : bn == 96 ? 0.77 : 0.57;
}

static gemm_plan tensor_plan(int m, int n, int k, int sms, int forced_bn, bool forced_split) {
    const int slices = ceil_div(k, BK);
    const bool swap = m <= SWAP_ROWS && !forced_bn;
    const double bytes = 2.0 * ((double)m * k + (double)k * n);
    gemm_plan best = named(NULL);
    for (int bn : {256, 192, 128, 96, 64}) {
        if (forced_bn ? bn != forced_bn : (swap && bn != 64) || (bn == 96 && m <= 128)) continue;
        /* M <= 64: one consumer warpgroup, 64 rows; a second would multiply rows of zeros. 96
         * wide: three (192 x 96, cuBLAS's tile at 1536^3). Swapped: 64 rows of N per tile. */
        const int wg = swap ? 1 : bn == 96 ? 3 : m <= 64 ? 1 : 2;
        const int tile_m = swap ? (m <= 16 ? 16 : 32) : 64 * wg, tile_n = swap ? 64 : bn;
        const int tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
        const int max_splits = slices / 4 < 1 ? 1 : slices / 4 > 32 ? 32 : slices / 4;
        for (int splits = forced_split && max_splits > 1 ? 2 : 1; splits <= max_splits; splits++) {
            if (splits > 1 && tiles * (splits - 1) >= sms && !forced_split)
                break; /* the tiles already fill the SMs */
            const long units = (long)tiles * splits, waves = (units + sms - 1) / sms;
            const double busy = 2 * units < sms ? 2.0 * units / sms : 1.0;
            const double unit_us = ceil_div(slices, splits) * 2.0 * tile_m * tile_n * BK /
                                   (SM_FLOPS * wgmma_efficiency(bn)) * 1e6;
            double us = waves * unit_us;
            const double stream_us = bytes / (DRAM_BYTES_PER_S * busy) * 1e6;
            if (stream_us > us) us = stream_us;
            if (splits > 1)
                us += 2.0 * 4 * splits * (double)m * n / DRAM_BYTES_PER_S * 1e6 + SPLIT_LAUNCH_US;
            if (!best.path || us < best.us)
                best = (gemm_plan){
                    swap ? "swap" : tile_path(bn, 1), swap ? tile_m : bn, wg, splits, 1, swap, us};
            if (!forced_split && !forced_bn && splits == 1 && tiles >= sms) break;
        }
    }
    if (best.splits > 1) {
        best.path = "splitk";
    } else if (!swap && !forced_bn && ceil_div(n, best.bn) == 2 && tile_path(best.bn, 2)) {
        /* Two tiles per tile row: a cluster of two blocks covers it and reads its rows of A, the
         * matrix that dominates the bytes, once (8192 x 256 x 8192, n128: 87% of cuBLAS apart,
         * 96% as pairs; at 1024^3 and 4096^3, with many tiles per row, pairs gain nothing). */
        best.pair = 2;
        best.path = tile_path(best.bn, 2);
    }
    return best;
}

/* The plan for a problem on `sms` SMs: 0, or 1 with the reason in why (a forced path that cannot
 * run on this shape: never a substitute). */
static int plan_for(const gemm_args *p, int sms, gemm_plan *plan, char *why, size_t len) {
    /* TMA needs 16-byte aligned rows (K and N multiples of 8) and 16-byte aligned bases. */
    const bool tma =
        p->k % 8 == 0 && p->n % 8 == 0 && ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0;
    const char *f = p->force_path;
    if (!f) {
        /* Bytes against FLOPs: with N or M of at most 8, an element of the large matrix meets at
         * most 16 FLOPs, and the tensor cores' tiles would be mostly zeros. */
        *plan = p->n <= GEMV_ROWS  ? named("gemv_n")
                : p->m <= GEMV_ROWS ? named("gemv_m")
                : !tma              ? named("fallback")
                                    : tensor_plan(p->m, p->n, p->k, sms, 0, false);
    } else if (!strcmp(f, "gemv_m") || !strcmp(f, "gemv_n") || !strcmp(f, "fallback")) {
        *plan = named(f); /* the CUDA-core kernels take every shape */
    } else if (!tma) {
        snprintf(why, len, "%s needs K and N multiples of 8 (a tensor map's rows are whole 16-byte "
                 "units)", f);
        return 1;
    } else if (!strcmp(f, "splitk")) {
        *plan = tensor_plan(p->m, p->n, p->k, sms, 0, true);
        if (plan->splits < 2) {
            snprintf(why, len, "splitk needs at least 2 K ranges of 4 slices of %d: K > %d", BK,
                     7 * BK);
            return 1;
        }
    } else if (!strcmp(f, "swap")) { /* M in the instruction's N: 16, 32 or 64 rows of A */
        const int wg = ceil_div(p->n, 128) >= sms ? 2 : 1; /* N in tiles of 64 WG rows */
        *plan = (gemm_plan){f, p->m <= 16 ? 16 : p->m <= 32 ? 32 : 64, wg, 1, 1, true, 0.0};
    } else {
        int i = 0, count = sizeof TILE_PATHS / sizeof TILE_PATHS[0];
        while (i < count && strcmp(TILE_PATHS[i].name, f)) i++;
        if (i == count) {
            snprintf(why, len, "no path named %s", f);
            return 1;
        }
        /* that width in one K range, the warpgroups as the rules choose them for it */
        *plan = tensor_plan(p->m, p->n, p->k, sms, TILE_PATHS[i].bn, false);
        plan->path = f;
        plan->splits = 1;
        plan->pair = TILE_PATHS[i].pair;
    }
    if (plan->bn && tile_index(plan) < 0) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles, swap %d, cluster %d",
                 64 * plan->wg, plan->bn, plan->swap, plan->pair);
        return 1;
    }
    return 0;
}

/* gemm_step.plan: what launch_gemm launches for p, without launching it. */
static int plan_gemm(gemm_args *p, int sms) {
    gemm_plan plan;
    if (plan_for(p, sms, &plan, p->kernel, sizeof p->kernel)) return 1;
    p->path = plan.path;
    if (plan.bn)
        describe_tile(p->kernel, plan.bn, plan.wg, plan.swap, plan.pair, plan.splits);
    else if (!strcmp(plan.path, "gemv_m"))
        snprintf(p->kernel, sizeof p->kernel, "kernel=gemv_m rows=%d splits=%d",
                 gemv_m_shape(p->m, p->n, p->k, sms).rows, gemv_m_shape(p->m, p->n, p->k, sms).planes);
    else if (!strcmp(plan.path, "gemv_n"))
        snprintf(p->kernel, sizeof p->kernel, "kernel=gemv_n cols=%d", gemv_n_cols(p->n));
    else
        snprintf(p->kernel, sizeof p->kernel, "kernel=fallback tile=32x32");
    return 0;
}

template <typename T> static cudaError_t launch_typed(gemm_args *p) {
    gemm_plan plan;
    char why[sizeof p->kernel];
    if (plan_for(p, sm_count(), &plan, why, sizeof why)) return cudaErrorInvalidValue;
    p->path = plan.path;
    if (!strcmp(plan.path, "gemv_m")) return launch_gemv_m<T>(p);
    if (!strcmp(plan.path, "gemv_n")) return launch_gemv_n<T>(p);
    if (!strcmp(plan.path, "fallback")) {
        snprintf(p->kernel, sizeof p->kernel, "kernel=fallback tile=32x32");
        return launch_fallback<T>(p);
    }
    const int i = tile_index(&plan);
    return (std::is_same_v<T, __half> ? TILES[i].f16 : TILES[i].bf16)(p, plan.splits);
}

static cudaError_t launch_gemm(gemm_args *p) {
    if (p->dtype == GEMM_F16) return launch_typed<__half>(p);
    return launch_typed<__nv_bfloat16>(p);
}

int main(int argc, char **argv) {
    static const gemm_step step = {
        STEP_NAME,
        GEMM_F16 | GEMM_BF16,
        launch_gemm,
        CONFIG,
        (const void *)gemm_kernel<__half, 256, 2>,
        90,
        90,
        "wgmma (sm_90 only: H100, H200, GH200; Blackwell has TMA but no wgmma)",
        PATHS,
        plan_gemm};
    return gemm_main(argc, argv, &step);
}
