/* cli.c: the command line every step shares (see gemm_usage). */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"

const char *gemm_dtype_name(gemm_dtype t) {
    switch (t) {
    case GEMM_F32: return "fp32";
    case GEMM_F16: return "fp16";
    case GEMM_BF16: return "bf16";
    }
    return "?";
}

void gemm_usage(FILE *f, const char *prog, unsigned step_dtypes) {
    fprintf(f,
            "usage: %s [M [N [K]]] [--reps R] [--warmup W] [--alpha A] [--beta B]\n"
            "       [--seed S] [--check | --no-check] [--cublas] [--csv]\n"
            "       [--dtype %s] [--save DIR] [--shapes MxNxK,...] [--path NAME]\n"
            "       [--plan [--sms N]] [--layout NN|NT|TN|TT] [--out f32|bf16|fp16]\n"
            "       [--epilogue none|bias|bias_gelu|bias_silu [--unfused]]\n"
            "  Row-major C = alpha*A*B + beta*C with A MxK, B KxN, C MxN (default 4096^3;\n"
            "  missing sizes repeat the last one given: '2048' is 2048x2048x2048).\n"
            "  --reps R      timed repetitions (default: enough for ~0.4 s; 0: no timing)\n"
            "  --warmup W    untimed runs first (default 3)\n"
            "  --alpha/--beta scalars (default 1 and 0; beta 0 means C is not read)\n"
            "  --seed S      seed of the random inputs (default 1)\n"
            "  --no-check    skip verification against the float64 CPU reference\n"
            "  --cublas      also time cuBLAS on the same shape and print the ratio\n"
            "  --csv         print a CSV header and one line per shape\n"
            "  --save DIR    write A, B, C_in, C_out as float32 .npy files to DIR\n"
            "  --shapes L    run several shapes in one process, e.g. 1x1x1,33x7x129\n"
            "  --path NAME   force one code path of a step that chooses by shape (14 on)\n"
            "  --plan        print the path and kernel each shape would launch; no GPU needed\n"
            "  --sms N       the SM count --plan assumes (default 132: an H100 or H200)\n"
            "  --layout L    A, then B: N row-major, T column-major (NT: B stored N x K, as x W^T)\n"
            "  --out T       C's type (default f32)\n"
            "  --epilogue E  C = act(alpha A B + beta C + bias), GELU in its tanh form\n"
            "  --unfused     cuBLASLt's baseline applies the activation in a second kernel\n"
            "                (as it must for SiLU, which it cannot fuse)\n"
            "  (--layout, --out and --epilogue other than their defaults: the steps that take them)\n"
            "Exit codes: 0 ok, 1 verification failure or CUDA error, 2 bad usage,\n"
            "  3 this GPU (or this build) lacks the step's instructions.\n",
            prog, step_dtypes == GEMM_F32 ? "fp32" : "fp16|bf16");
}

static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 2;
}

/* The linear layer's option values, in the order of their flags (bit i: names[i]). */
static const char *const LAYOUT_NAMES[] = {"NN", "NT", "TN", "TT"};
static const char *const OUT_NAMES[] = {"f32", "bf16", "fp16"};
static const char *const EPILOGUE_NAMES[] = {"none", "bias", "bias_gelu", "bias_silu"};

/* The index of value in names, or -1. */
static int lookup(const char *value, const char *const *names, int count) {
    for (int i = 0; i < count; i++)
        if (!strcmp(value, names[i])) return i;
    return -1;
}

/* A size: a decimal integer in [1, INT_MAX], nothing else. */
static int parse_size(const char *s, int *out) {
    char *end;
    errno = 0;
    if (!s || !*s || !(*s >= '0' && *s <= '9')) return -1;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end || v < 1 || v > INT_MAX) return -1;
    *out = (int)v;
    return 0;
}

static int parse_count(const char *s, int *out) {
    if (s && strcmp(s, "0") == 0) { *out = 0; return 0; }
    return parse_size(s, out);
}

