// The mma.sync + ldmatrix ceiling of notes/h200-tensorcore/dev/hmma_bench.cu (64 x 64 warp tiles, 8 warps in one
// block per SM, a __syncthreads() every 4 k16 steps, no global memory), with the SM clock measured in the kernel
// (clock64 against %globaltimer in block 0) and two kinds of data: hmma_bench's (few distinct values) and random
// halves, as the harness gives step 10. nvcc -O3 -arch=sm_90a -std=c++17 hmma_clock.cu -o hmma_clock
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ void ldsm4(uint32_t r[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm4t(uint32_t r[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint64_t globaltimer() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ float hashed(uint32_t i) { /* a uniform value in [-1, 1) */
    i ^= i >> 16; i *= 0x7feb352dU; i ^= i >> 15; i *= 0x846ca68bU; i ^= i >> 16;
    return (i >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

template <bool LDSM, bool RANDOM>
__global__ void __launch_bounds__(256, 1) kern(float *out, unsigned long long *clk, int iters) {
    constexpr int MT = 4, NT = 8;
    __shared__ __align__(16) __half sm[2][128 * 72];
    for (int i = threadIdx.x; i < 2 * 128 * 72; i += blockDim.x)
        (&sm[0][0])[i] = __float2half(RANDOM ? hashed(i + 7919u * blockIdx.x) : 0.001f * (i % 97));
    __syncthreads();
    float acc[MT][NT][4] = {};
    uint32_t a[MT][4], b[NT][2];
    for (int i = 0; i < MT; i++)
        for (int r = 0; r < 4; r++) {
            const __half2 h = __floats2half2_rn(hashed(threadIdx.x * 64 + i * 4 + r), hashed(threadIdx.x * 64 + i * 4 + r + 99991u));
            a[i][r] = RANDOM ? *reinterpret_cast<const uint32_t *>(&h) : 0x3c003c00u ^ (threadIdx.x * 7 + i + r);
        }
    for (int j = 0; j < NT; j++)
        for (int r = 0; r < 2; r++) {
            const __half2 h = __floats2half2_rn(hashed(threadIdx.x * 32 + j * 2 + r + 55555u), hashed(threadIdx.x * 32 + j * 2 + r + 77777u));
            b[j][r] = RANDOM ? *reinterpret_cast<const uint32_t *>(&h) : 0x3c003c00u ^ (threadIdx.x * 5 + j + r);
        }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(&sm[0][0]);
    const uint64_t t0 = globaltimer();
    const long long c0 = clock64();
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int ks = 0; ks < 4; ks++) {
            if (LDSM) {
                const uint32_t s = base + (it & 1) * 128 * 72 * 2;
#pragma unroll
                for (int i = 0; i < MT; i++) ldsm4(a[i], s + (((warp % 2) * 64 + i * 16 + lane % 16) * 72 + ks * 16 + lane / 16 * 8) * 2);
#pragma unroll
                for (int j = 0; j < NT; j += 2) {
                    uint32_t r[4];
                    ldsm4t(r, s + ((ks * 16 + lane % 16) * 136 + (warp / 2) * 64 + j * 8 + lane / 16 * 8) * 2 % (128 * 72 * 2));
                    b[j][0] = r[0]; b[j][1] = r[1]; b[j + 1][0] = r[2]; b[j + 1][1] = r[3];
                }
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) mma(acc[i][j], a[i], b[j]);
        }
        if (LDSM) __syncthreads();
    }
    const long long c1 = clock64();
    const uint64_t t1 = globaltimer();
    if (blockIdx.x == 0 && threadIdx.x == 0) { clk[0] = c1 - c0; clk[1] = t1 - t0; }
    float s = 0;
    for (int i = 0; i < MT; i++)
        for (int j = 0; j < NT; j++)
            for (int r = 0; r < 4; r++) s += acc[i][j][r];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <bool LDSM, bool RANDOM>
void run(const char *name, int sms, float *out, unsigned long long *clk) {
    const int iters = 20000;
    kern<LDSM, RANDOM><<<sms, 256>>>(out, clk, 100);
    for (int rep = 0; rep < 3; rep++) {
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventRecord(e0);
        kern<LDSM, RANDOM><<<sms, 256>>>(out, clk, iters);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        unsigned long long h[2];
        cudaMemcpy(h, clk, sizeof h, cudaMemcpyDeviceToHost);
        const double flops = 2.0 * 16 * 8 * 16 * 32 * 4.0 * iters * 8 * (double)sms;
        const double ghz = (double)h[0] / (double)h[1];
        printf("%-34s %6.1f ms  %6.1f TFLOPS  SM clock %.3f GHz  %6.1f TFLOPS per GHz  %s\n", name, ms, flops / ms / 1e9, ghz,
               flops / ms / 1e9 / ghz, cudaGetErrorString(cudaGetLastError()));
    }
}

int main() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    float *out;
    unsigned long long *clk;
    cudaMalloc(&out, 64 << 20);
    cudaMalloc(&clk, 16);
    run<false, false>("registers only, few values", sms, out, clk);
    run<false, true>("registers only, random", sms, out, clk);
    run<true, false>("ldmatrix + bar, few values", sms, out, clk);
    run<true, true>("ldmatrix + bar, random", sms, out, clk);
    return 0;
}
