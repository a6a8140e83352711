"""A small training loop for the live-mode tests: each step is a forward, a backward, WORK element-wise CPU
operations on a 64x4096 tensor (which an intra-op thread pool larger than the CPUs slows down on an idle machine),
a pause that paces the steps at --period-per-thread milliseconds per intra-op thread (a step rate the tests
control through the threads setting, which holds on a loaded machine, where CPU work does not: there a larger pool
wins a larger share of the CPUs), and an optimizer step. The pace is kept against deadlines, not by sleeping a fixed
time after the work, so a step delayed by the scheduler is made up by a shorter pause after it (at most one period
is made up): a window's rate stays the period's while the work fits in it. It stops after --steps steps (0: no limit), when the --stop file exists, at SIGTERM, or after --max-seconds,
and then writes --out: the settings it ran with at the end, the steps it made and the seconds they took."""
import argparse
import json
import os
import signal
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=0)
p.add_argument("--work", type=int, default=10)
p.add_argument("--out", required=True)
p.add_argument("--stop", required=True)
p.add_argument("--max-seconds", type=float, default=300)
p.add_argument("--steps", type=int, default=0)
p.add_argument("--period-per-thread", type=float, default=0)
p.add_argument("--threads-after-hello", action="store_true",
               help="set --threads only once gitm has said hello (its token file is gone), not at the start")
args = p.parse_args()

if args.threads_after_hello:
    token = os.environ.get("GITM_HOOK_TOKEN_FILE", "")
    until = time.monotonic() + 60
    while token and os.path.exists(token) and time.monotonic() < until:
        time.sleep(0.01)
if args.threads:
    torch.set_num_threads(args.threads)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.Tanh(), torch.nn.BatchNorm1d(128),
                            torch.nn.Dropout(0.1), torch.nn.Linear(128, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(32, 64)
y = torch.randn(32, 8)
extra = torch.randn(64, 4096)
stopped = []
signal.signal(signal.SIGTERM, lambda *a: stopped.append("SIGTERM"))
start = time.monotonic()
steps = 0
loss = None
due = None  # when the paced step may end
last_period = None
while (not stopped and not os.path.exists(args.stop) and time.monotonic() - start < args.max_seconds
       and (not args.steps or steps < args.steps)):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    for _ in range(args.work):
        (torch.tanh(extra) * 2).sum(1)
    if args.period_per_thread:
        period = args.period_per_thread * torch.get_num_threads() / 1000
        now = time.monotonic()
        due = max(due + period, now - period) if due is not None and period == last_period else now + period
        last_period = period
        if due > now:
            time.sleep(due - now)
    opt.step()
    steps += 1
b = torch.backends
with open(args.out + ".tmp", "w") as f:
    json.dump({"steps": steps, "threads": torch.get_num_threads(), "tf32": bool(b.cuda.matmul.allow_tf32),
               "cudnnBenchmark": bool(b.cudnn.benchmark), "loss": None if loss is None else float(loss),
               "seconds": time.monotonic() - start}, f)
os.replace(args.out + ".tmp", args.out)
print("done after %d steps with %d threads" % (steps, torch.get_num_threads()))
