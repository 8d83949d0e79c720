/*
 * plan.h: this step's dispatcher, the rules that choose a kernel and its instantiation for a shape.
 * Host code only, so that `gemm --plan` prints the choice without a GPU and tests/plans.txt checks
 * every rule on the CPU (make test). Included by gemm.cu after its kernels.
 */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg, splits; /* for the tensor-core paths: tile width, consumer warpgroups, K ranges */
    int pair;           /* 2: clusters of two blocks that share the A tile */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, 0, 1, false, 0.0}; }

/* Every instantiation of the tile kernel as (BN, WG, SWAP, PAIR): gemm.cu instantiates these, and
 * a plan names one of them or is refused. */
#define TILE_KERNELS(X)                                                                            \
    X(256, 2, false, 1) X(256, 1, false, 1) X(192, 2, false, 1) X(192, 1, false, 1)                \
    X(128, 2, false, 1) X(128, 1, false, 1) X(96, 3, false, 1) X(64, 2, false, 1)                  \
    X(64, 1, false, 1) X(16, 1, true, 1) X(32, 1, true, 1) X(64, 1, true, 1) X(16, 2, true, 1)     \
    X(32, 2, true, 1) X(64, 2, true, 1) X(256, 2, false, 2) X(256, 1, false, 2)                    \
    X(128, 2, false, 2) X(128, 1, false, 2) X(64, 2, false, 2) X(64, 1, false, 2)
static bool tile_exists(const gemm_plan *p) {
#define SAME_TILE(BN, WG, SWAP, PAIR)                                                              \
    || (p->bn == BN && p->wg == WG && p->swap == SWAP && p->pair == PAIR)
    return false TILE_KERNELS(SAME_TILE);
#undef SAME_TILE
}

/* The forced paths of the tile kernel without swap or split-K: their width and cluster. */
static const struct {
    const char *name;
    int bn, pair;
} TILE_PATHS[] = {{"tma_n256", 256, 1},  {"tma_n192", 192, 1},  {"tma_n128", 128, 1},
                  {"tma_n96", 96, 1},    {"tma_n64", 64, 1},    {"pair_n256", 256, 2},
                  {"pair_n128", 128, 2}, {"pair_n64", 64, 2}};
