/*
 * workspace.cuh: device scratch memory that grows when a problem needs more and is kept
 * otherwise (the harness's untimed warm-up and check runs make it before the timed launches):
 * split-K's planes (splitk.cuh, steps 17-20), step 20's padded copies, and the K split's sums and
 * arrival counters of the linear steps (22 on).
 */
#ifndef WORKSPACE_CUH
#define WORKSPACE_CUH

#include <stddef.h>

#include <cuda_runtime.h>

/* Slot 0: FP32 planes or sums; 1: any other scratch; 2: counters. With zeroed, memory that is
 * newly allocated starts at zero (counters that every launch puts back to zero after use). */
static void *workspace_bytes(int slot, size_t bytes, bool zeroed = false) {
    static void *ws[3] = {NULL, NULL, NULL};
    static size_t have[3] = {0, 0, 0};
    if (bytes > have[slot]) {
        cudaFree(ws[slot]);
        ws[slot] = NULL;
        have[slot] = 0;
        if (cudaMalloc(&ws[slot], bytes) != cudaSuccess) return NULL;
        if (zeroed && cudaMemset(ws[slot], 0, bytes) != cudaSuccess) return NULL;
        have[slot] = bytes;
    }
    return ws[slot];
}

#endif /* WORKSPACE_CUH */
