/* baseline.cu: what the cuBLASLt baseline needs beside cuBLASLt itself (harness.c). cuBLASLt has
 * no SiLU epilogue, so the baseline of --epilogue bias_silu is its bias GEMM followed by this
 * kernel over C, as a framework without a fused kernel would run it; --unfused runs GELU the
 * same way. Compiled to PTX for compute_75, which the driver compiles for whatever GPU runs it. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "gemm.h"

/* 8 elements of C's type (16 bytes) per thread and step where C allows it: a pass over C at the
 * DRAM's rate, as a framework's elementwise kernel would run it. */
template <typename T> __device__ float act(float x, bool gelu) {
    return gelu ? 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)))
                : x / (1.0f + expf(-x));
}
template <typename T> __global__ void activation_kernel(T *c, size_t count, bool gelu) {
    constexpr int PER = 16 / sizeof(T);
    const size_t stride = (size_t)gridDim.x * blockDim.x, first = blockIdx.x * (size_t)blockDim.x;
    const size_t vectors = (size_t)((uintptr_t)c % 16 == 0) * (count / PER);
    for (size_t i = first + threadIdx.x; i < vectors; i += stride) {
        uint4 v = reinterpret_cast<uint4 *>(c)[i];
        T *e = reinterpret_cast<T *>(&v);
#pragma unroll
        for (int j = 0; j < PER; j++) e[j] = static_cast<T>(act<T>(static_cast<float>(e[j]), gelu));
        reinterpret_cast<uint4 *>(c)[i] = v;
    }
    for (size_t i = vectors * PER + first + threadIdx.x; i < count; i += stride)
        c[i] = static_cast<T>(act<T>(static_cast<float>(c[i]), gelu));
}

extern "C" cudaError_t gemm_activation_kernel(void *c, size_t count, gemm_out out,
                                              gemm_epilogue epilogue) {
    const unsigned blocks = (unsigned)(count / 2048 < 8192 ? count / 2048 + 1 : 8192);
    const bool gelu = epilogue == GEMM_EPI_BIAS_GELU;
    if (out == GEMM_OUT_BF16)
        activation_kernel<<<blocks, 256>>>((__nv_bfloat16 *)c, count, gelu);
    else if (out == GEMM_OUT_F16)
        activation_kernel<<<blocks, 256>>>((__half *)c, count, gelu);
    else
        activation_kernel<<<blocks, 256>>>((float *)c, count, gelu);
    return cudaGetLastError();
}
