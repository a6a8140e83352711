#!/usr/bin/env python3
"""A GPU loop over batches of varying size that returns its memory to the driver after every batch, the way code
with dynamic shapes often does: each iteration draws a batch of a different number of rows, runs a few elementwise
steps and a per-row centring on it, reduces the result to two checksums, drops its tensors and calls
torch.cuda.empty_cache() (to "fight fragmentation").

The work itself is small (a few memory-bound kernels over 8-64 MB). The cost is the allocator's: empty_cache()
hands every cached block back to the driver, so each iteration's tensors are allocated from the driver again
(cudaMalloc in PyTorch's native allocator) and freed again at the next empty_cache(). Nothing here depends on where
memory lives, so the checksums are the same bit for bit whatever allocator PYTORCH_CUDA_ALLOC_CONF picks.

Output (--out, default out.npy): a float64 array of shape (warmup + iters, 2). Row i holds iteration i's sum of
squares of its centred tensor (in float64) and the sum of that tensor's float32 bit patterns read as int32 (an exact
integer, taken modulo 2**52 so that float64 holds it exactly).

Prints `it/s: N` at the end: iterations per second over the timed iterations (after --warmup untimed ones).
--skip-empty-cache leaves out the empty_cache() calls: a reference for what the loop costs without them (the most any
allocator setting could win), not the job as shipped.
"""
import argparse
import array
import os
import random
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
    p.add_argument("--cols", type=int, default=4096, help="columns of every batch")
    p.add_argument("--min-rows", type=int, default=512, help="fewest rows of a batch")
    p.add_argument("--max-rows", type=int, default=4096, help="most rows of a batch")
    p.add_argument("--iters", type=int, default=800, help="timed iterations")
    p.add_argument("--warmup", type=int, default=20, help="untimed iterations first")
    p.add_argument("--skip-empty-cache", action="store_true",
                   help="reference only: do not call torch.cuda.empty_cache()")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    if not 1 <= a.min_rows <= a.max_rows or a.iters < 1:
        p.error("need 1 <= --min-rows <= --max-rows and --iters >= 1")

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    empty_cache = cuda and not a.skip_empty_cache

    def sync():
        if cuda:
            torch.cuda.synchronize(dev)

    total = a.warmup + a.iters
    rows = random.Random(a.seed)
    shapes = [rows.randint(a.min_rows, a.max_rows) for _ in range(total)]
    g = torch.Generator(device=dev)
    g.manual_seed(a.seed)
    float_sums = torch.zeros(total, dtype=torch.float64, device=dev)
    bit_sums = torch.zeros(total, dtype=torch.int64, device=dev)

    def step(i):
        x = torch.randn(shapes[i], a.cols, generator=g, device=dev)
        y = torch.tanh(x * 0.5 + 0.25)
        z = y * x
        w = z - z.mean(dim=1, keepdim=True)
        float_sums[i] = w.double().square().sum()
        bit_sums[i] = w.view(torch.int32).to(torch.int64).sum()
        del x, y, z, w
        if empty_cache:
            torch.cuda.empty_cache()

    for i in range(a.warmup):
        step(i)
    sync()
    t0 = time.perf_counter()
    for i in range(a.warmup, total):
        step(i)
    sync()
    elapsed = time.perf_counter() - t0

    values = []
    for f, b in zip(float_sums.cpu().tolist(), bit_sums.cpu().tolist()):
        values += [f, float(b % (1 << 52))]
    save_npy(a.out, values, (total, 2), "d")

    if cuda:
        stats = torch.cuda.memory_stats(dev)
        detail = "allocator %s, %s device allocations and %s frees in all, peak reserved %.0f MB" % (
            torch.cuda.get_allocator_backend(), stats.get("num_device_alloc", "?"), stats.get("num_device_free", "?"),
            stats.get("reserved_bytes.all.peak", 0) / 1e6)
        name = torch.cuda.get_device_name(dev)
    else:
        detail, name = "no allocator (cpu)", "cpu"
    print("alloc_churn: %s, %s; %d iterations of %d-%d x %d in %.3f s%s" % (
        name, detail, a.iters, a.min_rows, a.max_rows, a.cols, elapsed,
        " (empty_cache skipped)" if a.skip_empty_cache else ""), file=sys.stderr)
    print("it/s: %.4f" % (a.iters / elapsed), flush=True)


if __name__ == "__main__":
    main()
