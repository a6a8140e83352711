#!/usr/bin/env python3
"""Independent figures for the breakdown tests: HTA's breakdowns of a Kineto trace, in exact nanoseconds.

Reads the trace with the standard library only (gzip, json with Decimal times), selects the window as
docs/trace-analysis.md defines it, and prints each figure as the tests pin it. Usage:
    breakdown_oracle.py TRACE.json[.gz] [steps|all]
"""
import gzip
import json
import re
import sys
from decimal import Decimal

STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)$")
OPS = {"kernel", "gpu_memcpy", "gpu_memset"}
API = {"cuda_runtime", "cuda_driver"}
QUEUEING = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
            "cudaMemsetAsync"}
THRESHOLD = 30000


def ns(v):
    return int((Decimal(v) * 1000).to_integral_value())


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    ops, apis, marks = [], [], []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        s = ns(e["ts"])
        t = s + ns(e.get("dur", 0))
        a = e.get("args", {})
        if cat in OPS:
            ops.append(dict(s=s, e=t, dev=a.get("device", e.get("pid")), st=a.get("stream"), cat=cat,
                            name=e["name"], corr=a.get("correlation", 0)))
        elif cat in API:
            apis.append(dict(s=s, e=t, tid=e.get("tid"), name=e["name"], corr=a.get("correlation", 0)))
        elif cat == "user_annotation":
            marks.append(dict(s=s, e=t, tid=e.get("tid"), name=e["name"]))
    return ops, apis, marks


def kernel_type(op):
    if op["cat"] != "kernel":
        return "MEMORY"
    n = op["name"]
    if re.match(r"nccl|hip|hccl|.*ncclKernel", n):
        return "COMMUNICATION"
    if re.match(r"(hip)?Memcpy|(hip)?Memset|dma", n):
        return "MEMORY"
    if re.match(r"nccl|.*Memcpy|.*Memset|.*dma|.*Sync|Stream Wait Event|cuda.*LaunchKernel|runFunction|hip|job_exe"
                r"|packet|pe_exe|cpum_exe_subgraph|hccl|collective_subgraph_execution", n):
        return "OTHER"
    return "COMPUTATION"


def window(ops, apis, marks, spec):
    steps = {}
    for m in sorted(marks, key=lambda m: m["s"]):
        x = STEP.match(m["name"])
        if x and int(x.group(1)) not in steps:
            steps[int(x.group(1))] = m
    if spec == "all" or len(steps) < 2:
        return ops, apis, marks
    to = max(m["s"] for m in steps.values())
    launch = {}
    for a in apis:
        if a["corr"] and a["corr"] not in launch:
            launch[a["corr"]] = a
    keep = [o for o in ops if (launch[o["corr"]]["s"] if o["corr"] in launch else o["s"]) < to]
    return keep, [a for a in apis if a["s"] < to], [m for m in marks if m["s"] < to]


def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def covered(iv):
    return sum(e - s for s, e in iv)


def intersect(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def figures(ops, apis, marks):
    launch = {}
    for a in apis:
        if a["corr"] and a["corr"] not in launch:
            launch[a["corr"]] = a
    span = max(o["e"] for o in ops) - min(o["s"] for o in ops)
    busy = covered(union([(o["s"], o["e"]) for o in ops]))
    by = {t: union([(o["s"], o["e"]) for o in ops if kernel_type(o) == t])
          for t in ("COMPUTATION", "COMMUNICATION", "MEMORY")}
    compute = covered(by["COMPUTATION"])
    print("temporal span=%d idle=%d compute=%d noncompute=%d" % (span, span - busy, compute, span - compute
                                                                  - (span - busy)))
    # kernel types by brute force over every boundary
    cuts = sorted({x for iv in by.values() for p in iv for x in p})
    typed = {}
    for lo, hi in zip(cuts, cuts[1:]):
        on = [t for t in ("COMPUTATION", "COMMUNICATION", "MEMORY")
              if any(s <= lo and hi <= e for s, e in by[t])]
        if on:
            k = " overlapping ".join(on)
            typed[k] = typed.get(k, 0) + hi - lo
    print("types", sorted(typed.items(), key=lambda kv: -kv[1]))
    comm = covered(by["COMMUNICATION"])
    print("overlap", None if comm == 0 else intersect(by["COMMUNICATION"], by["COMPUTATION"]) / comm)
    streams = sorted({(o["dev"], o["st"]) for o in ops})
    for key in streams:
        so = sorted([o for o in ops if (o["dev"], o["st"]) == key], key=lambda o: o["s"])
        hw = kw = ot = gaps = 0
        end = None
        for o in so:
            if end is not None and o["s"] > end:
                gap = o["s"] - end
                gaps += 1
                if o["corr"] in launch and launch[o["corr"]]["s"] > end:
                    hw += gap
                elif gap < THRESHOLD:
                    kw += gap
                else:
                    ot += gap
            end = o["e"] if end is None else max(end, o["e"])
        print("idle", key, "host=%d kernel=%d other=%d gaps=%d" % (hw, kw, ot, gaps))
        ev = []
        for o in so:
            a = launch.get(o["corr"])
            if a and a["name"] in QUEUEING:
                ev.append((a["s"], 0, 1))
                ev.append((o["s"], 1, -1))
        ev.sort(key=lambda x: (x[0], x[1]))
        q, vals = 0, []
        for _, _, d in ev:
            q += d
            vals.append(q)
        if vals:
            n = len(vals)
            mean = sum(vals) / n
            std = (sum((v - mean) ** 2 for v in vals) / (n - 1)) ** 0.5 if n > 1 else float("nan")
            sv = sorted(vals)

            def qt(p):
                pos = p * (n - 1)
                lo = int(pos)
                return sv[lo] + (sv[min(lo + 1, n - 1)] - sv[lo]) * (pos - lo)
            print("queue", key, n, repr(mean), repr(std), sv[0], qt(.25), qt(.5), qt(.75), sv[-1])
    per = {}
    for o in ops:
        a = launch.get(o["corr"])
        name = "(no annotation)"
        if a:
            # the launching thread's innermost open annotation, else any thread's
            inside = [m for m in marks if m["tid"] == a["tid"] and m["s"] <= a["s"] < m["e"]]
            inside = inside or [m for m in marks if m["s"] <= a["s"] < m["e"]]
            if inside:
                name = max(inside, key=lambda m: (m["s"], -m["e"]))["name"]
        x = per.setdefault(name, [0, 0, 0])
        x[0] += 1
        x[1] += o["cat"] == "kernel"
        x[2] += o["e"] - o["s"]
    for k, v in sorted(per.items(), key=lambda kv: (-kv[1][2], kv[0])):
        print("annotation %r ops=%d kernels=%d ns=%d" % (k, v[0], v[1], v[2]))


if __name__ == "__main__":
    o, a, m = load(sys.argv[1])
    o, a, m = window(o, a, m, sys.argv[2] if len(sys.argv) > 2 else "steps")
    print("ops", len(o))
    figures(o, a, m)
