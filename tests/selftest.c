#define _POSIX_C_SOURCE 200809L /* mkstemp */
/*
 * Harness self-tests: run on the CPU, no GPU needed. Prints one TAP-style
 * line per test ("ok - name" / "not ok - name: why"); scripts/test.py
 * counts them.
 *
 *     make build/selftest && ./build/selftest
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

static int failures;

static void report(int ok, const char *name, const char *fmt, ...) {
    if (ok) {
        printf("ok - %s\n", name);
        return;
    }
    failures++;
    printf("not ok - %s: ", name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* ref and mag of a small problem, the plain way. */
static void triple_loop(int m, int n, int k, float alpha, const float *a, const float *b, float beta,
                        const float *c, double *ref, double *mag) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, sa = 0;
            for (int p = 0; p < k; p++) {
                s += (double)a[i * k + p] * b[p * n + j];
                sa += fabs((double)a[i * k + p] * b[p * n + j]);
            }
            ref[i * n + j] = alpha * s + beta * (double)c[i * n + j];
            mag[i * n + j] = fabs(alpha) * sa + fabs(beta) * fabs((double)c[i * n + j]);
        }
}

typedef struct {
    int m, n, k;
    float *a, *b, *c;
    double *ref, *mag;
    float *got;
} problem;

static problem make_problem(int m, int n, int k, float alpha, float beta, unsigned long long seed) {
    problem p = {m, n, k, malloc(sizeof(float) * m * k), malloc(sizeof(float) * k * n),
                 malloc(sizeof(float) * m * n), malloc(sizeof(double) * m * n), malloc(sizeof(double) * m * n),
                 malloc(sizeof(float) * m * n)};
    gemm_fill_random(p.a, (size_t)m * k, seed, GEMM_F32);
    gemm_fill_random(p.b, (size_t)k * n, seed + 1, GEMM_F32);
    gemm_fill_random(p.c, (size_t)m * n, seed + 2, GEMM_F32);
    gemm_reference(m, n, k, alpha, p.a, p.b, beta, p.c, p.ref, p.mag);
    for (int i = 0; i < m * n; i++) p.got[i] = (float)p.ref[i];
    return p;
}

static void free_problem(problem *p) {
    free(p->a); free(p->b); free(p->c); free(p->ref); free(p->mag); free(p->got);
}

static void test_reference(void) {
    /* Odd sizes that straddle the reference's blocking (32 x 256 x 128). */
    const int m = 37, n = 300, k = 133;
    const float alpha = 1.5f, beta = -0.75f;
    problem p = make_problem(m, n, k, alpha, beta, 7);
    double *ref = malloc(sizeof(double) * m * n), *mag = malloc(sizeof(double) * m * n);
    triple_loop(m, n, k, alpha, p.a, p.b, beta, p.c, ref, mag);
    double worst = 0;
    int all_finite = 1; /* fmax drops a NaN difference: a reference that wrote NaN must fail */
    for (int i = 0; i < m * n; i++) {
        all_finite &= isfinite(p.ref[i]) && isfinite(p.mag[i]);
        worst = fmax(worst, fabs(p.ref[i] - ref[i]) / mag[i]);
        worst = fmax(worst, fabs(p.mag[i] - mag[i]) / mag[i]);
    }
    report(all_finite && worst < 1e-13, "reference equals a plain triple loop (37x300x133, alpha 1.5, beta -0.75)",
           "relative difference %g, every value finite: %d", worst, all_finite);

    /* beta == 0 must not read C: NaN in C may not reach the result. */
    for (int i = 0; i < m * n; i++) p.c[i] = NAN;
    gemm_reference(m, n, k, alpha, p.a, p.b, 0.0f, p.c, p.ref, p.mag);
    int finite = 1;
    for (int i = 0; i < m * n; i++) finite &= isfinite(p.ref[i]) && isfinite(p.mag[i]);
    report(finite, "reference with beta = 0 does not read C", "NaN from C reached the reference");
    free(ref); free(mag);
    free_problem(&p);
}

