// mma.sync m16n8k16 throughput on this GPU, by warps per SM and warp tile, with the
// ldmatrix fragment loads of steps 09/10 and an optional __syncthreads every BK = 64.
// nvcc -O3 -arch=sm_90 -std=c++17 hmma_bench.cu -o hmma_bench && ./hmma_bench
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ void ldsm4(uint32_t r[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm4t(uint32_t r[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// MT x NT mma tiles per warp (64 x 64 warp tile: 4 x 8). LDSM: fragments from shared memory
// each k16 step; BAR: __syncthreads() every 4 k16 steps (a BK = 64 slice).
template <int MT, int NT, bool LDSM, bool BAR>
__global__ void kern(float *out, int iters) {
    __shared__ __align__(16) __half sm[2][128 * 72];
    for (int i = threadIdx.x; i < 2 * 128 * 72; i += blockDim.x) (&sm[0][0])[i] = __float2half(0.001f * (i % 97));
    __syncthreads();
    float acc[MT][NT][4] = {};
    uint32_t a[MT][4], b[NT][2];
    for (int i = 0; i < MT; i++)
        for (int r = 0; r < 4; r++) a[i][r] = 0x3c003c00u ^ (threadIdx.x * 7 + i + r);
    for (int j = 0; j < NT; j++)
        for (int r = 0; r < 2; r++) b[j][r] = 0x3c003c00u ^ (threadIdx.x * 5 + j + r);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(&sm[0][0]);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int ks = 0; ks < 4; ks++) {
            if (LDSM) {
                const uint32_t s = base + (it & 1) * 128 * 72 * 2;
#pragma unroll
                for (int i = 0; i < MT; i++)
                    ldsm4(a[i], s + (((warp % 2) * 64 + i * 16 + lane % 16) * 72 + ks * 16 + lane / 16 * 8) * 2);
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
        if (BAR) __syncthreads();
    }
    float s = 0;
    for (int i = 0; i < MT; i++)
        for (int j = 0; j < NT; j++)
            for (int r = 0; r < 4; r++) s += acc[i][j][r];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int MT, int NT, bool LDSM, bool BAR>
void run(const char *name, int warps_per_block, int blocks_per_sm, int sms, float *out) {
    const int iters = 4000, grid = sms * blocks_per_sm;
    auto k = kern<MT, NT, LDSM, BAR>;
    int fit = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, warps_per_block * 32, 0);
    k<<<grid, warps_per_block * 32>>>(out, 10);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    k<<<grid, warps_per_block * 32>>>(out, iters);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    const double flops = 2.0 * 16 * 8 * 16 * MT * NT * 4.0 * iters * warps_per_block * (double)grid;
    printf("%-28s warps/SM %2d (fit %d blocks)  %7.1f TFLOPS  %s\n", name, warps_per_block * blocks_per_sm, fit,
           flops / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
}

int main() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    float *out;
    cudaMalloc(&out, 64 << 20);
    for (int bps = 1; bps <= 4; bps *= 2) {
        run<4, 8, false, false>("regs only 64x64", 4, bps, sms, out);
        run<4, 8, true, false>("ldmatrix 64x64", 4, bps, sms, out);
        run<4, 8, true, true>("ldmatrix+bar 64x64", 4, bps, sms, out);
        run<4, 4, false, false>("regs only 64x32", 4, bps, sms, out);
        run<4, 4, true, false>("ldmatrix 64x32", 4, bps, sms, out);
        run<4, 4, true, true>("ldmatrix+bar 64x32", 4, bps, sms, out);
    }
    run<4, 8, true, true>("ldmatrix+bar 64x64 8w/blk", 8, 1, sms, out);
    run<4, 4, true, true>("ldmatrix+bar 64x32 8w/blk", 8, 2, sms, out);
    run<4, 4, true, true>("ldmatrix+bar 64x32 16w/blk", 16, 1, sms, out);
    return 0;
}
