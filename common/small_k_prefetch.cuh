/*
 * small_k_prefetch.cuh: step 25's small_k (small_k.cuh, whose names it keeps: a step includes one
 * or the other, and `make diff N=28` shows this header against it), and a second kernel for its
 * widest tile whose blocks walk their tiles: a block computes its tiles' K slices one after
 * another and issues the loads of the next slice, of this tile or of its next, before it
 * computes this one and stores its C. Where K is small, writing C is the time (an element of C
 * costs 2K FLOPs and its 4 bytes: at K = 8, 4 FLOPs a byte, where even the H200's CUDA cores do
 * about 14, 67 TFLOPS over 4.8 TB/s). Step 25's blocks each had one tile's loads in flight, and
 * the 64 x 128 tile's SM holds two blocks: likely (not profiled) too few loads in flight to cover
 * a DRAM latency beside the stores. Both read A and B in place, any alignment (no copy, no tensor
 * map), and write C straight from registers, TX consecutive floats per row.
 */
#ifndef SMALL_K_CUH
#define SMALL_K_CUH

#include <stdio.h>

#include "gemm.h"

#define SMALL_K_THREADS 256
#define SMALL_K_SLICE 32 /* K per shared-memory slice (16 in the 64 x 128 tile: its launch) */

/* The block's tile of C is (SMALL_K_THREADS / TX * TM) x (TX * TN): TX threads across a row of
 * the tile, each TM rows x TN columns, its columns TX apart and its rows a tile of threads apart,
 * so that at every (i, j) the TX threads store TX consecutive floats. K goes KS at a time. */
template <int TX, int TN, int TM, int KS> struct small_k_shape {
    static constexpr int TY = SMALL_K_THREADS / TX, BM = TY * TM, BN = TX * TN;
    static_assert(32 % TX == 0, "a warp holds whole rows of threads: its stores are whole rows");
    static_assert(BM * KS % SMALL_K_THREADS == 0 && KS * BN % SMALL_K_THREADS == 0,
                  "each thread loads the same number of elements of each slice");
    static constexpr int A_LOADS = BM * KS / SMALL_K_THREADS, B_LOADS = KS * BN / SMALL_K_THREADS;
};

/* The thread's elements of the slice of A and B at (row0, col0, k0), loaded as R. A's kw-wide
 * piece of BM rows is counted as one run (at K <= KS it is one: A's rows are contiguous), so that
 * the threads load consecutive elements whatever kw is. */
template <int BM, int BN, int KS, typename T, typename R>
__device__ __forceinline__ void small_k_load(int M, int N, int K, const T *A, const T *B, int row0,
                                             int col0, int k0, R (&a)[BM * KS / SMALL_K_THREADS],
                                             R (&b)[KS * BN / SMALL_K_THREADS]) {
    const int kw = min(KS, K - k0);
#pragma unroll
    for (int i = 0; i < BM * KS / SMALL_K_THREADS; i++) {
        const int e = threadIdx.x + SMALL_K_THREADS * i, r = e / kw, c = e % kw;
        a[i] =
            r < BM && row0 + r < M ? static_cast<R>(A[(size_t)(row0 + r) * K + k0 + c]) : R(0.0f);
    }
#pragma unroll
    for (int i = 0; i < KS * BN / SMALL_K_THREADS; i++) {
        const int e = threadIdx.x + SMALL_K_THREADS * i, r = e / BN, c = e % BN;
        b[i] =
            r < kw && col0 + c < N ? static_cast<R>(B[(size_t)(k0 + r) * N + col0 + c]) : R(0.0f);
    }
}

/* The loaded elements into shared memory, as floats */
template <int BM, int BN, int KS, typename R>
__device__ __forceinline__ void small_k_stage(int kw, const R (&a)[BM * KS / SMALL_K_THREADS],
                                              const R (&b)[KS * BN / SMALL_K_THREADS],
                                              float (&As)[BM][KS + 1], float (&Bs)[KS][BN]) {
#pragma unroll
    for (int i = 0; i < BM * KS / SMALL_K_THREADS; i++) {
        const int e = threadIdx.x + SMALL_K_THREADS * i;
        if (e / kw < BM) As[e / kw][e % kw] = static_cast<float>(a[i]);
    }
#pragma unroll
    for (int i = 0; i < KS * BN / SMALL_K_THREADS; i++) {
        const int e = threadIdx.x + SMALL_K_THREADS * i;
        Bs[e / BN][e % BN] = static_cast<float>(b[i]);
    }
}

/* The thread's TM x TN sums over the kw values of k of the slice in shared memory */
template <int TX, int BM, int KS, int BN, int TM, int TN>
__device__ __forceinline__ void small_k_fma(const float (&As)[BM][KS + 1],
                                            const float (&Bs)[KS][BN], int kw,
                                            float (&acc)[TM][TN]) {
    constexpr int TY = SMALL_K_THREADS / TX;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
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
}

/* The thread's sums into C, the tile at (row0, col0) */
template <int TX, int TM, int TN>
__device__ __forceinline__ void small_k_store_c(int M, int N, int row0, int col0, float alpha,
                                                const float (&acc)[TM][TN], float beta, float *C) {
    constexpr int TY = SMALL_K_THREADS / TX;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = row0 + ty + TY * i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int col = col0 + tx + TX * j;
            if (row >= M || col >= N) continue;
            float *c = &C[(size_t)row * N + col];
            *c = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;
        }
    }
}

