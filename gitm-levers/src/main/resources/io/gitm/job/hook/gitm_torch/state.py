"""What the hook's parts share: torch, this process's role, the hook folder, the levers asked for, and the files."""
import json
import os
import tempfile
import time

torch = None
role = None
main_pid = None
folder = None
started_ns = None
#: lever name -> value string, as gitm asked for them (GITM_TORCH_LEVERS="tf32=1,dl-workers=4")
asked = {}
#: lever name -> {"applied": bool, "detail": str}: what the hook did with each lever asked for
outcome = {}


def start(t, r):
    global torch, role, main_pid, folder, started_ns, asked
    torch = t
    role = r
    main_pid = os.getpid() if r == "main" else None
    folder = os.environ["GITM_HOOK_DIR"]
    started_ns = time.perf_counter_ns()
    asked = parse_levers(os.environ.get("GITM_TORCH_LEVERS", ""))


def parse_levers(text):
    out = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, value = item.partition("=")
        out[name.strip()] = value.strip() or "1"
    return out


def is_main():
    """Whether this process is the one that claimed the rank (a forked child inherits the patches, not the role)."""
    return main_pid is not None and os.getpid() == main_pid


def record(lever, applied, detail):
    """What the hook did with a lever; a lever applied once stays applied (later attempts add nothing)."""
    was = outcome.get(lever)
    if was is not None and was["applied"]:
        return
    outcome[lever] = {"applied": bool(applied), "detail": detail}


def write_json(name, doc):
    """Writes ``doc`` to the hook folder atomically (a reader sees the old file or the new one, never half)."""
    fd, tmp = tempfile.mkstemp(prefix="." + name, dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"), allow_nan=False)
        os.replace(tmp, os.path.join(folder, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
