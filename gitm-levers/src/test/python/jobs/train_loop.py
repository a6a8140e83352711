"""A small training loop as users write it: a map-style dataset, a DataLoader at its defaults, a conv model, SGD and
an LR schedule. Prints what it ran with as JSON on its last line (the tests read it)."""
import json
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
batch = 8


class Squares(Dataset):
    def __len__(self):
        return steps * batch

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(3, 8, 8, generator=g), i % 4


torch.manual_seed(0)
loader = DataLoader(Squares(), batch_size=batch)
model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                      nn.Linear(4, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
losses = []
for x, y in loader:
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    losses.append(loss.item())
conv = model[0]
print(json.dumps({
    "steps": len(losses), "lr": opt.param_groups[0]["lr"], "numWorkers": loader.num_workers,
    "persistentWorkers": bool(loader.persistent_workers), "prefetchFactor": loader.prefetch_factor,
    "pinMemory": bool(loader.pin_memory), "allowTf32": torch.backends.cuda.matmul.allow_tf32,
    "cudnnBenchmark": torch.backends.cudnn.benchmark,
    "weightChannelsLast": conv.weight.is_contiguous(memory_format=torch.channels_last) and not
    conv.weight.is_contiguous(), "sameParameter": opt.param_groups[0]["params"][0] is conv.weight,
    "firstLoss": losses[0], "lastLoss": losses[-1]}))
