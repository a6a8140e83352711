"""An inference loop: no optimizer, a model with nested modules called N times under no_grad."""
import json
import sys

import torch
import torch.nn as nn

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16)
        self.b = nn.Linear(16, 16)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


model = nn.Sequential(Block(), Block(), nn.Linear(16, 2)).eval()
with torch.no_grad():
    for i in range(n):
        model(torch.randn(4, 16))
print(json.dumps({"forwards": n}))
