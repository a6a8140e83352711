#!/usr/bin/env python3
"""A plain PyTorch job for gitm's CUPTI injection checks (it knows nothing of gitm).

--mode mixed: GEMMs and elementwise ops on cuda for about --seconds.
--mode small: a handful of ops (a few hundred trace records), for a CI fixture.
--mode bench: a fixed GEMM-heavy loop, then a fixed elementwise-dense loop (many short kernels: each iteration
              is two elementwise ops, one kernel launch each), --dense-repeats times; prints GITM_RESULT
              {"gemm_s": ..., "dense_s": <first>, "dense_runs_s": [...], ...}, each timed from after warm-up to
              torch.cuda.synchronize().
"""
import argparse
import json
import time

import torch


def mixed(seconds):
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    x = torch.randn(1 << 20, device="cuda")
    iters = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        c = a @ b
        a = torch.tanh(c * 1e-3)
        x = torch.relu(x * 0.5 + 1.0) - 0.25
        y = x.cpu() if iters % 50 == 0 else None
        iters += 1
    torch.cuda.synchronize()
    return {"iterations": iters, "sum": float(a.sum().item() + x.sum().item())}


def small():
    x = torch.arange(4096, dtype=torch.float32).pin_memory().cuda(non_blocking=True)
    y = torch.ones(4096, device="cuda")
    for _ in range(20):
        y = y * 1.5 + x
    m = torch.randn(256, 256, device="cuda")
    z = m @ m
    torch.cuda.synchronize()
    return {"sum": float(y.sum().item() + z.sum().item())}


def bench(dense_repeats=1):
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    x = torch.randn(4096, device="cuda")
    for _ in range(5):
        c = a @ b
        x = x * 0.999 + 0.001
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(100):
        c = a @ b
    torch.cuda.synchronize()
    gemm = time.perf_counter() - t0
    runs = []
    for _ in range(max(1, dense_repeats)):
        t0 = time.perf_counter()
        for _ in range(5000):
            x = x * 0.999 + 0.001
        torch.cuda.synchronize()
        runs.append(time.perf_counter() - t0)
    return {"gemm_s": gemm, "gemm_iterations": 100, "dense_s": runs[0], "dense_runs_s": runs,
            "dense_iterations": 5000, "dense_kernels_per_iteration": 2,
            "check": float(c[0, 0].item() + x.sum().item())}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["mixed", "small", "bench"], default="mixed")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--dense-repeats", type=int, default=1)
    a = p.parse_args()
    r = mixed(a.seconds) if a.mode == "mixed" else small() if a.mode == "small" else bench(a.dense_repeats)
    print("GITM_RESULT " + json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
