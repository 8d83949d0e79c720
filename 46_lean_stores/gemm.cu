/* Step 46: C stored without TMA (N not a multiple of 4): a row, one store and one pointer add.
 *     make step N=46 && ./46_lean_stores/gemm 1537 7551 88 --cublas
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
#define RING_KB 200 /* every tile's ring: 3 stages (320 wide) to 20 (swapped, 16 rows of A) */
#define RING_BYTES (RING_KB * 1024)
#define CONFIG                                                                                     \
    "BM=192|128|64 BN=320|256|224|192|128|96|64 BK=" GEMM_STR(BK) " RING=" GEMM_STR(               \
        RING_KB) "KB GROUP_M=" GEMM_STR(GROUP_M) " GEMV_ROWS=" GEMM_STR(GEMV_ROWS)
#define WGMMA_K 16
#include "b_rows.cuh" /* step 38: B read by rows where TMA cannot address it */
#define OUT_COLS 32 /* one 128-byte swizzle row of FP32: the width of an epilogue chunk */
#define PATHS                                                                                      \
    "tma_n256 tma_n192 tma_n128 tma_n96 tma_n64 pair_n256 pair_n128 pair_n64 splitk swap gemv_m "  \
    "gemv_n padded small_k fallback tma_n320 pair_m_n256 pair_m_n192 pair_m_n128 pair_m_n64 "      \
    "stream_n mma_small quad_m_n128 quad_n128 quad_swap pair_swap turned_n96 turned_pair "       \
    "turned_quad tma_n224 pair_m_n224 grouped_swap"

/* What follows from the tile: WG consumer warpgroups of 64 rows each (BM = 64 WG), BN columns
 * (the wgmma instruction's N). */
