/*
 * plan.h: this step's dispatcher, the rules that choose a kernel and its instantiation for a shape.
 * Host code only, so that `gemm --plan` prints the choice without a GPU and tests/plans.txt checks
 * every rule on the CPU (make test). Included by gemm.cu after its kernels.
 */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg;         /* for the tensor-core paths: tile width, consumer warpgroups */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, false, 0.0}; }

/* Every instantiation of the tile kernel as (BN, WG, SWAP): gemm.cu instantiates these, and a plan
 * names one of them or is refused. */
#define TILE_KERNELS(X)                                                                            \
    X(256, 2, false) X(256, 1, false) X(192, 2, false) X(192, 1, false) X(128, 2, false)           \
    X(128, 1, false) X(96, 3, false) X(64, 2, false) X(64, 1, false) X(16, 1, true) X(32, 1, true) \
    X(64, 1, true) X(16, 2, true) X(32, 2, true) X(64, 2, true)
static bool tile_exists(const gemm_plan *p) {
#define SAME_TILE(BN, WG, SWAP) || (p->bn == BN && p->wg == WG && p->swap == SWAP)
    return false TILE_KERNELS(SAME_TILE);
#undef SAME_TILE
}

/* The forced paths of the tile kernel without swap: their width. */
static const struct {
    const char *name;
    int bn;
} TILE_PATHS[] = {{"tma_n256", 256}, {"tma_n192", 192}, {"tma_n128", 128}, {"tma_n96", 96},
                  {"tma_n64", 64}};
static const char *tile_path(int bn) {
    for (const auto &t : TILE_PATHS)
        if (t.bn == bn) return t.name;
    return NULL;
}

/* The model behind the tensor-core choice, its constants fitted to H200 measurements (README.md):
 * - a 128 x BN tile computes at a fraction of the SM's wgmma rate that falls with BN (n256: 1,
 *   n192: 0.95, n128: 0.88, n64: 0.57: fitted to the widths' times against cuBLAS, wave effects
 *   included, for the order of the widths on each shape, not the rates the kernels reach), 5
 *   TFLOPS per SM at n256; 192 x 96 at 0.77, from its time at 1536^3 against n192's;
 * - A and B come from DRAM at 3 TB/s (cuBLAS's rate at M = 1) once half the SMs stream (64
 *   tiles of 128 x 64 at N = 16 reach it), in proportion to the SMs that have work below that.
 * A tile takes max(its compute, its share of the streaming); waves of tiles run one after
 * another. Each width is tried; the least time wins. */
#define SM_FLOPS 5.0e12
#define DRAM_BYTES_PER_S 3.0e12
/* M of at most SWAP_ROWS: the swapped product, 16 or 32 rows of A in the instruction's N and N in
 * tiles of 64 rows (at M = 9, 16 and 32 with N = K = 8192: 97-98% of cuBLAS, against 86-91% for
 * 64-row tiles of which M fills a quarter or less; at M = 64 the two are even). */
#define SWAP_ROWS 32
static double wgmma_efficiency(int bn) {
    return bn == 256 ? 1.0 : bn == 192 ? 0.95 : bn == 128 ? 0.88 : bn == 96 ? 0.77 : 0.57;
}

static gemm_plan tensor_plan(int m, int n, int k, int sms, int forced_bn) {
    const int slices = ceil_div(k, BK);
    const bool swap = m <= SWAP_ROWS && !forced_bn;
    const double bytes = 2.0 * ((double)m * k + (double)k * n);
    gemm_plan best = named(NULL);
    for (int bn : {256, 192, 128, 96, 64}) {
        if (forced_bn ? bn != forced_bn : (swap && bn != 64) || (bn == 96 && m <= 128)) continue;
        /* M <= 64: one consumer warpgroup, 64 rows; a second would multiply rows of zeros. 96
         * wide: three (192 x 96: cuBLAS's tile count at 1536^3). Swapped: 64 rows of N per tile. */
        const int wg = swap ? 1 : bn == 96 ? 3 : m <= 64 ? 1 : 2;
        const int tile_m = swap ? (m <= 16 ? 16 : 32) : 64 * wg, tile_n = swap ? 64 : bn;
        const long tiles = (long)ceil_div(m, tile_m) * ceil_div(n, tile_n);
        const long waves = (tiles + sms - 1) / sms;
        const double busy = 2 * tiles < sms ? 2.0 * tiles / sms : 1.0;
        const double tile_us =
            slices * 2.0 * tile_m * tile_n * BK / (SM_FLOPS * wgmma_efficiency(bn)) * 1e6;
        double us = waves * tile_us;
        const double stream_us = bytes / (DRAM_BYTES_PER_S * busy) * 1e6;
        if (stream_us > us) us = stream_us;
        if (!best.path || us < best.us)
            best = (gemm_plan){swap ? "swap" : tile_path(bn), swap ? tile_m : bn, wg, swap, us};
    }
    return best;
}

/* The plan for a problem on `sms` SMs: 0, or 1 with the reason in why (a forced path that cannot
 * run on this shape: never a substitute). */
static int plan_for(const gemm_args *p, int sms, gemm_plan *plan, char *why, size_t len) {
    /* TMA needs 16-byte aligned rows (K and N multiples of 8) and 16-byte aligned bases. */
    const bool tma =
        p->k % 8 == 0 && p->n % 8 == 0 && ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0;
    const char *f = p->force_path;
    if (!f) {
        *plan = !tma ? named("fallback") : tensor_plan(p->m, p->n, p->k, sms, 0);
    } else if (!strcmp(f, "fallback")) {
        *plan = named(f); /* the CUDA-core kernel takes every shape */
    } else if (!tma) {
        snprintf(why, len, "%s needs K and N multiples of 8 (a tensor map's rows are whole 16-byte "
                 "units)", f);
        return 1;
    } else if (!strcmp(f, "swap")) { /* M in the instruction's N: 16, 32 or 64 rows of A */
        const int wg = ceil_div(p->n, 128) >= sms ? 2 : 1; /* N in tiles of 64 WG rows */
        *plan = (gemm_plan){f, p->m <= 16 ? 16 : p->m <= 32 ? 32 : 64, wg, true, 0.0};
    } else {
        int i = 0, count = sizeof TILE_PATHS / sizeof TILE_PATHS[0];
        while (i < count && strcmp(TILE_PATHS[i].name, f)) i++;
        if (i == count) {
            snprintf(why, len, "no path named %s", f);
            return 1;
        }
        /* that width, the warpgroups as the rules choose them for it */
        *plan = tensor_plan(p->m, p->n, p->k, sms, TILE_PATHS[i].bn);
        plan->path = f;
    }
    if (plan->bn && !tile_exists(plan)) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles, swap %d", 64 * plan->wg,
                 plan->bn, plan->swap);
        return 1;
    }
    return 0;
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg, bool swap) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "tile=%dx%d wg=%d swap=%d cluster=1 splits=1",
             64 * wg, bn, wg, swap);
}
static void describe_fallback(char *out) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=fallback tile=32x32");
}

/* gemm_step.plan: what launch_gemm launches for p, without launching it. */
static int plan_gemm(gemm_args *p, int sms) {
    gemm_plan plan;
    if (plan_for(p, sms, &plan, p->kernel, sizeof p->kernel)) return 1;
    p->path = plan.path;
    if (plan.bn)
        describe_tile(p->kernel, plan.bn, plan.wg, plan.swap);
    else
        describe_fallback(p->kernel);
    return 0;
}
