/*
 * plan.h: this step's dispatcher, the rules that choose a kernel and its instantiation for a shape.
 * Host code only, so that `gemm --plan` prints the choice without a GPU and tests/plans.txt checks
 * every rule on the CPU (make test). Included by gemm.cu after its kernels.
 */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg, splits; /* for the tensor-core paths: tile width, consumer warpgroups, K ranges */
    int pair;           /* 2: clusters of two blocks side by side that share the A tile; -2: */
                        /* two along M, one above the other, that share the B tile; 4, -4: four */
                        /* (swapped, -2 and -4: stacked along N, sharing A's rows; 2 and 4: */
                        /* along M, sharing B's: steps 40, 41) */
    bool swap;          /* the swapped product C^T = B^T A^T, M in the instruction's N */
    double us;          /* the model's estimate */
    int group = 1;      /* step 45: pair 1's blocks launched as clusters of this many */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0, 0, 1, false, 0.0}; }

/* Every instantiation of the tile kernel as (BN, WG, SWAP, PAIR): gemm.cu instantiates these, and
 * a plan names one of them or is refused. */
#define TILE_KERNELS(X)                                                                            \
    X(256, 2, false, 1) X(256, 1, false, 1) X(192, 2, false, 1) X(192, 1, false, 1)                \
    X(128, 2, false, 1) X(128, 1, false, 1) X(96, 3, false, 1) X(64, 2, false, 1)                  \
    X(64, 1, false, 1) X(16, 1, true, 1) X(32, 1, true, 1) X(64, 1, true, 1) X(16, 2, true, 1)     \
    X(32, 2, true, 1) X(64, 2, true, 1) X(256, 2, false, 2) X(256, 1, false, 2)                    \
    X(128, 2, false, 2) X(128, 1, false, 2) X(64, 2, false, 2) X(64, 1, false, 2)                  \
    X(320, 2, false, 1) X(320, 1, false, 1) X(256, 2, false, -2) X(192, 2, false, -2)              \
    X(128, 2, false, -2) X(64, 2, false, -2) X(128, 2, false, -4) X(128, 1, false, -4)            \
    X(128, 2, false, 4) X(128, 1, false, 4) X(128, 1, false, -2) X(96, 1, true, 1)                 \
    X(128, 1, true, 1) X(96, 2, true, 1) X(128, 2, true, 1) X(64, 1, true, -4) X(96, 1, true, -4)  \
    X(128, 1, true, -4) X(64, 2, true, -4) X(96, 2, true, -4) X(128, 2, true, -4)                \
    X(32, 1, true, -4) X(32, 2, true, -4) X(16, 1, true, -2) X(16, 2, true, -2)  \
    X(96, 3, true, 1) X(96, 3, true, 2) X(96, 3, true, 4) X(224, 2, false, 1) X(224, 1, false, 1)  \
    X(224, 2, false, -2)
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
                  {"pair_n128", 128, 2}, {"pair_n64", 64, 2},   {"tma_n320", 320, 1},
                  {"pair_m_n256", 256, -2}, {"pair_m_n192", 192, -2}, {"pair_m_n128", 128, -2},
                  {"pair_m_n64", 64, -2}, {"quad_m_n128", 128, -4}, {"quad_n128", 128, 4},
                  {"tma_n224", 224, 1},   {"pair_m_n224", 224, -2}};
static const char *tile_path(int bn, int pair) {
    for (const auto &t : TILE_PATHS)
        if (t.bn == bn && t.pair == pair) return t.name;
    return NULL;
}

/* The model behind the tensor-core choice, its constants fitted to H200 measurements (README.md):
 * - a 128 x BN tile computes at a fraction of the SM's wgmma rate that falls with BN (n256: 1,
 *   n192: 0.95, n128: 0.88, n64: 0.57: fitted to the widths' times against cuBLAS, wave effects
 *   included, for the order of the widths on each shape, not the rates the kernels reach), 5
 *   TFLOPS per SM at n256; 192 x 96 at 0.77, from its time at 1536^3 against n192's; n224 (step
 *   42) at 0.975, set between n192 and n256, not fitted;
 * - A and B come from DRAM at 3 TB/s (cuBLAS's rate at M = 1) once half the SMs stream (64
 *   tiles of 128 x 64 at N = 16 reach it), in proportion to the SMs that have work below that;
 *   swapped tiles, of 16 or 32 rows of A, once 0.55 of them do (SWAP_STREAM_SMS, an H100 fit);
 * - split-K writes and reads its planes (at the same rate) and costs a second launch (2 us).
 * A unit takes max(its compute, its share of the streaming); waves of units run one after
 * another. Each width and split count is tried; the least time wins. */
#define SM_FLOPS 5.0e12
#define DRAM_BYTES_PER_S 3.0e12
#define SPLIT_LAUNCH_US 2.0
/* The fraction of the SMs that streaming blocks need to reach the DRAM's rate (a block an SM, so
 * only SMs with a block load). A swapped block computes a few rows of A per stage and is little
 * but its loads of B: 64 of them (N = 4096) kept too few bytes in flight against 128 blocks of
 * half the K range each. Fitted on an H100 and used on every GPU (on the H200 the split measured
 * even: README.md); 0.55, not more, leaves K = 4096 whole at N = 4096, where the planes and the
 * second launch cost more than the split gains. It acts below the 2 x tiles < SMs gate below. */
#define TILE_STREAM_SMS 0.5
#define SWAP_STREAM_SMS 0.55
/* M of at most SWAP_ROWS: the swapped product, 16 or 32 rows of A in the instruction's N and N in
 * tiles of 64 or 128 rows (at M = 9, 16, 32 with N = K = 8192: 97-98% of cuBLAS, against 86-91% for
 * 64-row tiles of which M fills a quarter or less; at M = 64 the two are even). */
