#!/usr/bin/env python3
"""Tracing overhead of libgitm_inject.so on an unmodified PyTorch job, per GITM_TRACE_KINDS setting.

Each run is one python process of cupti_torch_workload.py --mode bench (a GEMM-heavy loop, then an elementwise-dense
loop of 5000 iterations x 2 kernel launches, repeated --dense-repeats times inside the process). A round runs every
setting once (untraced included), in an order rotated per round; rounds go on while the time budget allows one more
(at least one). Per setting: traced/untraced ratios against the untraced run of the same round, and the time added
per kernel launch of the dense loop, (traced - untraced) / launches, in microseconds. Trace files are deleted
after each run; the record counts per type come from the library's exit line on stderr.

Usage: injection_overhead.py WORKLOAD LIBRARY OUT_DIR [--budget-s 75] [--max-rounds 3] [--dense-repeats 3]
Writes OUT_DIR/torch-injection-overhead.json and prints a table."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

# (label, GITM_TRACE_KINDS or None for an untraced run, extra environment)
SETTINGS = [
    ("untraced", None, {}),
    ("none", "none", {}),
    ("kernel", "kernel", {}),
    ("kernel,memcpy,memset,sync", "kernel,memcpy,memset,sync", {}),
    ("default (kernel,memcpy,memset,sync,api)", "default", {}),
    ("default, GITM_TRACE_CLOCK=cupti", "default", {"GITM_TRACE_CLOCK": "cupti"}),
    ("kernel,memcpy,memset,sync,runtime", "kernel,memcpy,memset,sync,runtime", {}),
    ("all (kernel,memcpy,memset,sync,runtime,driver,overhead)", "all", {}),
]
WROTE = re.compile(r"gitm_inject: wrote (\d+) records .*\(kinds ([^;]*); kernel (\d+), copy (\d+), memset (\d+), "
                   r"sync (\d+), api (\d+), overhead (\d+), dropped (\d+)\)")


def run(workload, library, out, label, kinds, extra, repeats, i):
    env = dict(os.environ)
    for k in ("CUDA_INJECTION64_PATH", "GITM_TRACE_OUT", "GITM_TRACE_KINDS", "GITM_TRACE_CLOCK", "GITM_TRACE_PID"):
        env.pop(k, None)
    trace = None
    if kinds is not None:
        trace = os.path.join(out, "torch-bench-%d.gtrace" % i)
        env.update({"CUDA_INJECTION64_PATH": library, "GITM_TRACE_OUT": trace, "GITM_TRACE_KINDS": kinds})
        env.update(extra)
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, workload, "--mode", "bench", "--dense-repeats", str(repeats)], env=env,
                       capture_output=True, text=True, timeout=180)
    wall = time.monotonic() - t0
    line = [l for l in p.stdout.splitlines() if l.startswith("GITM_RESULT ")]
    if p.returncode or not line:
        raise SystemExit("run failed (%s): rc %d: %s" % (label, p.returncode, p.stderr[-2000:]))
    r = json.loads(line[0][len("GITM_RESULT "):])
    r["process_wall_s"] = wall
    if trace:
        m = WROTE.search(p.stderr)
        if not m:
            raise SystemExit("traced run (%s) wrote no trace: %s" % (label, p.stderr[-2000:]))
        keys = ("records", "kinds", "kernel", "copy", "memset", "sync", "api", "overhead", "dropped")
        r["trace"] = {k: (v if k == "kinds" else int(v)) for k, v in zip(keys, m.groups())}
        for f in (trace, trace + ".tmp"):
            if os.path.exists(f):
                os.remove(f)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workload")
    ap.add_argument("library")
    ap.add_argument("out")
    ap.add_argument("--budget-s", type=float, default=75.0)
    ap.add_argument("--max-rounds", type=int, default=3)
    ap.add_argument("--dense-repeats", type=int, default=3)
    a = ap.parse_args()
    start = time.monotonic()
    rounds = []
    i = 0
    while len(rounds) < a.max_rounds:
        n = len(rounds)
        if n > 0:
            per_round = (time.monotonic() - start) / n
            if time.monotonic() - start + per_round > a.budget_s:
                break
        order = SETTINGS[n * 3 % len(SETTINGS):] + SETTINGS[:n * 3 % len(SETTINGS)]
        rnd = {}
        for label, kinds, extra in order:
            rnd[label] = run(a.workload, a.library, a.out, label, kinds, extra, a.dense_repeats, i)
            i += 1
        rounds.append({"order": [s[0] for s in order], "runs": rnd})
    first = rounds[0]["runs"]["untraced"]
    launches = first["dense_iterations"] * first["dense_kernels_per_iteration"]
    summary = []
    for label, kinds, extra in SETTINGS:
        if kinds is None:
            continue
        dense_ratio, gemm_ratio, added_us = [], [], []
        for rnd in rounds:
            u, t = rnd["runs"]["untraced"], rnd["runs"][label]
            um, tm = statistics.median(u["dense_runs_s"]), statistics.median(t["dense_runs_s"])
            dense_ratio.append(tm / um)
            gemm_ratio.append(t["gemm_s"] / u["gemm_s"])
            added_us.append((tm - um) / launches * 1e6)
        tr = rounds[-1]["runs"][label]["trace"]
        summary.append({"setting": label, "GITM_TRACE_KINDS": kinds, "env": extra,
                        "dense_ratio_median": statistics.median(dense_ratio), "dense_ratio_all": dense_ratio,
                        "us_added_per_launch_median": statistics.median(added_us), "us_added_per_launch_all": added_us,
                        "gemm_ratio_median": statistics.median(gemm_ratio), "gemm_ratio_all": gemm_ratio,
                        "trace_last_round": tr})
    res = {"benchmark": "injection_overhead.py", "rounds": len(rounds), "dense_launches": launches,
           "dense_repeats_per_process": a.dense_repeats, "elapsed_s": time.monotonic() - start,
           "method": "one python process per run; loop times measured inside the process after warm-up "
                     "(time.perf_counter around the loop and torch.cuda.synchronize); the dense time of a process "
                     "is the median of its repeats; ratios and added time per launch against the untraced run of "
                     "the same round; settings rotate their order per round",
           "summary": summary, "raw": rounds}
    with open(os.path.join(a.out, "torch-injection-overhead.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("%-58s %10s %14s %10s %8s %8s" % ("setting", "dense t/u", "us/launch add", "gemm t/u", "kernels", "api"))
    for s in summary:
        tr = s["trace_last_round"]
        print("%-58s %10.4f %14.3f %10.4f %8d %8d" % (s["setting"], s["dense_ratio_median"],
                                                     s["us_added_per_launch_median"], s["gemm_ratio_median"],
                                                     tr["kernel"], tr["api"]))
    print("rounds %d, %d dense launches per repeat, %.1f s" % (len(rounds), launches, res["elapsed_s"]))


if __name__ == "__main__":
    main()
