/*
 * Step 22: the linear layer at a few tokens: K split across blocks (Hopper only).
 * Step 21 gives each 128 x 256 tile of C to one block. With M <= 128 tokens there is one row of
 * tiles, N / 256 of them: 16 of the 132 SMs for N = 4096. Here the host splits K into `splits`
 * ranges when the tiles fill at most half the SMs: the work units are (tile, split), each block's
 * sums cover only its range. A unit writes its FP32 sums to a workspace and counts its arrival
 * at the tile; the block that arrives last adds the others' sums to its own and runs step 21's
 * epilogue (bias, activation, 16-bit C, TMA store) once, so the fusion survives the split, no
 * block waits for another and no second kernel runs.
 *
 *     make step N=22 && ./22_linear_splitk/gemm 16 4096 4096 --dtype bf16 --layout NT \
 *         --out bf16 --epilogue bias_gelu --cublas
 *
 * BUILD_ARCH: sm_90a
 */
#include <stdio.h>
#include <stdlib.h>

#include "gemm.h"
#include "hopper.cuh"
#include "linear_epilogue.cuh" /* add_beta_c, activation_of, store_pair */
#include "workspace.cuh" /* workspace_bytes: the splits' sums and counters */

#ifndef WARPGROUPS /* consumer warpgroups; each owns 64 rows of the block tile */
#define WARPGROUPS 2
#endif
#ifndef GROUP_M /* tile rows in one strip of the persistent tile order */
#define GROUP_M 16
#endif
#define PRODUCER_REGISTERS 40  /* setmaxnreg: what the producer warpgroup keeps ... */
#define CONSUMER_REGISTERS 232 /* ... and what each consumer warpgroup gets */
#ifndef BN
#define BN 256
#endif
#ifndef STAGES
#define STAGES 4
#endif
#define BM (64 * WARPGROUPS)
#define BK 64 /* one 128-byte swizzle row of 16-bit elements: the K extent of an A tile row */
#define THREADS (128 * (WARPGROUPS + 1)) /* the producer warpgroup, then the consumers */
#define CONFIG                                                                                     \
    "WARPGROUPS=" GEMM_STR(WARPGROUPS) " (BM=64*WARPGROUPS) BN=" GEMM_STR(BN) " BK=" GEMM_STR(     \
        BK) " STAGES=" GEMM_STR(STAGES) " GROUP_M=" GEMM_STR(GROUP_M) " OUT_STAGES=" GEMM_STR(    \
        OUT_STAGES) " (64 rows x 128 bytes each)"
#define WGMMA_K 16
#define B_ATOMS (BN / 64) /* B arrives as BN / 64 boxes of 64 columns (128 bytes) x BK rows */
/* (a K-major B, W stored N x K, has BK = 64 columns already: one box of BN rows) */
#define A_TILE_BYTES (BM * BK * 2)
#define B_TILE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_TILE_BYTES + B_TILE_BYTES)
/* The epilogue's buffers: per consumer warpgroup, OUT_STAGES chunks of 64 rows x one 128-byte
 * swizzle row of C (32 FP32 or 64 16-bit columns), as many as fit beside the ring. */
#define CHUNK_BYTES (64 * 128)
#ifndef OUT_STAGES
#define OUT_STAGES 2 /* what fits beside a ring of 4 stages of 128 x 256 */
#endif
#define OUT_BYTES (WARPGROUPS * OUT_STAGES * CHUNK_BYTES)
#define BIAS_BYTES (BN * 4) /* the tile's BN bias values, as FP32 */
#define SMEM_BYTES                                                                                 \
    (STAGES * STAGE_BYTES + OUT_BYTES + BIAS_BYTES + 2 * STAGES * 8 + 16 +                         \
     1024) /* tiles, C's buffers, the bias, 2 mbarriers per stage, a flag, alignment slack */

static_assert(WARPGROUPS == 1 || WARPGROUPS == 2,
              "one or two consumer warpgroups (64 or 128 rows)");