static void test_inputs(void) {
    float x[4096], y[4096];
    gemm_fill_random(x, 4096, 3, GEMM_F32);
    gemm_fill_random(y, 4096, 3, GEMM_F32);
    int same = !memcmp(x, y, sizeof x), nonzero = 1, signs[2] = {0, 0};
    for (int i = 0; i < 4096; i++) {
        nonzero &= fabsf(x[i]) >= 0.25f && fabsf(x[i]) < 1.0f;
        signs[x[i] < 0]++;
    }
    report(same && nonzero && signs[0] > 1800 && signs[1] > 1800,
           "inputs: seeded, signed, never zero", "same=%d nonzero=%d +%d -%d", same, nonzero, signs[0], signs[1]);
    gemm_fill_random(y, 4096, 4, GEMM_F32);
    report(memcmp(x, y, sizeof x) != 0, "inputs: another seed gives other values", "seeds 3 and 4 agree");
}

static void test_verifier(void) {
    const int m = 33, n = 17, k = 129;
    problem p = make_problem(m, n, k, 1.0f, 0.0f, 11);
    const double factor = gemm_error_factor(k + 2, gemm_unit_roundoff(GEMM_F32));
    gemm_verdict v = gemm_verify(m, n, p.got, p.ref, p.mag, factor, NULL, 0);
    report(v.failed == 0, "verifier passes the rounded reference", "%lld failures", v.failed);

    /* A plain float loop in another summation order must pass: the bound is not too tight. */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int q = k - 1; q >= 0; q--) s += p.a[i * k + q] * p.b[q * n + j];
            p.got[i * n + j] = s;
        }
    v = gemm_verify(m, n, p.got, p.ref, p.mag, factor, NULL, 0);
    report(v.failed == 0, "verifier passes a float32 loop summed backwards", "%lld failures", v.failed);

    struct { const char *name; float value; int nonfinite; } plants[] = {
        {"verifier catches a planted wrong element", 0.0f, 0},
        {"verifier catches NaN", NAN, 1},
        {"verifier catches +Inf", INFINITY, 1},
        {"verifier catches an unwritten (NaN-poisoned) element", 0.0f, 1},
    };
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < m * n; i++) p.got[i] = (float)p.ref[i];
        const int at = 5 * n + 9;
        float planted = plants[t].value;
        if (t == 0) planted = (float)(p.ref[at] + 4.0 * factor * p.mag[at]); /* 4x the bound: wrong */
        if (t == 3) memset(&planted, 0xff, sizeof planted);                 /* the harness's poison */
        p.got[at] = planted;
        v = gemm_verify(m, n, p.got, p.ref, p.mag, factor, NULL, 0);
        report(v.failed == 1 && v.nonfinite == plants[t].nonfinite, plants[t].name,
               "failed=%lld nonfinite=%lld", v.failed, v.nonfinite);
    }
    /* Half the bound off is still right. */
    for (int i = 0; i < m * n; i++) p.got[i] = (float)(p.ref[i] + 0.5 * factor * p.mag[i]);
    v = gemm_verify(m, n, p.got, p.ref, p.mag, factor, NULL, 0);
    report(v.failed == 0, "verifier accepts errors within the bound", "%lld failures", v.failed);
    free_problem(&p);
}

