#!/usr/bin/env python3
"""How far TF32 moves fp32_matmul.py's output, estimated on the CPU with numpy (no GPU, no torch).

Runs the job's network (He-scaled weights, ReLU, --layers layers of width --dim) on --rows rows twice: once in full
precision (float32 inputs, float64 accumulation, rounded to float32 per layer: close to cuBLAS SGEMM) and once with
every GEMM input reduced to TF32 first (10 explicit mantissa bits), both by rounding to nearest and by truncation,
since which one the tensor cores' conversion does is not assumed here. Then it prints the error of the job's output
block (the first 256 activations of each row) and of the row sums, and, for a few (rtol, atol) pairs, how many
elements fail |a-b| <= max(atol, rtol*max(|a|,|b|)) and the worst element's share of its allowance.

The random numbers are numpy's, not the job's, so this is a statistical estimate of the error's size, not a
prediction of any one element.
"""
import argparse

import numpy as np


def to_tf32(x, mode):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    if mode == "nearest":
        bits = bits + (1 << 12)  # half of the 13 dropped bits: round half away from zero on the magnitude
    bits = bits & ~np.uint64((1 << 13) - 1)
    return bits.astype(np.uint32).view(np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dim", type=int, default=4096)
    p.add_argument("--rows", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    weights = [(rng.standard_normal((a.dim, a.dim)) * np.sqrt(2.0 / a.dim)).astype(np.float32)
               for _ in range(a.layers)]
    x = rng.standard_normal((a.rows, a.dim)).astype(np.float32)

    def forward(mode):
        h = x
        for w in weights:
            lhs, rhs = (h, w) if mode is None else (to_tf32(h, mode), to_tf32(w, mode))
            h = np.maximum((lhs.astype(np.float64) @ rhs.astype(np.float64)).astype(np.float32), 0)
        return h

    ref = forward(None)
    keep = min(256, a.dim)
    print("full precision: activations' rms %.3f, max %.2f, %.0f%% zeros"
          % (np.sqrt((ref ** 2).mean()), ref.max(), 100 * (ref == 0).mean()))
    for mode in ("nearest", "truncate"):
        out = forward(mode)
        r, t = ref[:, :keep], out[:, :keep]
        d = np.abs(t - r)
        rs_r, rs_t = ref.astype(np.float64).sum(1), out.astype(np.float64).sum(1)
        print("TF32 by %s: block |diff| rms %.1e max %.1e; row sums' largest relative diff %.1e"
              % (mode, np.sqrt((d ** 2).mean()), d.max(), np.max(np.abs(rs_t - rs_r) / np.abs(rs_r))))
        for rtol, atol in ((1e-2, 1e-3), (1e-2, 1e-2), (1e-2, 2e-2), (2e-2, 5e-2)):
            allowed = np.maximum(atol, rtol * np.maximum(np.abs(r), np.abs(t)))
            print("  rtol %-5g atol %-5g: %5d of %d fail, worst uses %.2f of its allowance"
                  % (rtol, atol, int((d > allowed).sum()), d.size, (d / allowed).max()))


if __name__ == "__main__":
    main()
