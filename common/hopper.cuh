/*
 * hopper.cuh: the Hopper (sm_90a) primitives that steps 11 onwards share, each PTX instruction
 * one small named wrapper, written once. The step that first uses a primitive explains it in
 * its README; later steps only call it, so that a diff between two steps never shows one.
 *
 *   mbarriers      mbar_init, mbar_expect_bytes, mbar_arrive, mbar_wait,
 *                  fence_mbarrier_init                                          (step 11)
 *   TMA            tma_load                                                     (step 11)
 *                  tma_store, bulk_commit, bulk_wait_read, fence_async_shared   (step 13)
 *                  tma_load_multicast (step 19), tma_load_to<BLOCKS> (step 40)
 *   wgmma          sw128_desc, wgmma<N, TRANS_A, TRANS_B>, wgmma_fence, wgmma_commit,
 *                  wgmma_wait, fence_registers                                  (step 11)
 *                  wgmma_rs<N> (the A operand from registers)                   (step 38)
 *   the ring       ring_pos, advance<STAGES>: (stage, phase) and its one advance (step 11)
 *   registers      setmaxnreg_dec, setmaxnreg_inc                               (step 12)
 *   barriers       warpgroup_sync, consumers_sync (named barriers)        (steps 13, 21)
 *   clusters       cluster_rank, cluster_sync, mbar_arrive_in (mapa)            (step 19)
 *   host           make_map (a tensor map), sm_count                            (steps 11, 12)
 *   launch order   griddep_wait, griddep_launch_dependents, early_start         (step 20)
 *   cp.async       cp_async_16, cp_async_wait_all, cp_async_arrive (mbarrier)   (step 38)
 *   shared loads   lds_u16                                                      (step 38)
 *
 * Everything here is PTX of the PTX ISA (sections "mbarrier", "cp.async.bulk.tensor", "wgmma",
 * "setmaxnreg", "barrier.cluster", "mapa", "griddepcontrol", "cp.async"); the tensor map comes
 * from the driver API (cuTensorMapEncodeTiled), reached through the runtime so that no -lcuda is
 * needed.
 */
#ifndef HOPPER_CUH
#define HOPPER_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <type_traits>

static __device__ __forceinline__ uint32_t smem_u32(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* ---- mbarriers: a 64-bit word in shared memory that counts arrivals (and, for TMA,
 * transaction bytes) and flips its phase bit when all have come in. ---- */
static __device__ __forceinline__ void mbar_init(uint64_t *bar, int arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals)
                 : "memory");
}
/* Releases the barriers' init (cluster scope) before threads, the cluster or TMA use them. */
static __device__ __forceinline__ void fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
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
/* An arrival on the barrier at the same place in block `cta` of the cluster (this one included):
 * mapa turns the local shared-memory address into that block's. The release is the default,
 * CTA-scope one; a .release.cluster arrival waits for this thread's earlier memory operations to
 * be visible cluster-wide, which the stage's readers (wgmma, already waited for) do not need. */
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

/* ---- The ring: stage s of STAGES, and the parity of that stage's current phase. The one
 * advance wraps the stage and flips the parity together. ---- */