static const char *tile_path(int bn, int pair) {
    for (const auto &t : TILE_PATHS)
        if (t.bn == bn && t.pair == pair) return t.name;
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
 * tiles of 64 or 128 rows (at M = 9, 16, 32 with N = K = 8192: 97-98% of cuBLAS, against 86-91% for
 * 64-row tiles of which M fills a quarter or less; at M = 64 the two are even). */
#define SWAP_ROWS 32
#define PAIR_MIN_US 20.0 /* the least estimated time at which a pair of blocks pays */
static double wgmma_efficiency(int bn) {
    return bn == 256 ? 1.0 : bn == 192 ? 0.95 : bn == 128 ? 0.88 : bn == 96 ? 0.77 : 0.57;
}

/* Swapped, N runs in tiles of 64 rows per consumer warpgroup: two (128 rows) where 64-row tiles
 * need a second, partial wave, streaming on a few SMs while the others idle; past 128 x SMs rows
 * the longer tiles measured no slower (docs/20_unaligned.md). */
static int swap_warpgroups(int n, int sms) {
    return ceil_div(n, 64) > sms ? 2 : 1;
}

static gemm_plan tensor_plan(int m, int n, int k, int sms, int forced_bn, bool forced_split) {
    const int slices = ceil_div(k, BK);
    const bool swap = m <= SWAP_ROWS && !forced_bn;
    const double bytes = 2.0 * ((double)m * k + (double)k * n);
    gemm_plan best = named(NULL);
    double best_compute_us = 0.0;
    /* K is split only where even 64-wide tiles would leave half the SMs idle: with more tiles the
     * planes' traffic and the second launch cost more than the waves they save (README.md). */
    /* Where 128-row tiles would, 64-row ones are tried too (twice the tiles can beat a split; rates
     * as fitted on 128 rows), not at N < 32 (docs/20_unaligned.md). Forced widths run unsplit. */
    const bool short_too = m > 64 && n >= 32 && 2 * ceil_div(m, 128) * ceil_div(n, 64) < sms;
    static const int widths[] = {256, 192, 128, 96, 64};
    for (int c = 0; c < 10; c++) { /* each width with the rule's warpgroups, then with one */
        const int bn = widths[c / 2];
        if (forced_bn ? bn != forced_bn : (swap && bn != 64) || (bn == 96 && m <= 128)) continue;
        if (c % 2 && (bn == 96 || !short_too)) continue;
        /* M <= 64: one consumer warpgroup, 64 rows; a second would multiply rows of zeros. 96
         * wide: three (192 x 96: cuBLAS's tile count at 1536^3). Swapped: swap_warpgroups. */
        const int wg = c % 2 ? 1 : swap ? swap_warpgroups(n, sms) : bn == 96 ? 3 : m <= 64 ? 1 : 2;
        const int narrow_tiles = ceil_div(m, wg == 1 ? 64 : 128) * ceil_div(n, 64);
        const int tile_m = swap ? (m <= 16 ? 16 : 32) : 64 * wg, tile_n = swap ? 64 * wg : bn;
        const int tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
        int max_splits = slices / 4 < 1 ? 1 : slices / 4 > 32 ? 32 : slices / 4;
        if ((!forced_split && 2 * narrow_tiles >= sms) || forced_bn) max_splits = 1;
        for (int splits = forced_split && max_splits > 1 ? 2 : 1; splits <= max_splits; splits++) {
            if (splits > 1 && tiles * (splits - 1) >= sms && !forced_split)
                break; /* the tiles already fill the SMs */
            const long units = (long)tiles * splits, waves = (units + sms - 1) / sms;
            const double busy = 2 * units < sms ? 2.0 * units / sms : 1.0;
            const double unit_us = ceil_div(slices, splits) * 2.0 * tile_m * tile_n * BK /
                                   (SM_FLOPS * wgmma_efficiency(bn)) * 1e6;
            double us = waves * unit_us;
            const double compute_us = us;
            const double stream_us = bytes / (DRAM_BYTES_PER_S * busy) * 1e6;
            if (stream_us > us) us = stream_us;
            if (splits > 1)
                us += 2.0 * 4 * splits * (double)m * n / DRAM_BYTES_PER_S * 1e6 + SPLIT_LAUNCH_US;
            /* tied on streaming: less compute (N = 8 leaves 56 of 64 columns zeros, 120 of 128) */
            if (!best.path || us < best.us || (us == best.us && compute_us < best_compute_us)) {
                best = (gemm_plan){
                    swap ? "swap" : tile_path(bn, 1), swap ? tile_m : bn, wg, splits, 1, swap, us};
                best_compute_us = compute_us;
            }
            if (!forced_split && !forced_bn && splits == 1 && tiles >= sms) break;
        }
    }
    if (best.splits > 1) {
        best.path = "splitk";
    } else if (!swap && !forced_bn && ceil_div(n, best.bn) == 2 && tile_path(best.bn, 2) &&
               best.us >= PAIR_MIN_US) {
        /* Two tiles per tile row: a cluster of two blocks covers it and reads its rows of A, the
         * matrix that dominates the bytes, once. With many tiles per row pairs gain nothing, and
         * in a short problem the cluster's start and end cost more than they save (README.md). */
        best.pair = 2;
        best.path = tile_path(best.bn, 2);
    } else if (!forced_bn && !swap && best.bn == 64 && best.wg == 2 &&
               ceil_div(m, 64) * ceil_div(n, 128) <= ceil_div(m, 128) * ceil_div(n, 64)) {
        /* No more tiles turned round: 64 x 128, one consumer warpgroup issuing m64n128, not two
         * issuing m64n64 (cuBLAS's tile at 1024^3; measured in docs/19_clusters.md) */
        best.bn = 128;
        best.wg = 1;
        best.path = tile_path(128, 1);
    }
    return best;
}

/* What the tile kernels need first: TMA moves rows of whole 16-byte units from 16-byte aligned
 * bases. PAD_A: A copied into rows of a multiple of 8 elements (K not a multiple of 8); PAD_B: B
 * likewise (N); C_DIRECT: C (FP32) stored without TMA (N not a multiple of 4). */
enum { PAD_A = 1, PAD_B = 2, C_DIRECT = 4 };
static int padding_for(const gemm_args *p) {
    return (p->k % 8 || (size_t)p->a % 16 ? PAD_A : 0) |
           (p->n % 8 || (size_t)p->b % 16 ? PAD_B : 0) |
           (p->n % 4 || (size_t)p->c % 16 ? C_DIRECT : 0);
}

/* A shape without 16-byte rows: the tile kernels on padded copies (path "padded"), or the
 * CUDA-core kernel where its estimate beats theirs with the copy's launch and bytes added (and C's
 * bytes, on their side only: fitted where the two meet, README.md). The fallback: 32 x 32 tiles,
 * 2 blocks per SM, a 32-deep K slice a DRAM latency (FALLBACK_SLICE_US), at most FALLBACK_FLOPS. */
#define FALLBACK_SLICE_US 1.5
#define FALLBACK_FLOPS 8.5e12
#define COPY_LAUNCH_US 4.0 /* what the copy's launch adds to a small problem on the H200 */
static gemm_plan padded_plan(const gemm_args *p, int sms, int pad) {
    gemm_plan plan = tensor_plan(p->m, p->n, p->k, sms, 0, false);
    plan.path = "padded";
    const double copied = (pad & PAD_A ? (double)p->m * p->k : 0.0) +
                          (pad & PAD_B ? (double)p->k * p->n : 0.0); /* elements, 2 bytes each */
    if (copied > 0.0) plan.us += 2.0 * 2.0 * copied / DRAM_BYTES_PER_S * 1e6 + COPY_LAUNCH_US;
    plan.us += 4.0 * p->m * p->n / DRAM_BYTES_PER_S * 1e6; /* C, which a small K leaves */
    const double waves = std::ceil((double)ceil_div(p->m, 32) * ceil_div(p->n, 32) / (2.0 * sms));
    const double fallback_us = std::max(waves * ceil_div(p->k, 32) * FALLBACK_SLICE_US,
                                        2.0 * p->m * p->n * (double)p->k / FALLBACK_FLOPS * 1e6);
    return fallback_us < plan.us ? named("fallback") : plan;
}

/* The plan for a problem on `sms` SMs: 0, or 1 with the reason in why (a forced path that cannot
 * run on this shape: never a substitute). */
static int plan_for(const gemm_args *p, int sms, gemm_plan *plan, char *why, size_t len) {
    const int pad = padding_for(p);
    const char *f = p->force_path;
    if (!f) {
        const bool big_b = (double)p->k * p->n >= 1 << 23; /* past this B's copy costs more */
        /* Bytes against FLOPs: with N or M of at most 8, an element of the large matrix meets at
         * most 16 FLOPs. gemv_n streams it at N = 1 or where its rows are not 16-byte units (a
         * copy would read and write it once more); gemv_m at M = 1 past one of its 2,048-column
         * blocks, and with N not a multiple of 8 where K <= 32 or B has 2^23 elements (B's copy
         * costs more): elsewhere the swapped tiles beat its many K ranges (README.md). */
        const bool gemv_m = p->m <= GEMV_ROWS && ((p->m == 1 && p->n > 8 * GEMV_THREADS) ||
                                                  (pad & PAD_B && (p->k <= 32 || big_b)));
        /* where both fit, gemv_n: gemv_m's threads own 8 columns each, mostly idle at N <= 8 */
        const bool gemv_n = p->n <= GEMV_ROWS && (pad & PAD_A || p->n == 1);
        /* One K slice of the fallback's, at most a block per SM (a cut measured, not a limit), or
         * gemv_n's shapes (a warp per row, at most 4 of its lanes loading): the small kernel (no
         * tensor maps, 3 KB of code) starts sooner, or runs more rows at once (README.md) */
        const bool tiny = p->k <= 32 && (ceil_div(p->m, 32) * ceil_div(p->n, 32) <= sms || gemv_n);
        *plan = tiny     ? named("fallback")
                : gemv_n ? named("gemv_n")
                : gemv_m ? named("gemv_m")
                : pad    ? padded_plan(p, sms, pad)
                         : tensor_plan(p->m, p->n, p->k, sms, 0, false);
    } else if (!strcmp(f, "gemv_m") || !strcmp(f, "gemv_n") || !strcmp(f, "fallback")) {
        *plan = named(f); /* the CUDA-core kernels take every shape */
    } else if (!strcmp(f, "padded")) { /* the tile kernels' choice, on copies where needed */
        *plan = tensor_plan(p->m, p->n, p->k, sms, 0, false);
        plan->path = f;
    } else if (pad) {
        snprintf(why, len, "%s needs rows of whole 16-byte units from 16-byte aligned operands "
                 "(K, N multiples of 8): --path padded copies them", f);
        return 1;
    } else if (!strcmp(f, "splitk")) {
        *plan = tensor_plan(p->m, p->n, p->k, sms, 0, true);
        if (plan->splits < 2) {
            snprintf(why, len, "splitk needs at least 2 K ranges of 4 slices of %d: K > %d", BK,
                     7 * BK);
            return 1;
        }
    } else if (!strcmp(f, "swap")) { /* M in the instruction's N: 16, 32 or 64 rows of A */
        *plan = (gemm_plan){
            f, p->m <= 16 ? 16 : p->m <= 32 ? 32 : 64, swap_warpgroups(p->n, sms), 1, 1, true, 0.0};
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
        plan->pair = TILE_PATHS[i].pair;
    }
    if (plan->bn && !tile_exists(plan)) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles, swap %d, cluster %d",
                 64 * plan->wg, plan->bn, plan->swap, plan->pair);
        return 1;
    }
    return 0;
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg, bool swap, int pair, int splits, int pad) {
    static const char *const copies[] = {"", " pad=A", " pad=B", " pad=AB"};
    /* (the swapped and split products store C from registers, without TMA, whatever N is) */
    const bool direct = pad & C_DIRECT && !swap && splits == 1;
    snprintf(out, sizeof(((gemm_args *)0)->kernel),
             "tile=%dx%d wg=%d swap=%d cluster=%d splits=%d%s%s", 64 * wg, bn, wg, swap, pair,
             splits, copies[pad & (PAD_A | PAD_B)], direct ? " store=direct" : "");
}
static void describe_fallback(char *out) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=fallback tile=32x32");
}
static void describe_gemv_m(char *out, int rows, int splits) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=gemv_m rows=%d splits=%d", rows,
             splits);
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
    /* at least 128 rows per range, unless few blocks would leave SMs idle: then 32, 16 (step 20,
     * GEMV_UNROLL), or 8 (two scalar batches) where B takes 2-byte loads and 16 leave half */
    const int b = g.col_blocks * g.row_blocks;
    const int least = 2 * b * ceil_div(k, 16) < sms && n % 8 ? 8 : b * ceil_div(k, 32) < sms ? 16
                      : b * ceil_div(k, 128) < sms ? 32 : 128;
    g.k_chunk = k_chunk < least ? least : k_chunk > 1024 ? 1024 : k_chunk;
    g.planes = ceil_div(k, g.k_chunk);
    return g;
}
/* gemv_n: CN = 1, 4 or 8 columns per warp (CN = 2 would spill at ptxas's 64 registers). */
static int gemv_n_cols(int n) { return n == 1 ? 1 : n <= 4 ? 4 : GEMV_ROWS; }
/* gemv_n: 16 rows a block (B staged half as often) where N > 1, K > 512 and they fill the SMs.
 * K ranges where blocks fill at most half the SMs: multiples of 256 rows (a warp's step), a block
 * per SM, added by splitk_reduce; not at K <= 512. Own instantiation: it slowed whole K (docs). */
