#!/usr/bin/env python3
"""make plot: the pictures of results/<gpu>.csv.

    python3 scripts/plot.py [CSV ...] [--out DIR]

For each results file (default: results/*.csv) writes, next to it or in DIR:
  <gpu>_steps.png  GFLOPS per step at 4096^3 (make bench's rows), each bar
                   labelled with its % of cuBLAS, cuBLAS's level drawn per
                   data type;
  <gpu>_sizes.png  GFLOPS against matrix size per step and cuBLAS (make
                   sweep's rows), when the file has any;
  <gpu>_shapes.png the library step's % of cuBLAS against FLOPs on make
                   shapes' broad set, coloured by path;
  <gpu>_roofline.png each step at 4096^3 (make bench's rows): its tiles'
                   arithmetic intensity against its TFLOPS, under the
                   datasheet's peak and DRAM bandwidth where they are known.
Needs matplotlib; without it, says how to install it and exits 1.
"""
import argparse
import collections
import glob
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps as stepinfo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def label(step, dtype):
    return step if dtype == "fp32" else f"{step} {dtype}"


def plot_steps(plt, rows, gpu, out):
    rows = [r for r in rows if r["run"] == "bench" and stepinfo.at_main_shape(r)]
    if not rows:
        return None
    rows.sort(key=lambda r: (r["step"], r["dtype"]))
    colors = {"fp32": "#4C72B0", "fp16": "#DD8452", "bf16": "#55A868"}
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(rows) + 2), 5.5))
    x = range(len(rows))
    gflops = [float(r["gflops"]) / 1000 for r in rows]
    bars = ax.bar(x, gflops, color=[colors.get(r["dtype"], "#8172B3") for r in rows])
    for bar, r in zip(bars, rows):
        ax.annotate(f"{100 * float(r['ratio']):.1f}%", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    # cuBLAS's level per data type: the median of its runs beside each step of that type.
    levels = sorted(((statistics.median(float(r["cublas_gflops"]) for r in rows if r["dtype"] == d) / 1000, d)
                     for d in {r["dtype"] for r in rows}), reverse=True)
    above = None  # the level labelled just above its line; a close level below it is labelled under its own
    for level, dtype in levels:
        under = above is not None and level > 0.92 * above
        ax.axhline(level, color=colors.get(dtype, "#8172B3"), linestyle="--", linewidth=1)
        ax.annotate(f"cuBLAS {dtype}: {level:.1f} TFLOPS", (-0.5, level), ha="left", va="top" if under else "bottom",
                    fontsize=8, color=colors.get(dtype, "#8172B3"), xytext=(2, -2 if under else 2),
                    textcoords="offset points")
        above = None if under else level
    top = max(gflops + [float(r["cublas_gflops"]) / 1000 for r in rows])
    ax.set_ylim(0, 1.12 * top)
    ax.set_xticks(list(x))
    ax.set_xticklabels([label(r["step"], r["dtype"]) for r in rows], rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("TFLOPS")
    ax.set_title(f"{gpu}: every step at 4096^3, % of cuBLAS timed in the same process")
    dates = sorted({r["date"] for r in rows})
    fig.text(0.01, 0.01, f"driver {rows[0]['driver']}, CUDA {rows[0]['cuda']}, {dates[0]}"
             + (f" to {dates[-1]}" if len(dates) > 1 else ""), fontsize=7, color="gray")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_sizes(plt, rows, gpu, out):
    """One panel for FP32 (against cuBLAS SGEMM), one for the tensor-core types (against cublasGemmEx):
    their scales differ by more than ten times."""
    rows = [r for r in rows if r["run"] == "sweep" and r["m"] == r["n"] == r["k"]]
    if not rows:
        return None
    panels = [(title, [r for r in rows if (r["dtype"] == "fp32") == is_fp32])
              for title, is_fp32 in (("FP32", True), ("FP16 / BF16 in, FP32 accumulate", False))]
    panels = [p for p in panels if p[1]]
    fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 5.5), squeeze=False)
    for ax, (title, panel) in zip(axes[0], panels):
        series = collections.defaultdict(dict)
        cublas = collections.defaultdict(dict)
        for r in panel:
            n = int(r["m"])
            series[label(r["step"], r["dtype"])][n] = float(r["gflops"]) / 1000
            cublas[r["dtype"]].setdefault(n, []).append(float(r["cublas_gflops"]) / 1000)
        colors = plt.get_cmap("tab10").colors
        for i, name in enumerate(sorted(series)):
            pts = sorted(series[name].items())
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, linewidth=1.2, label=name,
                    color=colors[i % len(colors)], linestyle="-" if i < len(colors) else ":")
        for dtype, style in zip(sorted(cublas), ("--", "-.", ":")):
            pts = sorted((n, statistics.median(v)) for n, v in cublas[dtype].items())
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", linestyle=style, marker="s",
                    markersize=3, linewidth=1.5, label=f"cuBLAS {dtype}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("M = N = K")
        ax.set_ylabel("TFLOPS")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"{gpu}: GFLOPS against size (make sweep)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_shapes(plt, rows, gpu, out):
    """The library step on make shapes' generated and model shapes: % of cuBLAS against FLOPs, one
    mark per shape and dtype, coloured by the path it took."""
    import results_table
    sets, last = results_table.shape_set_rows(rows)
    mine = (sets.get("generated") or []) + (sets.get("model") or []) if sets else []
    if not mine:
        return None
    fig, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20")  # 20 colours, 4 markers: paths 20 apart share both
    for i, path in enumerate(sorted({r["path"] for r in mine})):
        sel = [r for r in mine if r["path"] == path]
        ax.scatter([2.0 * int(r["m"]) * int(r["n"]) * int(r["k"]) for r in sel],
                   [100 * float(r["ratio"]) for r in sel], s=14, label=path, alpha=0.85,
                   color=colours(i % 20), marker="o^sD"[i % 4])
    ax.set_xscale("log")
    ax.axhline(100, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("FLOPs (2 M N K)")
    ax.set_ylabel("% of cuBLAS")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=3)
    ax.set_title(f"{gpu}: {last} on make shapes' generated and model shapes")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


