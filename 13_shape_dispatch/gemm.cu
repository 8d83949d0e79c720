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
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

#include "gemm.h"

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

static __device__ __forceinline__ uint32_t smem_u32(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* ---- mbarriers: a 64-bit word in shared memory that counts arrivals (and, for TMA,
 * transaction bytes) and flips its phase bit when all have come in. ---- */
static __device__ __forceinline__ void mbar_init(uint64_t *bar, int arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals)
                 : "memory");
}
/* One arrival that also announces `bytes` of TMA traffic the phase must wait for. */
static __device__ __forceinline__ void mbar_expect_bytes(uint64_t *bar, int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}
static __device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
/* An arrival on the barrier at the same place in block `cta` of the cluster (this one included),
 * with the default CTA-scope release: made .release.cluster, each arrival waited so long that the
 * pair kernels took 2 to 3 times as long (about 1.3 us per K slice at every shape). */
static __device__ __forceinline__ void mbar_arrive_in(uint64_t *bar, uint32_t cta) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
                 "r"(cta)
                 : "memory");
}
/* Returns once the phase with parity `phase` has completed. */
static __device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t phase) {
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
                     "%2;\nselp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(phase)
                     : "memory");
}

/* ---- TMA: the box of the tensor map at (x, y) (x the contiguous coordinate) into shared
 * memory at dst; its bytes are counted on bar. ---- */
static __device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, int x, int y,
                                                uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];" ::"r"(smem_u32(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar))
                 : "memory");
}

/* The same copy landing in every block of `cta_mask` of the cluster, at the same shared-memory
 * offset, each block's barrier at `bar`'s offset counting the bytes. */
static __device__ __forceinline__ void tma_load_multicast(void *dst, const CUtensorMap *map, int x,
                                                          int y, uint64_t *bar, uint16_t cta_mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar)),
                 "h"(cta_mask)
                 : "memory");
}
/* The other way: the box at (x, y) of the tensor map from shared memory at src (elements past the
 * tensor's edge are not written). The copies a thread issues form bulk groups: commit_group closes
 * one, and wait_read<N> returns once all but the N newest have finished reading shared memory. */
static __device__ __forceinline__ void tma_store(const CUtensorMap *map, const void *src, int x,
                                                 int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            reinterpret_cast<uint64_t>(map)),
        "r"(x), "r"(y), "r"(smem_u32(src))
        : "memory");
}
static __device__ __forceinline__ void bulk_commit() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N> static __device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/* Orders this thread's ordinary shared-memory writes before later reads by the async proxy (TMA).
 */
static __device__ __forceinline__ void fence_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
/* The 128 threads of consumer warpgroup `consumer` meet (barrier 0 is __syncthreads's). */
static __device__ __forceinline__ void warpgroup_sync(int consumer) {
    asm volatile("bar.sync %0, 128;" ::"r"(consumer + 1) : "memory");
}
static __device__ __forceinline__ uint32_t cluster_rank() {
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}
/* Every thread of the cluster that has not exited (exited threads count as arrived). */
static __device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

/* ---- wgmma shared-memory descriptors (PTX ISA, "Matrix Descriptor Format"), 128-byte swizzle:
 *   bits  0-13  start address >> 4
 *   bits 16-29  leading-dimension byte offset >> 4 (LBO)
 *   bits 32-45  stride-dimension byte offset >> 4 (SBO)
 *   bits 49-51  base offset: 0, every tile starts on 1024 bytes
 *   bits 62-63  swizzle mode: 1 = 128-byte
 * A (K-major): 8-row groups of 128-byte rows, SBO = 1024 bytes between groups; a k16 step
 * lies inside one 128-byte row, so LBO is not used (1 by convention).
 * B (MN-major, N contiguous): atoms of 64 columns x 8 k-rows; LBO = the bytes from one
 * 64-column atom to the next (one TMA box, BK rows of 128 bytes), SBO = 1024 bytes from
 * one group of 8 k-rows to the next. ---- */
