"""What the job's modules show in their first forwards, and the one lever that changes them (channels_last).

Global forward hooks (every module's call) are on only for an observation window: until the job has made
OBSERVE_STEPS steps, or its top modules have each run OBSERVE_FORWARDS forwards. Within it the hook finds the top
modules (a forward that starts with no other forward running), counts convolutions and the memory format of their
inputs. Then the global hooks are removed; a job that steps no optimizer keeps one forward hook on its top module,
whose forwards are its steps.
"""
from . import metric, safety, state

OBSERVE_STEPS = 3
OBSERVE_FORWARDS = 3

conv = {"modules": 0, "inputs": 0, "channelsLast": 0, "contiguous": 0, "other": 0}
top_modules = {}  # id -> {"type": name, "forwards": n}
_depth = 0
_seen_convs = set()
_handles = []
_top_hooks = {}
_converted = set()


def install(torch):
    mod = torch.nn.modules.module
    _handles.append(mod.register_module_forward_pre_hook(_pre))
    _handles.append(mod.register_module_forward_hook(_post))
    safety.on_undo(_remove_global)
    metric.on_step(_stepped)


def _remove_global():
    while _handles:
        _handles.pop().remove()


def _stepped(index, now):
    if index + 1 >= OBSERVE_STEPS and _handles:
        _end_window()


@safety.guarded("a module's forward")
def _pre(module, inputs):
    global _depth
    if not state.is_main():
        return None
    torch = state.torch
    replaced = None
    if _depth == 0:
        t = top_modules.setdefault(id(module), {"type": type(module).__name__, "forwards": 0, "module": module})
        t["forwards"] += 1
        if "channels-last" in state.asked and id(module) not in _converted and _to_channels_last(module):
            replaced = _inputs_channels_last(module, inputs)  # the module's own pre-hook starts at its next call
            inputs = replaced if replaced is not None else inputs
    _depth += 1
    if isinstance(module, (torch.nn.Conv2d, torch.nn.ConvTranspose2d)):
        if id(module) not in _seen_convs:
            _seen_convs.add(id(module))
            conv["modules"] += 1
        x = inputs[0] if inputs else None
        if isinstance(x, torch.Tensor) and x.dim() == 4:
            conv["inputs"] += 1
            if x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous():
                conv["channelsLast"] += 1
            elif x.is_contiguous():
                conv["contiguous"] += 1
            else:
                conv["other"] += 1
    return replaced


@safety.guarded("a module's forward")
def _post(module, inputs, output):
    global _depth
    if not state.is_main():
        return None
    _depth = max(0, _depth - 1)
    if _depth == 0:
        metric.forward_done()
        if metric.source != "optimizer" and top_modules and all(
                t["forwards"] >= OBSERVE_FORWARDS for t in top_modules.values()):
            _end_window()
    return None


def _end_window():
    """Removes the global hooks; a job without optimizer steps counts the forwards of its top modules instead."""
    _remove_global()
    if metric.source == "optimizer":
        return
    for key, t in top_modules.items():
        m = t["module"]
        if key not in _top_hooks:
            _top_hooks[key] = m.register_forward_hook(_top_forward)
            safety.on_undo(_top_hooks[key].remove)


@safety.guarded("a top module's forward")
def _top_forward(module, inputs, output):
    metric.forward_done()


def _to_channels_last(module):
    """The channels-last lever: a top module with 2-D convolutions has its 4-D parameters and buffers stored
    channels-last (in place, so the optimizer keeps the same parameters) and its 4-D inputs converted at each call."""
    torch = state.torch
    _converted.add(id(module))
    convs = [m for m in module.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.ConvTranspose2d))]
    if not convs:
        return False
    module.to(memory_format=torch.channels_last)
    handle = module.register_forward_pre_hook(_inputs_channels_last)
    safety.on_undo(handle.remove)
    state.record("channels-last", True, "%s: %d convolution%s stored channels-last, 4-D inputs converted" % (
        type(module).__name__, len(convs), "" if len(convs) == 1 else "s"))
    return True


@safety.guarded("converting inputs to channels-last")
def _inputs_channels_last(module, inputs):
    torch = state.torch
    if not any(isinstance(x, torch.Tensor) and x.dim() == 4 for x in inputs):
        return None
    return tuple(x.contiguous(memory_format=torch.channels_last)
                 if isinstance(x, torch.Tensor) and x.dim() == 4 and x.is_floating_point() else x for x in inputs)


def facts():
    tops = sorted(({"type": t["type"], "forwards": t["forwards"]} for t in top_modules.values()),
                  key=lambda t: -t["forwards"])[:5]
    return {"convolutions": dict(conv), "topModules": tops}
