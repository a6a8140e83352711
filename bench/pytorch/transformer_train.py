"""A transformer language-model training step as users write it: token windows from a tensor dataset, a DataLoader
at its defaults, nn.TransformerEncoder layers in FP32, AdamW. Nothing in it is tuned for speed.

--expert applies by hand what PyTorch's tuning guide recommends while keeping FP32 weights: TF32 matrix products,
pinned memory and a worker for the DataLoader. Writes the logits of a fixed held-out window to --out.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=40)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--seq", type=int, default=256)
p.add_argument("--width", type=int, default=768)
p.add_argument("--layers", type=int, default=8)
p.add_argument("--out", default="out.npy")
p.add_argument("--expert", action="store_true")
p.add_argument("--device", default="cuda")
a = p.parse_args()
vocab = 8192
torch.manual_seed(0)
dev = torch.device(a.device)
if a.expert:
    torch.backends.cuda.matmul.allow_tf32 = True
tokens = torch.randint(0, vocab, (a.batch * (a.steps + 2), a.seq + 1), generator=torch.Generator().manual_seed(0))
data = TensorDataset(tokens[:, :-1], tokens[:, 1:])
if a.expert:
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, generator=torch.Generator().manual_seed(0),
                        pin_memory=True, num_workers=1, persistent_workers=True)
else:
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, generator=torch.Generator().manual_seed(0))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, a.width)
        self.pos = nn.Parameter(torch.zeros(1, a.seq, a.width))
        layer = nn.TransformerEncoderLayer(a.width, a.width // 64, 4 * a.width, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.body = nn.TransformerEncoder(layer, a.layers)
        self.head = nn.Linear(a.width, vocab)
        self.register_buffer("mask", torch.triu(torch.full((a.seq, a.seq), float("-inf")), 1))

    def forward(self, x):
        return self.head(self.body(self.embed(x) + self.pos, mask=self.mask))


model = LM().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
held = tokens[-1:, :-1].to(dev)
step, t0 = 0, None
for x, y in loader:
    x, y = x.to(dev, non_blocking=a.expert), y.to(dev, non_blocking=a.expert)
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x).view(-1, vocab), y.reshape(-1))
    loss.backward()
    opt.step()
    step += 1
    if step == 5:
        torch.cuda.synchronize() if dev.type == "cuda" else None
        t0 = time.perf_counter()
    if step >= a.steps:
        break
if dev.type == "cuda":
    torch.cuda.synchronize()
rate = (step - 5) / (time.perf_counter() - t0) if t0 else float("nan")
model.eval()
with torch.no_grad():
    np.save(a.out, model(held)[0, -8:].float().cpu().numpy())
print("steps: %d  it/s: %.3f  loss: %.4f" % (step, rate, loss.item()))
