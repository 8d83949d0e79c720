/*
 * linear_epilogue.cuh: the linear layer's epilogue in FP32 registers, shared by the steps from 21
 * on (21_linear/README.md): beta C where C is FP32, the bias's activation, and C's type.
 */
#ifndef LINEAR_EPILOGUE_CUH
#define LINEAR_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "gemm.h"

/* v += beta * (C(row, col), C(row, col + 1)), the elements inside the matrix. */
static __device__ __forceinline__ void add_beta_c(const float *C, int M, int N, int row, int col,
                                                  float beta, float2 &v) {
    if (row >= M) return;
    if (col < N) v.x += beta * C[(size_t)row * N + col];
    if (col + 1 < N) v.y += beta * C[(size_t)row * N + col + 1];
}

/* The linear layer's activation, in FP32 registers (GELU in its tanh form: cuBLASLt's GELU_BIAS
 * matches it, not the erf form). */
static __device__ __forceinline__ float activation(gemm_epilogue epilogue, float x) {
    if (epilogue == GEMM_EPI_BIAS_GELU)
        return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    if (epilogue == GEMM_EPI_BIAS_SILU) return x / (1.0f + expf(-x));
    return x;
}

/* tanh in one MUFU operation (2^-11 relative error at most, 1.1e-5 measured): GELU is about
 * 6e-6 |x| off, inside the check's bound, but for x < -3 beyond its own rounding (1 + tanh u). */
static __device__ __forceinline__ float tanh_approx(float x) {
    asm("tanh.approx.f32 %0, %0;" : "+f"(x));
    return x;
}

/* The same, one activation per kernel (EPI a template parameter: the run-time choice inlined
 * every activation into the unrolled epilogue, and the kernel outgrew the instruction cache).
 * With a 16-bit C, GELU costs one multi-function-unit operation (no wgmma overlaps the epilogue)
 * and SiLU, x sigmoid(x), two (ex2.approx and a division: __fdividef's 0 for an infinite
 * denominator is the limit). */
template <gemm_epilogue EPI, typename OutT>
static __device__ __forceinline__ float activation_of(float x) {
    if constexpr (EPI == GEMM_EPI_BIAS_GELU && !std::is_same_v<OutT, float>)
        return 0.5f * x * (1.0f + tanh_approx(0.7978845608f * (x + 0.044715f * x * x * x)));
    else if constexpr (EPI == GEMM_EPI_BIAS_SILU && !std::is_same_v<OutT, float>)
        return __fdividef(x, 1.0f + __expf(-x));
    else
        return activation(EPI, x);
}

/* Two FP32 values as C's type, for one store: a float2, or two 16-bit values in one 32-bit word
 * (cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32), the first in the low half. */
template <typename OutT> static __device__ __forceinline__ void store_pair(void *at, float2 v) {
    if constexpr (std::is_same_v<OutT, float>)
        *reinterpret_cast<float2 *>(at) = v;
    else if constexpr (std::is_same_v<OutT, __half>)
        *reinterpret_cast<__half2 *>(at) = __floats2half2_rn(v.x, v.y);
    else
        *reinterpret_cast<__nv_bfloat162 *>(at) = __floats2bfloat162_rn(v.x, v.y);
}

#endif /* LINEAR_EPILOGUE_CUH */
