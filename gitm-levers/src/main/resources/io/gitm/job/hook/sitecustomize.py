"""gitm's start-up hook for Python jobs.

gitm puts this folder first on a job's PYTHONPATH, so the interpreter imports this file at start-up. It does two
things: when gitm launched the process (GITM_HOOK_DIR is set) it asks to be told when the job imports torch
(gitm_torch), and it then imports the next sitecustomize on the path, the one the job would have had without gitm.
Nothing here may raise into the job: a failure of gitm's part is written to the hook folder and the hook stays off.
"""
import os as _os
import sys as _sys


def _gitm_boot():
    if not _os.environ.get("GITM_HOOK_DIR"):
        return
    try:
        from gitm_torch import boot
        boot.install()
    except BaseException as e:  # the hook must not stop the job, whatever goes wrong in it
        try:
            from gitm_torch import safety
            safety.failed("start-up", e)
        except BaseException:
            pass


def _gitm_chain():
    """Imports the sitecustomize that the job would have found without gitm's folder first on its path."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    saved = list(_sys.path)
    ours = _sys.modules.pop("sitecustomize", None)
    try:
        _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
        import importlib
        try:
            importlib.import_module("sitecustomize")
        except ImportError as e:
            if e.name != "sitecustomize":
                raise
    finally:
        _sys.path[:] = saved
        if "sitecustomize" not in _sys.modules and ours is not None:
            _sys.modules["sitecustomize"] = ours


_gitm_boot()
_gitm_chain()
