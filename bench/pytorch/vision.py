"""What the vision jobs share: a compressed image dataset decoded and augmented per item, and a ResNet-18."""
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset


class Images(Dataset):
    """Compressed 96x96 RGB images, decoded, cropped, flipped and resized to 64x64 per item."""

    def __init__(self, n):
        rng = np.random.default_rng(0)
        base = rng.integers(0, 256, (16, 96, 96, 3), dtype=np.uint8)
        self.blobs = [zlib.compress((base[i % 16] // (1 + i % 3)).tobytes(), 6) for i in range(n)]
        self.labels = rng.integers(0, 100, n)

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, i):
        img = np.frombuffer(zlib.decompress(self.blobs[i]), dtype=np.uint8).reshape(96, 96, 3)
        r = np.random.default_rng(i)
        y0, x0 = r.integers(0, 16, 2)
        img = img[y0:y0 + 80, x0:x0 + 80]
        if r.random() < 0.5:
            img = img[:, ::-1]
        x = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float().div_(255)
        x = F.interpolate(x[None], size=(64, 64), mode="bilinear", align_corners=False)[0]
        return (x - 0.5) / 0.25, int(self.labels[i])


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.skip = nn.Sequential()
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.skip(x))


class ResNet18(nn.Module):
    def __init__(self, classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        layers, cin = [], 64
        for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
            layers.append(Block(cin, cout, stride))
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))