static __device__ __forceinline__ uint64_t sw128_desc(const void *tile, uint32_t lbo,
                                                      uint32_t sbo) {
    return (uint64_t)((smem_u32(tile) & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 |
           (uint64_t)(sbo >> 4) << 32 | 1ull << 62;
}

static __device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
static __device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> static __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/* Keeps the compiler from moving accumulator reads or writes across an asynchronous wgmma. */
static __device__ __forceinline__ void fence_registers(float *d, int n) {
#pragma unroll
    for (int i = 0; i < n; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* D(64 x 256) += A(64 x 16) * B(16 x 256), one macro for both input types (TYPE: f16 or bf16).
 * After the 128 accumulator registers and the two descriptors come: scale-d (predicate p, from
 * the constant 1: D = A B + D; 0 would drop D), imm-scale-a and imm-scale-b (1: no negation),
 * imm-trans-a and imm-trans-b, TA and TB: 0, 1 for step 12's product (A K-major, B MN-major and
 * read transposed), 1, 0 for the swapped one (its A, a tile of B, MN-major; its B K-major). */
#define WGMMA_M64N256K16(TYPE, d, desc_a, desc_b, TA, TB)                                          \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                              \
        "wgmma.mma_async.sync.aligned.m64n256k16.f32." #TYPE "." #TYPE " "                         \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "   \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "    \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "    \
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "    \
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "    \
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "      \
        "%103, "                                                                                   \
        "%104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "     \
        "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127} "                             \
        ", %128, %129, p, 1, 1, %131, %132;\n}\n"                                                  \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),      \
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),            \
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),            \
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),            \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),            \
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),            \
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),            \
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),            \
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),            \
          "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),            \
          "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]),            \
          "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),            \
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),            \
          "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),            \
          "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),            \
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),        \
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),      \
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),      \
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),      \
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])       \
        : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

/* D(64 x 192), D(64 x 128), D(64 x 96) and D(64 x 64): the same instruction with N = 192 (96
 * accumulator registers), 128 (64), 96 (48) and 64 (32); the operands after the accumulators are
 * as for n256. */
#define WGMMA_M64N192K16(TYPE, d, desc_a, desc_b, TA, TB)                                          \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                               \
        "wgmma.mma_async.sync.aligned.m64n192k16.f32." #TYPE "." #TYPE " "                         \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "        \
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, "    \
        "%35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, "    \
        "%52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, "    \
        "%69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "    \
        "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95} "                                       \
        ", %96, %97, p, 1, 1, %99, %100;\n}\n"                                                     \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),      \
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),            \
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),            \
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),            \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),            \
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),            \
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),            \
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),            \
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),            \
          "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),            \
          "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]),            \
          "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),            \
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),            \
          "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),            \
          "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])                                       \
        : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

#define WGMMA_M64N128K16(TYPE, d, desc_a, desc_b, TA, TB)                                          \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                               \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32." #TYPE "." #TYPE " "                         \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "        \
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, "    \
        "%35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, "    \
        "%52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63} "                             \
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"                                                      \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),      \
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),            \
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),            \
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),            \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),            \
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),            \
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),            \
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),            \
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),            \
          "+f"(d[62]), "+f"(d[63])                                                                 \
        : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

#define WGMMA_M64N96K16(TYPE, d, desc_a, desc_b, TA, TB)                                           \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"                                               \
        "wgmma.mma_async.sync.aligned.m64n96k16.f32." #TYPE "." #TYPE " "                          \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "   \
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "    \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47} "                             \
        ", %48, %49, p, 1, 1, %51, %52;\n}\n"                                                      \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),      \
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),            \
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),            \
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),            \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),            \
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),            \
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])                                       \
        : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

#define WGMMA_M64N64K16(TYPE, d, desc_a, desc_b, TA, TB)                                           \
    asm volatile(                                                                                  \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                               \
        "wgmma.mma_async.sync.aligned.m64n64k16.f32." #TYPE "." #TYPE " "                          \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "        \
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31} "                   \
        ", %32, %33, p, 1, 1, %35, %36;\n}\n"                                                      \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),      \
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),            \
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),            \
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])             \
        : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

/* D(64 x 32) and D(64 x 16), for the swapped product: 32 or 16 rows of A as the instruction's N. */
#define WGMMA_M64N32K16(TYPE, d, desc_a, desc_b, TA, TB)                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32." #TYPE "." #TYPE " "                 \
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15} "         \
                 ", %16, %17, p, 1, 1, %19, %20;\n}\n"                                             \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),         \
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),       \
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])                              \
                 : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

