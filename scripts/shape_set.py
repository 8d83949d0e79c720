#!/usr/bin/env python3
"""The shapes `make shapes` measures the library step on, beside the article's nine: a list a
library's users would call, not the rows a kernel was tuned on.

    python3 scripts/shape_set.py             # every shape, one MxNxK per line, generated first
    python3 scripts/shape_set.py --summary   # how many, how many unaligned, the FLOPs range
    python3 scripts/shape_set.py --article   # the second article's nine shapes
    python3 scripts/shape_set.py --fresh SEED [--count N] [--min-gflop G]
        # N shapes (64) drawn as the generated ones are, from another seed, each of at least G
        # GFLOP (0): a set nothing was tuned on, 64 to a line, for a step's --shapes

- generated: GENERATED shapes from a fixed seed, each dimension log-uniform in 1 .. 16384, the
  product capped (FLOP_CAP, and each matrix at most MAX_ELEMENTS) so that the whole run takes
  minutes. Every second shape has K and N rounded up to multiples of 8 (the tensor maps' 16-byte
  rows); the others keep what they drew, so that about half have K or N not a multiple of 8.
- model: the projections of Llama-class transformers as x W^T (M tokens, N outputs, K inputs):
  hidden 4096 (Llama 3 8B: QKV 6144, O 4096, gate/up 14336, down from 14336) and hidden 8192
  (Llama 3 70B: QKV 10240, O 8192, gate/up 28672, down from 28672), and an LM head of 128,256
  outputs, at M = 1, 2, 4, 8, 16, 32, 64, 128, 512 and 4096 tokens.
"""
import math
import random
import sys

SEED = 29
GENERATED = 240
MAX_DIM = 16384
FLOP_CAP = 2 ** 36          # 2 M N K: about 0.1 ms on an H200, 69 GFLOP
MAX_ELEMENTS = 2 ** 27      # A, B and C each at most 128 M elements (512 MB as FP32)
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 512, 4096)
MODELS = {  # hidden: (QKV outputs, intermediate size)
    4096: (6144, 14336),
    8192: (10240, 28672),
}
VOCAB = 128256
# The second article's table: N = K = 8192 with M small, then M = K = 8192 with N small.
ARTICLE = [(1, 8192, 8192), (16, 8192, 8192), (64, 8192, 8192), (256, 8192, 8192), (4096, 8192, 8192),
           (8192, 1, 8192), (8192, 16, 8192), (8192, 64, 8192), (8192, 256, 8192)]


def generated(seed=SEED, count=GENERATED, min_flops=0.0):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        m, n, k = (int(math.exp(rng.uniform(0.0, math.log(MAX_DIM + 1)))) for _ in range(3))
        m, n, k = max(1, min(m, MAX_DIM)), max(1, min(n, MAX_DIM)), max(1, min(k, MAX_DIM))
        if len(out) % 2 == 0:  # aligned: K and N whole 16-byte units of 16-bit elements
            n, k = min(-(-n // 8) * 8, MAX_DIM), min(-(-k // 8) * 8, MAX_DIM)
        if not min_flops <= 2 * m * n * k <= FLOP_CAP or max(m * k, k * n, m * n) > MAX_ELEMENTS:
            continue
        out.append((m, n, k))
    return out


def model():
    out = []
    for hidden, (qkv, inter) in MODELS.items():
        for tokens in TOKENS:
            out += [(tokens, qkv, hidden), (tokens, hidden, hidden), (tokens, inter, hidden),
                    (tokens, hidden, inter), (tokens, VOCAB, hidden)]
    return list(dict.fromkeys(out))


def unaligned(shape):
    return shape[1] % 8 != 0 or shape[2] % 8 != 0


def fresh_args(args):
    """--fresh SEED [--count N] [--min-gflop G] as (seed, count, min GFLOP), or None if malformed."""
    opts = dict(zip(args[::2], args[1::2]))
    if len(args) % 2 or args[0] != "--fresh" or len(opts) != len(args) // 2 or \
            not set(opts) <= {"--fresh", "--count", "--min-gflop"}:
        return None
    try:
        seed, count, gflop = int(opts["--fresh"]), int(opts.get("--count", 64)), \
            float(opts.get("--min-gflop", 0))
    except ValueError:
        return None
    # the cap bounds what can be drawn: past it no shape qualifies and the draw would not end
    if count < 1 or not 0 <= gflop * 1e9 <= FLOP_CAP / 2:
        return None
    return seed, count, gflop


def main():
    args = sys.argv[1:]
    if args[:1] == ["--fresh"]:
        parsed = fresh_args(args)
        if parsed is None:
            print("error: --fresh takes a seed (an integer), then optionally --count N (>= 1) and "
                  f"--min-gflop G (0 .. {FLOP_CAP / 2e9:.0f})\n\n" + __doc__.strip(), file=sys.stderr)
            return 2
        seed, count, gflop = parsed
        shapes = [f"{m}x{n}x{k}" for m, n, k in generated(seed, count, gflop * 1e9)]
        for i in range(0, len(shapes), 64):  # a step's --shapes takes at most 64
            print(",".join(shapes[i:i + 64]))
        return 0
    if args not in ([], ["--summary"], ["--article"]):
        print(__doc__.strip(), file=sys.stdout if args in (["-h"], ["--help"]) else sys.stderr)
        return 0 if args in (["-h"], ["--help"]) else 2
    gen, mod = generated(), model()
    if args == ["--article"]:
        print(" ".join(f"{m}x{n}x{k}" for m, n, k in ARTICLE))
        return 0
    if args == ["--summary"]:
        flops = [2.0 * m * n * k for m, n, k in gen]
        print(f"generated: {len(gen)} shapes (seed {SEED}), {sum(map(unaligned, gen))} with K or N not a "
              f"multiple of 8, {min(flops):.3g} to {max(flops):.3g} FLOPs; model: {len(mod)} shapes")
        return 0
    for m, n, k in gen + mod:
        print(f"{m}x{n}x{k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
