/*
 * Every cuBLASLt algorithm configuration (algorithm id x tile x stages x CTA swizzle, no
 * split-K) for C = A * B at n x n x n with fp16 or bf16 inputs and fp32 C, timed one by one:
 * which of NVIDIA's own kernels use mma.sync (sm80_* / ampere_* names) and how fast the best of
 * them is on this GPU, next to the default cublasGemmEx in the same process. Step 10's target
 * is a fraction of that default; this says what NVIDIA's mma.sync kernels reach here.
 *
 *     nvcc -O2 -std=c++17 -arch=sm_90a notes/h200-tensorcore/dev/cublaslt_algos.cu -lcublasLt -lcublas -o algos
 *     ./algos fp16 time 4096 > t.txt    # one line per configuration: id tile stages swizzle us TFLOPS
 *     grep TFLOPS t.txt | sort -t: -k3 -rn | head -40 > top.txt
 *     ncu --clock-control none --metrics gpu__time_duration.sum ./algos fp16 names 4096 top.txt
 *                                       # the kernel each listed configuration launches, after a marker
 *     ./algos fp16 retime 4096 top.txt  # the listed ones again, timed as the harness times
 *                                       # (common/harness.c: L2 flushed before each run, median of
 *                                       # about 0.4 s of runs), each right after the default: 2 rounds
 *
 * Same operand layout as the harness's cuBLAS call: row-major A, B, C computed as the
 * column-major C^T = B^T A^T (op N, N).
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d cublas status %d\n", __FILE__, __LINE__, (int)s_); exit(1); } } while (0)

__global__ void fill(uint16_t *p, size_t count, uint32_t seed, bool bf16) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        const float v = (h & 0xffff) / 32768.0f - 1.0f;
        if (bf16) { __nv_bfloat16 b = __float2bfloat16(v); p[i] = *reinterpret_cast<uint16_t *>(&b); }
        else { __half b = __float2half(v); p[i] = *reinterpret_cast<uint16_t *>(&b); }
    }
}
__global__ void marker(int config) { (void)config; } /* separates configurations in an ncu listing */

static std::vector<uint32_t> cap_list(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t attr) {
    size_t bytes = 0;
    std::vector<uint32_t> v;
    if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, NULL, 0, &bytes) != CUBLAS_STATUS_SUCCESS || bytes == 0) return {0};
    v.resize(bytes / sizeof(uint32_t));
    CB(cublasLtMatmulAlgoCapGetAttribute(algo, attr, v.data(), bytes, &bytes));
    return v;
}

