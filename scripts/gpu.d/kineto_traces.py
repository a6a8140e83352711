"""Records PyTorch profiler (Kineto) traces of small, known jobs, for the trace importer's tests on real files.

Usage: python3 kineto_traces.py OUT_DIR

Each job runs under torch.profiler with a schedule (one warm-up step, then recording), so the trace carries
ProfilerStep#N annotations; the profiler is stopped part-way into one more step, so the last ProfilerStep of every
trace is partial, as in most real traces. Traces are written gzipped (export_chrome_trace writes gzip for a .gz
name), with a manifest (OUT_DIR/manifest.json) that says what each job did: steps, streams, kernels launched per
step where the job knows it, the collective calls, and the versions.
"""

import json
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "kineto-out"
DEV = torch.device("cuda:0")
STEPS = 5  # recorded full steps, after one warm-up step
manifest = {
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "device": torch.cuda.get_device_name(0),
    "recorded_full_steps": STEPS,
    "jobs": {},
}


def mlp(width=1024, depth=4):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers).to(DEV)


def record(name, step_fn, partial_fn, note, **kwargs):
    """Runs step_fn for 1 + STEPS profiler steps and partial_fn inside one more, and writes the trace."""
    path = os.path.join(OUT, f"{name}.pt.trace.json.gz")
    written = []

    def ready(p):
        p.export_chrome_trace(path)
        written.append(path)

    t0 = time.time()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=1000, repeat=1), on_trace_ready=ready,
                 **kwargs) as prof:
        for _ in range(1 + STEPS):
            step_fn()
            prof.step()
        partial_fn()
        torch.cuda.synchronize()
    manifest["jobs"][name] = dict(note, file=os.path.basename(path), written=bool(written),
                                  bytes=os.path.getsize(path) if written else 0,
                                  seconds=round(time.time() - t0, 3),
                                  profiler_options={k: bool(v) for k, v in kwargs.items()})
    print(f"{name}: {manifest['jobs'][name]}", flush=True)


def single_stream():
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device=DEV)
    host = torch.randn(256, 1024).pin_memory()

    def step():
        with record_function("data"):
            x.copy_(host, non_blocking=True)
        with record_function("forward"):
            loss = model(x).square().mean()
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        loss.item()  # the host waits for the step

    def partial():
        with record_function("forward"):
            model(x)

    record("single-stream-mlp", step, partial,
           {"streams": 1, "what": "Linear+ReLU x4 (1024 wide, batch 256), Adam; pinned H2D copy, loss.item() sync;"
            " user annotations data/forward/backward/optimizer"}, record_shapes=True)


def two_streams():
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    a = torch.randn(2048, 2048, device=DEV)
    b = torch.randn(2048, 2048, device=DEV)
    host = torch.randn(4096, 4096).pin_memory()
    dev = torch.empty(4096, 4096, device=DEV)

    def step():
        main = torch.cuda.current_stream()
        s1.wait_stream(main)
        s2.wait_stream(main)
        with torch.cuda.stream(s1):
            for _ in range(4):
                c1 = a @ b
        with torch.cuda.stream(s2):
            dev.copy_(host, non_blocking=True)
            for _ in range(4):
                c2 = b @ a
        main.wait_stream(s1)
        main.wait_stream(s2)
        (c1 + c2).sum().item()

    def partial():
        with torch.cuda.stream(s1):
            a @ b

    record("two-streams", step, partial,
           {"streams": 3, "what": "4 GEMMs 2048^3 on each of two side streams, a 64 MiB pinned H2D copy on the"
            " second, the default stream waits for both, then .item()"})


def cuda_graph():
    model = mlp(512, 3)
    static_x = torch.randn(128, 512, device=DEV)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = model(static_x)
    data = torch.randn(128, 512, device=DEV)

    def step():
        static_x.copy_(data)
        for _ in range(3):
            graph.replay()
        static_y.sum().item()

    record("cuda-graph", step, lambda: graph.replay(),
           {"streams": 1, "what": "an MLP forward (512 wide, 3 layers) captured as a CUDA graph, replayed 3 times a"
            " step"})


def nccl_one_rank():
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=DEV)
    t = torch.randn(1 << 22, device=DEV)
    out = torch.empty(1 << 22, device=DEV)
    w = torch.randn(1024, 1024, device=DEV)

    def step():
        y = w @ w
        dist.all_reduce(t)
        dist.broadcast(t, src=0)
        dist.all_gather_into_tensor(out, t)
        (y.sum() + out.sum()).item()

    try:
        record("nccl-one-rank", step, lambda: dist.all_reduce(t),
               {"streams": 2, "what": "world size 1 over NCCL: per step a 1024^3 GEMM, all_reduce, broadcast and"
                " all_gather_into_tensor of 4 Mi floats (16 MiB)", "collectives_per_step": 3},
               record_shapes=True)
    finally:
        dist.destroy_process_group()


def memory_and_stack():
    model = mlp(256, 2)
    x = torch.randn(64, 256, device=DEV)

    def step():
        tmp = torch.empty(8 << 20, dtype=torch.uint8, device=DEV)  # an 8 MiB allocation and free per step
        model(x).sum().item()
        del tmp

    record("memory-stack", step, lambda: model(x),
           {"streams": 1, "what": "a small MLP forward and an 8 MiB allocation per step, with memory events and"
            " Python stacks"}, profile_memory=True, with_stack=True, record_shapes=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.cuda.init()
    torch.randn(1, device=DEV).sum().item()
    for job in (single_stream, two_streams, cuda_graph, memory_and_stack, nccl_one_rank):
        try:
            job()
        except Exception as e:  # one job's failure leaves the others' traces
            manifest["jobs"][job.__name__] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{job.__name__} failed: {e}", flush=True)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