#define SWAP_ROWS 32
/* Swapped, A's rows in the instruction's N: 16 or 32 up to SWAP_ROWS, then M rounded up to 32, at
 * most 128: in a cluster of four each block loads a quarter of them, whole 8-row swizzle groups
 * (and hopper.cuh writes out no wgmma N between those widths). */
static int swap_width(int m) {
    return m <= 16 ? 16 : m <= SWAP_ROWS ? 32 : std::min(128, ceil_div(m, 32) * 32);
}
#define PAIR_MIN_US 20.0 /* the least estimated time at which a pair of blocks pays */
#define PAIR_M_MIN_K 512 /* the least K at which a pair along M pays (README.md) */
/* Step 42: 224 wide, an instruction of 112 accumulators, between n192 and n256. Its rate is set
 * between theirs, not fitted: with it, the width that makes the fewest or fullest waves of tiles
 * wins where N's columns of 256 leave the last wave short and 192 a column more. Measured, it is
 * lower at long K, so that 224 loses where it only makes more tiles in the same rounds (README.md,
 * docs/42_width_224.md): step 43 ranks the widths there by rates of their own (long_k_tiles). */
static double wgmma_efficiency(int bn) {
    if (bn == 320) return 0.91; /* against n192 at equal work per SM (512 x 28672 x 4096) */
    if (bn == 224) return 0.975;
    return bn == 256 ? 1.0 : bn == 192 ? 0.95 : bn == 128 ? 0.88 : bn == 96 ? 0.77 : 0.57;
}

/* Swapped, N runs in tiles of 64 rows per consumer warpgroup: two (128 rows) where 64-row tiles
 * need a second, partial wave, streaming on a few SMs while the others idle; past 128 x SMs rows
 * the longer tiles measured no slower (docs/20_unaligned.md). */
static int swap_warpgroups(int n, int sms) {
    return ceil_div(n, 64) > sms ? 2 : 1;
}

/* Step 31: B's rows are not whole 32-byte sectors: N rounded up to 8 (step 31's copy pitch if N is
 * not a multiple of 8) is an odd multiple of 8, so every other row of B starts 16 bytes into a
 * sector and its 128 bytes in a box touch five sectors, not four (the likely cost: README.md). A
 * pair along M multicasts B, so each block reads half of it: there it paid also in fewer than two
 * waves, where the pairs add no wave and the problem is not short (the cluster's start and end:
 * PAIR_MIN_US). Fitted on shapes drawn for it; the odd-row condition below re-chosen after a
 * check on other shapes (README.md). N >= 64: a WIDE_B copy's rows are whole sectors. Step 32:
 * B's copy (N not a multiple of 8) has whole lines, and there the pair still measured as fast or
 * faster than one block a tile, so the rule keeps it (README.md). */
static bool split_sectors_pay(int m, int n, int bn, int sms, double us) {
    const int rows = ceil_div(m, 128), cols = ceil_div(n, bn);
    const int paired = 2 * ceil_div(rows, 2) * cols; /* an odd last row's partners multiply zeros */
    const bool same_waves = ceil_div(paired, sms) == ceil_div(rows * cols, sms);
    return n >= 64 && bn >= 128 && ceil_div(n, 8) % 2 == 1 && same_waves && us >= PAIR_MIN_US;
}

/* Step 39: the 192 x 96 tile turned round, the swapped product: 192 rows of N in the instruction's
 * M (three consumer warpgroups) and 96 rows of M in its N. A stage's B is then three whole boxes
 * of 64 columns, where the plain tile loads two for its 96 columns and reads a third of the bytes
 * never; A's 96 rows are one box. C leaves from the registers, the swapped product's store, not
 * by TMA, so only where K is long enough (TURN_MIN_K) for the loop to outweigh the store, and where
 * the turned tiles are no more than the plain ones: the count differs (192 rows of N against 96
 * columns), and a wave more lost up to 0.70x (README.md). */
#define TURN_MIN_K 1024
static bool turn_pays(int m, int n, int k) {
    return k >= TURN_MIN_K &&
           ceil_div(n, 192) * ceil_div(m, 96) <= ceil_div(m, 192) * ceil_div(n, 96);
}

/* Step 40: the turned tiles in pairs along M, a cluster of two blocks on tiles (x, 2j) and
 * (x, 2j + 1): both read the same 192 rows of B, and each loads half of a stage's k-rows of them
 * into both, so that B's tile leaves L2 once for two tiles (L2 was the busiest unit: README.md).
 * Where K is long (TURN_PAIR_MIN_K: at 1536^3 the pairs were slower) and the pairs run in one
 * wave, as on the shapes measured. M > 128 (tensor_plan), so there are two tiles along M or more;
 * with an odd count the last pair's second block multiplies zeros and stores nothing. */
#define TURN_PAIR_MIN_K 2048
static bool turned_pairs_pay(int m, int n, int k, int sms) {
    return k >= TURN_PAIR_MIN_K && 2 * ceil_div(ceil_div(m, 96), 2) * ceil_div(n, 192) <= sms;
}

/* Step 41: the turned pairs in fours, a cluster of four blocks on tiles (x, 4j) to (x, 4j + 3)
 * along M, each loading a quarter of a stage's k-rows of B into all four: B's tile leaves L2 once
 * for four tiles (18 KB a stage per tile, where a pair's sends 24). Only where the fours run at
 * once: quad_clusters of them fit the SMs (30 of 132), and the persistent grid hands a 31st
 * cluster's tiles to one that has finished its own, a second round (README.md). */