static void test_bound(void) {
    const double u = gemm_unit_roundoff(GEMM_F32);
    int monotone = 1;
    for (long long k = 1; k < (1 << 20); k *= 2) monotone &= gemm_error_factor(2 * k, u) > gemm_error_factor(k, u);
    const double g4096 = gemm_error_factor(4096, u);
    report(monotone && fabs(gemm_error_factor(1, u) - u / (1 - u)) < 1e-20 &&
               fabs(g4096 - 4096 * u / (1 - 4096 * u)) <= 1e-12 * g4096,
           "bound g(K) = K u / (1 - K u) grows with K", "not monotone or wrong at K = 1 or 4096");
    /* An error that K = 4096 allows is wrong at K = 64: one element through the verifier. */
    const double mag = 10.0, ref = 3.0, err = 0.5 * gemm_error_factor(4096, u) * mag;
    const float got = (float)(ref + err);
    const double diff = (double)got - ref; /* what the verifier sees after rounding to float */
    gemm_verdict at4096 = gemm_verify(1, 1, &got, &ref, &mag, gemm_error_factor(4096, u), NULL, 0);
    gemm_verdict at64 = gemm_verify(1, 1, &got, &ref, &mag, gemm_error_factor(64, u), NULL, 0);
    report(diff > 0 && at4096.failed == 0 && at64.failed == 1, "an error allowed at K = 4096 fails at K = 64",
           "K = 4096: %lld failed, K = 64: %lld failed", at4096.failed, at64.failed);
    report(gemm_unit_roundoff(GEMM_F16) > gemm_unit_roundoff(GEMM_F32), "tensor-core steps get a looser u",
           "u(fp16) <= u(fp32)");
}

/* x rounded to TF32 (8-bit exponent, 10-bit mantissa), to nearest, ties to even. */
static float round_tf32(float x) {
    uint32_t b;
    memcpy(&b, &x, 4);
    b = (b + 0x0fffu + ((b >> 13) & 1u)) & ~0x1fffu;
    memcpy(&x, &b, 4);
    return x;
}

static void test_rms(void) {
    /* 64 x 64 with K = 4096: a correct FP32 product, accumulated in the least favourable order
     * (one running sum), passes the statistical check; the same with TF32-rounded inputs, whose
     * every element still passes the per-element bound, fails it. */
    const int m = 64, n = 64, k = 4096;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    float *c32 = malloc(sizeof(float) * m * n), *ctf = malloc(sizeof(float) * m * n);
    double *ref = malloc(sizeof(double) * m * n), *mag = malloc(sizeof(double) * m * n);
    gemm_fill_random(a, (size_t)m * k, 11, GEMM_F32);
    gemm_fill_random(b, (size_t)k * n, 12, GEMM_F32);
    gemm_reference(m, n, k, 1.0f, a, b, 0.0f, NULL, ref, mag);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s32 = 0.0f, stf = 0.0f;
            for (int p = 0; p < k; p++) {
                s32 = fmaf(a[i * k + p], b[p * n + j], s32);
                stf = fmaf(round_tf32(a[i * k + p]), round_tf32(b[p * n + j]), stf);
            }
            c32[i * n + j] = s32;
            ctf[i * n + j] = stf;
        }
    const double u = gemm_unit_roundoff(GEMM_F32), limit = gemm_rms_limit(k, u);
    const double rms32 = gemm_rms_error(m, n, c32, ref, mag), rmstf = gemm_rms_error(m, n, ctf, ref, mag);
    const gemm_verdict vtf = gemm_verify(m, n, ctf, ref, mag, gemm_error_factor(k + 2, u), NULL, 0);
    report(rms32 <= limit, "a correct FP32 product passes the RMS check at K = 4096",
           "RMS %.3g u against the limit %.3g u", rms32 / u, limit / u);
    report(vtf.failed == 0 && rmstf > limit,
           "a product of TF32-rounded inputs passes the per-element bound but fails the RMS check",
           "%lld elements out of bound; RMS %.3g u against the limit %.3g u", vtf.failed, rmstf / u,
           limit / u);
    printf("# RMS error at K = 4096: FP32 %.2f u, TF32 inputs %.1f u, limit %.1f u\n", rms32 / u,
           rmstf / u, limit / u);
    free(a), free(b), free(c32), free(ctf), free(ref), free(mag);
}

