"""The live control channel (gitm run --live): not opened unless GITM_HOOK_SOCKET is set."""
import os


def maybe_start(torch):
    if os.environ.get("GITM_HOOK_SOCKET"):
        from . import live
        live.start(torch)
