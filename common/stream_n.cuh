/*
 * stream_n.cuh: step 27's kernel for N <= 64 (27_stream_n/README.md). A is read where it lies, in
 * 16-byte loads whatever K is, and multiplied on the tensor cores (mma.sync) from registers: no
 * copy of A, no tensor map. Included before plan.h, which plans with its grid (host arithmetic).
 */
#ifndef STREAM_N_CUH
#define STREAM_N_CUH

#include <stdint.h>

#include "gemm.h"

#define STREAM_WARPS 4 /* a warp: 16 rows of C, all N columns */
#define STREAM_STEP 128 /* k a block takes per stage of B: 4 16-byte loads per row and lane */
#define STREAM_LOADS (STREAM_STEP / 32)

/* B's staged columns are rows of STREAM_STEP k in 16-byte groups, group G of column n stored at
 * G ^ stream_swizzle(n). A phase of an LDS.128 (lanes of two columns n, n + 1, four groups each)
 * then meets all 8 bank groups, and so do the staging stores (a word each, 8 columns, 4 words
 * of one group): without it every column sits 256 bytes, two whole bank sweeps, past the last. */
static __device__ __forceinline__ int stream_swizzle(int n) { return (n % 8) ^ (n % 2 * 4); }

/* D += A B on the tensor cores: one m16n8k16 (A 16 x 16 row-major, B 16 x 8, FP32 sums). */
template <typename T>
static __device__ __forceinline__ void mma_m16n8k16(float (&d)[4], uint32_t a0, uint32_t a1,
                                                    uint32_t a2, uint32_t a3, uint32_t b0,
                                                    uint32_t b1) {
    if constexpr (std::is_same_v<T, __half>)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* 16-byte piece q of a row counted from the 16-byte boundary at or before its start: elements
 * 8 q - s .. 8 q - s + 7 (s: the row's start past that boundary, in elements), zeros outside
 * 0 .. K - 1. One streaming load where the piece lies inside the row, else element by element:
 * nothing outside the row is read. */
template <typename T>
static __device__ __forceinline__ uint4 row_piece(const T *row, int s, int q, int K) {
    const int e0 = 8 * q - s;
    if (e0 >= 0 && e0 + 8 <= K) return __ldcs(reinterpret_cast<const uint4 *>(row + e0));
    union { uint4 raw; T h[8]; } u;
#pragma unroll
    for (int e = 0; e < 8; e++)
        u.h[e] = e0 + e >= 0 && e0 + e < K ? row[e0 + e] : static_cast<T>(0.0f);
    return u.raw;
}

/* N small: A streamed once, in place. Rows m and m + G of A start equally far past a 16-byte
 * boundary (G = classes = 8 / gcd(K, 8)), so a block takes rows of one class r = m mod G
 * only: r, r + G, r + 2 G, ... (16 per warp), and all its rows share s. Then every load is one
 * aligned 16-byte piece, and B's rows are staged shifted by s to meet it. The order of k inside
 * an m16n8k16 is free as long as A and B agree: a lane's piece holds 8 consecutive k of its
 * row, and its registers go to the instruction's k-slots 2t, 2t + 1, 2t + 8, 2t + 9 (t = lane
 * % 4), four elements per instruction, two instructions per piece; B's lane reads the same 8 k
 * of its column in one LDS.128. C is stored from the registers (its rows are not adjacent).
 * SPLIT: K range blockIdx.y (k_span of the k + s axis) into plane y of partial. */
template <typename T, int NT, bool SPLIT>
__global__ void __launch_bounds__(STREAM_WARPS * 32)
    stream_n_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta, float *C,
                    int classes, int blocks_per_class, int k_span, float *partial) {
    __shared__ __align__(16) uint32_t b_cols[NT * 8][STREAM_STEP / 2]; /* [n][k pair], swizzled */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int r = blockIdx.x / blocks_per_class;
    const int i = (blockIdx.x % blocks_per_class * STREAM_WARPS + warp) * 16 + g; /* in class r */
    const int m_lo = r + classes * i, m_hi = m_lo + 8 * classes; /* the lane's two rows */
    const int s = (int)(((uintptr_t)A + (size_t)r * K * sizeof(T)) % 16 / sizeof(T));
    const T *const row_lo = A + (size_t)min(m_lo, M - 1) * K;
    const T *const row_hi = A + (size_t)min(m_hi, M - 1) * K;
    const int kk_begin = SPLIT ? blockIdx.y * k_span : 0; /* on the k + s axis */
    const int kk_end = SPLIT ? min(K + s, kk_begin + k_span) : K + s;
    constexpr int B_ITEMS = NT * 8 * STREAM_STEP / 2 / (STREAM_WARPS * 32); /* words a thread */
    static_assert(B_ITEMS * STREAM_WARPS * 32 == NT * 8 * STREAM_STEP / 2, "whole rounds of B");
    /* item it of a thread: word threadIdx.x % 4 of a 16-byte group of a column; the 32 lane
     * quads of a block take 32 (group, column) pairs a round, columns fastest */
    constexpr int COLS = NT * 8;
    const int quad = threadIdx.x / 4;
    auto b_column = [&](int it) {
        return COLS <= 32 ? quad % COLS : quad + 32 * (it % (COLS / 32));
    };
    auto b_group = [&](int it) {
        return COLS <= 32 ? quad / COLS + it * (32 / COLS) : it / (COLS / 32);
    };
    const int k_stop = min(K, kk_end - s); /* B's rows this K range multiplies */
    float acc[NT][4] = {};
    for (int kk0 = kk_begin; kk0 < kk_end; kk0 += STREAM_STEP) {
        /* A is read once: its loads go out before the block waits to stage B */
        uint4 lo[STREAM_LOADS], hi[STREAM_LOADS];
#pragma unroll
        for (int u = 0; u < STREAM_LOADS; u++) {
            const int q = kk0 / 8 + 4 * u + t;
            const bool in = 8 * q < kk_end; /* past it: the next K range's */
            lo[u] = in && m_lo < M ? row_piece(row_lo, s, q, K) : make_uint4(0, 0, 0, 0);
            hi[u] = in && m_hi < M ? row_piece(row_hi, s, q, K) : make_uint4(0, 0, 0, 0);
        }
        /* B's words for this stage, all loaded before any is stored (one L2 latency, not one
         * an item): a word (k, k + 1) of a column per item, a group's 4 words in a lane quad;
         * zeros where A has none. B's index fits 32 bits: a matrix has fewer than 2^31 elements */
        uint32_t words[B_ITEMS];
#pragma unroll
        for (int it = 0; it < B_ITEMS; it++) {
            const int n = b_column(it), k = kk0 - s + 8 * b_group(it) + 2 * (threadIdx.x % 4);
            union { uint32_t word; T h[2]; } pair;
#pragma unroll
            for (int h = 0; h < 2; h++) /* k + h in 0 .. k_stop - 1, as unsigned */
                pair.h[h] = n < N && (unsigned)(k + h) < (unsigned)k_stop ? B[(k + h) * N + n]
                                                                        : static_cast<T>(0.0f);
            words[it] = pair.word;
        }
        __syncthreads(); /* every warp is done with the last stage of B */
#pragma unroll
        for (int it = 0; it < B_ITEMS; it++) {
            const int n = b_column(it);
            b_cols[n][(b_group(it) ^ stream_swizzle(n)) * 4 + threadIdx.x % 4] = words[it];
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < STREAM_LOADS; u++)
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                const int n = 8 * nt + g;
                const uint4 b = *reinterpret_cast<const uint4 *>(
                    &b_cols[n][((4 * u + t) ^ stream_swizzle(n)) * 4]);
                mma_m16n8k16<T>(acc[nt], lo[u].x, hi[u].x, lo[u].y, hi[u].y, b.x, b.y);
                mma_m16n8k16<T>(acc[nt], lo[u].z, hi[u].z, lo[u].w, hi[u].w, b.z, b.w);
            }
    }
    /* acc[nt]: rows g and g + 8 (m_lo, m_hi), columns 8 nt + 2 t and + 1 */
    float *const out = SPLIT ? partial + (size_t)blockIdx.y * M * N : C;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int m = h ? m_hi : m_lo;
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int n = 8 * nt + 2 * t + e;
                if (m >= M || n >= N) continue;
                float *const c = out + (size_t)m * N + n;
                const float v = acc[nt][2 * h + e];
                *c = SPLIT ? v : beta == 0.0f ? alpha * v : alpha * v + beta * *c;
            }
        }
}