/* C of fewer than 256 elements: C computed right (one FP32 running sum, the least favourable
 * order) passes the statistical check at its wider limit; a C wrong by less than the per-element
 * bound fails it: zeros at 1 x 1 x 2^20, the last of K = 4096 terms left out at 13 x 1. */
static double sequential_fp32(const float *a, const float *b, int i, int j, int n, int k) {
    float s = 0.0f;
    for (int p = 0; p < k; p++) s = fmaf(a[(size_t)i * k + p], b[(size_t)p * n + j], s);
    return s;
}
static void test_rms_few(void) {
    const double u = gemm_unit_roundoff(GEMM_F32);
    report(gemm_rms_limit_for(256, 4096, u) == gemm_rms_limit(4096, u) &&
               gemm_rms_limit_for(255, 4096, u) == GEMM_RMS_FEW_FACTOR * gemm_rms_limit(4096, u),
           "the RMS limit widens below 256 elements", "limits %g u, %g u at 256 and 255 elements",
           gemm_rms_limit_for(256, 4096, u) / u, gemm_rms_limit_for(255, 4096, u) / u);
    const int shapes[][3] = {{1, 1, 1 << 20}, {13, 1, 4096}, {7, 8, 4500}, {5, 3, 3001}, {33, 7, 129}};
    int right_pass = 1;
    double worst = 0.0;
    for (int s = 0; s < 5; s++) {
        const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        problem p = make_problem(m, n, k, 1.0f, 0.0f, 40 + s);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) p.got[i * n + j] = (float)sequential_fp32(p.a, p.b, i, j, n, k);
        const double limit = gemm_rms_limit_for((long long)m * n, k, u);
        const double rms = gemm_rms_error(m, n, p.got, p.ref, p.mag);
        right_pass &= rms <= limit;
        worst = rms / limit > worst ? rms / limit : worst;
        if (s == 0) { /* C = 0 */
            const float zero = 0.0f;
            const gemm_verdict v = gemm_verify(1, 1, &zero, p.ref, p.mag, gemm_error_factor(k + 2, u),
                                               NULL, 0);
            const double rms0 = gemm_rms_error(1, 1, &zero, p.ref, p.mag);
            report(v.failed == 0 && rms0 > limit,
                   "at 1 x 1 x 2^20 a C of zero passes the per-element bound but fails the RMS check",
                   "%lld out of bound; RMS %.3g u against %.3g u", v.failed, rms0 / u, limit / u);
            printf("# 1 x 1 x 2^20: |ref| %.1f, the bound %.1f\n", fabs(p.ref[0]),
                   gemm_error_factor(k + 2, u) * p.mag[0]);
        }
        if (s == 1) { /* the last term left out */
            for (int i = 0; i < m; i++)
                p.got[i] = (float)(p.ref[i] - (double)p.a[(size_t)i * k + k - 1] * p.b[k - 1]);
            const double rms1 = gemm_rms_error(m, n, p.got, p.ref, p.mag);
            report(rms1 > limit, "at 13 x 1 x 4096 a C without its last term fails the RMS check",
                   "RMS %.3g u against %.3g u", rms1 / u, limit / u);
        }
        free_problem(&p);
    }
    report(right_pass, "a correct FP32 C of fewer than 256 elements passes the RMS check",
           "RMS at %.2f of the limit", worst);
    printf("# correct FP32 C below 256 elements: RMS at most %.3f of the limit\n", worst);
}

static void test_conversions(void) {
    int ok = gemm_float_to_half(1.0f) == 0x3c00 && gemm_float_to_half(-2.0f) == 0xc000 &&
             gemm_float_to_half(65504.0f) == 0x7bff && gemm_float_to_half(65520.0f) == 0x7c00 &&
             gemm_float_to_half(1.0f + ldexpf(1, -11)) == 0x3c00 &&                  /* tie to even */
             gemm_float_to_half(1.0f + 3 * ldexpf(1, -11)) == 0x3c02 &&              /* tie to even, up */
             gemm_float_to_half(ldexpf(1, -24)) == 0x0001 && gemm_half_to_float(0x3555) == 0.333251953125f;
    report(ok, "fp16 conversion rounds to nearest even", "a known value converts wrongly");
    ok = gemm_float_to_bf16(1.0f) == 0x3f80 && gemm_float_to_bf16(1.0f + ldexpf(1, -8)) == 0x3f80 &&
         gemm_float_to_bf16(1.0f + 3 * ldexpf(1, -8)) == 0x3f82 && gemm_round_to(-0.3f, GEMM_BF16) == -0.30078125f;
    report(ok, "bf16 conversion rounds to nearest even", "a known value converts wrongly");
}