struct ring_pos {
    int stage;
    uint32_t phase;
};
template <int STAGES> static __device__ __forceinline__ ring_pos advance(ring_pos p) {
    return p.stage + 1 == STAGES ? ring_pos{0, p.phase ^ 1u} : ring_pos{p.stage + 1, p.phase};
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

/* ---- Registers, barriers and clusters. ---- */
/* setmaxnreg: this warpgroup's registers per thread become N (a multiple of 8 from 24 to 256);
 * dec gives registers back to the SM's pool, inc waits until the pool has them. */
template <int N> static __device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N> static __device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
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
 * K-major operand: 8-row groups of 128-byte rows, SBO = 1024 bytes between groups; a k16 step
 * lies inside one 128-byte row, so LBO is not used (16 by convention).
 * MN-major operand (M or N contiguous): atoms of 64 elements x 8 k-rows; LBO = the bytes from one
 * 64-wide atom to the next (one TMA box, BK rows of 128 bytes), SBO = 1024 bytes from one group
 * of 8 k-rows to the next. ---- */
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

/* ---- wgmma.mma_async m64nNk16, FP32 accumulators, for every N the steps use. The instruction
 * names its N / 2 accumulator registers one by one, so the operand list is built from chunks of
 * 8: WGMMA_R<i> is the text "%0, ..., %<8 i + 7>" and WGMMA_A<i> the matching "+f" operands, i the
 * last chunk (N = 16 i + 16).
 * After the c = N / 2 accumulators come the two descriptors (%c, %c + 1), then scale-d (predicate
 * p, set from %c + 2 = 1: D = A B + D), imm-scale-a and imm-scale-b (1: no negation), imm-trans-a
 * and imm-trans-b (%c + 3, %c + 4: 0 = K-major, 1 = MN-major, read transposed). ---- */
#define WGMMA_R0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define WGMMA_R1 WGMMA_R0 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define WGMMA_R2 WGMMA_R1 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define WGMMA_R3 WGMMA_R2 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define WGMMA_R5                                                                                   \
    WGMMA_R3 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define WGMMA_R7                                                                                   \
    WGMMA_R5 ", %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WGMMA_R11                                                                                  \
    WGMMA_R7 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"    \
             ", %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define WGMMA_R13                                                                                  \
    WGMMA_R11 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109"   \
              ", %110, %111"
#define WGMMA_R15                                                                                  \
    WGMMA_R13 ", %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124"     \
              ", %125, %126, %127"
#define WGMMA_ACC8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGMMA_A0 WGMMA_ACC8(0)
#define WGMMA_A1 WGMMA_A0, WGMMA_ACC8(8)
#define WGMMA_A2 WGMMA_A1, WGMMA_ACC8(16)
#define WGMMA_A3 WGMMA_A2, WGMMA_ACC8(24)
#define WGMMA_A5 WGMMA_A3, WGMMA_ACC8(32), WGMMA_ACC8(40)
#define WGMMA_A7 WGMMA_A5, WGMMA_ACC8(48), WGMMA_ACC8(56)
#define WGMMA_A11 WGMMA_A7, WGMMA_ACC8(64), WGMMA_ACC8(72), WGMMA_ACC8(80), WGMMA_ACC8(88)
#define WGMMA_A13 WGMMA_A11, WGMMA_ACC8(96), WGMMA_ACC8(104)
#define WGMMA_A15 WGMMA_A13, WGMMA_ACC8(112), WGMMA_ACC8(120)
/* SHAPE: "n256"; REGS and the operands (last): the chunk lists ending at register n - 1; OPS:
 * "%n, %n + 1, p, 1, 1, %n + 3, %n + 4" and PRED "%n + 2", numbered per N (asm text cannot add). */
#define WGMMA_ASM(TYPE, SHAPE, REGS, OPS, PRED, ...)                                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " PRED ", 0;\n"                                 \
                 "wgmma.mma_async.sync.aligned.m64" SHAPE "k16.f32." #TYPE "." #TYPE " {" REGS     \
                 "}, " OPS ";\n}\n"                                                                \
                 : __VA_ARGS__                                                                     \
                 : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TRANS_A), "n"(TRANS_B))