#define WGMMA_M64N16K16(TYPE, d, desc_a, desc_b, TA, TB)                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32." #TYPE "." #TYPE " "                 \
                 "{%0, %1, %2, %3, %4, %5, %6, %7} "                                               \
                 ", %8, %9, p, 1, 1, %11, %12;\n}\n"                                               \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),         \
                   "+f"(d[6]), "+f"(d[7])                                                          \
                 : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB))

template <typename T, int BN, bool SWAP>
static __device__ __forceinline__ void wgmma_tile(float d[BN / 2], uint64_t desc_a,
                                                  uint64_t desc_b) {
    constexpr int TA = SWAP ? 1 : 0, TB = SWAP ? 0 : 1;
    constexpr bool f16 = std::is_same_v<T, __half>;
    if constexpr (BN == 256) {
        if constexpr (f16)
            WGMMA_M64N256K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N256K16(bf16, d, desc_a, desc_b, TA, TB);
    } else if constexpr (BN == 192) {
        if constexpr (f16)
            WGMMA_M64N192K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N192K16(bf16, d, desc_a, desc_b, TA, TB);
    } else if constexpr (BN == 128) {
        if constexpr (f16)
            WGMMA_M64N128K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N128K16(bf16, d, desc_a, desc_b, TA, TB);
    } else if constexpr (BN == 96) {
        if constexpr (f16)
            WGMMA_M64N96K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N96K16(bf16, d, desc_a, desc_b, TA, TB);
    } else if constexpr (BN == 64) {
        if constexpr (f16)
            WGMMA_M64N64K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N64K16(bf16, d, desc_a, desc_b, TA, TB);
    } else if constexpr (BN == 32) {
        if constexpr (f16)
            WGMMA_M64N32K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N32K16(bf16, d, desc_a, desc_b, TA, TB);
    } else {
        if constexpr (f16)
            WGMMA_M64N16K16(f16, d, desc_a, desc_b, TA, TB);
        else
            WGMMA_M64N16K16(bf16, d, desc_a, desc_b, TA, TB);
    }
}