static void test_cli(void) {
    struct { const char *args; int rc; int m, n, k; } table[] = {
        {"", 0, 4096, 4096, 4096},
        {"2048", 0, 2048, 2048, 2048},
        {"2048 1024", 0, 2048, 1024, 1024},
        {"7 33 129 --reps 3 --warmup 0 --alpha 2 --beta -1 --seed 9 --no-check --cublas --csv", 0, 7, 33, 129},
        {"--reps=0 5 6 7", 0, 5, 6, 7},
        {"--shapes 1x1x1,33x7x129", 0, 1, 1, 1},
        {"--bogus", 2, 0, 0, 0},
        {"0 5 5", 2, 0, 0, 0},
        {"-3", 2, 0, 0, 0},
        {"12abc", 2, 0, 0, 0},
        {"99999999999", 2, 0, 0, 0},
        {"1 2 3 4", 2, 0, 0, 0},
        {"65536 65536 8", 2, 0, 0, 0},
        {"4 4 2000000", 2, 0, 0, 0},
        {"--reps", 2, 0, 0, 0},
        {"--reps -1", 2, 0, 0, 0},
        {"--alpha nan", 2, 0, 0, 0},
        {"--beta 1e39", 2, 0, 0, 0},
        {"--dtype fp16", 2, 0, 0, 0},
        {"--dtype int8", 2, 0, 0, 0},
        {"--shapes 2x3", 2, 0, 0, 0},
        {"--shapes 1x1x1 8", 2, 0, 0, 0},
        {"--shapes 1x1x1,2x2x2 --save /tmp/x", 2, 0, 0, 0},
        {"--csv=1", 2, 0, 0, 0},
        {"1073741824 1 1", 0, 1073741824, 1, 1},
        {"1 1073741825 1", 2, 0, 0, 0},
        {"2147483647 1 1", 2, 0, 0, 0},
        {"--layout NT --out bf16 --epilogue bias_gelu 8", 0, 8, 8, 8},
        {"--layout XY", 2, 0, 0, 0},
        {"--out int8", 2, 0, 0, 0},
        {"--epilogue relu", 2, 0, 0, 0},
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        char buf[256], *argv[32], err[256];
        int argc = 0;
        argv[argc++] = "gemm";
        snprintf(buf, sizeof buf, "%s", table[t].args);
        for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) argv[argc++] = tok;
        gemm_options o;
        err[0] = '\0';
        int rc = gemm_parse_args(argc, argv, GEMM_F32, &o, err, sizeof err);
        int ok = rc == table[t].rc && (rc != 0 || (o.shapes[0][0] == table[t].m && o.shapes[0][1] == table[t].n &&
                                                   o.shapes[0][2] == table[t].k));
        ok &= rc == 0 || (err[0] && !strchr(err, '\n')); /* a usage error gets a one-line reason */
        char name[300];
        snprintf(name, sizeof name, "command line '%s' -> %s", table[t].args, table[t].rc ? "usage error" : "accepted");
        report(ok, name, "rc %d, shape %dx%dx%d, message '%s'", rc, o.shapes[0][0], o.shapes[0][1], o.shapes[0][2], err);
    }
    /* The parsed flags land where they should. */
    char *argv[] = {"gemm", "7", "--reps", "3", "--alpha", "2", "--beta", "-1", "--no-check", "--cublas", "--csv"};
    gemm_options o;
    char err[256];
    int rc = gemm_parse_args(11, argv, GEMM_F32, &o, err, sizeof err);
    report(rc == 0 && o.reps == 3 && o.alpha == 2.0f && o.beta == -1.0f && !o.check && o.cublas && o.csv,
           "command line flags are stored", "rc %d", rc);
    char *argv2[] = {"gemm", "--dtype", "bf16"};
    rc = gemm_parse_args(3, argv2, GEMM_F16 | GEMM_BF16, &o, err, sizeof err);
    report(rc == 0 && o.dtype == GEMM_BF16, "tensor-core steps take --dtype bf16", "rc %d", rc);
    report(rc == 0 && o.layout == GEMM_NN && o.out == GEMM_OUT_F32 && o.epilogue == GEMM_EPI_NONE,
           "the linear layer's options default to NN, f32, none", "rc %d", rc);
    char *argv3[] = {"gemm", "--layout", "TN", "--out=fp16", "--epilogue", "bias_silu"};
    rc = gemm_parse_args(6, argv3, GEMM_F16 | GEMM_BF16, &o, err, sizeof err);
    report(rc == 0 && o.layout == GEMM_TN && o.out == GEMM_OUT_F16 && o.epilogue == GEMM_EPI_BIAS_SILU,
           "--layout, --out and --epilogue are stored", "rc %d", rc);
    /* a step refuses what it does not take, in one line naming what it takes */
    rc = gemm_check_options(&o, 0, 0, 0, err, sizeof err);
    report(rc == 2 && !strcmp(err, "--layout TN: this step takes NN"),
           "a step without options refuses --layout TN", "rc %d, '%s'", rc, err);
    rc = gemm_check_options(&o, GEMM_NT | GEMM_TN, GEMM_OUT_BF16, GEMM_EPI_BIAS, err, sizeof err);
    report(rc == 2 && !strcmp(err, "--out fp16: this step writes f32, bf16"),
           "a step that writes bf16 refuses --out fp16", "rc %d, '%s'", rc, err);
    rc = gemm_check_options(&o, GEMM_TN, GEMM_OUT_F16, GEMM_EPI_BIAS_SILU, err, sizeof err);
    report(rc == 0, "a step that takes them accepts them", "rc %d, '%s'", rc, err);
    o.beta = 0.5f; /* a 16-bit C is never read: beta must be 0 */
    rc = gemm_check_options(&o, GEMM_TN, GEMM_OUT_F16, GEMM_EPI_BIAS_SILU, err, sizeof err);
    report(rc == 2 && !strcmp(err, "--beta 0.5 with --out fp16: a 16-bit C is written, never read "
                                   "(beta must be 0)"),
           "--beta with a 16-bit C is refused", "rc %d, '%s'", rc, err);
    o.beta = 0.0f; /* a 16-bit C has the inputs' type */
    o.dtype = GEMM_BF16;
    rc = gemm_check_options(&o, GEMM_TN, GEMM_OUT_F16, GEMM_EPI_BIAS_SILU, err, sizeof err);
    report(rc == 2 && !strcmp(err, "--out fp16 with --dtype bf16: a 16-bit C has the inputs' type"),
           "--out fp16 with bf16 inputs is refused", "rc %d, '%s'", rc, err);
}

