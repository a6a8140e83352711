#!/usr/bin/env python3
"""A GPU step fed by CPU preprocessing in a multiprocessing pool, as a user might write it without a DataLoader:
--workers processes (spawned) each turn a batch index into a 1024x1024 "image" with torch CPU tensor ops (an integer
hash for the pixels, then normalisation, a flip and roll, clamping, a 3-tap smoothing and a 2x2 average pool, cropped
to 256x256), and the main process copies each result to the GPU and runs a launch-bound chain of small kernels on it.

Nothing sets a thread count, so every worker's torch uses its default number of intra-op (OpenMP) threads, about
one per core: with 8 workers on 16 cores that is far more busy threads than cores, and the main process, whose
thread must keep launching kernels, competes with all of them. A batch counts only when both its preprocessing and
its GPU step are done, and at most 2 x --workers batches are in flight, so the throughput depends on both sides.

Each preprocessing op rounds once per element (or copies, or is exact integer arithmetic), so its result does not
depend on how many threads split the work: the output is the same bit for bit whatever OMP_NUM_THREADS or CPU
affinity the process gets.

Output (--out, default out.npy): a float64 array of shape (warmup + batches, 2). Row i holds batch i's sum of the
preprocessed input and its sum after the GPU step (both reduced on the GPU in float32).

Prints `it/s: N` at the end: batches per second over the timed batches (after --warmup untimed ones).
"""
import argparse
import array
import collections
import multiprocessing
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


def preprocess(task):
    """One batch's CPU preprocessing (runs in a pool worker): a side x side image, 256x256 of it returned."""
    seed, b, side, passes = task
    i = torch.arange(side * side, dtype=torch.int64)
    h = (i * 2654435761 + (seed * 1000003 + b) * 40503) & 0xFFFFFFFF
    h = h ^ (h >> 15)
    h = (h * 2246822519) & 0xFFFFFFFF
    h = h ^ (h >> 13)
    x = (h & 0xFF).to(torch.float32).view(side, side)
    x = x * (1.0 / 255.0)
    x = x - 0.45
    x = x / 0.226
    if b % 2:
        x = torch.flip(x, dims=[1])
    x = torch.roll(x, shifts=(b % 7, b % 13), dims=(0, 1))
    x = torch.clamp(x, -1.75, 1.75)
    for _ in range(passes):
        x = (x[:, :-2] + x[:, 1:-1]) + x[:, 2:]
        x = x * (1.0 / 3.0)
    x = ((x[0::2, 0::2] + x[1::2, 0::2]) + (x[0::2, 1::2] + x[1::2, 1::2])) * 0.25
    r, c = (x.shape[0] - 256) // 2, (x.shape[1] - 256) // 2
    return x[r:r + 256, c:c + 256].contiguous()


def gpu_step(x, steps):
    """The main process's share of a batch: a chain of small elementwise kernels (3 launches a step)."""
    for k in range(steps):
        x = torch.tanh(x * (1.0 - 0.01 * (k % 5)) + 0.001 * k)
    return x


def threads():
    return torch.get_num_threads()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="out.npy")
    p.add_argument("--workers", type=int, default=8, help="preprocessing processes")
    p.add_argument("--side", type=int, default=1024, help="side of a preprocessed image")
    p.add_argument("--passes", type=int, default=4, help="smoothing passes of the preprocessing")
    p.add_argument("--steps", type=int, default=40, help="GPU step: elementwise stages (3 kernels each)")
    p.add_argument("--batches", type=int, default=300, help="timed batches")
    p.add_argument("--warmup", type=int, default=16, help="untimed batches first")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    if a.side - 2 * a.passes < 512 or a.workers < 1 or a.batches < 1:
        p.error("need --side - 2 * --passes >= 512, --workers >= 1 and --batches >= 1")

    total = a.warmup + a.batches
    window = 2 * a.workers
    with multiprocessing.get_context("spawn").Pool(a.workers) as pool:
        dev = torch.device(a.device)
        cuda = dev.type == "cuda"

        def sync():
            if cuda:
                torch.cuda.synchronize(dev)

        sums = torch.zeros(total, 2, dtype=torch.float32, device=dev)
        pending = collections.deque()
        submitted = 0

        def submit():
            nonlocal submitted
            pending.append(pool.apply_async(preprocess, ((a.seed, submitted, a.side, a.passes),)))
            submitted += 1

        while submitted < min(total, window):
            submit()
        worker_threads = pool.apply(threads)
        t0 = None
        for b in range(total):
            if b == a.warmup:
                sync()
                t0 = time.perf_counter()
            image = pending.popleft().get()
            if submitted < total:
                submit()
            x = image.to(dev)
            sums[b, 0] = x.sum()
            sums[b, 1] = gpu_step(x, a.steps).sum()
        sync()
        elapsed = time.perf_counter() - t0

    save_npy(a.out, sums.double().cpu().flatten().tolist(), (total, 2), "d")
    name = torch.cuda.get_device_name(dev) if cuda else "cpu"
    print("host_threads: %s, %d workers with %d intra-op threads each on %d CPUs (OMP_NUM_THREADS %s), "
          "%d batches in %.3f s" % (name, a.workers, worker_threads, len(os.sched_getaffinity(0)),
                                    os.environ.get("OMP_NUM_THREADS", "unset"), a.batches, elapsed), file=sys.stderr)
    print("it/s: %.4f" % (a.batches / elapsed), flush=True)


if __name__ == "__main__":
    main()
