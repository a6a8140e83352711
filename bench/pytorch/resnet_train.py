"""A ResNet-18-style training loop as users write it: an image dataset decoded and augmented per item in
__getitem__, a DataLoader at its defaults, FP32, SGD with momentum. Nothing in it is tuned for speed.

--expert applies by hand what PyTorch's performance tuning guide recommends while keeping FP32 weights and
numerics: DataLoader workers, pinned memory and persistent workers, cudnn.benchmark, TF32, channels_last.
Writes the logits of a fixed held-out batch to --out (float32 .npy) and the step count and rate to stdout.
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from vision import Images, ResNet18

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=60)
p.add_argument("--batch", type=int, default=128)
p.add_argument("--images", type=int, default=4096)
p.add_argument("--out", default="out.npy")
p.add_argument("--expert", action="store_true")
p.add_argument("--device", default="cuda")
a = p.parse_args()


torch.manual_seed(0)
dev = torch.device(a.device)
if a.expert:
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
data = Images(a.images)
g = torch.Generator().manual_seed(0)
if a.expert:
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, generator=g, drop_last=True,
                        num_workers=min(8, (os.cpu_count() or 2) - 1), pin_memory=True, persistent_workers=True)
else:
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, generator=g, drop_last=True)
model = ResNet18().to(dev)
if a.expert:
    model = model.to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
held = torch.stack([data[i][0] for i in range(64)]).to(dev)
step = 0
t0 = None
while step < a.steps:
    for x, y in loader:
        x, y = x.to(dev, non_blocking=a.expert), y.to(dev, non_blocking=a.expert)
        if a.expert:
            x = x.contiguous(memory_format=torch.channels_last)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        step += 1
        if step == 10:
            torch.cuda.synchronize() if dev.type == "cuda" else None
            t0 = time.perf_counter()
        if step >= a.steps:
            break
if dev.type == "cuda":
    torch.cuda.synchronize()
rate = (a.steps - 10) / (time.perf_counter() - t0) if t0 else float("nan")
model.eval()
with torch.no_grad():
    logits = model(held.contiguous(memory_format=torch.channels_last) if a.expert else held).float().cpu().numpy()
np.save(a.out, logits)
print("steps: %d  it/s: %.3f  loss: %.4f" % (a.steps, rate, loss.item()))