/* The grid, host arithmetic shared by the launch and the plan: row classes, blocks of 64 rows
 * in each, and K cut where the blocks would leave SMs without enough loads in flight. */
struct stream_n_grid {
    int classes, blocks_per_class, k_span, splits;
};
static int stream_n_tiles(int n) { return n <= 8 ? 1 : n <= 16 ? 2 : n <= 32 ? 4 : 8; }
static stream_n_grid stream_n_shape(int m, int k, int sms) {
    stream_n_grid g;
    g.classes = k % 8 == 0 ? 1 : k % 4 == 0 ? 2 : k % 2 == 0 ? 4 : 8;
    g.blocks_per_class = ceil_div(ceil_div(m, g.classes), 16 * STREAM_WARPS);
    const int blocks = g.classes * g.blocks_per_class, steps = ceil_div(k + 7, STREAM_STEP);
    /* about 4 blocks an SM (as many fit at N <= 32; 2 at 64), K ranges of at least 8 steps */
    const int want = std::max(1, std::min(ceil_div(4 * sms, blocks), steps / 8));
    g.k_span = ceil_div(steps, want) * STREAM_STEP;
    g.splits = ceil_div(k + 7, g.k_span);
    return g;
}
static void describe_stream_n(char *out, int tiles, const stream_n_grid &g) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=stream_n cols=%d classes=%d splits=%d",
             8 * tiles, g.classes, g.splits);
}

template <typename T, int NT> static cudaError_t launch_stream_n_tiles(gemm_args *p) {
    const stream_n_grid g = stream_n_shape(p->m, p->k, sm_count());
    describe_stream_n(p->kernel, NT, g);
    float *partial = g.splits > 1 ? workspace((size_t)g.splits * p->m * p->n) : NULL;
    if (g.splits > 1 && !partial) return cudaErrorMemoryAllocation;
    auto kernel = g.splits > 1 ? stream_n_kernel<T, NT, true> : stream_n_kernel<T, NT, false>;
    kernel<<<dim3(g.classes * g.blocks_per_class, g.splits), STREAM_WARPS * 32>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c, g.classes,
        g.blocks_per_class, g.k_span, partial);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess || g.splits == 1 ? err : reduce_planes(p, partial, g.splits);
}
template <typename T> static cudaError_t launch_stream_n(gemm_args *p) {
    const int tiles = stream_n_tiles(p->n);
    return tiles == 1   ? launch_stream_n_tiles<T, 1>(p)
           : tiles == 2 ? launch_stream_n_tiles<T, 2>(p)
           : tiles == 4 ? launch_stream_n_tiles<T, 4>(p) : launch_stream_n_tiles<T, 8>(p);
}

#endif /* STREAM_N_CUH */
