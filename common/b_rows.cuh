/*
 * b_rows.cuh: step 38's B where TMA cannot address it. A tensor map's row pitch and a box's first
 * column must both be multiples of 16 bytes; with N not a multiple of 8 (or B's base off 16
 * bytes) B's rows start anywhere on 2 bytes, and a box at such a column is an illegal
 * instruction. The swapped tiles of up to 32 rows of A read such a B where it lies instead of a
 * copy: warp 0 stages each row's aligned 16-byte units with cp.async (any 16-byte aligned
 * source), and the consumer warpgroup loads its wgmma operand from them into registers, where a
 * row's start inside its first unit costs nothing (wgmma_rs: A from registers).
 */
#pragma once
#include "hopper.cuh"

/* The tiles that read B by rows: swapped (B is wgmma's A operand, which may come from registers),
 * one consumer warpgroup alone in its cluster, at most 32 rows of A (wgmma_rs's N). */
static __host__ __device__ constexpr bool rows_tile(bool swap, int wg, int pair, int bn) {
    return swap && wg == 1 && pair == 1 && bn <= 32;
}

/* A staged row: the 9 aligned 16-byte units that hold 64 elements starting anywhere on 2 bytes */
#define STAGED_ROW_UNITS 9
#define STAGED_TILE_BYTES (64 * STAGED_ROW_UNITS * 16) /* rows k0 .. k0 + 63 of a 64-column tile */

/* Whether rows k0 .. k0 + 63 from column n0, with a unit's slack, reach past K or B's end: the
 * one slice (or few, at small N) whose loads need their bounds checked. */
static __device__ __forceinline__ bool at_edge(int N, int K, int n0, int k0) {
    return (size_t)(k0 + 63) * N + n0 + 72 > (size_t)K * N;
}
/* Warp 0: B's rows k0 .. k0 + 63, columns n0 .. n0 + 63, as the aligned units that hold them,
 * unit q of row r to `staged` + 16 (9 r + q); rows past K, and a unit that reaches past B's end,
 * staged as zeros (the consumer reads that slice from global memory). Where B itself starts off
 * 16 bytes, row 0's first unit begins up to 14 bytes before B, inside B's own 16-byte unit. */
template <typename T>
static __device__ __forceinline__ void stage_rows(unsigned char *staged, const T *b, int N, int K,
                                                  int n0, int k0, uint64_t *bar) {
    /* Lane (j, q) = (lane / 4, lane % 4) stages units q, q + 4 (and 8 at q = 0) of rows k0 + j +
     * 8 g: eight rows are 16 N bytes, whole units, so row j + 8 g's first unit is row j's plus
     * 16 N g bytes, and one 64-bit start a lane serves all its rows. A warp instruction reads 8
     * rows' 64 contiguous bytes; every other offset is a constant the copies carry. */
    const int lane = threadIdx.x % 32, j = lane / 4, q = lane % 4;
    const uintptr_t row0 =
        (reinterpret_cast<uintptr_t>(b + (size_t)(k0 + j) * N + n0) & ~uintptr_t(15)) + 16 * q;
    const size_t eight_rows = 16 * (size_t)N;
    unsigned char *const dst = staged + 16 * (STAGED_ROW_UNITS * j + q);
    constexpr int ROWS_STRIDE = 16 * STAGED_ROW_UNITS * 8; /* 8 staged rows */
    if (!at_edge(N, K, n0, k0)) {
#pragma unroll
        for (int g = 0; g < 8; g++) {
            const uintptr_t src = row0 + g * eight_rows;
            cp_async_16(dst + ROWS_STRIDE * g, reinterpret_cast<const void *>(src), 16);
            cp_async_16(dst + ROWS_STRIDE * g + 64, reinterpret_cast<const void *>(src + 64), 16);
            if (q == 0)
                cp_async_16(dst + ROWS_STRIDE * g + 128, reinterpret_cast<const void *>(src + 128),
                            16);
        }
    } else { /* rows past K, and units past B's end, staged as zeros */
        const uintptr_t last = reinterpret_cast<uintptr_t>(b + (size_t)K * N); /* one past B */
        const uintptr_t any = reinterpret_cast<uintptr_t>(b) & ~uintptr_t(15);
        for (int g = 0; g < 8; g++)
            for (int u = 0; u < (q == 0 ? 3 : 2); u++) {
                const uintptr_t src = row0 + g * eight_rows + 64 * u;
                const int bytes = k0 + j + 8 * g < K && src + 16 <= last ? 16 : 0;
                cp_async_16(dst + ROWS_STRIDE * g + 64 * u,
                            reinterpret_cast<const void *>(bytes ? src : any), bytes);
            }
    }
    cp_async_arrive(bar);
}

