"""DataLoaders: their settings and dataset kind (facts), the time the job waits in their iterators (the metric's
data wait), and the DataLoader levers, which change a setting only where the job left it at its default.

Levers (value from GITM_TORCH_LEVERS): ``dl-workers=N`` (num_workers 0 -> N), ``dl-pin-memory`` (pin_memory
False -> True, with CUDA only), ``dl-persistent-workers`` (with workers), ``dl-prefetch-factor=N`` (with workers).
A DataLoader over an IterableDataset is refused the worker levers: each worker would iterate the whole dataset
unless the dataset shards itself by get_worker_info(), which the hook cannot know, and its data would repeat.
"""
import inspect
import time

from . import metric, safety, state

loaders = []  # the facts of each DataLoader made, in order (at most MAX_LOADERS)
MAX_LOADERS = 16


def install(torch):
    data = torch.utils.data
    cls = data.DataLoader
    original_init = cls.__init__
    signature = inspect.signature(original_init)

    def __init__(self, *args, **kwargs):
        if not safety.off and state.is_main():
            args, kwargs = _adjust(torch, signature, self, args, kwargs)
        original_init(self, *args, **kwargs)
        if not safety.off and state.is_main():
            _made(torch, self)

    __init__.__wrapped__ = original_init
    cls.__init__ = __init__
    safety.on_undo(lambda: setattr(cls, "__init__", original_init))

    it = torch.utils.data.dataloader._BaseDataLoaderIter
    original_next = it.__next__

    def __next__(self):
        if safety.off:
            return original_next(self)
        t0 = time.perf_counter_ns()
        batch = original_next(self)  # StopIteration and the job's own errors pass through untouched
        _waited(time.perf_counter_ns() - t0, batch)
        return batch

    it.__next__ = __next__
    safety.on_undo(lambda: setattr(it, "__next__", original_next))


@safety.guarded("timing a DataLoader batch")
def _waited(ns, batch):
    metric.data_waited(ns, _batch_len(batch))


def _batch_len(b):
    torch = state.torch
    for _ in range(4):
        if isinstance(b, torch.Tensor):
            return int(b.shape[0]) if b.dim() > 0 else 1
        if isinstance(b, (list, tuple)) and b:
            b = b[0]
        elif isinstance(b, dict) and b:
            b = next(iter(b.values()))
        else:
            return 0
    return 0


def _adjust(torch, signature, loader, args, kwargs):
    try:
        bound = signature.bind(loader, *args, **kwargs)
    except TypeError:
        return args, kwargs  # the job's call is wrong: let DataLoader say so itself
    try:
        changed = _levers(torch, bound.arguments, signature)
    except Exception as e:
        safety.failed("DataLoader levers", e)
        return args, kwargs
    if not changed:
        return args, kwargs
    a = dict(bound.arguments)
    a.pop("self", None)
    a.pop(next(iter(signature.parameters)), None)
    return (), a


def _levers(torch, a, signature):
    asked = state.asked
    if not any(k.startswith("dl-") for k in asked):
        return False
    dataset = a.get("dataset")
    iterable = isinstance(dataset, torch.utils.data.IterableDataset)
    workers = a.get("num_workers", 0) or 0
    changed = False
    if "dl-workers" in asked:
        n = int(asked["dl-workers"])
        if iterable:
            state.record("dl-workers", False, "the DataLoader's dataset (%s) is an IterableDataset: more workers would"
                         " each iterate all of it unless it shards by worker, which the hook cannot know"
                         % type(dataset).__name__)
        elif workers != 0:
            state.record("dl-workers", False, "the job already asks for num_workers=%d" % workers)
        else:
            a["num_workers"] = workers = n
            changed = True
            state.record("dl-workers", True, "DataLoader over %s: num_workers 0 -> %d" % (type(dataset).__name__, n))
    if "dl-pin-memory" in asked:
        if a.get("pin_memory"):
            state.record("dl-pin-memory", False, "the job already asks for pin_memory=True")
        elif not torch.cuda.is_available():
            state.record("dl-pin-memory", False, "no CUDA device: pinned host memory would speed up no copy")
        else:
            a["pin_memory"] = True
            changed = True
            state.record("dl-pin-memory", True, "DataLoader over %s: pin_memory False -> True"
                         % type(dataset).__name__)
    for lever, arg, value in (("dl-persistent-workers", "persistent_workers", True),
                              ("dl-prefetch-factor", "prefetch_factor", None)):
        if lever not in asked:
            continue
        if iterable and workers == 0:
            state.record(lever, False, "the DataLoader's dataset is an IterableDataset with no workers")
        elif workers == 0:
            state.record(lever, False, "the DataLoader has no workers (num_workers=0), so %s has no effect" % arg)
        else:
            v = value if value is not None else int(asked[lever])
            old = a.get(arg, signature.parameters[arg].default if arg in signature.parameters else None)
            if old == v:
                state.record(lever, False, "the job already asks for %s=%s" % (arg, v))
                continue
            a[arg] = v
            changed = True
            state.record(lever, True, "DataLoader over %s: %s %s -> %s" % (type(dataset).__name__, arg, old, v))
    return changed


def _made(torch, dl):
    if len(loaders) >= MAX_LOADERS:
        return
    ds = dl.dataset
    iterable = isinstance(ds, torch.utils.data.IterableDataset)
    loaders.append({
        "datasetType": type(ds).__name__,
        "datasetKind": "iterable" if iterable else "map",
        "length": _len(ds) if not iterable else None,
        "batchSize": dl.batch_size,
        "numWorkers": dl.num_workers,
        "pinMemory": bool(dl.pin_memory),
        "persistentWorkers": bool(getattr(dl, "persistent_workers", False)),
        "prefetchFactor": getattr(dl, "prefetch_factor", None),
        "shuffle": type(getattr(dl, "sampler", None)).__name__ == "RandomSampler",
    })


def _len(ds):
    try:
        return len(ds)
    except Exception:
        return None