static int parse_float(const char *s, float *out) {
    char *end;
    errno = 0;
    if (!s || !*s) return -1;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end || !isfinite(v) || fabs(v) > 3.0e38) return -1;
    *out = (float)v;
    return 0;
}

static int check_shape(const int s[3], char *err, size_t errlen) {
    long long m = s[0], n = s[1], k = s[2];
    if (m * k > GEMM_MAX_ELEMENTS || k * n > GEMM_MAX_ELEMENTS || m * n > GEMM_MAX_ELEMENTS)
        return fail(err, errlen, "shape %lldx%lldx%lld: a matrix has 2^31 or more elements", m, n, k);
    if (k > GEMM_MAX_K)
        return fail(err, errlen, "K = %lld is larger than %d", k, GEMM_MAX_K);
    if (m > GEMM_MAX_MN || n > GEMM_MAX_MN)
        return fail(err, errlen, "%s = %lld is larger than %d (2^30: tile counts are ints)",
                    m > GEMM_MAX_MN ? "M" : "N", m > GEMM_MAX_MN ? m : n, GEMM_MAX_MN);
    return 0;
}

/* "MxNxK,MxNxK,..." */
static int parse_shapes(const char *list, gemm_options *o, char *err, size_t errlen) {
    char buf[4096];
    if (strlen(list) >= sizeof buf) return fail(err, errlen, "--shapes list is too long");
    strcpy(buf, list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nshapes == GEMM_MAX_SHAPES)
            return fail(err, errlen, "--shapes takes at most %d shapes", GEMM_MAX_SHAPES);
        int *s = o->shapes[o->nshapes];
        char *x1 = strchr(tok, 'x'), *x2 = x1 ? strchr(x1 + 1, 'x') : NULL;
        if (!x2) return fail(err, errlen, "bad shape '%s' in --shapes (want MxNxK)", tok);
        *x1 = *x2 = '\0';
        if (parse_size(tok, &s[0]) || parse_size(x1 + 1, &s[1]) || parse_size(x2 + 1, &s[2]))
            return fail(err, errlen, "bad shape in --shapes: sizes must be integers from 1 to %d", INT_MAX);
        o->nshapes++;
    }
    if (o->nshapes == 0) return fail(err, errlen, "--shapes needs at least one MxNxK");
    return 0;
}