template <int BN, int WG, bool SWAP = false> struct tiling {
    static constexpr int BM = 64 * WG;
    static constexpr int THREADS = 128 * (WG + 1); /* the producer warpgroup, then the consumers */
    /* setmaxnreg: what each consumer gets. __launch_bounds__(THREADS, 1) lets ptxas allocate up
     * to 65536 / THREADS registers (at most 255), and setmaxnreg.inc may only raise a count. */
    static constexpr int CONSUMER_REGISTERS = WG == 3 ? 152 : WG == 2 ? 232 : 248;
    /* B arrives as boxes of 64 columns x BK rows; a 96-wide tile loads two, a 224-wide one four */
    static constexpr int B_ATOMS = (BN + 63) / 64;
    /* SWAP: the product C^T = B^T A^T. Its A operand (rows of C^T: columns n of C) is a tile of
     * B, WG boxes of 64 columns x BK rows (MN-major, as B above); its B operand (m) is a tile of
     * A, one box of BK x BN rows (K-major, as A above; stacked along N, a box of BN / PAIR rows
     * from each block), BN = 16, 32, 64, 96 or 128. */
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
    static_assert(SWAP ? BN == 16 || (BN % 32 == 0 && BN <= 128)
                       : BN == 96 || BN == 224 || (BN % 64 == 0 && BN <= 320),
                  "wgmma N: 96, 224, 64 to 256 in 64s, 320 = 256 + 64; swapped: 16, 32-128 in 32s");
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

/* P(row, col), P(row, col + 1) = acc in M x N plane P (a split's sums): 8 bytes if N is even */
static __device__ __forceinline__ void store2(float *P, int M, int N, int row, int col, float acc0,
                                              float acc1) {
    if (row >= M || col >= N) return;
    float *const p = &P[(size_t)row * N + col];
    if (N % 2 == 0) *reinterpret_cast<float2 *>(p) = {acc0, acc1};
    if (N % 2 != 0) p[0] = acc0;
    if (N % 2 != 0 && col + 1 < N) p[1] = acc1;
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

/* The tile of unit t for block `rank` of a cluster of PAIR: side by side, or ALONG_M stacked. */
template <int PAIR, bool ALONG_M>
static __device__ __forceinline__ int2 unit_tile(int t, int unit_rows, int unit_cols, int rank) {
    const int2 unit = tile_coords(t, unit_rows, unit_cols);
    if constexpr (ALONG_M) return make_int2(unit.x * PAIR + rank, unit.y);
    return make_int2(unit.x, unit.y * PAIR + rank);
}

/* A consumer warpgroup is done with a stage: one arrival on its empty barrier in every block of
 * the cluster (each block's producer refills its share of the shared tile in all). Lane `cta` of
 * the first warp arrives in block `cta`, the arrivals one instruction. */
template <int PAIR> static __device__ __forceinline__ void release(uint64_t *bar) {
    if (threadIdx.x % 128 >= PAIR) return;
    if constexpr (PAIR == 1)
        mbar_arrive(bar);
    else
        mbar_arrive_in(bar, threadIdx.x % 128);
}

/* Step 13's kernel, BM x BN, over units of work: unit u is tile u % tiles (with PAIR of 2 or 4,
 * that many tiles, one per block of the cluster) and K range u / tiles of `splits` (slices
 * [split * slices / splits, (split + 1) * slices / splits), never empty since splits <= slices).
 * With splits == 1 a unit is a tile and C is written as in step 13; with more, each unit writes
 * its raw FP32 sums to its own M x N plane of `partial`, and splitk_reduce adds the planes and
 * applies alpha and beta. SWAP: the same on C^T = B^T A^T (tiles of BM columns of C by BN rows). */
template <typename T, int BN, int WG, bool SWAP = false, int PAIR = 1, bool ALONG_M = false>
__global__ void __launch_bounds__(tiling<BN, WG, SWAP>::THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                float beta, float *C, int splits, float *partial, bool c_direct,
                const T *b_rows) {
    using ring = tiling<BN, WG, SWAP>;
    constexpr int STAGES = ring::STAGES, BM = ring::BM, B_TILE = ring::B_TILE_BYTES / 2;
    extern __shared__ unsigned char smem_raw[];
    /* The 128-byte swizzle repeats every 1024 bytes, and TMA and wgmma agree on it only if
     * every tile starts on a multiple of 1024: align the base by hand. */
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    T *const a_tiles = reinterpret_cast<T *>(smem); /* [STAGES][BM][BK], swizzled */
    /* [STAGES][B_ATOMS][BK][64], swizzled; swapped: [STAGES][BN][BK], rows m of A, K-major */
    T *const b_tiles = reinterpret_cast<T *>(smem + STAGES * ring::A_TILE_BYTES);
    /* [WG][OUT_STAGES][64][OUT_COLS] FP32, swizzled: C on its way out */
    unsigned char *const out_tiles = smem + STAGES * ring::STAGE_BYTES;
    uint64_t *const full = reinterpret_cast<uint64_t *>(out_tiles + ring::OUT_BYTES);
    uint64_t *const empty = full + STAGES;

    static_assert((PAIR == 1 || PAIR == 2 || PAIR == 4) && (ALONG_M == SWAP || BK / PAIR % 8 == 0),
                  "2 or 4 blocks share a tile; cut along K, each loads whole 8-row swizzle groups");
    static_assert(!SWAP || PAIR == 1 || !ALONG_M || BN % (8 * PAIR) == 0,
                  "swapped, stacked along N: each block's rows of A, whole 8-row swizzle groups");
    /* SWAP: the tiles cover C^T, N rows by M columns. PAIR > 1: a unit is PAIR neighbouring tiles,
     * one for each block of the cluster: (x, PAIR j + rank), or ALONG_M (PAIR x + rank, j); past
     * the last tile row (swapped: of N) or column a block's tile is all zeros, stores nothing. */
    const int tiles_m = ceil_div(SWAP ? N : M, BM), tiles_n = ceil_div(SWAP ? M : N, BN);
    const int unit_rows = ceil_div(tiles_m, ALONG_M ? PAIR : 1);
    const int unit_cols = ceil_div(tiles_n, ALONG_M ? 1 : PAIR), tiles = unit_rows * unit_cols;
    const int slices = ceil_div(K, BK), units = tiles * splits;
    const int rank = PAIR > 1 ? cluster_rank() : 0, cluster = blockIdx.x / PAIR;
    const int warpgroup = threadIdx.x / 128; /* 0: the producer; 1 ..: consumers */
    constexpr bool BY_ROWS = rows_tile(SWAP, WG, PAIR, BN); /* b_rows: B by rows (b_rows.cuh) */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            /* the producer's expect_bytes, then the TMA bytes (b_rows: and 32 copies' arrivals) */
            mbar_init(&full[s], b_rows ? ROWS_FULL_ARRIVALS : 1);
            /* one arrival per consumer warpgroup of every block that reads the stage's A or B */
            mbar_init(&empty[s], b_rows ? ROWS_EMPTY_ARRIVALS : WG * PAIR);
        }
        /* Release the barriers' init (cluster scope) before any copy or other block uses them. */
        fence_mbarrier_init();
    }
    /* The last block-wide barrier (with PAIR, cluster-wide: the other blocks' barriers exist
     * before a copy or an arrival reaches them); from here on the roles only meet at mbarriers. */
    if constexpr (PAIR > 1)
        cluster_sync();
    else
        __syncthreads();
    griddep_wait(); /* nothing above touched global memory; below, all may be the last kernel's */
    griddep_launch_dependents(); /* splitk_reduce may launch, to wait for this grid's end */

    if (warpgroup == 0) {
        if constexpr (BY_ROWS) if (b_rows)
            return produce_rows<STAGES * ring::STAGE_BYTES, BN>(
                &map_a, b_rows, smem, full, empty, N, K, units, tiles, splits,
                [&](int t) { return unit_tile<PAIR, ALONG_M>(t, unit_rows, unit_cols, 0); });
        setmaxnreg_dec<PRODUCER_REGISTERS>();
        if (threadIdx.x != 0) return;
        /* The producer waits for a free stage with the opposite parity: on the first pass round
         * the ring the stages are free, and waiting for "phase 1 of a fresh barrier" returns at
         * once. */
        ring_pos pos = {0, 0};
        for (int u = cluster; u < units; u += gridDim.x / PAIR) {
            const int2 tile = unit_tile<PAIR, ALONG_M>(u % tiles, unit_rows, unit_cols, rank);
            const int split = u / tiles;
            for (int slice = split * slices / splits; slice < (split + 1) * slices / splits;
                 slice++) {
                mbar_wait(&empty[pos.stage], pos.phase ^ 1u);
                /* boxes past the edge still deliver all bytes */
                mbar_expect_bytes(&full[pos.stage], ring::STAGE_BYTES);
                if constexpr (SWAP) { /* A operand: columns n of B; B operand: rows m of A */
                    constexpr int B_BLOCKS = ALONG_M ? 1 : PAIR; /* !ALONG_M: tiles along M */
                    for (int j = 0, k0 = B_BLOCKS > 1 ? rank * (BK / PAIR) : 0; j < WG; j++)
                        tma_load_to<B_BLOCKS>(a_tiles + pos.stage * BM * BK + (j * BK + k0) * 64,
                                              &map_b, tile.x * BM + 64 * j, slice * BK + k0,
                                              &full[pos.stage]);
                    T *const b = b_tiles + pos.stage * B_TILE + ALONG_M * rank * BN / PAIR * BK;
                    if constexpr (PAIR > 1 && ALONG_M) /* BN / PAIR rows of A to all PAIR */
                        tma_load_multicast(b, &map_a, slice * BK, tile.y * BN + rank * BN / PAIR,
                                           &full[pos.stage], (1 << PAIR) - 1);
                    else
                        tma_load(b, &map_a, slice * BK, tile.y * BN, &full[pos.stage]);
                } else {
                    if constexpr (PAIR > 1 && !ALONG_M) /* BM / PAIR rows of A to all PAIR */
                        tma_load_multicast(a_tiles + pos.stage * BM * BK + rank * BM / PAIR * BK,
                                           &map_a, slice * BK, tile.x * BM + rank * BM / PAIR,
                                           &full[pos.stage], (1 << PAIR) - 1);
                    else
                        tma_load(a_tiles + pos.stage * BM * BK, &map_a, slice * BK, tile.x * BM,
                                 &full[pos.stage]);
                    const int k0 = ALONG_M ? rank * (BK / PAIR) : 0; /* B's k-rows to all */
                    for (int j = 0; j < ring::B_ATOMS; j++) {
                        T *const b = b_tiles + pos.stage * B_TILE + (j * BK + k0) * 64;
                        if constexpr (ALONG_M)
                            tma_load_multicast(b, &map_b, tile.y * BN + 64 * j, slice * BK + k0,
                                               &full[pos.stage], (1 << PAIR) - 1);
                        else
                            tma_load(b, &map_b, tile.y * BN + 64 * j, slice * BK, &full[pos.stage]);
                    }
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
        const int2 tile = unit_tile<PAIR, ALONG_M>(u % tiles, unit_rows, unit_cols, rank);
        const int split = u / tiles;
        float acc[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        ring_pos prev = pos;
        const int first = split * slices / splits, last = (split + 1) * slices / splits;
        if constexpr (BY_ROWS)
            if (b_rows)
                consume_rows<STAGES * ring::STAGE_BYTES, BN>(acc, smem, full, empty, pos, b_rows,
                                                             N, K, tile.x * 64, first, last);
        for (int slice = first; slice < last && !b_rows; slice++) {
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
                else { /* A: the k16 step is 32 bytes further along the swizzled rows; B: 16
                        * k-rows (2 KB) further; past an instruction's 256 columns, 4 boxes on */
                    const uint64_t desc_a = sw128_desc(a + kk * WGMMA_K, 16, 1024);
                    const T *const b_k = b + kk * WGMMA_K * 64;
                    wgmma<(BN > 256 ? 256 : BN), 0, 1, T>(acc, desc_a,
                                                          sw128_desc(b_k, BK * 128, 1024));
                    if constexpr (BN > 256)
                        wgmma<BN - 256, 0, 1, T>(acc + 128, desc_a,
                                                 sw128_desc(b_k + 4 * BK * 64, BK * 128, 1024));
                }
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
        if (!b_rows) release<PAIR>(&empty[prev.stage]); /* the unit's last stage */

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
                if (c_direct) { /* no tensor map: a warp stores its 16 rows, a row at a time */
                    const int col = tile.y * BN + chunk * OUT_COLS + lane, r0 = row - lane / 4;
                    const float *rows = reinterpret_cast<float *>(buf) + warp * 512 + lane % 4;
                    float v[16], *out = C + (size_t)r0 * N + col; /* reads first: they overlap */
#pragma unroll
                    for (int i = 0; i < 16; i++) v[i] = rows[i * 32 + ((lane / 4) ^ (i % 8)) * 4];
#pragma unroll /* a row: its st.global, then one add.s64 (no multiply) */
                    for (int i = 0; i < 16; i++, out += N) if (col < N && r0 + i < M) *out = v[i];
                } else if (threadIdx.x % 128 == 0) {
                    tma_store(&map_c, buf, tile.y * BN + chunk * OUT_COLS, first_row);
                    bulk_commit();
                }
            }
        }
    }
    /* shared memory must outlive the stores' reads of it */
    if (threadIdx.x % 128 == 0) bulk_wait_read<0>();
    /* Other blocks of the cluster may still arrive on this one's barriers: stay until they end */
    if constexpr (PAIR > 1) cluster_sync();
}

#include "splitk.cuh" /* splitk_reduce, the workspace */
#include "gemv.cuh" /* the GEMV kernels of step 18 */
#include "small_k_prefetch.cuh" /* step 28's */
#include "stream_n.cuh" /* step 27's */
#include "mma_small_lean.cuh" /* step 29's kernel, this step's loads and tiles */

#include "fallback.cuh" /* forced only: step 03's tiling */

#include "plan.h"

/* dst (rows x ld, ld a multiple of 8) = src (rows x cols, 16-bit elements), zeros past cols: a
 * thread writes 8 elements, one 16-byte store. Both operands in one launch: A's units first.
 * Launched plainly: it overwrites the copies the last call's tile kernel may still read. */
struct pad_job {
    const uint16_t *src;
    uint16_t *dst;
    int rows, cols, ld;
};
__global__ void __launch_bounds__(256) pad_rows(pad_job a, pad_job b, size_t a_units,
                                                size_t units) {
    griddep_launch_dependents(); /* the tile kernel launches and starts its prologue meanwhile */
    const size_t unit = blockIdx.x * (size_t)256 + threadIdx.x;
    if (unit >= units) return;
    const bool in_a = unit < a_units; /* field by field: a reference puts a and b on the stack */
    const uint16_t *const src = in_a ? a.src : b.src;
    uint16_t *const dst = in_a ? a.dst : b.dst;
    const int cols = in_a ? a.cols : b.cols, ld = in_a ? a.ld : b.ld;
    const size_t u = in_a ? unit : unit - a_units, row = u / (ld / 8), col = u % (ld / 8) * 8;
    uint32_t w[4] = {}; /* element pairs, packed so that the store is one st.global.v4 */
#pragma unroll
    for (int e = 0; e < 8; e++)
        if (col + e < cols) w[e / 2] |= (uint32_t)src[row * cols + col + e] << 16 * (e % 2);
    reinterpret_cast<uint4 *>(dst)[(row * ld + col) / 8] = make_uint4(w[0], w[1], w[2], w[3]);
}

/* A and B as the tensor maps read them: the operands, or their copies (pad: rows of whole 128-byte
 * lines, COPY_PITCH elements, which holds WIDE_B's 64), made by one pad_rows launch. */
static cudaError_t padded_operands(const gemm_args *p, int pad, const void **a, int *lda,
                                   const void **b, int *ldb) {
    *a = p->a, *b = p->b, *lda = p->k, *ldb = p->n;
    if (!(pad & (PAD_A | PAD_B))) return cudaSuccess;
    if (pad & PAD_A) *lda = ceil_div(p->k, COPY_PITCH) * COPY_PITCH;
    if (pad & PAD_B) *ldb = ceil_div(p->n, COPY_PITCH) * COPY_PITCH;
    const size_t a_units = pad & PAD_A ? (size_t)p->m * *lda / 8 : 0;
    const size_t b_units = pad & PAD_B ? (size_t)p->k * *ldb / 8 : 0;
    const size_t a_bytes = ceil_div(a_units * 16, (size_t)256) * 256; /* B's copy on 256 bytes */
    unsigned char *ws = (unsigned char *)workspace_bytes(1, a_bytes + b_units * 16);
    if (!ws) return cudaErrorMemoryAllocation;
    const pad_job ja = {(const uint16_t *)p->a, (uint16_t *)ws, p->m, p->k, *lda};
    const pad_job jb = {(const uint16_t *)p->b, (uint16_t *)(ws + a_bytes), p->k, p->n, *ldb};
    pad_rows<<<(unsigned)ceil_div(a_units + b_units, (size_t)256), 256>>>(ja, jb, a_units,
                                                                          a_units + b_units);
    if (pad & PAD_A) *a = ws;
    if (pad & PAD_B) *b = ws + a_bytes;
    return cudaGetLastError();
}

/* Step 13's kernel on BM x BN tiles (BM = 64 WG), `splits` K ranges, in clusters of PAIR * group */
template <typename T, int BN, int WG, bool SWAP = false, int PAIR = 1, bool ALONG_M = false>
static cudaError_t launch_tma(gemm_args *p, int splits, int group) {
    const int pad = copies_for(p, SWAP, rows_tile(SWAP, WG, PAIR, BN)), fills = line_fills(p, pad);
    describe_tile(p->kernel, BN, WG, SWAP, ALONG_M ? -PAIR : PAIR, splits, pad | fills, group);
    const void *a, *b;
    int lda, ldb;
    cudaError_t err = padded_operands(p, pad, &a, &lda, &b, &ldb);
    if (err != cudaSuccess) return err;
    using ring = tiling<BN, WG, SWAP>;
    auto *const kernel = gemm_kernel<T, BN, WG, SWAP, PAIR, ALONG_M>;
    const CUtensorMapDataType type = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    cudaLaunchAttribute attrs[2] = {early_start()}; /* overlaps the kernel before it */
    attrs[1].id = cudaLaunchAttributeClusterDimension;
    attrs[1].val.clusterDim = {PAIR * (unsigned)group, 1, 1};
    cudaLaunchConfig_t config = {};
    config.blockDim = ring::THREADS;
    config.dynamicSmemBytes = ring::SMEM;
    config.attrs = attrs;
    config.numAttrs = PAIR * group > 1 ? 2 : 1;
    /* The maps depend only on the pointers and the shape: made once per problem, outside the timed
     * launches; each instantiation keeps its own, since the boxes differ with BM, BN and PAIR). */
    static CUtensorMap map_a, map_b, map_c;
    static gemm_args made = {0};
    static int clusters = 0, made_group = 0; /* clusters that fit at once, for this group */
    if (made.a != a || made.b != b || made.c != p->c || made.m != p->m || made.n != p->n ||
        made.k != p->k || made.dtype != p->dtype || made_group != group) {
        /* A's box: BK x BM / PAIR rows (a block of a cluster loads its share), swapped BK x BN /
         * PAIR (along M: BN); B's: 64 columns x BK k-rows, BK / PAIR where the blocks share it */
        const int a_rows = SWAP ? (ALONG_M ? BN / PAIR : BN) : ALONG_M ? ring::BM : ring::BM / PAIR;
        err = make_map(&map_a, a, p->m, p->k, BK, a_rows, type, 2, lda, l2_fill(fills & LINE_A));
        if (err == cudaSuccess && !(pad & ROWS_B)) /* WIDE_B: the box over the copy's zeros */
            err = make_map(&map_b, b, p->k, pad & WIDE_B ? ldb : p->n, 64,
                           ALONG_M != SWAP ? BK / PAIR : BK, type, 2, ldb,
                           l2_fill(fills & LINE_B));
        /* C's box: 64 rows (a consumer warpgroup's) x OUT_COLS, FP32; none for direct stores */
        if (err == cudaSuccess && !(pad & C_DIRECT))
            err = make_map(&map_c, p->c, p->m, p->n, OUT_COLS, 64, CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                           4);
        if (err != cudaSuccess) return err;
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ring::SMEM);
        if (err != cudaSuccess) return err;
        clusters = sm_count();
        if (PAIR * group > 1) {
            config.gridDim = PAIR * group * sm_count();
            err = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
            if (err != cudaSuccess) return err;
        }
        made = *p;
        made.a = a, made.b = b, made_group = group;
    }
    float *partial = NULL;
    if (splits > 1 && !(partial = workspace((size_t)splits * p->m * p->n)))
        return cudaErrorMemoryAllocation;
    /* Persistent: whole clusters that fit at once; a unit is PAIR tiles; spare blocks exit. */
    const int rows = ceil_div(SWAP ? p->n : p->m, ring::BM);
    const int units = ceil_div(rows, ALONG_M ? PAIR : 1) *
                      ceil_div(ceil_div(SWAP ? p->m : p->n, BN), ALONG_M ? 1 : PAIR) * splits;
    config.gridDim = PAIR * group * std::min(ceil_div(units, group), clusters);
    err = cudaLaunchKernelEx(&config, kernel, map_a, map_b, map_c, p->m, p->n, p->k, p->alpha,
                             p->beta, p->c, splits, partial, (pad & C_DIRECT) != 0,
                             pad & ROWS_B ? (const T *)p->b : nullptr);
    return err != cudaSuccess || splits == 1 ? err : reduce_planes(p, partial, splits);
}

template <typename T> static cudaError_t launch_fallback(gemm_args *p) {
    describe_fallback(p->kernel);
    dim3 grid(ceil_div(p->m, 32) * ceil_div(p->n, 32)), block(32, 32);
    fallback_kernel<T><<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const T *)p->a,
                                        (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

/* gemv_m: R = M up to 8 rows per block, K cut as gemv_m_shape says (plan.h). */
template <typename T, int R> static cudaError_t launch_gemv_m_rows(gemm_args *p) {
    const gemv_m_grid g = gemv_m_shape(p->m, p->n, p->k, sm_count());
    describe_gemv_m(p->kernel, R, g.planes);
    float *partial = g.planes > 1 ? workspace((size_t)g.planes * p->m * p->n) : NULL;
    if (g.planes > 1 && !partial) return cudaErrorMemoryAllocation;
    dim3 grid(g.col_blocks * g.row_blocks, g.planes);
    gemv_m_kernel<T, R><<<grid, GEMV_THREADS, R * g.k_chunk * sizeof(float)>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c, g.k_chunk,
        partial);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess || g.planes == 1 ? err : reduce_planes(p, partial, g.planes);
}
template <typename T> static cudaError_t launch_gemv_m(gemm_args *p) {
    const int rows = gemv_m_shape(p->m, p->n, p->k, sm_count()).rows;
    return rows == 1 ? launch_gemv_m_rows<T, 1>(p) : rows == 2 ? launch_gemv_m_rows<T, 2>(p)
           : rows == 4 ? launch_gemv_m_rows<T, 4>(p) : launch_gemv_m_rows<T, 8>(p);
}

/* gemv_n: CN = 1, 4 or 8 columns per warp, as gemv_n_cols says (plan.h). */
template <typename T, int CN> static cudaError_t launch_gemv_n_cols(gemm_args *p) {
    const gemv_n_grid g = gemv_n_shape(p->m, p->n, p->k, sm_count());
    describe_gemv_n(p->kernel, CN, g);
    float *partial = g.planes > 1 ? workspace((size_t)g.planes * p->m * p->n) : NULL;
    if (g.planes > 1 && !partial) return cudaErrorMemoryAllocation;
    auto kernel = g.planes > 1 ? gemv_n_kernel<T, CN, true> : gemv_n_kernel<T, CN, false>;
    if (g.threads == 512) kernel = gemv_n_kernel<T, CN, false, (CN > 1 ? 512 : GEMV_THREADS)>;
    kernel<<<dim3(g.blocks, g.planes), g.threads>>>(p->m, p->n, p->k, p->alpha, (const T *)p->a,
        (const T *)p->b, p->beta, p->c, g.k_chunk, partial);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess || g.planes == 1 ? err : reduce_planes(p, partial, g.planes);
}
template <typename T> static cudaError_t launch_gemv_n(gemm_args *p) {
    const int cols = gemv_n_cols(p->n);
    return cols == 1   ? launch_gemv_n_cols<T, 1>(p)
           : cols == 4 ? launch_gemv_n_cols<T, 4>(p) : launch_gemv_n_cols<T, GEMV_ROWS>(p);
}

/* The launch of each instantiation plan.h may choose. */
typedef cudaError_t (*tile_launch)(gemm_args *, int splits, int group);
#define TILE_LAUNCH(BN, WG, SWAP, PAIR)                                                            \
    {BN, WG, SWAP, PAIR, launch_tma<__half, BN, WG, SWAP, (PAIR < 0 ? -PAIR : PAIR), PAIR < 0>,   \
     launch_tma<__nv_bfloat16, BN, WG, SWAP, (PAIR < 0 ? -PAIR : PAIR), PAIR < 0>},
static const struct { int bn, wg; bool swap; int pair; tile_launch f16, bf16; } TILES[] = {
    TILE_KERNELS(TILE_LAUNCH)};

template <typename T> static cudaError_t launch_typed(gemm_args *p) {
    gemm_plan plan;
    char why[sizeof p->kernel];
    if (plan_for(p, sm_count(), &plan, why, sizeof why)) return cudaErrorInvalidValue;
    p->path = plan.path;
    if (!strcmp(plan.path, "gemv_m")) return launch_gemv_m<T>(p);
    if (!strcmp(plan.path, "gemv_n")) return launch_gemv_n<T>(p);
    if (!strcmp(plan.path, "stream_n")) return launch_stream_n<T>(p);
    if (!strcmp(plan.path, "small_k")) return launch_small_k<T>(p, sm_count());
    if (!strcmp(plan.path, "fallback")) return launch_fallback<T>(p);
    if (!strcmp(plan.path, "mma_small")) return launch_mma_small<T>(p, sm_count());
    for (const auto &t : TILES)
        if (t.bn == plan.bn && t.wg == plan.wg && t.swap == plan.swap && t.pair == plan.pair)
            return (std::is_same_v<T, __half> ? t.f16 : t.bf16)(p, plan.splits, plan.group);
    return cudaErrorInvalidValue; /* plan_for names only instantiations of TILE_KERNELS */
}

static cudaError_t launch_gemm(gemm_args *p) {
    if (p->dtype == GEMM_F16) return launch_typed<__half>(p);
    return launch_typed<__nv_bfloat16>(p);
}

int main(int argc, char **argv) {
    static const gemm_step step = {STEP_NAME, GEMM_F16 | GEMM_BF16, launch_gemm, CONFIG,
        (const void *)gemm_kernel<__half, 256, 2>, 90, 90,
        "wgmma (sm_90 only: H100, H200, GH200; Blackwell has TMA but no wgmma)", PATHS, plan_gemm};
    return gemm_main(argc, argv, &step);
}
