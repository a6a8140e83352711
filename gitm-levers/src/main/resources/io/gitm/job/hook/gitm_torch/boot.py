"""Start-up: waits for the job to import torch, then decides this process's role and starts the hook's parts.

Roles: the first process of a rank to import torch is that rank's ``main`` process (it claims
``main-<rank>.json`` in the hook folder, exclusively); a process started by ``multiprocessing`` (a DataLoader
worker started with spawn or forkserver) or any later process of the same rank is ``other`` and only says that it
was seen. Forked children inherit the patches of their parent; every part checks ``state.is_main()`` first.
"""
import importlib.abc
import json
import os
import sys

from . import VERSION, safety, state


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when torch is found by the other finders, its loader is wrapped so that
    ``_on_torch`` runs once torch's own module has been executed."""

    def __init__(self):
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy or safety.off:
            return None
        self.busy = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            original = spec.loader.exec_module

            def exec_module(module):
                original(module)
                _on_torch(module)

            spec.loader.exec_module = exec_module
            return spec
        except Exception as e:
            safety.failed("finding torch", e)
            return None
        finally:
            self.busy = False


def install():
    """Called by sitecustomize when gitm launched this process."""
    expected = os.environ.get("GITM_HOOK_VERSION")
    if expected is not None and expected != str(VERSION):
        safety.failed("start-up", RuntimeError(
            "gitm expects hook protocol %s and this hook speaks %d: the hook stays off" % (expected, VERSION)))
        return
    finder = _TorchFinder()
    sys.meta_path.insert(0, finder)
    safety.on_undo(lambda: finder in sys.meta_path and sys.meta_path.remove(finder))


@safety.guarded("torch import")
def _on_torch(torch):
    for finder in list(sys.meta_path):
        if isinstance(finder, _TorchFinder):
            sys.meta_path.remove(finder)
    role = _claim()
    state.start(torch, role)
    if role != "main":
        return
    from . import facts, levers, metric
    levers.install(torch)
    metric.install(torch)
    facts.install(torch)
    from . import channel
    channel.maybe_start(torch)


def _claim():
    folder = os.environ["GITM_HOOK_DIR"]
    rank = os.environ.get("RANK", "single")
    me = {"pid": os.getpid(), "ppid": os.getppid(), "rank": rank, "argv": list(getattr(sys, "argv", []))[:8],
          "python": sys.version.split()[0], "hookVersion": VERSION}
    role = "other"
    import multiprocessing
    started_by_mp = multiprocessing.parent_process() is not None or getattr(
        multiprocessing.current_process(), "_inheriting", False)
    if not started_by_mp:
        try:
            fd = os.open(os.path.join(folder, "main-%s.json" % rank), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            role = "main"
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(me, f)
        except FileExistsError:
            pass
    me["role"] = role
    os.makedirs(os.path.join(folder, "processes"), exist_ok=True)
    with open(os.path.join(folder, "processes", "%d.json" % os.getpid()), "w", encoding="utf-8") as f:
        json.dump(me, f)
    return role
