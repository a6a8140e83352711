"""A DataLoader over an IterableDataset that does not shard by worker, and one over a map-style dataset whose
num_workers the job sets itself."""
import json

import torch
from torch.utils.data import DataLoader, IterableDataset, TensorDataset


class Stream(IterableDataset):
    def __iter__(self):
        return iter(torch.arange(32, dtype=torch.float32).view(-1, 1))


stream = DataLoader(Stream(), batch_size=4)
seen = sum(1 for _ in stream)
chosen = DataLoader(TensorDataset(torch.zeros(16, 1)), batch_size=4, num_workers=1)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for (x,) in chosen:
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
print(json.dumps({"streamBatches": seen, "streamWorkers": stream.num_workers, "chosenWorkers": chosen.num_workers}))