struct gemv_n_grid {
    int blocks, k_chunk, planes, threads;
};
static gemv_n_grid gemv_n_shape(int m, int n, int k, int sms) {
    const int cn = gemv_n_cols(n);
    const int rows = n > 1 && k > 512 && ceil_div(m, 16) * ceil_div(n, cn) >= sms ? 16 : 8;
    gemv_n_grid g = {ceil_div(m, rows) * ceil_div(n, cn), 0, 1, 32 * rows};
    if (g.blocks * 2 > sms || k <= 512) return g; /* one range (so at 16 rows): writes C */
    const int ranges = ceil_div(sms, g.blocks);
    g.k_chunk = ceil_div(ceil_div(k, ranges), 256) * 256;
    g.planes = ceil_div(k, g.k_chunk); /* at least 2: k > 512 and ranges >= 2 */
    return g;
}
static void describe_gemv_n(char *out, int cols, const gemv_n_grid &g) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "kernel=gemv_n cols=%d rows=%d splits=%d",
             cols, g.threads / 32, g.planes);
}

/* gemm_step.plan: what launch_gemm launches for p, without launching it. */
static int plan_gemm(gemm_args *p, int sms) {
    gemm_plan plan;
    if (plan_for(p, sms, &plan, p->kernel, sizeof p->kernel)) return 1;
    p->path = plan.path;
    if (plan.bn)
        describe_tile(p->kernel, plan.bn, plan.wg, plan.swap, plan.pair, plan.splits,
                      padding_for(p));
    else if (!strcmp(plan.path, "gemv_m")) {
        const gemv_m_grid g = gemv_m_shape(p->m, p->n, p->k, sms);
        describe_gemv_m(p->kernel, g.rows, g.planes);
    }
    else if (!strcmp(plan.path, "gemv_n"))
        describe_gemv_n(p->kernel, gemv_n_cols(p->n), gemv_n_shape(p->m, p->n, p->k, sms));
    else
        describe_fallback(p->kernel);
    return 0;
}
