/* check.c: seeded inputs, the float64 CPU reference and the verifier. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* ---- number formats ------------------------------------------------------ */

uint16_t gemm_float_to_half(float f) { /* round to nearest even */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return (uint16_t)(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: Inf */
    if (absx < 0x38800000u) {                                     /* half subnormal: units of 2^-24 */
        float a;
        memcpy(&a, &absx, 4);
        return (uint16_t)(sign | (uint32_t)lrintf(a * 16777216.0f));
    }
    uint32_t h = (((absx >> 23) - 112u) << 10) | ((absx & 0x7fffffu) >> 13);
    uint32_t rest = absx & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

float gemm_half_to_float(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY)
            : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

uint16_t gemm_float_to_bf16(float f) { /* round to nearest even */
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float gemm_bf16_to_float(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

float gemm_round_to(float f, gemm_dtype t) {
    switch (t) {
    case GEMM_F16: return gemm_half_to_float(gemm_float_to_half(f));
    case GEMM_BF16: return gemm_bf16_to_float(gemm_float_to_bf16(f));
    default: return f;
    }
}

/* ---- inputs -------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void gemm_fill_random(float *x, size_t count, unsigned long long seed, gemm_dtype t) {
    uint64_t base = splitmix64(seed);
    /* Counter based, so the values do not depend on the number of threads. */
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)count; i++) {
        uint64_t r = splitmix64(base + (uint64_t)i);
        float mag = 0.25f + 0.75f * (float)((r >> 40) * (1.0 / 16777216.0)); /* [0.25, 1) */
        x[i] = gemm_round_to((r & 1u) ? -mag : mag, t);
    }
}

/* ---- error bound --------------------------------------------------------- */

double gemm_unit_roundoff(gemm_dtype t) { return t == GEMM_F32 ? ldexp(1.0, -24) : ldexp(1.0, -23); }

double gemm_error_factor(long long n, double u) { return (double)n * u / (1.0 - (double)n * u); }

/* ---- reference ----------------------------------------------------------- */

enum { REF_ROWS = 32, REF_COLS = 256, REF_DEPTH = 128 };

void gemm_reference(int m, int n, int k, float alpha, const float *a, const float *b, float beta,
                    const float *c_in, double *ref, double *mag) {
    /* B and |B| in float64 once, so the inner loop is two plain FMAs that
     * the compiler vectorizes. */
    double *bd = malloc((size_t)k * n * sizeof *bd), *babs = malloc((size_t)k * n * sizeof *babs);
    if (!bd || !babs) {
        fprintf(stderr, "error: out of host memory for the reference (%d x %d)\n", k, n);
        exit(1);
    }
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)k * n; i++) {
        bd[i] = b[i];
        babs[i] = fabs((double)b[i]);
    }

    const int row_blocks = ceil_div(m, REF_ROWS), col_blocks = ceil_div(n, REF_COLS);
    /* One task per REF_ROWS x REF_COLS block of C; the B panel of REF_DEPTH
     * rows stays in the core's L2 while all REF_ROWS rows use it. */
#pragma omp parallel for schedule(dynamic, 1)
    for (long long task = 0; task < (long long)row_blocks * col_blocks; task++) {
        const int i0 = (int)(task / col_blocks) * REF_ROWS, j0 = (int)(task % col_blocks) * REF_COLS;
        const int i1 = i0 + REF_ROWS < m ? i0 + REF_ROWS : m;
        const int j1 = j0 + REF_COLS < n ? j0 + REF_COLS : n, w = j1 - j0;
        double acc[REF_ROWS][REF_COLS], accabs[REF_ROWS][REF_COLS];
        for (int i = 0; i < i1 - i0; i++) { /* only the rows and columns this block has */
            memset(acc[i], 0, (size_t)w * sizeof acc[i][0]);
            memset(accabs[i], 0, (size_t)w * sizeof accabs[i][0]);
        }
        for (int p0 = 0; p0 < k; p0 += REF_DEPTH) {
            const int p1 = p0 + REF_DEPTH < k ? p0 + REF_DEPTH : k;
            for (int i = i0; i < i1; i++) {
                double *restrict row = acc[i - i0], *restrict rowabs = accabs[i - i0];
                for (int p = p0; p < p1; p++) {
                    const double av = a[(size_t)i * k + p], aa = fabs(av);
                    const double *restrict brow = bd + (size_t)p * n + j0;
                    const double *restrict barow = babs + (size_t)p * n + j0;
                    for (int j = 0; j < w; j++) {
                        row[j] += av * brow[j];
                        rowabs[j] += aa * barow[j];
                    }
                }
            }
        }
        for (int i = i0; i < i1; i++)
            for (int j = j0; j < j1; j++) {
                const size_t idx = (size_t)i * n + j;
                const double cin = beta != 0.0f ? (double)c_in[idx] : 0.0;
                ref[idx] = (double)alpha * acc[i - i0][j - j0] + (double)beta * cin;
                mag[idx] = fabs((double)alpha) * accabs[i - i0][j - j0] + fabs((double)beta) * fabs(cin);
            }
    }
    free(bd);
    free(babs);
}