# HBM bandwidth by the vendor's datasheet, TB/s (the peaks: results_table.PEAK_GFLOPS).
DRAM_TBPS = {"NVIDIA H200": 4.8}


def tile_intensity(r):
    """FLOPs per byte that a block's tiles load from global memory at make bench's shape: a BM x BN
    tile multiplies (BM + BN) BK loaded elements into 2 BM BN BK FLOPs. Steps 01 and 02 tile
    nothing: an FMA loads one element of A and one of B. A step that picks its tile per shape
    reports it (`tile=BMxBN` in its kernel column); the others are drawn from their configuration
    as scripts/figures.py reads it. In a cluster of P blocks (`cluster=P`, side by side: they share
    the A tile; `cluster=Pm`, along M: the B tile) a block loads 1 / P of the shared tile."""
    import figures
    esize = 4 if r["dtype"] == "fp32" else 2
    if int(r["step"][:2]) <= 2:
        return 2.0 / (2 * esize)
    m = re.search(r"tile=(\d+)x(\d+)", r.get("kernel") or "")
    if m:
        bm, bn = int(m.group(1)), int(m.group(2))
    else:
        lay = figures.layout(r["step"], figures.config(r["step"])[0])
        bm, bn = lay["BM"], lay["BN"]
    c = re.search(r"cluster=(\d+)(m?)\b", r.get("kernel") or "")
    share = int(c.group(1)) if c else 1
    loaded = bm + bn / share if c and c.group(2) else bm / share + bn
    return 2.0 * bm * bn / (loaded * esize)


def steps_label(steps):
    """{11, 12, 13, 15} as "11-13, 15"."""
    out, run = [], []
    for n in sorted(steps):
        if run and n != run[-1] + 1:
            out.append(f"{run[0]:02d}" + (f"-{run[-1]:02d}" if len(run) > 1 else ""))
            run = []
        run.append(n)
    out.append(f"{run[0]:02d}" + (f"-{run[-1]:02d}" if len(run) > 1 else ""))
    return ", ".join(out)


