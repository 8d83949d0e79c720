/*
 * splitk.cuh: the K-split's second kernel and the scratch memory, shared by the steps from 17 on
 * (17_split_k/README.md): split-K writes FP32 planes of partial sums that splitk_reduce adds up
 * (step 18's gemv_m does too). The reduction is launched to start early (hopper.cuh's
 * early_start): with a kernel before it that lets it (step 20's), its launch overlaps that kernel's
 * end; it waits for the planes before it reads them.
 */
#ifndef SPLITK_CUH
#define SPLITK_CUH

#include "gemm.h"
#include "hopper.cuh"    /* griddep_wait, early_start */
#include "workspace.cuh" /* workspace_bytes */

/* C = alpha * (the sum of `planes` M x N planes of partial) + beta * C. A block takes 32
 * consecutive items (float4s where count and C allow: the cudaMalloc'd planes start on 256 bytes),
 * its 8 warps a share of the planes each, added up in shared memory. */
__global__ void __launch_bounds__(256) splitk_reduce(const float *partial, int planes, size_t count,
                                                     float alpha, float beta, float *C) {
    __shared__ float4 sums[8][32];
    griddep_wait(); /* the planes are written */
    const int lane = threadIdx.x % 32, group = threadIdx.x / 32;
    const bool wide = count % 4 == 0 && (size_t)C % 16 == 0;
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

/* The FP32 planes, in workspace slot 0 */
static float *workspace(size_t floats) {
    return (float *)workspace_bytes(0, floats * sizeof(float));
}

static cudaError_t reduce_planes(const gemm_args *p, const float *partial, int planes) {
    const size_t count = (size_t)p->m * p->n;
    const size_t items = count % 4 == 0 && (size_t)p->c % 16 == 0 ? count / 4 : count;
    cudaLaunchAttribute early = early_start();
    cudaLaunchConfig_t config = {};
    config.gridDim = (unsigned)((items + 31) / 32);
    config.blockDim = 256;
    config.attrs = &early;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, splitk_reduce, partial, planes, count, p->alpha, p->beta,
                              p->c);
}

#endif /* SPLITK_CUH */
