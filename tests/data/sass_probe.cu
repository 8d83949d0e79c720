// A tiny kernel for the SASS counter's test (scripts/test.py): one 128-bit
// shared load and FMAs, so the counter must find LDS.128 and FFMA.
__global__ void probe(const float4 *in, float *out, float a) {
    __shared__ float4 tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    const float4 v = tile[63 - threadIdx.x];
    out[threadIdx.x] = fmaf(v.x, a, fmaf(v.y, a, fmaf(v.z, a, v.w)));
}
