/*
 * k_pair_sums.cuh: step 45's two blocks of a cluster on one swapped tile, each over half of K.
 * The second hands its FP32 sums to the first through distributed shared memory; the first adds
 * them and stores C. No planes of sums in global memory and no second launch (splitk_reduce),
 * which made a split cost more than it saved where a swapped grid half fills the SMs.
 *
 * Per consumer warpgroup: a buffer in the first block, its 128 threads' sums thread-major (one
 * 16-byte store per thread side by side), and two mbarriers. `ready` (the first block's) takes the
 * second block's 128 arrivals, each after that thread's stores; `consumed` (the second's) takes the
 * first block's 128, each after that thread's reads, so that the next unit's sums never overwrite
 * ones not yet added. Both ends at cluster scope: the stores and reads are the other block's.
 */
#pragma once
#include "hopper.cuh"

/* The shared-memory address `local` of this block as block `cta` of the cluster sees it. */
static __device__ __forceinline__ uint32_t cluster_address(uint32_t local, uint32_t cta) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(cta));
    return remote;
}
/* 16 bytes into another block's shared memory (an address from cluster_address). */
static __device__ __forceinline__ void st_cluster_f32x4(uint32_t remote, const float *v) {
    asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(remote), "f"(v[0]),
                 "f"(v[1]), "f"(v[2]), "f"(v[3])
                 : "memory");
}
/* An arrival on the barrier at the same place in block `cta`, released at cluster scope: this
 * thread's earlier stores to (or reads of) that block's memory come before it. */
static __device__ __forceinline__ void mbar_arrive_release_in(uint64_t *bar, uint32_t cta) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                     cluster_address(smem_u32(bar), cta))
                 : "memory");
}
/* mbar_wait, acquiring at cluster scope what the other block's arrivals released. */
static __device__ __forceinline__ void mbar_wait_acquire_cluster(uint64_t *bar, uint32_t phase) {
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                     "p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(phase)
                     : "memory");
}

/* Both blocks of a pair after their halves of a unit's K loop (acc: N sums a thread; sums: the
 * warpgroup's buffer; exchange: the parity of the pair's exchanges, advanced here). The second
 * block waits until the first has added the last unit's sums, stores its own into the first's
 * buffer and returns false: it stores nothing of C. The first waits for them, adds them, hands
 * the buffer back and returns true. */
template <int N>
static __device__ __forceinline__ bool pair_sums(float *acc, float *sums, uint32_t k_rank,
                                                 uint64_t *ready, uint64_t *consumed,
                                                 uint32_t &exchange) {
    static_assert(N % 4 == 0, "a thread's sums move in 16-byte pieces");
    const uint32_t phase = exchange, thread = threadIdx.x % 128;
    exchange ^= 1u;
    if (k_rank) {
        mbar_wait_acquire_cluster(consumed, phase ^ 1u); /* the first exchange: a fresh barrier */
        const uint32_t mine = cluster_address(smem_u32(sums + thread * 4), 0);
#pragma unroll
        for (int q = 0; q < N / 4; q++) st_cluster_f32x4(mine + q * 128 * 16, acc + 4 * q);
        mbar_arrive_release_in(ready, 0);
        return false;
    }
    mbar_wait_acquire_cluster(ready, phase);
#pragma unroll
    for (int q = 0; q < N / 4; q++) {
        const float4 v = reinterpret_cast<const float4 *>(sums)[q * 128 + thread];
        acc[4 * q] += v.x, acc[4 * q + 1] += v.y, acc[4 * q + 2] += v.z, acc[4 * q + 3] += v.w;
    }
    mbar_arrive_release_in(consumed, 1);
    return true;
}