static int quad_clusters(int sms);
static bool turned_quads_pay(int m, int n, int sms) {
    return ceil_div(ceil_div(m, 96), 4) * ceil_div(n, 192) <= quad_clusters(sms);
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
    static const int widths[] = {320, 256, 224, 192, 128, 96, 64};
    for (int c = 0; c < 14; c++) { /* each width with the rule's warpgroups, then with one */
        const int bn = widths[c / 2];
        if (forced_bn ? bn != forced_bn : (swap && bn != 64) || (bn == 96 && m <= 128)) continue;
        /* 320 wide (two instructions, 3 stages in the ring): 128 rows, one K range; unforced only
         * where its tiles make one wave: across several it was slower (docs/25_last_wave.md) */
        const bool one_wave = m > 64 && ceil_div(m, 128) * ceil_div(n, 320) <= sms;
        if (bn == 320 && (c % 2 || forced_split || (!forced_bn && !one_wave))) continue;
        if (c % 2 && (bn == 96 || !short_too)) continue;
        /* M <= 64: one consumer warpgroup, 64 rows; a second would multiply rows of zeros. 96
         * wide: three (192 x 96: cuBLAS's tile count at 1536^3). Swapped: swap_warpgroups. */
        const int wg = c % 2 ? 1 : swap ? swap_warpgroups(n, sms) : bn == 96 ? 3 : m <= 64 ? 1 : 2;
        const int narrow_tiles = ceil_div(m, wg == 1 ? 64 : 128) * ceil_div(n, 64);
        const int tile_m = swap ? (m <= 16 ? 16 : 32) : 64 * wg, tile_n = swap ? 64 * wg : bn;
        const int tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n);
        int max_splits = slices / 4 < 1 ? 1 : slices / 4 > 32 ? 32 : slices / 4;
        if ((!forced_split && 2 * narrow_tiles >= sms) || forced_bn || bn == 320) max_splits = 1;
        for (int splits = forced_split && max_splits > 1 ? 2 : 1; splits <= max_splits; splits++) {
            if (splits > 1 && tiles * (splits - 1) >= sms && !forced_split)
                break; /* the tiles already fill the SMs */
            const long units = (long)tiles * splits, waves = (units + sms - 1) / sms;
            const double streaming = (swap ? SWAP_STREAM_SMS : TILE_STREAM_SMS) * sms;
            const double busy = units < streaming ? units / streaming : 1.0;
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
    const int tile_rows = ceil_div(m, 128); /* of the 128-row tiles the pair along M takes */
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
    } else if (!swap && !forced_bn && best.wg == 2 && tile_path(best.bn, -2) && k >= PAIR_M_MIN_K &&
               (tile_rows * ceil_div(n, best.bn) >= 2 * sms ||
                split_sectors_pay(m, n, best.bn, sms, best.us)) &&
               (tile_rows % 2 == 0 || m > 1024)) {
        /* Two waves of 128-row tiles or more: clusters of two tiles one above the other read
         * their columns of B once (on 60 fresh shapes 0.89 to 1.43 times step 25's speed, median
         * 1.10); in one wave, at smaller K or in a short problem it was as often slower
         * (README.md), except where B's rows are not whole sectors (step 31, split_sectors_pay).
         * An odd last tile row pairs with an empty one: from 9 rows (M > 1024), where it is at
         * most a tenth of the work (at M = 128, half: 0.74-0.79x, 128 x 128256; step 31: at 3
         * and 5 rows in one wave, 0.77-1.21x). */
        best.pair = -2;
        best.path = tile_path(best.bn, -2);
    }
    if (!forced_bn && !swap && best.bn == 96 && best.splits == 1 && turn_pays(m, n, k)) {
        best.swap = true; /* the same 192 x 96 tile, turned round */
        best.path = "turned_n96";
        if (turned_pairs_pay(m, n, k, sms)) best.pair = 2, best.path = "turned_pair";
        if (best.pair == 2 && turned_quads_pay(m, n, sms)) best.pair = 4, best.path = "turned_quad";
    }
    return best;
}

/* What the tile kernels need first: TMA moves rows of whole 16-byte units from 16-byte aligned
 * bases. PAD_A: A copied into rows of COPY_PITCH elements (K not a multiple of 8); PAD_B: B
 * likewise (N); C_DIRECT: C (FP32) stored without TMA (N not a multiple of 4). */
enum { PAD_A = 1, PAD_B = 2, C_DIRECT = 4, WIDE_B = 8, LINE_A = 16, LINE_B = 32, ROWS_B = 64 };
/* Step 32: a copy's rows are whole 128-byte lines, not the next 16 bytes. A TMA box row is 128
 * bytes; one that starts inside a line costs L2 at least two requests, and 16 bytes into a 32-byte
 * sector measured far more (Nsight Compute: README.md). The copy writes zeros out to the pitch,
 * which no box reads (the maps end at K and N). */
#define COPY_PITCH 64
static_assert(COPY_PITCH % 64 == 0, "a copy's rows start on 128-byte lines, as a TMA box row");
static int padding_for(const gemm_args *p) {
    return (p->k % 8 || (size_t)p->a % 16 ? PAD_A : 0) |
           (p->n % 8 || (size_t)p->b % 16 ? PAD_B : 0) |
           (p->n % 4 || (size_t)p->c % 16 ? C_DIRECT : 0);
}
/* The copies a tile kernel makes: padding_for's, and WIDE_B: B copied into rows of 64 elements
 * where N < 64 is not a multiple of 16 (not swapped), so that B's 64-wide box lies inside its map:
 * over rows of 16 or 48 bytes (N = 8, 24) the box slowed the whole pipeline (README.md). The copy
 * overlaps the tile kernel's start (griddep) and was measured to cost about a microsecond, which
 * the model does not charge: it pays from 1.5 M elements of A (3 MiB) on. */
