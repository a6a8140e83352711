"""Framework facts for attribution, written with the metric: the DataLoaders, the math flags, autocast and
torch.compile in use, convolution input formats, the caching allocator's counters, and what each lever did."""
import os
import sys

from . import VERSION, levers, loader, metric, modules, safety, state

used = {"autocast": 0, "autocastDtypes": [], "compile": 0}


def install(torch):
    amp = getattr(getattr(torch, "amp", None), "autocast_mode", None)
    cls = getattr(amp, "autocast", None)
    if cls is not None:
        original = cls.__enter__

        def __enter__(self):
            _autocast(self)
            return original(self)

        cls.__enter__ = __enter__
        safety.on_undo(lambda: setattr(cls, "__enter__", original))
    if hasattr(torch, "compile"):
        compile_ = torch.compile

        def compile(*args, **kwargs):
            _compiled()
            return compile_(*args, **kwargs)

        compile.__wrapped__ = compile_
        compile.__doc__ = compile_.__doc__
        torch.compile = compile
        safety.on_undo(lambda: setattr(torch, "compile", compile_))


@safety.guarded("counting autocast")
def _autocast(ctx):
    if state.is_main() and getattr(ctx, "_enabled", True):
        used["autocast"] += 1
        d = str(getattr(ctx, "fast_dtype", ""))
        if d and d not in used["autocastDtypes"] and len(used["autocastDtypes"]) < 4:
            used["autocastDtypes"].append(d)


@safety.guarded("counting torch.compile")
def _compiled():
    if state.is_main():
        used["compile"] += 1


def _allocator(torch):
    cuda = torch.cuda
    if not cuda.is_initialized():
        return None
    s = cuda.memory_stats()
    return {"allocRetries": s.get("num_alloc_retries", 0), "ooms": s.get("num_ooms", 0),
            "deviceAllocations": s.get("segment.all.allocated", 0), "deviceFrees": s.get("segment.all.freed", 0),
            "peakAllocatedBytes": s.get("allocated_bytes.all.peak", 0),
            "peakReservedBytes": s.get("reserved_bytes.all.peak", 0)}


def document():
    torch = state.torch
    cuda = torch.cuda.is_available()
    doc = {"hookVersion": VERSION, "torch": torch.__version__, "python": sys.version.split()[0],
           "cuda": cuda, "cudaInitialized": bool(torch.cuda.is_initialized()),
           "dataloaders": list(loader.loaders), "flags": levers.facts(), "used": dict(used),
           "allocator": _allocator(torch), "levers": dict(state.outcome)}
    doc.update(modules.facts())
    if cuda and torch.cuda.is_initialized():
        doc["device"] = torch.cuda.get_device_name()
    return doc


def flush():
    """Rewrites metric.json and facts.json in the hook folder (rank 0 or a job without ranks; other ranks add
    -rank<N> to the names)."""
    rank = os.environ.get("RANK", "single")
    suffix = "" if rank in ("single", "0") else "-rank" + rank
    try:
        state.write_json("metric%s.json" % suffix, metric.summary())
        state.write_json("facts%s.json" % suffix, document())
    except Exception as e:
        safety.failed("writing the metric", e)
