#!/usr/bin/env python3
"""Runs Holistic Trace Analysis' breakdowns on one Kineto trace and prints them as one JSON document.

Usage: PYTHONPATH=HTA hta_breakdowns.py TRACE_DIR

TRACE_DIR holds the one trace. Prints seconds per stage (parse, each breakdown) and, per breakdown, HTA's figures:
the temporal breakdown (idle, compute, non-compute, in µs and %), the kernel-type breakdown (µs and %), the idle
time breakdown per stream (host wait, kernel wait, other, µs), the queue length summary per stream, and the
communication/computation overlap. HTA rounds times down to whole µs where it parses (see its log).
"""
import json
import sys
import time


def frame(df):
    return json.loads(df.to_json(orient="records"))


def main(argv):
    from hta.trace_analysis import TraceAnalysis
    out = {"seconds": {}}
    t = time.perf_counter()
    a = TraceAnalysis(trace_dir=argv[1])
    out["seconds"]["parse"] = time.perf_counter() - t
    stages = {
        "temporal": lambda: frame(a.get_temporal_breakdown(visualize=False)),
        "kernelType": lambda: frame(a.get_gpu_kernel_breakdown(visualize=False)[0]),
        "idleTime": lambda: frame(a.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=False)[0]),
        "queueLength": lambda: frame(a.get_queue_length_summary(ranks=[0]).reset_index()),
        "commCompOverlap": lambda: frame(a.get_comm_comp_overlap(visualize=False)),
    }
    for name, f in stages.items():
        t = time.perf_counter()
        try:
            out[name] = f()
        except Exception as e:  # a breakdown HTA cannot give on this trace is said, not fatal
            out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
        out["seconds"][name] = time.perf_counter() - t
    print(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main(sys.argv)