int main(int argc, char **argv) {
    const bool names = argc == 5 && !strcmp(argv[2], "names"), retime = argc == 5 && !strcmp(argv[2], "retime");
    if ((argc != 4 && !names && !retime) || (strcmp(argv[1], "fp16") && strcmp(argv[1], "bf16")) ||
        (strcmp(argv[2], "time") && !names && !retime)) {
        fprintf(stderr, "usage: %s fp16|bf16 time n | %s fp16|bf16 names|retime n file-of-time-lines\n", argv[0], argv[0]);
        return 2;
    }
    const bool bf16 = !strcmp(argv[1], "bf16"), timing = !names && !retime;
    const int n = atoi(argv[3]);
    const cudaDataType_t T = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    const size_t elems = (size_t)n * n, ws_bytes = 256u << 20;
    uint16_t *A, *B;
    float *C;
    void *ws;
    CK(cudaMalloc(&A, elems * 2)); CK(cudaMalloc(&B, elems * 2)); CK(cudaMalloc(&C, elems * 4)); CK(cudaMalloc(&ws, ws_bytes));
    fill<<<1024, 256>>>(A, elems, 1, bf16);
    fill<<<1024, 256>>>(B, elems, 2, bf16);
    CK(cudaDeviceSynchronize());
    const float alpha = 1.0f, beta = 0.0f;
    const double flop = 2.0 * n * (double)n * n;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));

    /* Mean TFLOPS of `reps` back-to-back calls, after 3 untimed ones. */
    auto tflops = [&](auto call, int reps) {
        for (int i = 0; i < 3; i++) call();
        CK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) call();
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        return flop / (ms / reps * 1e-3) / 1e12;
    };
    /* As common/harness.c times: 2 warm-up runs, then about 0.4 s of runs (5 to 100), each timed
     * alone after L2 is overwritten; the median, in milliseconds. */
    int device = 0, l2_bytes = 0;
    CK(cudaGetDevice(&device));
    CK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    void *flush;
    CK(cudaMalloc(&flush, 2 * (size_t)l2_bytes));
    auto median_ms = [&](auto call) {
        std::vector<float> times;
        float ms = 0;
        for (int r = 0; r < 103; r++) {
            CK(cudaMemsetAsync(flush, r & 0xff, 2 * (size_t)l2_bytes, 0));
            CK(cudaEventRecord(e0));
            call();
            CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 2) times.push_back(ms);
            if (r == 2) { const int reps = (int)(400.0f / ms); r = 103 - (reps < 5 ? 5 : reps > 100 ? 100 : reps); }
        }
        std::sort(times.begin(), times.end());
        const size_t k = times.size();
        return k % 2 ? times[k / 2] : 0.5f * (times[k / 2 - 1] + times[k / 2]);
    };
    /* The reference: the harness's call. */
    cublasHandle_t h;
    CB(cublasCreate(&h));
    auto gemm_ex = [&] { CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, B, T, n, A, T, n, &beta, C, CUDA_R_32F, n,
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)); };
    if (timing) printf("cublasGemmEx default: %.1f TFLOPS\n", tflops(gemm_ex, 20));

    cublasLtHandle_t lt;
    CB(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t op;
    CB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t no = CUBLAS_OP_N;
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no));
    cublasLtMatrixLayout_t la, lb, lc;
    CB(cublasLtMatrixLayoutCreate(&la, T, n, n, n));
    CB(cublasLtMatrixLayoutCreate(&lb, T, n, n, n));
    CB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, n, n, n));
    int ids[512], id_count = 0;
    CB(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, T, T, CUDA_R_32F, CUDA_R_32F, 512, ids, &id_count));
    printf("%d algorithm ids\n", id_count);
    if (names || retime) {
        /* Launch each configuration listed (lines of the time mode) once, after a marker kernel;
         * or time them, in rounds that each begin with the default. */
        FILE *f = fopen(argv[4], "r");
        if (!f) { fprintf(stderr, "cannot read %s\n", argv[4]); return 2; }
        char line[512];
        std::vector<std::vector<uint32_t>> listed;
        while (fgets(line, sizeof line, f)) {
            int id;
            uint32_t tile, stage, swizzle;
            const char *at = strstr(line, "id ");
            if (at && sscanf(at, "id %d tile %u stages %u swizzle %u", &id, &tile, &stage, &swizzle) == 4)
                listed.push_back({(uint32_t)id, tile, stage, swizzle});
        }
        for (int round = 0; round < (retime ? 2 : 1); round++) {
            for (size_t k = 0; k < listed.size(); k++) {
                const int id = (int)listed[k][0];
                uint32_t tile = listed[k][1], stage = listed[k][2], swizzle = listed[k][3];
                cublasLtMatmulAlgo_t c;
                const int32_t splitk = 1;
                CB(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, T, T, CUDA_R_32F, CUDA_R_32F, id, &c));
                CB(cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile));
                CB(cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stage, sizeof stage));
                CB(cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk));
                CB(cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle));
                auto run = [&] { CB(cublasLtMatmul(lt, op, &alpha, B, la, A, lb, &beta, C, lc, C, lc, &c, ws, ws_bytes, 0)); };
                if (retime) {
                    const float reference = median_ms(gemm_ex), ms = median_ms(run);
                    printf("round %d: id %d tile %u stages %u swizzle %u: %.1f TFLOPS, cublasGemmEx %.1f: %.1f%%\n", round, id, tile,
                           stage, swizzle, flop / (ms * 1e-3) / 1e12, flop / (reference * 1e-3) / 1e12, 100.0 * reference / ms);
                    continue;
                }
                marker<<<1, 1>>>((int)k);
                run();
                CK(cudaDeviceSynchronize());
                printf("marker %zu: id %d tile %u stages %u swizzle %u\n", k, id, tile, stage, swizzle);
            }
        }
        return 0;
    }
    int config = 0;
    for (int a = 0; a < id_count; a++) {
        cublasLtMatmulAlgo_t algo;
        if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, T, T, CUDA_R_32F, CUDA_R_32F, ids[a], &algo) != CUBLAS_STATUS_SUCCESS)
            continue;
        const std::vector<uint32_t> tiles = cap_list(&algo, CUBLASLT_ALGO_CAP_TILE_IDS), stages = cap_list(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
        uint32_t swizzle_support = 0;
        size_t bytes;
        cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swizzle_support, sizeof swizzle_support, &bytes);
        for (uint32_t tile : tiles)
            for (uint32_t stage : stages)
                for (uint32_t swizzle = 0; swizzle <= (swizzle_support ? 1u : 0u); swizzle++) {
                    cublasLtMatmulAlgo_t c = algo;
                    const int32_t splitk = 1;
                    if (cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ||
                        cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stage, sizeof stage) ||
                        cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk) ||
                        cublasLtMatmulAlgoConfigSetAttribute(&c, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle))
                        continue;
                    cublasLtMatmulHeuristicResult_t r;
                    if (cublasLtMatmulAlgoCheck(lt, op, la, lb, lc, lc, &c, &r) != CUBLAS_STATUS_SUCCESS || r.workspaceSize > ws_bytes) continue;
                    auto run = [&] {
                        return cublasLtMatmul(lt, op, &alpha, B, la, A, lb, &beta, C, lc, C, lc, &c, ws, ws_bytes, 0);
                    };
                    if (run() != CUBLAS_STATUS_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) continue;
                    CK(cudaEventRecord(e0));
                    run();
                    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
                    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (ms > 20) continue; /* hopeless: not worth repeating */
                    const int reps = 5;
                    CK(cudaEventRecord(e0));
                    for (int i = 0; i < reps; i++) run();
                    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    printf("config %d: id %d tile %u stages %u swizzle %u: %.1f us %.1f TFLOPS\n", config++, ids[a], tile, stage, swizzle,
                           ms * 1000 / reps, flop / (ms / reps * 1e-3) / 1e12);
                }
    }
    return 0;
}