/* Step 38, ROWS_B: a tile that can read B by rows (rows_tile: swapped, one consumer warpgroup
 * alone in its cluster, up to 32 rows of A) reads B where it lies instead of a copy of B, where B
 * has 2^23 elements or more: B is the bytes the tile streams, and the copy moved them across DRAM
 * three times. Below that size the copy stays in L2, and reading by rows measured no faster; and
 * from N = 1024 (the narrowest measured was 1,356), since a narrow B's staged rows span several. */
static int copies_for(const gemm_args *p, bool swap, bool rows_tile) {
    const bool wide_b = !swap && p->n < 64 && p->n % 16 && (double)p->m * p->k >= 3 << 19;
    const int pad = padding_for(p) | (wide_b ? PAD_B | WIDE_B : 0);
    const bool by_rows = rows_tile && p->n >= 1024 && (double)p->k * p->n >= 1 << 23;
    return by_rows && pad & PAD_B ? (pad & ~PAD_B) | ROWS_B : pad;
}
static int copies_for(const gemm_args *p, const gemm_plan &plan) {
    return copies_for(p, plan.swap, rows_tile(plan.swap, plan.wg, plan.pair, plan.bn));
}

/* Step 33: the tensor maps promote an L2 miss to the aligned 256 bytes that hold the sector
 * asked for (make_map's default; the driver API names the sizes, not what the L2 does with them).
 * Where an operand's rows are not whole 128-byte lines (K for A, N for B, not a multiple of 64, or
 * a base inside a line), half or more of its 128-byte box rows touch two lines, and there 128-byte
 * fills measured faster (README.md): LINE_A, LINE_B. Below 64, where a row is shorter than a line,
 * the flag is set too and measured neither faster nor slower. A copy's rows are whole lines. */
