"""The live control channel (gitm run --live): gitm steers the running job through a Unix socket.

The socket is GITM_HOOK_SOCKET (made 0600 in a 0700 folder); the token is the text of GITM_HOOK_TOKEN_FILE, a 0600
file of this user (never argv). Messages are newline-delimited JSON objects, at most MAX_LINE bytes. A connection's
first message must be ``{"op": "hello", "protocol": P, "token": T}`` with this hook's protocol and the token, else it
is refused, the refusal written to live.log in the hook folder, and the job left untouched; one controller at a time.
Every reply is ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``, with the message's ``id`` when it had one.

Operations after the hello:
  ``state``: the steps so far, the live settings now, the job's own settings at its first step boundary (empty
      before it), which settings can switch here, whether a trial is open.
  ``steps`` (``since``, ``limit``): the step boundaries' host times (perf_counter_ns) and data waits from step
      ``since`` on, at most ``limit`` of them (default and most MAX_STEPS), with the count so far.
  ``switch`` (``settings``, ``timeoutMs``): the settings are applied by the job's main thread at its next step
      boundary, never by the socket's thread; the reply names the step at whose end they took effect.
  ``trial`` (``action``: ``begin`` with ``fallback`` settings, ``keep``, ``revert``): while a trial is open, a
      controller that goes away without detaching has the fallback applied at the next boundary (gitm was killed:
      the trial in progress is reverted, what was kept before it stays). ``revert`` applies the fallback now.
  ``check`` (``settings``: a list): at the next boundary, the batch held from the top module's first forward is run
      through that module in eval mode under no_grad once per settings (eval mode: dropout off and batch norm on its
      running statistics, so the output is a function of the weights and the settings only, whatever the RNG streams
      of a different thread count; torch's RNG is seeded alike for each all the same, then restored with the module's
      mode and buffers, and the live settings put back); the reply holds each output's digest and values.
  ``detach``: the controller leaves; the settings now stay, and any trial is closed as kept.

Settings (hook names): ``tf32`` (bool: allow_tf32 for cuBLAS and cuDNN), ``cudnn-benchmark`` (bool), ``threads``
(int: torch.set_num_threads), ``expandable-segments`` (bool: the caching allocator's expandable segments, where torch
has torch.cuda.memory._set_allocator_settings and CUDA, else unsupported).
"""
import hashlib
import hmac
import json
import math
import os
import socket
import stat
import struct
import threading
import time

from . import VERSION, metric, modules, safety, state

MAX_LINE = 1 << 20
MAX_STEPS = 50_000
MAX_VALUES = 1 << 16
HELLO_SECONDS = 10
CHECK_SEED = 0x5eed
SETTINGS = ("tf32", "cudnn-benchmark", "threads", "expandable-segments")

_lock = threading.Lock()
_requests = []  # work for the main thread: dicts with "run" (a function of the step index), "done", "reply"
_controller = {"conn": None}
_trial = {"fallback": None}
_expandable = {"now": None}
# torch's intra-op thread count as the job's stepping thread sees it: torch.get_num_threads() is per thread (each
# thread takes the count in force when it first asks, and keeps it), so the channel's own thread cannot read it
_threads = {"stepping": None}
baseline = {}
_held = {"module": None, "args": None, "handle": None}
_socket = {"sock": None, "path": None}


def start(torch):
    """Opens the channel in the main process of rank 0 (or of a job without ranks): one process is steered, and
    a rank switched alone would no longer compute what the others do. A channel that cannot open is logged and the
    rest of the hook goes on."""
    rank = os.environ.get("RANK", "single")
    if rank not in ("single", "0"):
        log("rank %s opens no channel: live mode steers one process (rank 0)" % rank)
        return
    path = os.environ["GITM_HOOK_SOCKET"]
    token = _read_token(os.environ.get("GITM_HOOK_TOKEN_FILE"))
    if token is None:
        return
    _expandable["now"] = _expandable_from_environment() if supported()["expandable-segments"] is True else None
    folder = os.path.dirname(path) or "."
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if stat.S_IMODE(os.stat(folder).st_mode) & 0o077:
            log("refused to open the channel: the socket's folder %s is open to other users" % folder)
            sock.close()
            return
        sock.bind(path)
        os.chmod(path, 0o600)
        sock.listen(4)
    except OSError as e:
        log("refused to open the channel: the socket %s cannot be made (%s)" % (path, e))
        sock.close()
        return
    _socket.update(sock=sock, path=path)
    safety.on_undo(_close)
    metric.on_step(_boundary)
    threading.Thread(target=_serve, args=(sock, token), name="gitm-live", daemon=True).start()
    log("channel open at %s (protocol %d, pid %d)" % (path, VERSION, os.getpid()))