/* Step 25's kernel: a block a tile */
template <typename T, int TX, int TN, int TM, int KS = SMALL_K_SLICE>
__global__ void __launch_bounds__(SMALL_K_THREADS, TM * TN >= 32 ? 2 : 3)
    small_k_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                   float *C) {
    using S = small_k_shape<TX, TN, TM, KS>;
    /* +1: in the 8-wide tiles a warp reads a column of A in 4 rows, 33 words apart: 4 banks */
    __shared__ float As[S::BM][KS + 1];
    __shared__ float Bs[KS][S::BN];
    const int tiles_m = ceil_div(M, S::BM);
    const int row0 = (blockIdx.x % tiles_m) * S::BM, col0 = (blockIdx.x / tiles_m) * S::BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += KS) {
        const int kw = min(KS, K - k0);
        /* Every load of the slice is issued before the first is used: one DRAM latency a slice */
        float a[S::A_LOADS], b[S::B_LOADS];
        small_k_load<S::BM, S::BN, KS>(M, N, K, A, B, row0, col0, k0, a, b);
        if (k0 > 0) __syncthreads(); /* the last slice's reads of As and Bs are done */
        small_k_stage(kw, a, b, As, Bs);
        __syncthreads();
        small_k_fma<TX>(As, Bs, kw, acc);
    }
    small_k_store_c<TX>(M, N, row0, col0, alpha, acc, beta, C);
}

/* The walking kernel: block b takes tiles b, b + gridDim.x, ... and, while it computes a slice
 * and stores its C, has the next slice's loads in flight. They stay in their 16-bit type until
 * they go to shared memory: a conversion where they are loaded would wait for them there. */
template <typename T, int TX, int TN, int TM, int KS>
__global__ void __launch_bounds__(SMALL_K_THREADS, 2)
    small_k_walk_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                        float *C) {
    using S = small_k_shape<TX, TN, TM, KS>;
    __shared__ float As[S::BM][KS + 1];
    __shared__ float Bs[KS][S::BN];
    const int tiles_m = ceil_div(M, S::BM), tiles = tiles_m * ceil_div(N, S::BN);
    T a[S::A_LOADS], b[S::B_LOADS];
    int tile = blockIdx.x, k0 = 0;
    int row0 = (tile % tiles_m) * S::BM, col0 = (tile / tiles_m) * S::BN;
    if (tile < tiles) small_k_load<S::BM, S::BN, KS>(M, N, K, A, B, row0, col0, k0, a, b);
    float acc[TM][TN] = {};
    while (tile < tiles) {
        const int kw = min(KS, K - k0);
        __syncthreads(); /* the last slice's reads of As, Bs (this tile's or the last) are done */
        small_k_stage(kw, a, b, As, Bs);
        __syncthreads();
        /* the next slice: this tile's, or the first of the block's next tile */
        const bool last = k0 + KS >= K;
        const int next_tile = last ? tile + gridDim.x : tile, next_k0 = last ? 0 : k0 + KS;
        const int next_row0 = (next_tile % tiles_m) * S::BM,
                  next_col0 = (next_tile / tiles_m) * S::BN;
        if (next_tile < tiles)
            small_k_load<S::BM, S::BN, KS>(M, N, K, A, B, next_row0, next_col0, next_k0, a, b);
        small_k_fma<TX>(As, Bs, kw, acc);
        if (last) {
            small_k_store_c<TX>(M, N, row0, col0, alpha, acc, beta, C);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;
        }
        tile = next_tile, k0 = next_k0, row0 = next_row0, col0 = next_col0;
    }
}

/* The tile: the first of 64 x 128, 64 x 32 and 128 x 8 that M fills by more than half, N too
 * (but for 128 x 8), and that gives every SM a block; else 32 x 8, four times 128 x 8's blocks. */
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

/* The 64 x 128 tile's blocks walk its tiles from one wave of the blocks the SMs hold to
 * SMALL_K_WALK_MAX_WAVES: past it the hardware's block order measured faster than blocks that each
 * walk a fixed share of the tiles (README.md). Its slices are 16 deep: with 32, its loads in flight
 * and its 32 sums need more than the 128 registers of two blocks per SM. */
#define SMALL_K_WALK_MAX_WAVES 8

template <typename T>
static cudaError_t launch_small_k_walk(gemm_args *p, const small_k_grid &g, int sms) {
    const auto kernel = small_k_walk_kernel<T, 32, 4, 8, 16>;
    static int per_sm = 0; /* blocks an SM holds: asked once, not at every launch */
    if (!per_sm) {
        cudaError_t err =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, SMALL_K_THREADS, 0);
        if (err != cudaSuccess) return err;
    }
    const int resident = per_sm * sms;
    const bool walk = g.blocks > resident && g.blocks <= SMALL_K_WALK_MAX_WAVES * resident;
    kernel<<<walk ? resident : g.blocks, SMALL_K_THREADS>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

template <typename T> static cudaError_t launch_small_k(gemm_args *p, int sms) {
    const small_k_grid g = small_k_tile(p->m, p->n, sms);
    describe_small_k(p->kernel, g);
    if (g.bn == 128) return launch_small_k_walk<T>(p, g, sms);
    /* (TX, TN, TM) for each other tile of small_k_tile: a block a tile, as in step 25 */
    auto kernel = g.bn == 32    ? small_k_kernel<T, 32, 1, 8>
                  : g.bm == 128 ? small_k_kernel<T, 8, 1, 4>
                                : small_k_kernel<T, 8, 1, 1>;
    kernel<<<g.blocks, SMALL_K_THREADS>>>(p->m, p->n, p->k, p->alpha, (const T *)p->a,
                                          (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

#endif