/* The ring position: which stage, and the parity of that stage's current phase. */
struct ring_pos {
    int stage;
    uint32_t phase;
};
template <int STAGES> static __device__ __forceinline__ ring_pos advance(ring_pos p) {
    return p.stage + 1 == STAGES ? ring_pos{0, p.phase ^ 1u} : ring_pos{p.stage + 1, p.phase};
}

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
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    /* The last block-wide barrier (with PAIR, cluster-wide: the other block's barriers exist
     * before a copy or an arrival reaches them); from here on the roles only meet at mbarriers. */
    if constexpr (PAIR > 1)
        cluster_sync();
    else
        __syncthreads();

    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(PRODUCER_REGISTERS));
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

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(ring::CONSUMER_REGISTERS));
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
                    wgmma_tile<T, BN, true>(acc, sw128_desc(a + kk * WGMMA_K * 64, BK * 128, 1024),
                                            sw128_desc(b + kk * WGMMA_K, 16, 1024));
                else
                    /* A: the k16 step is 32 bytes further along the swizzled rows; B: 16 k-rows
                     * (2 KB) further. */
                    wgmma_tile<T, BN, false>(acc, sw128_desc(a + kk * WGMMA_K, 16, 1024),
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

/* A tensor map of a row-major rows x cols matrix of 16-bit elements, box box_cols x box_rows,
 * 128-byte swizzle; elements outside the matrix arrive as zeros. */
static cudaError_t make_map(CUtensorMap *map, const void *base, int rows, int cols, int box_cols,
                            int box_rows, CUtensorMapDataType type, int element_bytes = 2) {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        cudaError_t err = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess)
            return err != cudaSuccess ? err : cudaErrorNotSupported;
    }
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    /* bytes from one row to the next: a multiple of 16 */
    const cuuint64_t strides[1] = {(cuuint64_t)cols * element_bytes};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t unit[2] = {1, 1};
    CUresult r = encode(map, type, 2, const_cast<void *>(base), dims, strides, box, unit,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
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

template <typename T> static cudaError_t launch_fallback(gemm_args *p) {
    dim3 grid(ceil_div(p->m, 32) * ceil_div(p->n, 32)), block(32, 32);
    fallback_kernel<T><<<grid, block>>>(p->m, p->n, p->k, p->alpha, (const T *)p->a,
                                        (const T *)p->b, p->beta, p->c);
    return cudaGetLastError();
}

/* gemv_m: K cut so that the grid has about 4 blocks per SM, each K range a multiple of 8 rows
 * from 128 (fewer planes to add up) to 1024 (its rows of A in shared memory: R x 4 KB). */
template <typename T, int R> static cudaError_t launch_gemv_m_rows(gemm_args *p) {
    const int col_blocks = ceil_div(ceil_div(p->n, 8), GEMV_THREADS),
              row_blocks = ceil_div(p->m, R);
    const int splits = ceil_div(4 * sm_count(), col_blocks * row_blocks);
    int k_chunk = ceil_div(ceil_div(p->k, splits), 8) * 8;
    k_chunk = k_chunk < 128 ? 128 : k_chunk > 1024 ? 1024 : k_chunk;
    const int planes = ceil_div(p->k, k_chunk);
    float *partial = workspace((size_t)planes * p->m * p->n);
    if (!partial) return cudaErrorMemoryAllocation;
    dim3 grid(col_blocks * row_blocks, planes);
    gemv_m_kernel<T, R><<<grid, GEMV_THREADS, R * k_chunk * sizeof(float)>>>(
        p->m, p->n, p->k, (const T *)p->a, (const T *)p->b, k_chunk, partial);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : reduce_planes(p, partial, planes);
}
template <typename T> static cudaError_t launch_gemv_m(gemm_args *p) {
    /* R = M up to 8 rows per block: a thread's sums are R x 8 registers */
    if (p->m == 1) return launch_gemv_m_rows<T, 1>(p);
    if (p->m <= 2) return launch_gemv_m_rows<T, 2>(p);
    if (p->m <= 4) return launch_gemv_m_rows<T, 4>(p);
    return launch_gemv_m_rows<T, 8>(p);
}

template <typename T, int CN> static cudaError_t launch_gemv_n_cols(gemm_args *p) {
    dim3 grid(ceil_div(p->m, GEMV_THREADS / 32) * ceil_div(p->n, CN));
    const bool staged = CN == 1 && p->k % 8 == 0 && p->k * 2 <= 48 * 1024 && (size_t)p->b % 16 == 0;
    /* (48 KB: the dynamic shared memory a kernel gets without opting in) */
    gemv_n_kernel<T, CN><<<grid, GEMV_THREADS, staged ? p->k * 2 : 0>>>(
        p->m, p->n, p->k, p->alpha, (const T *)p->a, (const T *)p->b, p->beta, p->c, staged);
    return cudaGetLastError();
}
template <typename T> static cudaError_t launch_gemv_n(gemm_args *p) {
    if (p->n == 1) return launch_gemv_n_cols<T, 1>(p);
    if (p->n <= 4) return launch_gemv_n_cols<T, 4>(p); /* (CN = 2 would spill at ptxas's 64) */
    return launch_gemv_n_cols<T, GEMV_ROWS>(p);
}

/* ---- The dispatcher. ---- */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg, splits; /* for the tensor-core paths: tile width, consumer warpgroups, K ranges */
    int pair;           /* 2: clusters of two blocks that share the A tile */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, 0, 1, false, 0.0}; }

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

static const char *tile_path(int bn, int pair) {
    if (pair == 2) return bn == 256 ? "pair_n256" : bn == 128 ? "pair_n128" : "pair_n64";
    return bn == 256   ? "tma_n256"
           : bn == 192 ? "tma_n192"
           : bn == 128 ? "tma_n128"
           : bn == 96  ? "tma_n96"
                       : "tma_n64";
}

static gemm_plan tensor_plan(int m, int n, int k, int forced_bn, bool forced_split) {
    const int sms = sm_count(), slices = ceil_div(k, BK);
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
    } else if (!swap && !forced_bn && ceil_div(n, best.bn) == 2 && best.bn != 192 &&
               best.bn != 96) { /* (the widths with a pair kernel: 256, 128 and 64) */
        /* Two tiles per tile row: a cluster of two blocks covers it and reads its rows of A, the
         * matrix that dominates the bytes, once (8192 x 256 x 8192, n128: 87% of cuBLAS apart,
         * 96% as pairs; at 1024^3 and 4096^3, with many tiles per row, pairs gain nothing). */
        best.pair = 2;
        best.path = tile_path(best.bn, 2);
    }
    return best;
}