static_assert(BN == 256, "wgmma's N is 256: the accumulators and epilogue are written for it");
static_assert(BK * 2 == 128,
              "an A tile row is exactly one 128-byte swizzle row: the descriptors below assume it");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "every tile starts on 1024 bytes: the 128-byte swizzle pattern repeats every 8 rows "
              "of 128 bytes");
static_assert(BM <= 256 && BK <= 256,
              "a TMA box is at most 256 elements along each dimension (A's box is BK x BM)");
static_assert(BN <= 256, "a K-major B's box is BK x BN: at most 256 rows");
static_assert(STAGE_BYTES < (1 << 20),
              "an mbarrier's transaction count holds less than 2^20 bytes per phase");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert(OUT_STAGES >= 1 && OUT_STAGES <= BN / 64 && BN % 64 == 0,
              "C leaves in whole chunks of 32 or 64 columns, through at least one buffer");
static_assert(SMEM_BYTES <= 227 * 1024,
              "the ring must fit sm_90's 227 KB of shared memory per block");
static_assert(PRODUCER_REGISTERS % 8 == 0 && CONSUMER_REGISTERS % 8 == 0 &&
                  PRODUCER_REGISTERS >= 24 && CONSUMER_REGISTERS <= 256,
              "setmaxnreg takes multiples of 8 from 24 to 256");
static_assert(128 * (PRODUCER_REGISTERS + WARPGROUPS * CONSUMER_REGISTERS) <= 65536,
              "after reallocation the block still fits the SM's 64 K registers");
static_assert(65536 / THREADS / 8 * 8 <= CONSUMER_REGISTERS,
              "__launch_bounds__(THREADS, 1) caps the allocation at 65536 / THREADS registers (a "
              "multiple of 8): "
              "setmaxnreg.inc may only raise a warpgroup's count, never lower it");
static_assert(PRODUCER_REGISTERS <= 65536 / THREADS / 8 * 8,
              "setmaxnreg.dec may only lower a warpgroup's count, never raise it");
static_assert(GROUP_M >= 1, "a strip is at least one tile row");
#define MAX_SPLITS 16
#define MIN_SLICES 4 /* BK-slices per split: a ring of STAGES needs a few to overlap */
static_assert(BN / 2 % 4 == 0, "a lane's BN / 2 sums go to the workspace as float4s");

/* The output tile a persistent block takes as its `t`-th: strips of GROUP_M tile rows, walked
 * column by column, so that the blocks running at one time share a few panels of A and B in L2. */
static __device__ __forceinline__ int2 tile_coords(int t, int tiles_m, int tiles_n) {
    const int per_strip = GROUP_M * tiles_n, first = t / per_strip * GROUP_M;
    const int rows = min(GROUP_M, tiles_m - first), in_strip = t % per_strip;
    return make_int2(first + in_strip % rows, in_strip / rows);
}

/* B_KMAJOR: B stored N x K (x W^T). OutT: C's type. EPI: the epilogue; bias: N values of C's
 * type (read only with one). The work units are (tile, split), the splits of one tile adjacent so
 * that they run at the same time; split s sums the BK-slices [s * slices / splits,
 * (s + 1) * slices / splits), never empty since splits <= slices. With splits > 1, partial holds
 * each unit's FP32 sums (BM x BN, in the accumulator's register order) and arrivals one counter
 * per tile, zero between launches. */