/* ---- The consumer warpgroup reads its wgmma A operand (B^T: 64 columns n by 16 k) straight
 * from the staged rows into registers, two 2-byte loads a register, and wgmma takes it from there
 * (wgmma_rs): no tile is rewritten, no proxy fence, no barrier between warps. A stage of the
 * ring: the tile of A's BN rows (TMA, 128-byte swizzle, 1 KB aligned), then the staged rows. Its
 * full barrier: warp 0's 32 copy arrivals and the TMA's expect_bytes (33); its empty barrier: one
 * arrival per consumer thread, after its wait for its wgmmas (128). ---- */
#define ROWS_A_BYTES(BN) ((BN) * BK * 2)
#define ROWS_STAGE_BYTES(BN) (ROWS_A_BYTES(BN) + STAGED_TILE_BYTES)
#define ROWS_FULL_ARRIVALS 33
#define ROWS_EMPTY_ARRIVALS 128

/* The producer warpgroup of a rows block: warp 0 stages B's rows, thread 32 loads A's tiles (TMA),
 * into the tile kernel's ring (RING bytes) cut into fewer, larger stages; units as the TMA
 * producer walks them, tile_of(t) the t-th tile (x: 64 columns n, y: BN rows m). It keeps its
 * registers (no setmaxnreg.dec): with one consumer warpgroup, 256 threads, the consumers' raise to
 * CONSUMER_REGISTERS fits the SM's 64 K registers whatever ptxas allocated (at most 255 each). */
template <int RING, int BN, typename T, typename TileOf>
static __device__ void produce_rows(const CUtensorMap *map_a, const T *b, unsigned char *ring,
                                    uint64_t *full, uint64_t *empty, int N, int K, int units,
                                    int tiles, int splits, TileOf tile_of) {
    constexpr int STAGES = RING / ROWS_STAGE_BYTES(BN);
    static_assert(ROWS_STAGE_BYTES(BN) % 1024 == 0, "every stage's A tile on 1 KB (the swizzle)");
    static_assert(STAGED_TILE_BYTES >= BK * 64 * 2 && STAGES >= 2,
                  "stages at least a one-warpgroup TMA stage (rows_tile), so no more of them than "
                  "the kernel has barriers; a ring");
    const int warp = threadIdx.x / 32;
    if (warp > 1 || (warp == 1 && threadIdx.x != 32)) return; /* warp 0: B; thread 32: A */
    const int slices = (K + BK - 1) / BK;
    ring_pos pos = {0, 0};
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const int2 tile = tile_of(u % tiles);
        const int split = u / tiles;
        for (int slice = split * slices / splits; slice < (split + 1) * slices / splits;
             slice++) {
            unsigned char *const stage = ring + pos.stage * ROWS_STAGE_BYTES(BN);
            mbar_wait(&empty[pos.stage], pos.phase ^ 1u);
            if (warp == 0) {
                stage_rows(stage + ROWS_A_BYTES(BN), b, N, K, tile.x * 64, slice * BK,
                           &full[pos.stage]);
            } else {
                mbar_expect_bytes(&full[pos.stage], ROWS_A_BYTES(BN));
                tma_load(stage, map_a, slice * BK, tile.y * BN, &full[pos.stage]);
            }
            pos = advance<STAGES>(pos);
        }
    }
    if (warp == 0) cp_async_wait_all(); /* no copy outlives its thread */
}

/* Elements (k0 + kr, n0 + n) and (k0 + kr + 1, n0 + n) of B from global memory, zeros past K or
 * N: the slice at B's end, whose staged units that reach past it are zeros. */
