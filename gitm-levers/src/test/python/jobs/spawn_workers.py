"""A DataLoader whose workers are started with spawn: each worker imports torch again (it is not the main process)."""
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.arange(16.0).view(-1, 1)), batch_size=4, num_workers=2,
                        multiprocessing_context="spawn")
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for (x,) in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    print(json.dumps({"ok": True}))