/* D(64 x N) += A(64 x 16) B(16 x N) for T = __half or __nv_bfloat16; d holds N / 2 floats. */
template <int N, int TRANS_A, int TRANS_B, typename T>
static __device__ __forceinline__ void wgmma(float *d, uint64_t desc_a, uint64_t desc_b) {
    static_assert(N == 256 || N == 224 || N == 192 || N == 128 || N == 96 || N == 64 || N == 32 ||
                      N == 16,
                  "the wgmma widths written out below");
    constexpr bool f16 = std::is_same_v<T, __half>;
    static_assert(f16 || std::is_same_v<T, __nv_bfloat16>, "16-bit inputs: f16 or bf16");
#define WGMMA_CASE(NN, REGS, D0, D1, PR, T0, T1, ...)                                              \
    if constexpr (N == NN) {                                                                       \
        if constexpr (f16)                                                                         \
            WGMMA_ASM(f16, "n" #NN, REGS, "%" #D0 ", %" #D1 ", p, 1, 1, %" #T0 ", %" #T1,          \
                      "%" #PR, __VA_ARGS__);                                                       \
        else                                                                                       \
            WGMMA_ASM(bf16, "n" #NN, REGS, "%" #D0 ", %" #D1 ", p, 1, 1, %" #T0 ", %" #T1,         \
                      "%" #PR, __VA_ARGS__);                                                       \
    }
    WGMMA_CASE(256, WGMMA_R15, 128, 129, 130, 131, 132, WGMMA_A15)
    WGMMA_CASE(224, WGMMA_R13, 112, 113, 114, 115, 116, WGMMA_A13)
    WGMMA_CASE(192, WGMMA_R11, 96, 97, 98, 99, 100, WGMMA_A11)
    WGMMA_CASE(128, WGMMA_R7, 64, 65, 66, 67, 68, WGMMA_A7)
    WGMMA_CASE(96, WGMMA_R5, 48, 49, 50, 51, 52, WGMMA_A5)
    WGMMA_CASE(64, WGMMA_R3, 32, 33, 34, 35, 36, WGMMA_A3)
    WGMMA_CASE(32, WGMMA_R1, 16, 17, 18, 19, 20, WGMMA_A1)
    WGMMA_CASE(16, WGMMA_R0, 8, 9, 10, 11, 12, WGMMA_A0)
#undef WGMMA_CASE
}

/* D(64 x N) += A(64 x 16) B(16 x N) with A from registers: four 32-bit pairs in the m64k16
 * fragment layout (warp w, lane: rows 16 w + lane / 4 and + 8; k 2 (lane % 4), + 1, + 8, + 9;
 * a[0] = (row, k..k+1), a[1] = (row + 8, k..k+1), a[2], a[3] the same at k + 8), B K-major by
 * descriptor (imm-trans-b 0). N = 16 or 32, the swapped tiles of up to 32 rows of A. */
#define WGMMA_RS_ASM(TYPE, SHAPE, REGS, A0, A1, A2, A3, DB, PR, ...)                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PR ", 0;\n"                                \
                 "wgmma.mma_async.sync.aligned.m64" SHAPE "k16.f32." #TYPE "." #TYPE " {" REGS     \
                 "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #DB ", p, 1, 1, 0;\n}\n"         \
                 : __VA_ARGS__                                                                     \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))
template <int N, typename T>
static __device__ __forceinline__ void wgmma_rs(float *d, const uint32_t *a, uint64_t desc_b) {
    static_assert(N == 16 || N == 32, "the swapped widths of up to 32 rows of A");
    constexpr bool f16 = std::is_same_v<T, __half>;
    if constexpr (N == 16 && f16)
        WGMMA_RS_ASM(f16, "n16", WGMMA_R0, 8, 9, 10, 11, 12, 13, WGMMA_A0);
    else if constexpr (N == 16)
        WGMMA_RS_ASM(bf16, "n16", WGMMA_R0, 8, 9, 10, 11, 12, 13, WGMMA_A0);
    else if constexpr (f16)
        WGMMA_RS_ASM(f16, "n32", WGMMA_R1, 16, 17, 18, 19, 20, 21, WGMMA_A1);
    else
        WGMMA_RS_ASM(bf16, "n32", WGMMA_R1, 16, 17, 18, 19, 20, 21, WGMMA_A1);
}

/* ---- Host: a tensor map of a row-major rows x cols matrix (element_bytes each, rows ld apart,
 * ld = cols unless given), box box_cols x box_rows, 128-byte swizzle (box_cols * element_bytes
 * must be 128 at most); elements outside the matrix arrive as zeros, and a store writes none of
 * them. A row's bytes (ld elements) must be a multiple of 16, and the base 16-byte aligned.
 * promotion: how much L2 fetches on a miss (256 bytes unless given: step 33). ---- */
static cudaError_t make_map(CUtensorMap *map, const void *base, int rows, int cols, int box_cols,
                            int box_rows, CUtensorMapDataType type, int element_bytes = 2,
                            int ld = 0,
                            CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        cudaError_t err = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess)
            return err != cudaSuccess ? err : cudaErrorNotSupported;
    }
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)(ld ? ld : cols) * element_bytes}; /* row to row */
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t unit[2] = {1, 1};
    CUresult r = encode(map, type, 2, const_cast<void *>(base), dims, strides, box, unit,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* Host: the GPU's SM count, read once (a persistent grid launches one block per SM). */
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

/* ---- Programmatic dependent launch (step 20): a kernel launched with early_start() may start
 * while the kernel before it in the stream still runs, once that kernel's blocks have all called
 * griddep_launch_dependents (or ended). Before it reads or writes memory the earlier kernel
 * touches, it calls griddep_wait, which returns when that kernel has ended and its writes are
 * visible: at once for a kernel launched without the attribute. Only a kernel that waits may
 * take early_start: without it, it could overwrite what the kernel before still reads. ---- */
static __device__ __forceinline__ void griddep_wait() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
}
static __device__ __forceinline__ void griddep_launch_dependents() {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
/* Host: the launch attribute (cudaLaunchKernelEx) that lets a kernel start early */
static cudaLaunchAttribute early_start(void) {
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    return attr;
}

/* All `warpgroups` consumer warpgroups meet (barrier 15: clear of warpgroup_sync's; step 21). */
static __device__ __forceinline__ void consumers_sync(int warpgroups) {
    asm volatile("bar.sync 15, %0;" ::"r"(warpgroups * 128) : "memory");
}

/* Two bytes of shared memory at addr (a shared-window address: smem_u32), zero-extended: one
 * LDS.U16 (step 38). Volatile, so that it stays after the mbarrier wait that makes it valid. */
static __device__ __forceinline__ uint32_t lds_u16(uint32_t addr) {
    uint16_t v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(addr) : "memory");
    return v;
}

/* ---- cp.async (sm_80; step 38): 16 bytes of shared memory at dst from the first `bytes` (0 to
 * 16, the rest zeros) at src, both 16-byte aligned, any address TMA could not take; then one
 * arrival on bar once all this thread's earlier copies have landed (noinc: the barrier's count
 * includes the arrival). ---- */
static __device__ __forceinline__ void cp_async_16(void *dst, const void *src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(bytes)
                 : "memory");
}
static __device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}
static __device__ __forceinline__ void cp_async_arrive(uint64_t *bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar))
                 : "memory");
}

/* ---- TMA, chosen at compile time: tma_load where BLOCKS is 1, else tma_load_multicast to blocks
 * 0 .. BLOCKS - 1 of the cluster (steps 40, 41: B's tile shared by two or four, or own). ---- */
template <int BLOCKS>
static __device__ __forceinline__ void tma_load_to(void *dst, const CUtensorMap *map, int x, int y,
                                                   uint64_t *bar) {
    if constexpr (BLOCKS > 1)
        tma_load_multicast(dst, map, x, y, bar, (1 << BLOCKS) - 1);
    else
        tma_load(dst, map, x, y, bar);
}

#endif /* HOPPER_CUH */
