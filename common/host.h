/*
 * host.h: the harness's CPU-only parts (no CUDA), so that tests/selftest.c
 * can test them on a machine without a GPU.
 */
#ifndef GEMM_HOST_H
#define GEMM_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm.h"

/* ---- command line (cli.c) ---------------------------------------------- */

enum { GEMM_MAX_SHAPES = 64 };

/* Each of M*K, K*N and M*N must stay below 2^31 so that the kernels may index
 * with int; M and N at most 2^30 so that a tile count, ceil_div(M, BM) = (M + BM - 1) / BM
 * in int, cannot overflow; K is capped so that the error bound g(K) stays meaningful. */
#define GEMM_MAX_ELEMENTS 2147483647LL
#define GEMM_MAX_MN (1 << 30)
#define GEMM_MAX_K (1 << 20)

typedef struct {
    int shapes[GEMM_MAX_SHAPES][3]; /* m, n, k */
    int nshapes;
    int reps;       /* timed repetitions; -1: chosen from the first timings; 0: no timing */
    int warmup;
    float alpha, beta;
    unsigned long long seed;
    int check;      /* verify against the CPU reference */
    int cublas;     /* time cuBLAS on the same shape */
    int csv;
    int help;
    gemm_dtype dtype;
    const char *save_dir;
    const char *path; /* --path NAME, checked against the step's paths by the harness */
    int plan;         /* --plan: print what each shape would launch, touch no GPU */
    int sms;          /* --sms N: the SM count --plan assumes (0: this GPU's, or 132) */
    gemm_layout layout;     /* --layout NN|NT|TN|TT (default NN) */
    gemm_out out;           /* --out f32|bf16|fp16 (default f32) */
    gemm_epilogue epilogue; /* --epilogue none|bias|bias_gelu|bias_silu (default none) */
    int unfused;            /* --unfused: the baseline's activation as a kernel of its own */
} gemm_options;

/* Fills *o from argv. Returns 0, or 2 with a one-line reason in err.
 * step_dtypes is the step's gemm_step.dtypes (which --dtype values it takes). */
int gemm_parse_args(int argc, char **argv, unsigned step_dtypes, gemm_options *o,
                    char *err, size_t errlen);
void gemm_usage(FILE *f, const char *prog, unsigned step_dtypes);
const char *gemm_dtype_name(gemm_dtype t);
/* 0, or 2 with a one-line reason in err: a --layout, --out or --epilogue of o that the step does
 * not take (its gemm_step.layouts, outs and epilogues; 0: the defaults only). */
/* "layout=NT out=bf16 epilogue=bias_gelu": the options as a run prints them (a static buffer) */
const char *gemm_linear_name(gemm_layout layout, gemm_out out, gemm_epilogue epilogue);
int gemm_check_options(const gemm_options *o, unsigned layouts, unsigned outs, unsigned epilogues,
                       char *err, size_t errlen);

/* ---- inputs, reference, verification (check.c) ------------------------- */

/* Seeded values in +-[0.25, 1): signed, never zero, exactly representable
 * after rounding to the step's input type (the rounded value is what the
 * reference uses). */
void gemm_fill_random(float *x, size_t count, unsigned long long seed, gemm_dtype t);
uint16_t gemm_float_to_half(float f);
uint16_t gemm_float_to_bf16(float f);
float gemm_half_to_float(uint16_t h);
float gemm_bf16_to_float(uint16_t h);
float gemm_round_to(float f, gemm_dtype t);

/* Unit roundoff of the accumulation (2^-24 for FP32 FFMA; 2^-23 on tensor
 * cores, whose FP32 accumulation is not guaranteed round-to-nearest). */
double gemm_unit_roundoff(gemm_dtype t);
/* g(n) = n u / (1 - n u): the relative bound for any summation order of n terms. */
double gemm_error_factor(long long n, double u);

/* ref = alpha*A*B + beta*C_in and mag = |alpha|*(|A||B|) + |beta|*|C_in|, in
 * float64, threaded and cache blocked. c_in is not read when beta == 0. */
void gemm_reference(int m, int n, int k, float alpha, const float *a, const float *b,
                    float beta, const float *c_in, double *ref, double *mag);

/* The epilogue on the reference: ref = act(ref + bias[j]), and mag = slope * (mag + |bias[j]|),
 * slope the largest |act'| (GELU's tanh form 1.13, SiLU 1.10, else 1), which carries the
 * product's error bound through the activation. bias is not read for GEMM_EPI_NONE. */
double gemm_activation(gemm_epilogue e, double x);
void gemm_apply_epilogue(int m, int n, const float *bias, gemm_epilogue e, double *ref,
                         double *mag);
/* The unit roundoff of C's type as stored (0 for FP32, 2^-11 for FP16, 2^-8 for BF16). */
double gemm_out_roundoff(gemm_out out);

typedef struct {
    long long failed;   /* elements outside the bound, NaN or Inf */
    long long nonfinite;
    double worst_ratio; /* max |got - ref| / bound over finite elements */
} gemm_verdict;

/* Element (i, j) passes iff finite and |got - ref| <= factor * mag + floor.
 * Prints the first max_report failures to report (if non-NULL). */
gemm_verdict gemm_verify(int m, int n, const float *got, const double *ref, const double *mag,
                         double factor, FILE *report, int max_report);
/* The same with C rounded to a narrower type (and an activation evaluated in float): the bound
 * adds out_u * |ref|. */
gemm_verdict gemm_verify_rounded(int m, int n, const float *got, const double *ref,
                                 const double *mag, double factor, double out_u, FILE *report,
                                 int max_report);
#define GEMM_ABS_FLOOR 1e-30

/* The statistical check: the RMS over finite elements of |got - ref| / mag, which FP32
 * accumulation keeps near u whatever the summation order, and its limit for K terms,
 * max(4, sqrt(K) / 4) u. Inputs rounded to TF32 (10-bit mantissas) leave some 2^-11.5 / sqrt(K)
 * instead: about 100 u at K = 4096, where the per-element bound g(K) is some 4000 u wide.
 * gemm_rms_limit_for: that limit where C has at least GEMM_RMS_MIN_ELEMENTS elements to average;
 * GEMM_RMS_FEW_FACTOR times it below, where the RMS of a few elements is near their largest.
 * There it is what catches a C that is wrong by less than g(K): at 1 x 1 x 2^20, g(K) mag is
 * some 80 times |ref|, so that C = 0 would pass the bound alone. */
double gemm_rms_error(int m, int n, const float *got, const double *ref, const double *mag);
double gemm_rms_limit(long long k, double u);
double gemm_rms_limit_for(long long elements, long long k, double u);
#define GEMM_RMS_MIN_ELEMENTS 256
#define GEMM_RMS_FEW_FACTOR 8

/* ---- .npy output (npy.c) ------------------------------------------------ */

/* Writes a 2-D little-endian float32 array; returns 0 or -1 (errno set). */
int gemm_write_npy(const char *path, const float *x, int rows, int cols);
/* Reads back what gemm_write_npy wrote; returns a malloc'd array or NULL. */
float *gemm_read_npy(const char *path, int *rows, int *cols);

#endif /* GEMM_HOST_H */
