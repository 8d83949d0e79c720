/*
 * small_k_prefetch.cuh: step 25's small_k (small_k.cuh, whose names it keeps: a step includes one
 * or the other, and `make diff N=28` shows this header against it), its blocks persistent: a
 * block walks its tiles' K slices one after another and issues the loads of the next slice, of
 * this tile or of its next, before it computes this one and stores its C. Where K is small,
 * writing C is the time (an element of C costs 2K FLOPs and its 4 bytes: at K = 8, 4 FLOPs a
 * byte, where even the H200's CUDA cores do about 14, 67 TFLOPS over 4.8 TB/s). Step 25's blocks
 * each had one tile's loads in flight, and the 64 x 128 tile's SM holds two blocks: too few loads
 * in flight to cover a DRAM latency beside the stores. It reads A and B in place, any alignment
 * (no copy, no tensor map), and writes C straight from registers, TX consecutive floats per row.
 */
#ifndef SMALL_K_CUH
#define SMALL_K_CUH

#include <stdio.h>

#include "gemm.h"

#define SMALL_K_THREADS 256
#define SMALL_K_SLICE 32 /* K per shared-memory slice (16 in the 64 x 128 tile, launch_small_k) */

/* The block's tile of C is (SMALL_K_THREADS / TX * TM) x (TX * TN): TX threads across a row of
 * the tile, each TM rows x TN columns, its columns TX apart and its rows a tile of threads apart,
 * so that at every (i, j) the TX threads store TX consecutive floats. K goes KS at a time. */
/* (5 blocks an SM for the 32 x 8 tile, as step 25's 47 registers gave it: its loads kept in flight
 * as 16-bit values would otherwise take more registers and fewer blocks) */
template <typename T, int TX, int TN, int TM, int KS = SMALL_K_SLICE>
__global__ void __launch_bounds__(SMALL_K_THREADS, TM * TN >= 32 ? 2 : TM * TN > 1 ? 3 : 5)
    small_k_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                   float *C) {
    constexpr int TY = SMALL_K_THREADS / TX, BM = TY * TM, BN = TX * TN;
    static_assert(32 % TX == 0, "a warp holds whole rows of threads: its stores are whole rows");
    static_assert(BM * KS % SMALL_K_THREADS == 0 && KS * BN % SMALL_K_THREADS == 0,
                  "each thread loads the same number of elements of each slice");
    constexpr int A_LOADS = BM * KS / SMALL_K_THREADS, B_LOADS = KS * BN / SMALL_K_THREADS;
    /* +1: in the 8-wide tiles a warp reads a column of A in 4 rows, 33 words apart: 4 banks */
    __shared__ float As[BM][KS + 1];
    __shared__ float Bs[KS][BN];
    const int tiles_m = ceil_div(M, BM), tiles = tiles_m * ceil_div(N, BN);
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    /* A slice's elements, as loaded: converted only where they are stored to shared memory, so
     * that nothing waits for a load before the slice is needed. A's kw-wide piece of BM rows is
     * counted as one run (at K <= KS it is one: A's rows are contiguous), so that the threads
     * load consecutive elements whatever kw is. */
    T a[A_LOADS], b[B_LOADS];
    auto load = [&](int tile, int k0) {
        const int row0 = (tile % tiles_m) * BM, col0 = (tile / tiles_m) * BN, kw = min(KS, K - k0);
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const int e = threadIdx.x + SMALL_K_THREADS * i, r = e / kw, c = e % kw;
            a[i] = r < BM && row0 + r < M ? A[(size_t)(row0 + r) * K + k0 + c] : T(0.0f);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const int e = threadIdx.x + SMALL_K_THREADS * i, r = e / BN, c = e % BN;
            b[i] = r < kw && col0 + c < N ? B[(size_t)(k0 + r) * N + col0 + c] : T(0.0f);
        }
    };
    int tile = blockIdx.x, k0 = 0;
    if (tile < tiles) load(tile, k0);
    float acc[TM][TN] = {};
    while (tile < tiles) {
        const int kw = min(KS, K - k0);
        __syncthreads(); /* the last slice's reads of As and Bs are done */
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const int e = threadIdx.x + SMALL_K_THREADS * i;
            if (e / kw < BM) As[e / kw][e % kw] = static_cast<float>(a[i]);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const int e = threadIdx.x + SMALL_K_THREADS * i;
            Bs[e / BN][e % BN] = static_cast<float>(b[i]);
        }
        __syncthreads();
        /* the next slice: this tile's, or the first of the block's next tile */
        const bool last = k0 + KS >= K;
        const int next_tile = last ? tile + gridDim.x : tile, next_k0 = last ? 0 : k0 + KS;
        if (next_tile < tiles) load(next_tile, next_k0);
        for (int k = 0; k < kw; k++) {
            float av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) av[i] = As[ty + TY * i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) bv[j] = Bs[k][tx + TX * j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        if (last) {
            const int row0 = (tile % tiles_m) * BM, col0 = (tile / tiles_m) * BN;
#pragma unroll
            for (int i = 0; i < TM; i++) {
                const int row = row0 + ty + TY * i;
#pragma unroll
                for (int j = 0; j < TN; j++) {
                    const int col = col0 + tx + TX * j;
                    if (row < M && col < N) {
                        float *c = &C[(size_t)row * N + col];
                        *c = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;
                    }
                    acc[i][j] = 0.0f;
                }
            }
        }
        tile = next_tile;
        k0 = next_k0;
    }
}