template <typename T, bool B_KMAJOR, typename OutT, gemm_epilogue EPI>
__global__ void __launch_bounds__(THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                float beta, OutT *C, const OutT *bias, int splits, float4 *partial,
                int *arrivals) {
    constexpr int OUT_COLS = 128 / sizeof(OutT); /* one 128-byte swizzle row of C */
    extern __shared__ unsigned char smem_raw[];
    /* The 128-byte swizzle repeats every 1024 bytes, and TMA and wgmma agree on it only if
     * every tile starts on a multiple of 1024: align the base by hand. */
    unsigned char *smem = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    T *const a_tiles = reinterpret_cast<T *>(smem); /* [STAGES][BM][BK], swizzled */
    /* [STAGES][B_ATOMS][BK][64], or K-major [STAGES][BN][BK], swizzled */
    T *const b_tiles = reinterpret_cast<T *>(smem + STAGES * A_TILE_BYTES);
    /* [WARPGROUPS][OUT_STAGES][64][OUT_COLS] of C's type, swizzled: C on its way out */
    unsigned char *const out_tiles = smem + STAGES * STAGE_BYTES;
    float *const tile_bias = reinterpret_cast<float *>(out_tiles + OUT_BYTES); /* [BN] */
    uint64_t *const full = reinterpret_cast<uint64_t *>(out_tiles + OUT_BYTES + BIAS_BYTES);
    uint64_t *const empty = full + STAGES;
    int *const last_to_arrive = reinterpret_cast<int *>(empty + STAGES);

    const int tiles_m = ceil_div(M, BM), tiles_n = ceil_div(N, BN), tiles = tiles_m * tiles_n;
    const int slices = ceil_div(K, BK), units = tiles * splits;
    const int warpgroup = threadIdx.x / 128; /* 0: the producer; 1 ..: consumers */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1); /* the producer's expect_bytes, then the TMA bytes */
            mbar_init(&empty[s], WARPGROUPS); /* one arrival per consumer warpgroup */
        }
        /* Release the barriers' init (cluster scope) before any copy or other block uses them. */
        fence_mbarrier_init();
    }
    __syncthreads(); /* the last block-wide barrier: from here on the roles only meet at mbarriers
                      */

    if (warpgroup == 0) {
        setmaxnreg_dec<PRODUCER_REGISTERS>();
        if (threadIdx.x != 0) return;
        /* The producer waits for a free stage with the opposite parity: on the first pass round
         * the ring the stages are free, and waiting for "phase 1 of a fresh barrier" returns at
         * once. */
        ring_pos pos = {0, 0};
        for (int u = blockIdx.x; u < units; u += gridDim.x) {
            const int2 tile = tile_coords(u / splits, tiles_m, tiles_n);
            const int split = u % splits, end = (split + 1) * slices / splits;
            for (int slice = split * slices / splits; slice < end; slice++) {
                mbar_wait(&empty[pos.stage], pos.phase ^ 1u);
                /* boxes past the edge still deliver all bytes */
                mbar_expect_bytes(&full[pos.stage], STAGE_BYTES);
                tma_load(a_tiles + pos.stage * BM * BK, &map_a, slice * BK, tile.x * BM,
                         &full[pos.stage]);
                if constexpr (B_KMAJOR) /* BN rows of W, BK wide: A's box, BN rows tall */
                    tma_load(b_tiles + pos.stage * BK * BN, &map_b, slice * BK, tile.y * BN,
                             &full[pos.stage]);
                else
                    for (int j = 0; j < B_ATOMS; j++)
                        tma_load(b_tiles + pos.stage * BK * BN + j * BK * 64, &map_b,
                                 tile.y * BN + 64 * j, slice * BK, &full[pos.stage]);
                pos = advance<STAGES>(pos);
            }
        }
        return;
    }

    setmaxnreg_inc<CONSUMER_REGISTERS>();
    const int consumer = warpgroup - 1; /* its 64 rows of the block tile */
    ring_pos pos = {0, 0};
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const int t = u / splits, split = u % splits;
        const int first = split * slices / splits, end = (split + 1) * slices / splits;
        const int2 tile = tile_coords(t, tiles_m, tiles_n);
        /* This thread's share of the tile's bias, loaded now: the main loop hides the latency */
        constexpr int BIAS_PER_THREAD = BN / (128 * WARPGROUPS);
        const int bias_at = (consumer * 128 + threadIdx.x % 128) * BIAS_PER_THREAD;
        float my_bias[BIAS_PER_THREAD] = {};
        if constexpr (EPI != GEMM_EPI_NONE)
            for (int i = 0, col = tile.y * BN + bias_at; i < BIAS_PER_THREAD; i++)
                if (col + i < N) my_bias[i] = float(bias[col + i]);
        float acc[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        ring_pos prev = pos;
        for (int slice = first; slice < end; slice++) {
            mbar_wait(&full[pos.stage], pos.phase); /* the slice's bytes have landed */
            const T *a = a_tiles + pos.stage * BM * BK + consumer * 64 * BK;
            const T *b = b_tiles + pos.stage * BK * BN;
            fence_registers(acc, BN / 2);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; kk++)
                if constexpr (B_KMAJOR) /* both K-major: one descriptor form, no transpose */
                    wgmma<BN, 0, 0, T>(acc, sw128_desc(a + kk * WGMMA_K, 16, 1024),
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
            if (slice > first && threadIdx.x % 128 == 0) mbar_arrive(&empty[prev.stage]);
            prev = pos;
            pos = advance<STAGES>(pos);
        }
        wgmma_wait<0>();
        fence_registers(acc, BN / 2);
        if (threadIdx.x % 128 == 0) mbar_arrive(&empty[prev.stage]); /* the tile's last stage */

        const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
        const int first_row = tile.x * BM + consumer * 64, row = first_row + warp * 16 + lane / 4;
        if (splits > 1) {
            /* This unit's sums, each lane's as BN / 8 float4s (lanes adjacent, the stores
             * coalesced); rows past M hold zeros (TMA filled A's) and are skipped. */
            float4 *const mine = partial + ((size_t)u * WARPGROUPS + consumer) * (BN / 8) * 128;
            if (row < M)
#pragma unroll
                for (int q = 0; q < BN / 8; q++)
                    __stcg(&mine[q * 128 + threadIdx.x % 128],
                           make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
            /* Count the arrival once the block's sums are written. The fences order the sums
             * before the count, and the count before the last block's reads (the pattern of a
             * cooperative grid's sync); __stcg/__ldcg keep the sums in L2, out of stale L1s. */
            consumers_sync(WARPGROUPS);
            if (threadIdx.x == 128) {
                __threadfence();
                const bool last = atomicAdd(&arrivals[t], 1) == splits - 1;
                if (last) arrivals[t] = 0; /* every split has arrived: ready for the next launch */
                __threadfence();
                *last_to_arrive = last;
            }
            consumers_sync(WARPGROUPS);
            if (!*last_to_arrive) continue; /* another block finishes the tile */
            if (row < M)
                for (int other = t * splits; other < (t + 1) * splits; other++) {
                    if (other == u) continue;
                    const float4 *theirs =
                        partial + ((size_t)other * WARPGROUPS + consumer) * (BN / 8) * 128;
#pragma unroll
                    for (int q = 0; q < BN / 8; q++) {
                        const float4 v = __ldcg(&theirs[q * 128 + threadIdx.x % 128]);
                        acc[4 * q] += v.x, acc[4 * q + 1] += v.y;
                        acc[4 * q + 2] += v.z, acc[4 * q + 3] += v.w;
                    }
                }
        }
        if constexpr (EPI != GEMM_EPI_NONE) { /* the bias, once per tile, into shared memory */
            consumers_sync(WARPGROUPS); /* every consumer is done with the previous tile's */
            for (int i = 0; i < BIAS_PER_THREAD; i++) tile_bias[bias_at + i] = my_bias[i];
            consumers_sync(WARPGROUPS);
        }

        /* The epilogue, while the producer already fills the ring for the next tile. The
         * accumulator layout of wgmma m64nN: warp w of the warpgroup holds rows 16 w .. 16 w + 15;
         * for each 8-column block j, lane (g = lane / 4, t = lane % 4) holds rows g and g + 8,
         * columns 8 j + 2 t and + 1: acc[4 j .. 4 j + 3]. */
        if (first_row < M) {
            /* C leaves through shared memory, OUT_COLS columns of the warpgroup's 64 rows at a
             * time, each chunk one TMA store of full 128-byte lines: written straight from the
             * registers, every warp instruction would address 8 rows of 32 bytes. */
#pragma unroll
            for (int chunk = 0; chunk < BN / OUT_COLS; chunk++) {
                unsigned char *const buf =
                    out_tiles + (consumer * OUT_STAGES + chunk % OUT_STAGES) * CHUNK_BYTES;
                /* The store that last read buf has finished reading it: the previous tile's (long
                 * done, the main loop lay between) or this tile's, OUT_STAGES chunks back. */
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
                    const int col = tile.y * BN + chunk * OUT_COLS + c;
                    /* the bias of this lane's two columns, for its two rows */
                    float2 b = make_float2(0.0f, 0.0f);
                    if constexpr (EPI != GEMM_EPI_NONE)
                        b = *reinterpret_cast<const float2 *>(&tile_bias[col - tile.y * BN]);
#pragma unroll
                    for (int h = 0; h < 2; h++) { /* rows g and g + 8 */
                        const int r = warp * 16 + lane / 4 + 8 * h;
                        float2 v =
                            make_float2(alpha * acc[4 * j + 2 * h], alpha * acc[4 * j + 2 * h + 1]);
                        if constexpr (std::is_same_v<OutT, float>) /* a 16-bit C is never read */
                            if (beta != 0.0f) add_beta_c(C, M, N, row + 8 * h, col, beta, v);
                        v = make_float2(activation_of<EPI, OutT>(v.x + b.x),
                                        activation_of<EPI, OutT>(v.y + b.y));
                        /* 128-byte swizzle: 16-byte chunk q of row r lies at q ^ (r % 8) */
                        const int byte = c * (int)sizeof(OutT);
                        store_pair<OutT>(buf + r * 128 + ((byte / 16) ^ (r % 8)) * 16 + byte % 16,
                                         v);
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
}

/* Shapes whose rows are not whole 16-byte units (K or N not a multiple of 8) cannot be
 * described by a tensor map, and a column-major A is not the tile kernel's: they take a plain
 * 32 x 32 shared-memory tiling (the idea of step 03), correct and slow. a_t: A stored K x M;
 * b_t: B stored N x K. */
template <typename T, typename OutT>
__global__ void __launch_bounds__(1024)
    fallback_kernel(int M, int N, int K, float alpha, const T *A, const T *B, float beta,
                    OutT *C, bool a_t, bool b_t, const OutT *bias, gemm_epilogue epilogue) {
    __shared__ float As[32][32], Bs[32][33];
    const int tiles_m = ceil_div(M, 32);
    const int row = (blockIdx.x % tiles_m) * 32 + threadIdx.y,
              col = (blockIdx.x / tiles_m) * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        const int ar = row, ac = k0 + threadIdx.x, br = k0 + threadIdx.y, bc = col;
        /* (row, k) of A and (k, col) of B where their layouts store them: a transposed operand is
         * read with a stride, uncoalesced; this kernel is for the shapes and layouts, not speed */
        const size_t a_at = a_t ? (size_t)ac * M + ar : (size_t)ar * K + ac;
        const size_t b_at = b_t ? (size_t)bc * K + br : (size_t)br * N + bc;
        As[threadIdx.y][threadIdx.x] = ar < M && ac < K ? static_cast<float>(A[a_at]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = br < K && bc < N ? static_cast<float>(B[b_at]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) {
        OutT *c = &C[(size_t)row * N + col];
        float v = alpha * acc;
        if constexpr (std::is_same_v<OutT, float>)
            if (beta != 0.0f) v += beta * *c;
        *c = static_cast<OutT>(activation(epilogue, bias ? v + float(bias[col]) : v));
    }
}

template <typename T> static CUtensorMapDataType map_type() {
    return std::is_same_v<T, float>    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
           : std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                       : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

/* How many K ranges the tiles are split into. Only where the tiles fill at most half the SMs:
 * the last block of a tile reads the other splits' sums (128 x 256 FP32 each, for the rows inside
 * M) while no wgmma runs, which costs more than a partly idle last wave. There, the count that a
 * simple clock model finishes first: a wave of units costs its slices plus a fixed part (the ring
 * filling, the epilogue), and each further split about 8 slices' time over a full tile. */
static int choose_splits(int m, int tiles, int slices) {
    const int sms = sm_count(), rows = m < BM ? m : BM;
    if (2 * tiles > sms) return 1;
    int best = 1;
    double best_cost = 0.0;
    for (int s = 1; s <= MAX_SPLITS && s * MIN_SLICES <= slices; s++) {
        const double cost = ceil_div(tiles * s, sms) * (ceil_div(slices, s) + 2.0) +
                            (s - 1) * 8.0 * rows / BM;
        if (s == 1 || cost < best_cost) best = s, best_cost = cost;
    }
    return best;
}

/* The workspace of the splits: the units' sums and one arrival counter per tile, zeroed when
 * allocated (the last block to arrive puts its counter back to 0). */
static cudaError_t split_workspace(size_t float4s, int tiles, float4 **partial, int **arrivals) {
    *partial = (float4 *)workspace_bytes(0, float4s * sizeof(float4));
    *arrivals = (int *)workspace_bytes(2, tiles * sizeof(int), true);
    return *partial && *arrivals ? cudaSuccess : cudaErrorMemoryAllocation;
}

/* A launcher's words for what it runs (the tests read them), then C's layout, type, epilogue. */
static void name_kernel(gemm_args *p, const char *path, const char *words) {
    static const char *const outs[] = {"", "", " out=bf16", "", " out=fp16"};
    static const char *const epilogues[] = {"", "", " epilogue=bias", "", " epilogue=bias_gelu",
                                            "", "", "", " epilogue=bias_silu"};
    p->path = path;
    snprintf(p->kernel, sizeof p->kernel, "%s%s%s%s%s", words,
             p->layout & (GEMM_TN | GEMM_TT) ? " a=mmajor" : "",
             p->layout & (GEMM_NT | GEMM_TT) ? " b=kmajor" : "", outs[p->out & 7],
             epilogues[p->epilogue & 15]);
}

template <typename T, bool B_KMAJOR, typename OutT, gemm_epilogue EPI>
static cudaError_t launch_typed(gemm_args *p, int splits) {
    const CUtensorMapDataType type = map_type<T>();
    /* The maps depend only on the pointers and the shape: made once per problem, outside the timed
     * launches. */
    static CUtensorMap map_a, map_b, map_c;
    static gemm_args made = {0};
    if (made.a != p->a || made.b != p->b || made.c != p->c || made.m != p->m || made.n != p->n ||
        made.k != p->k || made.dtype != p->dtype) {
        cudaError_t err = make_map(&map_a, p->a, p->m, p->k, BK, BM, type);
        /* W, N x K: boxes of BK x BN rows, as A's */
        if (err == cudaSuccess && B_KMAJOR) err = make_map(&map_b, p->b, p->n, p->k, BK, BN, type);
        if (err == cudaSuccess && !B_KMAJOR) err = make_map(&map_b, p->b, p->k, p->n, 64, BK, type);
        /* C's box: 64 rows (a consumer warpgroup's) x 128 bytes of C's type */
        if (err == cudaSuccess)
            err = make_map(&map_c, p->c, p->m, p->n, 128 / sizeof(OutT), 64, map_type<OutT>(),
                           sizeof(OutT));
        if (err != cudaSuccess) return err;
        err = cudaFuncSetAttribute(gemm_kernel<T, B_KMAJOR, OutT, EPI>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (err != cudaSuccess) return err;
        made = *p;
    }
    /* Persistent: one block per SM (fewer when there are fewer units). */
    const int tiles = ceil_div(p->m, BM) * ceil_div(p->n, BN);
    float4 *partial = NULL;
    int *arrivals = NULL;
    if (splits > 1) {
        cudaError_t err = split_workspace((size_t)tiles * splits * BM * BN / 4, tiles, &partial,
                                          &arrivals);
        if (err != cudaSuccess) return err;
    }
    const int units = tiles * splits, blocks = units < sm_count() ? units : sm_count();
    char words[32];
    snprintf(words, sizeof words, splits > 1 ? "tile=128x256 splits=%d" : "tile=128x256", splits);
    name_kernel(p, "tma", words);
    gemm_kernel<T, B_KMAJOR, OutT, EPI><<<blocks, THREADS, SMEM_BYTES>>>(
        map_a, map_b, map_c, p->m, p->n, p->k, p->alpha, p->beta, (OutT *)p->c,
        (const OutT *)p->bias, splits, partial, arrivals);
    return cudaGetLastError();
}

template <typename T, typename OutT> static cudaError_t launch_fallback(gemm_args *p) {
    name_kernel(p, "fallback", "kernel=fallback");
    dim3 grid(ceil_div(p->m, 32) * ceil_div(p->n, 32)), block(32, 32);
    fallback_kernel<T, OutT><<<grid, block>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, (OutT *)p->c,
        p->layout & (GEMM_TN | GEMM_TT), p->layout & (GEMM_NT | GEMM_TT), (const OutT *)p->bias,
        p->epilogue);
    return cudaGetLastError();
}

/* The tile kernel for the epilogue. */
template <typename T, bool B_KMAJOR, typename OutT>
static cudaError_t launch_epilogue(gemm_args *p, int splits) {
    switch (p->epilogue) {
    case GEMM_EPI_BIAS: return launch_typed<T, B_KMAJOR, OutT, GEMM_EPI_BIAS>(p, splits);
    case GEMM_EPI_BIAS_GELU: return launch_typed<T, B_KMAJOR, OutT, GEMM_EPI_BIAS_GELU>(p, splits);
    case GEMM_EPI_BIAS_SILU: return launch_typed<T, B_KMAJOR, OutT, GEMM_EPI_BIAS_SILU>(p, splits);
    default: return launch_typed<T, B_KMAJOR, OutT, GEMM_EPI_NONE>(p, splits);
    }
}

/* The kernel for C's type (FP32 or the inputs' type: the harness refuses others). */
template <typename T> static cudaError_t launch_for(gemm_args *p, bool tma, int splits) {
    const bool b_kmajor = p->layout == GEMM_NT, c32 = p->out == GEMM_OUT_F32;
    if (!tma) return c32 ? launch_fallback<T, float>(p) : launch_fallback<T, T>(p);
    if (b_kmajor)
        return c32 ? launch_epilogue<T, true, float>(p, splits)
                   : launch_epilogue<T, true, T>(p, splits);
    return c32 ? launch_epilogue<T, false, float>(p, splits)
               : launch_epilogue<T, false, T>(p, splits);
}

static cudaError_t launch_gemm(gemm_args *p) {
    /* TMA needs 16-byte aligned rows (K and N multiples of 8) and 16-byte aligned bases, and the
     * tile kernel reads A stored M x K (layouts NN and NT). */
    const bool tma = p->k % 8 == 0 && p->n % 8 == 0 &&
                     ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0 &&
                     (p->layout == GEMM_NN || p->layout == GEMM_NT);
    const int splits =
        tma ? choose_splits(p->m, ceil_div(p->m, BM) * ceil_div(p->n, BN), ceil_div(p->k, BK)) : 1;
    if (p->dtype == GEMM_F16) return launch_for<__half>(p, tma, splits);
    return launch_for<__nv_bfloat16>(p, tma, splits);
}

int main(int argc, char **argv) {
    static const gemm_step step = {
        STEP_NAME,
        GEMM_F16 | GEMM_BF16,
        launch_gemm,
        CONFIG,
        (const void *)gemm_kernel<__half, true, __half, GEMM_EPI_NONE>,
        90,
        90,
        "wgmma (sm_90 only: H100, H200, GH200; Blackwell has TMA but no wgmma)",
        NULL,
        NULL,
        GEMM_NT | GEMM_TN | GEMM_TT,
        GEMM_OUT_BF16 | GEMM_OUT_F16,
        GEMM_EPI_BIAS | GEMM_EPI_BIAS_GELU | GEMM_EPI_BIAS_SILU};
    return gemm_main(argc, argv, &step);
}