def plot_roofline(plt, rows, gpu, out):
    """A roofline per dtype family: each step at 4096^3, x its tiles' intensity, y its TFLOPS; the
    ceilings are the datasheet's dense peak and DRAM bandwidth times the intensity. A point above
    the DRAM line gets more bytes from L2 than from DRAM: the tiles of neighbouring blocks share
    panels of A and B there."""
    import results_table
    rows = [r for r in rows if r["run"] == "bench" and stepinfo.at_main_shape(r)]
    if not rows:
        return None
    families = [(name, [r for r in rows if (r["dtype"] == "fp32") == (name == "FP32")])
                for name in ("FP32", "FP16 / BF16")]
    families = [(name, sel) for name, sel in families if sel]
    fig, axes = plt.subplots(1, len(families), figsize=(6.5 * len(families), 5.2), squeeze=False)
    colors = {"fp32": "#4C72B0", "fp16": "#DD8452", "bf16": "#55A868"}
    for ax, (name, sel) in zip(axes[0], families):
        xs = [tile_intensity(r) for r in sel]
        ys = [float(r["gflops"]) / 1000 for r in sel]
        for x, y, r in zip(xs, ys, sel):
            ax.scatter([x], [y], s=22, color=colors.get(r["dtype"], "#8172B3"))
        # one label per cluster of points (same intensity, within 12% in TFLOPS): its steps
        groups = []
        for x, y, r in sorted(zip(xs, ys, sel), key=lambda t: (t[0], -t[1])):
            if groups and abs(groups[-1][0] - x) < 1e-9 and y > groups[-1][1] / 1.12:
                groups[-1][2].add(int(r["step"][:2]))
            else:
                groups.append([x, y, {int(r["step"][:2])}])
        placed = []  # a label near one already placed (x within a factor 1.8) goes below its point
        for x, y, steps in groups:
            near = any(abs(math.log10(x / px)) < 0.25 and max(y, py) / min(y, py) < 1.12 for px, py in placed)
            ax.annotate(steps_label(steps), (x, y), fontsize=7, xytext=(4, -9 if near else 2),
                        textcoords="offset points")
            placed.append((x, y))
        peak = max((results_table.PEAK_GFLOPS.get(gpu, {}).get(r["dtype"]) or 0) for r in sel) / 1000
        dram = DRAM_TBPS.get(gpu)
        lo, hi = 0.1, 2 * max(xs + [100.0] + ([peak / dram] if peak and dram else []))
        if peak and dram:
            ridge = peak / dram
            ax.plot([lo, ridge, hi], [dram * lo, peak, peak], color="#333", lw=1.2)
            ax.annotate(f"peak {peak:.0f} TFLOPS (datasheet, boost clock)", (hi, peak), ha="right", va="bottom",
                        fontsize=7, xytext=(0, 2), textcoords="offset points")
            ax.annotate(f"DRAM {dram} TB/s x intensity", (lo * 3, dram * lo * 3), fontsize=7, rotation=33,
                        xytext=(0, 4), textcoords="offset points")
        blas = statistics.median(float(r["cublas_gflops"]) for r in sel) / 1000
        ax.axhline(blas, color="grey", ls="--", lw=0.8)
        ax.annotate(f"cuBLAS {blas:.0f} TFLOPS", (lo, blas), fontsize=7, color="grey", va="bottom",
                    xytext=(2, 2), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_xlabel("FLOPs per byte a block's tiles load (BM x BN; a cluster's shared tile split)")
        ax.set_ylabel("TFLOPS")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(name)
    fig.suptitle(f"{gpu}: each step at 4096^3 under the roofline")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main():
    ap = argparse.ArgumentParser(description="plot results/<gpu>.csv")
    ap.add_argument("csv", nargs="*", help="results files (default: results/*.csv)")
    ap.add_argument("--out", help="directory for the PNGs (default: next to each CSV)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # ImportError, or a broken install
        print(f"plot: matplotlib is not usable by {sys.executable} ({type(e).__name__}); install it with "
              "`apt-get install python3-matplotlib` (Debian/Ubuntu, for /usr/bin/python3) or `pip install matplotlib`",
              file=sys.stderr)
        return 1
    paths = args.csv or sorted(glob.glob(os.path.join(ROOT, "results", "*.csv")))
    if not paths:
        print("plot: no results files (run `make bench` on a GPU)", file=sys.stderr)
        return 1
    for path in paths:
        rows = stepinfo.read_results(path)
        if not rows:
            print(f"plot: {path} has no rows", file=sys.stderr)
            return 1
        base = os.path.splitext(os.path.basename(path))[0]
        out = args.out or os.path.dirname(os.path.abspath(path))
        os.makedirs(out, exist_ok=True)
        gpu = rows[0]["gpu"]
        for kind, fn in (("steps", plot_steps), ("sizes", plot_sizes), ("shapes", plot_shapes),
                         ("roofline", plot_roofline)):
            written = fn(plt, rows, gpu, os.path.join(out, f"{base}_{kind}.png"))
            print(f"plot: wrote {os.path.relpath(written)}" if written
                  else f"plot: {os.path.basename(path)} has no "
                  f"{ {'steps': 'make bench rows at 4096^3', 'sizes': 'make sweep rows', 'shapes': 'shape-set rows', 'roofline': 'make bench rows at 4096^3'}[kind]}; "
                  f"no {base}_{kind}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
