/* baseline.cu: what the cuBLASLt baseline needs beside cuBLASLt itself (harness.c). cuBLASLt has
 * no SiLU epilogue, so the baseline of --epilogue bias_silu is its bias GEMM followed by this
 * kernel over C, as a framework without a fused kernel would run it; --unfused runs GELU the
 * same way. Compiled to PTX for compute_75, which the driver compiles for whatever GPU runs it. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm.h"

template <typename T> __global__ void activation_kernel(T *c, size_t count, bool gelu) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const float x = static_cast<float>(c[i]);
        c[i] = static_cast<T>(
            gelu ? 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)))
                 : x / (1.0f + expf(-x)));
    }
}

extern "C" cudaError_t gemm_activation_kernel(void *c, size_t count, gemm_out out,
                                              gemm_epilogue epilogue) {
    const unsigned blocks = (unsigned)(count / 256 < 4096 ? count / 256 + 1 : 4096);
    const bool gelu = epilogue == GEMM_EPI_BIAS_GELU;
    if (out == GEMM_OUT_BF16)
        activation_kernel<<<blocks, 256>>>((__nv_bfloat16 *)c, count, gelu);
    else if (out == GEMM_OUT_F16)
        activation_kernel<<<blocks, 256>>>((__half *)c, count, gelu);
    else
        activation_kernel<<<blocks, 256>>>((float *)c, count, gelu);
    return cudaGetLastError();
}