int gemm_parse_args(int argc, char **argv, unsigned step_dtypes, gemm_options *o, char *err,
                    size_t errlen) {
    memset(o, 0, sizeof *o);
    o->reps = -1;
    o->warmup = 3;
    o->alpha = 1.0f;
    o->beta = 0.0f;
    o->seed = 1;
    o->check = 1;
    o->dtype = (step_dtypes & GEMM_F32) ? GEMM_F32 : GEMM_F16;
    o->layout = GEMM_NN;
    o->out = GEMM_OUT_F32;
    o->epilogue = GEMM_EPI_NONE;
    int sizes[3], nsizes = 0, have_shapes = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) {
            if (nsizes == 3) return fail(err, errlen, "too many sizes: '%s' (at most M N K)", arg);
            if (parse_size(arg, &sizes[nsizes]))
                return fail(err, errlen, "bad size '%s': sizes are integers from 1 to %d", arg, INT_MAX);
            nsizes++;
            continue;
        }
        /* --flag value or --flag=value */
        char name[32];
        const char *value = NULL, *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) return fail(err, errlen, "unknown option '%s'", arg);
        memcpy(name, arg, len);
        name[len] = '\0';
        int takes_value = !strcmp(name, "--reps") || !strcmp(name, "--warmup") ||
                          !strcmp(name, "--alpha") || !strcmp(name, "--beta") ||
                          !strcmp(name, "--seed") || !strcmp(name, "--dtype") ||
                          !strcmp(name, "--save") || !strcmp(name, "--shapes") ||
                          !strcmp(name, "--path") || !strcmp(name, "--sms") ||
                          !strcmp(name, "--layout") || !strcmp(name, "--out") ||
                          !strcmp(name, "--epilogue");
        if (takes_value) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else return fail(err, errlen, "option %s needs a value", name);
        } else if (eq) {
            return fail(err, errlen, "option %s takes no value", name);
        }

        if (!strcmp(name, "-h") || !strcmp(name, "--help")) o->help = 1;
        else if (!strcmp(name, "--check")) o->check = 1;
        else if (!strcmp(name, "--no-check")) o->check = 0;
        else if (!strcmp(name, "--cublas")) o->cublas = 1;
        else if (!strcmp(name, "--csv")) o->csv = 1;
        else if (!strcmp(name, "--plan")) o->plan = 1;
        else if (!strcmp(name, "--unfused")) o->unfused = 1;
        else if (!strcmp(name, "--sms")) {
            if (parse_size(value, &o->sms) || o->sms > 4096)
                return fail(err, errlen, "bad --sms '%s': an integer from 1 to 4096", value);
        }
        else if (!strcmp(name, "--reps")) {
            if (parse_count(value, &o->reps))
                return fail(err, errlen, "bad --reps '%s': an integer from 0 to %d", value, INT_MAX);
        } else if (!strcmp(name, "--warmup")) {
            if (parse_count(value, &o->warmup))
                return fail(err, errlen, "bad --warmup '%s': an integer from 0 to %d", value, INT_MAX);
        } else if (!strcmp(name, "--alpha")) {
            if (parse_float(value, &o->alpha))
                return fail(err, errlen, "bad --alpha '%s': a finite float", value);
        } else if (!strcmp(name, "--beta")) {
            if (parse_float(value, &o->beta))
                return fail(err, errlen, "bad --beta '%s': a finite float", value);
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            if (!*value || *value == '-' || (o->seed = strtoull(value, &end, 10), errno || *end))
                return fail(err, errlen, "bad --seed '%s': a non-negative integer", value);
        } else if (!strcmp(name, "--dtype")) {
            gemm_dtype t = !strcmp(value, "fp32") ? GEMM_F32
                         : !strcmp(value, "fp16") ? GEMM_F16
                         : !strcmp(value, "bf16") ? GEMM_BF16 : (gemm_dtype)0;
            if (!t) return fail(err, errlen, "bad --dtype '%s': fp32, fp16 or bf16", value);
            if (!(step_dtypes & t))
                return fail(err, errlen, "this step does not take --dtype %s (it takes %s)", value,
                            step_dtypes == GEMM_F32 ? "fp32" : "fp16 and bf16");
            o->dtype = t;
        } else if (!strcmp(name, "--save")) {
            if (!*value) return fail(err, errlen, "--save needs a directory");
            o->save_dir = value;
        } else if (!strcmp(name, "--path")) {
            if (!*value) return fail(err, errlen, "--path needs a path name");
            o->path = value;
        } else if (!strcmp(name, "--layout")) {
            const int i = lookup(value, LAYOUT_NAMES, 4);
            if (i < 0) return fail(err, errlen, "bad --layout '%s': NN, NT, TN or TT", value);
            o->layout = (gemm_layout)(1 << i);
        } else if (!strcmp(name, "--out")) {
            const int i = lookup(value, OUT_NAMES, 3);
            if (i < 0) return fail(err, errlen, "bad --out '%s': f32, bf16 or fp16", value);
            o->out = (gemm_out)(1 << i);
        } else if (!strcmp(name, "--epilogue")) {
            const int i = lookup(value, EPILOGUE_NAMES, 4);
            if (i < 0)
                return fail(err, errlen, "bad --epilogue '%s': none, bias, bias_gelu or bias_silu",
                            value);
            o->epilogue = (gemm_epilogue)(1 << i);
        } else if (!strcmp(name, "--shapes")) {
            int rc = parse_shapes(value, o, err, errlen);
            if (rc) return rc;
            have_shapes = 1;
        } else {
            return fail(err, errlen, "unknown option '%s'", arg);
        }
    }

    if (have_shapes && nsizes) return fail(err, errlen, "give sizes either as M N K or with --shapes, not both");
    if (!have_shapes) {
        int *s = o->shapes[0];
        s[0] = s[1] = s[2] = 4096;
        for (int j = 0; j < 3 && nsizes; j++) s[j] = sizes[j < nsizes ? j : nsizes - 1];
        o->nshapes = 1;
    }
    for (int i = 0; i < o->nshapes; i++) {
        int rc = check_shape(o->shapes[i], err, errlen);
        if (rc) return rc;
    }
    if (o->save_dir && o->nshapes != 1) return fail(err, errlen, "--save takes a single shape");
    /* Checked now, so that a bad directory is a usage error before any GPU work. */
    if (o->save_dir && mkdir(o->save_dir, 0777) != 0 && errno != EEXIST)
        return fail(err, errlen, "--save %s: cannot create it: %s", o->save_dir, strerror(errno));
    if (o->save_dir && access(o->save_dir, W_OK) != 0)
        return fail(err, errlen, "--save %s: not a writable directory", o->save_dir);
    return 0;
}