template <typename T>
static __device__ __forceinline__ uint32_t global_pair(const T *b, int N, int K, int n0, int k0,
                                                       int kr, int n) {
    const uint16_t *const e = reinterpret_cast<const uint16_t *>(b);
    uint32_t lo = 0, hi = 0;
    if (n0 + n < N) {
        if (k0 + kr < K) lo = e[(size_t)(k0 + kr) * N + n0 + n];
        if (k0 + kr + 1 < K) hi = e[(size_t)(k0 + kr + 1) * N + n0 + n];
    }
    return lo | hi << 16;
}

/* The consumer's slices first .. last of one tile: fragments from the staged rows, four wgmmas. */
template <int RING, int BN, typename T>
static __device__ __forceinline__ void consume_rows(float *acc, const unsigned char *ring,
                                                    uint64_t *full, uint64_t *empty, ring_pos &pos,
                                                    const T *b, int N, int K, int n0, int first,
                                                    int last) {
    constexpr int STAGES = RING / ROWS_STAGE_BYTES(BN);
    const int t = threadIdx.x % 128, lane = t % 32;
    const int n_a = 16 * (t / 32) + lane / 4, kb = 2 * (lane % 4); /* the fragment's row, k */
    /* Row j of a slice starts (b + 2 (j N)) % 16 bytes into its first staged unit, whatever the
     * slice (k0 a multiple of 64) and tile (n0 of 64): a thread's rows are kb and kb + 1 mod 8. */
    const uint32_t b_low = (uint32_t)reinterpret_cast<uintptr_t>(b) % 16;
    const uint32_t s_even = (b_low + 2u * ((uint32_t)kb * (uint32_t)N)) % 16;
    const uint32_t s_odd = (b_low + 2u * ((uint32_t)(kb + 1) * (uint32_t)N)) % 16;
    const int row_bytes = 16 * STAGED_ROW_UNITS;
    const int off_even = row_bytes * kb + (int)s_even + 2 * n_a;
    const int off_odd = row_bytes * (kb + 1) + (int)s_odd + 2 * n_a;
    for (int slice = first; slice < last; slice++) {
        mbar_wait(&full[pos.stage], pos.phase);
        const unsigned char *const stage = ring + pos.stage * ROWS_STAGE_BYTES(BN);
        const uint32_t rows = smem_u32(stage + ROWS_A_BYTES(BN)); /* for ld.shared */
        uint32_t f[BK / WGMMA_K][4];
        if (!at_edge(N, K, n0, slice * BK)) {
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; kk++)
#pragma unroll
                for (int h = 0; h < 2; h++) { /* k and k + 8; the second of each pair: row + 8 */
                    const uint32_t ev = rows + off_even + row_bytes * (16 * kk + 8 * h);
                    const uint32_t od = rows + off_odd + row_bytes * (16 * kk + 8 * h);
                    f[kk][2 * h] = lds_u16(ev) | lds_u16(od) << 16;
                    f[kk][2 * h + 1] = lds_u16(ev + 16) | lds_u16(od + 16) << 16;
                }
        } else {
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; kk++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int kr = 16 * kk + 8 * h + kb;
                    f[kk][2 * h] = global_pair(b, N, K, n0, slice * BK, kr, n_a);
                    f[kk][2 * h + 1] = global_pair(b, N, K, n0, slice * BK, kr, n_a + 8);
                }
        }
        const T *const a_rows = reinterpret_cast<const T *>(stage);
        /* the fragments stay in the registers the wgmmas read, unmoved until they are done */
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; kk++)
#pragma unroll
            for (int i = 0; i < 4; i++) asm volatile("" : "+r"(f[kk][i])::"memory");
        fence_registers(acc, BN / 2);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; kk++)
            wgmma_rs<BN, T>(acc, f[kk], sw128_desc(a_rows + kk * WGMMA_K, 16, 1024));
        wgmma_commit();
        wgmma_wait<0>(); /* the fragments and the A tile read: the stage is free */
        fence_registers(acc, BN / 2);
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; kk++)
#pragma unroll
            for (int i = 0; i < 4; i++) asm volatile("" : "+r"(f[kk][i])::"memory");
        /* every thread for its own loads (release), after which warp 0 may overwrite the stage */
        mbar_arrive(&empty[pos.stage]);
        pos = advance<STAGES>(pos);
    }
}
