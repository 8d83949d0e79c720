#!/usr/bin/env python3
"""make figures: each step's tiling, drawn as NN_name/tiling.svg from the configuration it is
built with on the course's reference GPU (its gemm.cu defines, then the flags file make picks
for an NVIDIA H200: tuned/NVIDIA_H200.flags, tuned/sm_90.flags, tuned/default.flags).

    python3 scripts/figures.py            # write the SVGs (make figures)
    python3 scripts/figures.py --check    # exit 1 if a committed SVG differs from its config

A figure shows the block's tiles of A, B and C to scale (K drawn wider where BK is thin), the
first warp's (or warpgroup's) tile of C, the elements of C that thread 0 (lane 0) owns and the
rows of A and columns of B it reads, and a note on the shared-memory layout and, from step 09
on, the pipeline.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import autotune  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_KEY, ARCH = "NVIDIA_H200", "sm_90"


def config(step):
    """The integer #defines of a step's gemm.cu, overridden by the flags file make picks for the
    reference GPU; and that file's name (or None)."""
    src = open(os.path.join(ROOT, step, "gemm.cu")).read()
    values = {k: int(v) for k, v in re.findall(r"^#define (\w+) (\d+)\b", src, re.M)}
    picked = None
    for name in (GPU_KEY, ARCH, "default"):
        path = os.path.join(ROOT, step, "tuned", name + ".flags")
        if os.path.isfile(path):
            values.update({k: int(v) for k, v in autotune.flags_file_values(path).items()})
            picked = os.path.relpath(path, ROOT)
            break
    return values, picked