static int line_fills(const gemm_args *p, int copies) {
    const bool a = !(copies & PAD_A) && (p->k % 64 || (size_t)p->a % 128);
    const bool b = !(copies & (PAD_B | ROWS_B)) && (p->n % 64 || (size_t)p->b % 128);
    return (a ? LINE_A : 0) | (b ? LINE_B : 0);
}
static CUtensorMapL2promotion l2_fill(bool one_line) {
    return one_line ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

/* Step 34: where an operand's rows are not whole 128-byte lines, its boxes cost L2 about twice
 * the requests (step 33), and L2's request rate, not DRAM or the tensor cores, bounds a long K
 * loop. A cluster of four blocks along M loads each box of B once for four tiles (along N, A's),
 * where a pair loads it once for two. Only where the plan's 128-wide tiles stay as they are: the
 * number of tile rows (along N, columns) a multiple of four, so that no block of a cluster
 * multiplies zeros; where no wave is added (quad_clusters); and at K >= QUAD_MIN_K, where the
 * loop is long enough for the rate to bound it (README.md). Where both directions qualify, the
 * cluster shares the operand with more box rows to read (arithmetic, not measured both ways:
 * with 64-row tiles B has twice A's; with 128-row tiles and both rows inside lines they differ
 * only by the last tile row's and column's padding). */
#define QUAD_MIN_K 2048
/* Clusters of four that run at once: each needs four free SMs of one GPC, and the H200's 132 SMs
 * hold 30 (cudaOccupancyMaxActiveClusters; 66 pairs): not every GPC's SMs are a multiple of 4.
 * The plan scales that by the SMs; the launch asks the GPU, which may hold another number. */
static int quad_clusters(int sms) { return sms * 30 / 132; }
static gemm_plan four_blocks(const gemm_args *p, gemm_plan plan, int fills, int sms) {
    if (plan.swap || plan.splits > 1 || plan.bn != 128 || p->k < QUAD_MIN_K || !quad_clusters(sms))
        return plan;
    const int rows = ceil_div(p->m, 64 * plan.wg), cols = ceil_div(p->n, 128);
    if (ceil_div(rows * cols, 4 * quad_clusters(sms)) > ceil_div(rows * cols, sms)) return plan;
    const double a_requests = (fills & LINE_A ? 2.0 : 1.0) * p->m * cols;
    const double b_requests = (fills & LINE_B ? 2.0 : 1.0) * p->n * rows;
    const bool along_m = fills & LINE_B && rows % 4 == 0, along_n = fills & LINE_A && cols % 4 == 0;
    if (!along_m && !along_n) return plan;
    plan.pair = along_m && (!along_n || b_requests >= a_requests) ? -4 : 4;
    plan.path = tile_path(128, plan.pair);
    return plan;
}

/* Step 35: 64 x 128 tiles (one consumer warpgroup) in pairs along M where four_blocks took none,
 * B's rows are not whole lines and the tile rows are even: each block loads half of a stage's
 * k-rows of B and multicasts them to both, so B, two thirds of the tile's bytes, leaves L2 once for
 * two tiles. A block of a pair loads half of B, of a cluster of four a quarter: the pair saves
 * less, and at K of 2048-4095 as many shapes ran slower as faster (README.md). Pairs along N
 * (sharing A, a third) and of 128-row tiles (B half the bytes) measured mixed (README.md). 66 pairs
 * run at once on 132 SMs: an even number of tile rows adds no wave (the plan assumes sms / 2). */
#define SHORT_PAIR_MIN_K 4096
static gemm_plan short_pairs(const gemm_args *p, gemm_plan plan, int fills) {
    if (plan.splits > 1 || plan.bn != 128 || plan.wg != 1 || plan.pair != 1 ||
        p->k < SHORT_PAIR_MIN_K || !(fills & LINE_B) || ceil_div(p->m, 64) % 2)
        return plan;
    plan.pair = -2;
    plan.path = tile_path(128, plan.pair);
    return plan;
}

/* Step 36: at 64 < M <= 96 the plan's tiles are 128 rows, or two tile rows of 64, of which M fills
 * part (at M = 79 they compute 128 rows, and two tile rows read B twice unless paired). Swapped,
 * A's rows lie in the instruction's N, as many as M rounded up to 32 (swap_width): one tile column
 * covers M and reads B once. N runs in tiles of 64 or 128 rows, stacked in clusters of four that
 * multicast A's rows, each block loading a quarter: A, which every swapped tile reads, leaves L2
 * once for four tiles. cuBLAS takes such tiles on these shapes (docs/35_short_pairs.md). The grid:
 * of 64- or 128-row tiles and K ranges of at least QUAD_MIN_K, the one whose clusters all run at
 * once and keep the most SMs busy, each added K range discounting the count by a tenth (its
 * planes, the second launch): on the shapes profiled, cuBLAS's choice. Only where that grid keeps
 * half the SMs busy or more (fewer: not measured), and from K = QUAD_MIN_K, as step 34's clusters.
 * Not where the plan already splits K (its planes fill the SMs) or M > 96 (a swap width of 128
 * saves no rows against 128-row tiles): there the clusters lost out of sample
 * (docs/36_swap_clusters.md).
 */
static gemm_plan swap_clusters(const gemm_args *p, gemm_plan plan, int sms) {
    const int at_once = quad_clusters(sms);
    if (plan.swap || plan.splits > 1 || p->m <= 64 || p->m > 96 || p->k < QUAD_MIN_K
        || !at_once)
        return plan;
    int wg = 0, splits = 0, blocks = 0;
    double best = 0.0;
    for (int w = 1; w <= 2; w++)
        for (int s = 1; s <= p->k / QUAD_MIN_K; s++) {
            const int clusters = ceil_div(ceil_div(p->n, 64 * w), 4);
            const double busy = 4.0 * clusters * s / (1.0 + 0.1 * (s - 1));
            if (clusters * s <= at_once && busy > best)
                best = busy, wg = w, splits = s, blocks = 4 * clusters * s;
        }
    if (!wg || 2 * blocks < sms) return plan; /* more than one wave, or few blocks: not measured */
    /* the width is 96 here; the replaced plan's estimate stays (not refitted for these tiles) */
    return (gemm_plan){"quad_swap", swap_width(p->m), wg, splits, -4, true, plan.us};
}

/* Step 43: at long K, where most SMs load, a block of one tile waits on its loads of A's rows and
 * B's columns every k-step; a block of a pair along M loads half of a stage's k-rows of B, into
 * both (README.md: the tensor pipe's activity, the DRAM bytes). So from K = 2048 (step 43's fit)
 * pairs along M pay in fewer than two waves too, and the widths rank otherwise than by the model's
 * rates. docs/42 forced every tile path on 39 large shapes of K >= 2048 (H100); each rate below is
 * a path's median there: its work a round over its time, against pair_m_n256's on the shape. A
 * round: a tile on every SM (one block a tile), or a pair on every two, the partner of an odd last
 * tile row multiplying zeros. Where a round keeps fewer than two thirds of the SMs busy, one block
 * a tile ran about as fast as the pair (36-84 tiles of 132: 0.91-1.06 of its rate): fewer blocks
 * share the memory system. The plan's tiles (one block a tile or pairs along M, 64 or 128 rows)
 * give way to the width and cluster whose rounds take least, if that is strictly less; 320 (one
 * wave only), one block of 128 (not measured), 96 and 64 wide, pairs along N, clusters of four,
 * swapped tiles and split K stay, and so does the plan's estimate. Pairs along M need two tile
 * rows of 128 or more; at two to four they are measured only at M = 512 (README.md), and an odd
 * count pairs too (step 26 paired one only past M = 1024). Where 224 and 256 wide both make one
 * round of one block a tile (64 x 28672 x 8192), 256 wins on a margin of 2.5%.
 * Step 44: from K = 512 (LONG_PAIR_MIN_K), where the plan's estimate is PAIR_MIN_US or more: at K
 * of 512-2047 the rates chose as well on shapes not fitted on (docs/43_long_k_pairs.md); below
 * PAIR_MIN_US step 26's pairs ran slower (not tried here). */
#define LONG_PAIR_MIN_K 512
static const struct {
    int bn;
    double pair_m, one_block; /* at long K, against pairs of 256-wide tiles; 0: not measured */
} LONG_K_RATES[] = {{256, 1.00, 0.89}, {224, 0.93, 0.76}, {192, 0.90, 0.76}, {128, 0.74, 0.0}};
static double long_k_time(int m, int n, int bn, int wg, int pair, int sms) {
    const int rows = ceil_div(m, 64 * wg), cols = ceil_div(n, bn);
    for (const auto &r : LONG_K_RATES) {
        if (r.bn != bn) continue;
        const int pairs_at_once = std::max(1, sms / 2);
        if (pair == -2) return ceil_div(ceil_div(rows, 2) * cols, pairs_at_once) * bn / r.pair_m;
        if (r.one_block <= 0.0) return 0.0;
        const int tiles = rows * cols;
        const double rate = 3 * std::min(tiles, sms) >= 2 * sms ? r.one_block : r.pair_m;
        return ceil_div(tiles, sms) * bn / rate;
    }
    return 0.0; /* a width without rates */
}
static gemm_plan long_k_tiles(const gemm_args *p, gemm_plan plan, int sms) {
    const int m = p->m, n = p->n;
    if (p->k < LONG_PAIR_MIN_K || plan.us < PAIR_MIN_US || plan.swap || plan.splits > 1 ||
        plan.wg > 2 || (plan.pair != 1 && plan.pair != -2))
        return plan;
    double least = long_k_time(m, n, plan.bn, plan.wg, plan.pair, sms);
    if (least <= 0.0) return plan;
    for (const auto &r : LONG_K_RATES)
        for (int pair : {1, -2}) { /* one block a tile, then pairs along M */
            if (pair == -2 && (plan.wg != 2 || m <= 128)) continue; /* two tile rows or more */
            const double t = long_k_time(m, n, r.bn, plan.wg, pair, sms);
            if (t > 0.0 && t < least)
                least = t, plan.bn = r.bn, plan.pair = pair, plan.path = tile_path(r.bn, pair);
        }
    return plan;
}

/* Step 45: swapped tiles (M <= 32, one consumer warpgroup, one block a tile, one K range)
 * launched as clusters of four blocks that share nothing: a cluster's blocks run at once on one
 * GPC, on four tiles side by side along N. At N = 4096 the plan's 64 blocks streamed B at 58% of
 * the DRAM's peak against cuBLAS's 68% with as many blocks, in clusters of four (Nsight Compute,
 * docs/44_k_pairs.md). So launched, the same kernel ran 1.05-1.13x faster in a sweep of N at M =
 * 4 (K = 4096 and 14336) where the tiles number 56-88 on 132 SMs, and 1.01-1.11x on 12 drawn
 * shapes of 56-91 tiles; below 56, 0.99-1.04x; at 96-120, 0.97-1.05x; past 4 x quad_clusters, a
 * wave more: 0.83-0.87x (README.md). Where the plan splits K the split stays: clusters with one K
 * range in its place lost up to 0.87x. Padded shapes (plan_for's aligned chain only) are not
 * measured. On an H100 only. */
#define GROUP_BLOCKS 4
#define GROUP_MIN_TILES 56 /* of 132 SMs: the tiles' bounds, scaled with the SMs */
#define GROUP_MAX_TILES 92
static gemm_plan grouped_swaps(gemm_plan plan, int n, int sms) {
    const int tiles = ceil_div(n, 64);
    if (!plan.swap || plan.wg != 1 || plan.pair != 1 || plan.splits != 1 || !quad_clusters(sms) ||
        tiles * 132 < GROUP_MIN_TILES * sms || tiles * 132 > GROUP_MAX_TILES * sms)
        return plan;
    plan.group = GROUP_BLOCKS;
    plan.path = "grouped_swap";
    return plan;
}

/* A shape without 16-byte rows: the tile kernels on padded copies (path "padded"), or at K <= 32
 * small_k, where the fallback's estimate beats theirs with the copy's launch and bytes added (and
 * C's bytes, on their side only: fitted where the two meet, README.md): 32 x 32 tiles, 2 blocks
 * per SM, a 32-deep K slice a DRAM latency (FALLBACK_SLICE_US), FALLBACK_FLOPS (not refitted:
 * small_k is as fast or faster there). Step 29: past K = 32 the fallback has a rule of its own. */
#define FALLBACK_SLICE_US 1.5
#define FALLBACK_FLOPS 8.5e12
#define COPY_LAUNCH_US 4.0 /* what the copy's launch adds to a small problem on the H200 */
static gemm_plan padded_plan(const gemm_args *p, int sms, int pad) {
    gemm_plan plan = long_k_tiles(p, tensor_plan(p->m, p->n, p->k, sms, 0, false), sms);
    plan.path = "padded";
    const bool b_copied = pad & PAD_B && !(copies_for(p, plan) & ROWS_B); /* step 38: by rows */
    const double copied = (pad & PAD_A ? (double)p->m * p->k : 0.0) +
                          (b_copied ? (double)p->k * p->n : 0.0); /* elements, 2 bytes each */
    if (copied > 0.0) plan.us += 2.0 * 2.0 * copied / DRAM_BYTES_PER_S * 1e6 + COPY_LAUNCH_US;
    plan.us += 4.0 * p->m * p->n / DRAM_BYTES_PER_S * 1e6; /* C, which a small K leaves */
    const double waves = std::ceil((double)ceil_div(p->m, 32) * ceil_div(p->n, 32) / (2.0 * sms));
    const double fallback_us = std::max(waves * ceil_div(p->k, 32) * FALLBACK_SLICE_US,
                                        2.0 * p->m * p->n * (double)p->k / FALLBACK_FLOPS * 1e6);
    return p->k <= SMALL_K_SLICE && fallback_us < plan.us ? named("small_k") : plan;
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
        /* where both fit, gemv_n: gemv_m's threads own 8 columns each, mostly idle at N <= 8.
         * Not N of 5 to 8 with K past one GEMV_N_CHUNK and M >= 128: its 8 sums a lane are CUDA-
         * core work that the padded tiles beat (README.md; M < 128 was not measured) */
        const bool gemv_n = p->n <= GEMV_ROWS && (pad & PAD_A || p->n == 1) &&
                            (p->n <= 4 || p->k <= GEMV_N_CHUNK || p->m < 128);
        /* One K slice of small_k (common/small_k_prefetch.cuh), and at most a 32 x 32 block per
         * SM (a cut measured, not a limit; step 30: half that where rows are not 16-byte units,
         * K > 16 and M > 8, past which mma_small's 32 x 32 tiles were faster; at M <= 8 gemv_m
         * took those shapes and was slower: README.md), or gemv_n's shapes
         * (a warp per row, at most 4 of its lanes loading), or N <= 8 (a tile 64 wide, mostly
         * zeros): a small kernel without tensor maps starts sooner, or runs more rows at once */
        const int small_k_grid = pad && p->k > 16 && p->m > GEMV_ROWS ? sms / 2 : sms;
        const bool tiny = p->k <= 32 && (ceil_div(p->m, 32) * ceil_div(p->n, 32) <= small_k_grid ||
                                         gemv_n || p->n <= GEMV_ROWS);
        /* C without a tensor map and K <= 16: storing C is the time, small_k's stores beat the
         * tile kernels' and it copies nothing (step 28: to K = 16 from 8, where it measured
         * faster than the padded tiles: docs/28_small_k_prefetch.md) */
        const bool stores = pad & C_DIRECT && p->k <= 16;
        /* Step 29, for rows that are not 16-byte units (README.md, docs/29_mma_small.md, fitted
         * on shapes with each kernel forced): mma_small past K = 16 (below, step 28's small
         * kernels measured faster). One 32-deep slice: where C leaves without TMA (the padded
         * tiles store it a row of 32 floats at a time too) or its tiles fit the SMs at once,
         * MMA_SMALL_BLOCKS an SM (with more waves and a TMA store, the padded tiles were
         * faster). Step 30, with leaner loads and 32 x 32 tiles on small grids: two slices where
         * one of these holds, three where the tiles fit the SMs at once (past them, and past one
         * wave with a TMA store, the padded tiles were faster: README.md); at any M (at M <= 32
         * it beat the fallback and the swapped tiles). */
        const bool c_direct = pad & C_DIRECT, one_wave = mma_small_one_wave(p->m, p->n, sms);
        const bool one_slice = p->k > 16 && p->k <= MMA_SMALL_BK && (c_direct || one_wave);
        const bool two_slices =
            p->k > MMA_SMALL_BK && p->k <= 2 * MMA_SMALL_BK && (c_direct || one_wave);
        const bool three_slices = p->k > 2 * MMA_SMALL_BK && p->k <= 3 * MMA_SMALL_BK && one_wave;
        const bool mma = pad && (one_slice || two_slices || three_slices);
        /* Step 27: N <= 32 (a warp's 4 column tiles; at 64 its registers halve the blocks an SM
         * holds), either where A would be copied and the grid gives every SM a block (fewer
         * blocks stream too little at once: README.md), or with aligned rows at K <= 3 steps of
         * STREAM_STEP, where a tile 64 wide, mostly zeros, has little to pipeline, and A of at
         * most 8 MB (past it, a block's few stages in a row were slower than the tiles' ring) */
        const stream_n_grid sg = stream_n_shape(p->m, p->k, sms);
        const bool stream =
            p->n <= 32 && (pad & PAD_A ? sg.classes * sg.blocks_per_class * sg.splits >= sms
                                       : p->n > 1 && p->k <= 3 * STREAM_STEP &&
                                             (double)p->m * p->k <= 1 << 22);
        const int fills = line_fills(p, 0); /* the unpadded operands' rows: step 33's flags */
        *plan = tiny            ? named("small_k")
                : stream        ? named("stream_n")
                : gemv_n        ? named("gemv_n")
                : gemv_m        ? named("gemv_m")
                : stores        ? named("small_k")
                : mma           ? named("mma_small")
                : pad           ? padded_plan(p, sms, pad)
                : grouped_swaps(swap_clusters(p, short_pairs(p, long_k_tiles(p, four_blocks(p,
                      tensor_plan(p->m, p->n, p->k, sms, 0, false), fills, sms), sms), fills), sms),
                                p->n, sms);
    } else if (!strcmp(f, "gemv_m") || !strcmp(f, "gemv_n") || !strcmp(f, "fallback") ||
               !strcmp(f, "small_k") || !strcmp(f, "mma_small")) {
        *plan = named(f); /* these kernels take every shape */
    } else if (!strcmp(f, "stream_n")) {
        if (p->n > 64) {
            snprintf(why, len, "stream_n holds all of a row's columns in a warp: N <= 64");
            return 1;
        }
        *plan = named(f);
    } else if (!strcmp(f, "padded")) { /* the tile kernels' choice, on copies where needed */
        *plan = long_k_tiles(p, tensor_plan(p->m, p->n, p->k, sms, 0, false), sms);
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
    } else if (!strcmp(f, "grouped_swap")) { /* step 45: the swapped tiles in clusters of four */
        if (!quad_clusters(sms)) {
            snprintf(why, len, "grouped_swap needs clusters of four SMs: %d SMs hold none", sms);
            return 1;
        }
        *plan = (gemm_plan){f, swap_width(p->m), swap_warpgroups(p->n, sms), 1, 1, true, 0.0};
        plan->group = GROUP_BLOCKS;
    } else if (!strcmp(f, "swap")) { /* M in the instruction's N: swap_width's rows of A */
        *plan = (gemm_plan){f, swap_width(p->m), swap_warpgroups(p->n, sms), 1, 1, true, 0.0};
    } else if (!strcmp(f, "turned_n96")) { /* step 39: 192 rows of N by 96 of M, one K range */
        *plan = (gemm_plan){f, 96, 3, 1, 1, true, 0.0};
    } else if (!strcmp(f, "turned_pair")) { /* step 40: those in pairs along M sharing B */
        *plan = (gemm_plan){f, 96, 3, 1, 2, true, 0.0};
    } else if (!strcmp(f, "turned_quad")) { /* step 41: in fours */
        if (!quad_clusters(sms)) {
            snprintf(why, len, "turned_quad needs clusters of four SMs: %d SMs hold none", sms);
            return 1;
        }
        *plan = (gemm_plan){f, 96, 3, 1, 4, true, 0.0};
    } else if (!strcmp(f, "quad_swap")) { /* clustered swapped tiles, 64 rows of N where they
                                           * all run at once, one K range */
        if (p->m <= 16 || p->m > 128) {
            snprintf(why, len, "quad_swap stacks four swapped tiles along N: 17 to 128 rows of A "
                     "(M) in the instruction's N");
            return 1;
        }
        if (!quad_clusters(sms)) {
            snprintf(why, len, "quad_swap needs clusters of four SMs: %d SMs hold none", sms);
            return 1;
        }
        const int wg = ceil_div(p->n, 64) <= 4 * quad_clusters(sms) ? 1 : 2;
        *plan = (gemm_plan){f, swap_width(p->m), wg, 1, -4, true, 0.0};
    } else if (!strcmp(f, "pair_swap")) { /* M <= 16: two swapped tiles along N, each block
                                           * loading 8 of the 16 rows of A */
        if (p->m > 16) {
            snprintf(why, len, "pair_swap stacks two swapped tiles along N: at most 16 rows of A "
                     "(M) in the instruction's N");
            return 1;
        }
        *plan = (gemm_plan){f, 16, swap_warpgroups(p->n, sms), 1, -2, true, 0.0};
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
        /* pairs along M: 64-row tiles where tensor_plan gives them to this width (M <= 64, or
         * where 64-row tiles are tried) and they are instantiated, else 128 rows */
        if (plan->pair == -2 && !tile_exists(plan)) plan->wg = 2;
    }
    if (plan->bn && !tile_exists(plan)) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles, swap %d, cluster %d",
                 64 * plan->wg, plan->bn, plan->swap, plan->pair);
        return 1;
    }
    return 0;
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg, bool swap, int pair, int splits, int pad,
                          int group) {
    static const char *const copies[] = {"", " pad=A", " pad=B", " pad=AB"};
    static const char *const fills[] = {"", " fill=A", " fill=B", " fill=AB"}; /* one line a miss */
    /* (the swapped and split products store C from registers, without TMA, whatever N is) */
    const bool direct = pad & C_DIRECT && !swap && splits == 1;
    /* the cluster's blocks and what they share: m, n (stacked along M or N), g (nothing) */
    const char *const kind = pair < 0 ? (swap ? "n" : "m") : group > 1 ? "g" : "";
    snprintf(out, sizeof(((gemm_args *)0)->kernel),
             "tile=%dx%d wg=%d swap=%d cluster=%d%s splits=%d%s%s%s%s%s", 64 * wg, bn, wg, swap,
             pair < 0 ? -pair : pair * group, kind, splits, copies[pad & (PAD_A | PAD_B)],
             pad & WIDE_B ? "64" : "", pad & ROWS_B ? " rows=B" : "", fills[pad / LINE_A & 3],
             direct ? " store=direct" : "");
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
 * per SM, added by splitk_reduce; not at K <= 512. Own instantiation: it slowed whole K (docs).
 * Step 25: also where blocks fill more than half the SMs (the rule above takes the others) but
 * its warps (a row each) are fewer than GEMV_N_WARPS per SM and K spans chunks: a warp's 4 loads
 * in flight leave DRAM idle (README.md); as many ranges as bring them there, each at least a
 * GEMV_N_CHUNK, in blocks of 8 rows. */
#define GEMV_N_WARPS 16
struct gemv_n_grid {
    int blocks, k_chunk, planes, threads;
};
static gemv_n_grid gemv_n_shape(int m, int n, int k, int sms) {
    const int cn = gemv_n_cols(n);
    const long long warps = (long long)m * ceil_div(n, cn); /* a forced plan may overflow int */
    const int rows = n > 1 && k > 512 && ceil_div(m, 16) * ceil_div(n, cn) >= sms ? 16 : 8;
    gemv_n_grid g = {ceil_div(m, rows) * ceil_div(n, cn), 0, 1, 32 * rows};
    int ranges = 1;
    if (g.blocks * 2 <= sms && k > 512)
        ranges = ceil_div(sms, g.blocks);
    else if (warps < GEMV_N_WARPS * sms && k > GEMV_N_CHUNK)
        ranges = std::min(ceil_div(GEMV_N_WARPS * sms, (int)warps), k / GEMV_N_CHUNK);
    if (ranges < 2) return g; /* one range (so at 16 rows): writes C */
    g = {ceil_div(m, 8) * ceil_div(n, cn), 0, 1, 256};
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
    const int copies = plan.bn ? copies_for(p, plan) : 0;
    if (plan.bn)
        describe_tile(p->kernel, plan.bn, plan.wg, plan.swap, plan.pair, plan.splits,
                      copies | line_fills(p, copies), plan.group);
    else if (!strcmp(plan.path, "gemv_m")) {
        const gemv_m_grid g = gemv_m_shape(p->m, p->n, p->k, sms);
        describe_gemv_m(p->kernel, g.rows, g.planes);
    }
    else if (!strcmp(plan.path, "gemv_n"))
        describe_gemv_n(p->kernel, gemv_n_cols(p->n), gemv_n_shape(p->m, p->n, p->k, sms));
    else if (!strcmp(plan.path, "stream_n"))
        describe_stream_n(p->kernel, stream_n_tiles(p->n), stream_n_shape(p->m, p->k, sms));
    else if (!strcmp(plan.path, "small_k"))
        describe_small_k(p->kernel, small_k_tile(p->m, p->n, sms));
    else if (!strcmp(plan.path, "mma_small"))
        describe_mma_small(p->kernel, mma_small_tile(p->m, p->n, sms),
                           mma_small_blocks(p->m, p->n, sms));
    else
        describe_fallback(p->kernel);
    return 0;
}