static gemm_plan plan_for(const gemm_args *p) {
    /* TMA needs 16-byte aligned rows (K and N multiples of 8) and 16-byte aligned bases. */
    const bool tma =
        p->k % 8 == 0 && p->n % 8 == 0 && ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0;
    const char *f = p->force_path;
    if (f && (!strcmp(f, "gemv_m") || !strcmp(f, "gemv_n") || !strcmp(f, "fallback")))
        return named(f);
    if (f && !tma) return named("fallback"); /* no tensor map describes it */
    if (f && !strcmp(f, "splitk")) return tensor_plan(p->m, p->n, p->k, 0, true);
    if (f && !strcmp(f, "swap")) { /* M in the instruction's N: 16, 32 or 64 rows of A */
        const int wg = ceil_div(p->n, 128) >= sm_count() ? 2 : 1; /* N in tiles of 64 WG rows */
        return (gemm_plan){f, p->m <= 16 ? 16 : p->m <= 32 ? 32 : 64, wg, 1, 1, true, 0.0};
    }
    if (f) { /* tma_nW and pair_nW: that width, one K range */
        gemm_plan plan = tensor_plan(p->m, p->n, p->k, atoi(f + strlen("tma_n")), false);
        plan.path = f;
        plan.splits = 1;
        plan.pair = !strncmp(f, "pair_n", strlen("pair_n")) ? 2 : 1;
        return plan;
    }
    /* Bytes against FLOPs: with N or M of at most 8, an element of the large matrix meets at
     * most 16 FLOPs, and the tensor cores' tiles would be mostly zeros. */
    if (p->n <= GEMV_ROWS) return named("gemv_n");
    if (p->m <= GEMV_ROWS) return named("gemv_m");
    if (!tma) return named("fallback");
    return tensor_plan(p->m, p->n, p->k, 0, false);
}

template <typename T> static cudaError_t launch_typed(gemm_args *p) {
    const gemm_plan plan = plan_for(p);
    p->path = plan.path;
    if (!strcmp(plan.path, "gemv_m")) return launch_gemv_m<T>(p);
    if (!strcmp(plan.path, "gemv_n")) return launch_gemv_n<T>(p);
    if (!strcmp(plan.path, "fallback")) return launch_fallback<T>(p);
    const int key = plan.bn * 10 + plan.wg;
    if (plan.swap) {
        switch (key) {
        case 161:
            return launch_tma<T, 16, 1, true>(p, plan.splits);
        case 321:
            return launch_tma<T, 32, 1, true>(p, plan.splits);
        case 641:
            return launch_tma<T, 64, 1, true>(p, plan.splits);
        case 162:
            return launch_tma<T, 16, 2, true>(p, plan.splits);
        case 322:
            return launch_tma<T, 32, 2, true>(p, plan.splits);
        default:
            return launch_tma<T, 64, 2, true>(p, plan.splits);
        }
    }
    if (plan.pair == 2) {
        switch (key) {
        case 2562:
            return launch_tma<T, 256, 2, false, 2>(p, plan.splits);
        case 1282:
            return launch_tma<T, 128, 2, false, 2>(p, plan.splits);
        case 642:
            return launch_tma<T, 64, 2, false, 2>(p, plan.splits);
        case 2561:
            return launch_tma<T, 256, 1, false, 2>(p, plan.splits);
        case 1281:
            return launch_tma<T, 128, 1, false, 2>(p, plan.splits);
        default:
            return launch_tma<T, 64, 1, false, 2>(p, plan.splits);
        }
    }
    switch (key) {
    case 2562:
        return launch_tma<T, 256, 2>(p, plan.splits);
    case 1922:
        return launch_tma<T, 192, 2>(p, plan.splits);
    case 1921:
        return launch_tma<T, 192, 1>(p, plan.splits);
    case 1282:
        return launch_tma<T, 128, 2>(p, plan.splits);
    case 963:
        return launch_tma<T, 96, 3>(p, plan.splits);
    case 642:
        return launch_tma<T, 64, 2>(p, plan.splits);
    case 2561:
        return launch_tma<T, 256, 1>(p, plan.splits);
    case 1281:
        return launch_tma<T, 128, 1>(p, plan.splits);
    default:
        return launch_tma<T, 64, 1>(p, plan.splits);
    }
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
        PATHS};
    return gemm_main(argc, argv, &step);
}
