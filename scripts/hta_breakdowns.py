#!/usr/bin/env python3
"""HTA's own breakdowns of Kineto traces, to set beside gitm's (docs/trace-analysis.md quotes them).

Usage: PYTHONPATH=/path/to/HolisticTraceAnalysis python hta_breakdowns.py DIR...  (one trace per DIR)
"""
import sys

import pandas as pd
from hta.trace_analysis import TraceAnalysis

pd.set_option("display.width", 250)
pd.set_option("display.max_columns", 30)

for d in sys.argv[1:]:
    print("=====", d)
    t = TraceAnalysis(trace_dir=d)
    print(t.get_temporal_breakdown(visualize=False).to_string())
    print(t.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)[0].to_string())
    print(t.get_idle_time_breakdown(visualize=False)[0].to_string())
    print(t.get_queue_length_summary().to_string())
    print(t.get_comm_comp_overlap(visualize=False).to_string())
    try:
        k = t.get_gpu_kernels_with_user_annotations(rank=0)
        print(None if k is None else k.groupby("s_user_annotation").size().to_string())
    except Exception as e:  # HTA's own failure, reported as it is
        print("kernels per user annotation failed:", e)
