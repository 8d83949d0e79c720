/*
 * plan.h: this step's dispatcher, the rules that choose a kernel and its instantiation for a shape.
 * Host code only, so that `gemm --plan` prints the choice without a GPU and tests/plans.txt checks
 * every rule on the CPU (make test). Included by gemm.cu after its kernels.
 */
typedef struct {
    const char *path;   /* one of PATHS */
    int bn, wg;         /* for the tensor-core paths: tile width, consumer warpgroups */
} gemm_plan;

static gemm_plan named(const char *path) { return (gemm_plan){path, 0, 0}; }

/* Every instantiation of the tile kernel as (BN, WG): gemm.cu instantiates these, and a plan names
 * one of them or is refused. */
#define TILE_KERNELS(X) X(256, 2) X(192, 2) X(128, 2) X(96, 3) X(64, 2)
static bool tile_exists(const gemm_plan *p) {
#define SAME_TILE(BN, WG) || (p->bn == BN && p->wg == WG)
    return false TILE_KERNELS(SAME_TILE);
#undef SAME_TILE
}

/* The forced paths of the tile kernel: their width. */
static const struct {
    const char *name;
    int bn;
} TILE_PATHS[] = {{"tma_n256", 256}, {"tma_n192", 192}, {"tma_n128", 128}, {"tma_n96", 96},
                  {"tma_n64", 64}};

/* The plan for a problem on `sms` SMs: 0, or 1 with the reason in why (a forced path that cannot
 * run on this shape: never a substitute). */
static int plan_for(const gemm_args *p, int sms, gemm_plan *plan, char *why, size_t len) {
    /* TMA needs 16-byte aligned rows (K and N multiples of 8) and 16-byte aligned bases. */
    const bool tma =
        p->k % 8 == 0 && p->n % 8 == 0 && ((size_t)p->a | (size_t)p->b | (size_t)p->c) % 16 == 0;
    const char *f = p->force_path;
    (void)sms; /* step 15's rules count the SMs */
    if (!f) {
        *plan = !tma ? named("fallback") : (gemm_plan){"tma_n256", 256, 2}; /* step 13's tile */
    } else if (!strcmp(f, "fallback")) {
        *plan = named(f); /* the CUDA-core kernel takes every shape */
    } else if (!tma) {
        snprintf(why, len, "%s needs K and N multiples of 8 (a tensor map's rows are whole 16-byte "
                 "units)", f);
        return 1;
    } else {
        int i = 0, count = sizeof TILE_PATHS / sizeof TILE_PATHS[0];
        while (i < count && strcmp(TILE_PATHS[i].name, f)) i++;
        if (i == count) {
            snprintf(why, len, "no path named %s", f);
            return 1;
        }
        /* that width; 96 wide with three warpgroups (192 x 96: cuBLAS's tile count at 1536^3) */
        *plan = (gemm_plan){f, TILE_PATHS[i].bn, TILE_PATHS[i].bn == 96 ? 3 : 2};
    }
    if (plan->bn && !tile_exists(plan)) {
        snprintf(why, len, "no kernel instantiated for %d x %d tiles", 64 * plan->wg, plan->bn);
        return 1;
    }
    return 0;
}

/* The instantiation a launch ran, in the words --plan, the summary and the CSV use. */
static void describe_tile(char *out, int bn, int wg) {
    snprintf(out, sizeof(((gemm_args *)0)->kernel), "tile=%dx%d wg=%d swap=0 cluster=1 splits=1",
             64 * wg, bn, wg);
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
        describe_tile(p->kernel, plan.bn, plan.wg);
    else
        describe_fallback(p->kernel);
    return 0;
}
