"""The job's own step rate, with no regex: the end of every optimizer step (or, for a job that never steps an
optimizer, of every forward of its top module) is a step boundary.

At each boundary the host time is taken (perf_counter_ns), the time spent waiting in DataLoader iterators since the
last boundary is added up, the batch size seen is kept, and, where the job has already initialised CUDA, a CUDA event
is recorded on the current stream; events are only ever queried (cudaEventQuery), never waited on, so no
synchronization is added. Every second at a boundary, and at exit, metric.json and facts.json are rewritten.
"""
import array
import atexit
import collections
import os
import time

from . import safety, state

#: a step rate is taken over the steps after the first WARMUP_SHARE of them (at least one, at most WARMUP_MAX)
WARMUP_SHARE = 0.2
WARMUP_MAX = 50
FLUSH_NS = 1_000_000_000
PENDING_EVENTS = 64

ends = array.array("q")
source = None  # "optimizer" or "forward"
data_wait_ns = array.array("q")
samples = array.array("q")
device_ms = array.array("d")
_wait_since_step = 0
_samples_since_step = 0
_pending = collections.deque()
_last_event = None
_last_flush = 0
_listeners = []
#: while set (the live channel's side forward), a top module's forward is not a step
suspended = False


def on_step(fn):
    """Registers ``fn(index, end_ns)``, called at every step boundary after it is recorded (the control channel)."""
    _listeners.append(fn)


def install(torch):
    import importlib
    optim = importlib.import_module("torch.optim.optimizer")
    if hasattr(optim, "register_optimizer_step_post_hook"):
        handle = optim.register_optimizer_step_post_hook(lambda opt, args, kwargs: _optimizer_step())
        safety.on_undo(handle.remove)
    else:
        _wrap_optimizer_init(torch)
    atexit.register(_at_exit)


def _wrap_optimizer_init(torch):
    """Before PyTorch 2.0 there is no global step hook: each optimizer's step is wrapped when it is made, as a bound
    method (LR schedulers re-wrap ``optimizer.step`` and read its ``__self__`` and ``__func__``)."""
    import types
    cls = torch.optim.Optimizer
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        _wrap_step(self, types)

    cls.__init__ = __init__
    safety.on_undo(lambda: setattr(cls, "__init__", original))


@safety.guarded("wrapping an optimizer's step")
def _wrap_step(opt, types):
    step = type(opt).step

    def stepped(self, *args, **kwargs):
        out = step(self, *args, **kwargs)
        _optimizer_step()
        return out

    opt.step = types.MethodType(stepped, opt)


@safety.guarded("an optimizer step")
def _optimizer_step():
    global source
    if not state.is_main():
        return
    if source != "optimizer":
        if source == "forward":  # forwards were counted before the first optimizer step: they were not steps
            del ends[:], data_wait_ns[:], samples[:], device_ms[:]
        source = "optimizer"
    boundary()


def forward_done():
    """A forward of the job's top module ended: a step while the job has never stepped an optimizer."""
    global source
    if not state.is_main() or source == "optimizer" or suspended:
        return
    source = "forward"
    boundary()


def data_waited(ns, batch):
    global _wait_since_step, _samples_since_step
    if state.is_main():
        _wait_since_step += ns
        _samples_since_step += batch


@safety.guarded("a step boundary")
def boundary():
    global _wait_since_step, _samples_since_step, _last_flush
    now = time.perf_counter_ns()
    ends.append(now)
    data_wait_ns.append(_wait_since_step)
    samples.append(_samples_since_step)
    _wait_since_step = 0
    _samples_since_step = 0
    _device_event()
    for fn in _listeners:
        fn(len(ends) - 1, now)
    if now - _last_flush >= FLUSH_NS:
        _last_flush = now
        from . import facts
        facts.flush()


def _device_event():
    global _last_event
    cuda = state.torch.cuda
    if not cuda.is_initialized():
        return
    while _pending and _pending[0].query():
        e = _pending.popleft()
        if _last_event is not None:
            device_ms.append(_last_event.elapsed_time(e))
        _last_event = e
    if len(_pending) >= PENDING_EVENTS:  # the device is far behind: start the chain again rather than hold more
        _pending.clear()
        _last_event = None
    e = cuda.Event(enable_timing=True)
    e.record()
    _pending.append(e)


def warmup(n):
    return min(WARMUP_MAX, max(1, int(n * WARMUP_SHARE)))


def _quantile(values, q):
    v = sorted(values)
    if not v:
        return None
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def summary():
    n = len(ends)
    doc = {"source": source, "steps": n, "pid": os.getpid()}
    if n >= 3:
        w = warmup(n)
        if n - 1 - w < 1:
            w = n - 2
        span = ends[n - 1] - ends[w]
        doc["warmupSteps"] = w
        doc["stepsPerSecond"] = (n - 1 - w) / (span / 1e9) if span > 0 else None
        steady = range(w + 1, n)
        took = [(ends[i] - ends[i - 1]) / 1e9 for i in steady]
        doc["stepSeconds"] = {"median": _quantile(took, 0.5), "p10": _quantile(took, 0.1),
                              "p90": _quantile(took, 0.9)}
        waited = sum(data_wait_ns[i] for i in steady)
        doc["dataWaitShare"] = waited / span if span > 0 else None
        seen = sum(samples[i] for i in steady)
        doc["samplesPerSecond"] = seen / (span / 1e9) if span > 0 and seen > 0 else None
        doc["samplesPerStep"] = _quantile([samples[i] for i in steady], 0.5) if seen > 0 else None
    if device_ms:
        doc["deviceSpanMsPerStep"] = {"median": _quantile(device_ms, 0.5), "count": len(device_ms)}
    doc["elapsedSeconds"] = (time.perf_counter_ns() - state.started_ns) / 1e9
    return doc


@safety.guarded("exit")
def _at_exit():
    if state.is_main():
        from . import facts
        facts.flush()
