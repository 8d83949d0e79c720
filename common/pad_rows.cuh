/*
 * pad_rows.cuh: the copies of A and B in rows of whole 128-byte lines that the tile kernels read
 * where an operand's rows are not 16-byte units (steps 20 and 32), as steps 32-44 defined them in
 * gemm.cu; a header from step 45 on. Included after plan.h (PAD_A, PAD_B, COPY_PITCH).
 */
#pragma once

/* dst (rows x ld, ld a multiple of 8) = src (rows x cols, 16-bit elements), zeros past cols: a
 * thread writes 8 elements, one 16-byte store. Both operands in one launch: A's units first.
 * Launched plainly: it overwrites the copies the last call's tile kernel may still read. */
struct pad_job {
    const uint16_t *src;
    uint16_t *dst;
    int rows, cols, ld;
};
__global__ void __launch_bounds__(256) pad_rows(pad_job a, pad_job b, size_t a_units,
                                                size_t units) {
    griddep_launch_dependents(); /* the tile kernel launches and starts its prologue meanwhile */
    const size_t unit = blockIdx.x * (size_t)256 + threadIdx.x;
    if (unit >= units) return;
    const bool in_a = unit < a_units; /* field by field: a reference puts a and b on the stack */
    const uint16_t *const src = in_a ? a.src : b.src;
    uint16_t *const dst = in_a ? a.dst : b.dst;
    const int cols = in_a ? a.cols : b.cols, ld = in_a ? a.ld : b.ld;
    const size_t u = in_a ? unit : unit - a_units, row = u / (ld / 8), col = u % (ld / 8) * 8;
    uint32_t w[4] = {}; /* element pairs, packed so that the store is one st.global.v4 */
#pragma unroll
    for (int e = 0; e < 8; e++)
        if (col + e < cols) w[e / 2] |= (uint32_t)src[row * cols + col + e] << 16 * (e % 2);
    reinterpret_cast<uint4 *>(dst)[(row * ld + col) / 8] = make_uint4(w[0], w[1], w[2], w[3]);
}

/* A and B as the tensor maps read them: the operands, or their copies (pad: rows of whole 128-byte
 * lines, COPY_PITCH elements, which holds WIDE_B's 64), made by one pad_rows launch. */
static cudaError_t padded_operands(const gemm_args *p, int pad, const void **a, int *lda,
                                   const void **b, int *ldb) {
    *a = p->a, *b = p->b, *lda = p->k, *ldb = p->n;
    if (!(pad & (PAD_A | PAD_B))) return cudaSuccess;
    if (pad & PAD_A) *lda = ceil_div(p->k, COPY_PITCH) * COPY_PITCH;
    if (pad & PAD_B) *ldb = ceil_div(p->n, COPY_PITCH) * COPY_PITCH;
    const size_t a_units = pad & PAD_A ? (size_t)p->m * *lda / 8 : 0;
    const size_t b_units = pad & PAD_B ? (size_t)p->k * *ldb / 8 : 0;
    const size_t a_bytes = ceil_div(a_units * 16, (size_t)256) * 256; /* B's copy on 256 bytes */
    unsigned char *ws = (unsigned char *)workspace_bytes(1, a_bytes + b_units * 16);
    if (!ws) return cudaErrorMemoryAllocation;
    const pad_job ja = {(const uint16_t *)p->a, (uint16_t *)ws, p->m, p->k, *lda};
    const pad_job jb = {(const uint16_t *)p->b, (uint16_t *)(ws + a_bytes), p->k, p->n, *ldb};
    pad_rows<<<(unsigned)ceil_div(a_units + b_units, (size_t)256), 256>>>(ja, jb, a_units,
                                                                          a_units + b_units);
    if (pad & PAD_A) *a = ws;
    if (pad & PAD_B) *b = ws + a_bytes;
    return cudaGetLastError();
}