/* ---- the epilogue -------------------------------------------------------- */

double gemm_activation(gemm_epilogue e, double x) {
    switch (e) {
    case GEMM_EPI_BIAS_GELU: /* the tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
        return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case GEMM_EPI_BIAS_SILU: return x / (1.0 + exp(-x));
    default: return x;
    }
}

static double activation_slope(gemm_epilogue e) {
    return e == GEMM_EPI_BIAS_GELU ? 1.13 : e == GEMM_EPI_BIAS_SILU ? 1.10 : 1.0;
}

void gemm_apply_epilogue(int m, int n, const float *bias, gemm_epilogue e, double *ref,
                         double *mag) {
    if (e == GEMM_EPI_NONE) return;
    const double slope = activation_slope(e);
#pragma omp parallel for schedule(static)
    for (long long idx = 0; idx < (long long)m * n; idx++) {
        const double b = bias[idx % n];
        ref[idx] = gemm_activation(e, ref[idx] + b);
        mag[idx] = slope * (mag[idx] + fabs(b));
    }
}

double gemm_out_roundoff(gemm_out out) {
    return out == GEMM_OUT_BF16 ? ldexp(1.0, -8) : out == GEMM_OUT_F16 ? ldexp(1.0, -11) : 0.0;
}

/* ---- verification -------------------------------------------------------- */

gemm_verdict gemm_verify(int m, int n, const float *got, const double *ref, const double *mag,
                         double factor, FILE *report, int max_report) {
    return gemm_verify_rounded(m, n, got, ref, mag, factor, 0.0, report, max_report);
}

gemm_verdict gemm_verify_rounded(int m, int n, const float *got, const double *ref,
                                 const double *mag, double factor, double out_u, FILE *report,
                                 int max_report) {
    gemm_verdict v = {0, 0, 0.0};
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            const size_t idx = (size_t)i * n + j;
            const double g = got[idx];
            const double bound = factor * mag[idx] + out_u * fabs(ref[idx]) + GEMM_ABS_FLOOR;
            const double err = fabs(g - ref[idx]);
            const int finite = isfinite(g);
            if (finite && err / bound > v.worst_ratio) v.worst_ratio = err / bound;
            if (finite && err <= bound) continue;
            v.failed++;
            v.nonfinite += !finite;
            if (report && v.failed <= max_report)
                fprintf(report, "  C(%d, %d): got %.9g, want %.9g, |err| %.3g > bound %.3g\n", i, j, g,
                        ref[idx], err, bound);
        }
    return v;
}

double gemm_rms_error(int m, int n, const float *got, const double *ref, const double *mag) {
    double sum = 0.0;
    long long count = 0;
    for (size_t idx = 0; idx < (size_t)m * n; idx++) {
        if (!isfinite(got[idx]) || !(mag[idx] > 0.0)) continue;
        const double e = ((double)got[idx] - ref[idx]) / mag[idx];
        sum += e * e;
        count++;
    }
    return count ? sqrt(sum / (double)count) : 0.0;
}

double gemm_rms_limit(long long k, double u) {
    const double scale = sqrt((double)k) / 4.0;
    return (scale > 4.0 ? scale : 4.0) * u;
}

double gemm_rms_limit_for(long long elements, long long k, double u) {
    return gemm_rms_limit(k, u) * (elements >= GEMM_RMS_MIN_ELEMENTS ? 1.0 : GEMM_RMS_FEW_FACTOR);
}
