"""Records CPU-only PyTorch profiler (Kineto) traces of small, known jobs, for the importer's tests on real files
written by an older PyTorch (Debian's python3-torch, 1.13, has no CUDA).

Usage: /usr/bin/python3 kineto_cpu_traces.py OUT_DIR

Each job runs under torch.profiler with a schedule (one warm-up step, then recording), so the trace carries
ProfilerStep#N annotations; the profiler stops part-way into one more step, so the last ProfilerStep is partial.
A CPU-only trace holds no device operations: it is the real case of a trace that gitm cannot analyse. A PyTorch
built without Kineto (torch.autograd.kineto_available() is False, as in Debian's) writes the legacy autograd
profiler's Chrome trace: a bare array of complete events without "cat". Traces are written plain and gzipped here,
with a manifest (OUT_DIR/manifest.json) that says what each job did and the versions.
"""

import gzip
import json
import os
import shutil
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "kineto-cpu-out"
STEPS = 3
torch.manual_seed(0)
manifest = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": "cpu",
            "kineto_available": torch.autograd.kineto_available(), "recorded_full_steps": STEPS, "jobs": {}}


def record(name, step_fn, partial_fn, note, **kwargs):
    """Runs step_fn for 1 + STEPS profiler steps and partial_fn inside one more, and writes the trace gzipped."""
    plain = os.path.join(OUT, f"{name}.pt.trace.json")
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=1, active=1000, repeat=1),
                 **kwargs) as prof:
        for _ in range(1 + STEPS):
            step_fn()
            prof.step()
        partial_fn()
    prof.export_chrome_trace(plain)
    with open(plain, "rb") as f, gzip.open(plain + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(plain)
    manifest["jobs"][name] = dict(note, file=os.path.basename(plain) + ".gz", bytes=os.path.getsize(plain + ".gz"),
                                  seconds=round(time.time() - t0, 3), profiler_options=kwargs)


def cpu_mlp():
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(64, 256)
    y = torch.randint(0, 10, (64,))

    def step():
        with record_function("forward"):
            loss = nn.functional.cross_entropy(model(x), y)
        with record_function("backward"):
            opt.zero_grad()
            loss.backward()
        opt.step()

    def partial():
        with record_function("forward"):
            model(x)

    return step, partial


os.makedirs(OUT, exist_ok=True)
step, partial = cpu_mlp()
record("cpu-mlp", step, partial, {"what": "Linear 256-256-10 MLP on the CPU, SGD; user annotations forward/backward"},
       record_shapes=True)
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
print(json.dumps(manifest, indent=2))
