"""A vision-transformer training run as users write it, for live mode: images in a tensor dataset, a DataLoader at its
defaults, a convolution that cuts each image into patches, nn.TransformerEncoder layers in FP32, AdamW, epochs over
the data until --seconds have passed (or --epochs), and a line of throughput every --log-every seconds, the way a
training script reports its progress. Nothing in it is tuned for speed.

--expert applies by hand what PyTorch's tuning guide recommends while keeping FP32 weights: TF32 matrix products and
cuDNN's benchmark mode. Writes the logits of a fixed held-out batch to --out when it ends.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=0, help="train until this much time has passed (0: --epochs)")
p.add_argument("--epochs", type=int, default=1)
p.add_argument("--images", type=int, default=4096)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--width", type=int, default=512)
p.add_argument("--layers", type=int, default=8)
p.add_argument("--patch", type=int, default=8)
p.add_argument("--log-every", type=float, default=30)
p.add_argument("--out", default="out.npy")
p.add_argument("--expert", action="store_true")
p.add_argument("--device", default="cuda")
a = p.parse_args()
classes, size = 100, 64
torch.manual_seed(0)
dev = torch.device(a.device)
if a.expert:
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
g = torch.Generator().manual_seed(0)
images = torch.randint(0, 256, (a.images, 3, size, size), dtype=torch.uint8, generator=g)
labels = torch.randint(0, classes, (a.images,), generator=g)
loader = DataLoader(TensorDataset(images, labels), batch_size=a.batch, shuffle=True, drop_last=True,
                    generator=torch.Generator().manual_seed(0))


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patches = nn.Conv2d(3, a.width, a.patch, a.patch)
        n = (size // a.patch) ** 2
        self.pos = nn.Parameter(torch.zeros(1, n, a.width))
        layer = nn.TransformerEncoderLayer(a.width, a.width // 64, 4 * a.width, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.body = nn.TransformerEncoder(layer, a.layers)
        self.norm = nn.LayerNorm(a.width)
        self.head = nn.Linear(a.width, classes)

    def forward(self, x):
        x = self.patches(x).flatten(2).transpose(1, 2) + self.pos
        return self.head(self.norm(self.body(x)).mean(1))


model = ViT().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
held = (images[:64].float() / 255).to(dev)
start = last = time.perf_counter()
steps = since = epoch = 0
loss = None
while True:
    for x, y in loader:
        x, y = x.to(dev).float().div_(255), y.to(dev)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        steps += 1
        now = time.perf_counter()
        if now - last >= a.log_every:
            print("t %.0f s  steps %d  it/s: %.3f  loss: %.4f" % (now - start, steps, (steps - since) / (now - last),
                                                                  loss.item()), flush=True)
            last, since = time.perf_counter(), steps
        if a.seconds and now - start >= a.seconds:
            break
    epoch += 1
    if (a.seconds and time.perf_counter() - start >= a.seconds) or (not a.seconds and epoch >= a.epochs):
        break
model.eval()
with torch.no_grad():
    np.save(a.out, model(held).float().cpu().numpy())
print("done: %d steps in %d epochs, %.0f s, tf32 %s, cudnn.benchmark %s" % (
    steps, epoch, time.perf_counter() - start, torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.benchmark),
    flush=True)
