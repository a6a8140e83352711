#!/usr/bin/env python3
"""Writes a large PyTorch profiler (Kineto) trace by repeating the profiler steps of a real one.

Usage: make_trace.py TEMPLATE.json[.gz] KERNELS OUT.json[.gz]

The template's events inside its ProfilerStep#N ranges (every step, the last partial one included) are repeated,
each copy shifted in time by the span of those steps, with correlation ids, External ids, flow ids and step numbers
renumbered so that copies never collide; events outside the steps (metadata, the Trace span) are written once. It
stops after the copy that reaches KERNELS kernels, so the trace holds at least KERNELS kernels. Written event by
event, never held whole in memory.
"""
import gzip
import json
import re
import sys

STEP = re.compile(r"ProfilerStep#(\d+)")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: make_trace.py TEMPLATE.json[.gz] KERNELS OUT.json[.gz]")
    doc = load(argv[1])
    want = int(argv[2])
    events = doc["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X" and STEP.fullmatch(str(e.get("name", "")))]
    if not steps:
        sys.exit("make_trace: the template has no ProfilerStep#N ranges")
    lo = min(e["ts"] for e in steps)
    hi = max(e["ts"] + e.get("dur", 0) for e in steps)
    inside = [e for e in events if "ts" in e and e.get("ph") != "M" and lo <= e["ts"] <= hi
              and e.get("cat") != "Trace"]
    outside = [e for e in events if e not in inside]
    kernels = sum(1 for e in inside if e.get("cat") == "kernel")
    if kernels == 0:
        sys.exit("make_trace: the template's steps hold no kernels")
    copies = -(-want // kernels)
    span = hi - lo + 10.0
    first_step = min(int(STEP.fullmatch(e["name"]).group(1)) for e in steps)
    n_steps = max(int(STEP.fullmatch(e["name"]).group(1)) for e in steps) - first_step + 1
    corr = 1 + max([e.get("args", {}).get("correlation", 0) for e in events] + [0])
    ext = 1 + max([e.get("args", {}).get("External id", 0) for e in events] + [0])
    ids = 1 + max([e.get("id", 0) for e in events if isinstance(e.get("id"), int)] + [0])
    opener = gzip.open if argv[3].endswith(".gz") else open
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    with opener(argv[3], "wt") as out:
        out.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        first = True
        for e in outside:
            if e.get("cat") == "Trace":
                e = dict(e, dur=span * copies)
            out.write(("" if first else ",\n") + json.dumps(e))
            first = False
        for c in range(copies):
            for e in inside:
                e2 = dict(e)
                e2["ts"] = round(e["ts"] + c * span, 3)
                if isinstance(e.get("id"), int):
                    e2["id"] = e["id"] + c * ids
                a = e.get("args")
                if a:
                    a2 = dict(a)
                    if "correlation" in a2 and a2["correlation"]:
                        a2["correlation"] = a2["correlation"] + c * corr
                    if "External id" in a2 and a2["External id"]:
                        a2["External id"] = a2["External id"] + c * ext
                    e2["args"] = a2
                m = STEP.fullmatch(str(e.get("name", "")))
                if m:
                    e2["name"] = "ProfilerStep#%d" % (int(m.group(1)) + c * n_steps)
                out.write(",\n" + json.dumps(e2))
        out.write("\n]}\n")
    print("make_trace: %d copies of %d kernels (%d steps each) -> %s" % (copies, kernels, n_steps, argv[3]))


if __name__ == "__main__":
    main(sys.argv)