def layout(step, c):
    """What to draw: tile sizes, the first warp's tile, thread 0's elements of C, and notes."""
    n = int(step[:2])
    if n == 3:
        b = c["BLOCK"]
        return dict(BM=b, BN=b, BK=b, warp=None, mine=[(0, 0)], who="thread 0",
                    notes=[f"{b * b} threads, one element of C each",
                           f"shared memory: As {b} x {b} and Bs {b} x {b}, one slice of K at a time"])
    if n == 4:
        return dict(BM=c["BM"], BN=c["BN"], BK=c["BK"], warp=None,
                    mine=[(i, 0) for i in range(c["TM"])], who="thread 0",
                    notes=[f"{c['BM'] * c['BN'] // c['TM']} threads, TM = {c['TM']} results each, down a column",
                           f"shared memory: As {c['BM']} x {c['BK']}, Bs {c['BK']} x {c['BN']}"])
    if n == 5:
        bm, bn, tm, tn = c["BM"], c["BN"], c["TM"], c["TN"]
        return dict(BM=bm, BN=bn, BK=c["BK"], warp=None,
                    mine=[(i * (bm // tm), j * (bn // tn)) for i in range(tm) for j in range(tn)], who="thread 0",
                    notes=[f"{(bm // tm) * (bn // tn)} threads, {tm} x {tn} results each, {bm // tm} rows and "
                           f"{bn // tn} columns apart",
                           f"shared memory: As {bm} x {c['BK']}, Bs {c['BK']} x {bn}"])
    if n in (6, 7):
        bm, bn, tm, tn = c["BM"], c["BN"], c["TM"], c["TN"]
        rows = [(i // 4) * (4 * bm // tm) + i % 4 for i in range(tm)]
        cols = [(j // 4) * (4 * bn // tn) + j % 4 for j in range(tn)]
        return dict(BM=bm, BN=bn, BK=c["BK"], warp=None, mine=[(r, q) for r in rows for q in cols], who="thread 0",
                    notes=[f"{(bm // tm) * (bn // tn)} threads, {tm} x {tn} results each in 4 x 4 blocks "
                           f"(one float4 each way)",
                           f"shared memory: As transposed, {c['BK']} x ({bm} + 4) (padded), Bs {c['BK']} x {bn}"])
    if n == 8:
        bm, bn, wm, wn, tm, tn, wniter = c["BM"], c["BN"], c["WM"], c["WN"], c["TM"], c["TN"], c["WNITER"]
        wmiter = wm * wn // (32 * tm * tn * wniter)
        subm, subn = wm // wmiter, wn // wniter
        mine = [(a * subm + r, b * subn + q) for a in range(wmiter) for b in range(wniter)
                for r in range(tm) for q in range(tn)]
        return dict(BM=bm, BN=bn, BK=c["BK"], warp=(wm, wn), mine=mine, who="lane 0 of warp 0",
                    notes=[f"{(bm // wm) * (bn // wn)} warps of {wm} x {wn}, each {wmiter} x {wniter} sub-tiles of "
                           f"{subm} x {subn}; a lane: {tm} x {tn} per sub-tile",
                           f"shared memory: 2 stages of As ({c['BK']} x ({bm} + 4), transposed) and Bs "
                           f"({c['BK']} x {bn})"])
    if n in (9, 10):
        bm, bn, wm, wn = c["BM"], c["BN"], c["WM"], c["WN"]
        mine = [(i * 16 + h, j * 8 + e) for i in range(wm // 16) for j in range(wn // 8) for h in (0, 8)
                for e in (0, 1)]
        ring = (f"a ring of {c['STAGES']} stages filled by cp.async" if n == 10 else
                f"a ring of {c.get('STAGES', 3)} stages, filled through registers")
        return dict(BM=bm, BN=bn, BK=c["BK"], warp=(wm, wn), mine=mine, who="lane 0 of warp 0",
                    notes=[f"{(bm // wm) * (bn // wn)} warps of {wm} x {wn}: {wm // 16} x {wn // 8} mma.sync "
                           f"m16n8k16 tiles; a lane holds rows g, g + 8 and columns 2t, 2t + 1 of each",
                           f"shared memory: 16-bit rows padded by {c['PAD']} elements (16 bytes); {ring}"])
    if n == 27:  # the step's new kernel, stream_n, at N = 32 (what plan.h gives it)
        mine = [(h, 8 * j + e) for j in range(4) for h in (0, 8) for e in (0, 1)]
        return dict(BM=64, BN=32, BK=32, warp=(16, 32), mine=mine, who="lane 0 of warp 0",
                    notes=["stream_n (N <= 32): 4 warps of 16 rows x all N columns, 4 mma.sync m16n8k16 tiles a warp; "
                           "drawn: 32 of a 128-k stage",
                           "the block's 64 rows are r, r + G, r + 2G, ... of A (G = 8 / gcd(K, 8)): all start s "
                           "elements past 16 bytes",
                           "A: no shared memory; lane (g, t) loads 16-byte pieces of rows g and g + 8, k 8t .. 8t + 7 "
                           "of each 32 (lane 0: k 0-7),",
                           "  straight into the MMA's k-slots 2t, 2t + 1, 2t + 8, 2t + 9; B's lane reads the same 8 k "
                           "of column g of each tile",
                           "B: a 128-k stage by column in shared memory, shifted by s, 16-byte groups XOR-swizzled; "
                           "C stored from registers",
                           "other shapes: the Hopper tiles of steps 13-26 (plan.h)"])
    if n in (25, 28):  # small_k's 64 x 128 tile: step 25's new kernel, step 28 walking its tiles
        smem = ("shared memory: As 64 x (16 + 1) and Bs 16 x 128 floats, one K slice at a time; A and B "
                "read in place, 2 bytes an element")
        notes = (["small_k (small K, where plan.h sends it): the first of 64 x 128, 64 x 32 and 128 x 8 "
                  "that M and N fill by more than half",
                  "  and that gives every SM a block, else 32 x 8; drawn: 64 x 128, 256 threads, 8 x 4 "
                  "results each, rows 8 and columns 32 apart",
                  smem,
                  "at each of its elements a warp stores 32 consecutive floats of a row of C",
                  "other shapes: the Hopper tiles of steps 13-20 (plan.h)"] if n == 25 else
                 ["small_k's 64 x 128 tile (K <= 16 where C is stored directly, and step 25's shapes): "
                  "256 threads, 8 x 4 results each,",
                  "  rows 8 and columns 32 apart: at each of its elements a warp stores 32 consecutive "
                  "floats of a row",
                  smem,
                  "where the tiles make 1 to 8 waves of the blocks the SMs hold, a block walks tiles b, "
                  "b + grid, ... and loads its next slice",
                  "  (this tile's or its next tile's) before it multiplies this one and stores C",
                  "other shapes: the kernels of steps 13-27 (plan.h)"])
        return dict(BM=64, BN=128, BK=16, warp=None, mine=[(8 * i, 32 * j) for i in range(8) for j in range(4)],
                    who="thread 0", notes=notes)
    if n in (29, 30):  # the step's kernel, mma_small's 64 x 64 tile (its header's constants)
        mine = [(16 * i + h, 8 * j + e) for i in range(2) for j in range(4) for h in (0, 8) for e in (0, 1)]
        loads = ("A and B read in place, 2 bytes a load, predicated at every edge; the next 32-deep slice "
                 "loaded before this one's MMAs" if n == 29 else
                 "A and B read in place, 2 bytes a load, in pairs of consecutive k (a 32-bit shared store "
                 "each) from pointers that step; the next slice before this one's MMAs")
        return dict(BM=64, BN=64, BK=32, warp=(32, 32), mine=mine, who="lane 0 of warp 0",
                    notes=[f"mma_small (K 17-{64 if n == 29 else 96}, rows not 16-byte units): 4 warps of "
                           "32 x 32, 2 x 4 mma.sync m16n8k16 tiles a warp",
                           "  lane (g, t): rows g, g + 8 and columns 2t, 2t + 1 of each tile",
                           loads,
                           "shared memory: A's slice 64 x (32 + 8), B's transposed 64 x (32 + 8); then, in the same "
                           "bytes, C: 64 x (64 + 4) floats",
                           "  a warp stores 32 consecutive floats of a row; 4 blocks an SM, 6 past one wave of 4",
                           *([] if n == 29 else
                             ["32 x 32 tiles (4 warps of 16 x 16) where they number at most 5 an SM: a warp's "
                              "MMAs a slice a quarter, its loads half"]),
                           f"other shapes: the kernels of steps 13-{n - 1} (plan.h)"])
    # Hopper: consumer warpgroups of 64 rows; step 11 has no producer warpgroup.
    wg = c.get("WARPGROUPS", 2)
    bm, bn, bk = 64 * wg, c.get("BN", 256), c.get("BK", 64)
    if n == 42:  # the step's new width, drawn in place of the 128 x 256 tile of 4096^3
        bn = 224
    mine = [(h, 8 * j + e) for j in range(bn // 8) for h in (0, 8) for e in (0, 1)]
    stages = c.get("STAGES", 4)
    roles = ("thread 0 issues every TMA load; both warpgroups multiply" if n == 11 else
             f"a producer warpgroup (one thread issues TMA) and {wg} consumer warpgroups; persistent grid")
    extra = []
    if 13 <= n <= 20:
        extra.append("C leaves through shared memory in 64 x 32 FP32 chunks, one TMA store each")
    if 14 <= n <= 20:
        extra.append("drawn: the 128 x 256 tile of 4096^3; plan.h picks 64-256 columns, 1-3 warpgroups per shape")
    if 21 <= n <= 24:
        extra += ["x W^T: B's tile is 256 rows of W (stored N x K), one TMA box as A's, read by wgmma untransposed",
                  "C leaves in 64-row chunks of 128 bytes (32 FP32 or 64 bf16 columns), bias and activation "
                  "applied in registers, one TMA store each"]
    if 22 <= n <= 24:
        extra.append("with fewer tiles than half the SMs, K is split: a unit is (tile, K range); the last to arrive "
                     "adds the others' FP32 sums, then the epilogue")
    if 23 <= n <= 24:
        extra.append("M <= 4 (x W^T): not this tile but a GEMV kernel on the CUDA cores, a warp per 4 rows of W, "
                     "512 contiguous bytes of a row per load")
    if n == 24:
        extra.append("4 < M <= 64 (x W^T): the operands exchanged (C^T = W x^T), A's tile 128 rows of W, B's the "
                     "32 or 64 tokens; C stored from the registers")
    if n == 26:  # the step pairs the plan's tiles, not a new tile
        extra = ["where the 128-row tiles make two waves or more and K >= 512: two such tiles one above the "
                 "other make a cluster (pair along M),",
                 "  each block loads half of a stage's k-rows of B and multicasts them to both",
                 "other shapes: the kernels of steps 13-25 (plan.h)"]
    if n == 31:  # the step changes which tiles pair, not a tile: the pair along M that it takes more often
        extra = ["two such tiles one above the other make a cluster (pair along M): each block loads half of "
                 "a stage's k-rows of B",
                 "  and multicasts them to both; step 31 pairs also in one wave where N % 16 = 8 (a 128-byte "
                 "row of a B box then spans five 32-byte sectors)",
                 "other shapes: the kernels of steps 13-30 (plan.h)"]
    if n == 32:  # the step changes the copies' pitch, not a tile
        extra = ["a box row is 64 elements, 128 bytes: where K or N is not a multiple of 8, A or B is copied "
                 "first (pad_rows),",
                 "  since step 32 into rows of whole 128-byte lines (64 elements), so that L2 serves each box "
                 "row in one request",
                 "other shapes: the kernels of steps 13-31 (plan.h)"]
    if n == 33:  # the step changes a tensor-map field, not a tile
        extra = ["a box row is 64 elements, 128 bytes: where K (A) or N (B) is not a multiple of 64,",
                 "  half or more of the box rows start inside a line and touch two; since step 33",
                 "  those operands' tensor maps fill L2 128 bytes a miss, not 256",
                 "other shapes: the kernels of steps 13-32 (plan.h)"]
    if n == 34:  # the step changes which tiles make a cluster, not a tile
        extra = ["where K >= 2048 and an operand's rows are not whole 128-byte lines: four 128-wide tiles "
                 "make a cluster,",
                 "  along M (each block loads a quarter of a stage's k-rows of B and multicasts them to the "
                 "four) or along N (A's rows)",
                 "  where the tile rows (columns) are a multiple of four and the clusters add no wave",
                 "other shapes: the kernels of steps 13-33 (plan.h)"]
    if n == 35:  # the step pairs 64-row tiles, not a new tile
        extra = ["where K >= 4096, B's rows are not whole 128-byte lines, the 64 x 128 tile rows are "
                 "even and no cluster of four was taken:",
                 "  two tiles one above the other make a cluster; each block loads half of a stage's k-rows "
                 "of B and multicasts them to both",
                 "other shapes: the kernels of steps 13-34 (plan.h)"]
    if n == 36:  # the step clusters swapped tiles, not a new tile of the plain product
        extra = ["where 64 < M <= 96, K >= 2048 and the plan does not split K: the swapped product "
                 "C^T = B^T A^T, M rounded up to 32 (96) in wgmma's N,",
                 "  N in tiles of 64 or 128 rows, K in one or more ranges: the grid that keeps the most "
                 "SMs busy in one wave; four tiles stacked along N make a cluster:",
                 "  each block loads a quarter of a stage's rows of A and multicasts them to the four; K "
                 "split where the clusters are few",
                 "other shapes: the kernels of steps 13-35 (plan.h)"]
    if n == 38:  # the step reads B in place for the swapped tiles, not a new tile
        extra = ["where N >= 1024 is not a multiple of 8 (B's rows not 16-byte units), M <= 32 swapped "
                 "(one consumer warpgroup) and B has 2^23 elements or more:",
                 "  warp 0 stages each slice's 64 rows of B as the 9 aligned 16-byte units that hold "
                 "64 elements (cp.async), instead of a copy of B;",
                 "  the consumer loads wgmma's A operand (B^T) from them into registers (8 two-byte loads "
                 "a k16 step) and wgmma reads it there",
                 "other shapes: the kernels of steps 13-37 (plan.h)"]
    if n == 39:  # the step turns an existing tile round, not a new one
        extra = ["where the plan takes 192 x 96 tiles, K >= 1024 and turned round they are no more: "
                 "the swapped product C^T = B^T A^T,",
                 "  192 rows of N in three consumer warpgroups (wgmma's M) by 96 rows of M (its N): "
                 "B's stage is three whole 64-column boxes,",
                 "  where the plain tile loads two for 96 columns; C leaves from the registers",
                 "other shapes: the kernels of steps 13-38 (plan.h)"]
    if n == 40:  # the step pairs an existing tile, not a new one
        extra = ["where K >= 2048 and the pairs make one wave, step 39's turned tiles (192 rows of N by 96 "
                 "of M) in clusters of two along M:",
                 "  both blocks read the same 192 rows of B; each loads half of a stage's 64 k-rows of them "
                 "into both (TMA multicast),",
                 "  so B's tile leaves L2 once for two tiles; each block loads its own 96 rows of A",
                 "other shapes: the kernels of steps 13-39 (plan.h)"]
    if n == 41:  # the step clusters an existing tile, not a new one
        extra = ["where step 40 pairs the turned tiles and 30 clusters of four or fewer cover them, "
                 "the tiles in clusters of four along M:",
                 "  the four blocks read the same 192 rows of B; each loads a quarter of a stage's 64 "
                 "k-rows of them into all four (TMA multicast),",
                 "  so B's tile leaves L2 once for four tiles; each block loads its own 96 rows of A",
                 "other shapes: the kernels of steps 13-40 (plan.h)"]
    if n == 42:
        extra = ["where N's columns of 224 make fewer or fuller waves of 128-row tiles than those of 192 "
                 "or 256 (the plan's model): tiles 224 wide,",
                 "  one wgmma m64n224k16 a k16 step per consumer warpgroup (112 accumulators); B's stage "
                 "four 64-column boxes, the fourth read half;",
                 "  C leaves in seven 32-column chunks, one TMA store each",
                 "other shapes: the kernels of steps 13-41 (plan.h)"]
    if n == 43:  # the step re-chooses among existing tiles, not a new one
        extra = ["at K >= 2048: the width (256, 224, 192, 128) and cluster (one block a tile, or pairs "
                 "along M sharing B) whose rounds take least,",
                 "  a round of pairs being a pair on every two SMs, at rates measured at long K, where "
                 "blocks wait on their loads more than on the tensor cores",
                 "other shapes: the kernels of steps 13-42 (plan.h)"]
    if n == 44:  # the step moves step 43's threshold, not a tile
        extra = ["from K = 512 where the plan's estimate is 20 us or more (step 43: K >= 2048): the "
                 "width and cluster (one block a tile, or pairs",
                 "  along M sharing B) whose rounds take least, at step 43's rates",
                 "other shapes: the kernels of steps 13-43 (plan.h)"]
    if n == 45:  # the step launches an existing tile in clusters, not a new one
        extra = ["where M <= 32 takes swapped tiles of 64 rows of N in one K range and they number 56-92 "
                 "on 132 SMs: the same kernel,",
                 "  its blocks launched as clusters of four that share nothing (a cluster runs at once on "
                 "one GPC, four tiles side by side along N)",
                 "other shapes: the kernels of steps 13-44 (plan.h)"]
    if n == 46:  # the step shortens one store loop, not a tile
        extra = ["where C's rows are not 16-byte units (N not a multiple of 4, or C not on 16 bytes: no "
                 "tensor map for C), each warp stores a chunk's 16 rows",
                 "  of 32 columns from shared memory, a row's st.global then one add.s64 of the pointer "
                 "(step 45: a 64-bit multiply and four more per row)",
                 "other shapes: the kernels of steps 13-45 (plan.h)"]
    return dict(BM=bm, BN=bn, BK=bk, warp=(64, bn), mine=mine, who="lane 0 of warpgroup 0",
                notes=[f"{wg} warpgroups of 64 x {bn}: one wgmma m64n{bn}k16 per 16 of K; lane 0 holds rows 0 "
                       f"and 8, columns 8j and 8j + 1",
                       f"shared memory: 128-byte swizzle (16-byte chunk q of row r at q ^ r % 8); a ring of "
                       f"{stages} stages on mbarriers", roles] + extra)


def svg(step, lay, picked):
    bm, bn, bk = lay["BM"], lay["BN"], lay["BK"]
    s = 400.0 / max(bm, bn)                      # pixels per element along M and N
    sk = max(s, 60.0 / bk)                       # along K: at least 60 px for the slice
    x0, y0 = 20 + bk * sk + 30, 60 + bk * sk + 30  # C's corner; A to its left, B above it
    width = int(x0 + bn * s + 20)
    notes = lay["notes"] + [f"configuration: {picked or 'the defines of gemm.cu'}"]
    height = int(y0 + bm * s + 44 + 16 * (len(notes) + 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{max(width, 800)}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="10" y="18" font-size="13" font-weight="bold">{step}: BM x BN x BK = {bm} x {bn} x {bk}</text>']

    def rect(x, y, w, h, fill, stroke="#333", sw=1):
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{sw}"/>')

    def text(x, y, t, anchor="start"):
        out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{t}</text>')

    rows = sorted({r for r, _ in lay["mine"]})
    cols = sorted({q for _, q in lay["mine"]})
    # B above C, A left of C, C.
    rect(x0, 60, bn * s, bk * sk, "#eef5ff")
    text(x0, 52, f"B tile: {bk} x {bn}")
    rect(20, y0, bk * sk, bm * s, "#eef5ff")
    text(20, y0 - 8, f"A tile: {bm} x {bk}")
    rect(x0, y0, bn * s, bm * s, "#ffffff")
    text(x0 + bn * s / 2, y0 + bm * s + 16, f"C tile: {bm} x {bn}", "middle")
    if lay["warp"]:
        wm, wn = lay["warp"]
        for i in range(bm // wm):
            for j in range(bn // wn):
                rect(x0 + j * wn * s, y0 + i * wm * s, wn * s, wm * s, "#e8f3e8" if i == j == 0 else "none",
                     "#6a6", 0.8)
    for q in cols:  # what thread 0 reads: its columns of B and rows of A
        rect(x0 + q * s, 60, max(s, 1.0), bk * sk, "#f4a261", "none")
    for r in rows:
        rect(20, y0 + r * s, bk * sk, max(s, 1.0), "#f4a261", "none")
    for r, q in lay["mine"]:
        rect(x0 + q * s, y0 + r * s, max(s, 1.5), max(s, 1.5), "#c0392b", "none")
    y = y0 + bm * s + 34
    text(20, y, f"red: the elements of C that {lay['who']} owns; orange: the rows of A and columns of B "
         "it reads")
    if lay["warp"]:
        y += 16
        text(20, y, "green: the first warp's (warpgroup's) tile of C")
    for line in notes:
        y += 16
        text(20, y, line.replace("&", "&amp;").replace("<", "&lt;"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def steps():
    return sorted(d for d in os.listdir(ROOT) if re.match(r"\d\d_", d) and int(d[:2]) >= 3
                  and os.path.isfile(os.path.join(ROOT, d, "gemm.cu")))


def main():
    args = sys.argv[1:]
    if args not in ([], ["--check"]):
        print(__doc__.strip(), file=sys.stdout if args in (["-h"], ["--help"]) else sys.stderr)
        return 0 if args in (["-h"], ["--help"]) else 2
    stale = []
    for step in steps():
        c, picked = config(step)
        text = svg(step, layout(step, c), picked)
        path = os.path.join(ROOT, step, "tiling.svg")
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(os.path.relpath(path, ROOT))
            if not args:
                open(path, "w").write(text)
    if args == ["--check"]:
        if stale:
            print("stale figures (run `make figures`): " + ", ".join(stale))
            return 1
        print(f"figures: {len(steps())} up to date")
        return 0
    print("figures: wrote " + (", ".join(stale) if stale else "nothing (up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
