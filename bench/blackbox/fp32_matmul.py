#!/usr/bin/env python3
"""Inference of a plain FP32 MLP on the GPU: a stack of square linear layers with ReLU, run over two input batches
in turn, as a user who never heard of TF32 would write it.

Every forward pass is `--layers` GEMMs of (batch x dim) @ (dim x dim) in float32, so the job's time is almost all
cuBLAS SGEMM. PyTorch runs float32 matmuls in full FP32 unless told otherwise; TF32 tensor cores are several times
faster on Ampere and later. This script never touches the TF32 switches itself.

Weights are He-scaled (std sqrt(2/dim)), which keeps the activations' mean square at about 1 through any number of
ReLU layers, so nothing overflows or vanishes. Inputs and weights come from a seeded CUDA generator: the same seed
gives the same numbers on the same device.

Output (--out, default out.npy): a float32 array of shape (256, 257). Row r holds the first 256 activations of row r
of the last forward pass, then the mean over all timed passes of that row's sum over all `dim` activations.

Prints `it/s: N` at the end: forward passes per second over the timed passes (after --warmup untimed passes).
"""
import argparse
import array
import math
import os
import sys
import time

import torch


def save_npy(path, values, shape, typecode):
    """Writes a C-ordered little-endian .npy (format 1.0) from a flat sequence of numbers, without numpy."""
    descr = {"f": "<f4", "d": "<f8"}[typecode]
    data = array.array(typecode, values)
    if sys.byteorder != "little":
        data.byteswap()
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        f.write(data.tobytes())
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="out.npy")
    p.add_argument("--dim", type=int, default=4096, help="width of every layer")
    p.add_argument("--batch", type=int, default=8192, help="rows of every input batch")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--iters", type=int, default=100, help="timed forward passes")
    p.add_argument("--warmup", type=int, default=3, help="untimed forward passes first")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    keep = 256
    if a.batch < keep or a.dim < keep or a.iters < 1:
        p.error("--batch and --dim must be at least %d and --iters at least 1" % keep)

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize(dev)

    g = torch.Generator(device=dev)
    g.manual_seed(a.seed)
    scale = math.sqrt(2.0 / a.dim)
    weights = [torch.randn(a.dim, a.dim, generator=g, device=dev) * scale for _ in range(a.layers)]
    batches = [torch.randn(a.batch, a.dim, generator=g, device=dev) for _ in range(2)]

    def forward(x):
        h = x
        for w in weights:
            h = torch.relu(h @ w)
        return h

    for i in range(a.warmup):
        forward(batches[i % 2])
    sync()

    row_sums = torch.zeros(a.batch, dtype=torch.float64, device=dev)
    t0 = time.perf_counter()
    for i in range(a.iters):
        h = forward(batches[i % 2])
        row_sums += h.sum(dim=1, dtype=torch.float64)
    sync()
    elapsed = time.perf_counter() - t0

    block = h[:keep, :keep].float().cpu()
    means = (row_sums[:keep] / a.iters).float().cpu()
    out = torch.cat([block, means.unsqueeze(1)], dim=1).contiguous()
    save_npy(a.out, out.flatten().tolist(), (keep, keep + 1), "f")

    try:
        precision = torch.get_float32_matmul_precision()
    except Exception as e:  # reporting only
        precision = "unknown (%s)" % e
    name = torch.cuda.get_device_name(dev) if cuda else "cpu"
    flops = 2.0 * a.batch * a.dim * a.dim * a.layers * a.iters
    print("fp32_matmul: %s, float32 matmul precision '%s', %d passes of %d GEMMs %dx%dx%d in %.3f s, %.1f TFLOP/s"
          % (name, precision, a.iters, a.layers, a.batch, a.dim, a.dim, elapsed, flops / elapsed / 1e12),
          file=sys.stderr)
    print("it/s: %.4f" % (a.iters / elapsed), flush=True)


if __name__ == "__main__":
    main()
