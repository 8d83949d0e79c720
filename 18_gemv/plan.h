/*
 * plan.h: this step's dispatcher, the rules that choose a kernel and its instantiation for a shape.
 * Host code only, so that `gemm --plan` prints the choice without a GPU and tests/plans.txt checks
 * every rule on the CPU (make test). Included by gemm.cu after its kernels.
 */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg, splits; /* for the tensor-core paths: tile width, consumer warpgroups, K ranges */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, 0, false, 0.0}; }

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

/* The forced paths of the tile kernel without swap or split-K: their width. */
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
 *   tiles of 128 x 64 at N = 16 reach it), in proportion to the SMs that have work below that;
 * - split-K writes and reads its planes (at the same rate) and costs a second launch (2 us).
 * A unit takes max(its compute, its share of the streaming); waves of units run one after
 * another. Each width and split count is tried; the least time wins. */
#define SM_FLOPS 5.0e12
#define DRAM_BYTES_PER_S 3.0e12
#define SPLIT_LAUNCH_US 2.0
/* M of at most SWAP_ROWS: the swapped product, 16 or 32 rows of A in the instruction's N and N in
 * tiles of 64 rows (at M = 9, 16 and 32 with N = K = 8192: 97-98% of cuBLAS, against 86-91% for
 * 64-row tiles of which M fills a quarter or less; at M = 64 the two are even). */
#define SWAP_ROWS 32
static double wgmma_efficiency(int bn) {
    return bn == 256 ? 1.0 : bn == 192 ? 0.95 : bn == 128 ? 0.88 : bn == 96 ? 0.77 : 0.57;
}

static gemm_plan tensor_plan(int m, int n, int k, int sms, int forced_bn, bool forced_split) {
    const int slices = ceil_div(k, BK);
    const bool swap = m <= SWAP_ROWS && !forced_bn;
    const double bytes = 2.0 * ((double)m * k + (double)k * n);
    gemm_plan best = named(NULL);
    /* K is split only where even 64-wide tiles would leave half the SMs idle: with more tiles the
     * planes' traffic and the second launch cost more than the waves they save (README.md). */
    const int narrow_tiles = ceil_div(m, m <= 64 ? 64 : 128) * ceil_div(n, 64);
    for (int bn : {256, 192, 128, 96, 64}) {
        if (forced_bn ? bn != forced_bn : (swap && bn != 64) || (bn == 96 && m <= 128)) continue;
        /* M <= 64: one consumer warpgroup, 64 rows; a second would multiply rows of zeros. 96
         * wide: three (192 x 96: cuBLAS's tile count at 1536^3). Swapped: 64 rows of N per tile. */
        const int wg = swap ? 1 : bn == 96 ? 3 : m <= 64 ? 1 : 2;
        const int tile_m = swap ? (m <= 16 ? 16 : 32) : 64 * wg, tile_n = swap ? 64 : bn;
        const int tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
        int max_splits = slices / 4 < 1 ? 1 : slices / 4 > 32 ? 32 : slices / 4;
        if (!forced_split && 2 * narrow_tiles >= sms) max_splits = 1;
        for (int splits = forced_split && max_splits > 1 ? 2 : 1; splits <= max_splits; splits++) {
            if (splits > 1 && tiles * (splits - 1) >= sms && !forced_split)
                break; /* the tiles already fill the SMs */
            const long units = (long)tiles * splits, waves = (units + sms - 1) / sms;
            const double busy = 2 * units < sms ? 2.0 * units / sms : 1.0;
            const double unit_us = ceil_div(slices, splits) * 2.0 * tile_m * tile_n * BK /
                                   (SM_FLOPS * wgmma_efficiency(bn)) * 1e6;
            double us = waves * unit_us;
            const double stream_us = bytes / (DRAM_BYTES_PER_S * busy) * 1e6;
            if (stream_us > us) us = stream_us;
            if (splits > 1)
                us += 2.0 * 4 * splits * (double)m * n / DRAM_BYTES_PER_S * 1e6 + SPLIT_LAUNCH_US;
            if (!best.path || us < best.us)
                best = (gemm_plan){
                    swap ? "swap" : tile_path(bn), swap ? tile_m : bn, wg, splits, swap, us};
            if (!forced_split && !forced_bn && splits == 1 && tiles >= sms) break;
        }
    }
    if (best.splits > 1) best.path = "splitk";
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
        /* Bytes against FLOPs: with N or M of at most 8, an element of the large matrix meets at
         * most 16 FLOPs. The GEMV kernels take such shapes where no tensor map can (K or N not a
         * multiple of 8), and M = 1; elsewhere the tile kernels measured faster (README.md). */
        const bool gemv_n = p->n <= GEMV_ROWS && !tma;
        const bool gemv_m = p->m <= GEMV_ROWS && (!tma || p->m == 1);
        *plan = gemv_n   ? named("gemv_n")
                : gemv_m ? named("gemv_m")
                : !tma   ? named("fallback")
                         : tensor_plan(p->m, p->n, p->k, sms, 0, false);
    } else if (!strcmp(f, "gemv_m") || !strcmp(f, "gemv_n") || !strcmp(f, "fallback")) {
        *plan = named(f); /* the CUDA-core kernels take every shape */
    } else if (!tma) {
        snprintf(why, len, "%s needs K and N multiples of 8 (a tensor map's rows are whole 16-byte "
                 "units)", f);
        return 1;
    } else if (!strcmp(f, "splitk")) {
        *plan = tensor_plan(p->m, p->n, p->k, sms, 0, true);
        if (plan->splits < 2) {
            snprintf(why, len, "splitk needs at least 2 K ranges of 4 slices of %d: K > %d", BK,
                     7 * BK);
            return 1;
        }
    } else if (!strcmp(f, "swap")) { /* M in the instruction's N: 16, 32 or 64 rows of A */
        const int wg = ceil_div(p->n, 128) >= sms ? 2 : 1; /* N in tiles of 64 WG rows */
        *plan = (gemm_plan){f, p->m <= 16 ? 16 : p->m <= 32 ? 32 : 64, wg, 1, true, 0.0};
    } else {
        int i = 0, count = sizeof TILE_PATHS / sizeof TILE_PATHS[0];
        while (i < count && strcmp(TILE_PATHS[i].name, f)) i++;
        if (i == count) {
            snprintf(why, len, "no path named %s", f);
            return 1;
        }
        /* that width in one K range, the warpgroups as the rules choose them for it */
        *plan = tensor_plan(p->m, p->n, p->k, sms, TILE_PATHS[i].bn, false);
        plan->path = f;
        plan->splits = 1;
    }
    if (plan->bn && !tile_exists(plan)) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles, swap %d", 64 * plan->wg,
                 plan->bn, plan->swap);
        return 1;
    }
    return 0;
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg, bool swap, int splits) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "tile=%dx%d wg=%d swap=%d cluster=1 splits=%d",
             64 * wg, bn, wg, swap, splits);
}
static void describe_fallback(char *out) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=fallback tile=32x32");
}
static void describe_gemv_m(char *out, int rows, int splits) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=gemv_m rows=%d splits=%d", rows,
             splits);
}
static void describe_gemv_n(char *out, int cols) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=gemv_n cols=%d", cols);
}