static void test_epilogue(void) {
    /* GELU in its tanh form and SiLU, against values computed in Python */
    const double g1 = gemm_activation(GEMM_EPI_BIAS_GELU, 1.0);
    const double gm3 = gemm_activation(GEMM_EPI_BIAS_GELU, -3.0);
    const double s1 = gemm_activation(GEMM_EPI_BIAS_SILU, 1.0);
    const double sm3 = gemm_activation(GEMM_EPI_BIAS_SILU, -3.0);
    report(fabs(g1 - 0.8411919906082768) < 1e-15 && fabs(gm3 + 0.0036373920817729943) < 1e-15 &&
               fabs(s1 - 0.7310585786300049) < 1e-15 && fabs(sm3 + 0.14227761953270035) < 1e-15 &&
               gemm_activation(GEMM_EPI_BIAS, -2.5) == -2.5,
           "GELU (tanh form) and SiLU", "%.17g %.17g %.17g %.17g", g1, gm3, s1, sm3);
    /* the bias is per column, then the activation; mag carries the bound through its slope */
    double ref[6] = {1.0, -2.0, 0.5, 3.0, 0.0, -1.0}, mag[6] = {1.0, 2.0, 0.5, 3.0, 1.0, 1.0};
    const float bias[3] = {0.5f, -1.0f, 2.0f}; /* a 2 x 3 C */
    gemm_apply_epilogue(2, 3, bias, GEMM_EPI_BIAS_GELU, ref, mag);
    int ok = 1;
    const double pre[6] = {1.5, -3.0, 2.5, 3.5, -1.0, 1.0};
    for (int i = 0; i < 6; i++) ok &= ref[i] == gemm_activation(GEMM_EPI_BIAS_GELU, pre[i]);
    report(ok && fabs(mag[1] - 1.13 * 3.0) < 1e-12 && fabs(mag[3] - 1.13 * 3.5) < 1e-12,
           "the epilogue adds bias[j] to column j, then activates", "%g %g %g", ref[1], ref[3], mag[1]);
    double none[2] = {1.0, 2.0}, none_mag[2] = {1.0, 2.0};
    gemm_apply_epilogue(1, 2, NULL, GEMM_EPI_NONE, none, none_mag);
    report(none[0] == 1.0 && none_mag[1] == 2.0, "no epilogue leaves the reference as it is", "");
    /* a C stored in bf16 passes only with its rounding in the bound */
    const double r = 1.0 / 3.0, mg = 1.0;
    const float got = gemm_round_to((float)r, GEMM_BF16);
    const double factor = gemm_error_factor(10, gemm_unit_roundoff(GEMM_BF16));
    gemm_verdict strict = gemm_verify(1, 1, &got, &r, &mg, factor, NULL, 0);
    gemm_verdict rounded =
        gemm_verify_rounded(1, 1, &got, &r, &mg, factor, gemm_out_roundoff(GEMM_OUT_BF16), NULL, 0);
    const float off = (float)r * (1.0f + 3.0f / 256.0f); /* 3 bf16 ulps away */
    gemm_verdict wrong =
        gemm_verify_rounded(1, 1, &off, &r, &mg, factor, gemm_out_roundoff(GEMM_OUT_BF16), NULL, 0);
    report(strict.failed == 1 && rounded.failed == 0 && wrong.failed == 1,
           "a bf16 C passes with its rounding in the bound, and 3 ulps off fails", "%lld %lld %lld",
           strict.failed, rounded.failed, wrong.failed);
}

static void test_npy(void) {
    char path[] = "/tmp/gemm_selftest_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    float x[3 * 5];
    for (int i = 0; i < 15; i++) x[i] = 0.5f * i - 3.0f;
    int rows = 0, cols = 0;
    float *y = fd >= 0 && gemm_write_npy(path, x, 3, 5) == 0 ? gemm_read_npy(path, &rows, &cols) : NULL;
    report(y && rows == 3 && cols == 5 && !memcmp(x, y, sizeof x), ".npy output reads back", "mismatch");
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f) { fseek(f, 0, SEEK_END); size = ftell(f); fclose(f); }
    report(size == 128 + 15 * 4, ".npy header is padded to 64 bytes", "file size %ld", size);
    free(y);
    remove(path);
}

int main(void) {
    test_reference();
    test_inputs();
    test_verifier();
    test_bound();
    test_rms();
    test_rms_few();
    test_conversions();
    test_cli();
    test_epilogue();
    test_npy();
    return failures ? 1 : 0;
}
