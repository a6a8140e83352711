#!/usr/bin/env python3
"""Records a real PyTorch profiler (Kineto) trace on a CUDA GPU, for checking 'gitm trace import' against what Kineto
really writes. Usage: python3 record-kineto-trace.py OUT_DIR  (writes OUT_DIR/kineto-real.pt.trace.json and
OUT_DIR/kineto-real.txt with the versions). Needs PyTorch with CUDA; takes a few seconds."""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out_dir, exist_ok=True)
path = os.path.join(out_dir, "kineto-real.pt.trace.json")

dev = torch.device("cuda")
a = torch.randn(2048, 2048, device=dev)
b = torch.randn(2048, 2048, device=dev)
pageable = torch.randn(1 << 22)
pinned = torch.randn(1 << 22).pin_memory()
side = torch.cuda.Stream()


def step():
    c = a @ b                                   # cuBLAS GEMM
    d = torch.relu(c) + 1.0                     # ATen element-wise kernels
    x = pageable.to(dev)                        # Memcpy HtoD (Pageable -> Device)
    y = pinned.to(dev, non_blocking=True)       # Memcpy HtoD (Pinned -> Device)
    z = torch.zeros(1 << 20, device=dev)        # Memset (Device) or a fill kernel
    with torch.cuda.stream(side):               # a second stream
        w = torch.softmax(b, dim=1)
    torch.cuda.synchronize()                    # cudaDeviceSynchronize
    return d.sum().item() + x.sum().item() + y.sum().item() + z.sum().item() + w.sum().item()  # DtoH copies


for _ in range(3):
    step()                                      # warm up cuBLAS and the caching allocator

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
             schedule=schedule(wait=0, warmup=1, active=3),
             on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
    for _ in range(4):
        with record_function("gitm_step"):
            step()
        prof.step()

with open(os.path.join(out_dir, "kineto-real.txt"), "w") as f:
    f.write(f"torch {torch.__version__}, cuda {torch.version.cuda}, device {torch.cuda.get_device_name(0)}\n")
print("wrote", path, os.path.getsize(path), "bytes")