/* gemv_m: R = M up to 8 rows per block (a thread's sums are R x 8 registers), and K cut aiming at
 * about 4 blocks per SM, each K range a multiple of 8 rows from 128 (fewer planes to add up) to
 * 1024 (its rows of A in shared memory: R x 4 KB); from 32 where 128-row ranges would leave SMs
 * idle, since a thread's rows follow one another. Host arithmetic: the launch's and the plan's. */
struct gemv_m_grid {
    int rows, col_blocks, row_blocks, k_chunk, planes;
};
static gemv_m_grid gemv_m_shape(int m, int n, int k, int sms) {
    gemv_m_grid g;
    g.rows = m == 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
    g.col_blocks = ceil_div(ceil_div(n, 8), GEMV_THREADS);
    g.row_blocks = ceil_div(m, g.rows);
    const int splits = ceil_div(4 * sms, g.col_blocks * g.row_blocks);
    const int k_chunk = ceil_div(ceil_div(k, splits), 8) * 8;
    /* at least 128 rows per range, unless so few blocks would leave SMs idle: then 32 */
    const int least = g.col_blocks * g.row_blocks * ceil_div(k, 128) < sms ? 32 : 128;
    g.k_chunk = k_chunk < least ? least : k_chunk > 1024 ? 1024 : k_chunk;
    g.planes = ceil_div(k, g.k_chunk);
    return g;
}
/* gemv_n: CN = 1, 4 or 8 columns per warp (CN = 2 would spill at ptxas's 64 registers). */
static int gemv_n_cols(int n) { return n == 1 ? 1 : n <= 4 ? 4 : GEMV_ROWS; }

/* gemm_step.plan: what launch_gemm launches for p, without launching it. */
static int plan_gemm(gemm_args *p, int sms) {
    gemm_plan plan;
    if (plan_for(p, sms, &plan, p->kernel, sizeof p->kernel)) return 1;
    p->path = plan.path;
    if (plan.bn)
        describe_tile(p->kernel, plan.bn, plan.wg, plan.swap, plan.splits);
    else if (!strcmp(plan.path, "gemv_m")) {
        const gemv_m_grid g = gemv_m_shape(p->m, p->n, p->k, sms);
        describe_gemv_m(p->kernel, g.rows, g.planes);
    }
    else if (!strcmp(plan.path, "gemv_n"))
        describe_gemv_n(p->kernel, gemv_n_cols(p->n));
    else
        describe_fallback(p->kernel);
    return 0;
}