/* The tile: the first of 64 x 128, 64 x 32 and 128 x 8 that M fills by more than half, N too
 * (but for 128 x 8), and that gives every SM a block; else 32 x 8, four times 128 x 8's blocks.
 * (blocks: the tiles; launch_small_k_tile decides how many blocks walk them) */
typedef struct {
    int bm, bn, blocks;
} small_k_grid;
static small_k_grid small_k_tile(int m, int n, int sms) {
    static const int tiles[][2] = {{64, 128}, {64, 32}, {128, 8}};
    for (const auto &t : tiles) {
        const small_k_grid g = {t[0], t[1], ceil_div(m, t[0]) * ceil_div(n, t[1])};
        if ((t[1] == 8 || 2 * n > t[1]) && 2 * m > t[0] && g.blocks >= sms) return g;
    }
    return {32, 8, ceil_div(m, 32) * ceil_div(n, 8)};
}
static void describe_small_k(char *out, const small_k_grid &g) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=small_k tile=%dx%d", g.bm, g.bn);
}

/* Blocks walk tiles only in the 64 x 128 tile, whose 32 sums a thread are the most stores, and
 * from one wave of the blocks the SMs hold to SMALL_K_PERSIST_WAVES: past it the hardware's block
 * order measured faster than blocks that each walk a fixed share of the tiles. In the 32 x 8 tile
 * walking gained nothing where measured; the others were not measured walking (README.md) */
#define SMALL_K_PERSIST_WAVES 8

template <typename T, int TX, int TN, int TM, int KS>
static cudaError_t launch_small_k_tile(gemm_args *p, const small_k_grid &g, int sms) {
    int blocks = g.blocks; /* one a tile */
    if constexpr (TM * TN >= 32) { /* the 64 x 128 tile: its blocks may walk */
        static int per_sm = 0; /* blocks an SM holds: asked once, not at every launch */
        if (!per_sm) {
            cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, small_k_kernel<T, TX, TN, TM, KS>, SMALL_K_THREADS, 0);
            if (err != cudaSuccess) return err;
        }
        const int resident = per_sm * sms;
        if (g.blocks > resident && g.blocks <= SMALL_K_PERSIST_WAVES * resident) blocks = resident;
    }
    small_k_kernel<T, TX, TN, TM, KS><<<blocks, SMALL_K_THREADS>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

template <typename T> static cudaError_t launch_small_k(gemm_args *p, int sms) {
    const small_k_grid g = small_k_tile(p->m, p->n, sms);
    describe_small_k(p->kernel, g);
    /* (TX, TN, TM) for each tile of small_k_tile; the widest in slices of 16: with 32 its loads
     * in flight and its 32 sums need more than the 128 registers of two blocks per SM */
    return g.bn == 128  ? launch_small_k_tile<T, 32, 4, 8, 16>(p, g, sms)
           : g.bn == 32 ? launch_small_k_tile<T, 32, 1, 8, SMALL_K_SLICE>(p, g, sms)
           : g.bm == 128 ? launch_small_k_tile<T, 8, 1, 4, SMALL_K_SLICE>(p, g, sms)
                         : launch_small_k_tile<T, 8, 1, 1, SMALL_K_SLICE>(p, g, sms);
}

#endif
