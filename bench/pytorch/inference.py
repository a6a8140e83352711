"""An image-classification inference loop as users write it: a DataLoader at its defaults over images decoded per
item, a ResNet-style network in eval mode under no_grad, FP32, predictions gathered on the host.

--expert applies by hand what PyTorch's tuning guide recommends while keeping FP32 weights: DataLoader workers and
pinned memory, cudnn.benchmark, TF32, channels_last. Writes the logits of the first 256 images to --out.
"""
import argparse
import os
import time

import numpy as np
import torch
from torch.utils.data import DataLoader

import vision as rm

p = argparse.ArgumentParser()
p.add_argument("--batches", type=int, default=60)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--out", default="out.npy")
p.add_argument("--expert", action="store_true")
p.add_argument("--device", default="cuda")
a = p.parse_args()
torch.manual_seed(0)
dev = torch.device(a.device)
if a.expert:
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
data = rm.Images(a.batch * a.batches)
if a.expert:
    loader = DataLoader(data, batch_size=a.batch, num_workers=min(8, (os.cpu_count() or 2) - 1), pin_memory=True)
else:
    loader = DataLoader(data, batch_size=a.batch)
model = rm.ResNet18().to(dev).eval()
if a.expert:
    model = model.to(memory_format=torch.channels_last)
outs, t0 = [], None
with torch.no_grad():
    for i, (x, _) in enumerate(loader):
        x = x.to(dev, non_blocking=a.expert)
        if a.expert:
            x = x.contiguous(memory_format=torch.channels_last)
        logits = model(x)
        outs.append(logits.argmax(1).cpu())
        if i == 0:
            np.save(a.out, logits[:256].float().cpu().numpy())
        if i == 4:
            t0 = time.perf_counter()
rate = (len(outs) - 5) / (time.perf_counter() - t0) if t0 else float("nan")
print("batches: %d  it/s: %.3f" % (len(outs), rate))
