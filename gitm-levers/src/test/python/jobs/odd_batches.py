"""A job whose batches are of a list type that refuses indexing (the hook reads a batch's size from its first
element): the hook must turn itself off and the job go on as if it were not there."""
import json

import torch
from torch.utils.data import DataLoader, Dataset


class Sealed(list):
    def __getitem__(self, i):
        raise RuntimeError("sealed batch")


class Items(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        return i


loader = DataLoader(Items(), batch_size=3, collate_fn=lambda b: Sealed(b))
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
batches = 0
for b in loader:
    batches += 1
    opt.zero_grad()
    model(torch.ones(1, 1) * len(b)).sum().backward()
    opt.step()
print(json.dumps({"batches": batches}))
