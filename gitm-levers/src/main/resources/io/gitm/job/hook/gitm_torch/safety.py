"""The hook's one rule: it never raises into the job. A failure is written to the hook folder and turns it off.

``off`` is the switch every patched function reads before doing gitm's part; ``undo`` holds what puts the job's own
functions back. After a failure the patched functions call straight through to the originals.
"""
import os
import threading
import time
import traceback

off = False
_undo = []
_lock = threading.Lock()


def on_undo(fn):
    """Registers ``fn`` to be called when the hook turns itself off (restores what a patch replaced)."""
    _undo.append(fn)


def failed(where, exc):
    """Writes ``exc`` to GITM_HOOK_DIR/hook-error.txt, turns the hook off and undoes its patches."""
    global off
    with _lock:
        first = not off
        off = True
    try:
        folder = os.environ.get("GITM_HOOK_DIR")
        if folder:
            with open(os.path.join(folder, "hook-error.txt"), "a", encoding="utf-8") as f:
                f.write("%s pid %d: the hook failed in %s and turned itself off\n" % (
                    time.strftime("%Y-%m-%dT%H:%M:%S"), os.getpid(), where))
                f.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    except BaseException:
        pass
    if first:
        while _undo:
            fn = _undo.pop()
            try:
                fn()
            except BaseException:
                pass


def guarded(where):
    """Decorator: gitm's part of a callback; any exception turns the hook off instead of reaching the job."""
    def wrap(fn):
        def run(*args, **kwargs):
            if off:
                return None
            try:
                return fn(*args, **kwargs)
            except (KeyboardInterrupt, SystemExit):
                raise  # the job's own signal or exit, which only happened to arrive while gitm's part ran
            except BaseException as e:
                failed(where, e)
                return None
        run.__name__ = getattr(fn, "__name__", "guarded")
        return run
    return wrap