def _read_token(name):
    if not name:
        log("refused to open the channel: GITM_HOOK_TOKEN_FILE is not set")
        return None
    try:
        st = os.stat(name)
        if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
            log("refused to open the channel: the token file %s is not this user's alone (mode %o)"
                % (name, stat.S_IMODE(st.st_mode)))
            return None
        with open(name, "r", encoding="ascii") as f:
            token = f.read().strip()
    except (OSError, UnicodeDecodeError) as e:
        log("refused to open the channel: the token file cannot be read (%s)" % e)
        return None
    if len(token) < 16:
        log("refused to open the channel: the token is shorter than 16 characters")
        return None
    return token


def log(line):
    """Appends one line to live.log in the hook folder."""
    try:
        with open(os.path.join(state.folder, "live.log"), "a", encoding="utf-8") as f:
            f.write("%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), line))
    except OSError:
        pass


def _close():
    sock = _socket["sock"]
    if sock is not None:
        try:
            sock.close()
            os.unlink(_socket["path"])
        except OSError:
            pass


def _serve(sock, token):
    while not safety.off:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        threading.Thread(target=_connection, args=(conn, token), name="gitm-live-conn", daemon=True).start()


def _connection(conn, token):
    try:
        with conn:
            _converse(conn, token)
    except BaseException as e:  # a broken connection or a bug of the channel's: logged, the job goes on
        log("connection ended by an error: %r" % (e,))


def _converse(conn, token):
    conn.settimeout(HELLO_SECONDS)
    reader = conn.makefile("rb")
    hello, why = _message(reader)
    if hello is not None:
        why = _refusal(hello, token)
    if why is not None:
        log("refused a connection: " + why)
        _send(conn, {"ok": False, "error": "refused: " + why})
        return
    with _lock:
        if _controller["conn"] is not None:
            log("refused a connection: another controller is connected")
            _send(conn, {"ok": False, "error": "refused: another controller is connected"})
            return
        _controller["conn"] = conn
    conn.settimeout(None)
    log("controller connected")
    _send(conn, dict(_state(), ok=True))
    detached = False
    try:
        while not detached:
            msg, why = _message(reader)
            if msg is None and why is None:
                break
            if why is not None:
                log("refused a message: " + why)
                _send(conn, {"ok": False, "error": why})
                if why.startswith("a line longer"):
                    break
                continue
            reply, detached = _handle(msg)
            if "id" in msg:
                reply = dict(reply, id=msg["id"])
            _send(conn, reply)
    finally:
        with _lock:
            _controller["conn"] = None
            fallback = _trial["fallback"]
            _trial["fallback"] = None
        if detached:
            log("controller detached; settings stay %s" % json.dumps(current(), sort_keys=True))
        elif fallback is not None:
            _queue(lambda index: _apply(fallback))
            log("controller gone during a trial: reverting to %s at the next step" % json.dumps(fallback,
                                                                                               sort_keys=True))
        else:
            log("controller gone; settings stay %s" % json.dumps(current(), sort_keys=True))


def _message(reader):
    """The next message: (dict, None), (None, why) for a bad one, or (None, None) at the connection's end."""
    try:
        line = reader.readline(MAX_LINE + 1)
    except socket.timeout:
        return None, "no hello within %d s" % HELLO_SECONDS
    except OSError:
        return None, None
    if not line:
        return None, None
    if len(line) > MAX_LINE and not line.endswith(b"\n"):
        return None, "a line longer than %d bytes" % MAX_LINE
    try:
        msg = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return None, "malformed message (not JSON: %s)" % str(e)[:80]
    if not isinstance(msg, dict) or not isinstance(msg.get("op"), str):
        return None, "malformed message (not an object with an \"op\")"
    return msg, None


def _refusal(hello, token):
    if hello.get("op") != "hello":
        return "the first message must be a hello, got %r" % hello.get("op")[:40]
    theirs = hello.get("protocol")
    if theirs != VERSION:
        return "gitm speaks protocol %r and this hook %d" % (theirs, VERSION)
    given = hello.get("token")
    if not isinstance(given, str) or not hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8")):
        return "wrong token"
    return None


def _send(conn, doc):
    try:
        line = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    except ValueError as e:
        line = json.dumps({"ok": False, "error": "the reply could not be written as JSON: %s" % e})
    try:
        conn.sendall(line.encode("utf-8") + b"\n")
    except OSError:
        pass


def _handle(msg):
    """(reply, detached) for one message of the controller."""
    op = msg["op"]
    try:
        if op == "state":
            return dict(_state(), ok=True), False
        if op == "steps":
            return _steps(msg), False
        if op == "switch":
            settings = _settings(msg.get("settings"))
            return _wait(_queue(lambda index: _apply(settings)), msg), False
        if op == "trial":
            return _trial_op(msg), False
        if op == "check":
            wanted = msg.get("settings")
            if not isinstance(wanted, list) or not 1 <= len(wanted) <= 4:
                raise ValueError("check needs \"settings\": a list of 1 to 4 settings")
            checked = [_settings(s) for s in wanted]
            if _held["args"] is None:
                raise ValueError("no batch is held yet (the top module has not run a forward since the channel"
                                 " opened)")
            return _wait(_queue(lambda index: {"outputs": _check(checked)}), msg), False
        if op == "detach":
            with _lock:
                _trial["fallback"] = None
            return {"ok": True, "settings": current()}, True
        raise ValueError("unknown op %r" % op[:40])
    except ValueError as e:
        log("refused a message: %s" % e)
        return {"ok": False, "error": str(e)}, False


def _trial_op(msg):
    action = msg.get("action")
    if action == "begin":
        fallback = _settings(msg.get("fallback", current()))
        with _lock:
            _trial["fallback"] = dict(current(), **fallback)
        return {"ok": True}
    if action == "keep":
        with _lock:
            _trial["fallback"] = None
        return {"ok": True, "settings": current()}
    if action == "revert":
        with _lock:
            fallback = _trial["fallback"]
            _trial["fallback"] = None
        if fallback is None:
            raise ValueError("no trial is open")
        return _wait(_queue(lambda index: _apply(fallback)), msg)
    raise ValueError("trial needs \"action\": begin, keep or revert")


def _settings(s):
    if not isinstance(s, dict):
        raise ValueError("settings must be an object")
    ok = supported()
    out = {}
    for k, v in s.items():
        if k not in SETTINGS:
            raise ValueError("%r cannot switch in a running process (live settings: %s)" % (k[:40],
                                                                                             ", ".join(SETTINGS)))
        if ok[k] is not True:
            raise ValueError("%s is unsupported here: %s" % (k, ok[k]))
        if k == "threads":
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4096:
                raise ValueError("threads must be an integer from 1 to 4096")
        elif not isinstance(v, bool):
            raise ValueError("%s must be true or false" % k)
        out[k] = v
    return out


def supported():
    """Which settings can switch in this process: True, or why not."""
    torch = state.torch
    memory = getattr(getattr(torch, "cuda", None), "memory", None)
    expandable = True
    if not hasattr(memory, "_set_allocator_settings"):
        expandable = "torch %s has no torch.cuda.memory._set_allocator_settings (torch >= 2.1)" % torch.__version__
    elif not torch.cuda.is_available():
        expandable = "no CUDA device"
    return {"tf32": True, "cudnn-benchmark": True, "threads": True, "expandable-segments": expandable}


def _expandable_from_environment():
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    return "expandable_segments:true" in conf.replace(" ", "").lower()


def current():
    b = state.torch.backends
    threads = _threads["stepping"]
    now = {"tf32": bool(b.cuda.matmul.allow_tf32 and b.cudnn.allow_tf32), "cudnn-benchmark": bool(b.cudnn.benchmark),
           "threads": int(state.torch.get_num_threads() if threads is None else threads)}
    if _expandable["now"] is not None:
        now["expandable-segments"] = _expandable["now"]
    return now


def _apply(settings):
    """Applies settings (main thread, at a step boundary); returns what is in force after."""
    torch = state.torch
    for k, v in settings.items():
        if k == "tf32":
            torch.backends.cuda.matmul.allow_tf32 = v
            torch.backends.cudnn.allow_tf32 = v
        elif k == "cudnn-benchmark":
            torch.backends.cudnn.benchmark = v
        elif k == "threads":
            if torch.get_num_threads() != v:
                torch.set_num_threads(v)
            _threads["stepping"] = torch.get_num_threads()
        elif k == "expandable-segments" and _expandable["now"] != v:
            torch.cuda.memory._set_allocator_settings("expandable_segments:%s" % ("True" if v else "False"))
            _expandable["now"] = v
    return {"settings": current()}


def _state():
    with _lock:
        trial = _trial["fallback"] is not None
    return {"protocol": VERSION, "pid": os.getpid(), "torch": state.torch.__version__, "steps": len(metric.ends),
            "source": metric.source, "settings": current(), "baseline": dict(baseline), "supported": supported(),
            "trial": trial, "held": _held["args"] is not None}


def _steps(msg):
    since = msg.get("since", 0)
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise ValueError("steps needs \"since\": a step index >= 0")
    limit = msg.get("limit", MAX_STEPS)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_STEPS:
        raise ValueError("steps' \"limit\" must be an integer from 0 to %d" % MAX_STEPS)
    n = len(metric.ends)
    upto = min(n, since + limit)
    return {"ok": True, "since": since, "count": n, "ends": list(metric.ends[since:upto]),
            "dataWaitNs": list(metric.data_wait_ns[since:upto]), "now": time.perf_counter_ns()}


def _queue(fn):
    r = {"run": fn, "done": threading.Event(), "reply": None, "taken": False}
    with _lock:
        _requests.append(r)
    return r


def _wait(r, msg):
    timeout = msg.get("timeoutMs", 60_000)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3_600_000:
        raise ValueError("timeoutMs must be a number of milliseconds in (0, 3600000]")
    if r["done"].wait(timeout / 1000):
        return r["reply"]
    with _lock:
        if not r["taken"]:
            _requests.remove(r)
            return {"ok": False, "error": "no step boundary within %g ms: nothing was changed" % timeout}
    r["done"].wait()
    return r["reply"]


@safety.guarded("the live channel at a step boundary")
def _boundary(index, now):
    _threads["stepping"] = state.torch.get_num_threads()
    if not baseline:
        baseline.update(current())
        log("the job's own settings at its first step: %s" % json.dumps(baseline, sort_keys=True))
    if _held["args"] is None and _held["handle"] is None and modules.top_modules:
        _hold_next_batch()
    if not _requests:
        return
    with _lock:
        todo = list(_requests)
        del _requests[:]
        for r in todo:
            r["taken"] = True
    for r in todo:
        try:
            reply = r["run"](index)
            reply = dict(reply, ok=True, step=index)
        except Exception as e:  # a setting torch refused: the controller is told, the job goes on
            reply = {"ok": False, "error": "at step %d: %s: %s" % (index, type(e).__name__, e)}
            log("a request failed at step %d: %r" % (index, e))
        r["reply"] = reply
        r["done"].set()


def _hold_next_batch():
    """Holds a copy of the inputs of the next forward of the top module with the most parameters."""
    def size(t):
        return sum(p.numel() for p in t["module"].parameters())

    top = max(modules.top_modules.values(), key=size)
    module = top["module"]

    def pre(m, inputs):
        try:
            _held["args"] = _clone(inputs)
            _held["module"] = m
        finally:
            _held["handle"].remove()

    _held["handle"] = module.register_forward_pre_hook(safety.guarded("holding a batch")(pre))
    safety.on_undo(_held["handle"].remove)


def _clone(x):
    torch = state.torch
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(v) for v in x) if type(x) in (list, tuple) else x
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def _check(settings_list):
    torch = state.torch
    module, args = _held["module"], _held["args"]
    cpu_rng = torch.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    training = module.training
    buffers = [(b, b.detach().clone()) for b in module.buffers()]
    now = current()
    outputs = []
    metric.suspended = True
    module.eval()
    try:
        for s in settings_list:
            _apply(dict(now, **s))
            torch.manual_seed(CHECK_SEED)
            with torch.no_grad():
                y = module(*args)
            outputs.append(_digest(y))
            with torch.no_grad():
                for b, saved in buffers:
                    b.copy_(saved)
    finally:
        metric.suspended = False
        _apply(now)
        with torch.no_grad():
            for b, saved in buffers:
                b.copy_(saved)
        module.train(training)
        torch.set_rng_state(cpu_rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state_all(cuda_rng)
    return outputs


def _tensors(y, out):
    torch = state.torch
    if isinstance(y, torch.Tensor):
        out.append(y)
    elif isinstance(y, (list, tuple)):
        for v in y:
            _tensors(v, out)
    elif isinstance(y, dict):
        for k in sorted(y, key=str):
            _tensors(y[k], out)
    return out


def _digest(y):
    """The output's sha256 (shapes, dtypes and values), its shapes' own sha256, and up to MAX_VALUES values (evenly
    strided over all of them; a value that is NaN or infinite is null)."""
    tensors = _tensors(y, [])
    full = hashlib.sha256()
    fixed = hashlib.sha256()
    values = []
    total = sum(t.numel() for t in tensors)
    stride = max(1, -(-total // MAX_VALUES))
    seen = 0
    for t in tensors:
        shape = "%s%s;" % (t.dtype, tuple(t.shape))
        fixed.update(shape.encode())
        full.update(shape.encode())
        flat = t.detach().reshape(-1).double().cpu().tolist()
        full.update(struct.pack("<%dd" % len(flat), *flat))
        first = (-seen) % stride
        values.extend(v if math.isfinite(v) else None for v in flat[first::stride])
        seen += len(flat)
    return {"sha256": full.hexdigest(), "fixedSha256": fixed.hexdigest(), "values": values[:MAX_VALUES],
            "count": total}