static int bit(unsigned flag) { /* the index of a one-bit flag */
    int i = 0;
    while (flag > 1u) flag >>= 1, i++;
    return i;
}

/* "NN, NT": the names of the flags in mask (the first always: the default every step takes). */
static const char *flag_names(unsigned mask, const char *const *names, int count, char *buf,
                              size_t len) {
    buf[0] = '\0';
    for (int i = 0; i < count; i++)
        if (i == 0 || (mask >> i & 1u))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", names[i]);
    return buf;
}

const char *gemm_linear_name(gemm_layout layout, gemm_out out, gemm_epilogue epilogue) {
    static char name[64];
    snprintf(name, sizeof name, "layout=%s out=%s epilogue=%s", LAYOUT_NAMES[bit(layout)],
             OUT_NAMES[bit(out)], EPILOGUE_NAMES[bit(epilogue)]);
    return name;
}

int gemm_check_options(const gemm_options *o, unsigned layouts, unsigned outs, unsigned epilogues,
                       char *err, size_t errlen) {
    char taken[64];
    if (!(o->layout & (layouts | GEMM_NN)))
        return fail(err, errlen, "--layout %s: this step takes %s", LAYOUT_NAMES[bit(o->layout)],
                    flag_names(layouts, LAYOUT_NAMES, 4, taken, sizeof taken));
    if (!(o->out & (outs | GEMM_OUT_F32)))
        return fail(err, errlen, "--out %s: this step writes %s", OUT_NAMES[bit(o->out)],
                    flag_names(outs, OUT_NAMES, 3, taken, sizeof taken));
    if (!(o->epilogue & (epilogues | GEMM_EPI_NONE)))
        return fail(err, errlen, "--epilogue %s: this step takes %s",
                    EPILOGUE_NAMES[bit(o->epilogue)],
                    flag_names(epilogues, EPILOGUE_NAMES, 4, taken, sizeof taken));
    if ((o->out == GEMM_OUT_BF16 && o->dtype != GEMM_BF16) ||
        (o->out == GEMM_OUT_F16 && o->dtype != GEMM_F16))
        return fail(err, errlen, "--out %s with --dtype %s: a 16-bit C has the inputs' type",
                    OUT_NAMES[bit(o->out)], gemm_dtype_name(o->dtype));
    if (o->out != GEMM_OUT_F32 && o->beta != 0.0f)
        return fail(err, errlen, "--beta %g with --out %s: a 16-bit C is written, never read "
                    "(beta must be 0)", o->beta, OUT_NAMES[bit(o->out)]);
    return 0;
}
