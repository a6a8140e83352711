"""The framework levers gitm asked for (GITM_TORCH_LEVERS), applied when torch is imported and held at the first
step boundaries (a job that sets a flag after importing torch has it set back to what the lever asked for; the
facts keep what the job itself chose).

``tf32``: FP32 matrix products and convolutions on TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32 and
torch.backends.cudnn.allow_tf32). ``cudnn-benchmark``: cuDNN times its algorithms for each input shape and keeps
the fastest. ``threads=N``: torch's intra-op thread pool (torch.set_num_threads), for a job whose CPU operations
oversubscribe the CPUs it may use. ``channels-last``: modules.py. ``dl-*``: loader.py.
"""
from . import loader, metric, modules, safety, state

KNOWN = ("tf32", "cudnn-benchmark", "threads", "channels-last", "dl-workers", "dl-pin-memory",
         "dl-persistent-workers", "dl-prefetch-factor")
HOLD_STEPS = 3

#: the job's own choice of each flag, read before the lever set it and whenever the job changed it since
chosen = {}


def install(torch):
    for name in state.asked:
        if name not in KNOWN:
            state.record(name, False, "this hook (protocol %s) does not know the lever" % _version())
    _flags(torch, first=True)
    modules.install(torch)
    loader.install(torch)
    metric.on_step(_held)


def _version():
    from . import VERSION
    return VERSION


def _flags(torch, first):
    b = torch.backends
    if first:
        chosen["allowTf32Cublas"] = bool(b.cuda.matmul.allow_tf32)
        chosen["allowTf32Cudnn"] = bool(b.cudnn.allow_tf32)
        chosen["cudnnBenchmark"] = bool(b.cudnn.benchmark)
        chosen["intraOpThreads"] = int(torch.get_num_threads())
    if "tf32" in state.asked:
        if b.cuda.matmul.allow_tf32 and b.cudnn.allow_tf32:
            if first:
                state.record("tf32", False, "the job already allows TF32 for matrix products and convolutions")
        else:
            if not first:
                chosen["allowTf32Cublas"] = bool(b.cuda.matmul.allow_tf32)
            b.cuda.matmul.allow_tf32 = True
            b.cudnn.allow_tf32 = True
            state.record("tf32", True, "allow_tf32 for cuBLAS matrix products and cuDNN convolutions: True")
    if "cudnn-benchmark" in state.asked:
        if b.cudnn.benchmark:
            if first:
                state.record("cudnn-benchmark", False, "the job already sets torch.backends.cudnn.benchmark")
        else:
            if not first:
                chosen["cudnnBenchmark"] = False
            b.cudnn.benchmark = True
            state.record("cudnn-benchmark", True, "torch.backends.cudnn.benchmark: True")
    if "threads" in state.asked:
        _threads(torch, first)


def _threads(torch, first):
    try:
        n = int(state.asked["threads"])
    except ValueError:
        n = 0
    if n < 1:
        state.record("threads", False, "threads=%s is not a positive thread count" % state.asked["threads"])
    elif torch.get_num_threads() == n:
        if first:
            state.record("threads", False, "the job already runs %d intra-op thread%s" % (n, "" if n == 1 else "s"))
    else:
        if not first:
            chosen["intraOpThreads"] = int(torch.get_num_threads())
        torch.set_num_threads(n)
        state.record("threads", True, "torch.set_num_threads(%d)" % n)


@safety.guarded("holding the levers")
def _held(index, now):
    if index < HOLD_STEPS:
        _flags(state.torch, first=False)


def facts():
    b = state.torch.backends
    f = dict(chosen)
    f["matmulPrecisionNow"] = state.torch.get_float32_matmul_precision()
    f["allowTf32CublasNow"] = bool(b.cuda.matmul.allow_tf32)
    f["cudnnBenchmarkNow"] = bool(b.cudnn.benchmark)
    f["intraOpThreadsNow"] = int(state.torch.get_num_threads())
    return f
